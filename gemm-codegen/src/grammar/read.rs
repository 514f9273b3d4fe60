//! Items → the spec: each value read against its parameter's shape; unknown,
//! duplicate and missing parameters. Every mistake is collected. The pass
//! over the items ([`pass`]) and the storing of what it read ([`store`])
//! take any table; [`interpret`] runs them on `gemm_kernel!`'s.

use super::literal::{Literal, classify, string_value};
use super::params::{BLANK, Elem, Got, PARAMS, Param, Shape, is_keyword, param, unknown};
use super::{Front, GrammarError, Item, Located, Location, Place, Reading, Token, Tuple, Value};

/// The errors of one value.
type Errors<L> = Vec<GrammarError<L>>;

/// What reading the items of a body against a table found, before any
/// value is stored: per row of the table, whether it was written and what
/// was read. Shared by every table ([`PARAMS`], and `gemm_bespoke!`'s).
pub(super) struct Pass<L> {
    /// The value of `name`, if given and an identifier.
    pub(super) name: Option<Token<L>>,
    /// Per row: the key as first written (a wrong value counts, so it is not
    /// reported missing too).
    pub(super) keys: Vec<Option<Token<L>>>,
    /// Per row: the value read and where, if it had the row's shape.
    pub(super) got: Vec<Option<(Got, Place<L>)>>,
    /// Every mistake, in the order of the body, then missing parameters.
    pub(super) errors: Errors<L>,
    /// Whether every row `front` requires was read.
    pub(super) complete: bool,
    /// The kernel's name, else the whole body: where "missing ..." and the
    /// violations of parameters left out point.
    pub(super) fallback: L,
}

/// Reads every item against `table`, then reports what `front` requires
/// and is missing.
pub(super) fn pass<L: Location, S, F>(
    table: &'static [Param<S, F>],
    items: &[Item<L>],
    whole: L,
    front: Front,
) -> Pass<L> {
    let mut errors = Vec::new();
    let mut keys: Vec<Option<Token<L>>> = vec![None; table.len()];
    let mut got: Vec<Option<(Got, Place<L>)>> = vec![None; table.len()];
    let mut name = None;
    for Item { key, value } in items {
        let written = key.unraw();
        let Some((index, param)) = param(table, written) else {
            errors.push(GrammarError { at: key.at, message: unknown(table, written) });
            continue;
        };
        if keys[index].is_some() {
            let message = format!("duplicate parameter `{written}`: remove one of the two");
            errors.push(GrammarError { at: key.at, message });
            continue;
        }
        keys[index] = Some(key.clone());
        let read = match param.shape {
            Shape::Name => self::name(value).map(|token| {
                let place = Place { at: token.at, elems: Vec::new() };
                name = Some(token);
                (Got::Word(0), place)
            }),
            _ => self::value(param, value),
        };
        match read {
            Ok(read) => got[index] = Some(read),
            Err(mut wrong) => errors.append(&mut wrong),
        }
    }

    // The kernel's name, when given, is where "this kernel lacks ..." reads
    // best; otherwise the whole body.
    let fallback = name.as_ref().map_or(whole, |n: &Token<L>| n.at);
    let mut complete = true;
    for (index, param) in table.iter().enumerate() {
        let Some(how) = param.need.how_to_add(front) else { continue };
        complete &= got[index].is_some();
        if keys[index].is_none() {
            let message = format!("missing parameter `{}`: {how}", param.key);
            errors.push(GrammarError { at: fallback, message });
        }
    }
    Pass { name, keys, got, errors, complete, fallback }
}

/// Reads a `gemm_kernel!` body's items into a [`Reading`].
pub(super) fn interpret<L: Location>(items: &[Item<L>], whole: L, front: Front) -> Reading<L> {
    let Pass { name, got, mut errors, complete, fallback, .. } = pass(PARAMS, items, whole, front);
    let mut located = Located::new(fallback);
    let mut spec = BLANK;
    let stored = store(PARAMS, got, &mut spec, &mut located.values, &mut errors);
    Reading { name, spec: (complete && stored).then_some(spec), located, errors }
}

