#!/bin/bash
# Session 19, no GPU: the f32 skinny class kernel (SgemmNN8192x8192x64) with c_batch 1, 2, 4, 8, 16 —
# ptxas's registers and spills (sm_90), and the epilogue's runs path in the SASS as runs of LDG.E.128 /
# STG.E.128 (the kernel's other global traffic is cp.async): with c_batch 1, 2 loads then 2 stores 16
# times; with 8, 16 then 16 twice. Also checks that c_batch = 1 is the spec without it, byte for byte.
# ptxas from target/cuda-tools (cargo xtask test installs it), cuobjdump from PyPI into target/cuobjdump.
set -eu
cargo build -q --release -p gemm-codegen --example kernel-ptx
PTXAS=${GEMMFORGE_PTXAS:-target/cuda-tools/nvidia/cu13/bin/ptxas}
CUOBJDUMP=target/cuobjdump/nvidia/cu13/bin/cuobjdump
[[ -x $CUOBJDUMP && -x ${CUOBJDUMP%/*}/nvdisasm ]] || python3 -m pip install -q --no-deps --target target/cuobjdump "nvidia-cuda-cuobjdump>=13,<14" "nvidia-cuda-nvdisasm>=13,<14"
T=$(mktemp -d)
S="precision = f32, op = (N, N), tile = (128, 128, 32), threads = (16, 8), load_a = (32, 4), load_b = (8, 16), lds_width = 4, arch = sm_90, stages = 3, ldg_width = 4, warps = (2, 2), raster = 8, math = tf32x3, mma = (16, 8, 8)"
target/release/examples/kernel-ptx "$S" > $T/plain.ptx
for b in 1 2 4 8 16; do
  target/release/examples/kernel-ptx "$S, c_batch = $b" > $T/k$b.ptx
  regs=$($PTXAS -v -arch sm_90 -o $T/k$b.cubin $T/k$b.ptx 2>&1 | grep -o "Used [0-9]* registers.*")
  runs=$(PATH=${CUOBJDUMP%/*}:$PATH $CUOBJDUMP -sass $T/k$b.cubin | grep -o "LDG.E.128\|STG.E.128" | uniq -c | awk '{printf "%s %s, ", $1, substr($2,1,3)}')
  echo "c_batch $b: $regs; runs path: ${runs%, }"
done
cmp -s $T/plain.ptx $T/k1.ptx && echo "c_batch = 1 emits the PTX of the spec without it"
rm -rf $T
