//! Stream-K kernels (`schedule = stream_k`) run without a GPU: each of the
//! stencil's pipelines and inner products (register-staged FMA, a
//! `cp.async` ring, DMMA, Hopper `wgmma`) shares ragged problems out over
//! grids of one block, a few, and more blocks than stripes (every tile then
//! a block's own), through the public [`Emulator`], checked by [`Case`]
//! against the f64 reference (guards around every buffer, NaN-poisoned C
//! for `beta = 0`, NaN-filled slots) with the workspace's counters back at
//! zero; any emulator fault (a race between the blocks that share a tile
//! included) fails the case. The same kernels with `share = 0` compute a
//! tile a block, batches and split K included. Then the schedule's
//! typical mistakes, made in its PTX, each caught.

use gemm_codegen::{KernelImage, KernelSpec, Op};
use gemm_host::case::Case;
use gemm_host::emulate::Emulator;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::validate::StridedBatch;
use gemm_host::{Element, GemmConfig};

fn image(text: &str) -> KernelImage {
    let spec: KernelSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    gemm_codegen::compile(&spec).unwrap_or_else(|v| panic!("{spec}: {v:?}"))
}

/// Ragged shapes around a 32 × 32 × 8 tile: partial tiles, k under one
/// stripe and over many, k = 0 (beta · C only), a single tile.
const SHAPES: [(i64, i64, i64); 5] = [(70, 45, 61), (33, 97, 8), (5, 3, 200), (64, 64, 0), (1, 1, 1)];

/// Grids of one block (every tile's stripes in one block: no split tile),
/// a few blocks (tiles split in two or three), more than a tile's stripes
/// (tiles split many ways) and more blocks than stripes.
const GRIDS: [u32; 4] = [1, 3, 13, 1000];

