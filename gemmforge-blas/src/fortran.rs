//! The Fortran symbols: `sgemm_`, `dgemm_`, `cgemm_`, `zgemm_` with the
//! reference BLAS's ABI (gfortran's: every argument by reference, the
//! character arguments' lengths appended as hidden `size_t`s, which this
//! library never reads, so C callers that omit them are served too), and
//! `xerbla_`.
//!
//! No panic crosses the boundary: every body runs under
//! [`std::panic::catch_unwind`], and a panic is reported as an internal
//! error. A null pointer where the reference reads a scalar (it would
//! crash) is reported through `xerbla_` with that argument's position.

#![allow(clippy::too_many_arguments)]

use std::ffi::{c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicBool;

use gemm_host::Layout;
use num_complex::Complex;

use crate::args::{self, Dims};
use crate::backend::{self, Call};
use crate::scalar::Scalar;

/// Runs `body`, turning a panic into one warning (the call's C may be
/// partly written).
pub(crate) fn guard(routine: &str, body: impl FnOnce()) {
    if let Err(panic) = catch_unwind(AssertUnwindSafe(body)) {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        static SAID: AtomicBool = AtomicBool::new(false);
        backend::warn_once(&SAID, &format!("{routine}: internal error ({what}); please report it"));
    }
}

/// `*p`, or `None` for a null pointer.
///
/// # Safety
/// `p` is null or valid for a read of a `T` (alignment not required).
pub(crate) unsafe fn read<T: Copy>(p: *const T) -> Option<T> {
    // SAFETY: non-null, and valid by the caller's contract.
    (!p.is_null()).then(|| unsafe { p.read_unaligned() })
}

/// The body of the four Fortran symbols.
///
/// # Safety
/// The reference `xGEMM`'s contract.
unsafe fn gemm<E: Scalar>(
    routine: &str,
    transa: *const c_char,
    transb: *const c_char,
    m: *const c_int,
    n: *const c_int,
    k: *const c_int,
    alpha: *const E,
    a: *const E,
    lda: *const c_int,
    b: *const E,
    ldb: *const c_int,
    beta: *const E,
    c: *mut E,
    ldc: *const c_int,
) {
    let checked = (|| {
        // SAFETY: every pointer is valid or null by the caller's contract; `read` checks null.
        unsafe {
            let (ta, tb) = (read(transa).ok_or(1)?, read(transb).ok_or(2)?);
            let dims = Dims {
                m: read(m).ok_or(3)?.into(),
                n: read(n).ok_or(4)?.into(),
                k: read(k).ok_or(5)?.into(),
                lda: read(lda).ok_or(8)?.into(),
                ldb: read(ldb).ok_or(10)?.into(),
                ldc: read(ldc).ok_or(13)?.into(),
            };
            let (alpha, beta) = (read(alpha).ok_or(6)?, read(beta).ok_or(11)?);
            args::check_fortran(ta as u8, tb as u8, dims, alpha, beta)
        }
    })();
    match checked {
        Err(info) => args::report_fortran(E::FORTRAN_NAME, info),
        Ok(cfg) => {
            // SAFETY: a checked call; the pointers are the caller's contract.
            unsafe {
                backend::run(backend::config(), &Call { routine, cfg, a, b, c, layout: Layout::ColMajor })
            };
        }
    }
}

macro_rules! fortran_gemm {
    ($name:ident, $t:ty, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// The reference BLAS's contract: every pointer valid for its
        /// argument (A, B, C for their matrices' extents; A and B may be
        /// anything when `alpha = 0` or `k = 0`, C when `m = 0` or `n = 0`),
        /// C overlapping neither A nor B.
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
            b: *const $t,
            ldb: *const c_int,
            beta: *const $t,
            c: *mut $t,
            ldc: *const c_int,
            _transa_len: usize,
            _transb_len: usize,
        ) {
            guard(stringify!($name), || {
                // SAFETY: this function's contract.
                unsafe {
                    gemm(stringify!($name), transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
                }
            })
        }
    };
}

fortran_gemm!(sgemm_, f32, "`SGEMM`: `C := alpha·op(A)·op(B) + beta·C` on `REAL`.");
fortran_gemm!(dgemm_, f64, "`DGEMM`: `C := alpha·op(A)·op(B) + beta·C` on `DOUBLE PRECISION`.");
fortran_gemm!(cgemm_, Complex<f32>, "`CGEMM`: `C := alpha·op(A)·op(B) + beta·C` on `COMPLEX`.");
fortran_gemm!(zgemm_, Complex<f64>, "`ZGEMM`: `C := alpha·op(A)·op(B) + beta·C` on `COMPLEX*16`.");

/// The reference `XERBLA`: prints ` ** On entry to SGEMM  parameter number
/// 3 had an illegal value` (on stderr), then returns where the reference
/// stops the program. A program's own `xerbla_` replaces it.
///
/// # Safety
/// `srname` points to `srname_len` bytes (or a NUL-terminated string),
/// `info` to an integer; either may be null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xerbla_(srname: *const c_char, info: *const c_int, srname_len: usize) {
    guard("xerbla_", || {
        let mut name = String::new();
        // At most 32 bytes, stopping at a NUL: C callers may pass no length.
        for i in 0..srname_len.min(32) {
            // SAFETY: within the caller's `srname_len` bytes, or before their NUL.
            match unsafe { read(srname.wrapping_add(i)) } {
                None | Some(0) => break,
                Some(ch) => name.push(ch as u8 as char),
            }
        }
        // SAFETY: the caller's contract.
        let info = unsafe { read(info) }.unwrap_or(0);
        args::print_fortran_error(&name, info);
    })
}
