//! cuBLAS on the same [`GemmConfig`] and buffers, for side-by-side checks
//! and timings (verify, tune, bench).
//!
//! All four precisions go through cuBLAS's `cublas{S,D,C,Z}gemm_v2` (the
//! `_64` variants when a size or leading dimension exceeds `i32::MAX`);
//! cudarc's safe `Gemm` trait is real-only, so the calls use its `sys`
//! bindings directly. Arguments pass the same [`crate::validate`] checks as
//! the gemmforge path (without kernel-specific ones) with the same quick
//! returns, and a row-major call is turned column-major the same way, so
//! both sides always run the same column-major problem.

use std::sync::Arc;

use cudarc::cublas::CudaBlas;
use cudarc::cublas::sys::{self, cuComplex, cuDoubleComplex, cublasOperation_t};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut};
use gemm_codegen::{Element, Math, Op, Precision};

use crate::config::GemmConfig;
use crate::error::GemmError;
use crate::gemm::with_buffers;
use crate::validate::{self, BufferInfo, Buffers, Checked, Launch};

mod batched;

/// A cuBLAS handle bound to one stream.
#[derive(Debug)]
pub struct Cublas {
    blas: CudaBlas,
    stream: Arc<CudaStream>,
    math: CublasMath,
}

/// The math mode cuBLAS's S and C routines run in (`cublasSetMathMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CublasMath {
    /// cuBLAS's default: FP32 for SGEMM and CGEMM (DGEMM and ZGEMM take the
    /// FP64 tensor cores on sm_80+ in every mode).
    Default,
    /// `CUBLAS_TF32_TENSOR_OP_MATH`: SGEMM and CGEMM on the TF32 tensor
    /// cores, inputs rounded to TF32.
    Tf32,
}

impl CublasMath {
    /// The mode to compare a kernel of `math` with: TF32 for `tf32` (the
    /// same precision class), the default for every math that keeps the
    /// precision (`fma`, `dmma`, `tf32x3`).
    pub const fn matching(math: Math) -> CublasMath {
        match math {
            Math::Tf32 => CublasMath::Tf32,
            Math::Fma | Math::Dmma | Math::Tf32x3 | Math::F16 | Math::Bf16 => CublasMath::Default,
        }
    }

    /// A short name for reports: `default`, `tf32`.
    pub const fn name(self) -> &'static str {
        match self {
            CublasMath::Default => "default",
            CublasMath::Tf32 => "tf32",
        }
    }
}

/// Whether libcublas can be loaded, without panicking.
pub fn available() -> bool {
    // SAFETY: only tries to open the library by its usual names and drops
    // what it opened.
    unsafe { sys::is_culib_present() }
}

impl Cublas {
    /// A handle on `stream`, or [`GemmError::LibraryMissing`] if libcublas
    /// cannot be loaded.
    pub fn new(stream: Arc<CudaStream>) -> Result<Cublas, GemmError> {
        if !available() {
            return Err(GemmError::LibraryMissing { library: "libcublas" });
        }
        let blas = CudaBlas::new(Arc::clone(&stream))
            .map_err(|source| GemmError::Cublas { action: "creating a cuBLAS handle".into(), source })?;
        Ok(Cublas { blas, stream, math: CublasMath::Default })
    }

    /// The math mode the handle's calls use.
    pub fn math(&self) -> CublasMath {
        self.math
    }

    /// Sets the math mode of the handle's later calls.
    pub fn set_math(&mut self, math: CublasMath) -> Result<(), GemmError> {
        let mode = match math {
            CublasMath::Default => sys::cublasMath_t::CUBLAS_DEFAULT_MATH,
            CublasMath::Tf32 => sys::cublasMath_t::CUBLAS_TF32_TENSOR_OP_MATH,
        };
        // SAFETY: the handle is live; the mode is one of the enum's values.
        unsafe { sys::cublasSetMathMode(*self.blas.handle(), mode) }.result().map_err(|source| {
            GemmError::Cublas { action: format!("setting the {} math mode", math.name()), source }
        })?;
        self.math = math;
        Ok(())
    }

