use gemm_macros::gemm_kernel;

// Interleaving spreads a cp.async ring's copies over the product: without
// a ring there are none.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    interleave = 2,
}

// Groups go beside the k steps of a stripe in straight-line code, which
// `unroll` turns into a loop.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
    arch = sm_80,
    stages = 3,
    unroll = 4,
    interleave = 2,
}

// A stripe 16 deep has 16 k steps to put groups beside.
gemm_kernel! {
    name = SgemmTN,
    precision = f32,
    op = (T, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (8, 32),
    load_b = (8, 32),
    arch = sm_80,
    stages = 3,
    interleave = 17,
}

fn main() {}