fn every_grid<T: Element>(text: &str, op: (Op, Op)) {
    let image = image(text);
    let emulator = Emulator::new();
    let mut rng = Random::new(11);
    let (mut cases, mut failures) = (0, Vec::new());
    for (i, &(m, n, k)) in SHAPES.iter().enumerate() {
        for &blocks in &GRIDS {
            let beta = [T::ZERO, T::ONE, rng.scalar()][(i + blocks as usize) % 3];
            let cfg = GemmConfig::<T>::new(op.0, op.1, m, n, k).alpha(rng.scalar()).beta(beta);
            cases += 1;
            if let Err(e) = Case::random(cfg, &mut rng).emulate_stream_k(&emulator, &image, blocks) {
                failures.push(format!("{blocks} blocks: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
    eprintln!("stream-K {}: {cases} emulated cases passed", image.entry);
}

#[test]
fn register_staged_fma_f64() {
    every_grid::<f64>(
        "precision = f64, op = (N, T), tile = (32, 32, 8), threads = (8, 8), load_a = (32, 2), \
         load_b = (32, 2), schedule = stream_k",
        (Op::N, Op::T),
    );
}

#[test]
fn ring_fma_c32_conjugated() {
    every_grid::<Complex<f32>>(
        "precision = c32, op = (C, N), tile = (32, 32, 8), threads = (8, 8), load_a = (8, 8), \
         load_b = (8, 8), arch = sm_80, stages = 3, raster = 2, schedule = stream_k",
        (Op::C, Op::N),
    );
}

#[test]
fn dmma_c64() {
    every_grid::<Complex<f64>>(
        "precision = c64, op = (T, N), tile = (32, 32, 8), threads = (16, 8), load_a = (8, 16), \
         load_b = (8, 16), arch = sm_90, stages = 2, warps = (2, 2), math = dmma, mma = (16, 8, 4), \
         schedule = stream_k",
        (Op::T, Op::N),
    );
}

#[test]
fn wgmma_tf32x3_f32() {
    every_grid::<f32>(
        "precision = f32, op = (N, N), tile = (64, 64, 8), threads = (32, 4), load_a = (16, 8), \
         load_b = (2, 64), lds_width = 4, ldg_width = 4, arch = sm_90a, stages = 2, warps = (4, 1), \
         math = tf32x3, mma = (64, 64, 8), schedule = stream_k",
        (Op::N, Op::N),
    );
}

/// Without a share (`share = 0`) the kernel computes a tile a block, on
/// the grid every kernel gets: one call, a strided batch, split K.
#[test]
fn without_a_share_it_is_a_tile_kernel() {
    let image = image(
        "precision = f32, op = (N, N), tile = (32, 32, 8), threads = (8, 8), load_a = (32, 2), \
         load_b = (4, 16), schedule = stream_k",
    );
    let emulator = Emulator::new();
    let mut rng = Random::new(3);
    for (m, n, k) in SHAPES {
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, m, n, k).alpha(0.5).beta(rng.scalar());
        Case::random(cfg, &mut rng).emulate(&emulator, &image).unwrap();
    }
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 40, 35, 30).beta(1.5);
    let batch = StridedBatch { count: 3, stride_a: 40 * 30, stride_b: 30 * 35, stride_c: 40 * 35 };
    let (a, b) = (vec![0.5f32; 3 * 40 * 30], vec![2.0f32; 3 * 30 * 35]);
    let mut c = vec![1.0f32; 3 * 40 * 35];
    emulator.gemm_strided_batched(&image, &cfg, &batch, &a, &b, &mut c).unwrap();
    assert!(c.iter().all(|&x| x == 30.0 + 1.5), "every problem's C is 30 + 1.5");
    let mut c = vec![1.0f32; 40 * 35];
    emulator.gemm_split_k(&image, &cfg, 3, &a[..1200], &b[..1050], &mut c).unwrap();
    assert!(c.iter().all(|&x| x == 31.5));
}

/// Two runs on the same inputs give bitwise the same C, whichever block
/// of a split tile arrives last (the emulator's workers race for it).
#[test]
fn the_sum_is_in_stripe_order_whoever_arrives_last() {
    let image = image(
        "precision = f32, op = (N, N), tile = (32, 32, 8), threads = (8, 8), load_a = (32, 2), \
         load_b = (4, 16), schedule = stream_k",
    );
    let emulator = Emulator::new();
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 64, 64, 1000).beta(0.0);
    let mut rng = Random::new(5);
    let case = Case::random(cfg, &mut rng);
    let run = || {
        let mut c = vec![f32::NAN; 64 * 64];
        emulator
            .gemm_stream_k(
                &image,
                &cfg,
                7,
                case.input(gemm_host::Matrix::A),
                case.input(gemm_host::Matrix::B),
                &mut c,
            )
            .unwrap();
        c.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    let first = run();
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
}

/// The schedule's typical mistakes, made in the PTX of a correct kernel:
/// each must fail in the emulator (a fault or a wrong C), never pass.
#[test]
fn mistakes_in_the_schedule_are_caught() {
    let good = image(
        "precision = f64, op = (N, N), tile = (32, 32, 8), threads = (8, 8), load_a = (32, 2), \
         load_b = (8, 8), schedule = stream_k",
    );
    let cfg = GemmConfig::<f64>::new(Op::N, Op::N, 70, 45, 61).alpha(1.5).beta(0.5);
    let emulator = Emulator::new();
    let run =
        |image: &KernelImage| Case::random(cfg, &mut Random::new(7)).emulate_stream_k(&emulator, image, 5);
    run(&good).expect("the unbroken kernel passes");
    let fence = "\t@%p_sk_thread0 fence.acq_rel.gpu;\n";
    let release = format!("{fence}\t@%p_sk_thread0 atom");
    let mistakes: &[(&str, &str, &str)] = &[
        ("no release before the arrival", &release, "\t@%p_sk_thread0 atom"),
        ("no acquire after the arrival", "%sk_bound;\n\t@%p_sk_thread0 fence.acq_rel.gpu;\n", "%sk_bound;\n"),
        (
            "the first to arrive sums, not the last",
            "setp.eq.u32\t%p_sk_arrived, %sk_old, %sk_bound;",
            "setp.eq.u32\t%p_sk_arrived, %sk_old, 0;",
        ),
        (
            "segment 0 read from the block's first slot always",
            "setp.lt.u32\t%p_sk_first, %sk_seg, %sk_rest;",
            "setp.gt.u32\t%p_sk_first, %sk_seg, %sk_rest;",
        ),
        ("no barrier before the arrival", "\tbar.sync\t0;\n\t// thread 0 releases", "\t// thread 0 releases"),
    ];
    for &(what, from, to) in mistakes {
        assert!(good.ptx.contains(from), "{what}: the kernel has `{}`", from.trim());
        let broken = KernelImage { ptx: good.ptx.replacen(from, to, 1).into(), ..good.clone() };
        let got = run(&broken);
        assert!(got.is_err(), "{what}: the emulator passed the broken kernel");
        eprintln!("{what}: caught: {}", got.unwrap_err().lines().next().unwrap_or(""));
    }
}