    /// The stream cuBLAS runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// `C = alpha · op(A) · op(B) + beta · C` by cuBLAS, with the same
    /// arguments and checks as [`crate::Gemm::gemm`].
    pub fn gemm<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        // SAFETY: live buffers of these lengths, borrowed for the call (C
        // exclusively); the checks inside prove each long enough.
        with_buffers(&self.stream, a, b, c, |buffers| unsafe { self.run(cfg, buffers) })
    }

    /// The raw-pointer form of [`Cublas::gemm`].
    ///
    /// # Safety
    /// As for [`crate::Gemm::gemm_loaded_raw`]: `a`, `b`, `c` are device
    /// addresses in the stream's context, valid for their matrices' extents,
    /// C overlapping neither A nor B, with no conflicting access until cuBLAS
    /// has finished.
    pub unsafe fn gemm_raw<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        a: CUdeviceptr,
        b: CUdeviceptr,
        c: CUdeviceptr,
    ) -> Result<(), GemmError> {
        let buffers = Buffers {
            a: BufferInfo::unsized_at(a),
            b: BufferInfo::unsized_at(b),
            c: BufferInfo::unsized_at(c),
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { self.run(cfg, &buffers) }
    }

    /// # Safety
    /// Each buffer is valid for its length (or its matrix's extent when the
    /// length is unknown); C overlaps neither A nor B.
    unsafe fn run<E: Element>(&self, cfg: &GemmConfig<E>, buffers: &Buffers) -> Result<(), GemmError> {
        let l = match validate::check(cfg, buffers, None)? {
            Checked::Skip(_) => return Ok(()),
            Checked::Launch(l) => l,
        };
        let (a, b) = l.operands(buffers.a.addr, buffers.b.addr);
        let c = buffers.c.addr;
        self.stream.context().bind_to_thread().map_err(GemmError::driver("binding the context"))?;
        let h = *self.blas.handle();
        let (ta, tb) = (cublas_op(l.op_a), cublas_op(l.op_b));
        let (al, be) = (l.alpha.parts().map(Into::<f64>::into), l.beta.parts().map(Into::<f64>::into));
        let narrow = fits_i32(&l);
        let (m, n, k) = (l.m as i64, l.n as i64, l.k as i64);
        let (lda, ldb, ldc) = (l.lda as i64, l.ldb as i64, l.ldc as i64);
        let (mi, ni, ki, ldai, ldbi, ldci) =
            (m as i32, n as i32, k as i32, lda as i32, ldb as i32, ldc as i32);
        let precision = E::PRECISION;
        let routine = if precision.is_half() {
            format!("cublasGemmEx{} ({precision})", if narrow { "" } else { "_64" })
        } else {
            format!(
                "cublas{}gemm_v2{}",
                precision.blas_letter().to_ascii_uppercase(),
                if narrow { "" } else { "_64" }
            )
        };
        // SAFETY: the handle is live and bound to this stream; alpha and beta
        // point to host scalars of the routine's type (the default host
        // pointer mode) that outlive the call; `a`, `b`, `c` are device
        // addresses of `E` elements (by this function's contract) valid for
        // the extents the validated sizes and leading dimensions span, of the
        // routine's element type (`E::PRECISION` selects the routine;
        // `Complex<S>` has the layout of `cuComplex`/`cuDoubleComplex`); the
        // 32-bit routines are used only when every value fits an `i32`.
        let status = unsafe {
            match precision {
                Precision::F32 => {
                    let (alpha, beta) = (al[0] as f32, be[0] as f32);
                    let (a, b, c) = (a as *const f32, b as *const f32, c as *mut f32);
                    if narrow {
                        sys::cublasSgemm_v2(h, ta, tb, mi, ni, ki, &alpha, a, ldai, b, ldbi, &beta, c, ldci)
                    } else {
                        sys::cublasSgemm_v2_64(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)
                    }
                }
                Precision::F64 => {
                    let (alpha, beta) = (al[0], be[0]);
                    let (a, b, c) = (a as *const f64, b as *const f64, c as *mut f64);
                    if narrow {
                        sys::cublasDgemm_v2(h, ta, tb, mi, ni, ki, &alpha, a, ldai, b, ldbi, &beta, c, ldci)
                    } else {
                        sys::cublasDgemm_v2_64(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)
                    }
                }
                Precision::C32 => {
                    let alpha = cuComplex { x: al[0] as f32, y: al[1] as f32 };
                    let beta = cuComplex { x: be[0] as f32, y: be[1] as f32 };
                    let (a, b, c) = (a as *const cuComplex, b as *const cuComplex, c as *mut cuComplex);
                    if narrow {
                        sys::cublasCgemm_v2(h, ta, tb, mi, ni, ki, &alpha, a, ldai, b, ldbi, &beta, c, ldci)
                    } else {
                        sys::cublasCgemm_v2_64(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)
                    }
                }
                Precision::C64 => {
                    let alpha = cuDoubleComplex { x: al[0], y: al[1] };
                    let beta = cuDoubleComplex { x: be[0], y: be[1] };
                    let (a, b, c) =
                        (a as *const cuDoubleComplex, b as *const cuDoubleComplex, c as *mut cuDoubleComplex);
                    if narrow {
                        sys::cublasZgemm_v2(h, ta, tb, mi, ni, ki, &alpha, a, ldai, b, ldbi, &beta, c, ldci)
                    } else {
                        sys::cublasZgemm_v2_64(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)
                    }
                }
                Precision::F16 | Precision::Bf16 => {
                    // cublasGemmEx on the 16-bit type, accumulating in f32
                    // (alpha and beta f32): gemmforge's class of kernel.
                    let (alpha, beta) = (al[0] as f32, be[0] as f32);
                    let (alpha, beta) = (&alpha as *const f32 as *const _, &beta as *const f32 as *const _);
                    let (a, b, c) = (a as *const _, b as *const _, c as *mut _);
                    let (ty, compute) = batched::types(precision, self.math);
                    let algo = sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT;
                    if narrow {
                        sys::cublasGemmEx(
                            h, ta, tb, mi, ni, ki, alpha, a, ty, ldai, b, ty, ldbi, beta, c, ty, ldci,
                            compute, algo,
                        )
                    } else {
                        sys::cublasGemmEx_64(
                            h, ta, tb, m, n, k, alpha, a, ty, lda, b, ty, ldb, beta, c, ty, ldc, compute,
                            algo,
                        )
                    }
                }
            }
        };
        status.result().map_err(|source| GemmError::Cublas { action: routine, source })
    }
}

