use gemm_macros::gemm_kernel;

// The tensor memory accelerator feeds a warp-specialized `wgmma` kernel's
// producer: an FMA kernel's threads load their own stripes, so `ldg = tma`
// is refused on `ldg`.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    ldg = tma,
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
