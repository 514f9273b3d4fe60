#!/usr/bin/env bash
# A/B of kernel variants in one process each, two builds back to back:
# every spec of specs.txt is benched at one large size (cuBLAS in the same
# run) by build X0, then by build X1, alternating, so a code-generator
# change is compared on the same GPU minutes apart. (The general form, any
# number of builds and environments, is tuning/sm_90-copies/ab.sh; the
# CSVs of variants-1/ and variants-2/ call the variant column `build`.)
# Usage: variants.sh X0 X1 OUT [specs.txt]
set -u
exec bash tuning/sm_90-copies/ab.sh "$3" "${4:-tuning/sm_90-stalls/specs.txt}" "0|$1" "1|$2"
