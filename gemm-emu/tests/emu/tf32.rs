//! The TF32 tensor-core kernels (`math = tf32x3` and `tf32`) in the
//! emulator: every shape, op pair and the pipeline around the product on
//! the ragged edge cases against the f64 reference, and the mutations the
//! emulator must catch: an operand not rounded to TF32, the small products
//! dropped, a fragment in the wrong place, an mma under a divergent guard.

use crate::common as emu_common;

use emu_common::{Case, Scalar, check_all, check_spec_as, edge_cases};
use gemm_codegen::num_complex::Complex;
use gemm_codegen::ptx::MmaKind;
use gemm_codegen::{KernelSpec, Math, Op, Precision, Target, WarpShape};
use gemm_emu::{Gemm, Program};
use gemm_host::reference;

/// An SGEMM (CGEMM) tile on the TF32 tensor cores: 2 × 2 warps of 32 × 32
/// (f32: one 32-row block a warp; c32: 2 × 2 blocks of 16), 128 threads.
/// Loads: 32 × 4 threads along a leading M or N, 4 × 32 along a leading K,
/// one 16-byte vector (f32) or element (c32) each.
fn tf32(precision: Precision, ops: (Op, Op), shape: (u32, u32, u32), math: Math) -> KernelSpec {
    let w = 16 / precision.element_bytes();
    let load = |lead_is_k: bool| if lead_is_k { (4, 32) } else { (64 / w, 128 * w / 64) };
    let (a, b) = (load(ops.0 != Op::N), load(ops.1 == Op::N));
    KernelSpec {
        lds_width: w,
        ldg_width: if precision == Precision::F32 { 4 } else { 1 },
        arch: Target::Sm90,
        stages: 3,
        warps: Some(WarpShape { m: 2, n: 2 }),
        math,
        mma: MmaKind::Tf32.shape(shape.0, shape.1, shape.2),
        ..KernelSpec::new(precision, ops, (64, 64, 16), (16, 8), a, b)
    }
}

const K4: (u32, u32, u32) = (16, 8, 4);
const K8: (u32, u32, u32) = (16, 8, 8);
const OPS: [(Op, Op); 4] = [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)];

/// tf32x3 SGEMM within f32's tolerance: both shapes, every op pair, one
/// and two fragment sets.
#[test]
fn sgemm_tf32x3_every_shape_and_op_pair() {
    let mut specs = Vec::new();
    for shape in [K4, K8] {
        for ops in OPS {
            let s = tf32(Precision::F32, ops, shape, Math::Tf32x3);
            specs.push(s);
            specs.push(KernelSpec { frag_sets: 2, ..s });
        }
    }
    check_all(&specs, 3000);
}

/// tf32x3 CGEMM: four real products of three TF32 ones each, conjugates
/// in a ring (the product conjugates) and in the register-staged pipeline.
#[test]
fn cgemm_tf32x3_with_conjugates() {
    let mut specs = Vec::new();
    for (shape, ops) in
        [(K8, (Op::N, Op::N)), (K4, (Op::T, Op::T)), (K8, (Op::C, Op::N)), (K4, (Op::N, Op::C))]
    {
        specs.push(tf32(Precision::C32, ops, shape, Math::Tf32x3));
    }
    let cc = tf32(Precision::C32, (Op::C, Op::C), K8, Math::Tf32x3);
    specs.push(cc);
    specs.push(KernelSpec { stages: 1, ..cc });
    specs.push(KernelSpec {
        frag_sets: 2,
        interleave: 2,
        ..tf32(Precision::C32, (Op::T, Op::C), K4, Math::Tf32x3)
    });
    check_all(&specs, 3100);
}

