//! Bespoke constant-A kernels (GiMMiK's idea): `C = alpha · A · B + beta · C`
//! with a small operator `A` known when the kernel is generated, so its
//! values become immediates and its zeros disappear.
//!
//! This module holds what the bespoke families will start from (issue 10;
//! the families, `gemm_bespoke!` and `xtask bespoke` are not built yet): the
//! [`Operator`] itself, the Matrix Market reader and writer ([`mtx`]) for
//! operators kept in files, and the test operators ([`operators`]): random
//! sparse ones over the range of shapes and densities, and the
//! Lagrange interpolation and differentiation operators of high-order
//! element methods.

pub mod mtx;
mod operator;
pub mod operators;

pub use operator::{Operator, OperatorError};
