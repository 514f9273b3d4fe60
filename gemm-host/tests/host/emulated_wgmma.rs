//! The Hopper `wgmma` family (`math = tf32 | tf32x3`, `mma = (64, n, 8)`,
//! `arch = sm_90a`, f32 and c32) run without a GPU: every op pair (c32:
//! every conjugation and stripe layout of A and B) through the public
//! [`Emulator`] on ragged shapes, checked by [`Case`] against the f64
//! reference like a GPU run (guards around every buffer, NaN-poisoned C for
//! `beta = 0`); any emulator fault (a wgmma register read in flight, a
//! missing `wgmma.fence` or `fence.proxy.async`, an operand not TF32, a
//! race) fails the case. Then the family's typical mistakes, made in its
//! PTX, each caught.

use gemm_codegen::{KernelImage, KernelSpec, Op};
use gemm_host::case::Case;
use gemm_host::emulate::Emulator;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::{Element, GemmConfig, Matrix};

/// A warpgroup spec of `math` for `op` on `T`: `tile` with warps `(tile.0
/// / 16, tile.1 / n)`, copies of 16 bytes along each operand's leading
/// dimension.
pub(crate) fn spec<T: Element>(op: (Op, Op), math: &str, tile: (u32, u32, u32), n: u32) -> KernelSpec {
    spec_copied_by::<T>(op, math, tile, n, 0, 2)
}

/// [`spec`] with `producers` warpgroups: the load shapes then rearrange
/// their 128 threads.
pub(crate) fn spec_copied_by<T: Element>(
    op: (Op, Op),
    math: &str,
    tile: (u32, u32, u32),
    n: u32,
    producers: u32,
    stages: u32,
) -> KernelSpec {
    let (wm, wn) = (tile.0 / 16, tile.1 / n);
    let threads = if producers > 0 { 128 * producers } else { 32 * wm * wn };
    // Elements of 16 bytes: a copy's and a conversion load's.
    let w = 16 / T::PRECISION.element_bytes();
    // load = (lead threads, cross threads): w elements a copy along the lead.
    let load = |lead_is_free: bool, free: u32| {
        let lead = if lead_is_free { free / w } else { tile.2 / w };
        (lead, threads / lead)
    };
    let (la, lb) = (load(op.0 == Op::N, tile.0), load(op.1 != Op::N, tile.1));
    let text = format!(
        "precision = {}, op = ({:?}, {:?}), tile = ({}, {}, {}), threads = ({}, {}), load_a = ({}, {}), \
         load_b = ({}, {}), lds_width = {w}, ldg_width = {w}, stages = {stages}, warps = ({wm}, {wn}), math = {math}, \
         mma = (64, {n}, 8), arch = sm_90a, producers = {producers}",
        T::PRECISION,
        op.0,
        op.1,
        tile.0,
        tile.1,
        tile.2,
        8 * wm,
        4 * wn,
        la.0,
        la.1,
        lb.0,
        lb.1
    );
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

pub(crate) fn image(spec: &KernelSpec) -> KernelImage {
    gemm_codegen::compile(spec).unwrap_or_else(|v| panic!("{spec}: {v:?}"))
}

/// Runs `image` on `cfg` with random inputs; the worst error, or why not.
pub(crate) fn run<T: Element>(
    emulator: &Emulator,
    image: &KernelImage,
    rng: &mut Random,
    cfg: GemmConfig<T>,
) -> Result<f64, String> {
    Case::random(cfg, rng).emulate(emulator, image)
}

pub(crate) const OPS: [(Op, Op); 4] = [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)];

/// c32's op pairs: each of A and B K-major (A: N; B: T, C) and
/// K-contiguous (A: T, C; B: N), conjugated and not, in every pairing.
pub(crate) const COMPLEX_OPS: [(Op, Op); 5] =
    [(Op::N, Op::N), (Op::C, Op::C), (Op::T, Op::C), (Op::C, Op::N), (Op::N, Op::T)];

