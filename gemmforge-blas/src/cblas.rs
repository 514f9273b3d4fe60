//! The CBLAS symbols, `cblas_sgemm` … `cblas_zgemm`, with the reference
//! CBLAS's prototypes (`CBLAS_LAYOUT` and `CBLAS_TRANSPOSE` as `int`, real
//! `alpha` and `beta` by value, complex ones by pointer, `int` dimensions),
//! their ILP64 twins `cblas_sgemm64_` … `cblas_zgemm64_` (`int64_t` `M`,
//! `N`, `K`, `lda`, `ldb`, `ldc`; the enums stay `int`: the names of
//! OpenBLAS's `INTERFACE64` builds, which Julia's libblastrampoline and
//! Reference-LAPACK's ILP64 builds use too), the same under the names
//! NumPy ≥ 2 calls in its bundled `libscipy_openblas64_`
//! (`scipy_cblas_sgemm64_` … `scipy_cblas_zgemm64_`: a pip-installed
//! NumPy's `a @ b` comes here when this library is preloaded), and
//! `cblas_xerbla`.
//!
//! A call is checked as [`crate::args::check_cblas`] describes and run as
//! the column-major call the reference CBLAS makes; one body serves every
//! interface, and one macro generates each type's three symbols. Errors of
//! every interface go to `cblas_xerbla` with the reference's routine name
//! (`cblas_sgemm`). As in [`crate::fortran`], no panic crosses the
//! boundary, and a null `alpha` or `beta` of a complex routine is reported
//! (positions 7 and 12) instead of read.

#![allow(clippy::too_many_arguments)]

use std::ffi::{CStr, c_char, c_int, c_void};

use gemm_host::Layout;
use num_complex::Complex;

use crate::args::{self, CblasError, Dims};
use crate::backend::{self, Call};
use crate::fortran::{guard, read};
use crate::scalar::Scalar;

/// The body of the CBLAS symbols, with the integers widened ([`Dims`])
/// and `alpha` and `beta` read (or `None` for a null pointer).
///
/// # Safety
/// The reference CBLAS `cblas_xgemm`'s contract.
unsafe fn gemm<E: Scalar>(
    routine: &str,
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
            let call = Call { routine, cfg, a, b, c, layout };
            // SAFETY: a checked call; the pointers are the caller's contract.
            unsafe { backend::run(backend::config(), &call) };
        }
    }
}

/// What the doc comments say of each interface's dimensions.
macro_rules! interface_note {
    (c_int) => {
        ""
    };
    (i64) => {
        " ILP64: `M`, `N`, `K`, `lda`, `ldb`, `ldc` are `int64_t`."
    };
}

macro_rules! cblas_real {
    ($t:ty, $lp64:ident, [$($ilp64:ident),+]) => {
        cblas_real!(@symbol $lp64, $t, c_int);
        $(cblas_real!(@symbol $ilp64, $t, i64);)+
    };
    (@symbol $name:ident, $t:ty, $int:tt) => {
        #[doc = concat!(
            "`", stringify!($name), "`: `C := alpha·op(A)·op(B) + beta·C`, row- or column-major.",
            interface_note!($int)
        )]
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
            m: $int,
            n: $int,
            k: $int,
            alpha: $t,
            a: *const $t,
            lda: $int,
            b: *const $t,
            ldb: $int,
            beta: $t,
            c: *mut $t,
            ldc: $int,
        ) {
            guard(stringify!($name), || {
                let dims = Dims::new(m, n, k, lda, ldb, ldc);
                let enums = (layout, transa, transb);
                // SAFETY: this function's contract.
                unsafe { gemm(stringify!($name), enums, dims, Some(alpha), Some(beta), (a, b, c)) }
            })
        }
    };
}

macro_rules! cblas_complex {
    ($t:ty, $lp64:ident, [$($ilp64:ident),+]) => {
        cblas_complex!(@symbol $lp64, $t, c_int);
        $(cblas_complex!(@symbol $ilp64, $t, i64);)+
    };
    (@symbol $name:ident, $t:ty, $int:tt) => {
        #[doc = concat!(
            "`", stringify!($name), "`: `C := alpha·op(A)·op(B) + beta·C`, row- or column-major, ",
            "`alpha` and `beta` by pointer.", interface_note!($int)
        )]
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
            m: $int,
            n: $int,
            k: $int,
            alpha: *const c_void,
            a: *const c_void,
            lda: $int,
            b: *const c_void,
            ldb: $int,
            beta: *const c_void,
            c: *mut c_void,
            ldc: $int,
        ) {
            guard(stringify!($name), || {
                let dims = Dims::new(m, n, k, lda, ldb, ldc);
                // SAFETY: this function's contract (null checked by `read`).
                let (alpha, beta) = unsafe { (read(alpha.cast::<$t>()), read(beta.cast::<$t>())) };
                let ptrs = (a.cast::<$t>(), b.cast::<$t>(), c.cast::<$t>());
                let enums = (layout, transa, transb);
                // SAFETY: this function's contract.
                unsafe { gemm(stringify!($name), enums, dims, alpha, beta, ptrs) }
            })
        }
    };
}

cblas_real!(f32, cblas_sgemm, [cblas_sgemm64_, scipy_cblas_sgemm64_]);
cblas_real!(f64, cblas_dgemm, [cblas_dgemm64_, scipy_cblas_dgemm64_]);
cblas_complex!(Complex<f32>, cblas_cgemm, [cblas_cgemm64_, scipy_cblas_cgemm64_]);
cblas_complex!(Complex<f64>, cblas_zgemm, [cblas_zgemm64_, scipy_cblas_zgemm64_]);

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
