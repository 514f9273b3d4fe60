//! Every Table 2 kernel, all 9 op combinations of each precision, on the
//! ragged shapes of every dimension, against an f64 reference.

use crate::common as emu_common;

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
        check_case::<Complex<f64>>(&gemm, case, &mut rng, spec.math).unwrap();
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

/// The epilogue's runs path (one vector access per run of `lds_width`
/// rows, no bounds predicates) is taken only for a tile inside C with C's
/// base and `ldc` multiples of the run. Planted mistakes, each caught:
/// without the `ldc` half of the test, an odd `ldc` misaligns the second
/// column's runs and the emulator faults where the GPU would; without the
/// tile-inside-C half, a block on C's edge writes the rows below `m`. The
/// kernel as generated is right on both problems and on the aligned one
/// where it takes the runs path.
#[test]
fn the_runs_epilogue_needs_an_aligned_ldc_and_a_whole_tile() {
    let spec = gemm_codegen::KernelSpec { lds_width: 2, ..table2(Precision::F32, Op::N, Op::N) };
    assert_eq!((spec.m_blk, spec.n_blk), (96, 96));
    let image = gemm_codegen::compile(&spec).unwrap();
    let pair = |setp: &str| format!("\t{setp};\n\tand.pred\t%p_c_runs, %p_c_runs, %p_c_runs_part;\n");
    let ldc_test = pair("setp.eq.u64\t%p_c_runs_part, %c_align_bits, 0");
    let m_test = pair("setp.ge.s32\t%p_c_runs_part, %c_room, 96");
    assert_eq!(image.ptx.matches(&ldc_test).count(), 1, "the ldc test is in the PTX");
    assert_eq!(image.ptx.matches(&m_test).count(), 2, "the m and n tests are in the PTX");
    assert!(image.ptx.contains("st.global.v2.f32"), "the runs path stores pairs");
    let n = 96u32;
    // C(row, col) = row + 2 · 0.5 where the row exists, 0.5 (untouched)
    // below m (a run written there would double it).
    let run = |ptx: &str, m: u32, ldc: u64| -> Result<Vec<f32>, String> {
        let args =
            gemm_emu::GemmArgs { m, n, k: 1, lda: u64::from(m), ldb: 1, ldc, alpha: 1.0f32, beta: 2.0 };
        let a: Vec<f32> = (0..m).map(|i| i as f32).collect();
        let b = vec![1.0f32; n as usize];
        let mut c = vec![0.5f32; (ldc * u64::from(n)) as usize];
        let program = Program::from_ptx(ptx, None).map_err(|e| e.to_string())?;
        let gemm = Gemm::from_program(program, &image).map_err(|e| e.to_string())?;
        gemm.run(&args, &a, &b, &mut c, &Default::default()).map_err(|e| e.to_string())?;
        Ok(c)
    };
    let expect = |c: &[f32], m: u32, ldc: u64| {
        for (at, &value) in c.iter().enumerate() {
            let row = (at as u64 % ldc) as u32;
            let want = if row < m { row as f32 + 1.0 } else { 0.5 };
            assert_eq!(value, want, "C({row}, {}) with m = {m}, ldc = {ldc}", at as u64 / ldc);
        }
    };
    for (m, ldc) in [(96, 96), (96, 97), (94, 96)] {
        expect(&run(&image.ptx, m, ldc).expect("the generated kernel"), m, ldc);
    }
    let err = run(&image.ptx.replace(&ldc_test, ""), 96, 97).expect_err("a misaligned vector access");
    assert!(err.contains("misaligned"), "{err}");
    let c = run(&image.ptx.replacen(&m_test, "", 1), 94, 96).expect("in the buffer, outside the matrix");
    assert!((0..n as usize).any(|col| c[col * 96 + 94] != 0.5), "rows below m were written");
}
