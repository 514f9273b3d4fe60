#!/usr/bin/env python3
"""Rewrites a bespoke kernel's PTX (argv[1]) into variants that differ only in how B's row
addresses are formed, to see what ptxas spends its time on (issue 10's compile-time target):

  imm   each load at an immediate offset from the column's base (WRONG results: it drops ldb;
        a bound on what the address arithmetic costs ptxas)
  wide  mad.wide.u32 of a 32-bit ldb instead of mad.lo.u64 (right for ldb < 2^30)
  run   one running pointer per row group, bumped by power-of-two multiples of ldb (right)

Writes <stem>-<variant>.ptx beside the input."""
import re
import sys

src = sys.argv[1]
stem = src[: -len(".ptx")]
s = open(src).read()
MAD = re.compile(r"\tmad\.lo\.u64\t%row_ptr, %ldb_bytes, (\d+), %b_col;")

imm = re.sub(MAD.pattern + r"\n\tld\.global\.nc\.f32\t(%\w+), \[%row_ptr\];",
             lambda m: "\tld.global.nc.f32\t%s, [%%b_col+%d];" % (m.group(2), int(m.group(1)) * 4), s)
open(stem + "-imm.ptx", "w").write(imm)

wide = s.replace("\t.reg .pred %p_in;", "\t.reg .pred %p_in;\n\t.reg .u32 %ldb32;")
wide = wide.replace("\tmul.lo.u64\t%ldc_bytes, %ldc, 4;", "\tmul.lo.u64\t%ldc_bytes, %ldc, 4;\n\tcvt.u32.u64\t%ldb32, %ldb_bytes;")
wide = MAD.sub(r"\tmad.wide.u32\t%row_ptr, %ldb32, \1, %b_col;", wide)
open(stem + "-wide.ptx", "w").write(wide)

out, prev = [], None
for line in s.split("\n"):
    if line.startswith("\t.reg .pred %p_in;"):
        out += [line, "\t.reg .u64 %bptr, " + ", ".join("%%ldb_x%d" % (1 << i) for i in range(11)) + ";"]
        continue
    if line.startswith("\tmul.lo.u64\t%ldc_bytes"):
        out += [line, "\tmov.u64\t%ldb_x1, %ldb_bytes;"]
        out += ["\tadd.u64\t%%ldb_x%d, %%ldb_x%d, %%ldb_x%d;" % (1 << i, 1 << (i - 1), 1 << (i - 1)) for i in range(1, 11)]
        continue
    if "setp.ne.u32\t%p_other_group" in line:
        prev = None
    m = MAD.match(line)
    if m:
        r = int(m.group(1))
        if prev is None or r < prev:
            out.append("\tmov.u64\t%bptr, %b_col;")
            prev = 0
        out += ["\tadd.u64\t%%bptr, %%bptr, %%ldb_x%d;" % (1 << i) for i in range(11) if (r - prev) >> i & 1]
        out.append("\tmov.u64\t%row_ptr, %bptr;")
        prev = r
        continue
    out.append(line)
open(stem + "-run.ptx", "w").write("\n".join(out))
