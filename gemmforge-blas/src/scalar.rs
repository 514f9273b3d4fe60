//! [`Scalar`]: what the library needs of an element type beyond
//! `gemm_codegen::Element` (arithmetic for the reference loops, the names
//! of its routines, its CPU BLAS symbols).

use std::ffi::{CStr, c_char, c_int};
use std::ops::{Add, Mul};
use std::sync::OnceLock;

use gemm_codegen::Element;
use num_complex::Complex;

/// The Fortran `xGEMM` signature, hidden character lengths included, with
/// `INTEGER` `I` (`i64` for an ILP64 `xgemm_64_`).
pub type FortranGemm<E, I = c_int> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const I,
    *const I,
    *const I,
    *const E,
    *const E,
    *const I,
    *const E,
    *const I,
    *const E,
    *mut E,
    *const I,
    usize,
    usize,
) -> ();

/// The Fortran `xGEMM_BATCH_STRIDED` signature (MKL's, OpenBLAS's):
/// `transa, transb, m, n, k, alpha, a, lda, stridea, b, ldb, strideb, beta,
/// c, ldc, stridec, batch_size`, hidden character lengths included.
pub type FortranGemmBatch<E> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_int,
    *const c_int,
    *const c_int,
    *const E,
    *const E,
    *const c_int,
    *const c_int,
    *const E,
    *const c_int,
    *const c_int,
    *const E,
    *mut E,
    *const c_int,
    *const c_int,
    *const c_int,
    usize,
    usize,
) -> ();

/// The CPU BLAS's entry points for one element type (see [`crate::cpu`]):
/// `None` for each it lacks.
#[derive(Debug)]
pub struct CpuSymbols<E: 'static> {
    /// `xgemm_`.
    pub gemm: Option<FortranGemm<E>>,
    /// An ILP64 `xgemm_64_` (or NumPy's `scipy_xgemm_64_`), for calls whose
    /// integers do not fit an `int`.
    pub gemm_64: Option<FortranGemm<E, i64>>,
    /// `xgemm_batch_strided_`.
    pub batch: Option<FortranGemmBatch<E>>,
}

/// An element type of the four GEMMs: `f32`, `f64`, `Complex<f32>`,
/// `Complex<f64>`.
pub trait Scalar: Element + Mul<Output = Self> + Add<Output = Self> {
    /// The routine's name as the reference BLAS passes it to `xerbla_`:
    /// `"SGEMM "` (six characters, blank-padded).
    const FORTRAN_NAME: &'static str;
    /// The strided-batched routine's name for `xerbla_`:
    /// `"SGEMM_BATCH_STRIDED"`.
    const FORTRAN_BATCH_NAME: &'static str;
    /// The routine's name in CBLAS errors: `"cblas_sgemm"`.
    const CBLAS_NAME: &'static str;
    /// The strided-batched routine's name in CBLAS errors:
    /// `"cblas_sgemm_batch_strided"`.
    const CBLAS_BATCH_NAME: &'static str;
    /// The Fortran symbol: `sgemm_`.
    const SYMBOL: &'static CStr;
    /// The Fortran strided-batched symbol: `sgemm_batch_strided_`.
    const BATCH_SYMBOL: &'static CStr;
    /// The ILP64 Fortran symbols a CPU BLAS may have, in the order they are
    /// looked for: `sgemm_64_` (OpenBLAS's `INTERFACE64` builds,
    /// Reference-LAPACK's ILP64 ones), `scipy_sgemm_64_` (the
    /// `libscipy_openblas64_` bundled with NumPy ≥ 2).
    const SYMBOLS_64: [&'static CStr; 2];
    /// The complex conjugate (the value itself for reals).
    fn conj(self) -> Self;
    /// This type's CPU BLAS entry points, once looked up (see [`crate::cpu`]).
    fn cpu_symbols() -> &'static OnceLock<CpuSymbols<Self>>;
}

macro_rules! scalar {
    (
        $t:ty,
        $prefix:literal,
        $upper:literal,
        $symbol:literal,
        $batch_symbol:literal,
        $symbols_64:expr,
        conj = |$x:ident| $conj:expr
    ) => {
        impl Scalar for $t {
            const FORTRAN_NAME: &'static str = concat!($upper, "GEMM ");
            const FORTRAN_BATCH_NAME: &'static str = concat!($upper, "GEMM_BATCH_STRIDED");
            const CBLAS_NAME: &'static str = concat!("cblas_", $prefix, "gemm");
            const CBLAS_BATCH_NAME: &'static str = concat!("cblas_", $prefix, "gemm_batch_strided");
            const SYMBOL: &'static CStr = $symbol;
            const BATCH_SYMBOL: &'static CStr = $batch_symbol;
            const SYMBOLS_64: [&'static CStr; 2] = $symbols_64;
            fn conj(self) -> Self {
                let $x = self;
                $conj
            }
            fn cpu_symbols() -> &'static OnceLock<CpuSymbols<Self>> {
                static CPU: OnceLock<CpuSymbols<$t>> = OnceLock::new();
                &CPU
            }
        }
    };
}

scalar!(f32, "s", "S", c"sgemm_", c"sgemm_batch_strided_", [c"sgemm_64_", c"scipy_sgemm_64_"], conj = |x| x);
scalar!(f64, "d", "D", c"dgemm_", c"dgemm_batch_strided_", [c"dgemm_64_", c"scipy_dgemm_64_"], conj = |x| x);
scalar!(
    Complex<f32>,
    "c",
    "C",
    c"cgemm_",
    c"cgemm_batch_strided_",
    [c"cgemm_64_", c"scipy_cgemm_64_"],
    conj = |x| Complex::conj(&x)
);
scalar!(
    Complex<f64>,
    "z",
    "Z",
    c"zgemm_",
    c"zgemm_batch_strided_",
    [c"zgemm_64_", c"scipy_zgemm_64_"],
    conj = |x| Complex::conj(&x)
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_prefix() {
        assert_eq!((f32::FORTRAN_NAME, f32::CBLAS_NAME, f32::SYMBOL), ("SGEMM ", "cblas_sgemm", c"sgemm_"));
        assert_eq!(<Complex<f64>>::FORTRAN_BATCH_NAME, "ZGEMM_BATCH_STRIDED");
        assert_eq!(<Complex<f32>>::CBLAS_BATCH_NAME, "cblas_cgemm_batch_strided");
        assert_eq!(f64::BATCH_SYMBOL, c"dgemm_batch_strided_");
        assert_eq!(<Complex<f32>>::SYMBOLS_64, [c"cgemm_64_", c"scipy_cgemm_64_"]);
    }
}
