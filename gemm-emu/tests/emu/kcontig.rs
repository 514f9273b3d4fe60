//! K-contiguous stripes (`[free][k]`, chunks XOR-swizzled) of the
//! tensor-core maths in the emulator: the operand whose K leads in global
//! memory is copied as it is and read a lane's k slots at once, every
//! precision, shape and pipeline that takes the layout, on the ragged edge
//! cases against the f64 reference; and the mistakes the emulator must
//! catch: a swizzle missing on the copies' side or the fragments', and a
//! step's swizzle added instead of XORed.

use crate::common as emu_common;

use emu_common::{Scalar, check_all};
use gemm_codegen::ptx::MmaKind;
use gemm_codegen::{KernelSpec, LoadShape, Math, Op, Operand, Precision, StripeLayout, Target, WarpShape};

/// A 64 × 64 tile of 2 × 2 warps (128 threads), `k_blk` deep: one 128-byte
/// row of K per operand row (f32 32, f64 and c32 16, c64 8). A leading K is
/// read by 8 × 16 threads, one 16-byte copy each per row; a leading M or N
/// by 16-byte runs too.
fn spec(precision: Precision, ops: (Op, Op), shape: (u32, u32, u32)) -> KernelSpec {
    let esz = precision.element_bytes();
    let w = 16 / esz;
    let k_blk = 128 / esz;
    let load = |lead_is_k: bool| if lead_is_k { (8, 16) } else { (64 / w, 2 * w) };
    let (a, b) = (load(ops.0 != Op::N), load(ops.1 == Op::N));
    let math = if matches!(precision, Precision::F64 | Precision::C64) { Math::Dmma } else { Math::Tf32x3 };
    let kind = if math == Math::Dmma { MmaKind::F64 } else { MmaKind::Tf32 };
    KernelSpec {
        lds_width: w,
        ldg_width: w,
        arch: Target::Sm90,
        stages: 3,
        warps: Some(WarpShape { m: 2, n: 2 }),
        math,
        mma: kind.shape(shape.0, shape.1, shape.2),
        ..KernelSpec::new(precision, ops, (64, 64, k_blk), (16, 8), a, b)
    }
}

/// `specs`, each checked to lay out A and B as `want` says (K-contiguous
/// where true), so that a change to the layout rules cannot leave these
/// tests on the K-major path unnoticed.
fn laid_out(specs: &[KernelSpec]) -> Vec<KernelSpec> {
    for s in specs {
        let plan = gemm_codegen::validate(s).unwrap_or_else(|e| panic!("{}: {e:?}", s.entry_name()));
        let want = (s.eff_op_a().is_transposed(), !s.eff_op_b().is_transposed());
        let got = (plan.layout(Operand::A).k_contiguous(), plan.layout(Operand::B).k_contiguous());
        assert_eq!(got, want, "{}", s.entry_name());
    }
    specs.to_vec()
}

const OPS: [(Op, Op); 3] = [(Op::T, Op::N), (Op::T, Op::T), (Op::N, Op::N)];

/// `mma = (m, n, k)` shapes of a precision.
type MmaShapes = &'static [(u32, u32, u32)];

/// Every precision and each `mma` shape whose lane reads 4 to 16 bytes of
/// a row, with A, B or both K-contiguous, one and two fragment sets.
#[test]
fn every_precision_shape_and_operand() {
    let mut specs = Vec::new();
    let shapes: [(Precision, MmaShapes); 4] = [
        (Precision::F32, &[(16, 8, 8)]),
        (Precision::C32, &[(16, 8, 8), (16, 8, 4)]),
        (Precision::F64, &[(16, 8, 4), (16, 8, 8)]),
        (Precision::C64, &[(16, 8, 4)]),
    ];
    for (precision, shapes) in shapes {
        for &shape in shapes {
            for ops in OPS {
                let s = spec(precision, ops, shape);
                specs.push(s);
                specs.push(KernelSpec { frag_sets: 2, ..s });
            }
        }
    }
    check_all(&laid_out(&specs), 4000);
}

