//! Tokens → [`SpecTokens`]. The invocation's tokens become the token trees
//! of `gemm_codegen::grammar`, each keeping its span, and the grammar reads
//! them: the one reader of `gemm_kernel!` bodies, shared with
//! `KernelSpec: FromStr`, so text and source accept the same bodies with the
//! same errors. This module only converts tokens and records the grammar's
//! errors at their spans.
//!
//! The grammar reads the structure (`key = value, ...`) first; a mistake
//! there (a missing `=`, a stray token) stops reading, as nothing after it
//! can be trusted. Each value is then interpreted on its own and every
//! mistake is recorded in the [`Ctxt`], so one compilation reports all wrong
//! values, unknown, duplicate and missing parameters together.

use gemm_codegen::KernelSpec;
use gemm_codegen::grammar::{self, Delim, Front, Group, Located, Token, Tree};
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};

use crate::ctxt::{Ctxt, Spans};

/// A complete `gemm_kernel!` invocation: the spec, and the span of every
/// value and every tuple element it was read from.
pub(crate) struct SpecTokens {
    /// The type to define.
    pub(crate) name: Ident,
    /// The spec, defaults filled in. Not yet validated.
    pub(crate) spec: KernelSpec,
    /// Where each value was written, for the violations of the spec.
    pub(crate) located: Located<Spans>,
}

/// What parsing produced: the kernel's name if it could be read (for the
/// stub emitted on error) and the spec if every parameter could be read.
pub(crate) struct Parsed {
    pub(crate) name: Option<Ident>,
    pub(crate) spec: Option<SpecTokens>,
}

/// Parses a whole invocation, recording every mistake in `cx`.
pub(crate) fn parse(input: TokenStream, cx: &mut Ctxt) -> Parsed {
    let reading = grammar::read(&trees(input), Spans::of(Span::call_site()), Front::Macro);
    for error in reading.errors {
        cx.grammar_error(error);
    }
    let name = reading.name.as_ref().map(ident);
    let spec = match (&name, reading.spec) {
        (Some(name), Some(spec)) => Some(SpecTokens { name: name.clone(), spec, located: reading.located }),
        _ => None,
    };
    Parsed { name, spec }
}

/// The grammar's token trees for `tokens` (for `gemm_bespoke!` too). The invisible groups that
/// `macro_rules!` wraps around substituted fragments are opened: the trees
/// are what they hold.
pub(crate) fn trees(tokens: TokenStream) -> Vec<Tree<Spans>> {
    let mut trees = Vec::new();
    for token in tokens {
        let at = Spans::of(token.span());
        trees.push(match token {
            TokenTree::Ident(ident) => Tree::Word(Token { text: ident.to_string(), at }),
            TokenTree::Literal(literal) => Tree::Literal(Token { text: literal.to_string(), at }),
            TokenTree::Punct(punct) => Tree::Punct(punct.as_char(), at),
            TokenTree::Group(group) => {
                let delim = match group.delimiter() {
                    Delimiter::Parenthesis => Delim::Paren,
                    Delimiter::Bracket => Delim::Bracket,
                    Delimiter::Brace => Delim::Brace,
                    Delimiter::None => {
                        trees.extend(self::trees(group.stream()));
                        continue;
                    }
                };
                let open = Spans::of(group.span_open());
                Tree::Group(Group { delim, trees: self::trees(group.stream()), at, open })
            }
        });
    }
    trees
}

/// The kernel's name as an identifier. The grammar read it from an
/// identifier token and refused keywords, so it is a legal type name.
pub(crate) fn ident(name: &Token<Spans>) -> Ident {
    let span = name.at.first;
    match name.text.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, span),
        None => Ident::new(&name.text, span),
    }
}
