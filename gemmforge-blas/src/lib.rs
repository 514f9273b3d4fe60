//! `libgemmforge_blas.so`: a drop-in BLAS library for GEMM.
//!
//! The library exports the reference BLAS GEMM symbols with their Fortran
//! ABI (`sgemm_`, `dgemm_`, `cgemm_`, `zgemm_`: every argument by reference,
//! column-major, the two character arguments' hidden `size_t` lengths
//! appended) and the reference CBLAS ones (`cblas_sgemm` … `cblas_zgemm`,
//! row- or column-major, complex `alpha` and `beta` by pointer), with the
//! reference's argument checks, error reports and quick returns; their
//! ILP64 twins (`sgemm_64_` … `zgemm_64_`, `cblas_sgemm64_` …
//! `cblas_zgemm64_`: `int64_t` integers, OpenBLAS `INTERFACE64`'s names,
//! with `xerbla_64_`) and the same CBLAS under the names NumPy ≥ 2 calls
//! (`scipy_cblas_sgemm64_` … `scipy_cblas_zgemm64_`); and the
//! strided-batched extension MKL, OpenBLAS and NVPL share
//! (`sgemm_batch_strided_` … `zgemm_batch_strided_`,
//! `cblas_sgemm_batch_strided` … `cblas_zgemm_batch_strided`), checked the
//! same way and then by the batch's own rules ([`batch`]). A valid
//! call is run where [`backend`] sends it: on the GPU by `gemm-host`'s
//! tuned kernels, in the PTX emulator, or by the CPU BLAS the program would
//! otherwise have used (NVBLAS's model: preload this library, keep the
//! program and its BLAS).
//!
//! # Layers
//!
//! ```text
//! fortran.rs / cblas.rs   exported symbols: raw arguments, catch_unwind; one generic body
//!                         per family, its LP64 and ILP64 symbols from one macro
//! batch.rs                the strided-batched symbols, likewise
//!        │ args.rs        integers widened to i64, characters and enums → Op, the
//!        │                reference's checks in its order, xerbla_ / xerbla_64_ /
//!        │                cblas_xerbla (the program's own when it defines one)
//!        │ args/batch.rs  a batch's checks: the single GEMM's, then its strides and count
//!        ▼
//! backend.rs              quick returns, routing (auto | gpu | emulate | cpu; sizes past
//!                         i32::MAX: cpu), a batch as one call, the log
//!        │ pointers.rs    host or device memory (device operands run on their GPU, in place)
//!        ├── staging.rs   the call cut into chunks: pack → upload → GEMM → download → unpack,
//!        │   │            overlapped through two pinned slots, written once against a Device
//!        │   ├── gpu.rs       the Device on a GPU: gemm-host's tuned kernels, three streams,
//!        │   │                buffers and pinned slots kept between calls
//!        │   └── emulated.rs  the Device in the PTX emulator (gemm-kernels' Table 2 kernels)
//!        ├── gpu_batch.rs a batch's spans copied, Gemm::gemm_strided_batched, C's span
//!        │                back; the emulator's gemm_strided_batched
//!        └── cpu.rs       the next BLAS (dlsym RTLD_NEXT, or GEMMFORGE_BLAS_CPU_LIB):
//!                         its xgemm_64_ for integers past int, a batch on its
//!                         xgemm_batch_strided_ if it has one, else problem by
//!                         problem; else the reference loops in Rust; the rest of a
//!                         call the GPU failed
//! ```
//!
//! Every call reaching [`backend`] is a checked column-major call (a
//! row-major CBLAS call is turned into the column-major `Cᵀ = op(B)ᵀ ·
//! op(A)ᵀ` first, as the reference CBLAS does).
//!
//! The entry points are `unsafe extern "C"` functions that Rust programs
//! (and this crate's tests) may call directly, with the same contract as
//! their C declarations.

pub mod args;
pub mod backend;
pub mod batch;
pub mod cblas;
pub mod cpu;
mod emulated;
pub mod fortran;
mod gpu;
mod gpu_batch;
pub mod pointers;
mod scalar;
pub mod staging;

#[cfg(test)]
mod proptests;

pub use scalar::Scalar;
