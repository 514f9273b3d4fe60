"""The warp-specialized twin of a shipped wgmma spec: one producer warpgroup (`producers = 1`)
whose 128 threads take over the copies, so each load shape keeps its lead and divides its cross
by threads / 128; `math = tf32` with `--tf32` as the first argument."""
import re, sys

args = sys.argv[1:]
tf32 = args[:1] == ["--tf32"]
spec = " ".join(args[1:] if tf32 else args)
m_dim, n_dim = map(int, re.search(r"threads = \((\d+), (\d+)\)", spec).groups())
scale = m_dim * n_dim // 128

def load(m):
    lead, cross = int(m.group(2)), int(m.group(3))
    return f"{m.group(1)} = ({lead}, {cross // scale})"

spec = re.sub(r"(load_[ab]) = \((\d+), (\d+)\)", load, spec)
if tf32:
    spec = spec.replace("math = tf32x3", "math = tf32")
print(spec + ", producers = 1")
