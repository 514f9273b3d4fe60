use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = NoOperator,
    precision = f64,
    family = cstream,
}

fn main() {}
