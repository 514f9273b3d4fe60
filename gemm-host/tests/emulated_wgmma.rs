//! The Hopper `wgmma` family (`math = tf32 | tf32x3`, `mma = (64, n, 8)`,
//! `arch = sm_90a`) run without a GPU: every op pair through the public
//! [`Emulator`] on ragged shapes, checked by [`Case`] against the f64
//! reference like a GPU run (guards around every buffer, NaN-poisoned C for
//! `beta = 0`); any emulator fault (a wgmma register read in flight, a
//! missing `wgmma.fence` or `fence.proxy.async`, an operand not TF32, a
//! race) fails the case. Then the family's typical mistakes, made in its
//! PTX, each caught.

use gemm_codegen::{KernelImage, KernelSpec, Op};
use gemm_host::case::Case;
use gemm_host::emulate::Emulator;
use gemm_host::reference::Random;
use gemm_host::{GemmConfig, Matrix};

/// A warpgroup spec of `math` for `op`: `tile` with warps `(tile.0 / 16,
/// tile.1 / n)`, copies of 16 bytes along each operand's leading dimension.
fn spec(op: (Op, Op), math: &str, tile: (u32, u32, u32), n: u32) -> KernelSpec {
    let (wm, wn) = (tile.0 / 16, tile.1 / n);
    let threads = 32 * wm * wn;
    // load = (lead threads, cross threads): 4 elements a copy along the lead.
    let load = |lead_is_free: bool, free: u32| {
        let lead = if lead_is_free { free / 4 } else { tile.2 / 4 };
        (lead, threads / lead)
    };
    let (la, lb) = (load(op.0 == Op::N, tile.0), load(op.1 != Op::N, tile.1));
    let text = format!(
        "precision = f32, op = ({:?}, {:?}), tile = ({}, {}, {}), threads = ({}, {}), load_a = ({}, {}), \
         load_b = ({}, {}), lds_width = 4, ldg_width = 4, stages = 2, warps = ({wm}, {wn}), math = {math}, \
         mma = (64, {n}, 8), arch = sm_90a",
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

fn image(spec: &KernelSpec) -> KernelImage {
    gemm_codegen::compile(spec).unwrap_or_else(|v| panic!("{spec}: {v:?}"))
}

/// Runs `image` on `cfg` with random inputs; the worst error, or why not.
fn run(
    emulator: &Emulator,
    image: &KernelImage,
    rng: &mut Random,
    cfg: GemmConfig<f32>,
) -> Result<f64, String> {
    Case::random(cfg, rng).emulate(emulator, image)
}

const OPS: [(Op, Op); 4] = [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)];

/// Ragged shapes around a `tile`: partial tiles in every dimension, k
/// under one stripe, over one, and several stripes (the two sets of parts
/// alternating, six stripes deep), with `alpha`, `beta` and padded
/// leading dimensions.
fn shapes(tile: (u32, u32, u32)) -> Vec<(i64, i64, i64)> {
    let (m, n, k) = (i64::from(tile.0), i64::from(tile.1), i64::from(tile.2));
    vec![(m + 3, n - 5, 5 * k + 7), (1, 1, 1), (m - 1, 2 * n + 1, k), (2 * m + 5, 3, 2 * k - 1), (7, n, 0)]
}

fn every_op_pair(math: &str, tile: (u32, u32, u32), n: u32) {
    let emulator = Emulator::new();
    let mut rng = Random::new(90);
    let (mut cases, mut failures) = (0, Vec::new());
    for op in OPS {
        let image = image(&spec(op, math, tile, n));
        for (i, (m, nn, k)) in shapes(tile).into_iter().enumerate() {
            // Even cases: leading dimensions rounded up to 16 bytes, so the
            // kernel itself runs; odd ones: padded by 1 or 2, so the host
            // runs its unaligned twin (`ldg_width = 1`).
            let cfg = GemmConfig::new(op.0, op.1, m, nn, k).alpha(rng.scalar()).beta([0.0, 1.0, -0.5][i % 3]);
            let ld = |min: i64, pad: i64| if i % 2 == 0 { (min + pad + 3) / 4 * 4 } else { min + pad };
            let pad = (i % 3) as i64;
            let cfg = cfg
                .lda(ld(cfg.min_ld(Matrix::A), pad))
                .ldb(ld(cfg.min_ld(Matrix::B), 2 * pad))
                .ldc(ld(cfg.min_ld(Matrix::C), pad));
            cases += 1;
            if let Err(e) = run(&emulator, &image, &mut rng, cfg) {
                failures.push(format!("{math} {op:?}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
    eprintln!("wgmma {math} {tile:?} n = {n}: {cases} emulated cases passed");
}

/// One warpgroup, K-contiguous stripes for A^T and B (k_blk = 32).
#[test]
fn tf32x3_every_op_pair() {
    every_op_pair("tf32x3", (64, 64, 32), 64);
}

#[test]
fn tf32_every_op_pair() {
    every_op_pair("tf32", (64, 64, 32), 64);
}

/// Two warpgroups along M and two along N (four in all), and K-major
/// stripes only (k_blk = 16: rows of 64 bytes are never K-contiguous).
#[test]
fn four_warpgroups_and_k_major_stripes() {
    every_op_pair("tf32x3", (128, 128, 16), 64);
}

/// The family's typical mistakes, made in the PTX of a correct kernel:
/// each must fail in the emulator (a fault or a wrong C), never pass.
#[test]
fn mistakes_in_the_family_are_caught() {
    let emulator = Emulator::new();
    let good = image(&spec((Op::N, Op::N), "tf32x3", (64, 64, 32), 64));
    // Leading dimensions multiples of 4: the kernel itself runs, not the
    // unaligned twin the host would generate from its spec.
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 68, 61, 100).alpha(1.5).beta(0.5);
    let mut rng = Random::new(7);
    run(&emulator, &good, &mut rng, cfg).expect("the unbroken kernel passes");
    let mistakes: [(&str, &str, &str); 5] = [
        ("no fence.proxy.async: the parts not visible to wgmma", "\tfence.proxy.async.shared::cta;\n", ""),
        ("no wait before the products join C", "\twgmma.wait_group.sync.aligned\t0;\n", ""),
        ("no wgmma.fence before the stripe's wgmmas", "\twgmma.fence.sync.aligned;\n", ""),
        // The stride byte offset of every descriptor (bits 32-45) one 16-byte unit off: wrong rows.
        ("a descriptor's stride byte offset off by 16 bytes", ", 279173398528;", ", 283468365824;"),
        ("the small part never rounded to TF32", "\tand.b32\t%cv_small0, %cv_small0, 4294959104;\n", ""),
    ];
    for (what, from, to) in mistakes {
        assert!(good.ptx.contains(from), "{what}: the kernel has `{}`", from.trim());
        let broken = KernelImage { ptx: good.ptx.replace(from, to).into(), ..good.clone() };
        let got = run(&emulator, &broken, &mut Random::new(7), cfg);
        assert!(got.is_err(), "{what}: the emulator passed the broken kernel ({got:?})");
        eprintln!("{what}: caught: {}", got.unwrap_err().lines().next().unwrap_or(""));
    }
}
