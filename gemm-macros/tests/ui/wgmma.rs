use gemm_macros::gemm_kernel;

// A warpgroup shape (64, n, 8) is a Hopper `wgmma`: sm_90a only.
gemm_kernel! {
    name = SgemmWgmmaOnSm90,
    precision = f32,
    op = (N, N),
    tile = (64, 64, 32),
    threads = (32, 4),
    load_a = (16, 8),
    load_b = (8, 16),
    lds_width = 4,
    ldg_width = 4,
    arch = sm_90,
    stages = 2,
    warps = (4, 1),
    math = tf32x3,
    mma = (64, 64, 8),
}

// tf32x3 keeps a second set of n / 2 accumulators: n up to 128.
gemm_kernel! {
    name = SgemmWgmmaTooWide,
    precision = f32,
    op = (N, N),
    tile = (64, 256, 32),
    threads = (32, 4),
    load_a = (16, 8),
    load_b = (8, 16),
    lds_width = 4,
    ldg_width = 4,
    arch = sm_90a,
    stages = 2,
    warps = (4, 1),
    math = tf32x3,
    mma = (64, 256, 8),
}

// Four consecutive warps form a warpgroup of 64 rows.
gemm_kernel! {
    name = SgemmWgmmaSixWarps,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 32),
    threads = (48, 4),
    load_a = (24, 8),
    load_b = (8, 24),
    lds_width = 4,
    ldg_width = 4,
    arch = sm_90a,
    stages = 2,
    warps = (6, 1),
    math = tf32x3,
    mma = (64, 96, 8),
}

// The conversion into TF32 parts reads 16 bytes at a time.
gemm_kernel! {
    name = SgemmWgmmaNarrowLoads,
    precision = f32,
    op = (N, N),
    tile = (64, 64, 32),
    threads = (32, 4),
    load_a = (16, 8),
    load_b = (8, 16),
    lds_width = 1,
    ldg_width = 4,
    arch = sm_90a,
    stages = 2,
    warps = (4, 1),
    math = tf32,
    mma = (64, 64, 8),
}

// A c32 thread keeps n / 2 complex accumulators, twice for tf32x3: n up to 64.
gemm_kernel! {
    name = CgemmWgmmaTooWide,
    precision = c32,
    op = (N, C),
    tile = (128, 128, 16),
    threads = (64, 4),
    load_a = (64, 4),
    load_b = (64, 4),
    lds_width = 2,
    ldg_width = 2,
    arch = sm_90a,
    stages = 2,
    warps = (8, 1),
    math = tf32x3,
    mma = (64, 128, 8),
}

fn main() {}
