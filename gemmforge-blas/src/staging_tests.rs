//! The plan's cuts and the pipeline on the emulator: every op pair, both
//! cuts, ragged chunks, beta read or not, leading dimensions with gaps
//! (which must stay untouched), and the rest of a call after a failure.

use super::*;
use crate::cpu::reference_gemm;
use gemm_host::GemmConfig;
use num_complex::Complex;

const OPS: [Op; 3] = [Op::N, Op::T, Op::C];

fn tiny(chunk_bytes: usize) -> Tuning {
    Tuning { chunk_bytes, min_step: 1 }
}

#[test]
fn plans_cover_c_once_in_order() {
    for (m, n, k) in [(1, 1, 1), (7, 300, 5), (300, 7, 5), (64, 64, 0), (5, 1000, 1000)] {
        for chunk in [1, 100, 1 << 12, 1 << 30] {
            let cfg = GemmConfig::<f32>::new(Op::N, Op::T, m, n, k);
            let plan = Plan::new(&cfg, 4, true, tiny(chunk));
            assert!((1..=MAX_CHUNKS).contains(&plan.chunks), "{plan:?}");
            let len = if plan.along == Along::Columns { n } else { m } as usize;
            let mut next = 0;
            for i in 0..plan.chunks {
                let r = plan.range(i);
                assert_eq!(r.start, next, "{plan:?}");
                assert!(!r.is_empty(), "{plan:?} chunk {i}");
                next = r.end;
            }
            assert_eq!(next, len, "{plan:?}");
        }
    }
}

#[test]
fn the_smaller_operand_stays_resident_and_chunks_are_not_too_thin() {
    let wide = GemmConfig::<f64>::new(Op::N, Op::N, 100, 10_000, 100);
    let plan = Plan::new(&wide, 8, false, Tuning::default());
    assert_eq!(plan.along, Along::Columns);
    assert!(plan.chunks > 1 && plan.step >= Tuning::default().min_step, "{plan:?}");
    let tall = GemmConfig::<f64>::new(Op::T, Op::N, 10_000, 100, 100);
    assert_eq!(Plan::new(&tall, 8, false, Tuning::default()).along, Along::Rows);
    // A call smaller than a chunk is one chunk; a thin one is not cut below min_step.
    let small = GemmConfig::<f32>::new(Op::N, Op::N, 64, 64, 64);
    assert_eq!(Plan::new(&small, 4, true, Tuning::default()).chunks, 1);
    let thin = GemmConfig::<f32>::new(Op::N, Op::N, 100, 200, 4);
    let plan = Plan::new(&thin, 4, true, Tuning { chunk_bytes: 1, min_step: 128 });
    assert_eq!((plan.along, plan.chunks), (Along::Columns, 2));
}

#[test]
fn pack_and_unpack_touch_only_the_block() {
    let (ld, cols) = (7usize, 5usize);
    let src: Vec<f32> = (0..ld * cols).map(|i| i as f32).collect();
    let block = Block { row0: 2, rows: 3, col0: 1, cols: 3 };
    let mut packed = vec![0.0f32; block.len()];
    // SAFETY: the block lies within `src`.
    unsafe { pack(src.as_ptr(), ld, block, &mut packed) };
    assert_eq!(packed, [9.0, 10.0, 11.0, 16.0, 17.0, 18.0, 23.0, 24.0, 25.0]);
    let mut dst = vec![-1.0f32; ld * cols];
    // SAFETY: as above.
    unsafe { unpack(&packed, dst.as_mut_ptr(), ld, block) };
    for (i, &x) in dst.iter().enumerate() {
        let (r, c) = (i % ld, i / ld);
        let inside = (2..5).contains(&r) && (1..4).contains(&c);
        assert_eq!(x, if inside { i as f32 } else { -1.0 }, "element {i}");
    }
    // Large blocks go through the copy threads: same result.
    let (ld, cols) = (1000usize, 700usize);
    let src: Vec<f64> = (0..ld * cols).map(|i| i as f64).collect();
    let block = Block { row0: 1, rows: 998, col0: 3, cols: 690 };
    let mut packed = vec![0.0f64; block.len()];
    // SAFETY: the block lies within `src`.
    unsafe { pack(src.as_ptr(), ld, block, &mut packed) };
    assert!(packed.iter().enumerate().all(|(i, &x)| {
        let (r, c) = (i % block.rows, i / block.rows);
        x == ((1 + r) + (3 + c) * ld) as f64
    }));
}

/// A value for element `i` of a test matrix.
trait Fill: crate::Scalar {
    fn at(i: usize, salt: usize) -> Self;
    const NAN: Self;
    fn is_nan(self) -> bool;
    fn dist(self, other: Self) -> f64;
}
impl Fill for f32 {
    fn at(i: usize, salt: usize) -> f32 {
        ((i * 7 + salt * 13) % 17) as f32 / 8.0 - 1.0
    }
    const NAN: f32 = f32::NAN;
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn dist(self, other: f32) -> f64 {
        f64::from((self - other).abs())
    }
}
impl Fill for Complex<f64> {
    fn at(i: usize, salt: usize) -> Complex<f64> {
        Complex::new(f64::at(i, salt), f64::at(i + 3, salt + 1))
    }
    const NAN: Complex<f64> = Complex::new(f64::NAN, f64::NAN);
    fn is_nan(self) -> bool {
        self.re.is_nan()
    }
    fn dist(self, other: Complex<f64>) -> f64 {
        (self - other).norm()
    }
}
impl Fill for f64 {
    fn at(i: usize, salt: usize) -> f64 {
        ((i * 5 + salt * 11) % 19) as f64 / 8.0 - 1.0
    }
    const NAN: f64 = f64::NAN;
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn dist(self, other: f64) -> f64 {
        (self - other).abs()
    }
}

