//! The one grammar of a `gemm_kernel!` body, shared by the macro and by
//! [`KernelSpec`]'s `FromStr`.
//!
//! ```text
//! body  = [ item { "," item } [ "," ] ]
//! item  = key "=" value
//! value = word | literal | "(" [ value { "," value } [ "," ] ] ")"
//! ```
//!
//! Both front ends turn their input into the same [`Tree`]s, each carrying a
//! location of the front end's choosing (the macro: the tokens' spans; text:
//! [`ByteRange`]s), and hand them to [`read`]. Everything after that is
//! shared, so both accept exactly the same bodies with exactly the same
//! errors at the same tokens:
//!
//! ```text
//! token trees ──structure──▶ Vec<Item> ──interpret──▶ KernelSpec + Located
//!        │                        │                       │
//!        └── first broken item ───┴── every wrong value ──┴──▶ Vec<GrammarError>
//! ```
//!
//! - The structure (`key = value` pairs) is read first; a mistake there (a
//!   missing `=`, a stray token) stops reading, as nothing after it can be
//!   trusted.
//! - Each value is then interpreted against the parameter [`table`](PARAMS):
//!   its shape (a word of a list, a whole number that fits `u32`, a tuple of
//!   exact arity), unknown, duplicate and missing parameters. Every mistake
//!   is collected.
//! - The result keeps where every value and every tuple element was written
//!   ([`Located`]), so that a [`Violation`] of [`crate::validate`] maps onto
//!   the smallest offending token in either front end ([`Located::error`]).
//!
//! Every message is written here: lowercase, no trailing period, saying what
//! to change.
//!
//! # The one difference between the front ends
//!
//! `name` is the name of the type `gemm_kernel!` defines. The macro requires
//! it; text may give it or leave it out, and it is ignored there ([`Front`]).
//! When given, it must be an identifier in both.
//!
//! # Adding a parameter
//!
//! One entry in [`PARAMS`]: key, shape, default or how to add it, its
//! one-line doc, and the line that stores its value in the [`KernelSpec`].
//! The rest is the spec's own: the field, its default (a `DEFAULT_*`
//! constant, which the blank spec reading starts from), and a
//! [`Field`](crate::Field) if the constraints name it.
//!
//! # Other bodies
//!
//! `gemm_bespoke!` bodies are read by the same structure and value readers
//! against a table of their own: [`bespoke`].

pub mod bespoke;
mod literal;
mod params;
mod read;
mod structure;
pub mod text;

use std::fmt;

use crate::constraints::{ParamPath, Violation};
use crate::spec::KernelSpec;

pub use params::{Elem, Got, Need, PARAMS, Param, Shape, is_keyword};
pub use structure::{Broken, Item, Tuple, Value, items};

/// Where a token was written, as a front end tracks it.
pub trait Location: Copy {
    /// The location from the start of `self` to the end of `end`.
    fn to(self, end: Self) -> Self;
}

/// A byte range of a text: the location [`text`] uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByteRange {
    /// The first byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl ByteRange {
    /// The range as `start..end`, for slicing the text.
    pub const fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

impl Location for ByteRange {
    fn to(self, end: Self) -> Self {
        ByteRange { start: self.start, end: end.end.max(self.start) }
    }
}

/// A word or a literal and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<L> {
    /// As written: `tile`, `r#tile`, `96`, `16u8`, `"96"`.
    pub text: String,
    /// Where.
    pub at: L,
}

/// The bracket around a [`Group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delim {
    /// `( ... )`.
    Paren,
    /// `[ ... ]`.
    Bracket,
    /// `{ ... }`.
    Brace,
}

/// A bracketed group of token trees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group<L> {
    /// Its bracket.
    pub delim: Delim,
    /// What it holds.
    pub trees: Vec<Tree<L>>,
    /// The whole group, brackets included.
    pub at: L,
    /// The opening bracket, where "expected ..." errors point.
    pub open: L,
}

/// A token tree, as both front ends hand their input to [`read`]. (The
/// invisible groups `macro_rules!` puts around substituted fragments are not
/// trees: the macro hands over what they hold.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tree<L> {
    /// An identifier or keyword (a raw one with its `r#`).
    Word(Token<L>),
    /// A literal, as written: `96`, `16u8`, `0x60`, `"96"`, `1.5`, `'a'`.
    Literal(Token<L>),
    /// One punctuation character: `=`, `,`, `-`, ...
    Punct(char, L),
    /// A bracketed group.
    Group(Group<L>),
}

