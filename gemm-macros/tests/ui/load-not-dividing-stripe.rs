use gemm_macros::gemm_kernel;

// B as stored (op N) is read as K_blk × N_blk = 16 × 96 with K contiguous:
// 32 threads along K do not divide 16.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
}

fn main() {}
