//! Tokens → [`BespokeTokens`]: the invocation's tokens become the grammar's
//! token trees (as for `gemm_kernel!`), `gemm_codegen::grammar::bespoke`
//! reads them, and this module records its errors at their spans.

use gemm_codegen::grammar::Front;
use gemm_codegen::grammar::bespoke::{self, BespokeDraft, BespokeLocated};
use proc_macro2::{Ident, Span, TokenStream};

use crate::ctxt::{Ctxt, Spans};
use crate::parse::{ident, trees};

/// A complete `gemm_bespoke!` invocation, not yet checked against its
/// operator.
pub(crate) struct BespokeTokens {
    /// The type to define.
    pub(crate) name: Ident,
    /// What the invocation sets; the spec needs the operator when it left
    /// out `family`.
    pub(crate) draft: BespokeDraft,
    /// The value of `a`, escapes resolved: the operator's file, relative to
    /// the invoking crate's manifest directory.
    pub(crate) path: String,
    /// Where `a`'s string literal is: file errors and the operator's own
    /// violations point there.
    pub(crate) path_at: Spans,
    /// Where every value was written, for the violations of the spec.
    pub(crate) located: BespokeLocated<Spans>,
}

/// What parsing produced: the name if it could be read (for the stub
/// emitted on error) and the invocation if every required parameter could
/// be read.
pub(crate) struct Parsed {
    pub(crate) name: Option<Ident>,
    pub(crate) tokens: Option<BespokeTokens>,
}

/// Parses a whole invocation, recording every mistake in `cx`.
pub(crate) fn parse(input: TokenStream, cx: &mut Ctxt) -> Parsed {
    let reading = bespoke::read(&trees(input), Spans::of(Span::call_site()), Front::Macro);
    for error in reading.errors {
        cx.grammar_error(error);
    }
    let name = reading.name.as_ref().map(ident);
    let tokens = match (&name, reading.draft, reading.path) {
        (Some(name), Some(draft), Some((path, path_at))) => {
            Some(BespokeTokens { name: name.clone(), draft, path, path_at, located: reading.located })
        }
        _ => None,
    };
    Parsed { name, tokens }
}
