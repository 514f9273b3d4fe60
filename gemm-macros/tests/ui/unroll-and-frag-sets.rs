use gemm_macros::gemm_kernel;

// The inner product's loop takes 3 k steps per iteration: 16 is not a
// whole number of them.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    unroll = 3,
}

// Fragments come in one register set or two.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
    frag_sets = 3,
}

fn main() {}
