use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
}

gemm_kernel! {
    name = DgemmNN,
    precision = f64,
    op = (N, N),
    tile = 64, 64, 16,
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

fn main() {}
