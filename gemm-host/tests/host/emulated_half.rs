//! The 16-bit kernels (`f16`, `bf16`) run without a GPU: a TMA producer
//! lands A and B, K-major or MN-major, and the consumers' `wgmma`s read
//! them as they land, products and sums in f32; the epilogue widens a
//! 16-bit C, rounds the result back and stores 16 bits. Every op pair on
//! ragged shapes (edge boxes landing zeros, C's element-by-element path),
//! the default kernels of `gemm-kernels` on one shape, then the typical
//! mistakes, each caught.

use gemm_codegen::{Element, KernelSpec, Op, Precision};
use gemm_host::GemmConfig;
use gemm_host::Matrix;
use gemm_host::emulate::Emulator;
use gemm_host::half::{bf16, f16};
use gemm_host::reference::Random;

use crate::emulated_specialized::caught_edits;
use crate::emulated_wgmma::{image, run, shapes};

/// A 16-bit kernel of `op` with one consumer warpgroup of `64 × n` per
/// `64 × n` tile (`tile.1 = n`), `stages` slots of `tile.2 = 64`.
fn half_spec(precision: Precision, op: (Op, Op), n: u32, stages: u32) -> KernelSpec {
    let (m, k) = (64, 64);
    // The producer's 128 threads, 8 elements a copy along the lead.
    let load = |lead_is_free: bool, free: u32| {
        let lead = if lead_is_free { free / 8 } else { k / 8 };
        (lead, 128 / lead)
    };
    let (la, lb) = (load(op.0 == Op::N, m), load(op.1 != Op::N, n));
    let text = format!(
        "precision = {precision}, op = ({:?}, {:?}), tile = ({m}, {n}, {k}), threads = (32, 4), load_a = ({}, {}), \
         load_b = ({}, {}), ldg = tma, ldg_width = 8, stages = {stages}, warps = (4, 1), math = {precision}, \
         mma = (64, {n}, 16), arch = sm_90a, producers = 1",
        op.0, op.1, la.0, la.1, lb.0, lb.1
    );
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `cfg` of `shape` with A's and B's leading dimensions rounded up to 8
/// elements (the tensor maps' 16 bytes), C's padded by one.
fn config<T: Element>(op: (Op, Op), (m, n, k): (i64, i64, i64), rng: &mut Random) -> GemmConfig<T> {
    let cfg = GemmConfig::new(op.0, op.1, m, n, k).alpha(rng.scalar()).beta(rng.scalar());
    let lead = |ld: i64| gemm_host::operand_ld(T::PRECISION, ld);
    cfg.lda(lead(cfg.min_ld(Matrix::A))).ldb(lead(cfg.min_ld(Matrix::B) + 1)).ldc(cfg.min_ld(Matrix::C) + 1)
}

fn every_op_pair<T: Element>(n: u32) {
    let emulator = Emulator::new();
    let mut rng = Random::new(16);
    let mut failures = Vec::new();
    let mut cases = 0;
    for op in [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T), (Op::C, Op::C)] {
        let spec = half_spec(T::PRECISION, op, n, 3);
        let kernel = image(&spec);
        for shape in shapes((64, n, 64)) {
            cases += 1;
            let cfg = config::<T>(op, shape, &mut rng);
            if let Err(e) = run(&emulator, &kernel, &mut rng, cfg) {
                failures.push(format!("{spec}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

/// f16 with B's `wgmma` 64 columns wide (one MN-major box) and 128 (two).
#[test]
fn f16_every_op_pair() {
    every_op_pair::<f16>(64);
    every_op_pair::<f16>(128);
}

#[test]
fn bf16_every_op_pair() {
    every_op_pair::<bf16>(64);
}

/// The shipped default kernels (128 × 256 × 64, two consumer warpgroups)
/// on one ragged shape per op pair of the transposes.
#[test]
fn the_default_kernels_run() {
    let emulator = Emulator::new();
    let mut rng = Random::new(17);
    for precision in Precision::HALF {
        for op in [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)] {
            let entry = gemm_kernels::table2(precision, op.0, op.1);
            let shape = (131, 261, 70);
            let got = match precision {
                Precision::F16 => {
                    let cfg = config::<f16>(op, shape, &mut rng);
                    run(&emulator, &entry.image(), &mut rng, cfg)
                }
                _ => {
                    let cfg = config::<bf16>(op, shape, &mut rng);
                    run(&emulator, &entry.image(), &mut rng, cfg)
                }
            };
            got.unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        }
    }
}

/// Typical mistakes in a 16-bit kernel, each caught by the emulator: an
/// MN-major operand multiplied as K-major (the transpose immediate),
/// the MN-major descriptor's box stride taken as the group stride, a K-major
/// operand multiplied as MN-major, and C's old 16 bits taken as an f32's.
#[test]
fn mistakes_are_caught() {
    let mut rng = Random::new(18);
    let nn = image(&half_spec(Precision::F16, (Op::N, Op::N), 64, 3));
    let cfg = config::<f16>((Op::N, Op::N), (70, 67, 130), &mut rng);
    let box_bytes = 64 * 128;
    let template =
        |lbo: u32, sbo: u32| gemm_codegen::ptx::SmemDesc::mn_major_sw128(0, lbo, sbo).encode() as i64;
    let (good_desc, swapped) = (template(box_bytes, 1024).to_string(), template(1024, box_bytes).to_string());
    caught_edits::<f16>(
        &nn,
        cfg,
        &[
            ("A issued K-major", &[(", 1, 1, 1, 0;", ", 1, 1, 0, 0;")]),
            ("LBO and SBO swapped", &[(good_desc.as_str(), swapped.as_str())]),
            ("C's old value taken as f32 bits", &[("cvt.f32.f16", "mov.f32")]),
        ],
    );
    let tn = image(&half_spec(Precision::F16, (Op::T, Op::N), 64, 3));
    let cfg = config::<f16>((Op::T, Op::N), (70, 67, 130), &mut rng);
    caught_edits::<f16>(&tn, cfg, &[("B issued MN-major", &[(", 1, 1, 0, 0;", ", 1, 1, 0, 1;")])]);
}
