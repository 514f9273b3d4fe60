//! The CBLAS symbols, `cblas_sgemm` … `cblas_zgemm`, with the reference
//! CBLAS's prototypes (`CBLAS_LAYOUT` and `CBLAS_TRANSPOSE` as `int`, real
//! `alpha` and `beta` by value, complex ones by pointer, `int` dimensions),
//! and `cblas_xerbla`.
//!
//! A call is checked as [`crate::args::check_cblas`] describes and run as
//! the column-major call the reference CBLAS makes. As in [`crate::fortran`],
//! no panic crosses the boundary, and a null `alpha` or `beta` of a complex
//! routine is reported (positions 7 and 12) instead of read.

#![allow(clippy::too_many_arguments)]

use std::ffi::{CStr, c_char, c_int, c_void};

use gemm_host::Layout;
use num_complex::Complex;

use crate::args::{self, CblasError, Dims};
use crate::backend::{self, Call};
use crate::fortran::{guard, read};
use crate::scalar::Scalar;

/// The body of the four CBLAS symbols, with `alpha` and `beta` read (or
/// `None` for a null pointer).
///
/// # Safety
/// The reference CBLAS `cblas_xgemm`'s contract.
unsafe fn gemm<E: Scalar>(
    (layout, transa, transb): (c_int, c_int, c_int),
    dims: Dims,
    alpha: Option<E>,
    beta: Option<E>,
    (a, b, c): (*const E, *const E, *mut E),
) {
    let null = |position| CblasError { position, detail: String::new() };
    let checked = args::check_cblas(layout, transa, transb, dims, E::ZERO, E::ZERO)
        .and_then(|cfg| Ok(cfg.alpha(alpha.ok_or_else(|| null(7))?).beta(beta.ok_or_else(|| null(12))?)));
    match checked {
        Err(error) => args::report_cblas(E::CBLAS_NAME, &error),
        Ok(cfg) => {
            // The column-major call takes B as its A in a row-major call.
            let (layout, (a, b)) = if layout == args::CBLAS_ROW_MAJOR {
                (Layout::RowMajor, (b, a))
            } else {
                (Layout::ColMajor, (a, b))
            };
            let call = Call { routine: E::CBLAS_NAME, cfg, a, b, c, layout };
            // SAFETY: a checked call; the pointers are the caller's contract.
            unsafe { backend::run(backend::config(), &call) };
        }
    }
}

macro_rules! cblas_real {
    ($name:ident, $t:ty) => {
        #[doc = concat!("`", stringify!($name), "`: `C := alpha·op(A)·op(B) + beta·C`, row- or column-major.")]
        ///
        /// # Safety
        /// The reference CBLAS's contract: A, B, C valid for their
        /// matrices' extents (A and B may be anything when `alpha = 0` or
        /// `K = 0`), C overlapping neither A nor B.
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
            b: *const $t,
            ldb: c_int,
            beta: $t,
            c: *mut $t,
            ldc: c_int,
        ) {
            guard(stringify!($name), || {
                let dims = Dims::new(m, n, k, lda, ldb, ldc);
                // SAFETY: this function's contract.
                unsafe { gemm((layout, transa, transb), dims, Some(alpha), Some(beta), (a, b, c)) }
            })
        }
    };
}

macro_rules! cblas_complex {
    ($name:ident, $t:ty) => {
        #[doc = concat!("`", stringify!($name), "`: `C := alpha·op(A)·op(B) + beta·C`, row- or column-major, `alpha` and `beta` by pointer.")]
        ///
        /// # Safety
        /// The reference CBLAS's contract: `alpha` and `beta` point to
        /// complex numbers, A, B, C are valid for their matrices' extents
        /// (A and B may be anything when `alpha = 0` or `K = 0`), C
        /// overlapping neither A nor B.
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
            b: *const c_void,
            ldb: c_int,
            beta: *const c_void,
            c: *mut c_void,
            ldc: c_int,
        ) {
            guard(stringify!($name), || {
                let dims = Dims::new(m, n, k, lda, ldb, ldc);
                // SAFETY: this function's contract (null checked by `read`).
                let (alpha, beta) = unsafe { (read(alpha.cast::<$t>()), read(beta.cast::<$t>())) };
                let ptrs = (a.cast::<$t>(), b.cast::<$t>(), c.cast::<$t>());
                // SAFETY: this function's contract.
                unsafe { gemm((layout, transa, transb), dims, alpha, beta, ptrs) }
            })
        }
    };
}

cblas_real!(cblas_sgemm, f32);
cblas_real!(cblas_dgemm, f64);
cblas_complex!(cblas_cgemm, Complex<f32>);
cblas_complex!(cblas_zgemm, Complex<f64>);

/// The reference `cblas_xerbla`: prints `Parameter 4 to routine
/// cblas_sgemm was incorrect` and `form` (this library passes it formatted)
/// on stderr, then returns where the reference exits. A program's own
/// `cblas_xerbla` replaces it. Declared variadic in C, as the reference
/// prototype; the arguments after `form` are not read.
///
/// # Safety
/// `rout` and `form` are null or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cblas_xerbla(info: c_int, rout: *const c_char, form: *const c_char) {
    guard("cblas_xerbla", || {
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: a NUL-terminated string by the caller's contract.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        args::print_cblas_error(info, &text(rout), &text(form));
    })
}
