//! The strided-batched extension symbols that MKL, OpenBLAS (0.3.x) and
//! NVPL share: Fortran `sgemm_batch_strided_` … `zgemm_batch_strided_`
//! (every argument by reference, the two hidden character lengths
//! appended, as [`crate::fortran`]'s) and CBLAS `cblas_sgemm_batch_strided`
//! … `cblas_zgemm_batch_strided` (real `alpha` and `beta` by value, complex
//! ones by pointer, as [`crate::cblas`]'s).
//!
//! For `i` in `0..batch_size`: `C_i := alpha·op(A_i)·op(B_i) + beta·C_i`,
//! with `A_i = A + i·stridea` (in elements), likewise B and C. A call is
//! checked as [`crate::args::batch`] describes, errors going to `xerbla_`
//! as `SGEMM_BATCH_STRIDED` or to `cblas_xerbla` as
//! `cblas_sgemm_batch_strided`, and run by [`backend::run_batch`]. As
//! everywhere, no panic crosses the boundary, and a null pointer where a
//! scalar is read is reported at its position instead of read.

#![allow(clippy::too_many_arguments)]

use std::ffi::{c_char, c_int, c_void};

use gemm_host::Layout;
use gemm_host::validate::Arg;
use num_complex::Complex;

use crate::args::batch::{self, BatchDims};
use crate::args::{self, CblasError, Dims};
use crate::backend::{self, Call};
use crate::fortran::{guard, read};
use crate::scalar::Scalar;

/// The body of the four Fortran symbols.
///
/// # Safety
/// The contract of `xGEMM_BATCH_STRIDED` (see [`sgemm_batch_strided_`]).
unsafe fn fortran<E: Scalar>(
    routine: &str,
    (transa, transb): (*const c_char, *const c_char),
    (m, n, k): (*const c_int, *const c_int, *const c_int),
    (alpha, a, lda, stridea): (*const E, *const E, *const c_int, *const c_int),
    (b, ldb, strideb): (*const E, *const c_int, *const c_int),
    (beta, c, ldc, stridec): (*const E, *mut E, *const c_int, *const c_int),
    batch_size: *const c_int,
) {
    let pos = batch::fortran_position;
    let checked = (|| {
        // SAFETY: every pointer is valid or null by the caller's contract;
        // `read` checks null. Read in the arguments' order.
        unsafe {
            let (ta, tb) = (read(transa).ok_or(pos(Arg::OpA))?, read(transb).ok_or(pos(Arg::OpB))?);
            let (m, n, k) =
                (read(m).ok_or(pos(Arg::M))?, read(n).ok_or(pos(Arg::N))?, read(k).ok_or(pos(Arg::K))?);
            let alpha = read(alpha).ok_or(pos(Arg::Alpha))?;
            let (lda, stridea) = (read(lda).ok_or(pos(Arg::Lda))?, read(stridea).ok_or(pos(Arg::StrideA))?);
            let (ldb, strideb) = (read(ldb).ok_or(pos(Arg::Ldb))?, read(strideb).ok_or(pos(Arg::StrideB))?);
            let beta = read(beta).ok_or(pos(Arg::Beta))?;
            let (ldc, stridec) = (read(ldc).ok_or(pos(Arg::Ldc))?, read(stridec).ok_or(pos(Arg::StrideC))?);
            let count = read(batch_size).ok_or(pos(Arg::BatchCount))?;
            let dims = Dims::new(m, n, k, lda, ldb, ldc);
            let strides = BatchDims::new(stridea, strideb, stridec, count);
            batch::check_fortran_batch(ta as u8, tb as u8, dims, strides, alpha, beta)
        }
    })();
    match checked {
        Err(info) => args::report_fortran::<c_int>(E::FORTRAN_BATCH_NAME, info),
        Ok((cfg, strides)) => {
            let call = Call { routine, cfg, a, b, c, layout: Layout::ColMajor };
            // SAFETY: a checked call; the pointers are the caller's contract.
            unsafe { backend::run_batch(backend::config(), &call, &strides) };
        }
    }
}

macro_rules! fortran_batch {
    ($name:ident, $t:ty, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// MKL's contract: every scalar pointer valid, A, B and C valid for
        /// every problem's matrix (`(batch_size − 1)·stride` elements and one
        /// problem's extent; A and B may be anything when `alpha = 0` or
        /// `k = 0`, C when `m = 0` or `n = 0`), C's problems overlapping
        /// neither A's nor B's.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            transa: *const c_char,
            transb: *const c_char,
            m: *const c_int,
            n: *const c_int,
            k: *const c_int,
            alpha: *const $t,
            a: *const $t,
            lda: *const c_int,
            stridea: *const c_int,
            b: *const $t,
            ldb: *const c_int,
            strideb: *const c_int,
            beta: *const $t,
            c: *mut $t,
            ldc: *const c_int,
            stridec: *const c_int,
            batch_size: *const c_int,
            _transa_len: usize,
            _transb_len: usize,
        ) {
            guard(stringify!($name), || {
                // SAFETY: this function's contract.
                unsafe {
                    fortran(
                        stringify!($name),
                        (transa, transb),
                        (m, n, k),
                        (alpha, a, lda, stridea),
                        (b, ldb, strideb),
                        (beta, c, ldc, stridec),
                        batch_size,
                    )
                }
            })
        }
    };
}