/// The emulated pipeline against the reference loops, C's gap rows poisoned
/// with NaN that must survive (and, with beta = 0, C's block too: never read).
fn pipeline_matches_the_reference<E: Fill>(tol: f64) {
    // The deep ones send the resident operand up in several pieces.
    let shapes = [(33, 261, 9), (261, 33, 9), (33, 261, 120), (261, 33, 120), (40, 40, 0), (1, 300, 3)];
    let mut checked = 0;
    for (m, n, k) in shapes {
        for (oa, ob) in OPS.iter().flat_map(|&a| OPS.iter().map(move |&b| (a, b))) {
            if !E::PRECISION.is_complex() && (oa == Op::C || ob == Op::C) {
                continue;
            }
            for beta in [E::ZERO, E::at(4, 2)] {
                let (ra, rb) = (if oa == Op::N { m } else { k }, if ob == Op::N { k } else { n });
                let (lda, ldb, ldc) = (ra.max(1) + 2, rb.max(1) + 1, m + 3);
                let cfg = GemmConfig::new(oa, ob, m as i64, n as i64, k as i64)
                    .alpha(E::at(1, 1))
                    .beta(beta)
                    .lda(lda as i64)
                    .ldb(ldb as i64)
                    .ldc(ldc as i64);
                let a: Vec<E> = (0..lda * if oa == Op::N { k } else { m }).map(|i| E::at(i, 1)).collect();
                let b: Vec<E> = (0..ldb * if ob == Op::N { n } else { k }).map(|i| E::at(i, 2)).collect();
                let nan = E::NAN;
                let c0: Vec<E> = (0..ldc * n)
                    .map(|i| if i % ldc >= m || beta == E::ZERO { nan } else { E::at(i, 3) })
                    .collect();
                let mut want = c0.clone();
                reference_gemm(&cfg, &a, &b, &mut want);
                for chunk in [1usize, 2000, usize::MAX] {
                    let mut c = c0.clone();
                    let cfg = crate::backend::unread_product(&cfg);
                    // SAFETY: the buffers hold the call's matrices.
                    let r = unsafe {
                        crate::emulated::run(&cfg, tiny(chunk), (a.as_ptr(), b.as_ptr(), c.as_mut_ptr()))
                    };
                    assert!(r.is_ok(), "{cfg:?}: {:?}", r.err().map(|e| e.0));
                    for (i, (&got, &w)) in c.iter().zip(&want).enumerate() {
                        if i % ldc >= m {
                            assert!(got.is_nan(), "gap element {i} written: {cfg:?}");
                        } else {
                            let err = got.dist(w);
                            assert!(err <= tol, "{cfg:?} chunk {chunk}: element {i} {got:?} vs {w:?}");
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 24);
}

#[test]
fn emulated_pipeline_f32() {
    pipeline_matches_the_reference::<f32>(1e-4);
}

#[test]
fn emulated_pipeline_z() {
    pipeline_matches_the_reference::<Complex<f64>>(1e-12);
}

/// After a failure at chunk `done`, [`Plan::rest`] is exactly the call over
/// the chunks not written: computing it on the CPU completes C.
#[test]
fn the_rest_of_a_call_completes_it() {
    for (oa, ob, m, n) in [(Op::N, Op::N, 9, 40), (Op::T, Op::T, 40, 9), (Op::N, Op::T, 40, 9)] {
        let k = 6;
        let (ra, rb) = (if oa == Op::N { m } else { k }, if ob == Op::N { k } else { n });
        let cfg = GemmConfig::new(oa, ob, m as i64, n as i64, k as i64)
            .beta(0.5f64)
            .lda(ra as i64)
            .ldb(rb as i64)
            .ldc(m as i64 + 1);
        let a: Vec<f64> = (0..ra * if oa == Op::N { k } else { m }).map(|i| f64::at(i, 1)).collect();
        let b: Vec<f64> = (0..rb * if ob == Op::N { n } else { k }).map(|i| f64::at(i, 2)).collect();
        let c0: Vec<f64> = (0..(m + 1) * n).map(|i| f64::at(i, 3)).collect();
        let mut want = c0.clone();
        reference_gemm(&cfg, &a, &b, &mut want);
        let plan = Plan::new(&cfg, 8, true, tiny(64));
        assert!(plan.chunks >= 3, "{plan:?}");
        for done in 0..plan.chunks {
            // Chunks before `done` final, the others as they were.
            let mut c = c0.clone();
            for i in 0..done {
                let block = plan.blocks(i)[2];
                for j in 0..block.cols {
                    for r in 0..block.rows {
                        let at = block.offset(m + 1) + j * (m + 1) + r;
                        c[at] = want[at];
                    }
                }
            }
            let (rest, (pa, pb, pc)) = plan.rest(&cfg, done, (a.as_ptr(), b.as_ptr(), c.as_mut_ptr()));
            let len = |p: *const f64, v: &[f64]| v.len() - (p as usize - v.as_ptr() as usize) / 8;
            // SAFETY: the pointers lie within the vectors, which hold the rest's extents.
            let (sa, sb, sc) = unsafe {
                (
                    std::slice::from_raw_parts(pa, len(pa, &a)),
                    std::slice::from_raw_parts(pb, len(pb, &b)),
                    std::slice::from_raw_parts_mut(pc, len(pc, &c)),
                )
            };
            reference_gemm(&rest, sa, sb, sc);
            assert_eq!(c, want, "{oa:?}{ob:?} done {done}");
        }
    }
}
