use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = "SgemmNN",
    precision = 32,
    op = (N, N),
    tile = (96, "96", 16),
    threads = (16.0, 16),
    load_a = (32, 'a'),
    load_b = (8, 32),
    lds_width = true,
    ldg = "nc",
}

fn main() {}
