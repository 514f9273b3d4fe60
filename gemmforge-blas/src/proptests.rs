//! The entry points called as Rust functions with arbitrary arguments:
//! never a panic, an error reported exactly when the reference reports one
//! (checked against a transcription of `sgemm.f` and `cblas_sgemm.c`
//! written apart from [`crate::args`]), nothing computed on bad input, and
//! the reference's result on good input; for the LP64 symbols and the
//! ILP64 ones, whose `int64_t` sizes range past 32 bits to the extremes (a
//! valid call whose matrices could not be allocated here is skipped).

use std::ffi::{c_char, c_int, c_void};

use gemm_codegen::Op;
use gemm_host::reference::same_bits;
use gemm_host::{GemmConfig, Matrix};
use num_complex::Complex;
use proptest::prelude::*;

use crate::Scalar;
use crate::args::BlasInt;
use crate::args::tests::recording;
use crate::cpu::reference_gemm;
use crate::scalar::FortranGemm;

mod batch;

type C32 = Complex<f32>;

/// `sgemm.f`'s INFO for the arguments, 0 for a valid call.
fn fortran_info(ta: u8, tb: u8, [m, n, k, lda, ldb, ldc]: [i64; 6]) -> c_int {
    let (ta, tb) = (ta.to_ascii_uppercase(), tb.to_ascii_uppercase());
    let nrowa = if ta == b'N' { m } else { k };
    let nrowb = if tb == b'N' { k } else { n };
    let legal = |t: u8| matches!(t, b'N' | b'T' | b'C');
    [
        (!legal(ta), 1),
        (!legal(tb), 2),
        (m < 0, 3),
        (n < 0, 4),
        (k < 0, 5),
        (lda < nrowa.max(1), 8),
        (ldb < nrowb.max(1), 10),
        (ldc < m.max(1), 13),
    ]
    .into_iter()
    .find_map(|(bad, info)| bad.then_some(info))
    .unwrap_or(0)
}

/// `cblas_sgemm.c` and the reference `cblas_xerbla`'s position, 0 for valid.
fn cblas_position(layout: c_int, ta: c_int, tb: c_int, [m, n, k, lda, ldb, ldc]: [i64; 6]) -> c_int {
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
    let info = match layout {
        102 => fortran_info(a, b, [m, n, k, lda, ldb, ldc]),
        101 => fortran_info(b, a, [n, m, k, ldb, lda, ldc]),
        _ => return 1,
    };
    match (layout, info) {
        (_, 0) => 0,
        // The swapped call's M, N, LDA, LDB are the caller's N, M, ldb, lda.
        (101, 3) => 5,
        (101, 4) => 4,
        (101, 8) => 11,
        (101, 10) => 9,
        (_, i) => i + 1,
    }
}

/// The column-major call's buffers (sized to it, small integers; C NaN
/// where `beta = 0` lets it be). A matrix the call does not read (A and B
/// when `alpha = 0` or `k = 0`, every one in a quick return) gets a few
/// elements whatever its extent; `None` when one it reads spans more than
/// [`MAX_LEN`] (an ILP64 size: such a call is valid but cannot be given
/// its buffers here).
fn buffers<E: Scalar>(cfg: &GemmConfig<E>, seed: u64) -> Option<(Vec<E>, Vec<E>, Vec<E>)>
where
    f32: IntoReal<E::Real>,
{
    let quick = cfg.m == 0 || cfg.n == 0 || ((cfg.alpha == E::ZERO || cfg.k == 0) && cfg.beta == E::ONE);
    let product = !quick && cfg.alpha != E::ZERO && cfg.k != 0;
    let len = |m: Matrix, read: bool| match cfg.required_len(m) {
        len if !read => Some(len.min(4)),
        len => (len <= MAX_LEN).then_some(len),
    };
    let (la, lb, lc) = (len(Matrix::A, product)?, len(Matrix::B, product)?, len(Matrix::C, !quick)?);
    let mut x = seed;
    let (a, b) = (values(&mut x, la), values(&mut x, lb));
    let mut c = values(&mut x, lc);
    if cfg.beta == E::ZERO {
        c.iter_mut().for_each(|v| *v = gemm_host::reference::sentinel());
    }
    Some((a, b, c))
}

