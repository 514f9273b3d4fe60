//! The strided-batched entry points called with arbitrary arguments: never
//! a panic, an error reported exactly when (and where) a transcription of
//! the rules written apart from [`crate::args::batch`] says (Cs sharing an
//! element found by listing their elements), no C written on bad input,
//! and the reference loops' result, problem by problem, on good input.

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void};

use gemm_codegen::Op;
use gemm_host::validate::StridedBatch;
use gemm_host::{GemmConfig, Layout, Matrix};
use num_complex::Complex;
use proptest::prelude::*;

use super::{C32, IntoReal, any_char, any_dims, any_scalar, check_outcome, fortran_info, values};
use crate::Scalar;
use crate::args::tests::recording;
use crate::cpu::reference_gemm;

/// `[stridea, strideb, stridec, batch_size]`.
type Batch = [c_int; 4];
/// Three and four integers, as strategies give them.
type Sizes = (c_int, c_int, c_int);
type Sizes4 = (c_int, c_int, c_int, c_int);

/// Whether two of the `count` Cs (`m × n`, leading dimension `ldc`,
/// `stride` apart) share an element, by listing them.
fn cs_overlap(m: c_int, n: c_int, ldc: c_int, stride: c_int, count: c_int) -> bool {
    let mut seen = HashSet::new();
    (0..count.max(0)).any(|p| {
        (0..n.max(0)).any(|j| {
            (0..m.max(0)).any(|i| !seen.insert(i64::from(p) * i64::from(stride) + i64::from(i + j * ldc)))
        })
    })
}

/// `xGEMM_BATCH_STRIDED`'s INFO, 0 for a valid call: `sgemm.f`'s rules at
/// this prototype's positions, then the strides, the count, disjoint Cs.
fn fortran_batch_info(ta: u8, tb: u8, dims: [c_int; 6], [sa, sb, sc, count]: Batch) -> c_int {
    let [m, n, _, _, _, ldc] = dims;
    let single = match fortran_info(ta, tb, dims.map(i64::from)) {
        10 => 11,
        13 => 15,
        info => info,
    };
    [
        (single != 0, single),
        (sa < 0, 9),
        (sb < 0, 12),
        (sc < 0, 16),
        (count < 0, 17),
        (cs_overlap(m, n, ldc, sc, count), 16),
    ]
    .into_iter()
    .find_map(|(bad, info)| bad.then_some(info))
    .unwrap_or(0)
}

/// `cblas_xgemm_batch_strided`'s position, 0 for valid: the enums, then
/// the (for a row-major call swapped) Fortran call's rules, named as the
/// caller's arguments.
fn cblas_batch_position(layout: c_int, ta: c_int, tb: c_int, dims: [c_int; 6], batch: Batch) -> c_int {
    let letter = |t: c_int| match t {
        111 => Some(b'N'),
        112 => Some(b'T'),
        113 => Some(b'C'),
        _ => None,
    };
    let (Some(a), Some(b)) = (letter(ta), letter(tb)) else {
        return match (layout, letter(ta)) {
            (101 | 102, None) => 2,
            (101 | 102, Some(_)) => 3,
            _ => 1,
        };
    };
    let [m, n, k, lda, ldb, ldc] = dims;
    let [sa, sb, sc, count] = batch;
    let info = match layout {
        102 => fortran_batch_info(a, b, dims, batch),
        101 => fortran_batch_info(b, a, [n, m, k, ldb, lda, ldc], [sb, sa, sc, count]),
        _ => return 1,
    };
    match (layout, info) {
        (_, 0) => 0,
        // The swapped call's M, N, LDA, STRIDEA, LDB, STRIDEB are the
        // caller's N, M, ldb, strideb, lda, stridea.
        (101, 3) => 5,
        (101, 4) => 4,
        (101, 8) => 12,
        (101, 9) => 13,
        (101, 11) => 9,
        (101, 12) => 10,
        (_, i) => i + 1,
    }
}

