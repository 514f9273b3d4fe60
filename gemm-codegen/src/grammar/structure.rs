//! Token trees → `key = value` items. A value is every tree up to the next
//! comma outside brackets; its shape is only judged later, against its
//! parameter.

use super::{Delim, GrammarError, Group, Location, Token, Tree};

/// One `key = value` as written, the value not yet interpreted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item<L> {
    /// The parameter's key.
    pub key: Token<L>,
    /// Its value.
    pub value: Value<L>,
}

/// A value as written: a word, a literal, a tuple, or anything else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value<L> {
    /// One identifier: `f32`, `N`, `nc`, `SgemmNN`, `true`.
    Word(Token<L>),
    /// One literal, as written: `96`, `16u8`, `"96"`, `1.5`, `'a'`.
    Literal(Token<L>),
    /// `( ... )`.
    Tuple(Tuple<L>),
    /// Anything else, taken as a whole: several tokens, a `[...]` or `{...}`
    /// group, punctuation.
    Other {
        /// From its first to its last token.
        at: L,
        /// Whether it starts with `-` (`-1`).
        negative: bool,
    },
}

/// A parenthesized value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuple<L> {
    /// The comma-separated elements (a trailing comma allowed).
    pub elems: Vec<Value<L>>,
    /// Whether an element is empty (`(8, , 32)`); it is then left out of
    /// `elems`.
    pub empty_element: bool,
    /// The whole `( ... )`.
    pub at: L,
}

impl<L: Copy> Value<L> {
    /// Where the value was written.
    pub fn at(&self) -> L {
        match self {
            Value::Word(t) | Value::Literal(t) => t.at,
            Value::Tuple(t) => t.at,
            Value::Other { at, .. } => *at,
        }
    }
}

impl<L> Token<L> {
    /// The text without the `r#` of a raw identifier.
    pub fn unraw(&self) -> &str {
        self.text.strip_prefix("r#").unwrap_or(&self.text)
    }
}

/// A broken structure: the items read before it, and the error.
pub type Broken<L> = (Vec<Item<L>>, GrammarError<L>);

/// `key = value` items separated by commas, a trailing comma allowed.
pub fn items<L: Location>(trees: &[Tree<L>]) -> Result<Vec<Item<L>>, Broken<L>> {
    let mut items = Vec::new();
    let mut rest = trees;
    while let [first, after_key @ ..] = rest {
        let broken = |at, message| GrammarError { at, message };
        let key = match first {
            Tree::Word(key) => key,
            other => {
                let hint = if matches!(other, Tree::Literal(_)) {
                    ": tuple values need parentheses, e.g. `tile = (96, 96, 16)`"
                } else {
                    ""
                };
                let message = format!("expected a parameter name such as `tile`{hint}");
                return Err((items, broken(other.start(), message)));
            }
        };
        let eq_at = match after_key {
            [Tree::Punct('=', at), ..] => *at,
            [other, ..] => return Err((items, broken(other.start(), expected_eq(key)))),
            [] => return Err((items, broken(key.at, expected_eq(key)))),
        };
        let value_trees = &after_key[1..];
        let end = value_trees.iter().position(is_comma).unwrap_or(value_trees.len());
        let Some(value) = value(&value_trees[..end]) else {
            let message = format!("expected a value after `{} =`", key.text);
            return Err((items, broken(eq_at, message)));
        };
        items.push(Item { key: key.clone(), value });
        // Past the value and its comma.
        rest = value_trees.get(end + 1..).unwrap_or_default();
    }
    Ok(items)
}

fn expected_eq<L>(key: &Token<L>) -> String {
    format!("expected `=` after `{}`", key.text)
}

fn is_comma<L>(tree: &Tree<L>) -> bool {
    matches!(tree, Tree::Punct(',', _))
}

/// The value written as `trees`; `None` if there are none.
fn value<L: Location>(trees: &[Tree<L>]) -> Option<Value<L>> {
    let negative = matches!(trees.first()?, Tree::Punct('-', _));
    Some(match trees {
        [Tree::Word(word)] => Value::Word(word.clone()),
        [Tree::Literal(literal)] => Value::Literal(literal.clone()),
        [Tree::Group(group)] if group.delim == Delim::Paren => Value::Tuple(tuple(group)),
        [first, .., last] => Value::Other { at: first.at().to(last.at()), negative },
        [single] => Value::Other { at: single.at(), negative },
        [] => return None,
    })
}

fn tuple<L: Location>(group: &Group<L>) -> Tuple<L> {
    let mut parts: Vec<&[Tree<L>]> = group.trees.split(is_comma).collect();
    // A trailing comma (or nothing at all) leaves an empty last part.
    if parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    let elems: Vec<Value<L>> = parts.iter().filter_map(|part| value(part)).collect();
    Tuple { empty_element: elems.len() < parts.len(), elems, at: group.at }
}
