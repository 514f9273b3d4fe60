use gemm_macros::gemm_bespoke;

// A fixed stride must be at least 1, and a multiple of the vector width.
gemm_bespoke! {
    name = Zero,
    a = "tests/ui/data/good.mtx",
    precision = f64,
    family = bstream,
    ldb = 0,
}

gemm_bespoke! {
    name = Odd,
    a = "tests/ui/data/good.mtx",
    precision = f32,
    family = bstream,
    width = 4,
    ldb = 4096,
    ldc = 4098,
}

fn main() {}
