use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (128, 128, 8),
    threads = (8, 8),
    load_a = (16, 4),
    load_b = (8, 8),
}

fn main() {}
