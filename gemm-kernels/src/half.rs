//! The default kernels of the 16-bit precisions (`f16`, `bf16`): Hopper
//! only (`arch = sm_90a`), one configuration for all nine op combinations
//! — a CTA tile of 128 × 256 × 64 computed by two consumer warpgroups of
//! `wgmma` `m64n256k16` (f32 accumulators), fed by a producer warpgroup's
//! tensor-memory-accelerator copies into a ring of three 48 KiB stages
//! (`ldg = tma`, `producers = 1`): the shape CUTLASS's Hopper kernels use
//! for half-precision GEMMs. `wgmma` reads every operand as the copies land
//! it, K-major or MN-major (`gemm_codegen::constraints::half_box_fits`), so
//! no op pays for a conversion. `C` means `T` (the types are real).
//!
//! Kernel names are `Hgemm{op(A)}{op(B)}` (f16, HGEMM's letter) and
//! `Bgemm{op(A)}{op(B)}` (bf16).

use gemm_macros::gemm_kernel;

use crate::KernelEntry;

// F16

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
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = HgemmNT,
    precision = f16,
    op = (N, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (16, 8),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = HgemmNC,
    precision = f16,
    op = (N, C),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (16, 8),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

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
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = HgemmTT,
    precision = f16,
    op = (T, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = HgemmTC,
    precision = f16,
    op = (T, C),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = HgemmCN,
    precision = f16,
    op = (C, N),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (8, 16),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = HgemmCT,
    precision = f16,
    op = (C, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = HgemmCC,
    precision = f16,
    op = (C, C),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = f16,
    mma = (64, 256, 16),
    producers = 1,
}

// BF16

gemm_kernel! {
    name = BgemmNN,
    precision = bf16,
    op = (N, N),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (16, 8),
    load_b = (8, 16),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmNT,
    precision = bf16,
    op = (N, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (16, 8),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmNC,
    precision = bf16,
    op = (N, C),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (16, 8),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmTN,
    precision = bf16,
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
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmTT,
    precision = bf16,
    op = (T, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmTC,
    precision = bf16,
    op = (T, C),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmCN,
    precision = bf16,
    op = (C, N),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (8, 16),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmCT,
    precision = bf16,
    op = (C, T),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

gemm_kernel! {
    name = BgemmCC,
    precision = bf16,
    op = (C, C),
    tile = (128, 256, 64),
    threads = (64, 4),
    load_a = (8, 16),
    load_b = (32, 4),
    arch = sm_90a,
    stages = 3,
    ldg = tma,
    ldg_width = 8,
    warps = (8, 1),
    raster = 8,
    math = bf16,
    mma = (64, 256, 16),
    producers = 1,
}

/// Every kernel of this module: f16 then bf16, ops NN NT NC TN TT TC CN CT
/// CC. [`crate::table2()`] indexes it for the 16-bit precisions.
pub static HALF: [KernelEntry; 18] = [
    KernelEntry::of::<HgemmNN>("HgemmNN"),
    KernelEntry::of::<HgemmNT>("HgemmNT"),
    KernelEntry::of::<HgemmNC>("HgemmNC"),
    KernelEntry::of::<HgemmTN>("HgemmTN"),
    KernelEntry::of::<HgemmTT>("HgemmTT"),
    KernelEntry::of::<HgemmTC>("HgemmTC"),
    KernelEntry::of::<HgemmCN>("HgemmCN"),
    KernelEntry::of::<HgemmCT>("HgemmCT"),
    KernelEntry::of::<HgemmCC>("HgemmCC"),
    KernelEntry::of::<BgemmNN>("BgemmNN"),
    KernelEntry::of::<BgemmNT>("BgemmNT"),
    KernelEntry::of::<BgemmNC>("BgemmNC"),
    KernelEntry::of::<BgemmTN>("BgemmTN"),
    KernelEntry::of::<BgemmTT>("BgemmTT"),
    KernelEntry::of::<BgemmTC>("BgemmTC"),
    KernelEntry::of::<BgemmCN>("BgemmCN"),
    KernelEntry::of::<BgemmCT>("BgemmCT"),
    KernelEntry::of::<BgemmCC>("BgemmCC"),
];
