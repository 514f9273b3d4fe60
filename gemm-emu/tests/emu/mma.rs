//! `math = dmma` in the emulator: DGEMM and ZGEMM kernels on the FP64 tensor cores
//! (`mma.sync` on `.f64`, every shape) on the ragged shapes of every
//! dimension against the f64 reference, and the mistakes the emulator must
//! catch in them: a fragment in the wrong lane's register, and an `mma`
//! some lanes of the warp skip.

use crate::common as emu_common;

use emu_common::{Scalar, check_all};
use gemm_codegen::ptx::MmaKind;
use gemm_codegen::{KernelSpec, LoadShape, Math, MmaShape, Op, Precision, Target, WarpShape};
use gemm_emu::{Gemm, Program};

/// A 32 × 32 × 16 tile of 2 × 2 warps of 16 × 16: every fragment layout
/// on a small block. Loads: 32 × 4 threads along a leading M or N, 8 × 16
/// along a leading K (128 threads, one element each per row).
fn dmma(ops: (Op, Op), shape: (u32, u32, u32)) -> KernelSpec {
    dmma_of(Precision::F64, ops, shape)
}

fn dmma_of(precision: Precision, ops: (Op, Op), shape: (u32, u32, u32)) -> KernelSpec {
    let load = |lead_is_k: bool| if lead_is_k { (8, 16) } else { (32, 4) };
    let (a, b) = (load(ops.0 != Op::N), load(ops.1 == Op::N));
    KernelSpec {
        lds_width: 16 / precision.element_bytes(),
        arch: Target::Sm90,
        stages: 2,
        warps: Some(WarpShape { m: 2, n: 2 }),
        math: Math::Dmma,
        mma: MmaKind::F64.shape(shape.0, shape.1, shape.2),
        ..KernelSpec::new(precision, ops, (32, 32, 16), (16, 8), a, b)
    }
}

fn run_all(specs: &[KernelSpec]) {
    check_all(specs, 2000);
}

/// Every `.f64` shape, every transpose pair, one and two fragment sets.
#[test]
fn every_shape_and_op_pair() {
    let mut specs = Vec::new();
    for shape in MmaShape::F64 {
        for ops in [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)] {
            let s = dmma(ops, (shape.m, shape.n, shape.k));
            specs.push(s);
            specs.push(KernelSpec { frag_sets: 2, ..s });
        }
    }
    run_all(&specs);
}

/// ZGEMM: four real mmas per complex one, every shape, conjugated
/// operands in a ring (the product conjugates) and in the register-staged
/// pipeline (the movers do).
#[test]
fn complex_products_and_conjugates() {
    let mut specs = Vec::new();
    for shape in MmaShape::F64 {
        let shape = (shape.m, shape.n, shape.k);
        for ops in [(Op::N, Op::N), (Op::C, Op::T), (Op::T, Op::C), (Op::C, Op::C)] {
            specs.push(dmma_of(Precision::C64, ops, shape));
        }
    }
    let z = dmma_of(Precision::C64, (Op::C, Op::N), (16, 8, 8));
    specs.push(KernelSpec { frag_sets: 2, interleave: 2, ..z });
    specs.push(KernelSpec { stages: 1, ..z });
    specs.push(KernelSpec { stages: 1, ..dmma_of(Precision::C64, (Op::N, Op::C), (16, 8, 4)) });
    run_all(&specs);
}

/// The pipeline around the product: copies interleaved with its steps, a
/// loop over the stripe, a deeper ring, the register-staged pipeline, C read
/// in groups of columns, wide global loads and a rasterized grid.
#[test]
fn the_pipeline_around_the_product() {
    let nn = dmma((Op::N, Op::N), (16, 8, 4));
    let k8 = dmma((Op::N, Op::T), (16, 8, 8));
    let specs = [
        KernelSpec { interleave: 2, ..nn },
        KernelSpec { interleave: 4, frag_sets: 2, ..nn },
        KernelSpec { unroll: Some(8), ..k8 },
        KernelSpec { unroll: Some(8), frag_sets: 2, ..k8 },
        KernelSpec { stages: 4, raster: 2, ..k8 },
        KernelSpec { stages: 1, ..nn },
        KernelSpec { c_batch: 2, ..nn },
        KernelSpec { c_batch: 3, ..dmma_of(Precision::C64, (Op::T, Op::C), (16, 8, 4)) },
        KernelSpec {
            ldg_width: 2,
            load_a: LoadShape { lead: 16, cross: 8 },
            load_b: LoadShape { lead: 4, cross: 32 },
            ..nn
        },
    ];
    run_all(&specs);
}

/// Runs `ptx`, a version of `image`'s kernel, on a 64 × 48 × 40 DGEMM of
/// small integers (exact in f64), and says where C is wrong, or what the
/// emulator refused.
fn run_64x48x40(image: &gemm_codegen::KernelImage, ptx: &str) -> Result<(), String> {
    let (m, n, k) = (64u32, 48u32, 40u32);
    let args = emu_common::packed_args::<f64>(m, n, k);
    let a: Vec<f64> = (0..m * k).map(|i| f64::from(i % 7)).collect();
    let b: Vec<f64> = (0..k * n).map(|i| f64::from(i % 5)).collect();
    let mut c = vec![f64::NAN; (m * n) as usize];
    let program = Program::from_ptx(ptx, None).map_err(|e| e.to_string())?;
    let gemm = Gemm::from_program(program, image).map_err(|e| e.to_string())?;
    gemm.run(&args, &a, &b, &mut c, &Default::default()).map_err(|e| e.to_string())?;
    let want = |i: u32, j: u32| (0..k).map(|l| f64::from((i + l * m) % 7 * ((l + j * k) % 5))).sum::<f64>();
    match (0..m * n).find(|&at| c[at as usize] != want(at % m, at / m)) {
        Some(at) => Err(format!("C({}, {}) = {}", at % m, at / m, c[at as usize])),
        None => Ok(()),
    }
}

