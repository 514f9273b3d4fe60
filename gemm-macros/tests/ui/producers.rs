use gemm_macros::gemm_kernel;

// A producer warpgroup feeds the tensor cores of a `wgmma` kernel: an FMA
// kernel has nothing for it to convert.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 4),
    load_b = (8, 16),
    producers = 1,
}

// With a producer warpgroup the load shapes rearrange its 128 threads,
// not the 256 of `threads`.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (128, 128, 32),
    threads = (64, 4),
    load_a = (32, 8),
    load_b = (32, 4),
    lds_width = 4,
    arch = sm_90a,
    stages = 3,
    ldg_width = 4,
    warps = (8, 1),
    math = tf32x3,
    mma = (64, 128, 8),
    producers = 1,
}

// The producer issues the copies together: it runs no product to
// interleave them with.
gemm_kernel! {
    name = SgemmTN,
    precision = f32,
    op = (T, N),
    tile = (128, 128, 32),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (8, 16),
    lds_width = 4,
    arch = sm_90a,
    stages = 3,
    ldg_width = 4,
    warps = (8, 1),
    interleave = 2,
    math = tf32x3,
    mma = (64, 128, 8),
    producers = 1,
}

fn main() {}
