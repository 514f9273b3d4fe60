use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = Complex,
    a = "tests/ui/data/good.mtx",
    precision = c64,
}

fn main() {}