/// Conjugated operands (the product conjugates in a ring, the copies in
/// the register-staged pipeline), the register-staged pipeline's stores,
/// interleaved copies, a loop over a 64-deep stripe in 32-row trips (in
/// dynamic shared memory), and B K-contiguous beside a K-major A (B's
/// stripes start 128-byte aligned after A's).
#[test]
fn conjugates_and_the_pipeline_around_the_layout() {
    let c32 = spec(Precision::C32, (Op::C, Op::N), (16, 8, 8));
    let z = spec(Precision::C64, (Op::C, Op::N), (16, 8, 4));
    let f = spec(Precision::F32, (Op::T, Op::N), (16, 8, 8));
    let deep = KernelSpec {
        unroll: Some(32),
        frag_sets: 2,
        load_a: LoadShape { lead: 8, cross: 16 },
        load_b: LoadShape { lead: 8, cross: 16 },
        ..KernelSpec { k_blk: 64, ..f }
    };
    let specs = [
        c32,
        KernelSpec { stages: 1, ..c32 },
        z,
        KernelSpec { stages: 1, ..z },
        KernelSpec { stages: 1, ..f },
        KernelSpec { interleave: 2, ..f },
        deep,
        spec(Precision::F64, (Op::N, Op::N), (16, 8, 4)),
    ];
    check_all(&laid_out(&specs), 4100);
    let plan = gemm_codegen::validate(&deep).unwrap();
    assert!(plan.dynamic_shared(), "{} bytes", plan.shared_bytes());
}

/// Where a K-contiguous stripe cannot keep its swizzle it stays K-major:
/// a thread's two runs along K 64 bytes apart, a loop trip of 8 f32 rows
/// (32 bytes), a 64-byte row; and those kernels are right too.
#[test]
fn where_the_swizzle_does_not_fit_the_stripe_stays_k_major() {
    let f = spec(Precision::F32, (Op::T, Op::N), (16, 8, 8));
    let cases = [
        KernelSpec { load_a: LoadShape { lead: 4, cross: 32 }, ..f },
        KernelSpec { unroll: Some(8), ..f },
        KernelSpec {
            k_blk: 16,
            load_a: LoadShape { lead: 4, cross: 32 },
            load_b: LoadShape { lead: 4, cross: 32 },
            ..f
        },
    ];
    for s in &cases {
        let plan = gemm_codegen::validate(s).unwrap();
        assert_eq!(plan.layout(Operand::A), StripeLayout::KMajor, "{}", s.entry_name());
    }
    check_all(&cases, 4200);
}

/// Runs `spec`'s kernel as `edit` rewrites its PTX on one ragged SGEMM
/// case and returns the failure, if any.
fn run_edited(spec: &KernelSpec, edit: impl FnOnce(&str) -> String) -> Result<(), String> {
    let image = gemm_codegen::compile(spec).unwrap();
    let ptx = edit(&image.ptx);
    let program = gemm_emu::Program::from_ptx(&ptx, None).map_err(|e| e.to_string())?;
    let gemm = gemm_emu::Gemm::from_program(program, &image).map_err(|e| e.to_string())?;
    let case = emu_common::Case { m: 70, n: 66, k: 100, alpha: Scalar::One, beta: Scalar::Zero };
    let mut rng = emu_common::Rng::new(9);
    emu_common::check_case::<f32>(&gemm, &case, &mut rng, spec.math).map(|_| ())
}

/// The swizzle is the layout's: dropping it where the copies land (A's
/// `xor` in the movers' setup) or where the fragments read (A's in the
/// product's setup), or adding a step's mask instead of XORing it into the
/// lane's swizzled pointer, each gives a wrong C (the last one's carries
/// leave the row: into bytes no copy wrote, or a slot being filled, which
/// the emulator names).
#[test]
fn a_wrong_swizzle_is_a_wrong_result() {
    let tn = spec(Precision::F32, (Op::T, Op::N), (16, 8, 8));
    run_edited(&tn, str::to_owned).expect("the generated kernel");
    let drop = |line: &'static str| move |ptx: &str| ptx.replacen(&format!("\t{line}\n"), "", 1);
    let wrong = [
        ("copies", run_edited(&tn, drop("xor.b32\t%a_smem_elem, %a_smem_elem, %a_swizzle;"))),
        ("fragments", run_edited(&tn, drop("xor.b32\t%a_sld, %a_sld, %a_sld_step;"))),
        (
            "steps",
            run_edited(&tn, |ptx| {
                ptx.replace("xor.b32\t%a_sld_step, %a_sld_cur,", "add.u32\t%a_sld_step, %a_sld_cur,")
            }),
        ),
    ];
    for (what, result) in wrong {
        let err = result.expect_err(what);
        let caught = ["relative error", "no thread of the block has written", "shared-memory race"]
            .iter()
            .any(|m| err.contains(m));
        assert!(caught, "{what}: {err}");
    }
}