fortran_batch!(
    sgemm_batch_strided_,
    f32,
    "`SGEMM_BATCH_STRIDED`: `batch_size` SGEMMs, `stride` elements apart."
);
fortran_batch!(
    dgemm_batch_strided_,
    f64,
    "`DGEMM_BATCH_STRIDED`: `batch_size` DGEMMs, `stride` elements apart."
);
fortran_batch!(
    cgemm_batch_strided_,
    Complex<f32>,
    "`CGEMM_BATCH_STRIDED`: `batch_size` CGEMMs, `stride` elements apart."
);
fortran_batch!(
    zgemm_batch_strided_,
    Complex<f64>,
    "`ZGEMM_BATCH_STRIDED`: `batch_size` ZGEMMs, `stride` elements apart."
);

/// The body of the four CBLAS symbols, with `alpha` and `beta` read (or
/// `None` for a null pointer).
///
/// # Safety
/// The contract of `cblas_xgemm_batch_strided` (see
/// [`cblas_sgemm_batch_strided`]).
unsafe fn cblas<E: Scalar>(
    routine: &str,
    (layout, transa, transb): (c_int, c_int, c_int),
    dims: Dims,
    strides: BatchDims,
    (alpha, beta): (Option<E>, Option<E>),
    (a, b, c): (*const E, *const E, *mut E),
) {
    // A null `alpha` or `beta` is reported after the checks, as in [`crate::cblas`].
    let null =
        |arg| CblasError { position: batch::cblas_position(Layout::ColMajor, arg), detail: String::new() };
    let checked = batch::check_cblas_batch(layout, transa, transb, dims, strides, E::ZERO, E::ZERO).and_then(
        |(cfg, strides)| {
            let (alpha, beta) =
                (alpha.ok_or_else(|| null(Arg::Alpha))?, beta.ok_or_else(|| null(Arg::Beta))?);
            Ok((cfg.alpha(alpha).beta(beta), strides))
        },
    );
    match checked {
        Err(error) => args::report_cblas(E::CBLAS_BATCH_NAME, &error),
        Ok((cfg, strides)) => {
            // The column-major call takes B as its A in a row-major call.
            let (layout, (a, b)) = if layout == args::CBLAS_ROW_MAJOR {
                (Layout::RowMajor, (b, a))
            } else {
                (Layout::ColMajor, (a, b))
            };
            let call = Call { routine, cfg, a, b, c, layout };
            // SAFETY: a checked call; the pointers are the caller's contract.
            unsafe { backend::run_batch(backend::config(), &call, &strides) };
        }
    }
}

macro_rules! cblas_batch_real {
    ($name:ident, $t:ty) => {
        #[doc = concat!("`", stringify!($name), "`: `batch_size` GEMMs `stride` elements apart, row- or column-major.")]
        ///
        /// # Safety
        /// MKL's contract: A, B, C valid for every problem's matrix
        /// (`(batch_size − 1)·stride` elements and one problem's extent; A
        /// and B may be anything when `alpha = 0` or `K = 0`), C's problems
        /// overlapping neither A's nor B's.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            transa: c_int,
            transb: c_int,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: $t,
            a: *const $t,
            lda: c_int,
            stridea: c_int,
            b: *const $t,
            ldb: c_int,
            strideb: c_int,
            beta: $t,
            c: *mut $t,
            ldc: c_int,
            stridec: c_int,
            batch_size: c_int,
        ) {
            guard(stringify!($name), || {
                let dims = Dims::new(m, n, k, lda, ldb, ldc);
                let strides = BatchDims::new(stridea, strideb, stridec, batch_size);
                let scalars = (Some(alpha), Some(beta));
                // SAFETY: this function's contract.
                unsafe { cblas(stringify!($name), (layout, transa, transb), dims, strides, scalars, (a, b, c)) }
            })
        }
    };
}

macro_rules! cblas_batch_complex {
    ($name:ident, $t:ty) => {
        #[doc = concat!("`", stringify!($name), "`: `batch_size` GEMMs `stride` elements apart, row- or column-major, `alpha` and `beta` by pointer.")]
        ///
        /// # Safety
        /// MKL's contract: `alpha` and `beta` point to complex numbers, A, B,
        /// C are valid for every problem's matrix (`(batch_size − 1)·stride`
        /// elements and one problem's extent; A and B may be anything when
        /// `alpha = 0` or `K = 0`), C's problems overlapping neither A's nor B's.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            transa: c_int,
            transb: c_int,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const c_void,
            a: *const c_void,
            lda: c_int,
            stridea: c_int,
            b: *const c_void,
            ldb: c_int,
            strideb: c_int,
            beta: *const c_void,
            c: *mut c_void,
            ldc: c_int,
            stridec: c_int,
            batch_size: c_int,
        ) {
            guard(stringify!($name), || {
                let dims = Dims::new(m, n, k, lda, ldb, ldc);
                let strides = BatchDims::new(stridea, strideb, stridec, batch_size);
                // SAFETY: this function's contract (null checked by `read`).
                let scalars = unsafe { (read(alpha.cast::<$t>()), read(beta.cast::<$t>())) };
                let ptrs = (a.cast::<$t>(), b.cast::<$t>(), c.cast::<$t>());
                // SAFETY: this function's contract.
                unsafe { cblas(stringify!($name), (layout, transa, transb), dims, strides, scalars, ptrs) }
            })
        }
    };
}

cblas_batch_real!(cblas_sgemm_batch_strided, f32);
cblas_batch_real!(cblas_dgemm_batch_strided, f64);
cblas_batch_complex!(cblas_cgemm_batch_strided, Complex<f32>);
cblas_batch_complex!(cblas_zgemm_batch_strided, Complex<f64>);
