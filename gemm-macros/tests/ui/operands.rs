use gemm_macros::gemm_kernel;

// A kernel with swapped operands reads each operand transposed from how
// the call does: a conjugated one would have to be read conjugated but not
// transposed, which no op does.
gemm_kernel! {
    name = ZgemmCN,
    precision = c64,
    op = (C, N),
    tile = (32, 32, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
    operands = ba,
}

// A word the parameter does not take.
gemm_kernel! {
    name = SgemmTT,
    precision = f32,
    op = (T, T),
    tile = (32, 32, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
    operands = swapped,
}

// Every parameter but `op` describes the transposed product: `load_b`
// reads the kernel's B, which is the call's A (K leads: 8 deep).
gemm_kernel! {
    name = DgemmTT,
    precision = f64,
    op = (T, T),
    tile = (32, 32, 8),
    threads = (8, 8),
    load_a = (32, 2),
    load_b = (32, 2),
    operands = ba,
}

fn main() {}
