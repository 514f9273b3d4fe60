use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 0),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (0, 32),
    lds_width = 0,
}

fn main() {}
