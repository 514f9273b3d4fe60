use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = NonFiniteValue,
    a = "tests/ui/data/non-finite-value.mtx",
    precision = f64,
}

fn main() {}