/// Buffers holding every problem of the column-major `cfg` and `batch`
/// (small integers; C NaN where `beta = 0` lets it be), and C as the
/// reference loops leave it, problem by problem.
fn batch_buffers<E: Scalar>(cfg: &GemmConfig<E>, batch: &StridedBatch, seed: u64) -> [Vec<E>; 4]
where
    f32: IntoReal<E::Real>,
{
    let span = |one: u64, stride: i64| match batch.count as u64 {
        0 => 0,
        _ if one == 0 => 0,
        count => (count - 1) * stride as u64 + one,
    };
    let mut x = seed;
    let a = values(&mut x, span(cfg.required_len(Matrix::A), batch.stride_a));
    let b = values(&mut x, span(cfg.required_len(Matrix::B), batch.stride_b));
    let mut c = values(&mut x, span(cfg.required_len(Matrix::C), batch.stride_c));
    if cfg.beta == E::ZERO {
        c.iter_mut().for_each(|v| *v = gemm_host::reference::sentinel());
    }
    let mut want = c.clone();
    for p in 0..batch.count as usize {
        let at = |stride: i64| p * stride as usize;
        let (pa, pb) =
            (a.get(at(batch.stride_a)..).unwrap_or(&[]), b.get(at(batch.stride_b)..).unwrap_or(&[]));
        let pc = want.get_mut(at(batch.stride_c)..).unwrap_or(&mut []);
        reference_gemm(cfg, pa, pb, pc);
    }
    [a, b, c, want]
}

/// Strides and counts, each negative about half the time.
fn any_batch() -> impl Strategy<Value = Batch> {
    let maybe_negative = |max| prop_oneof![Just(-1), 0..max];
    (maybe_negative(40), maybe_negative(40), maybe_negative(40), maybe_negative(5))
        .prop_map(|(a, b, c, n)| [a, b, c, n])
}

/// A third each: arbitrary dimensions and batch; valid leading dimensions
/// (for any ops and layout) with an arbitrary batch, so that the batch's
/// rules meet each other; valid leading dimensions with non-negative
/// strides, C's about one C's extent (sharing elements or not), so that
/// batches of several problems run.
fn any_call() -> impl Strategy<Value = ([c_int; 6], Batch)> {
    let valid_dims = || {
        ((0..6, 0..6, 0..6), (0..3, 0..3, 0..3)).prop_map(|((m, n, k), (pa, pb, pc)): (Sizes, Sizes)| {
            [m, n, k, m.max(k).max(1) + pa, k.max(n).max(1) + pb, m.max(n).max(1) + pc]
        })
    };
    let stride = || prop_oneof![Just(0), 1..40];
    let running = (valid_dims(), (stride(), stride(), -3..4, 0..5)).prop_map(
        |(dims, (sa, sb, dc, count)): ([c_int; 6], Sizes4)| {
            let [m, n, _, _, _, ldc] = dims;
            (dims, [sa, sb, (ldc * m.max(n) + dc).max(0), count])
        },
    );
    prop_oneof![(any_dims(), any_batch()), (valid_dims(), any_batch()), running]
}

