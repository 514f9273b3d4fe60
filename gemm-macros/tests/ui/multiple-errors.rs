use gemm_macros::gemm_kernel;

// Every mistake is reported in one compilation.
gemm_kernel! {
    name = CgemmNN,
    precision = c32,
    op = (N, N),
    tile = (64, 60, 16),
    threads = (16, 16),
    load_a = (32, 16),
    load_b = (16, 16),
    lds_width = 2,
    blocks = 2,
}

fn main() {}