impl<L: Copy> Tree<L> {
    /// Where the tree was written.
    pub fn at(&self) -> L {
        match self {
            Tree::Word(t) | Tree::Literal(t) => t.at,
            Tree::Punct(_, at) => *at,
            Tree::Group(g) => g.at,
        }
    }

    /// Where an error about what was expected here points: the opening
    /// bracket of a group, else the token.
    pub fn start(&self) -> L {
        match self {
            Tree::Group(g) => g.open,
            tree => tree.at(),
        }
    }
}

/// A mistake in a body, at the token it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrammarError<L> {
    /// The smallest offending token.
    pub at: L,
    /// Lowercase, no trailing period, saying what to change.
    pub message: String,
}

impl<L> fmt::Display for GrammarError<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<L: fmt::Debug> std::error::Error for GrammarError<L> {}

/// Which front end reads: the only thing that differs between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Front {
    /// `gemm_kernel!` or `gemm_bespoke!` in Rust source: `name` is
    /// required (and `gemm_bespoke!`'s `a`).
    Macro,
    /// A body as text (command lines, files): `name` may be left out, and
    /// is ignored (and `gemm_bespoke!`'s `a`, while its `family` is
    /// required: text has no operator to choose a default for).
    Text,
}

/// What reading a body produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading<L> {
    /// The value of `name`, if it was given and is an identifier.
    pub name: Option<Token<L>>,
    /// The spec, defaults filled in, if every required parameter was read
    /// (not yet validated). It is produced even when other mistakes were
    /// found (an unknown or duplicate parameter, a wrong optional value, which
    /// then keeps its default), so that the constraints can be checked and
    /// reported in the same pass.
    pub spec: Option<KernelSpec>,
    /// Where every value that was read was written.
    pub located: Located<L>,
    /// Every mistake, in the order of the body, then missing parameters.
    pub errors: Vec<GrammarError<L>>,
}

/// Where each parameter's value, and each element of a tuple value, was
/// written: the first occurrence of each parameter, the one the spec holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located<L> {
    /// Indexed like [`PARAMS`].
    values: Vec<Option<Place<L>>>,
    /// The kernel's name, else the whole body: for a parameter left out.
    fallback: L,
}

/// Where one value was written.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place<L> {
    at: L,
    /// Each tuple element; empty for a value that is not a tuple.
    elems: Vec<L>,
}

impl<L: Copy> Located<L> {
    fn new(fallback: L) -> Located<L> {
        Located { values: vec![None; PARAMS.len()], fallback }
    }

    /// The smallest token `path` names: the tuple element if it names one,
    /// else the whole value; for an optional parameter left at its default,
    /// the kernel's name (or the whole body, in text without one).
    pub fn at(&self, path: ParamPath) -> L {
        let index = PARAMS.iter().position(|p| p.field == Some(path.field));
        let Some(place) = index.and_then(|i| self.values.get(i)?.as_ref()) else { return self.fallback };
        path.index.and_then(|i| place.elems.get(usize::from(i)).copied()).unwrap_or(place.at)
    }

    /// A violation of the constraints as an error at the token it names.
    pub fn error(&self, violation: &Violation) -> GrammarError<L> {
        GrammarError { at: self.at(violation.at), message: violation.message.clone() }
    }
}

/// Reads a body given as token trees. `whole` is where the body as a whole
/// is (missing parameters are reported there when there is no name).
pub fn read<L: Location>(trees: &[Tree<L>], whole: L, front: Front) -> Reading<L> {
    match items(trees) {
        Ok(items) => read::interpret(&items, whole, front),
        Err((items, error)) => {
            // The rest was not read, and the value read last may be cut
            // short: report the broken structure alone, and the name if it
            // can be read (the macro still defines the type).
            let name = items.iter().find(|i| i.key.unraw() == "name").and_then(|i| read::name(&i.value).ok());
            Reading { name, spec: None, located: Located::new(whole), errors: vec![error] }
        }
    }
}

#[cfg(test)]
mod tests;
