use gemm_macros::gemm_kernel;

// The FP64 tensor cores multiply f64 (and c64).
gemm_kernel! {
    name = SgemmDmma,
    precision = f32,
    op = (N, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (8, 32),
    lds_width = 2,
    arch = sm_90,
    stages = 3,
    warps = (2, 4),
    math = dmma,
    mma = (16, 8, 8),
}

// The m16 shapes are Hopper's.
gemm_kernel! {
    name = DgemmAmpere,
    precision = f64,
    op = (N, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (8, 32),
    lds_width = 2,
    arch = sm_80,
    stages = 3,
    warps = (2, 4),
    math = dmma,
    mma = (16, 8, 8),
}

// An mma shape without a tensor-core math.
gemm_kernel! {
    name = DgemmFma,
    precision = f64,
    op = (N, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (8, 32),
    mma = (16, 8, 8),
}

// Each warp's lanes are the 8 x 4 fragment grid: 2 x 4 warps are 16 x 16
// threads, and the warp tiles must be multiples of 16 (96 / 4 = 24 is not).
gemm_kernel! {
    name = DgemmTile,
    precision = f64,
    op = (N, N),
    tile = (64, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (8, 32),
    lds_width = 2,
    arch = sm_90,
    stages = 3,
    warps = (2, 4),
    math = dmma,
    mma = (16, 8, 8),
}

// tf32x3 has the TF32 shapes, (16, 8, 4) and (16, 8, 8).
gemm_kernel! {
    name = SgemmTf32Shape,
    precision = f32,
    op = (N, N),
    tile = (128, 64, 16),
    threads = (16, 8),
    load_a = (32, 4),
    load_b = (4, 32),
    lds_width = 4,
    arch = sm_90,
    stages = 3,
    warps = (2, 2),
    math = tf32x3,
    mma = (16, 8, 16),
}

// An f32 lane reads 4 rows at once: warp tiles are multiples of 32
// (64 / 4 = 16 is not).
gemm_kernel! {
    name = SgemmTf32Tile,
    precision = f32,
    op = (N, N),
    tile = (128, 64, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (4, 64),
    lds_width = 4,
    arch = sm_90,
    stages = 3,
    warps = (2, 4),
    math = tf32x3,
    mma = (16, 8, 8),
}

fn main() {}
