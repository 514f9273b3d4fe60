//! The Fortran symbols: `sgemm_`, `dgemm_`, `cgemm_`, `zgemm_` with the
//! reference BLAS's ABI (gfortran's: every argument by reference, the
//! character arguments' lengths appended as hidden `size_t`s, which this
//! library never reads, so C callers that omit them are served too), their
//! ILP64 twins `sgemm_64_` … `zgemm_64_` (every `INTEGER` an `int64_t`: the
//! names of OpenBLAS's `INTERFACE64` builds and Reference-LAPACK's ILP64
//! ones), and `xerbla_` and `xerbla_64_`.
//!
//! One body serves both interfaces, generic over the integer
//! ([`BlasInt`]); one macro generates each type's two symbols. An ILP64
//! call's errors go to `xerbla_64_` (the program's own when it defines one,
//! else this library's, which prints the reference's message).
//!
//! No panic crosses the boundary: every body runs under
//! [`std::panic::catch_unwind`], and a panic is reported as an internal
//! error. A null pointer where the reference reads a scalar (it would
//! crash) is reported through `xerbla_` (`xerbla_64_`) with that
//! argument's position.

#![allow(clippy::too_many_arguments)]

use std::ffi::{c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicBool;

use gemm_host::Layout;
use num_complex::Complex;

use crate::args::{self, BlasInt, Dims};
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

/// The body of the eight Fortran symbols, for an interface of integer `I`.
///
/// # Safety
/// The reference `xGEMM`'s contract (`I` its `INTEGER`).
unsafe fn gemm<E: Scalar, I: BlasInt>(
    routine: &str,
    transa: *const c_char,
    transb: *const c_char,
    m: *const I,
    n: *const I,
    k: *const I,
    alpha: *const E,
    a: *const E,
    lda: *const I,
    b: *const E,
    ldb: *const I,
    beta: *const E,
    c: *mut E,
    ldc: *const I,
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
        Err(info) => args::report_fortran::<I>(E::FORTRAN_NAME, info),
        Ok(cfg) => {
            // SAFETY: a checked call; the pointers are the caller's contract.
            unsafe {
                backend::run(backend::config(), &Call { routine, cfg, a, b, c, layout: Layout::ColMajor })
            };
        }
    }
}

macro_rules! fortran_gemm {
    ($t:ty, $lp64:ident, $ilp64:ident, $routine:literal, $type_name:literal) => {
        fortran_gemm!(@symbol $lp64, $t, c_int, concat!(
            "`", $routine, "`: `C := alpha·op(A)·op(B) + beta·C` on `", $type_name, "`."
        ));
        fortran_gemm!(@symbol $ilp64, $t, i64, concat!(
            "`", $routine, "` of the ILP64 interface (every `INTEGER` an `int64_t`): `C := ",
            "alpha·op(A)·op(B) + beta·C` on `", $type_name, "`."
        ));
    };
    (@symbol $name:ident, $t:ty, $int:ty, $doc:expr) => {
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
            m: *const $int,
            n: *const $int,
            k: *const $int,
            alpha: *const $t,
            a: *const $t,
            lda: *const $int,
            b: *const $t,
            ldb: *const $int,
            beta: *const $t,
            c: *mut $t,
            ldc: *const $int,
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

fortran_gemm!(f32, sgemm_, sgemm_64_, "SGEMM", "REAL");
fortran_gemm!(f64, dgemm_, dgemm_64_, "DGEMM", "DOUBLE PRECISION");
fortran_gemm!(Complex<f32>, cgemm_, cgemm_64_, "CGEMM", "COMPLEX");
fortran_gemm!(Complex<f64>, zgemm_, zgemm_64_, "ZGEMM", "COMPLEX*16");

/// The reference `XERBLA`: prints ` ** On entry to SGEMM  parameter number
/// 3 had an illegal value` (on stderr), then returns where the reference
/// stops the program. A program's own `xerbla_` replaces it.
///
/// # Safety
/// `srname` points to `srname_len` bytes (or a NUL-terminated string),
/// `info` to an integer; either may be null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xerbla_(srname: *const c_char, info: *const c_int, srname_len: usize) {
    // SAFETY: this function's contract.
    guard("xerbla_", || unsafe { xerbla(srname, info, srname_len) })
}

/// `XERBLA` of the ILP64 interface (`info` an `int64_t`), which the
/// `_64_` symbols report to: prints what [`xerbla_`] prints. A program's
/// own `xerbla_64_` replaces it.
///
/// # Safety
/// As for [`xerbla_`], `info` pointing to an `int64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xerbla_64_(srname: *const c_char, info: *const i64, srname_len: usize) {
    // SAFETY: this function's contract.
    guard("xerbla_64_", || unsafe { xerbla(srname, info, srname_len) })
}

/// The body of both `XERBLA`s.
///
/// # Safety
/// As for [`xerbla_`], `info` pointing to an `I`.
unsafe fn xerbla<I: BlasInt>(srname: *const c_char, info: *const I, srname_len: usize) {
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
    let info: i64 = unsafe { read(info) }.map_or(0, Into::into);
    args::print_fortran_error(&name, info);
}
