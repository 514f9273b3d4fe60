//! Error collection across phases (serde_derive's `Ctxt` pattern): every
//! phase records what it finds and carries on, so one compilation reports
//! every mistake of an invocation at once.

use std::fmt::Display;

use gemm_codegen::grammar::{GrammarError, Location};
use proc_macro2::{Punct, Spacing, Span, TokenStream};

/// Where a token, or a run of tokens, was written: the location the macro
/// hands `gemm_codegen::grammar`. An error there is shown under all of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spans {
    pub(crate) first: Span,
    pub(crate) last: Span,
}

impl Spans {
    /// One token.
    pub(crate) const fn of(span: Span) -> Spans {
        Spans { first: span, last: span }
    }
}

impl Location for Spans {
    fn to(self, end: Spans) -> Spans {
        Spans { first: self.first, last: end.last }
    }
}

/// The errors found so far.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error spanning `span`.
    pub(crate) fn error(&mut self, span: Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records an error of the grammar, or a violation it located, under the
    /// tokens it is about.
    pub(crate) fn grammar_error(&mut self, error: GrammarError<Spans>) {
        // syn spans an error from its first token to its last: two
        // placeholder tokens carry the two ends.
        let [first, last] = [error.at.first, error.at.last].map(|span| {
            let mut punct = Punct::new('.', Spacing::Alone);
            punct.set_span(span);
            punct
        });
        let ends: TokenStream = [first, last].into_iter().map(proc_macro2::TokenTree::from).collect();
        self.errors.push(syn::Error::new_spanned(ends, error.message));
    }

    /// All errors combined into one, in the order they were found; `Ok` if
    /// there were none.
    pub(crate) fn finish(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_iter();
        let Some(mut combined) = errors.next() else { return Ok(()) };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
