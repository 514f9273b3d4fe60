use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = NoFamily,
    a = "tests/ui/data/good.mtx",
    precision = f32,
    width = 2,
    beta = 1,
}

fn main() {}
