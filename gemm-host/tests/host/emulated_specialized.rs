//! The warp-specialized `wgmma` kernel (`producers = 1`,
//! `stencil/specialized.rs`) run without a GPU: a producer warpgroup
//! copies and converts, the consumers multiply, named barriers between
//! them. Every op pair on ragged shapes as `emulated_wgmma`'s, then the
//! hand-off's typical mistakes, each caught.

use gemm_codegen::constraints::{Operand, wgmma_a_regs, wgmma_direct};
use gemm_codegen::ptx::SmemDesc;
use gemm_codegen::{KernelImage, KernelSpec, Op};
use gemm_host::GemmConfig;
use gemm_host::emulate::Emulator;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;

use crate::emulated_wgmma::{every_op_pair_copied_by, image, run, spec_copied_by};

#[test]
fn tf32x3_one_consumer_every_op_pair() {
    every_op_pair_copied_by::<f32>("tf32x3", (64, 64, 32), 64, 1, 2);
}

/// Two consumer warpgroups along M, K-major stripes (k_blk = 16).
#[test]
fn tf32x3_two_consumers_every_op_pair() {
    every_op_pair_copied_by::<f32>("tf32x3", (128, 64, 16), 64, 1, 2);
}

/// 1xTF32 keeps a group in flight and frees the previous stripe's set (or
/// ring slot).
#[test]
fn tf32_every_op_pair() {
    every_op_pair_copied_by::<f32>("tf32", (64, 64, 32), 64, 1, 2);
}

#[test]
fn c32_tf32x3_every_conjugation() {
    every_op_pair_copied_by::<Complex<f32>>("tf32x3", (64, 64, 16), 64, 1, 2);
}

/// 1xTF32 with k_blk = 32: `wgmma` reads each K-contiguous operand (A^T,
/// B) from its ring slot through the 128-byte swizzle, the consumers load
/// a K-major A's fragments from the ring into registers, and a K-major B is
/// converted — TN and NN read both from the ring, NT and TT convert B; the
/// unaligned twin (single-element copies, K-major stripes) loads A into
/// registers and converts B. Rings of 3 and 4, one and two consumer
/// warpgroups (with a ring of 2, `tf32_every_op_pair`, A is converted).
#[test]
fn tf32_read_from_the_ring_every_op_pair() {
    let expected = [
        ((Op::N, Op::N), (true, true), true),
        ((Op::N, Op::T), (true, false), true),
        ((Op::T, Op::N), (true, true), false),
        ((Op::T, Op::T), (true, false), false),
    ];
    for (op, direct, regs) in expected {
        let spec = spec_copied_by::<f32>(op, "tf32", (64, 64, 32), 64, 1, 3);
        assert_eq!((wgmma_direct(&spec, Operand::A), wgmma_direct(&spec, Operand::B)), direct, "{spec}");
        assert_eq!(wgmma_a_regs(&spec), regs, "{spec}");
        let twin = KernelSpec { ldg_width: 1, ..spec };
        assert!(wgmma_a_regs(&twin) && !wgmma_direct(&twin, Operand::B), "{twin}");
    }
    every_op_pair_copied_by::<f32>("tf32", (64, 64, 32), 64, 1, 3);
    every_op_pair_copied_by::<f32>("tf32", (128, 64, 32), 64, 1, 4);
}

/// What the tensor cores take of an operand read from the ring: its f32
/// bits as they are, the 13 low ones dropped (truncation), where a converted
/// operand is rounded to nearest. With every element `x = 1 + 0.75 · 2^-10`
/// (TF32: 1 truncated, `1 + 2^-10` rounded) and k = 8, C is exactly `8 · a
/// · b` of the values each op pair's kernel used (each sum needs at most 24
/// bits).
#[test]
fn operands_read_from_the_ring_are_truncated_converted_ones_rounded() {
    let x = 1.0 + 0.75 * f32::powi(2.0, -10);
    let rounded = 1.0 + f32::powi(2.0, -10);
    let emulator = Emulator::new();
    for (op, (a, b)) in [
        ((Op::N, Op::N), (rounded, 1.0)),
        ((Op::N, Op::T), (rounded, rounded)),
        ((Op::T, Op::N), (1.0, 1.0)),
        ((Op::T, Op::T), (1.0, rounded)),
    ] {
        let image = image(&spec_copied_by::<f32>(op, "tf32", (64, 64, 32), 64, 1, 3));
        let cfg = GemmConfig::<f32>::new(op.0, op.1, 64, 64, 8);
        let (ops, mut c) = (vec![x; 64 * 64], vec![f32::NAN; 64 * 64]);
        emulator.gemm_image(&image, &cfg, &ops, &ops, &mut c).expect("the kernel runs");
        assert!(c.iter().all(|&v| v == 8.0 * a * b), "{op:?}: {} where {}", c[0], 8.0 * a * b);
    }
}

