//! The text front end: a body given as text (`xtask --spec`, files) is lexed
//! into token trees the way the compiler lexes the macro's input, then read
//! by the shared grammar. Locations are [`ByteRange`]s of the text.
//!
//! The body may be wrapped in its invocation (`gemm_kernel! { ... }`), and
//! `name` may be left out ([`Front::Text`]). Comments are skipped; a doc
//! comment, which the compiler turns into an attribute, is a stray token
//! here as there.

use std::fmt;

use super::literal::is_exponent;
use super::{ByteRange, Delim, Front, GrammarError, Group, Located, Location, Reading, Token, Tree};
use crate::spec::KernelSpec;

/// Why a body given as text could not be read: every mistake, each at the
/// bytes it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecParseError {
    text: String,
    errors: Vec<GrammarError<ByteRange>>,
}

impl SpecParseError {
    /// The mistakes found in `text`.
    pub(super) fn new(text: &str, errors: Vec<GrammarError<ByteRange>>) -> SpecParseError {
        SpecParseError { text: text.to_owned(), errors }
    }

    /// Every mistake, in the order the macro would report them.
    pub fn errors(&self) -> &[GrammarError<ByteRange>] {
        &self.errors
    }

    /// The text an error points at (empty for one about the body as a whole).
    pub fn snippet(&self, error: &GrammarError<ByteRange>) -> &str {
        let whole = error.at.start == 0 && error.at.end == self.text.len();
        if whole { "" } else { self.text.get(error.at.range()).unwrap_or_default() }
    }
}

impl fmt::Display for SpecParseError {
    /// One line per mistake: its message, then the text it is about.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&error.message)?;
            let snippet = self.snippet(error).split_whitespace().collect::<Vec<_>>().join(" ");
            if !snippet.is_empty() {
                write!(f, " (at `{snippet}`)")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for SpecParseError {}

/// Reads a body (or a whole `gemm_kernel! { ... }` invocation) given as text:
/// what the macro reads from the same tokens, except that `name` is optional.
pub fn read(text: &str) -> Reading<ByteRange> {
    let whole = ByteRange { start: 0, end: text.len() };
    match lex(text) {
        Ok(trees) => super::read(body(&trees, "gemm_kernel"), whole, Front::Text),
        Err(error) => Reading { name: None, spec: None, located: Located::new(whole), errors: vec![error] },
    }
}

/// The spec a body given as text describes, and where each value was
/// written (to point [`crate::validate`]'s violations at it). The spec is not
/// yet validated.
pub fn parse(text: &str) -> Result<(KernelSpec, Located<ByteRange>), SpecParseError> {
    let reading = read(text);
    match reading.spec {
        Some(spec) if reading.errors.is_empty() => Ok((spec, reading.located)),
        _ => Err(SpecParseError::new(text, reading.errors)),
    }
}

/// The body inside `<invocation>! { ... }` (or `( ... );`), else all of it.
pub(super) fn body<'t, L>(trees: &'t [Tree<L>], invocation: &str) -> &'t [Tree<L>] {
    match trees {
        [Tree::Word(m), Tree::Punct('!', _), Tree::Group(g)]
        | [Tree::Word(m), Tree::Punct('!', _), Tree::Group(g), Tree::Punct(';', _)]
            if m.text == invocation =>
        {
            &g.trees
        }
        _ => trees,
    }
}

/// A group opened and not yet closed.
struct Open {
    delim: Delim,
    close: char,
    at: ByteRange,
    /// The trees before it, at its level.
    outer: Vec<Tree<ByteRange>>,
}

