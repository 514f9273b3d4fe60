use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = Unknown,
    a = "tests/ui/data/good.mtx",
    precision = f64,
    famliy = bstream,
    tile = (96, 96, 16),
}

fn main() {}
