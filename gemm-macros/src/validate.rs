//! Checks: the spec against the stencil's hard constraints, and the invoking
//! crate against what the expansion needs to name.
//!
//! The constraints are not implemented here: [`gemm_codegen::validate`] is the
//! one implementation, shared with the tuner's search space. Each
//! [`Violation`](gemm_codegen::Violation) names a parameter, or one element of
//! a tuple (`tile.0`); the grammar's [`Located`](gemm_codegen::grammar::Located)
//! maps it onto the span of that token, as it does for text.

use gemm_codegen::Plan;
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
    let runtime = runtime_path("gemm_kernel", cx);
    let plan = match gemm_codegen::validate(&tokens.spec) {
        Ok(plan) => Some(plan),
        Err(violations) => {
            for violation in &violations {
                cx.grammar_error(tokens.located.error(violation));
            }
            None
        }
    };
    Some(Kernel { name: tokens.name, plan: plan?, runtime: runtime? })
}

/// How the invoking crate names gemm-codegen's items (`GemmKernel`,
/// `KernelSpec`, ...): through the facade if it depends on `gemmforge`, else
/// through `gemm-codegen` directly (as `gemm-kernels` does). `invoked` names
/// the macro in the error when neither is a dependency.
pub(crate) fn runtime_path(invoked: &str, cx: &mut Ctxt) -> Option<TokenStream> {
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
                format!(
                    "`{invoked}!` needs the `gemmforge` crate: add `gemmforge` to the `[dependencies]` \
                     of this crate's Cargo.toml"
                ),
            );
            None
        }
    }
}
