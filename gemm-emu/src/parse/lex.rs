//! Lexing: the text as tokens, whole-line comments and empty lines.

use std::fmt;

use super::{ParseError, err};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Tok<'a> {
    /// An identifier, directive, opcode, register, label or special
    /// register: `.reg`, `ld.global.nc.f32`, `%a_ptr`, `$main_loop`, `%tid.x`,
    /// `fence.proxy.async.shared::cta` (a `::` followed by a letter is part
    /// of the word).
    Word(&'a str),
    /// Something starting with a digit: `16`, `0x1f`, `0f3F800000`, `6.0`.
    Number(&'a str),
    /// One of `,;:[]{}()@!+-<>`.
    Punct(char),
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) | Tok::Number(w) => f.write_str(w),
            Tok::Punct(c) => write!(f, "{c}"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Item<'a> {
    Tok(Tok<'a>),
    /// A line holding only a `//` comment: its text without `//` and one
    /// following space.
    Comment(&'a str),
    /// A line holding only whitespace.
    Blank,
}

pub(super) fn lex(text: &str) -> Result<Vec<(u32, Item<'_>)>, ParseError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let s = raw.strip_suffix('\r').unwrap_or(raw);
        if s.trim().is_empty() {
            out.push((line, Item::Blank));
            continue;
        }
        let bytes = s.as_bytes();
        let mut p = 0;
        let mut any_token = false;
        while p < bytes.len() {
            let c = bytes[p];
            if c == b' ' || c == b'\t' {
                p += 1;
            } else if s[p..].starts_with("//") {
                if !any_token {
                    let rest = &s[p + 2..];
                    out.push((line, Item::Comment(rest.strip_prefix(' ').unwrap_or(rest))));
                }
                // A comment after code on the same line is dropped.
                break;
            } else if s[p..].starts_with("/*") {
                return err(line, "block comments `/* */` are not supported: use `//`");
            } else if c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%' | b'.') {
                let start = p;
                p += 1;
                loop {
                    if p < bytes.len()
                        && (bytes[p].is_ascii_alphanumeric() || matches!(bytes[p], b'_' | b'$' | b'.'))
                    {
                        p += 1;
                    } else if s[p..].starts_with("::")
                        && bytes.get(p + 2).is_some_and(u8::is_ascii_alphabetic)
                    {
                        // A state-space scope inside an opcode: `.shared::cta`.
                        p += 2;
                    } else {
                        break;
                    }
                }
                out.push((line, Item::Tok(Tok::Word(&s[start..p]))));
                any_token = true;
            } else if c.is_ascii_digit() {
                let start = p;
                while p < bytes.len() && (bytes[p].is_ascii_alphanumeric() || matches!(bytes[p], b'_' | b'.'))
                {
                    p += 1;
                }
                out.push((line, Item::Tok(Tok::Number(&s[start..p]))));
                any_token = true;
            } else if b",;:[]{}()@!+-<>=".contains(&c) {
                out.push((line, Item::Tok(Tok::Punct(c as char))));
                p += 1;
                any_token = true;
            } else {
                let ch = s[p..].chars().next().unwrap_or('?');
                return err(line, format!("unexpected character `{ch}`"));
            }
        }
    }
    Ok(out)
}
