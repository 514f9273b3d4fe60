//! The gemmforge runtime: BLAS-faithful GEMMs on the GPU with kernels from
//! `gemm-codegen`, through cudarc.
//!
//! # Layers
//!
//! ```text
//! GemmConfig ──validate::check──▶ Checked::{Skip, Launch}   (pure Rust: GPU, cuBLAS, emulator)
//!                                        │
//! Gemm ── load (once per context) ──▶ LoadedKernel + KernelInfo ──▶ launch on the stream
//!           (GEMM kernels and bespoke ones: one loader, `KernelCode`)
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
//! - [`timing`]: CUDA-event timing: one span, or the median of repeated
//!   runs after a warm-up ([`timing::repeat`]).
//! - [`emulate`]: the same checked calls run on the CPU in the PTX emulator.
//! - [`bespoke`]: bespoke constant-A kernels (`C = alpha · A · B + beta ·
//!   C` with the operator A compiled into the PTX, `gemm_codegen::bespoke`)
//!   on the GPU ([`Gemm::bespoke`]) and in the emulator
//!   ([`emulate::Emulator::bespoke`]), checked by one function
//!   ([`validate::check_bespoke`]: the row-major GEMM's rules, the kernel's
//!   `beta`, B and C apart; the unaligned twin for misaligned arguments,
//!   `alpha = 0` without reading B); and [`bespoke::BespokeGemm`], the
//!   run-time tuner that times every candidate and the dense GEMM per `n`
//!   and caches the winner (JSON: [`bespoke::TuneCache`]).
//! - Batches and split K ([`pass`]): [`Gemm::gemm_strided_batched`]
//!   ([`validate::StridedBatch`], C problems checked disjoint),
//!   [`Gemm::gemm_batched`] (one buffer per problem, through arrays of
//!   pointers) and [`Gemm::gemm_split_k_loaded`] (slices summed in a fixed
//!   order into C: bitwise repeatable); [`Gemm::gemm_default`] splits K
//!   where the call's tiles leave the GPU idle ([`Gemm::default_slices`]).
//!
//! # Which math a default call runs
//!
//! [`Gemm::sgemm`] and friends take the kernel `gemm-kernels` tuned for the
//! GPU's family and the call's shape (`gemm_kernels::Dispatch::TUNED`: the shape
//! class nearest the call, e.g. a large square, 1024³ or a skinny K; a
//! runner given a [`Dispatch`] of the user's classes, [`Gemm::with_dispatch`],
//! and a [`SplitRule`], [`Gemm::with_split`], chooses by those instead). On an
//! H100/H200 (sm_90) those are tensor-core kernels, with nothing computed in
//! a lower precision than the call's:
//!
//! - `dgemm`, `zgemm`: FP64 tensor cores (`math = dmma`), IEEE double
//!   products and sums as in cuBLAS's DGEMM/ZGEMM, added in another order:
//!   results agree with FMA kernels to rounding, not bitwise.
//! - `sgemm`, `cgemm`: `math = tf32x3` where it won the tune (three TF32
//!   products of each element's big and small parts, summed in f32), else
//!   FMA; for large real squares and complex squares from 384³ on sm_90
//!   the Hopper `wgmma` kernels (`mma = (64, 128, 8)` for f32, `(64, 64,
//!   8)` for c32, `arch = sm_90a`: the same split, made once per element
//!   in shared memory, and the same three products, gathered per stripe
//!   and joined to C's accumulators in round-to-nearest f32: 0.19 to 0.51
//!   times cuBLAS SGEMM's error on uniform, normal and wide inputs up to n
//!   = 16384, `tuning/sm_90-wgmma/run2`; 0.16 to 0.40 times cuBLAS CGEMM's
//!   up to n = 8192, `run9`). As accurate as cuBLAS's
//!   SGEMM/CGEMM or better for uniform, normal
//!   and wide-range inputs up to n = 16384 (measured with `xtask accuracy`
//!   on the tf32x3 kernels tuned before the K-contiguous layout, with the
//!   same split and the same three products per step:
//!   `tuning/sm_90-tf32/README.md`; the shipped ones pass `xtask verify
//!   --gpu`'s 1e-5 on every ragged case). Where it loses: elements below about
//!   2⁻¹¹⁵ in magnitude, whose small part is subnormal in TF32 and keeps
//!   only a few bits (a normwise error floor near 2e-6, still within the
//!   f32 tolerance); scale such inputs towards 1, or call an FMA kernel.
//!
//! For a particular kernel — FMA only, or the 1xTF32 `math = tf32` that
//! trades accuracy for speed and is never a default — pass it explicitly:
//! [`Gemm::gemm`] with a `gemm_kernel!` type, or `gemm_kernels::table2`'s
//! FMA kernels through [`Gemm::gemm_image`].
//!
//! # Row-major
//!
//! Set [`GemmConfig::layout`] to [`Layout::RowMajor`] (or build with
//! [`GemmConfig::row_major`]): the call is checked with row-major rules and
//! run as the column-major `Cᵀ = op(B)ᵀ · op(A)ᵀ` (A and B, `m` and `n`
//! swapped), so it needs the kernel of the swapped op pair.

pub mod bespoke;
pub mod case;
pub mod config;
pub mod cublas;
pub mod device;
pub mod emulate;
mod error;
mod gemm;
mod kernel;
pub mod memory;
pub mod pass;
pub mod reference;
mod tensor_map;
pub mod timing;
pub mod validate;

pub use config::{Dim, GemmConfig, Layout, Matrix, Stored, operand_ld, operand_lead};
pub use device::DeviceInfo;
pub use error::GemmError;
pub use gemm::Gemm;
pub use gemm_codegen::{Element, GemmKernel, KernelImage, KernelSpec, Op, Precision};
pub use gemm_kernels::{Dispatch, KernelEntry};
pub use kernel::{CodeView, KernelCode, KernelInfo, LoadedBespoke, LoadedKernel};
pub use pass::SplitRule;
pub use validate::{Arg, ArgError};

/// Re-exported so that users name the same cudarc as this crate.
pub use cudarc;
/// Re-exported for `Complex` elements.
pub use half;
pub use num_complex;
