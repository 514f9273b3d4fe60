//! [`Scalar`]: what the library needs of an element type beyond
//! `gemm_codegen::Element` (arithmetic for the reference loops, the names
//! of its routines, its CPU BLAS symbol).

use std::ffi::{CStr, c_char, c_int};
use std::ops::{Add, Mul};
use std::sync::OnceLock;

use gemm_codegen::Element;
use num_complex::Complex;

/// The Fortran `xGEMM` signature, hidden character lengths included.
pub type FortranGemm<E> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_int,
    *const c_int,
    *const c_int,
    *const E,
    *const E,
    *const c_int,
    *const E,
    *const c_int,
    *const E,
    *mut E,
    *const c_int,
    usize,
    usize,
) -> ();

/// An element type of the four GEMMs: `f32`, `f64`, `Complex<f32>`,
/// `Complex<f64>`.
pub trait Scalar: Element + Mul<Output = Self> + Add<Output = Self> {
    /// The routine's name as the reference BLAS passes it to `xerbla_`:
    /// `"SGEMM "` (six characters, blank-padded).
    const FORTRAN_NAME: &'static str;
    /// The routine's name in CBLAS errors: `"cblas_sgemm"`.
    const CBLAS_NAME: &'static str;
    /// The Fortran symbol: `sgemm_`.
    const SYMBOL: &'static CStr;
    /// The complex conjugate (the value itself for reals).
    fn conj(self) -> Self;
    /// This type's CPU `xGEMM`, once looked up (see [`crate::cpu`]).
    fn cpu_gemm() -> &'static OnceLock<Option<FortranGemm<Self>>>;
    /// This library's own exported symbol, which a CPU lookup must not
    /// return (the call would come back here forever).
    fn own_symbol() -> FortranGemm<Self>;
}

macro_rules! scalar {
    ($t:ty, $fortran:literal, $cblas:literal, $sym:literal, $own:path, conj = |$x:ident| $conj:expr) => {
        impl Scalar for $t {
            const FORTRAN_NAME: &'static str = $fortran;
            const CBLAS_NAME: &'static str = $cblas;
            const SYMBOL: &'static CStr = $sym;
            fn conj(self) -> Self {
                let $x = self;
                $conj
            }
            fn cpu_gemm() -> &'static OnceLock<Option<FortranGemm<Self>>> {
                static CPU: OnceLock<Option<FortranGemm<$t>>> = OnceLock::new();
                &CPU
            }
            fn own_symbol() -> FortranGemm<Self> {
                $own
            }
        }
    };
}

scalar!(f32, "SGEMM ", "cblas_sgemm", c"sgemm_", crate::fortran::sgemm_, conj = |x| x);
scalar!(f64, "DGEMM ", "cblas_dgemm", c"dgemm_", crate::fortran::dgemm_, conj = |x| x);
scalar!(
    Complex<f32>,
    "CGEMM ",
    "cblas_cgemm",
    c"cgemm_",
    crate::fortran::cgemm_,
    conj = |x| Complex::conj(&x)
);
scalar!(
    Complex<f64>,
    "ZGEMM ",
    "cblas_zgemm",
    c"zgemm_",
    crate::fortran::zgemm_,
    conj = |x| Complex::conj(&x)
);