/// Token trees, as the compiler would hand them to the macro.
pub(super) fn lex(text: &str) -> Result<Vec<Tree<ByteRange>>, GrammarError<ByteRange>> {
    let mut open: Vec<Open> = Vec::new();
    let mut trees = Vec::new();
    let mut pos = 0;
    while let Some(c) = text[pos..].chars().next() {
        let rest = &text[pos..];
        let at = |len: usize| ByteRange { start: pos, end: pos + len };
        let error = |len: usize, message: String| GrammarError { at: at(len), message };
        let len = match c {
            c if c.is_whitespace() => c.len_utf8(),
            '/' if rest.starts_with("//") || rest.starts_with("/*") => {
                let Some(len) = comment_len(rest) else {
                    return Err(error(2, "unterminated comment: add `*/`".into()));
                };
                if is_doc_comment(&rest[..len]) {
                    trees.push(Tree::Punct('#', at(len)));
                }
                len
            }
            '(' | '[' | '{' => {
                let (delim, close) = match c {
                    '(' => (Delim::Paren, ')'),
                    '[' => (Delim::Bracket, ']'),
                    _ => (Delim::Brace, '}'),
                };
                open.push(Open { delim, close, at: at(1), outer: std::mem::take(&mut trees) });
                1
            }
            ')' | ']' | '}' => {
                let Some(group) = open.pop() else {
                    return Err(error(1, format!("unmatched `{c}`: remove it")));
                };
                if group.close != c {
                    let opener = &text[group.at.range()];
                    return Err(error(
                        1,
                        format!("mismatched `{c}`: the `{opener}` before it needs `{}`", group.close),
                    ));
                }
                let inner = std::mem::replace(&mut trees, group.outer);
                let whole = group.at.to(at(1));
                trees.push(Tree::Group(Group {
                    delim: group.delim,
                    trees: inner,
                    at: whole,
                    open: group.at,
                }));
                1
            }
            _ => {
                let (tree, len) = token(rest).map_err(|message| error(c.len_utf8(), message))?;
                let token = |at| Token { text: rest[..len].to_owned(), at };
                trees.push(match tree {
                    Kind::Word => Tree::Word(token(at(len))),
                    Kind::Literal => Tree::Literal(token(at(len))),
                    Kind::Punct => Tree::Punct(c, at(len)),
                });
                len
            }
        };
        pos += len;
    }
    match open.pop() {
        Some(group) => {
            let opener = &text[group.at.range()];
            Err(GrammarError { at: group.at, message: format!("unclosed `{opener}`: add `{}`", group.close) })
        }
        None => Ok(trees),
    }
}

/// What kind of token starts a text.
enum Kind {
    Word,
    Literal,
    Punct,
}

/// The token at the start of `rest` (not a bracket, comment or space) and
/// its length in bytes.
fn token(rest: &str) -> Result<(Kind, usize), String> {
    let unterminated = |what: &str| format!("unterminated {what}: add its closing quote");
    let Some(c) = rest.chars().next() else { return Err("expected a token".into()) };
    let literal = |len: usize| (Kind::Literal, len + identifier_len(&rest[len..]));
    match c {
        '"' => quoted_len(rest).map(literal).ok_or_else(|| unterminated("string")),
        '\'' => Ok(char_len(rest).map_or((Kind::Punct, 1), literal)),
        c if c.is_ascii_digit() => Ok((Kind::Literal, number_len(rest))),
        c if is_identifier_start(c) => {
            let word = identifier_len(rest);
            let after = &rest[word..];
            let prefixed = |len: Option<usize>, what| {
                len.map(|len| literal(word + len)).ok_or_else(|| unterminated(what))
            };
            match (&rest[..word], after.chars().next()) {
                ("r", Some('#')) if after[1..].starts_with(is_identifier_start) => {
                    Ok((Kind::Word, word + 1 + identifier_len(&after[1..])))
                }
                ("r" | "br" | "cr", Some('"' | '#')) => prefixed(raw_len(after), "raw string"),
                ("b" | "c", Some('"')) => prefixed(quoted_len(after), "string"),
                ("b", Some('\'')) => prefixed(char_len(after), "byte"),
                _ => Ok((Kind::Word, word)),
            }
        }
        '!' | '#' | '$' | '%' | '&' | '*' | '+' | ',' | '-' | '.' | '/' | ':' | ';' | '<' | '=' | '>'
        | '?' | '@' | '^' | '|' | '~' => Ok((Kind::Punct, 1)),
        c => Err(format!("unexpected character `{c}`: remove it")),
    }
}

