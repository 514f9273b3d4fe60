// Any order, optional parameters, no trailing comma; the spec and PTX agree
// with the library's own compilation of the same spec.
use gemm_codegen::{GemmKernel, GlobalLoad};
use gemm_macros::gemm_kernel;

gemm_kernel! {
    ldg = cg,
    load_b = (16, 16),
    load_a = (16, 16),
    lds_width = 2,
    threads = (16, 16),
    tile = (64, 64, 16),
    op = (N, T),
    precision = f32,
    name = Tuned
}

gemm_kernel! { name = Grouped, precision = c32, op = (N, N), tile = (64, 64, 16), threads = (16, 16), load_a = (16, 16), load_b = (16, 16), c_batch = 4 }

gemm_kernel! { name = Streamed, precision = f64, op = (T, N), tile = (32, 32, 8), threads = (8, 8), load_a = (8, 8), load_b = (8, 8), schedule = stream_k }

gemm_kernel! { name = Swapped, precision = f64, op = (T, T), tile = (32, 32, 8), threads = (8, 8), load_a = (32, 2), load_b = (8, 8), operands = ba }

gemm_kernel! { name = Defaults, precision = f64, op = (N, N), tile = (64, 64, 16), threads = (16, 16), load_a = (16, 16), load_b = (16, 16) }

fn main() {
    assert_eq!(Tuned::SPEC.lds_width, 2);
    assert_eq!(Tuned::SPEC.ldg, GlobalLoad::Cg);
    assert_eq!(Defaults::SPEC.lds_width, 1);
    assert_eq!(Defaults::SPEC.ldg, GlobalLoad::Nc);
    assert_eq!(Defaults::SPEC.c_batch, 1);
    assert_eq!(Grouped::SPEC.c_batch, 4);
    assert_eq!(Defaults::SPEC.schedule, gemm_codegen::Schedule::Tiles);
    assert_eq!(Streamed::SPEC.schedule, gemm_codegen::Schedule::StreamK);
    assert_eq!(Streamed::image(), gemm_codegen::compile(&Streamed::SPEC).unwrap());
    // The last block to reach a split tile counts its arrival.
    assert!(Streamed::PTX.contains("atom.relaxed.gpu.global.inc.u32"));
    assert_eq!(Defaults::SPEC.operands, gemm_codegen::Operands::Ab);
    assert_eq!(Swapped::SPEC.operands, gemm_codegen::Operands::Ba);
    assert_eq!(Swapped::image(), gemm_codegen::compile(&Swapped::SPEC).unwrap());
    // The kernel computes C^T = B * A: its first operand is the call's B.
    assert!(Swapped::PTX.contains("C^T = B * A"));
    assert_eq!(Grouped::image(), gemm_codegen::compile(&Grouped::SPEC).unwrap());
    // The epilogue reads the old C of the thread's four columns together.
    assert!(Grouped::PTX.contains("old C of columns 0..4 before any is written"));
    let image = gemm_codegen::compile(&Tuned::SPEC).unwrap();
    assert_eq!(Tuned::image(), image);
    assert!(Tuned::PTX.contains("ld.global.cg"));
    // The generated type derives the usual traits.
    assert_eq!(format!("{:?}", Tuned), "Tuned");
    assert_eq!(Tuned, Tuned::default());
}