/// The typical mistakes of reading operands from the ring, made in the PTX
/// of a correct TN kernel (ten stripes: each of the 3 slots reused three
/// times): each must fail in the emulator, never pass. The kernel's one
/// `wgmma.fence` is the consumers' after zeroing C (1xTF32 chains its
/// `wgmma`s on the accumulators without one a stripe).
#[test]
fn ring_read_mistakes_are_caught() {
    let good = image(&spec_copied_by::<f32>((Op::T, Op::N), "tf32", (64, 64, 32), 64, 1, 3));
    let cfg = GemmConfig::<f32>::new(Op::T, Op::N, 68, 61, 300).alpha(1.5).beta(0.5);
    let swizzled = SmemDesc::k_major_sw128(0, 1024).encode().to_string();
    let plain = SmemDesc::k_major(0, 16, 1024).encode().to_string();
    caught_edits(
        &good,
        cfg,
        &[
            (
                "the descriptors without the 128-byte swizzle: the rows read as copied, unswizzled",
                &[(&swizzled, &plain)],
            ),
            (
                "a step's descriptor advanced as in the core-matrix layout (256 bytes, not 32)",
                &[(
                    "\tadd.u64\t%b_desc_s1_0, %b_desc_0_set, 2;\n",
                    "\tadd.u64\t%b_desc_s1_0, %b_desc_0_set, 16;\n",
                )],
            ),
            (
                "the producer skips EMPTY[0]: a slot overwritten while a wgmma reads it",
                &[("\tbar.sync\t4, 256;\n", "")],
            ),
            (
                "no cp.async wait: a stripe handed over before it landed",
                &[("\tcp.async.wait_group\t1;\n", "")],
            ),
            (
                "no fence.proxy.async: the copies not visible to wgmma",
                &[("\tfence.proxy.async.shared::cta;\n", "")],
            ),
            (
                "no wgmma.fence after C_regs = 0: the first wgmma reads accumulators written unfenced",
                &[("\twgmma.fence.sync.aligned;\n", "")],
            ),
            (
                "the consumers stay on the first slot: a stripe read twice, the next never",
                &[("\tadd.u64\t%a_slot_desc, %a_slot_desc, 512;\n", "")],
            ),
        ],
    );
}

/// The hand-off's typical mistakes, made in the PTX of a correct kernel
/// (ten stripes: both sets of parts reused four times): each must fail in
/// the emulator, never pass.
#[test]
fn hand_off_mistakes_are_caught() {
    let good = image(&spec_copied_by::<f32>((Op::N, Op::N), "tf32x3", (64, 64, 32), 64, 1, 2));
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 68, 61, 300).alpha(1.5).beta(0.5);
    let arrive_early = [
        ("\tbar.arrive\t4, 256;\n$set_0_kept:\n", "$set_0_kept:\n"),
        (
            "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned\t0;\n\t// this stripe's group retired: set 0",
            "\twgmma.commit_group.sync.aligned;\n\tbar.arrive\t4, 256;\n\twgmma.wait_group.sync.aligned\t0;\n\t// this stripe's group retired: set 0",
        ),
    ];
    caught_edits(
        &good,
        cfg,
        &[
            (
                "the consumers skip FULL[0]: parts read before the producer wrote them",
                &[("\tbar.sync\t2, 256;\n", "")],
            ),
            (
                "the producer skips EMPTY[1]: parts overwritten while a wgmma reads them",
                &[("\tbar.sync\t5, 256;\n", "")],
            ),
            (
                "no producers' barrier: a stripe converted before the others' copies landed",
                &[("\tbar.sync\t1, 128;\n", "")],
            ),
            (
                "no cp.async wait: a stripe converted before this thread's copies landed",
                &[("\tcp.async.wait_group\t0;\n\tbar.sync\t1, 128;\n", "\tbar.sync\t1, 128;\n")],
            ),
            (
                "no fence.proxy.async: the parts not visible to wgmma",
                &[("\tfence.proxy.async.shared::cta;\n", "")],
            ),
            ("the consumers free set 0 before its group retired", &arrive_early),
            (
                "the consumers never free set 1: the producer waits forever",
                &[("\tbar.arrive\t5, 256;\n", "")],
            ),
            (
                "the consumers free set 0 after every stripe: an arrival nobody waits for",
                &[("\t@%p_consumer bra.uni\t$set_0_kept;\n", "")],
            ),
        ],
    );
}

/// Asserts that each group of `(from, to)` edits of `good`'s PTX fails on
/// `cfg` in the emulator, the unedited kernel passing.
pub(crate) fn caught_edits<T: gemm_codegen::Element>(
    good: &KernelImage,
    cfg: GemmConfig<T>,
    mistakes: &[(&str, &[(&str, &str)])],
) {
    let emulator = Emulator::new();
    run(&emulator, good, &mut Random::new(7), cfg).expect("the unbroken kernel passes");
    for &(what, edits) in mistakes {
        let mut ptx = good.ptx.to_string();
        for &(from, to) in edits {
            assert!(ptx.contains(from), "{what}: the kernel has `{}`", from.trim());
            ptx = ptx.replace(from, to);
        }
        let broken = KernelImage { ptx: ptx.into(), ..good.clone() };
        let got = run(&emulator, &broken, &mut Random::new(7), cfg);
        assert!(got.is_err(), "{what}: the emulator passed the broken kernel ({got:?})");
        eprintln!("{what}: caught: {}", got.unwrap_err().lines().next().unwrap_or(""));
    }
}
