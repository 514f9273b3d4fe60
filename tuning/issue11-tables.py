#!/usr/bin/env python3
"""Every table and count of issue 11's eleventh-session READMEs, from the
committed CSVs, logs and journals (no GPU):

    python3 tuning/issue11-tables.py

prints, in order: the large-K split/unsplit table and its counts
(tuning/sm_90-splitk/), the slice sweep, the shipped dispatch's ranges over
the transpose pairs, gemm_raw's bitwise checks, the strided-batch table of
the large-problem kernels (tuning/sm_90-batched/), the square benchmark with
the batch ABI (abi-cost/), the batch-class tune (tune/: confirmed ratios and
GPU seconds), and the small/tall/skinny sweep ranges (tuning/sm_90-sweeps/).
"""
import collections
import csv
import json
import os
import re

ROOT = os.path.dirname(os.path.abspath(__file__))
ORDER = {"f32": 0, "f64": 1, "c32": 2, "c64": 3}


def rows(path, sweep=None):
    with open(os.path.join(ROOT, path)) as f:
        return [r for r in csv.DictReader(f) if sweep is None or r["sweep"] == sweep]


def slices(r):
    m = re.search(r"up to (\d+) slices", r["note"])
    return int(m.group(1)) if m else 1


def span(v):
    return f"{min(v):.2f}–{max(v):.2f}" if v else "–"


def large_k():
    print("## Large K, NN: dispatch split vs never split (sm_90-splitk/split, nosplit)")
    split = {(r["precision"], r["m"], r["k"]): r for r in rows("sm_90-splitk/split/bench.csv", "large-k")}
    none = {(r["precision"], r["m"], r["k"]): r for r in rows("sm_90-splitk/nosplit/bench.csv", "large-k")}
    keys = sorted(split, key=lambda k: (ORDER[k[0]], int(k[1]), int(k[2])))
    for k in keys:
        a, b = split[k], none[k]
        print(f"{k[0]} {k[1]} {int(k[2]) // 1024} Ki: {slices(a)} slices, ours {float(a['tflops']):.1f} "
              f"cuBLAS {float(a['cublas_tflops']):.1f} ratio {float(a['ratio']):.2f}, unsplit {float(b['ratio']):.2f}")
    r = [float(split[k]["ratio"]) for k in keys]
    u = [float(none[k]["ratio"]) for k in keys]
    print(f"split {span(r)}, {sum(x >= 0.97 for x in r)} of {len(r)} at or above 0.97; unsplit {span(u)}\n")


def slice_sweep():
    print("## Slice sweep, NN (sm_90-splitk/slices): ratio by slices, best marked *")
    t = collections.defaultdict(dict)
    for r in rows("sm_90-splitk/slices/bench.csv", "large-k"):
        if r["status"] == "ok":
            t[(r["precision"], int(r["m"]), int(r["k"]))][slices(r)] = float(r["ratio"])
    for k in sorted(t, key=lambda k: (ORDER[k[0]], k[1], k[2])):
        best = max(t[k], key=t[k].get)
        print(f"{k[0]} {k[1]} {k[2] // 1024} Ki: " + " ".join(
            f"{s}:{t[k][s]:.2f}{'*' if s == best else ''}" for s in sorted(t[k])))
    # The shipped rule's count (dispatch/, NN) against the sweep's best.
    rule = {(r["precision"], int(r["m"]), int(r["k"])): slices(r)
            for r in rows("sm_90-splitk/dispatch/bench.csv", "large-k") if r["op"] == "nn"}
    worse = []
    for k, v in t.items():
        n = rule[k]
        got = v.get(n, v.get(min(v, key=lambda s: abs(s - n))))  # 33 and 66 were swept as 32 and 64
        best = max(v.values())
        if got < 0.97 * best:
            worse.append(f"{k[0]} {k[1]} {k[2] // 1024} Ki: {n} slices {got:.2f}, best {best:.2f}")
    print(f"the shipped rule's count is the best or within 3% on {len(t) - len(worse)} of {len(t)} shapes; "
          + ("; ".join(worse) if worse else "none worse"))
    print()


