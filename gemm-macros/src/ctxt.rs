//! Error collection across phases (serde_derive's `Ctxt` pattern): every
//! phase records what it finds and carries on, so one compilation reports
//! every mistake of an invocation at once.

use std::fmt::Display;

use proc_macro2::Span;

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

    /// Records an error spanning the first to the last token of `tokens`.
    pub(crate) fn error_spanned(&mut self, tokens: impl quote::ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error built elsewhere (by syn).
    pub(crate) fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
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
