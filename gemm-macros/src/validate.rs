//! Checks: the spec against the stencil's hard constraints, and the invoking
//! crate against what the expansion needs to name.
//!
//! The constraints are not implemented here: [`gemm_codegen::validate`] is the
//! one implementation, shared with the tuner's search space. This module only
//! maps each [`Violation`](gemm_codegen::Violation) onto the span of the token
//! it is about: a tuple element when the violation names one (`tile.0`), else
//! the whole parameter value.

use gemm_codegen::{Field, ParamPath, Plan};
use proc_macro_crate::FoundCrate;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ctxt::Ctxt;
use crate::parse::SpecTokens;

/// A kernel that passed every check: all the expansion is given.
pub(crate) struct Kernel {
    /// The type to define.
    pub(crate) name: Ident,
    /// The validated spec and what derives from it.
    pub(crate) plan: Plan,
    /// The path under which the invoking crate reaches gemm-codegen's items.
    pub(crate) runtime: TokenStream,
}

/// Validates a parsed invocation, recording every violation in `cx`.
pub(crate) fn validate(tokens: SpecTokens, cx: &mut Ctxt) -> Option<Kernel> {
    let runtime = runtime_path(cx);
    let plan = match gemm_codegen::validate(&tokens.spec()) {
        Ok(plan) => Some(plan),
        Err(violations) => {
            for violation in violations {
                cx.error(span_of(&tokens, violation.at), violation.message);
            }
            None
        }
    };
    Some(Kernel { name: tokens.name, plan: plan?, runtime: runtime? })
}

/// The span of the smallest token `at` names.
pub(crate) fn span_of(tokens: &SpecTokens, at: ParamPath) -> Span {
    match at.field {
        Field::Precision => tokens.precision.span,
        Field::Op => tokens.op.span_at(at.index),
        Field::Tile => tokens.tile.span_at(at.index),
        Field::Threads => tokens.threads.span_at(at.index),
        Field::LoadA => tokens.load_a.span_at(at.index),
        Field::LoadB => tokens.load_b.span_at(at.index),
        // An optional parameter left at its default: the kernel as a whole.
        Field::LdsWidth => tokens.lds_width.map_or_else(|| tokens.name.span(), |w| w.span),
        Field::Ldg => tokens.ldg.map_or_else(|| tokens.name.span(), |g| g.span),
        // Not yet read by this front end: always at their defaults.
        Field::Arch | Field::Stages | Field::LdgWidth | Field::Warps | Field::Raster => tokens.name.span(),
    }
}

/// How the invoking crate names gemm-codegen's items (`GemmKernel`,
/// `KernelSpec`, ...): through the facade if it depends on `gemmforge`, else
/// through `gemm-codegen` directly (as `gemm-kernels` does).
fn runtime_path(cx: &mut Ctxt) -> Option<TokenStream> {
    let crate_ident = |name: &str| format_ident!("{}", name);
    if let Ok(found) = proc_macro_crate::crate_name("gemmforge") {
        // The facade itself declares `extern crate self as gemmforge`, so
        // `::gemmforge` resolves in its library, doctests and examples alike.
        let name = match found {
            FoundCrate::Itself => crate_ident("gemmforge"),
            FoundCrate::Name(name) => crate_ident(&name),
        };
        return Some(quote!(::#name::codegen));
    }
    match proc_macro_crate::crate_name("gemm-codegen") {
        Ok(FoundCrate::Itself) if std::env::var("CARGO_CRATE_NAME").as_deref() == Ok("gemm_codegen") => {
            Some(quote!(crate))
        }
        // gemm-codegen's examples and benches see it as a dependency.
        Ok(FoundCrate::Itself) => Some(quote!(::gemm_codegen)),
        Ok(FoundCrate::Name(name)) => {
            let name = crate_ident(&name);
            Some(quote!(::#name))
        }
        Err(_) => {
            cx.error(
                Span::call_site(),
                "`gemm_kernel!` needs the `gemmforge` crate: add `gemmforge` to the `[dependencies]` \
                 of this crate's Cargo.toml",
            );
            None
        }
    }
}
