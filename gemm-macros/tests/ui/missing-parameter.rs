use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    load_a = (32, 8),
}

// The failed invocation still defines the type, so this adds no error.
fn takes(_: SgemmNN) {}

fn main() {}
