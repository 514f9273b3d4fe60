use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = HgemmNN,
    precision = f8,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    ldg = lu,
}

gemm_kernel! {
    name = SgemmNN,
    precision = F32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    ldg = CG,
}

fn main() {}
