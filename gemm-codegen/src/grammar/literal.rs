//! What kind of Rust literal a literal's text is, by the rules `syn` uses:
//! both front ends hand over the literal as written, so one classification
//! serves both.

/// A literal, classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Literal {
    /// An integer: its value in base 10 (any size) and its suffix (`u8`, or
    /// empty).
    Int { digits: String, suffix: String },
    /// A floating-point number: `1.5`, `1e3`, `2.0f32`.
    Float,
    /// A string, with what is between its quotes.
    Str(String),
    /// A character: `'a'`.
    Char,
    /// A byte, byte string or C string literal, or text that is no literal.
    Other,
}

/// Classifies a literal as written.
pub(super) fn classify(text: &str) -> Literal {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some('"'), _) => Literal::Str(quoted(text)),
        (Some('r'), Some('"' | '#')) => Literal::Str(quoted(text)),
        (Some('\''), _) => Literal::Char,
        (Some(c), _) if c.is_ascii_digit() => number(text),
        _ => Literal::Other,
    }
}

/// The value of a string literal as written (`"..."` or raw `r#"..."#`,
/// escapes resolved as Rust does); `None` for text that is no string
/// literal, an error (completing "`key` ...") for a suffixed one or a bad
/// escape.
pub(super) fn string_value(text: &str) -> Option<Result<String, String>> {
    let (body, suffix) = if let Some(raw) = text.strip_prefix('r').filter(|r| r.starts_with(['"', '#'])) {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let open = raw[hashes..].strip_prefix('"')?;
        let close = format!("\"{}", "#".repeat(hashes));
        let end = open.find(&close)?;
        (Ok(open[..end].to_owned()), &open[end + close.len()..])
    } else {
        let open = text.strip_prefix('"')?;
        let mut escaped = false;
        let end = open.char_indices().find_map(|(i, c)| {
            let closes = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            closes.then_some(i)
        })?;
        (unescape(&open[..end]), &open[end + 1..])
    };
    if !suffix.is_empty() {
        return Some(Err(format!("must be an unsuffixed string literal: remove `{suffix}`")));
    }
    Some(body)
}

/// The characters a string literal's body stands for.
fn unescape(body: &str) -> Result<String, String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    let bad = |escape: &str| {
        format!(
            "has an unknown escape `{escape}`: write `\\\\` for a backslash, or use a raw string `r\"...\"`"
        )
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else { return Err(bad("\\")) };
        let plain = match e {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '0' => '\0',
            '\\' | '\'' | '"' => e,
            'x' => {
                let digits: String = chars.by_ref().take(2).collect();
                match u8::from_str_radix(&digits, 16) {
                    Ok(byte @ 0..=0x7f) if digits.len() == 2 => char::from(byte),
                    _ => return Err(bad(&format!("\\x{digits}"))),
                }
            }
            'u' => {
                let mut written = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    written.push(c);
                    if c == '}' {
                        closed = true;
                        break;
                    }
                }
                let digits: String = written.trim_start_matches('{').trim_end_matches('}').replace('_', "");
                let value = (closed && written.starts_with('{') && (1..=6).contains(&digits.len()))
                    .then(|| u32::from_str_radix(&digits, 16).ok())
                    .flatten()
                    .and_then(char::from_u32);
                match value {
                    Some(c) => c,
                    None => return Err(bad(&format!("\\u{written}"))),
                }
            }
            '\n' | '\r' => {
                // A line continuation: the line break and the whitespace
                // after it are skipped.
                while chars.next_if(|c| c.is_whitespace()).is_some() {}
                continue;
            }
            other => return Err(bad(&format!("\\{other}"))),
        };
        out.push(plain);
    }
    Ok(out)
}

/// What is between the first and the last `"` (escapes left as written).
fn quoted(text: &str) -> String {
    match (text.find('"'), text.rfind('"')) {
        (Some(open), Some(close)) if open < close => text[open + 1..close].to_owned(),
        _ => String::new(),
    }
}

/// An integer (`96`, `0x60`, `1_000u32`, `16_usize`) or a float.
fn number(text: &str) -> Literal {
    let (radix, body) = match text.get(..2) {
        Some("0x") => (16, &text[2..]),
        Some("0o") => (8, &text[2..]),
        Some("0b") => (2, &text[2..]),
        _ => (10, text),
    };
    let mut digits = Vec::new();
    let mut suffix = "";
    for (i, c) in body.char_indices() {
        match c {
            '_' => {}
            '.' if radix == 10 => return Literal::Float,
            'e' | 'E' if radix == 10 && is_exponent(&body[i + 1..]) => return Literal::Float,
            c => match c.to_digit(radix) {
                Some(digit) => digits.push(digit),
                // A decimal digit beyond the radix: `0b102`.
                None if c.is_ascii_digit() => return Literal::Other,
                None => {
                    suffix = &body[i..];
                    break;
                }
            },
        }
    }
    if digits.is_empty() || !(suffix.is_empty() || is_identifier(suffix)) {
        return Literal::Other;
    }
    Literal::Int { digits: base10(&digits, radix), suffix: suffix.to_owned() }
}

