use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = Missing,
    a = "tests/ui/data/no-such-operator.mtx",
    precision = f64,
}

fn main() {}