fn is_identifier_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// The length of the identifier characters at the start of `text`.
fn identifier_len(text: &str) -> usize {
    if !text.starts_with(is_identifier_start) {
        return 0;
    }
    text.find(|c: char| c != '_' && !c.is_alphanumeric()).unwrap_or(text.len())
}

/// `"..."`, escapes skipped; `None` if it does not end.
fn quoted_len(text: &str) -> Option<usize> {
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// `#"..."#` with any number of `#`, after the `r` of a raw string.
fn raw_len(text: &str) -> Option<usize> {
    let hashes = text.len() - text.trim_start_matches('#').len();
    let body = text[hashes..].strip_prefix('"')?;
    let close = format!("\"{}", "#".repeat(hashes));
    body.find(&close).map(|end| hashes + 1 + end + close.len())
}

/// `'a'`, `'\n'`, `'\u{1F600}'`; `None` if the quote does not start a
/// character literal (a lifetime, or a stray quote).
fn char_len(text: &str) -> Option<usize> {
    let body = &text[1..];
    let inner = match body.chars().next()? {
        '\'' => return None,
        '\\' => {
            let escape = &body[1..];
            1 + match escape.chars().next()? {
                'u' => escape.find('}')? + 1,
                'x' => 3.min(escape.len()),
                c => c.len_utf8(),
            }
        }
        c => c.len_utf8(),
    };
    body.get(inner..)?.starts_with('\'').then_some(1 + inner + 1)
}

/// A number literal, suffix included, as the compiler splits it: `96`,
/// `16u8`, `0x60`, `1.5e3f64` (but `1.` before a name or a second `.` is
/// the integer alone).
fn number_len(text: &str) -> usize {
    let digits_from = |from: usize, radix: u32| {
        text[from..].find(|c: char| c != '_' && !c.is_digit(radix)).map_or(text.len(), |n| from + n)
    };
    let mut end = match text.get(..2) {
        Some("0x") => digits_from(2, 16),
        Some("0o" | "0b") => digits_from(2, 10),
        _ => {
            let mut end = digits_from(0, 10);
            let after_dot = text[end..].strip_prefix('.').and_then(|a| a.chars().next());
            if text[end..].starts_with('.') && !after_dot.is_some_and(|c| c == '.' || is_identifier_start(c))
            {
                end = digits_from(end + 1, 10);
            }
            let exponent = text[end..].strip_prefix(['e', 'E']);
            if let Some(exponent) = exponent.filter(|e| is_exponent(e)) {
                let sign = usize::from(exponent.starts_with(['+', '-']));
                end = digits_from(end + 1 + sign, 10);
            }
            end
        }
    };
    end += identifier_len(&text[end..]);
    end
}

/// The length of the comment at the start of `text` (`//` to the end of the
/// line, or a nested `/* */`); `None` if a block comment does not end.
fn comment_len(text: &str) -> Option<usize> {
    if text.starts_with("//") {
        return Some(text.find('\n').unwrap_or(text.len()));
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with("/*") {
            depth += 1;
            i += 2;
        } else if rest.starts_with("*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Some(i);
            }
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    None
}

/// `///`, `//!`, `/** */` and `/*! */` (not `////` or `/***/`).
fn is_doc_comment(comment: &str) -> bool {
    (comment.starts_with("///") && !comment.starts_with("////"))
        || comment.starts_with("//!")
        || (comment.starts_with("/**") && !comment.starts_with("/***") && comment != "/**/")
        || comment.starts_with("/*!")
}
