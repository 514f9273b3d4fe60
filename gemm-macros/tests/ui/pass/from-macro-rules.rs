// Values substituted by a `macro_rules!` arrive wrapped in invisible groups;
// they are read as if written directly.
use gemm_codegen::GemmKernel;
use gemm_macros::gemm_kernel;

macro_rules! square_kernel {
    ($name:ident, $precision:ident, $tile:literal, $k:expr, $threads:tt) => {
        gemm_kernel! {
            name = $name,
            precision = $precision,
            op = (N, N),
            tile = ($tile, $tile, $k),
            threads = ($threads, $threads),
            load_a = ($threads, $threads),
            load_b = ($threads, $threads),
        }
    };
}

square_kernel!(Dgemm64, f64, 64, 16, 16);

fn main() {
    assert_eq!((Dgemm64::SPEC.m_blk, Dgemm64::SPEC.k_blk, Dgemm64::SPEC.m_dim), (64, 16, 16));
}
