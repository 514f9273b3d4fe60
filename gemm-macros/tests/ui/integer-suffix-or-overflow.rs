use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96u32, 96, 16),
    threads = (16, 16_usize),
    load_a = (32, 8),
    load_b = (8, 4294967296),
    lds_width = -1,
}

fn main() {}
