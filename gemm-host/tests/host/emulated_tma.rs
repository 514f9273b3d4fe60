//! The TMA kernel (`ldg = tma`, `stencil/bulk.rs`) run without a GPU: the
//! producer's leader brings each stripe with two `cp.async.bulk.tensor`
//! copies through the tensor maps the launch passes, completing on the
//! slot's `mbarrier`, which the consumers wait on. Ragged shapes (edge
//! boxes landing zeros), strided batches (the problem as the maps' third
//! coordinate), the launches maps cannot describe (run by the twin), then
//! the typical mistakes, each caught.

use gemm_codegen::abi::Abi;
use gemm_codegen::{GlobalLoad, KernelImage, KernelSpec, Op};
use gemm_host::GemmConfig;
use gemm_host::Matrix;
use gemm_host::case::{Case, GUARD};
use gemm_host::emulate::Emulator;
use gemm_host::reference::Random;
use gemm_host::validate::StridedBatch;

use crate::emulated_specialized::caught_edits;
use crate::emulated_wgmma::{image, run, shapes, spec_copied_by};

/// The TN 1xTF32 kernel of `tile` with `n`-wide warpgroups and `stages`
/// slots, its stripes brought by the TMA.
fn tma_spec(tile: (u32, u32, u32), n: u32, stages: u32) -> KernelSpec {
    tma_spec_of::<f32>((Op::T, Op::N), "tf32", tile, n, stages)
}

/// [`tma_spec`] of any op pair, math and precision.
pub(crate) fn tma_spec_of<T: gemm_codegen::Element>(
    op: (Op, Op),
    math: &str,
    tile: (u32, u32, u32),
    n: u32,
    stages: u32,
) -> KernelSpec {
    let spec = spec_copied_by::<T>(op, math, tile, n, 1, stages);
    KernelSpec { ldg: GlobalLoad::Tma, ..spec }
}

/// Every op pair of 1xTF32 and tf32x3, and c32's conjugations: the stripes
/// the producers convert come by the TMA too (K-major boxes without
/// swizzle, K-contiguous ones with it), the producers waiting on the
/// slot's barrier before converting; where one operand is read in place
/// the consumers wait there too. Ragged shapes, the twin on odd ones.
#[test]
fn tma_converting_kernels_every_op_pair() {
    every_op_pair_copied_by_tma::<f32>("tf32", (64, 64, 32), 64, 3);
    every_op_pair_copied_by_tma::<f32>("tf32x3", (64, 64, 32), 64, 2);
    every_op_pair_copied_by_tma::<gemm_host::num_complex::Complex<f32>>("tf32x3", (64, 64, 16), 64, 2);
}

