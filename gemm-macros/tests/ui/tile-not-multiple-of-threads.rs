use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (72, 88, 32),
    threads = (16, 16),
    load_a = (8, 32),
    load_b = (32, 8),
}

fn main() {}
