use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNX,
    precision = f32,
    op = (N, X),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
}

gemm_kernel! {
    name = SgemmTn,
    precision = f32,
    op = (t, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = NT,
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
}

fn main() {}
