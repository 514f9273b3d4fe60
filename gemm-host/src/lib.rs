//! The gemmforge runtime: BLAS-faithful GEMMs on the GPU with kernels from
//! `gemm-codegen`, through cudarc.
//!
//! # Layers
//!
//! ```text
//! GemmConfig ──validate::check──▶ Checked::{Skip, Launch}   (pure Rust: GPU, cuBLAS, emulator)
//!                                        │
//! Gemm ── load (once per context) ──▶ LoadedKernel + KernelInfo ──▶ launch on the stream
//! ```
//!
//! - [`GemmConfig`]: BLAS's arguments (`op_a, op_b, m, n, k, alpha, lda, ldb,
//!   beta, ldc`, plus CBLAS's layout), signed so every rule can be checked.
//! - [`validate`]: every argument rule in BLAS's order, returning an
//!   [`ArgError`] that names the argument, its value and the rule; BLAS's
//!   quick returns. No CUDA types, so a CPU emulator runs the same checks.
//! - [`Gemm`]: the safe API on typed device buffers (cudarc slices and
//!   views): [`Gemm::gemm`] for `gemm_kernel!` kernels, [`Gemm::gemm_image`]
//!   for kernels generated at run time, [`Gemm::gemm_loaded`] for the tuner,
//!   and the `unsafe` raw-pointer layer [`Gemm::gemm_loaded_raw`] for code
//!   ported from cuBLAS. [`Gemm::sgemm`], [`Gemm::dgemm`], [`Gemm::cgemm`],
//!   [`Gemm::zgemm`] (and the generic [`Gemm::gemm_default`]) pick the
//!   compiled-in kernel for the device and op pair from `gemm-kernels`.
//!   Nothing is launched on any error.
//! - [`Gemm::load`] / [`KernelInfo`]: the JIT's real register count, spills,
//!   shared memory and occupancy, for the tuner.
//! - [`DeviceInfo`]: the device's limits (also as `gemm-codegen`'s
//!   `DriverLimits` for the search space); [`device::device_count`] and
//!   [`Gemm::open`] report a missing driver or GPU as an error, not a panic.
//! - [`memory`]: allocation and copies for all four element types, complex
//!   ones included (cudarc has no `DeviceRepr` for `Complex`).
//! - [`cublas`]: cuBLAS on the same configs and buffers, for comparisons.
//! - [`reference`](mod@reference): the `f64` CPU reference, random inputs, error norms;
//!   [`case`]: one checked call (guarded, poisoned inputs and every check a run must pass).
//! - [`timing`]: CUDA-event timing.
//! - [`emulate`]: the same checked calls run on the CPU in the PTX emulator.
//!
//! # Row-major
//!
//! Set [`GemmConfig::layout`] to [`Layout::RowMajor`] (or build with
//! [`GemmConfig::row_major`]): the call is checked with row-major rules and
//! run as the column-major `Cᵀ = op(B)ᵀ · op(A)ᵀ` (A and B, `m` and `n`
//! swapped), so it needs the kernel of the swapped op pair.

pub mod case;
pub mod config;
pub mod cublas;
pub mod device;
pub mod emulate;
mod error;
mod gemm;
mod kernel;
pub mod memory;
pub mod reference;
pub mod timing;
pub mod validate;

pub use config::{Dim, GemmConfig, Layout, Matrix, Stored};
pub use device::DeviceInfo;
pub use error::GemmError;
pub use gemm::Gemm;
pub use gemm_codegen::{Element, GemmKernel, KernelImage, KernelSpec, Op, Precision};
pub use gemm_kernels::KernelEntry;
pub use kernel::{KernelInfo, LoadedKernel};
pub use validate::{Arg, ArgError};

/// Re-exported so that users name the same cudarc as this crate.
pub use cudarc;
/// Re-exported for `Complex` elements.
pub use num_complex;
