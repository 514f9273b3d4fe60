use gemm_macros::gemm_kernel;

// `sm_90` is written with an underscore.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    arch = sm90,
}

// A group of zero tile rows.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
    raster = 0,
}

fn main() {}