fn every_op_pair_copied_by_tma<T: gemm_codegen::Element>(
    math: &str,
    tile: (u32, u32, u32),
    n: u32,
    stages: u32,
) {
    let emulator = Emulator::new();
    let mut rng = Random::new(33);
    let (mut cases, mut failures) = (0, Vec::new());
    let ops: &[(Op, Op)] = if T::PRECISION.is_complex() {
        &crate::emulated_wgmma::COMPLEX_OPS
    } else {
        &crate::emulated_wgmma::OPS
    };
    for &op in ops {
        let image = image(&tma_spec_of::<T>(op, math, tile, n, stages));
        let what = format!("{} {math} {op:?}", T::PRECISION);
        cases += ragged::<T>(&emulator, &image, tile, &mut rng, &mut failures, &what);
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

/// Runs `image` on the ragged shapes around `tile`: even cases with leading
/// dimensions multiples of 16 bytes (the TMA kernel), odd ones padded by
/// one element (its twin); each failure pushed, labelled `what`. Returns
/// the cases run.
pub(crate) fn ragged<T: gemm_codegen::Element>(
    emulator: &Emulator,
    image: &KernelImage,
    tile: (u32, u32, u32),
    rng: &mut Random,
    failures: &mut Vec<String>,
    what: &str,
) -> usize {
    let (op_a, op_b) = (image.spec.op_a, image.spec.op_b);
    let w = i64::from(16 / T::PRECISION.element_bytes());
    let shapes = shapes(tile);
    for (i, &(m, n, k)) in shapes.iter().enumerate() {
        let beta = [T::ZERO, T::ONE, rng.scalar()][i % 3];
        let cfg = GemmConfig::<T>::new(op_a, op_b, m, n, k).alpha(rng.scalar()).beta(beta);
        let ld = |min: i64| if i % 2 == 0 { (min + w - 1) / w * w + w } else { min + 1 };
        let cfg =
            cfg.lda(ld(cfg.min_ld(Matrix::A))).ldb(ld(cfg.min_ld(Matrix::B))).ldc(ld(cfg.min_ld(Matrix::C)));
        if let Err(e) = run(emulator, image, rng, cfg) {
            failures.push(format!("{what}: {e}"));
        }
    }
    shapes.len()
}

/// Ragged shapes on one and two consumer warpgroups, rings of 2 and 3 (the
/// most a kernel reading both operands in place may have):
/// even cases (leading dimensions multiples of 16 bytes) run the TMA
/// kernel, odd ones its twin (`cp.async`, single elements).
#[test]
fn tma_kernels_on_ragged_shapes() {
    let emulator = Emulator::new();
    let mut rng = Random::new(31);
    let (mut cases, mut failures) = (0, Vec::new());
    for (tile, n, stages) in [((64, 64, 32), 64, 2), ((64, 64, 32), 64, 3), ((128, 64, 32), 64, 3)] {
        let image = image(&tma_spec(tile, n, stages));
        assert!(image.abi().has_tensor_maps(), "{}", image.spec);
        cases += ragged::<f32>(
            &emulator,
            &image,
            tile,
            &mut rng,
            &mut failures,
            &format!("{tile:?} s = {stages}"),
        );
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

/// `count` random problems of `cfg`, each block of guarded buffers padded
/// to a multiple of 4 elements and the first matrix 16-byte aligned, run
/// as one strided batch by `image` (`Ok` if each problem checks).
fn aligned_batch(
    image: &KernelImage,
    cfg: GemmConfig<f32>,
    count: usize,
    rng: &mut Random,
) -> Result<(), String> {
    let cases: Vec<Case<f32>> = (0..count).map(|_| Case::random(cfg, rng)).collect();
    // One element before the first guard puts every matrix at 4n elements.
    let lead = (4 - GUARD % 4) % 4;
    let stride = |x: Matrix| cases[0].guarded(x).len().next_multiple_of(4);
    let joined = |x: Matrix| -> Vec<f32> {
        let mut v = vec![f32::NAN; lead + count * stride(x)];
        for (i, c) in cases.iter().enumerate() {
            let g = c.guarded(x);
            v[lead + i * stride(x)..][..g.len()].copy_from_slice(g);
        }
        v
    };
    let (a, b, mut c) = (joined(Matrix::A), joined(Matrix::B), joined(Matrix::C));
    let strides = StridedBatch {
        count: count as i64,
        stride_a: stride(Matrix::A) as i64,
        stride_b: stride(Matrix::B) as i64,
        stride_c: stride(Matrix::C) as i64,
    };
    let from = lead + GUARD;
    let c_end = c.len() - (stride(Matrix::C) - cases[0].guarded(Matrix::C).len()) - GUARD;
    Emulator::new()
        .gemm_strided_batched(image, &cfg, &strides, &a[from..], &b[from..], &mut c[from..c_end])
        .map_err(|e| format!("{}: {e}", gemm_host::case::describe(&cfg)))?;
    for (i, case) in cases.iter().enumerate() {
        let part = |x: Matrix, v: &[f32]| v[lead + i * stride(x)..][..case.guarded(x).len()].to_vec();
        case.check(&part(Matrix::A, &a), &part(Matrix::B, &b), &part(Matrix::C, &c), image.spec.math)
            .map_err(|e| format!("problem {i} of {count}: {e}"))?;
    }
    Ok(())
}

/// A strided batch is a third dimension of the maps: each block copies its
/// problem's boxes (the box coordinate `z`). Pointer arrays and a split K
/// are not tensors, so their launches run the twin, as do strides that
/// are not multiples of 16 bytes.
#[test]
fn tma_batches_and_the_launches_maps_cannot_describe() {
    let image = image(&tma_spec((64, 64, 32), 64, 3));
    let mut rng = Random::new(32);
    let cfg = GemmConfig::<f32>::new(Op::T, Op::N, 68, 60, 100).alpha(1.5).beta(0.5);
    let cfg = cfg.lda(104).ldb(104).ldc(72);
    aligned_batch(&image, cfg, 3, &mut rng).expect("a strided batch");
    // The same batch with every block copying problem 0's boxes fails:
    // the batch ran the TMA kernel.
    let ptx = image.ptx.replace("\tmov.u32\t%tma_problem, %ctaid.z;\n", "\tmov.u32\t%tma_problem, 0;\n");
    assert_ne!(ptx, *image.ptx, "the kernel reads its problem from ctaid.z");
    let broken = KernelImage { ptx: ptx.into(), ..image.clone() };
    assert!(aligned_batch(&broken, cfg, 3, &mut rng).is_err(), "the TMA kernel ran the batch");

    let emulator = Emulator::new();
    let split = Case::random(cfg, &mut rng);
    let mut c = split.guarded(Matrix::C).to_vec();
    let len = c.len();
    emulator
        .gemm_split_k(
            &image,
            &cfg,
            3,
            split.input(Matrix::A),
            split.input(Matrix::B),
            &mut c[GUARD..len - GUARD],
        )
        .expect("a split K runs the twin");
    split.check(split.guarded(Matrix::A), split.guarded(Matrix::B), &c, image.spec.math).expect("split K");
    let values = |batch| gemm_codegen::abi::GemmValues {
        a: 0usize,
        b: 1,
        c: 2,
        m: 68,
        n: 60,
        k: 100,
        lda: 104,
        ldb: 104,
        ldc: 72,
        alpha: [1.0, 0.0],
        beta: [0.0, 0.0],
        batch,
        stream_k: None,
    };
    let describes = |abi: &Abi, batch| {
        abi.args(&values(batch))
            .iter()
            .all(|a| !matches!(a, gemm_codegen::abi::Arg::TensorMap(m) if !m.describes))
    };
    let single = gemm_codegen::abi::Batch::single(100);
    assert!(describes(&image.abi(), single));
    assert!(!describes(&image.abi(), gemm_codegen::abi::Batch { arrays: true, problems: 2, ..single }));
    assert!(!describes(&image.abi(), gemm_codegen::abi::Batch { k_last: 36, problems: 3, ..single }));
}

/// The typical mistakes of a TMA kernel, made in the PTX of a correct one
/// (ten stripes: each of the 3 slots and barriers reused three times, two
/// phases each): each must fail in the emulator, never pass.
#[test]
fn tma_mistakes_are_caught() {
    let good = image(&tma_spec((64, 64, 32), 64, 3));
    let cfg = GemmConfig::<f32>::new(Op::T, Op::N, 68, 61, 300).alpha(1.5).beta(0.5);
    let cfg = cfg.lda(304).ldb(304).ldc(72);
    let bytes = "_, [%full_bar], 16384;";
    caught_edits(
        &good,
        cfg,
        &[
            (
                "the consumers do not wait for FULL: a slot read while its copies are in flight",
                &[
                    ("\tmbarrier.try_wait.parity.shared::cta.b64\t%p_full, [%full_at], %full_phase;\n", ""),
                    ("\t@!%p_full bra.uni\t$full_wait_0;\n", ""),
                    ("\t@!%p_full bra.uni\t$full_wait_1;\n", ""),
                ],
            ),
            (
                "expect_tx counts one box only: the phase would complete with B in flight",
                &[(bytes, "_, [%full_bar], 8192;")],
            ),
            (
                "expect_tx counts a box too many: the phase never completes",
                &[(bytes, "_, [%full_bar], 24576;")],
            ),
            (
                "the consumers never move to the next phase: they pass a barrier a phase early",
                &[("\txor.b32\t%full_phase, %full_phase, 1;\n", "")],
            ),
            (
                "the producer skips EMPTY[0]: a slot overwritten while a wgmma reads it",
                &[("\tbar.sync\t4, 256;\n", "")],
            ),
            (
                "A's box at B's column: the wrong rows of A",
                &[(
                    "[%a_map, {%tma_k0, %blk_m0, %tma_problem}]",
                    "[%a_map, {%tma_k0, %blk_n0, %tma_problem}]",
                )],
            ),
            (
                "the boxes one stripe behind: K shifted",
                &[("\tmul.lo.u32\t%tma_k0, %pkt_ahead, 32;\n", "\tmul.lo.u32\t%tma_k0, %pkt, 32;\n")],
            ),
            (
                "the barriers never initialized",
                &[("\t@%p_initializer mbarrier.init.shared::cta.b64\t[%full_bars], 1;\n", "")],
            ),
        ],
    );
}

/// A converting producer's mistakes, in the PTX of correct kernels (ten
/// stripes): 1xTF32 NT (A's fragments loaded from the ring, B converted)
/// and tf32x3 NT (both converted). Each caught. (NT's consumers also wait
/// on the barrier of the A they read in place, as CUTLASS's do; the
/// emulator orders A's bytes before them through the producers' wait and
/// `FULL` already, so removing that wait is not a mistake it can show.)
#[test]
fn tma_converting_mistakes_are_caught() {
    let nt = image(&tma_spec_of::<f32>((Op::N, Op::T), "tf32", (64, 64, 32), 64, 3));
    let cfg = GemmConfig::<f32>::new(Op::N, Op::T, 68, 61, 300).alpha(1.5).beta(0.5);
    caught_edits(
        &nt,
        cfg.lda(72).ldb(64).ldc(72),
        &[
            (
                "the producers convert without waiting for the stripe's barrier: they read bytes in flight",
                &[
                    (
                        "\tmbarrier.try_wait.parity.shared::cta.b64\t%p_landed, [%landed_at], %slot_rd_phase;\n",
                        "",
                    ),
                    ("\t@!%p_landed bra.uni\t$full_wait_2;\n", ""),
                    ("\t@!%p_landed bra.uni\t$full_wait_3;\n", ""),
                ],
            ),
            (
                "the consumers skip FULL[0]: parts read before the producers wrote them",
                &[("\tbar.sync\t2, 256;\n", "")],
            ),
        ],
    );
    let nt = image(&tma_spec_of::<f32>((Op::N, Op::T), "tf32x3", (64, 64, 32), 64, 3));
    caught_edits(
        &nt,
        cfg.lda(72).ldb(64).ldc(72),
        &[(
            "no producers' barrier: the leader overwrites a slot another producer still converts",
            &[("\tbar.sync\t1, 128;\n", "")],
        )],
    );
}

/// The typical mistakes of loading A's fragments from the ring into
/// registers (`wgmma_a_regs`), made in the PTX of correct NN 1xTF32
/// kernels (ten stripes, each of the 3 slots reused three times, rows of
/// `m_blk + 8` elements) of both pipelines: one consumer warpgroup with
/// registers to spare (a stripe a group), and two that copy by `cp.async`
/// and keep the block's share, 168 a thread (a step a group). Each must
/// fail in the emulator, never pass.
#[test]
fn a_fragment_mistakes_are_caught() {
    use gemm_codegen::constraints::{FragmentPipeline, wgmma_a_fragments};
    let stripes = image(&tma_spec_of::<f32>((Op::N, Op::N), "tf32", (64, 64, 32), 64, 3));
    let steps = KernelSpec {
        ldg: GlobalLoad::Cg,
        ..tma_spec_of::<f32>((Op::N, Op::N), "tf32", (128, 256, 32), 256, 3)
    };
    let steps = image(&steps);
    let stripe_fence =
        "\t// the stripe's fragments loaded fenced for its wgmmas\n\twgmma.fence.sync.aligned;\n";
    let step_fence = "\t// step 1: the fragment loaded fenced for wgmma\n\twgmma.fence.sync.aligned;\n";
    for (nn, pipeline, fence) in
        [(stripes, FragmentPipeline::Stripes, stripe_fence), (steps, FragmentPipeline::Steps, step_fence)]
    {
        assert_eq!(wgmma_a_fragments(&nn.spec), Some(pipeline), "{}", nn.spec);
        let m_blk = nn.spec.m_blk;
        let pitch = m_blk + 8;
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, i64::from(m_blk) + 4, 61, 300).alpha(1.5).beta(0.5);
        let group = "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned\t1;\n";
        let row = |p: u32| format!("%a_frag_row, %frag_t, {p}, %a_frag_row;");
        let slot = format!("\tadd.u32\t%a_frag_slot, %a_frag_slot, {};\n", 32 * pitch * 4);
        caught_edits(
            &nn,
            cfg.lda(i64::from(pitch)).ldb(304).ldc(i64::from(pitch)),
            &[
                (
                    "an element not rounded to TF32: wgmma takes only TF32 values from registers",
                    &[("\tand.b32\t%a_frag_0_2, %a_frag_0_2, 4294959104;\n", "")],
                ),
                ("no wgmma.fence between loading a fragment and the wgmma reading it", &[(fence, "")]),
                (
                    "no wait for the group before: its fragments overwritten while its wgmmas are in flight",
                    &[(group, "\twgmma.commit_group.sync.aligned;\n")],
                ),
                (
                    "the wrong fragment lane: element 1 loaded from row g, not g + 8",
                    &[("[%a_frag_stripe+32];", "[%a_frag_stripe];")],
                ),
                (
                    "the fragments' k rows at the tile's width, not the skewed ring's",
                    &[(&row(pitch), &row(m_blk))],
                ),
                (
                    "the consumers' fragments stay on the first slot: a stripe of A read twice, the next never",
                    &[(&slot, "")],
                ),
            ],
        );
    }
}

/// Two consumer warpgroups of NN 1xTF32 whose producer only copies: it
/// gives its registers to the consumers (`setmaxnreg.dec` to 40, `.inc` to
/// 232), which load a stripe's fragments at once, a stripe a group; and
/// four consumer warpgroups of TN. Both run on ragged shapes; the typical
/// mistakes of the hand-off are caught.
#[test]
fn the_register_hand_off_runs_and_its_mistakes_are_caught() {
    use gemm_codegen::constraints::{FragmentPipeline, register_limits, wgmma_a_fragments};
    let nn = image(&tma_spec_of::<f32>((Op::N, Op::N), "tf32", (128, 64, 32), 64, 3));
    assert_eq!(register_limits(&nn.spec), Some((40, 232)));
    assert_eq!(wgmma_a_fragments(&nn.spec), Some(FragmentPipeline::Stripes));
    let emulator = Emulator::new();
    let mut failures = Vec::new();
    let cases = ragged::<f32>(&emulator, &nn, (128, 64, 32), &mut Random::new(43), &mut failures, "NN");
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
    // Four consumer warpgroups on 640 threads of 96 registers: 104 a thread,
    // which the producer's 56 × 128 cover (asking 112 hung on the GPU).
    let four = image(&tma_spec((256, 64, 32), 64, 3));
    assert_eq!(register_limits(&four.spec), Some((40, 104)));
    let cases = ragged::<f32>(&emulator, &four, (256, 64, 32), &mut Random::new(44), &mut failures, "TN 256");
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
    let tn = GemmConfig::<f32>::new(Op::T, Op::N, 260, 61, 300).alpha(1.5).beta(0.5);
    caught_edits(
        &four,
        tn.lda(304).ldb(304).ldc(264),
        &[(
            "112 a thread, an even share of the whole register file rather than of the block's",
            &[("setmaxnreg.inc.sync.aligned.u32\t104;", "setmaxnreg.inc.sync.aligned.u32\t112;")],
        )],
    );
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 132, 61, 300).alpha(1.5).beta(0.5);
    caught_edits(
        &nn,
        cfg.lda(136).ldb(304).ldc(136),
        &[
            (
                "the producer keeps its registers: the consumers wait for them forever",
                &[("\tsetmaxnreg.dec.sync.aligned.u32\t40;\n", "")],
            ),
            (
                "the consumers ask for more than the producer gives back",
                &[("setmaxnreg.inc.sync.aligned.u32\t232;", "setmaxnreg.inc.sync.aligned.u32\t240;")],
            ),
            (
                "two stripes left in flight: a stripe's fragment sets loaded again while its wgmmas read them",
                &[("wgmma.wait_group.sync.aligned\t1;", "wgmma.wait_group.sync.aligned\t2;")],
            ),
        ],
    );
}

/// Table 2's FMA SGEMM TN, with the 16-byte global loads TMA would need.
fn gemm_kernels_table2() -> KernelSpec {
    let spec = gemm_kernels::table2(gemm_codegen::Precision::F32, Op::T, Op::N).spec;
    KernelSpec { ldg_width: 4, ..spec }
}

/// A TMA spec is the `cp.async` kernel's but for `ldg`; its twin copies by
/// `cp.async` with single elements, and `ldg = tma` where a box cannot land
/// as the ring holds its stripe, or without a producer warpgroup, is
/// refused on `ldg`.
#[test]
fn tma_specs_and_their_twins() {
    let spec = tma_spec((64, 64, 32), 64, 3);
    let twin =
        gemm_codegen::compile(&spec).expect("legal").unaligned_twin().expect("a twin").expect("legal twin");
    assert_eq!((twin.spec.ldg, twin.spec.ldg_width), (GlobalLoad::Cg, 1));
    assert!(!twin.abi().has_tensor_maps());
    for (what, bad) in [
        ("an FMA kernel", KernelSpec { ldg: GlobalLoad::Tma, ..gemm_kernels_table2() }),
        (
            "no producer warpgroup",
            KernelSpec { producers: 0, ..tma_spec_of::<f32>((Op::N, Op::N), "tf32", (64, 64, 32), 64, 2) },
        ),
        ("single elements", KernelSpec { ldg_width: 1, ..spec }),
    ] {
        let v = gemm_codegen::validate(&bad).expect_err(what);
        assert!(v.iter().any(|v| v.at.field == gemm_codegen::constraints::Field::Ldg), "{what}: {v:?}");
    }
    // Reading both operands in place, the consumers may run `stages - 1`
    // stripes ahead of the producer: four stages would let an `EMPTY`
    // arrival count toward the barrier's previous round. Refused on
    // `stages` (also for NN, whose consumers load A from the ring into
    // registers); a converting producer (NT: B) keeps them in step and may.
    for op in [(Op::T, Op::N), (Op::N, Op::N)] {
        let deep = tma_spec_of::<f32>(op, "tf32", (64, 64, 32), 64, 4);
        let v = gemm_codegen::validate(&deep).expect_err("four stages in place");
        assert!(v.iter().any(|v| v.at.field == gemm_codegen::constraints::Field::Stages), "{v:?}");
    }
    let converting = tma_spec_of::<f32>((Op::N, Op::T), "tf32", (64, 64, 32), 64, 4);
    assert!(gemm_codegen::validate(&converting).is_ok(), "{converting}");
}
