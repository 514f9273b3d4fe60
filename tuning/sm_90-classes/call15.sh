#!/bin/bash
# Session 18, device call 15: large-K shape classes (issue 11's M, N <= 512, K >= 64 Ki), every
# kernel type, each variant timed with the dispatch's split of K (749334d): two shapes, 280 s each.
PEAK=tuning/sm_90-classes/call1/peak.json LIMIT=280 BUDGET=4.5 bash tuning/sm_90-classes/tune.sh 256,256,65536 512,512,65536
