#!/bin/bash
# Stream-K, run 3: run 2 at the 1024^3 small-square class (f64, c64, every transpose pair, --stream-k).
set -u
SHAPE=1024,1024,1024 bash tuning/sm_90-stream-k/run2/run.sh