/// The emulator reads each lane's fragments where the PTX ISA puts them:
/// an `mma` whose A fragment has its two rows (g and g + 8) swapped, or
/// whose B elements come from the lane's neighbour, computes another C.
#[test]
fn a_fragment_in_the_wrong_place_is_a_wrong_result() {
    let image = gemm_codegen::compile(&dmma((Op::N, Op::N), (16, 8, 4))).unwrap();
    run_64x48x40(&image, &image.ptx).expect("the generated kernel");
    let first = image.ptx.lines().find(|l| l.contains("mma.sync")).expect("an mma").to_owned();
    // `{d..}, {a0, a1}, {b0}, {c..}`: swap a0 and a1.
    let a = first.split('{').nth(2).and_then(|s| s.split('}').next()).expect("A's vector").to_owned();
    let (a0, a1) = a.split_once(", ").expect("two registers of A");
    let swapped = first.replacen(&format!("{{{a}}}"), &format!("{{{a1}, {a0}}}"), 1);
    let err = run_64x48x40(&image, &image.ptx.replacen(&first, &swapped, 1)).expect_err("rows swapped");
    assert!(err.starts_with("C("), "{err}");
    // The fragments' read pointers with every lane's `t` from its bit 0
    // only (the C layout keeps the right one): lanes t = 2, 3 read rows 0,
    // 1, and B's read pointer lands in the rows' padding.
    let pointers = "\tmul.lo.u32\t%a_sld, %lane_t,";
    assert_eq!(image.ptx.matches(pointers).count(), 1, "{}", image.ptx);
    let wrong = image.ptx.replace(pointers, &format!("\tand.b32\t%lane_t, %lane_t, 1;\n{pointers}"));
    let err = run_64x48x40(&image, &wrong).expect_err("k rows of the wrong lane");
    assert!(err.contains("of bytes no thread of the block has written"), "{err}");
}

/// An `mma` the warp does not execute together is refused: here the
/// lanes of odd threads skip it.
#[test]
fn an_mma_some_lanes_skip_is_a_fault() {
    let image = gemm_codegen::compile(&dmma((Op::N, Op::N), (16, 8, 8))).unwrap();
    let first = image.ptx.lines().find(|l| l.contains("mma.sync")).expect("an mma").to_owned();
    let odd = "\t.reg .pred %p_odd;\n\t.reg .b32 %odd_bit;\n";
    let test = "\tand.b32\t%odd_bit, %thread, 1;\n\tsetp.ne.u32\t%p_odd, %odd_bit, 0;\n";
    let guarded = format!("{test}\t@%p_odd {}", first.trim_start());
    let mut ptx = image.ptx.replacen(&first, &guarded, 1);
    let body = ptx.find(".reg").expect("register declarations");
    ptx.insert_str(body, &odd[1..]);
    let err = run_64x48x40(&image, &ptx).expect_err("a diverged mma");
    assert!(err.contains("needs all 32 lanes of the warp converged"), "{err}");
}

/// An f64 `mma` taking several elements of B (k8, k16) reads B's columns
/// split, each n8 tile's column `g` (`stencil/layout.rs`,
/// `b_columns_split`), as C's accumulators are laid out: a lane reading a
/// run of consecutive columns instead (the k4 kernels' layout, `2g`)
/// computes another C, whether B's stripe is K-major (NT) or K-contiguous
/// (NN), on a ragged DGEMM.
#[test]
fn split_b_columns_read_as_a_run_are_a_wrong_result() {
    let run = |spec: &KernelSpec, ptx: &str| -> Result<(), String> {
        let image = gemm_codegen::compile(spec).unwrap();
        let program = Program::from_ptx(ptx, None).map_err(|e| e.to_string())?;
        let gemm = Gemm::from_program(program, &image).map_err(|e| e.to_string())?;
        let case = emu_common::Case { m: 70, n: 66, k: 100, alpha: Scalar::One, beta: Scalar::Zero };
        emu_common::check_case::<f64>(&gemm, &case, &mut emu_common::Rng::new(9), spec.math).map(|_| ())
    };
    for ops in [(Op::N, Op::T), (Op::N, Op::N)] {
        for shape in [(16, 8, 8), (16, 8, 16)] {
            let spec = dmma(ops, shape);
            let ptx = gemm_codegen::compile(&spec).unwrap().ptx;
            run(&spec, &ptx).expect("the generated kernel");
            let first_column = "\tmad.lo.u32\t%b_sld_col, %lane_g, 1, %b_sld_col;";
            assert_eq!(ptx.matches(first_column).count(), 1, "{ptx}");
            let as_run = ptx.replace(first_column, "\tmad.lo.u32\t%b_sld_col, %lane_g, 2, %b_sld_col;");
            let err = run(&spec, &as_run).expect_err("B's columns as a run");
            eprintln!("{spec}: caught: {}", err.lines().next().unwrap_or(""));
        }
    }
}
