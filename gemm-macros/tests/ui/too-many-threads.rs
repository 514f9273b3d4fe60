use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (128, 64, 32),
    threads = (64, 32),
    load_a = (64, 32),
    load_b = (32, 64),
}

fn main() {}
