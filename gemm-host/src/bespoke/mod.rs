//! Bespoke constant-A kernels on the GPU and in the emulator:
//! `C = alpha · A · B + beta · C` with the operator A compiled into the
//! kernel ([`gemm_codegen::bespoke`]), B (`k × n`) and C (`m × n`)
//! row-major with row strides `ldb` and `ldc`.
//!
//! ```text
//! Operator + BespokeSpec ──BespokeKernel::compile──▶ BespokeKernel (image; twin compiled on need)
//!                                                        │
//! BespokeCall + B, C ──check──▶ Skip │ ScaleC (alpha = 0) │ Launch (kernel or twin)
//!                                  │
//!           Gemm::bespoke (GPU) ◀──┴──▶ Emulator::bespoke (CPU)
//!
//! Operator ──BespokeGemm──▶ per n: every candidate + the dense GEMM verified, timed; the fastest cached
//! ```
//!
//! - [`BespokeKernel`]: a compiled kernel with the operator it was compiled
//!   from, so that arguments missing its vector alignment run its unaligned
//!   twin (the same walk, one column per thread), compiled once, on first
//!   need.
//! - [`BespokeCall`] and [`check`]: the call's arguments and their rules
//!   ([`crate::validate::check_bespoke`]: the row-major GEMM's, then the
//!   kernel's `beta`, then B and C apart), one function for the GPU and the
//!   emulator. `alpha = 0` runs as the GEMM of `k = 0`: C becomes `beta ·
//!   C` and B is never read (a NaN in B stays out of C, as BLAS says).
//! - [`Gemm::bespoke`](crate::Gemm::bespoke) and
//!   [`Gemm::bespoke_raw`](crate::Gemm::bespoke_raw): the GPU, through the
//!   loader and per-context cache of the GEMM kernels;
//!   [`Emulator::bespoke`](crate::emulate::Emulator::bespoke): the PTX
//!   emulator, with its memory and race checks.
//! - [`BespokeGemm`]: the run-time tuner. Built from an operator assembled
//!   at start-up, it compiles every candidate of
//!   [`candidates`](gemm_codegen::bespoke::candidates) on the first call of
//!   each `n`, verifies each against the `f64` reference, times them and
//!   the dense GEMM on the same operator with every shipped kernel of the
//!   type, and keeps the fastest
//!   ([`TuneCache`], savable as JSON).

mod case;
mod emulate;
mod gpu;
mod kernel;
mod record;
mod tune;

pub use gemm_codegen::bespoke::{BespokeImage, BespokeSpec, BetaMode, Operator};

pub use self::case::BespokeCase;
pub use self::kernel::BespokeKernel;
pub use self::record::{Choice, TuneCache, TuneKey, Winner};
pub use self::tune::{BespokeGemm, CandidateReport, TuneOptions, TuneReport, verify_columns};
pub use crate::validate::{BespokeCall, BespokeLaunch, CheckedBespoke, check_bespoke};

use gemm_codegen::Element;

use crate::error::GemmError;
use crate::gemm::check_precision;
use crate::validate::BufferInfo;

/// Checks a call of `image` with element type `E` on buffers `b` and `c`
/// and says what to run: the kernel's precision against `E`, then every
/// rule of [`check_bespoke`]. The GPU and the emulator both run it before
/// anything else; on error nothing is launched.
pub fn check<E: Element>(
    image: &BespokeImage,
    call: &BespokeCall<E>,
    b: BufferInfo,
    c: BufferInfo,
) -> Result<CheckedBespoke<E>, GemmError> {
    check_precision::<E>(image.spec.precision, &image.entry)?;
    Ok(check_bespoke((image.m, image.k), &image.requires(), &image.entry, call, b, c)?)
}
