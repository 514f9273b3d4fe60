use gemm_macros::gemm_kernel;

// The tensor memory accelerator brings stripes that `wgmma` reads in
// place: NN's A (M-contiguous) must be converted, so `ldg = tma` is
// refused on `ldg`.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (128, 128, 32),
    threads = (64, 4),
    load_a = (32, 4),
    load_b = (8, 16),
    lds_width = 4,
    arch = sm_90a,
    stages = 3,
    ldg_width = 4,
    ldg = tma,
    warps = (8, 1),
    math = tf32,
    mma = (64, 128, 8),
    producers = 1,
}

// Bulk copies need 16-byte aligned operands: `ldg_width = 4`.
gemm_kernel! {
    name = SgemmTN,
    precision = f32,
    op = (T, N),
    tile = (128, 128, 32),
    threads = (64, 4),
    load_a = (32, 4),
    load_b = (32, 4),
    lds_width = 4,
    arch = sm_90a,
    stages = 3,
    ldg_width = 1,
    ldg = tma,
    warps = (8, 1),
    math = tf32,
    mma = (64, 128, 8),
    producers = 1,
}

fn main() {}