/// Stores what a pass read into `spec`, row by row in the order of `table`
/// (so a row may depend on the rows above it); each value's place goes to
/// the same row of `places`. Whether every value was stored.
pub(super) fn store<L: Location, S, F>(
    table: &'static [Param<S, F>],
    got: Vec<Option<(Got, Place<L>)>>,
    spec: &mut S,
    places: &mut [Option<Place<L>>],
    errors: &mut Errors<L>,
) -> bool {
    let mut stored = true;
    for ((param, got), place) in table.iter().zip(got).zip(places) {
        let Some((got, at)) = got else { continue };
        if (param.set)(spec, &got).is_none() {
            // Reading gives every value its row's shape; a row whose `set`
            // expects another is a bug in the table, not in the body.
            let message =
                format!("internal error: `{}` was read as {got:?}, which its field does not take", param.key);
            errors.push(GrammarError { at: at.at, message });
            stored = false;
        }
        *place = Some(at);
    }
    stored
}

/// The value of `name`: an identifier that is not a keyword.
pub(super) fn name<L: Location>(value: &Value<L>) -> Result<Token<L>, Errors<L>> {
    let message = match value {
        Value::Word(word) if !is_keyword(&word.text) => return Ok(word.clone()),
        Value::Word(word) => format!("`name` cannot be the keyword `{}`: choose another name", word.text),
        _ => "`name` must be an identifier, the name of the kernel type to define, e.g. `SgemmNN`".to_owned(),
    };
    Err(vec![GrammarError { at: value.at(), message }])
}

/// A value of any other shape, with where it and its elements were written.
fn value<L: Location, S, F>(param: &Param<S, F>, value: &Value<L>) -> Result<(Got, Place<L>), Errors<L>> {
    let key = param.key;
    let expected = match param.shape {
        Shape::Tuple(names, _) => format!("a tuple {}", form(names)),
        Shape::Word(words) => one_of(words),
        Shape::Str => "a string literal".to_owned(),
        Shape::Name | Shape::Int => String::new(),
    };
    if let (Value::Word(t) | Value::Literal(t), Some(hint)) = (value, param.hint)
        && let Some(hint) = hint(&t.text)
    {
        return Err(vec![GrammarError { at: t.at, message: format!("`{key}` must be {expected}: {hint}") }]);
    }
    let place = |elems| Place { at: value.at(), elems };
    match param.shape {
        Shape::Word(words) => word(value, &format!("`{key}`"), words).map(|g| (g, place(Vec::new()))),
        Shape::Int => int(value, key).map(|g| (g, place(Vec::new()))),
        Shape::Str => string(value, key).map(|g| (g, place(Vec::new()))),
        Shape::Tuple(names, elem) => {
            let elems = tuple(value, key, names)?;
            let mut errors = Vec::new();
            let mut read = Vec::new();
            for (i, (value, name)) in elems.iter().zip(names).enumerate() {
                let got = match elem {
                    Elem::Word(words) => word(value, &format!("`{key}.{i}` ({name})"), words),
                    Elem::Int => int(value, &format!("{key}.{i}")),
                };
                match got {
                    Ok(got) => read.push(got),
                    Err(mut wrong) => errors.append(&mut wrong),
                }
            }
            if !errors.is_empty() {
                return Err(errors);
            }
            Ok((Got::Tuple(read), place(elems.iter().map(Value::at).collect())))
        }
        Shape::Name => name(value).map(|_| (Got::Word(0), place(Vec::new()))),
    }
}

/// The elements of a tuple of exactly `names.len()` elements.
fn tuple<'v, L: Location>(
    value: &'v Value<L>,
    key: &str,
    names: &[&str],
) -> Result<&'v [Value<L>], Errors<L>> {
    let form = form(names);
    let message = match value {
        Value::Tuple(Tuple { empty_element: true, .. }) => {
            format!("`{key}` has an empty element: remove the extra comma")
        }
        Value::Tuple(Tuple { elems, .. }) if elems.len() == names.len() => return Ok(elems),
        Value::Tuple(Tuple { elems, .. }) => {
            format!("`{key}` must have {} elements, {form}, not {}", names.len(), elems.len())
        }
        _ => format!("`{key}` must be a tuple {form}"),
    };
    Err(vec![GrammarError { at: value.at(), message }])
}

