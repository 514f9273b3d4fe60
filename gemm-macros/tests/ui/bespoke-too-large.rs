use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = TooLarge,
    a = "tests/ui/data/too-large.mtx",
    precision = f64,
}

fn main() {}
