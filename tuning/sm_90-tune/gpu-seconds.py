#!/usr/bin/env python3
# Median GPU seconds per search measurement of a tune journal, by precision and
# size. Usage: python3 gpu-seconds.py JOURNAL.jsonl ...
import json,sys,statistics as st
for f in sys.argv[1:]:
    g={}
    for l in open(f):
        r=json.loads(l)
        if r['subject']['kind']!='variant' or r['phase']!='search' or r.get('gpu_s') is None: continue
        k=(r['kernel_type']['precision'],r['size'][0]); g.setdefault(k,[]).append(r['gpu_s'])
    for k in sorted(g): print(f, k, len(g[k]), 'median gpu_s %.3f'%st.median(g[k]))
