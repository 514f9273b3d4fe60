//! Every Table 2 kernel, all 9 op combinations of each precision, on the
//! ragged shapes of every dimension, against an f64 reference.

mod emu_common;

use emu_common::{Rng, check_case, check_spec_any, edge_cases, slow, table2};
use gemm_codegen::num_complex::Complex;
use gemm_codegen::{Op, Precision};
use gemm_emu::{Gemm, Program};

fn table2_all_ops(precision: Precision) {
    let mut failures = Vec::new();
    let started = std::time::Instant::now();
    let mut instructions = 0;
    for (i, op_a) in Op::ALL.into_iter().enumerate() {
        for (j, op_b) in Op::ALL.into_iter().enumerate() {
            let spec = table2(precision, op_a, op_b);
            let cases = edge_cases(&spec, slow());
            match check_spec_any(&spec, &cases, (i * 3 + j) as u64) {
                Ok(stats) => instructions += stats.thread_instructions,
                Err(e) => failures.push(e),
            }
        }
    }
    eprintln!(
        "{precision}: 9 kernels, {:.2e} thread-instructions in {:.2?}",
        instructions as f64,
        started.elapsed()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn table2_sgemm() {
    table2_all_ops(Precision::F32);
}

#[test]
fn table2_dgemm() {
    table2_all_ops(Precision::F64);
}

#[test]
fn table2_cgemm() {
    table2_all_ops(Precision::C32);
}

#[test]
fn table2_zgemm() {
    table2_all_ops(Precision::C64);
}

#[test]
fn a_module_runs_without_its_text() {
    // Decoding the IR directly gives the same program and the same lines.
    let spec = table2(Precision::C64, Op::C, Op::T);
    let plan = gemm_codegen::validate(&spec).unwrap();
    let image = gemm_codegen::emit(&plan);
    let from_text = Program::from_ptx(&image.ptx, None).unwrap();
    let from_ir = Program::from_module(&gemm_codegen::lower(&plan), None).unwrap();
    assert_eq!(format!("{from_text:?}"), format!("{from_ir:?}"));
    let gemm = Gemm::from_program(from_ir, &image).unwrap();
    let mut rng = Rng::new(7);
    for case in edge_cases(&spec, false).iter().step_by(4) {
        check_case::<Complex<f64>>(&gemm, case, &mut rng).unwrap();
    }
}

#[test]
fn the_gemm_layer_refuses_what_it_cannot_run() {
    let spec = table2(Precision::F32, Op::N, Op::N);
    let image = gemm_codegen::compile(&spec).unwrap();
    let gemm = Gemm::new(&image).unwrap();
    let args = gemm_emu::GemmArgs { m: 1, n: 1, k: 1, lda: 1, ldb: 1, ldc: 1, alpha: 1.0f64, beta: 0.0 };
    let e = gemm.run(&args, &[1.0], &[1.0], &mut [0.0], &Default::default()).unwrap_err();
    assert!(e.to_string().contains("computes on f32 elements, not f64"), "{e}");
    // A kernel that is not a GEMM of this precision.
    let other =
        Program::from_ptx(&gemm_codegen::compile(&table2(Precision::F64, Op::N, Op::N)).unwrap().ptx, None)
            .unwrap();
    assert!(Gemm::from_program(other, &image).is_err());
    // Too short a C: the emulator faults instead of writing past it.
    let args = gemm_emu::GemmArgs { m: 2, n: 2, k: 1, lda: 2, ldb: 1, ldc: 2, alpha: 1.0f32, beta: 0.0 };
    let e = gemm.run(&args, &[1.0, 2.0], &[1.0, 1.0], &mut [0.0; 3], &Default::default()).unwrap_err();
    assert!(e.to_string().contains("outside every buffer"), "{e}");
}
