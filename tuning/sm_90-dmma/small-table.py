#!/usr/bin/env python3
"""Prints small.sh's comparison: per kernel type and size, the ratio to
cuBLAS of the shipped (FMA) kernel and of the dmma winner, both from the
same device call. Usage: python3 small-table.py [small/]"""
import csv, os, sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'small')
shipped = {}
for r in csv.DictReader(open(os.path.join(d, 'shipped', 'bench.csv'))):
    shipped[(r['precision'], r['op'], r['sweep'], r['m'], r['n'], r['k'])] = r
print('| type | sweep | m x n x k | shipped FMA / cuBLAS | dmma / cuBLAS | dmma / shipped |')
print('|---|---|---|---|---|---|')
for i in range(1, 9):
    for r in csv.DictReader(open(os.path.join(d, f'dmma-{i}', 'bench.csv'))):
        key = (r['precision'], r['op'], r['sweep'], r['m'], r['n'], r['k'])
        s = shipped.get(key)
        speed = f"{float(r['tflops']) / float(s['tflops']):.2f}" if s else '(other size)'
        print(f"| {r['precision']} {r['op']} | {r['sweep']} | {r['m']} x {r['n']} x {r['k']} | "
              f"{s['ratio'] if s else '-'} | {r['ratio']} | {speed} |")