/// The most elements a test buffer gets.
const MAX_LEN: u64 = 1 << 16;

/// `len` (at least 1) small integers from the generator state `x`.
fn values<E: Scalar>(x: &mut u64, len: u64) -> Vec<E>
where
    f32: IntoReal<E::Real>,
{
    (0..len.max(1))
        .map(|_| {
            *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = ((*x >> 33) % 7) as f32 - 3.0;
            E::from_parts(v.into_real(), (v * 0.5).into_real())
        })
        .collect()
}

/// f32 → the element's real type.
trait IntoReal<R> {
    fn into_real(self) -> R;
}
impl IntoReal<f32> for f32 {
    fn into_real(self) -> f32 {
        self
    }
}
impl IntoReal<f64> for f32 {
    fn into_real(self) -> f64 {
        f64::from(self)
    }
}

/// Checks one call's outcome: the expected report (or none), and C either
/// untouched (error) or the reference's result.
fn check_outcome<E: Scalar>(
    reports: &[(String, c_int)],
    routine: &str,
    expected: c_int,
    before: &[E],
    after: &[E],
    reference: Option<&[E]>,
) -> Result<(), TestCaseError> {
    let same = |x: &[E], y: &[E]| x.iter().zip(y).all(|(&p, &q)| p == q || same_bits(p, q));
    if expected == 0 {
        prop_assert!(reports.is_empty(), "valid call reported {reports:?}");
        if let Some(want) = reference {
            prop_assert!(same(after, want), "C differs from the reference loops");
        }
    } else {
        prop_assert_eq!(reports, &[(routine.to_owned(), expected)][..]);
        prop_assert!(same(after, before), "C was written on bad input");
    }
    Ok(())
}

fn fortran_case<E: Scalar, I: BlasInt>(
    f: FortranGemm<E, I>,
    (ta, tb): (u8, u8),
    dims: [I; 6],
    (alpha, beta): (E, E),
    seed: u64,
) -> Result<(), TestCaseError>
where
    f32: IntoReal<E::Real>,
{
    let expected = fortran_info(ta, tb, dims.map(Into::into));
    let [m, n, k, lda, ldb, ldc] = dims;
    let cfg = (expected == 0).then(|| {
        let op = |t| crate::args::fortran_op(t).unwrap_or(Op::N);
        let d = |v: I| v.into();
        GemmConfig::new(op(ta), op(tb), d(m), d(n), d(k))
            .alpha(alpha)
            .beta(beta)
            .lda(d(lda))
            .ldb(d(ldb))
            .ldc(d(ldc))
    });
    let (a, b, mut c) = match &cfg {
        Some(cfg) => buffers(cfg, seed).ok_or_else(|| TestCaseError::reject("matrices past MAX_LEN"))?,
        None => (vec![E::ONE; 4], vec![E::ONE; 4], vec![E::ONE; 4]),
    };
    let before = c.clone();
    let reference = cfg.map(|cfg| {
        let mut want = c.clone();
        reference_gemm(&cfg, &a, &b, &mut want);
        want
    });
    let (ta, tb) = (ta as c_char, tb as c_char);
    let reports = recording(|| {
        // SAFETY: buffers sized to the call when it is valid (those it
        // does not read aside); an invalid call reads none of them.
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
                b.as_ptr(),
                &ldb,
                &beta,
                c.as_mut_ptr(),
                &ldc,
                1,
                1,
            )
        }
    });
    check_outcome(&reports, E::FORTRAN_NAME, expected, &before, &c, reference.as_deref())
}

/// A complex CBLAS `cblas_cgemm` of integer `I` (`cblas_cgemm`,
/// `cblas_cgemm64_`, `scipy_cblas_cgemm64_`).
type CblasComplex<I> = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    I,
    I,
    I,
    *const c_void,
    *const c_void,
    I,
    *const c_void,
    I,
    *const c_void,
    *mut c_void,
    I,
) -> ();