/// Ragged shapes around a `tile`: partial tiles in every dimension, k
/// under one stripe, over one, and several stripes (the two sets of parts
/// alternating, six stripes deep), with `alpha`, `beta` and padded
/// leading dimensions.
pub(crate) fn shapes(tile: (u32, u32, u32)) -> Vec<(i64, i64, i64)> {
    let (m, n, k) = (i64::from(tile.0), i64::from(tile.1), i64::from(tile.2));
    vec![(m + 3, n - 5, 5 * k + 7), (1, 1, 1), (m - 1, 2 * n + 1, k), (2 * m + 5, 3, 2 * k - 1), (7, n, 0)]
}

fn every_op_pair<T: Element>(math: &str, tile: (u32, u32, u32), n: u32) {
    every_op_pair_copied_by::<T>(math, tile, n, 0, 2);
}

/// [`every_op_pair`] for kernels with `producers` warpgroups.
pub(crate) fn every_op_pair_copied_by<T: Element>(
    math: &str,
    tile: (u32, u32, u32),
    n: u32,
    producers: u32,
    stages: u32,
) {
    let emulator = Emulator::new();
    let mut rng = Random::new(90);
    let (mut cases, mut failures) = (0, Vec::new());
    let ops: &[(Op, Op)] = if T::PRECISION.is_complex() { &COMPLEX_OPS } else { &OPS };
    // Leading dimensions rounded up to 16 bytes.
    let w = i64::from(16 / T::PRECISION.element_bytes());
    for &op in ops {
        let image = image(&spec_copied_by::<T>(op, math, tile, n, producers, stages));
        for (i, (m, nn, k)) in shapes(tile).into_iter().enumerate() {
            // Even cases: leading dimensions rounded up to 16 bytes, so the
            // kernel itself runs; odd ones: padded by 1 or 2, so the host
            // runs its unaligned twin (`ldg_width = 1`).
            let beta = [T::ZERO, T::ONE, rng.scalar()][i % 3];
            let cfg = GemmConfig::<T>::new(op.0, op.1, m, nn, k).alpha(rng.scalar()).beta(beta);
            let ld = |min: i64, pad: i64| if i % 2 == 0 { (min + pad + w - 1) / w * w } else { min + pad };
            let pad = (i % 3) as i64;
            let cfg = cfg
                .lda(ld(cfg.min_ld(Matrix::A), pad))
                .ldb(ld(cfg.min_ld(Matrix::B), 2 * pad))
                .ldc(ld(cfg.min_ld(Matrix::C), pad));
            cases += 1;
            if let Err(e) = run(&emulator, &image, &mut rng, cfg) {
                failures.push(format!("{} {math} {op:?}: {e}", T::PRECISION));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
    eprintln!(
        "wgmma {} {math} {tile:?} n = {n}, {producers} producers: {cases} emulated cases passed",
        T::PRECISION
    );
}

/// One warpgroup, K-contiguous stripes for A^T and B (k_blk = 32).
#[test]
fn tf32x3_every_op_pair() {
    every_op_pair::<f32>("tf32x3", (64, 64, 32), 64);
}

#[test]
fn tf32_every_op_pair() {
    every_op_pair::<f32>("tf32", (64, 64, 32), 64);
}

/// Two warpgroups along M and two along N (four in all), and K-major
/// stripes only (k_blk = 16: rows of 64 bytes are never K-contiguous).
#[test]
fn four_warpgroups_and_k_major_stripes() {
    every_op_pair::<f32>("tf32x3", (128, 128, 16), 64);
}

/// c32 on one warpgroup (k_blk = 16: K-contiguous rows of 128 bytes, two
/// chunks a conversion unit), every conjugation.
#[test]
fn c32_tf32x3_every_conjugation() {
    every_op_pair::<Complex<f32>>("tf32x3", (64, 64, 16), 64);
}

/// c32 with 1xTF32, two warpgroups along M of the widest c32 `n`, and
/// K-major stripes only (k_blk = 8).
#[test]
fn c32_tf32_two_warpgroups() {
    every_op_pair::<Complex<f32>>("tf32", (128, 128, 8), 128);
}

/// The family's typical mistakes, made in the PTX of a correct kernel:
/// each must fail in the emulator (a fault or a wrong C), never pass.
#[test]
fn mistakes_in_the_family_are_caught() {
    let good = image(&spec::<f32>((Op::N, Op::N), "tf32x3", (64, 64, 32), 64));
    // Leading dimensions multiples of 4: the kernel itself runs, not the
    // unaligned twin the host would generate from its spec.
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 68, 61, 100).alpha(1.5).beta(0.5);
    caught(
        &good,
        cfg,
        &[
            (
                "no fence.proxy.async: the parts not visible to wgmma",
                "\tfence.proxy.async.shared::cta;\n",
                "",
            ),
            ("no wait before the products join C", "\twgmma.wait_group.sync.aligned\t0;\n", ""),
            // The parts' barrier also lands the ring's next stripe (`ring.rs`).
            (
                "no wait for the next stripe before the parts' barrier: its copies read unlanded",
                "\twgmma.wait_group.sync.aligned\t0;\n\tcp.async.wait_group\t0;\n",
                "\twgmma.wait_group.sync.aligned\t0;\n",
            ),
            (
                "the previous stripe's group not retired at the parts' barrier",
                "\twgmma.wait_group.sync.aligned\t0;\n\tcp.async.wait_group\t0;\n",
                "\tcp.async.wait_group\t0;\n",
            ),
            ("no wgmma.fence before the stripe's wgmmas", "\twgmma.fence.sync.aligned;\n", ""),
            // The stride byte offset of every descriptor (bits 32-45) one 16-byte unit off: wrong rows.
            ("a descriptor's stride byte offset off by 16 bytes", ", 279173398528;", ", 283468365824;"),
            ("the small part never rounded to TF32", "\tand.b32\t%cv_small0, %cv_small0, 4294959104;\n", ""),
        ],
    );
}

/// c32's own mistakes: a sign, a plane, a chunk of a pair.
#[test]
fn complex_mistakes_are_caught() {
    let good = image(&spec::<Complex<f32>>((Op::N, Op::N), "tf32x3", (64, 64, 16), 64));
    let cfg = GemmConfig::<Complex<f32>>::new(Op::N, Op::N, 68, 61, 100)
        .alpha(Complex::new(1.5, -0.25))
        .beta(Complex::new(0.5, 0.75));
    caught(
        &good,
        cfg,
        &[
            ("b·d added to the real part, not subtracted", ", -1, 1;", ", 1, 1;"),
            // A's descriptors are big re, big im, small re, small im, planes 4224 bytes apart.
            (
                "A's imaginary plane read from its real one",
                "\tadd.u32\t%a_desc_addr, %a_desc_addr, 4224;\n",
                "",
            ),
            (
                "a K-contiguous pair's second chunk read from its first",
                "\txor.b32\t%cv_addr, %cv_addr, 16;\n",
                "",
            ),
        ],
    );
}

/// Asserts that each `(what, from, to)` edit of `good`'s PTX fails on
/// `cfg` in the emulator (a fault or a wrong C), the unedited kernel passing.
fn caught<T: Element>(good: &KernelImage, cfg: GemmConfig<T>, mistakes: &[(&str, &str, &str)]) {
    let emulator = Emulator::new();
    run(&emulator, good, &mut Random::new(7), cfg).expect("the unbroken kernel passes");
    for &(what, from, to) in mistakes {
        assert!(good.ptx.contains(from), "{what}: the kernel has `{}`", from.trim());
        let broken = KernelImage { ptx: good.ptx.replace(from, to).into(), ..good.clone() };
        let got = run(&emulator, &broken, &mut Random::new(7), cfg);
        assert!(got.is_err(), "{what}: the emulator passed the broken kernel ({got:?})");
        eprintln!("{what}: caught: {}", got.unwrap_err().lines().next().unwrap_or(""));
    }
}
