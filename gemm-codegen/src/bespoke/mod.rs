//! Bespoke constant-A kernels (GiMMiK's idea): `C = alpha · A · B + beta · C`
//! with a small operator `A` known when the kernel is generated, so its
//! values become immediates and its zeros disappear.
//!
//! ```text
//! Operator + BespokeSpec ──validate──▶ BespokePlan ──lower──▶ PTX ──▶ BespokeImage
//!                            │
//!                            └──▶ Vec<BespokeViolation>   (gemm_bespoke!'s errors)
//! ```
//!
//! - [`Operator`]: the matrix `A` (Matrix Market files: [`mtx`]; test
//!   operators: [`operators`]).
//! - [`BespokeSpec`]: the walk ([`Form`]: B- or C-streaming on the FMA
//!   units, or `mma` on the f64 tensor cores), columns per
//!   thread, block, row groups sharing B through shared memory, chunk,
//!   [`BetaMode`], arch. [`validate`] checks it for one operator (register
//!   and code-size limits included) and plans the walk; [`compile`] lowers
//!   and prints it.
//! - [`BespokeImage`]: the PTX with its ABI ([`crate::Abi::bespoke`]),
//!   launch shape and requirements, which the host and the emulator launch
//!   it from.
//! - [`BespokeKernel`]: what `gemm_bespoke!` defines, a type per operator
//!   file and spec, read by [`crate::grammar::bespoke`] (which also gives
//!   [`BespokeSpec`] its `FromStr`).
//!
//! B (`k × n`) and C (`m × n`) are row-major with `n` contiguous, row
//! strides `ldb` and `ldc`: PyFR's layout, and column-major `Cᵀ = Bᵀ Aᵀ`
//! for a BLAS caller.

mod image;
mod kernel;
mod lower;
mod mma;
pub mod mtx;
mod operator;
pub mod operators;
mod plan;
mod space;
mod spec;

pub use image::{BespokeImage, BespokeRequirements, compile, digest, emit, entry_name};
pub use kernel::BespokeKernel;
pub use operator::{Operator, OperatorError};
pub use plan::{BespokeField, BespokePlan, BespokeViolation, MAX_NNZ, MAX_VALUE_REGS, validate};
pub use space::{candidates, default_spec};
pub use spec::{BespokeSpec, BetaMode, Form};
