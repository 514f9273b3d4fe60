use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96),
    threads = 256,
    load_a = [32, 8],
    load_b = (8, , 32),
}

fn main() {}
