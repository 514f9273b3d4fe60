//! The Matrix Market reader never panics and the writers round-trip.
//!
//! (a) [`mtx::parse`] on arbitrary strings, on strings of Matrix Market
//! words, and on valid files mutated line by line (a line dropped,
//! duplicated, replaced or with two tokens swapped, a token replaced by a
//! huge or odd number): it returns, and an error names a line of the input
//! (or the one after the last) in a message that starts with `line N: `.
//!
//! (b) Random operators (1..=40 rows and columns, any density, exact zeros,
//! negative zeros, subnormal and extreme values) read back bit for bit from
//! both [`mtx::write_coordinate`] and [`mtx::write_array`].
//!
//! 256 cases a property by default (`PROPTEST_CASES` overrides).

use gemm_codegen::bespoke::{Operator, mtx};
use proptest::prelude::*;

/// Parses `text`, checking what an error promises.
fn check(text: &str) {
    if let Err(e) = mtx::parse(text) {
        let lines = text.lines().count();
        assert!(e.line <= lines + 1, "{e} for a text of {lines} lines");
        assert!(e.line > 0 || text.is_empty(), "{e}");
        assert!(e.to_string().starts_with(&format!("line {}: ", e.line)), "{e}");
    }
}

/// Tokens a Matrix Market file is made of, valid and not.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("%%MatrixMarket".to_string()),
        prop::sample::select(vec![
            "matrix",
            "vector",
            "coordinate",
            "array",
            "real",
            "double",
            "integer",
            "complex",
            "pattern",
            "general",
            "symmetric",
            "skew-symmetric",
            "hermitian",
            "%",
            "\n",
            "\r\n",
            "0",
            "1",
            "2",
            "3",
            "-1",
            "4096",
            "4097",
            "nan",
            "inf",
            "1e400",
            "18446744073709551616",
        ])
        .prop_map(str::to_string),
        (0u64..10).prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
    ]
}

/// A valid file: one of the writers' on a small operator, or a symmetric
/// or skew-symmetric literal.
fn valid() -> impl Strategy<Value = String> {
    let written = (1usize..=6, 1usize..=6, any::<bool>()).prop_flat_map(|(r, c, array)| {
        prop::collection::vec(prop_oneof![Just(0.0), -100.0..100.0f64], r * c).prop_map(move |v| {
            let a = Operator::from_row_major(r, c, v).unwrap();
            if array { mtx::write_array(&a) } else { mtx::write_coordinate(&a) }
        })
    });
    prop_oneof![
        written,
        Just(
            "%%MatrixMarket matrix coordinate integer symmetric\n% c\n3 3 3\n1 1 1\n2 1 -2\n3 3 4\n"
                .to_string()
        ),
        Just("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1.5\n-2\n3e-3\n".to_string()),
        Just("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n".to_string()),
    ]
}

/// Numbers that break size and index arithmetic.
fn odd_number() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "0",
        "-0",
        "-1",
        "4096",
        "4097",
        "65536",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
        "340282366920938463463374607431768211456",
        "99999999999999999999999999999999999999999999999999",
        "1e400",
        "-1e400",
        "NaN",
        "1.5",
        "",
    ])
    .prop_map(str::to_string)
}

/// One edit of a file's lines.
#[derive(Clone, Debug)]
enum Mutation {
    Drop(usize),
    Duplicate(usize),
    Replace(usize, String),
    Insert(usize, String),
    Swap(usize, usize, usize),
    Number(usize, usize, String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let n = 0usize..64;
    prop_oneof![
        n.clone().prop_map(Mutation::Drop),
        n.clone().prop_map(Mutation::Duplicate),
        (n.clone(), ".{0,30}").prop_map(|(i, s)| Mutation::Replace(i, s)),
        (n.clone(), prop::collection::vec(word(), 0..5)).prop_map(|(i, w)| Mutation::Insert(i, w.join(" "))),
        (n.clone(), 0usize..5, 0usize..5).prop_map(|(i, a, b)| Mutation::Swap(i, a, b)),
        (n, 0usize..5, odd_number()).prop_map(|(i, t, s)| Mutation::Number(i, t, s)),
    ]
}

/// `text` with `edits` applied to its lines.
fn mutate(text: &str, edits: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for edit in edits {
        if lines.is_empty() {
            break;
        }
        let at = |i: usize| i % lines.len();
        match edit {
            Mutation::Drop(i) => {
                lines.remove(at(*i));
            }
            Mutation::Duplicate(i) => {
                let i = at(*i);
                lines.insert(i, lines[i].clone());
            }
            Mutation::Replace(i, s) => {
                let i = at(*i);
                lines[i] = s.clone();
            }
            Mutation::Insert(i, s) => {
                let i = at(*i);
                lines.insert(i, s.clone());
            }
            Mutation::Swap(i, a, b) => {
                let i = at(*i);
                let mut tokens: Vec<&str> = lines[i].split_whitespace().collect();
                if !tokens.is_empty() {
                    let (a, b) = (a % tokens.len(), b % tokens.len());
                    tokens.swap(a, b);
                }
                lines[i] = tokens.join(" ");
            }
            Mutation::Number(i, t, s) => {
                let i = at(*i);
                let mut tokens: Vec<String> = lines[i].split_whitespace().map(str::to_string).collect();
                if tokens.is_empty() {
                    tokens.push(s.clone());
                } else {
                    let t = t % tokens.len();
                    tokens[t] = s.clone();
                }
                lines[i] = tokens.join(" ");
            }
        }
    }
    lines.join("\n")
}

/// An operator of 1..=40 rows and columns at a random density, its
/// non-zeros drawn from every kind of finite `f64`.
fn operator() -> impl Strategy<Value = Operator> {
    let value = prop_oneof![
        Just(-0.0),
        -1.0..1.0f64,
        prop::num::f64::NORMAL
            | prop::num::f64::SUBNORMAL
            | prop::num::f64::NEGATIVE
            | prop::num::f64::POSITIVE,
        (-1000i32..1000).prop_map(f64::from),
    ];
    (1usize..=40, 1usize..=40, 0.0..=1.0f64).prop_flat_map(move |(r, c, density)| {
        prop::collection::vec((0.0..1.0f64, value.clone()), r * c).prop_map(move |cells| {
            let values = cells.into_iter().map(|(u, v)| if u < density { v } else { 0.0 }).collect();
            Operator::from_row_major(r, c, values).unwrap()
        })
    })
}

fn bits(a: &Operator) -> Vec<u64> {
    a.values().iter().map(|v| v.to_bits()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn parse_never_panics_on_arbitrary_text(
        printable in "\\PC{0,200}",
        chars in prop::collection::vec(any::<char>(), 0..200),
    ) {
        check(&printable);
        check(&chars.into_iter().collect::<String>());
    }

    #[test]
    fn parse_never_panics_on_matrix_market_words(words in prop::collection::vec(word(), 0..40)) {
        check(&words.join(" "));
        check(&words.join("\n"));
    }

    #[test]
    fn parse_never_panics_on_mutated_files(
        text in valid(),
        edits in prop::collection::vec(mutation(), 1..4),
    ) {
        prop_assert!(mtx::parse(&text).is_ok(), "{}", text);
        check(&mutate(&text, &edits));
    }

    #[test]
    fn writers_round_trip_random_operators(a in operator()) {
        for text in [mtx::write_coordinate(&a), mtx::write_array(&a)] {
            let b = mtx::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(&b, &a);
            prop_assert_eq!(bits(&b), bits(&a));
        }
    }
}