fn cublas_op(op: Op) -> cublasOperation_t {
    match op {
        Op::N => cublasOperation_t::CUBLAS_OP_N,
        Op::T => cublasOperation_t::CUBLAS_OP_T,
        Op::C => cublasOperation_t::CUBLAS_OP_C,
    }
}

/// Whether the 32-bit API can take the call.
fn fits_i32<E>(l: &Launch<E>) -> bool {
    let max = i32::MAX as u64;
    [u64::from(l.m), u64::from(l.n), u64::from(l.k), l.lda, l.ldb, l.ldc].iter().all(|&v| v <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tf32_asks_for_cublas_tf32() {
        assert_eq!(CublasMath::matching(Math::Tf32), CublasMath::Tf32);
        for math in [Math::Fma, Math::Dmma, Math::Tf32x3] {
            assert_eq!(CublasMath::matching(math), CublasMath::Default, "{math:?}");
        }
    }

    #[test]
    fn ops_map_to_cublas() {
        assert_eq!(cublas_op(Op::N), cublasOperation_t::CUBLAS_OP_N);
        assert_eq!(cublas_op(Op::T), cublasOperation_t::CUBLAS_OP_T);
        assert_eq!(cublas_op(Op::C), cublasOperation_t::CUBLAS_OP_C);
    }

    #[test]
    fn wide_leading_dimensions_need_the_64_bit_api() {
        let mut l = Launch {
            op_a: Op::N,
            op_b: Op::N,
            m: 1,
            n: 1,
            k: 1,
            lda: 1,
            ldb: 1,
            ldc: i32::MAX as u64,
            alpha: 1.0f32,
            beta: 0.0,
            swap_ab: false,
            grid: None,
        };
        assert!(fits_i32(&l));
        l.ldc += 1;
        assert!(!fits_i32(&l));
    }

    #[test]
    fn complex_matches_cuda_vector_types() {
        assert_eq!(std::mem::size_of::<cuComplex>(), std::mem::size_of::<num_complex::Complex<f32>>());
        assert_eq!(std::mem::size_of::<cuDoubleComplex>(), std::mem::size_of::<num_complex::Complex<f64>>());
    }
}
