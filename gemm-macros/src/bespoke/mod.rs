//! `gemm_bespoke!`: the same three phases as `gemm_kernel!`, over
//! `gemm_codegen::grammar::bespoke` and `gemm_codegen::bespoke`:
//!
//! ```text
//! tokens ──parse──▶ BespokeTokens ──validate──▶ Kernel (a BespokePlan) ──expand──▶ items
//!            │            (reads the .mtx file)    │
//!            └───────────── all errors ────────────┴──▶ compile errors + `pub struct Name;`
//! ```
//!
//! - `parse` hands the tokens to the bespoke grammar (the one reader of
//!   these bodies, shared with `BespokeSpec: FromStr`) and records its
//!   errors at their spans.
//! - `validate` reads the operator's Matrix Market file (a missing or
//!   unreadable file and every `MtxError` are errors on the path literal,
//!   naming the file's line), takes the spec given or the operator's
//!   default, and runs `gemm_codegen::bespoke::validate`, pointing each
//!   violation at the value of the field it names.
//! - `expand` only generates, from a validated plan.

pub(crate) mod expand;
pub(crate) mod parse;
pub(crate) mod validate;
