use gemm_macros::gemm_kernel;

// A 16-bit precision multiplies only on Hopper's `wgmma` of its own type:
// `math = tf32` is refused on `math`.
gemm_kernel! {
    name = HgemmTN,
    precision = f16,
    op = (T, N),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (8, 16),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    math = tf32,
    mma = (64, 256, 16),
    producers = 1,
}

// Its operands reach the tensor cores only by the tensor memory
// accelerator: another `ldg` is refused on `ldg`.
gemm_kernel! {
    name = HgemmNN,
    precision = f16,
    op = (N, N),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (16, 8),
    load_b = (8, 16),
    arch = sm_90a,
    stages = 3,
    ldg = cg,
    ldg_width = 8,
    warps = (8, 1),
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

// An MN-major B comes in boxes of 64 columns: a `wgmma` of 96 columns
// would split one, refused on `ldg`.
gemm_kernel! {
    name = BgemmNT,
    precision = bf16,
    op = (N, T),
    tile = (128, 192, 64),
    threads = (64, 8),
    load_a = (16, 8),
    load_b = (8, 16),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 2),
    math = bf16,
    mma = (64, 96, 16),
    producers = 1,
}

// `wgmma` exists only on sm_90a: refused on `math`.
gemm_kernel! {
    name = BgemmTT,
    precision = bf16,
    op = (T, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

// Read in place, both operands' stripes hand over on the copies' barriers
// alone: the consumers may run `stages - 1` stripes ahead of the producer,
// so at most 3 stages, refused on `stages`.
gemm_kernel! {
    name = HgemmTT,
    precision = f16,
    op = (T, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 4,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

fn main() {}
