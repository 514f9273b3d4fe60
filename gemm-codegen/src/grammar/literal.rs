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