fn cblas_case<I: BlasInt>(
    f: CblasComplex<I>,
    (layout, ta, tb): (c_int, c_int, c_int),
    dims: [I; 6],
    (alpha, beta): (f32, f32),
    seed: u64,
) -> Result<(), TestCaseError> {
    let expected = cblas_position(layout, ta, tb, dims.map(Into::into));
    let [m, n, k, lda, ldb, ldc] = dims;
    let (al, be) = (C32::new(alpha, -1.0), C32::new(beta, 0.0));
    // The column-major call the reference makes, for buffers and the reference result.
    let cfg = (expected == 0).then(|| {
        let op = |t| crate::args::cblas_op(t).unwrap_or(Op::N);
        let d = |v: I| v.into();
        let layout = crate::args::cblas_layout(layout).unwrap_or_default();
        GemmConfig::with_layout(layout, op(ta), op(tb), d(m), d(n), d(k))
            .alpha(al)
            .beta(be)
            .lda(d(lda))
            .ldb(d(ldb))
            .ldc(d(ldc))
            .to_column_major()
    });
    let (first, second, mut c) = match &cfg {
        Some(cfg) => {
            buffers::<C32>(cfg, seed).ok_or_else(|| TestCaseError::reject("matrices past MAX_LEN"))?
        }
        None => (vec![C32::ONE; 4], vec![C32::ONE; 4], vec![C32::ONE; 4]),
    };
    let before = c.clone();
    let reference = cfg.map(|cfg| {
        let mut want = c.clone();
        reference_gemm(&cfg, &first, &second, &mut want);
        want
    });
    // The caller's A is the column-major call's second operand in a row-major call.
    let (a, b) = if layout == 101 { (&second, &first) } else { (&first, &second) };
    let ptr = |x: &Vec<C32>| x.as_ptr().cast::<c_void>();
    let scalar = |x: &C32| (x as *const C32).cast::<c_void>();
    let reports = recording(|| {
        // SAFETY: buffers sized to the call when it is valid (those it
        // does not read aside); an invalid call reads none.
        unsafe {
            f(
                layout,
                ta,
                tb,
                m,
                n,
                k,
                scalar(&al),
                ptr(a),
                lda,
                ptr(b),
                ldb,
                scalar(&be),
                c.as_mut_ptr().cast(),
                ldc,
            )
        }
    });
    check_outcome(&reports, "cblas_cgemm", expected, &before, &c, reference.as_deref())
}

fn any_char() -> impl Strategy<Value = u8> {
    prop::sample::select(vec![b'N', b'n', b'T', b't', b'C', b'c', b'X', b' ', 0])
}

fn any_dims() -> impl Strategy<Value = [c_int; 6]> {
    (-2..7, -2..7, -2..7, -1..9, -1..9, -1..9).prop_map(|(m, n, k, a, b, c)| [m, n, k, a, b, c])
}

/// Sizes as [`any_dims`], or a quarter of the time each an ILP64 value
/// around or past 32 bits (which a cut to `int` would change) or an extreme.
fn any_dims_64() -> impl Strategy<Value = [i64; 6]> {
    let big =
        [i64::MIN, -(1 << 32), -(1 << 31) - 1, (1 << 31) - 1, 1 << 31, 1 << 32, (1 << 32) + 1, i64::MAX];
    let any =
        move |small: std::ops::Range<i64>| prop_oneof![3 => small, 1 => prop::sample::select(big.to_vec())];
    (any(-2..7), any(-2..7), any(-2..7), any(-1..9), any(-1..9), any(-1..9))
        .prop_map(|(m, n, k, a, b, c)| [m, n, k, a, b, c])
}

/// CBLAS `Layout`, `TransA`, `TransB`, an invalid value among each.
fn any_enums() -> impl Strategy<Value = (c_int, c_int, c_int)> {
    (
        prop::sample::select(vec![101, 102, 0]),
        prop::sample::select(vec![111, 112, 113, 7]),
        prop::sample::select(vec![111, 112, 113, 114]),
    )
}