/// The pipeline around the product: interleaved copies, a loop over the
/// stripe, the register-staged pipeline, C read two columns at a time, and
/// 1xTF32 within its tolerance.
#[test]
fn the_pipeline_around_the_tf32_product() {
    let nn = tf32(Precision::F32, (Op::N, Op::N), K8, Math::Tf32x3);
    let specs = [
        KernelSpec { interleave: 2, ..nn },
        KernelSpec { unroll: Some(8), frag_sets: 2, ..nn },
        KernelSpec { stages: 1, ..nn },
        KernelSpec { c_batch: 2, ..nn },
        tf32(Precision::F32, (Op::T, Op::N), K4, Math::Tf32),
        tf32(Precision::C32, (Op::N, Op::T), K8, Math::Tf32),
    ];
    check_all(&specs, 3200);
}

/// 1xTF32 really rounds: on the same inputs it passes TF32's tolerance
/// and fails f32's, which tf32x3 passes.
#[test]
fn one_tf32_product_is_tf32_accurate_and_no_more() {
    let cases = [Case { m: 61, n: 47, k: 70, alpha: Scalar::One, beta: Scalar::Zero }];
    let x1 = tf32(Precision::F32, (Op::N, Op::N), K8, Math::Tf32);
    let x3 = KernelSpec { math: Math::Tf32x3, ..x1 };
    check_spec_as::<f32>(&x1, &cases, 7, Math::Tf32).expect("1xTF32 within TF32's bound");
    let err = check_spec_as::<f32>(&x1, &cases, 7, Math::Fma).expect_err("1xTF32 within f32's bound");
    assert!(err.contains("relative error"), "{err}");
    check_spec_as::<f32>(&x3, &cases, 7, Math::Fma).expect("tf32x3 within f32's bound");
}

/// The sizes of [`run_sgemm`]'s problem.
const SGEMM_MNK: (u32, u32, u32) = (64, 48, 40);

/// Runs `ptx`, a version of `image`'s kernel (an SGEMM NN), on the 64 × 48
/// × 40 problem of random values in (−1, 1) that `edit` is given A of
/// (column-major), and returns A, B and C, or what the emulator refused.
type Abc = (Vec<f32>, Vec<f32>, Vec<f32>);
fn run_sgemm_edited(
    image: &gemm_codegen::KernelImage,
    ptx: &str,
    edit: impl FnOnce(&mut [f32]),
) -> Result<Abc, String> {
    let (m, n, k) = SGEMM_MNK;
    let args = emu_common::packed_args::<f32>(m, n, k);
    let unit = |i: u32| ((i.wrapping_mul(2_654_435_761) >> 8) as f32 / (1u32 << 24) as f32) * 2.0 - 1.0;
    let mut a: Vec<f32> = (0..m * k).map(unit).collect();
    edit(&mut a);
    let b: Vec<f32> = (0..k * n).map(|i| unit(i + 7919)).collect();
    let mut c = vec![f32::NAN; (m * n) as usize];
    let program = Program::from_ptx(ptx, None).map_err(|e| e.to_string())?;
    let gemm = Gemm::from_program(program, image).map_err(|e| e.to_string())?;
    gemm.run(&args, &a, &b, &mut c, &Default::default()).map_err(|e| e.to_string())?;
    Ok((a, b, c))
}

/// Runs `ptx` as [`run_sgemm_edited`] does, A unedited, and says how far C
/// is from the f64 reference (relative normwise), or what the emulator
/// refused.
fn run_sgemm(image: &gemm_codegen::KernelImage, ptx: &str) -> Result<f64, String> {
    run_sgemm_scaled(image, ptx, 1.0)
}

/// [`run_sgemm`] with A's values multiplied by `a_scale`.
fn run_sgemm_scaled(image: &gemm_codegen::KernelImage, ptx: &str, a_scale: f32) -> Result<f64, String> {
    let (m, n, k) = SGEMM_MNK;
    let (a, b, c) = run_sgemm_edited(image, ptx, |a| a.iter_mut().for_each(|x| *x *= a_scale))?;
    let cfg = gemm_host::GemmConfig::<f32>::new(Op::N, Op::N, m.into(), n.into(), k.into());
    let want = reference::gemm(&cfg, &a, &b, &c).map_err(|e| e.to_string())?;
    Ok(reference::relative_error(&reference::logical_c(&cfg, &c), &want))
}