/// A value that is one of a few words (`precision`, `ldg`, an op), or of a
/// few literals written as they are listed (`beta = 0`). `what` names it in
/// messages.
fn word<L: Location>(value: &Value<L>, what: &str, words: &[&str]) -> Result<Got, Errors<L>> {
    let expected = one_of(words);
    let message = match value {
        Value::Word(Token { text, .. }) | Value::Literal(Token { text, .. }) => {
            match words.iter().position(|w| w == text) {
                Some(index) => return Ok(Got::Word(index)),
                None => match words.iter().find(|w| w.eq_ignore_ascii_case(text)) {
                    Some(w) => format!("{what} must be {expected}: write `{w}`"),
                    None => format!("{what} must be {expected}"),
                },
            }
        }
        _ => format!("{what} must be {expected}"),
    };
    Err(vec![GrammarError { at: value.at(), message }])
}

/// An unsigned integer literal that fits `u32` (a tuple element, or
/// `lds_width`). `label` names it in messages.
fn int<L: Location>(value: &Value<L>, label: &str) -> Result<Got, Errors<L>> {
    let message = match value {
        Value::Literal(Token { text, .. }) => match classify(text) {
            Literal::Int { digits, suffix } if suffix.is_empty() => match digits.parse::<u32>() {
                Ok(value) => return Ok(Got::Int(value)),
                Err(_) => format!("`{label}` ({digits}) is too large: use at most {}", u32::MAX),
            },
            Literal::Int { suffix, .. } => {
                format!("`{label}` must be an unsuffixed integer: remove `{suffix}`")
            }
            Literal::Str(s) if s.trim().parse::<u32>().is_ok() => {
                format!("`{label}` must be an integer literal, not a string: remove the quotes")
            }
            Literal::Str(_) => format!("`{label}` must be an integer literal, found a string"),
            Literal::Float => format!("`{label}` must be an integer literal, found a float"),
            Literal::Char => format!("`{label}` must be an integer literal, found a char"),
            Literal::Other => format!("`{label}` must be an integer literal, found another kind of literal"),
        },
        Value::Other { negative: true, .. } => {
            format!("`{label}` must be a positive integer literal: remove the `-`")
        }
        _ => format!("`{label}` must be an integer literal"),
    };
    Err(vec![GrammarError { at: value.at(), message }])
}

/// A string literal (a path), its escapes resolved. `label` names it in
/// messages.
fn string<L: Location>(value: &Value<L>, label: &str) -> Result<Got, Errors<L>> {
    let message = match value {
        Value::Literal(Token { text, .. }) => match string_value(text) {
            Some(Ok(text)) => return Ok(Got::Str(text)),
            Some(Err(why)) => format!("`{label}` {why}"),
            None => format!("`{label}` must be a string literal, found {}", kind(text)),
        },
        Value::Word(Token { text, .. }) => {
            format!("`{label}` must be a string literal: put `{text}` in double quotes")
        }
        _ => format!("`{label}` must be a string literal: put the path in double quotes"),
    };
    Err(vec![GrammarError { at: value.at(), message }])
}

/// "an integer", "a float", ...: a literal that is no string, as messages
/// name it.
fn kind(text: &str) -> &'static str {
    match classify(text) {
        Literal::Int { .. } => "an integer",
        Literal::Float => "a float",
        Literal::Char => "a char",
        Literal::Str(_) | Literal::Other => "another kind of literal",
    }
}

/// "`(a, b)`": the form of a tuple, as messages spell it.
fn form(names: &[&str]) -> String {
    format!("`({})`", names.join(", "))
}

/// "`a`, `b` or `c`".
fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}
