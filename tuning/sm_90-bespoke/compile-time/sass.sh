#!/bin/bash
# Issue 10: what an f64 non-zero of A costs in SASS (no GPU). Assembles the f64 operator's fixed-stride
# kernel of run.sh with ptxas and counts its instructions with cuobjdump (PyPI nvidia-cuda-cuobjdump;
# CUOBJDUMP=path, else the one on PATH). Run from the repository root:
#   bash tuning/sm_90-bespoke/compile-time/sass.sh > tuning/sm_90-bespoke/compile-time/sass.txt
set -eu
P=target/cuda-tools/nvidia/cu13/bin/ptxas
C=${CUOBJDUMP:-$(command -v cuobjdump)}
D=$(mktemp -d)
cargo build -q --release -p gemm-codegen --example bespoke-ptx
SPEC="precision = f64, family = bsplit, width = 1, block = 128, msplit = 16, chunk = 16, beta = 0, arch = sm_90, ldb = 131072, ldc = 131072"
target/release/examples/bespoke-ptx rand-512x512-d0.10 "$SPEC" > $D/k.ptx
$P -arch=sm_90 -O3 $D/k.ptx -o $D/k.cubin
echo "rand-512x512-d0.10 f64 (26,516 non-zeros), $SPEC: SASS instructions by opcode"
$C -sass $D/k.cubin | grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z][A-Z0-9.]*' | awk '{print $2}' | sort | uniq -c | sort -rn | head -8
rm -rf $D
