use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = Wide,
    a = "tests/ui/data/good.mtx",
    precision = f32,
    family = bstream,
    width = 3,
}

fn main() {}
