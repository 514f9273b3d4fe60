use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (48, 48, 16),
    threads = (12, 4),
    load_a = (12, 4),
    load_b = (16, 3),
}

fn main() {}
