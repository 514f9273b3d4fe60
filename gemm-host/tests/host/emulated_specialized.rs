//! The warp-specialized `wgmma` kernel (`producers = 1`,
//! `stencil/specialized.rs`) run without a GPU: a producer warpgroup
//! copies and converts, the consumers multiply, named barriers between
//! them. Every op pair on ragged shapes as `emulated_wgmma`'s, then the
//! hand-off's typical mistakes, each caught.

use gemm_codegen::{KernelImage, Op};
use gemm_host::GemmConfig;
use gemm_host::emulate::Emulator;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;

use crate::emulated_wgmma::{every_op_pair_copied_by, image, run, spec_copied_by};

#[test]
fn tf32x3_one_consumer_every_op_pair() {
    every_op_pair_copied_by::<f32>("tf32x3", (64, 64, 32), 64, 1);
}

/// Two consumer warpgroups along M, K-major stripes (k_blk = 16).
#[test]
fn tf32x3_two_consumers_every_op_pair() {
    every_op_pair_copied_by::<f32>("tf32x3", (128, 64, 16), 64, 1);
}

/// 1xTF32 keeps a group in flight and frees the previous stripe's set.
#[test]
fn tf32_every_op_pair() {
    every_op_pair_copied_by::<f32>("tf32", (64, 64, 32), 64, 1);
}

#[test]
fn c32_tf32x3_every_conjugation() {
    every_op_pair_copied_by::<Complex<f32>>("tf32x3", (64, 64, 16), 64, 1);
}

/// The hand-off's typical mistakes, made in the PTX of a correct kernel
/// (ten stripes: both sets of parts reused four times): each must fail in
/// the emulator, never pass.
#[test]
fn hand_off_mistakes_are_caught() {
    let good = image(&spec_copied_by::<f32>((Op::N, Op::N), "tf32x3", (64, 64, 32), 64, 1));
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
fn caught_edits(good: &KernelImage, cfg: GemmConfig<f32>, mistakes: &[(&str, &[(&str, &str)])]) {
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
