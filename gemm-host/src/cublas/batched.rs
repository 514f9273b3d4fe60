//! cuBLAS's strided-batched GEMM (`cublasGemmStridedBatchedEx_64`) on the
//! same configs, batches and checks as [`crate::Gemm::gemm_strided_batched`].

use cudarc::cublas::sys::{self, cublasComputeType_t, cudaDataType};
use cudarc::driver::{DevicePtr, DevicePtrMut};
use gemm_codegen::{Element, Precision};

use super::{Cublas, CublasMath, cublas_op};
use crate::config::GemmConfig;
use crate::error::GemmError;
use crate::gemm::with_buffers;
use crate::validate::{self, CheckedBatch, StridedBatch};

impl Cublas {
    /// `count` GEMMs of one shape in one cuBLAS call, problem `i`'s matrices
    /// `i` strides into `a`, `b` and `c`, after the same checks as gemmforge's
    /// ([`validate::check_batch`]).
    pub fn gemm_strided_batched<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        batch: &StridedBatch,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        with_buffers(&self.stream, a, b, c, |buffers| {
            let CheckedBatch::Launch(checked) = validate::check_batch(cfg, batch, buffers, None)? else {
                return Ok(());
            };
            let l = checked.launch;
            let (pa, pb) = l.operands(buffers.a.addr, buffers.b.addr);
            let pc = buffers.c.addr;
            let [sa, sb, sc] = checked.strides.map(|s| s as i64);
            self.stream.context().bind_to_thread().map_err(GemmError::driver("binding the context"))?;
            let (data, compute) = types(E::PRECISION, self.math);
            let wide = |x: E| x.parts().map(Into::<f64>::into);
            let (al, be) = (wide(l.alpha), wide(l.beta));
            // The scalars in the compute type's precision, as cuBLAS reads them.
            let (a32, b32) = ([al[0] as f32, al[1] as f32], [be[0] as f32, be[1] as f32]);
            let (alpha, beta): (*const std::ffi::c_void, *const std::ffi::c_void) =
                if E::PRECISION.scalar_bytes() == 4 {
                    (a32.as_ptr().cast(), b32.as_ptr().cast())
                } else {
                    (al.as_ptr().cast(), be.as_ptr().cast())
                };
            // SAFETY: the handle is live and bound to this stream; alpha and
            // beta point to host scalars of the compute type (real, or
            // re/im pairs for complex) that outlive the call; `check_batch`
            // proved every problem's matrices within their live buffers of
            // `E` elements (of `data`'s type), C's problems disjoint.
            let status = unsafe {
                sys::cublasGemmStridedBatchedEx_64(
                    *self.blas.handle(),
                    cublas_op(l.op_a),
                    cublas_op(l.op_b),
                    i64::from(l.m),
                    i64::from(l.n),
                    i64::from(l.k),
                    alpha,
                    pa as *const std::ffi::c_void,
                    data,
                    l.lda as i64,
                    sa,
                    pb as *const std::ffi::c_void,
                    data,
                    l.ldb as i64,
                    sb,
                    beta,
                    pc as *mut std::ffi::c_void,
                    data,
                    l.ldc as i64,
                    sc,
                    checked.count as i64,
                    compute,
                    sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                )
            };
            status.result().map_err(|source| GemmError::Cublas {
                action: "cublasGemmStridedBatchedEx_64".to_owned(),
                source,
            })
        })
    }
}

/// The data and compute types of a precision under `math` (TF32 only for
/// the single-precision types; the 16-bit ones accumulate in f32).
pub(super) fn types(precision: Precision, math: CublasMath) -> (cudaDataType, cublasComputeType_t) {
    use cublasComputeType_t::*;
    use cudaDataType::*;
    let single = if math == CublasMath::Tf32 { CUBLAS_COMPUTE_32F_FAST_TF32 } else { CUBLAS_COMPUTE_32F };
    match precision {
        Precision::F32 => (CUDA_R_32F, single),
        Precision::F64 => (CUDA_R_64F, CUBLAS_COMPUTE_64F),
        Precision::C32 => (CUDA_C_32F, single),
        Precision::C64 => (CUDA_C_64F, CUBLAS_COMPUTE_64F),
        Precision::F16 => (CUDA_R_16F, CUBLAS_COMPUTE_32F),
        Precision::Bf16 => (CUDA_R_16BF, CUBLAS_COMPUTE_32F),
    }
}