fn any_scalar() -> impl Strategy<Value = f32> {
    prop::sample::select(vec![0.0f32, 1.0, -2.0])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn dgemm_never_panics_nor_computes_on_bad_input(
        ta in any_char(), tb in any_char(), dims in any_dims(),
        alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        fortran_case::<f64, c_int>(crate::fortran::dgemm_, (ta, tb), dims, (alpha.into(), beta.into()), seed)?;
    }

    #[test]
    fn cgemm_never_panics_nor_computes_on_bad_input(
        ta in any_char(), tb in any_char(), dims in any_dims(),
        alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        let (alpha, beta) = (C32::new(alpha, 0.5), C32::new(beta, 0.0));
        fortran_case::<C32, c_int>(crate::fortran::cgemm_, (ta, tb), dims, (alpha, beta), seed)?;
    }

    #[test]
    fn cblas_never_panics_nor_computes_on_bad_input(
        enums in any_enums(), dims in any_dims(), alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        cblas_case::<c_int>(crate::cblas::cblas_cgemm, enums, dims, (alpha, beta), seed)?;
    }

    /// ILP64: sizes around and past 32 bits, and the extremes of `int64_t`.
    #[test]
    fn sgemm_64_never_panics_nor_computes_on_bad_input(
        ta in any_char(), tb in any_char(), dims in any_dims_64(),
        alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        fortran_case::<f32, i64>(crate::fortran::sgemm_64_, (ta, tb), dims, (alpha, beta), seed)?;
    }

    #[test]
    fn zgemm_64_never_panics_nor_computes_on_bad_input(
        ta in any_char(), tb in any_char(), dims in any_dims_64(),
        alpha in any_scalar(), beta in any_scalar(), seed in any::<u64>(),
    ) {
        let (alpha, beta) = (Complex::new(f64::from(alpha), 0.5), Complex::new(f64::from(beta), 0.0));
        fortran_case::<Complex<f64>, i64>(crate::fortran::zgemm_64_, (ta, tb), dims, (alpha, beta), seed)?;
    }

    #[test]
    fn cblas64_never_panics_nor_computes_on_bad_input(
        enums in any_enums(), dims in any_dims_64(), alpha in any_scalar(), beta in any_scalar(),
        seed in any::<u64>(), scipy in any::<bool>(),
    ) {
        let f = if scipy { crate::cblas::scipy_cblas_cgemm64_ } else { crate::cblas::cblas_cgemm64_ };
        cblas_case::<i64>(f, enums, dims, (alpha, beta), seed)?;
    }
}

/// Null scalars, which the reference would dereference, are reported at
/// their positions.
#[test]
fn null_scalars_are_reported_not_read() {
    let (n, one) = (b'N' as c_char, 1 as c_int);
    let (alpha, mut c) = (1.0f32, [5.0f32; 1]);
    let reports = recording(|| {
        // SAFETY: every non-null pointer is valid; the nulls are refused before use.
        unsafe {
            let a = [1.0f32];
            crate::fortran::sgemm_(
                &n,
                &n,
                std::ptr::null(),
                &one,
                &one,
                &alpha,
                a.as_ptr(),
                &one,
                a.as_ptr(),
                &one,
                &alpha,
                c.as_mut_ptr(),
                &one,
                1,
                1,
            );
            crate::fortran::sgemm_(
                &n,
                &n,
                &one,
                &one,
                &one,
                std::ptr::null(),
                a.as_ptr(),
                &one,
                a.as_ptr(),
                &one,
                &alpha,
                c.as_mut_ptr(),
                &one,
                1,
                1,
            );
            crate::cblas::cblas_zgemm(
                102,
                111,
                111,
                1,
                1,
                1,
                std::ptr::null(),
                a.as_ptr().cast(),
                1,
                a.as_ptr().cast(),
                1,
                std::ptr::null(),
                c.as_mut_ptr().cast(),
                1,
            );
        }
    });
    assert_eq!(reports, [("SGEMM ".to_owned(), 3), ("SGEMM ".to_owned(), 6), ("cblas_zgemm".to_owned(), 7)]);
    assert_eq!(c, [5.0]);
}
