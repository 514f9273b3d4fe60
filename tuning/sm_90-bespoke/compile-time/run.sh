#!/bin/bash
# Issue 10: where ptxas spends a large bespoke kernel's compile time (no GPU: ptxas 13.0 from PyPI,
# which `cargo xtask test` installs under target/cuda-tools, as a proxy of the driver's JIT, which
# took 15.1 s on the H100 host for this candidate: tuning/sm_90-bespoke/run11-split-f32).
# Run from the repository root: bash tuning/sm_90-bespoke/compile-time/run.sh > tuning/sm_90-bespoke/compile-time/log.txt
set -eu
P=target/cuda-tools/nvidia/cu13/bin/ptxas
D=$(mktemp -d)
cargo build -q --release -p gemm-codegen --example bespoke-ptx
SPEC="precision = f32, family = bsplit, width = 1, block = 128, msplit = 16, chunk = 16, beta = 0, arch = sm_90"
target/release/examples/bespoke-ptx rand-1000x1000-d0.01 "$SPEC" > $D/k.ptx
target/release/examples/bespoke-ptx rand-1000x1000-d0.01 "$SPEC, ldb = 131072, ldc = 131072" > $D/k-fixed.ptx
python3 tuning/sm_90-bespoke/compile-time/variants.py $D/k.ptx
echo "rand-1000x1000-d0.01 f32, $SPEC; $(wc -l < $D/k.ptx) PTX lines; $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
run() { # label, file, options
  local t0=$(date +%s.%N); local out; out=$($P -arch=sm_90 "${@:3}" -v $2 -o /dev/null 2>&1 | grep -o "Used [0-9]* registers")
  printf "%-34s %6.2f s  %s\n" "$1" "$(echo "$(date +%s.%N) - $t0" | bc)" "$out"
}
run "as generated, -O3" $D/k.ptx -O3
run "as generated, -O1" $D/k.ptx -O1
run "as generated, -Ofc=min" $D/k.ptx -Ofc=min
run "imm (wrong: no ldb), -O3" $D/k-imm.ptx -O3
run "wide (mad.wide.u32), -O3" $D/k-wide.ptx -O3
run "run (running pointer), -O3" $D/k-run.ptx -O3
run "ldb = ldc = 131072 fixed, -O3" $D/k-fixed.ptx -O3

# A second operator: f64, 26516 non-zeros (its driver JIT took 14.1 s, ../run11-split-f64).
SPEC2="precision = f64, family = bsplit, width = 1, block = 128, msplit = 16, chunk = 16, beta = 0, arch = sm_90"
target/release/examples/bespoke-ptx rand-512x512-d0.10 "$SPEC2" > $D/k2.ptx
target/release/examples/bespoke-ptx rand-512x512-d0.10 "$SPEC2, ldb = 131072, ldc = 131072" > $D/k2-fixed.ptx
echo "rand-512x512-d0.10 f64, $SPEC2; $(wc -l < $D/k2.ptx) PTX lines"
run "as generated, -O3" $D/k2.ptx -O3
run "ldb = ldc = 131072 fixed, -O3" $D/k2-fixed.ptx -O3

# Session 18: with the strides fixed, does a lower optimization level help? (-O0 is slower still.)
target/release/examples/bespoke-ptx rand-1000x1000-d0.01 "$SPEC, ldb = 131072, ldc = 131072" > $D/k-fixed.ptx
target/release/examples/bespoke-ptx rand-512x512-d0.10 "$SPEC2, ldb = 131072, ldc = 131072" > $D/k2-fixed.ptx
for o in -O1 -Ofc=min; do
  run "f32 fixed, $o" $D/k-fixed.ptx $o
  run "f64 fixed, $o" $D/k2-fixed.ptx $o
done
rm -rf $D