/// Where tf32x3 loses: an f32 input below `2^-115` leaves a small part
/// `x − big` below TF32's smallest normal (`2^-126`), where TF32's fixed
/// `2^-136` step keeps only a few of its bits. With A scaled by `2^-118`
/// (its products still normal f32 numbers) the emulator's bit-exact TF32
/// gives 8.4e-6 normwise here, against 1.1e-7 for inputs near 1: still
/// within f32's tolerance. The H100 loses less on the same distribution
/// (~2e-6 at every n, `tuning/sm_90-tf32/accuracy`, `tiny`): its tensor
/// cores apparently keep more of a subnormal operand than TF32's bits, which
/// the emulator does not model (it errs on the pessimistic side).
#[test]
fn a_tiny_input_keeps_fewer_bits_of_its_small_part() {
    let image = sgemm_x3();
    let near_one = run_sgemm_scaled(&image, &image.ptx, 1.0).expect("runs");
    let tiny = run_sgemm_scaled(&image, &image.ptx, 2f32.powi(-118)).expect("runs");
    assert!(near_one < 3e-7, "inputs near 1: {near_one:e}");
    assert!(tiny > 4.0 * near_one && tiny < 1e-5, "tiny A: {tiny:e} (near 1: {near_one:e})");
}

fn sgemm_x3() -> gemm_codegen::KernelImage {
    gemm_codegen::compile(&tf32(Precision::F32, (Op::N, Op::N), K8, Math::Tf32x3)).unwrap()
}

/// A kernel that hands the tensor cores an f32 it did not round is
/// refused: here the small part's rounding (the `and` clearing its 13 low
/// bits) is gone.
#[test]
fn an_operand_not_rounded_to_tf32_is_refused() {
    let image = sgemm_x3();
    let err = run_sgemm(&image, &image.ptx).expect("the generated kernel");
    assert!(err < 1e-6, "{err:e}");
    let line = image
        .ptx
        .lines()
        .find(|l| l.contains("and.b32") && l.contains("_lo"))
        .expect("a rounding")
        .to_owned();
    let err = run_sgemm(&image, &image.ptx.replacen(&format!("{line}\n"), "", 1)).expect_err("unrounded");
    assert!(err.contains("is not a TF32 value") && err.contains("cvt.rna.tf32.f32"), "{err}");
}

/// The TF32 rounding (an FMA of each element's half place, not `cvt.rna`)
/// keeps NaN and infinity: a row of A holding the GPU's canonical NaN
/// `0x7fffffff` (whose integer rounding would carry into the sign), or its
/// negation, is a row of NaN in C, with either math; with `tf32`, a row
/// holding one infinity a row of infinities of B's signs.
#[test]
fn nan_and_infinity_survive_the_tf32_rounding() {
    let (m, n, _) = SGEMM_MNK;
    let (nan, neg_nan) = (f32::from_bits(0x7fff_ffff), f32::from_bits(0xffff_ffff));
    for math in [Math::Tf32, Math::Tf32x3] {
        let image = gemm_codegen::compile(&tf32(Precision::F32, (Op::N, Op::N), K8, math)).unwrap();
        let (_, b, c) = run_sgemm_edited(&image, &image.ptx, |a| {
            // A(0, 0), A(1, 3), A(2, 5): column-major, m rows.
            a[0] = nan;
            a[1 + 3 * m as usize] = neg_nan;
            a[2 + 5 * m as usize] = f32::INFINITY;
        })
        .expect("runs");
        let c = &c;
        let row = |i: u32| (0..n).map(move |j| (j, c[(i + j * m) as usize]));
        assert!(row(0).chain(row(1)).all(|(_, x)| x.is_nan()), "{math}: NaN rows");
        if math == Math::Tf32 {
            let k = SGEMM_MNK.2;
            for (j, x) in row(2) {
                let b5 = b[(5 + j * k) as usize];
                assert!(
                    x.is_infinite() && x.signum() == b5.signum(),
                    "{math}: C(2, {j}) = {x}, B(5, {j}) = {b5}"
                );
            }
        }
    }
}

