use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = WrongHeader,
    a = "tests/ui/data/wrong-header.mtx",
    precision = f64,
}

fn main() {}
