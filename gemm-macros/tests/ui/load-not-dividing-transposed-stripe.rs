use gemm_macros::gemm_kernel;

// load_a = (32, 8) fits A's stripe for op(A) = N (M_blk × K_blk = 96 × 16),
// but for op(A) = T the stored stripe is K_blk × M_blk = 16 × 96.
gemm_kernel! {
    name = SgemmTN,
    precision = f32,
    op = (T, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
}

fn main() {}