/// tf32x3 without its two small products is 1xTF32: f32's accuracy is gone
/// (the emulator computes what the kernel asks, nothing more). Each step's
/// group of three `mma`s (big·small from zero, small·big, big·big) becomes
/// one big·big from zero.
#[test]
fn dropping_the_small_products_loses_f32_accuracy() {
    let image = sgemm_x3();
    let mut kept = Vec::new();
    let mut seen = 0;
    for l in image.ptx.lines() {
        if l.contains("mma.sync") {
            seen += 1;
            if seen % 3 == 1 {
                kept.push(l.replace("_lo", "_hi"));
            }
            continue;
        }
        kept.push(l.to_owned());
    }
    assert!(seen > 0 && seen % 3 == 0, "{seen} mma");
    let err = run_sgemm(&image, &(kept.join("\n") + "\n")).expect("runs");
    // 1xTF32's normwise error: inputs rounded to 10 mantissa bits (unit
    // roundoff 2^-11), twice a product.
    assert!(err > 1e-5 && err < 4e-3, "{err:e}");
}

/// The emulator reads each lane's `.tf32` fragments where the PTX ISA puts
/// them: A's rows g and g + 8 swapped in one mma (the first big·big one)
/// give another C.
#[test]
fn a_tf32_fragment_in_the_wrong_place_is_a_wrong_result() {
    let image = sgemm_x3();
    let first = image.ptx.lines().filter(|l| l.contains("mma.sync")).nth(2).expect("an mma").to_owned();
    // `{d..}, {a0, a1, a2, a3}, {b0, b1}, {c..}`: swap a0 and a1.
    let a = first.split('{').nth(2).and_then(|s| s.split('}').next()).expect("A's vector").to_owned();
    let regs: Vec<&str> = a.split(", ").collect();
    assert_eq!(regs.len(), 4, "{first}");
    let swapped = format!("{{{}, {}, {}, {}}}", regs[1], regs[0], regs[2], regs[3]);
    let wrong = image.ptx.replacen(&first, &first.replacen(&format!("{{{a}}}"), &swapped, 1), 1);
    let err = run_sgemm(&image, &wrong).expect("runs");
    assert!(err > 1e-3, "{err:e}");
}

/// An mma of `.tf32` the warp does not execute together is refused.
#[test]
fn a_divergent_tf32_mma_is_refused() {
    let image = sgemm_x3();
    let first = image.ptx.lines().find(|l| l.contains("mma.sync")).expect("an mma").to_owned();
    let odd = ".reg .pred %p_odd;\n\t.reg .b32 %odd_bit;\n\t";
    let test = "\tand.b32\t%odd_bit, %thread, 1;\n\tsetp.ne.u32\t%p_odd, %odd_bit, 0;\n";
    let guarded = format!("{test}\t@%p_odd {}", first.trim_start());
    let mut ptx = image.ptx.replacen(&first, &guarded, 1);
    let body = ptx.find(".reg").expect("register declarations");
    ptx.insert_str(body, odd);
    let err = run_sgemm(&image, &ptx).expect_err("divergent");
    assert!(err.contains("needs all 32 lanes of the warp converged"), "{err}");
}

/// CGEMM's conjugated products are right on a complex case: a spot check
/// of the sign handling on the split parts (the edge cases above cover the
/// rest).
#[test]
fn complex_tf32x3_conjugates_on_one_case() {
    let cases = edge_cases(&tf32(Precision::C32, (Op::C, Op::T), K8, Math::Tf32x3), false);
    let spec = tf32(Precision::C32, (Op::C, Op::T), K8, Math::Tf32x3);
    check_spec_as::<Complex<f32>>(&spec, &cases[..cases.len().min(6)], 11, Math::Fma).expect("c32 C·T");
}
