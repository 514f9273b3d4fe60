use gemm_macros::gemm_kernel;

// 96 columns on 16 threads: each thread writes 6 columns of C, so the
// epilogue can read the old C of at most 6 columns before writing any.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    c_batch = 8,
}

// A group of no columns reads nothing.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
    c_batch = 0,
}

fn main() {}