def dispatch():
    print("## Large K with the shipped dispatch, every transpose pair (sm_90-splitk/dispatch)")
    d = collections.defaultdict(list)
    for r in rows("sm_90-splitk/dispatch/bench.csv", "large-k"):
        d[(r["precision"], r["op"])].append(float(r["ratio"]))
    for p in sorted({k[0] for k in d}, key=ORDER.get):
        print(p, " ".join(f"{op.upper()} {span(d[(p, op)])}" for op in ["nn", "nt", "tn", "tt"]))
    v = [x for xs in d.values() for x in xs]
    print(f"{sum(x >= 1.0 for x in v)} of {len(v)} at or above 1.0, {sum(x >= 0.9 for x in v)} at or above 0.9\n")
    with open(os.path.join(ROOT, "sm_90-splitk/gpu_batch-raw.log")) as f:
        raw = sum("gemm_raw bitwise equal" in line for line in f)
    print(f"gemm_raw equal to the buffer path's split, bit for bit: {raw} cases (sm_90-splitk/gpu_batch-raw.log)\n")


def batched():
    print("## Strided batches with the large-problem kernels (sm_90-batched/bench.csv)")
    for r in sorted(rows("sm_90-batched/bench.csv", "batched"), key=lambda r: (ORDER[r["precision"]], r["op"], int(r["m"]))):
        print(r["precision"], r["op"], r["m"], r["kernel"].replace("sm_90::", ""), r["note"], f"ratio {float(r['ratio']):.2f}")
    print()


def abi_cost():
    print("## Square sizes with the batch ABI (sm_90-batched/abi-cost/square); before: sm_90-kcontig/tables.py")
    d = collections.defaultdict(list)
    for r in rows("sm_90-batched/abi-cost/square/bench.csv", "square"):
        d[(r["precision"], r["op"])].append(float(r["ratio"]))
    for p in sorted({k[0] for k in d}, key=ORDER.get):
        print(p, " ".join(f"{op.upper()} {span(d[(p, op)])}" for op in ["nn", "nt", "tn", "tt"]))
    print()


def batch_tune():
    print("## Batch classes (sm_90-batched/tune): confirmed winner / cuBLAS, GPU seconds of the measurements")
    total = 0.0
    for n in [8, 16, 32, 64, 128]:
        with open(os.path.join(ROOT, f"sm_90-batched/tune/tune{n}.jsonl")) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        total += sum(r.get("gpu_s") or 0.0 for r in recs)
        conf = collections.defaultdict(dict)
        for r in recs:
            if isinstance(r["phase"], dict) and r.get("median_ms"):
                s = r["subject"]
                who = "cublas" if s["kind"] == "cublas" else ("table2" if s.get("table2") else "winner")
                conf[r["kernel_type"]["precision"]].setdefault(who, r["median_ms"])
        ratios = {p: c["cublas"] / c["winner"] for p, c in conf.items() if "winner" in c and "cublas" in c}
        print(f"{n}^3 x {recs[0]['batch']}: " + " ".join(f"{p} {ratios[p]:.2f}" for p in ["F32", "F64", "C32", "C64"] if p in ratios))
    print(f"GPU seconds of all the batch tunes' measurements: {total:.1f}\n")


def sweeps():
    print("## Small, tall, skinny sweeps (sm_90-sweeps)")
    d = collections.defaultdict(list)
    for r in rows("sm_90-sweeps/bench.csv"):
        if r["sweep"] in ("small", "tall", "skinny") and r["ratio"]:
            name = r["sweep"] + (f" K={r['k']}" if r["sweep"] == "skinny" else "")
            d[(name, r["precision"], r["op"])].append(float(r["ratio"]))
    for sw in ["small", "tall", "skinny K=32", "skinny K=64", "skinny K=128"]:
        for p in ["f32", "f64", "c32", "c64"]:
            print(sw, p, " ".join(f"{op.upper()} {span(d.get((sw, p, op), []))}" for op in ["nn", "nt", "tn", "tt"]))
    print()


for part in [large_k, slice_sweep, dispatch, batched, abi_cost, batch_tune, sweeps]:
    part()