/// Whether what follows an `e` makes it an exponent: an optional sign, then
/// digits (underscores allowed before them).
pub(super) fn is_exponent(after_e: &str) -> bool {
    let rest = after_e.strip_prefix(['+', '-']).unwrap_or(after_e);
    rest.trim_start_matches('_').starts_with(|c: char| c.is_ascii_digit())
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// The base-10 digits of the number whose base-`radix` digits are `digits`,
/// without leading zeros, however large.
fn base10(digits: &[u32], radix: u32) -> String {
    // Little-endian decimal digits of the value so far.
    let mut value: Vec<u32> = Vec::new();
    for &digit in digits {
        let mut carry = digit;
        for d in &mut value {
            let next = *d * radix + carry;
            *d = next % 10;
            carry = next / 10;
        }
        while carry > 0 {
            value.push(carry % 10);
            carry /= 10;
        }
    }
    if value.is_empty() {
        return "0".to_owned();
    }
    value.iter().rev().filter_map(|&d| char::from_digit(d, 10)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(digits: &str, suffix: &str) -> Literal {
        Literal::Int { digits: digits.to_owned(), suffix: suffix.to_owned() }
    }

    #[test]
    fn integers_in_every_radix_with_and_without_suffix() {
        assert_eq!(classify("96"), int("96", ""));
        assert_eq!(classify("0096"), int("96", ""));
        assert_eq!(classify("0"), int("0", ""));
        assert_eq!(classify("1_000u32"), int("1000", "u32"));
        assert_eq!(classify("16_usize"), int("16", "usize"));
        assert_eq!(classify("0x60"), int("96", ""));
        assert_eq!(classify("0xFFu8"), int("255", "u8"));
        assert_eq!(classify("0o17"), int("15", ""));
        assert_eq!(classify("0b1010"), int("10", ""));
        // As syn reads it: an integer with suffix `f32`.
        assert_eq!(classify("1f32"), int("1", "f32"));
        assert_eq!(classify("1e"), int("1", "e"));
        assert_eq!(
            classify("0x1_0000_0000_0000_0000_0000_0000_0000_0000"),
            int("340282366920938463463374607431768211456", "")
        );
    }

    #[test]
    fn string_values_resolve_escapes() {
        let value = |text: &str| string_value(text);
        assert_eq!(value("\"data/hex.mtx\""), Some(Ok("data/hex.mtx".into())));
        assert_eq!(value("\"a\\\\b\\\"c\\n\\t\\x41\\u{1F600}\\u{4_1}\""), Some(Ok("a\\b\"c\n\tA😀A".into())));
        assert_eq!(value("\"a\\\n    b\""), Some(Ok("ab".into())));
        assert_eq!(value("r\"C:\\x\\y\""), Some(Ok("C:\\x\\y".into())));
        assert_eq!(value("r##\"a\"#b\"##"), Some(Ok("a\"#b".into())));
        assert_eq!(value("\"\""), Some(Ok(String::new())));
        for bad in ["\"\\q\"", "\"\\x80\"", "\"\\x4\"", "\"\\u{110000}\"", "\"\\u{}\"", "\"\\u41\""] {
            let error = value(bad).unwrap().unwrap_err();
            assert!(error.starts_with("has an unknown escape `\\"), "{bad}: {error}");
        }
        assert_eq!(value("\"x\"suf"), Some(Err("must be an unsuffixed string literal: remove `suf`".into())));
        assert_eq!(value("r#\"x\"#s"), Some(Err("must be an unsuffixed string literal: remove `s`".into())));
        for none in ["96", "x", "'a'", "b\"x\"", "\"open", "\"\\\"", "r#\"open\"", ""] {
            assert_eq!(value(none), None, "{none}");
        }
    }

    #[test]
    fn everything_else() {
        for float in ["1.5", "16.", "1e3", "2.0f32", "1E-3", "1e_3"] {
            assert_eq!(classify(float), Literal::Float, "{float}");
        }
        assert_eq!(classify("\"96\""), Literal::Str("96".into()));
        assert_eq!(classify("r#\"96\"#"), Literal::Str("96".into()));
        assert_eq!(classify("'a'"), Literal::Char);
        for other in ["b'a'", "b\"x\"", "c\"x\"", "0x", "0b102", "1-", "", "x"] {
            assert_eq!(classify(other), Literal::Other, "{other}");
        }
    }
}
