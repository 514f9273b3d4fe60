use gemm_macros::gemm_kernel;

// A cp.async ring needs sm_80; the default arch is sm_70.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    stages = 3,
}

// At most 8 stripes in flight.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (64, 64, 8),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
    arch = sm_90,
    stages = 9,
}

fn main() {}