fn fortran_batch_case<E: Scalar>(
    f: crate::scalar::FortranGemmBatch<E>,
    (ta, tb): (u8, u8),
    dims: [c_int; 6],
    batch: Batch,
    (alpha, beta): (E, E),
    seed: u64,
) -> Result<(), TestCaseError>
where
    f32: IntoReal<E::Real>,
{
    let expected = fortran_batch_info(ta, tb, dims, batch);
    let [m, n, k, lda, ldb, ldc] = dims;
    let [sa, sb, sc, count] = batch;
    let [a, b, mut c, want] = match expected {
        0 => {
            let op = |t| crate::args::fortran_op(t).unwrap_or(Op::N);
            let d = i64::from;
            let cfg = GemmConfig::new(op(ta), op(tb), d(m), d(n), d(k))
                .alpha(alpha)
                .beta(beta)
                .lda(d(lda))
                .ldb(d(ldb))
                .ldc(d(ldc));
            let strided = StridedBatch { count: d(count), stride_a: d(sa), stride_b: d(sb), stride_c: d(sc) };
            batch_buffers(&cfg, &strided, seed)
        }
        _ => [vec![E::ONE; 4], vec![E::ONE; 4], vec![E::ONE; 4], vec![]],
    };
    let before = c.clone();
    let (ta, tb) = (ta as c_char, tb as c_char);
    let reports = recording(|| {
        // SAFETY: buffers hold every problem when the call is valid; an
        // invalid call reads none of them.
        unsafe {
            f(
                &ta,
                &tb,
                &m,
                &n,
                &k,
                &alpha,
                a.as_ptr(),
                &lda,
                &sa,
                b.as_ptr(),
                &ldb,
                &sb,
                &beta,
                c.as_mut_ptr(),
                &ldc,
                &sc,
                &count,
                1,
                1,
            )
        }
    });
    let reference = (expected == 0).then_some(&want[..]);
    check_outcome(&reports, E::FORTRAN_BATCH_NAME, expected, &before, &c, reference)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn sgemm_batch_strided_never_panics_nor_computes_on_bad_input(
        ta in any_char(), tb in any_char(), (dims, batch) in any_call(),
        alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        let f = crate::batch::sgemm_batch_strided_;
        fortran_batch_case::<f32>(f, (ta, tb), dims, batch, (alpha, beta), seed)?;
    }

    #[test]
    fn zgemm_batch_strided_never_panics_nor_computes_on_bad_input(
        ta in any_char(), tb in any_char(), (dims, batch) in any_call(),
        alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        let (alpha, beta) = (Complex::new(f64::from(alpha), 0.5), Complex::new(f64::from(beta), 0.0));
        let f = crate::batch::zgemm_batch_strided_;
        fortran_batch_case::<Complex<f64>>(f, (ta, tb), dims, batch, (alpha, beta), seed)?;
    }

    #[test]
    fn cblas_batch_never_panics_nor_computes_on_bad_input(
        layout in prop::sample::select(vec![101, 102, 0]),
        ta in prop::sample::select(vec![111, 112, 113, 7]),
        tb in prop::sample::select(vec![111, 112, 113, 114]),
        (dims, batch) in any_call(), alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        let expected = cblas_batch_position(layout, ta, tb, dims, batch);
        let [m, n, k, lda, ldb, ldc] = dims;
        let [sa, sb, sc, count] = batch;
        let (al, be) = (C32::new(alpha, -1.0), C32::new(beta, 0.0));
        // The column-major call the reference makes, for buffers and the reference result.
        let [first, second, mut c, want] = match expected {
            0 => {
                let op = |t| crate::args::cblas_op(t).unwrap_or(Op::N);
                let d = i64::from;
                let layout = crate::args::cblas_layout(layout).unwrap_or_default();
                let cfg = GemmConfig::with_layout(layout, op(ta), op(tb), d(m), d(n), d(k))
                    .alpha(al).beta(be).lda(d(lda)).ldb(d(ldb)).ldc(d(ldc))
                    .to_column_major();
                let (sa, sb) = if layout == Layout::RowMajor { (sb, sa) } else { (sa, sb) };
                let strided = StridedBatch { count: d(count), stride_a: d(sa), stride_b: d(sb), stride_c: d(sc) };
                batch_buffers::<C32>(&cfg, &strided, seed)
            }
            _ => [vec![C32::ONE; 4], vec![C32::ONE; 4], vec![C32::ONE; 4], vec![]],
        };
        let before = c.clone();
        // The caller's A is the column-major call's second operand in a row-major call.
        let (a, b) = if layout == 101 { (&second, &first) } else { (&first, &second) };
        let ptr = |x: &Vec<C32>| x.as_ptr().cast::<c_void>();
        let reports = recording(|| {
            // SAFETY: buffers hold every problem when the call is valid; an invalid call reads none.
            unsafe {
                crate::batch::cblas_cgemm_batch_strided(
                    layout, ta, tb, m, n, k, (&al as *const C32).cast(), ptr(a), lda, sa, ptr(b), ldb, sb,
                    (&be as *const C32).cast(), c.as_mut_ptr().cast(), ldc, sc, count,
                )
            }
        });
        let reference = (expected == 0).then_some(&want[..]);
        check_outcome(&reports, "cblas_cgemm_batch_strided", expected, &before, &c, reference)?;
    }
}

/// The transcription agrees with positions checked by hand (the C
/// program's cases): a check of the check.
#[test]
fn the_transcription_matches_known_positions() {
    assert_eq!(fortran_batch_info(b'N', b'N', [3, 2, 4, 3, 4, 3], [0, 0, 5, 2]), 16);
    assert_eq!(fortran_batch_info(b'N', b'N', [3, 2, 4, 3, 4, 6], [0, 0, 3, 2]), 0);
    assert_eq!(fortran_batch_info(b'N', b'T', [3, 5, 4, 3, 4, 0], [-1; 4]), 11);
    assert_eq!(cblas_batch_position(101, 111, 111, [3, 4, 5, 5, 4, 4], [-1, -1, -1, -1]), 13);
    assert_eq!(cblas_batch_position(101, 111, 111, [3, 4, 5, 4, 3, 4], [0; 4]), 12);
    assert_eq!(cblas_batch_position(101, 111, 111, [3, 4, 5, 5, 4, 4], [0, 0, 11, 2]), 17);
}
