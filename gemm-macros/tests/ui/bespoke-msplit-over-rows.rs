use gemm_macros::gemm_bespoke;

// good.mtx has 6 rows: at most 6 groups can split them.
gemm_bespoke! {
    name = Split,
    a = "tests/ui/data/good.mtx",
    precision = f64,
    family = bstream,
    msplit = 8,
    block = 32,
}

fn main() {}
