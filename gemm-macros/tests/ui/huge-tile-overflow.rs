use gemm_macros::gemm_kernel;

// Sizes whose shared memory (17 GB) and register bound overflow u32: both
// resource rules report them with their true values.
gemm_kernel! {
    name = SgemmHuge,
    precision = f32,
    op = (N, N),
    tile = (65536, 32, 65536),
    threads = (32, 1),
    load_a = (32, 1),
    load_b = (32, 1),
}

fn main() {}
