//! `BespokeSpec: FromStr` (the `gemm_bespoke!` grammar) on arbitrary input:
//! it never panics, every error points inside the text, whatever it accepts
//! prints back to itself, and any numeric field value is read or refused
//! with a message. `PROPTEST_CASES` overrides the 4096 cases of each
//! property.

use gemm_codegen::bespoke::{BespokeSpec, BetaMode, Form, Operator};
use gemm_codegen::grammar::bespoke::{self, PARAMS};
use gemm_codegen::{Precision, Target};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(4096);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Reads `text` and checks what holds for any input.
fn check(text: &str) -> Result<(), TestCaseError> {
    let reading = bespoke::read_text(text);
    for error in &reading.errors {
        prop_assert!(error.at.start <= error.at.end && error.at.end <= text.len(), "{error:?} in {text:?}");
        prop_assert!(text.get(error.at.range()).is_some(), "{error:?} splits a character of {text:?}");
        prop_assert!(!error.message.is_empty() && !error.message.ends_with('.'));
        prop_assert!(!error.message.starts_with(|c: char| c.is_uppercase()), "{}", error.message);
    }
    if let Some((_, at)) = &reading.path {
        prop_assert!(text.get(at.range()).is_some());
    }
    match text.parse::<BespokeSpec>() {
        Ok(spec) => {
            prop_assert!(reading.errors.is_empty());
            prop_assert_eq!(spec.to_string().parse::<BespokeSpec>(), Ok(spec));
            // The draft the macro front end would read takes the same spec.
            let draft = reading.draft.expect("accepted text has a draft");
            prop_assert_eq!(draft.given(), Some(spec));
        }
        Err(error) => {
            prop_assert_eq!(error.errors(), &reading.errors[..]);
            prop_assert!(!error.errors().is_empty());
            prop_assert!(!error.to_string().is_empty());
        }
    }
    // Whatever was read, choosing a spec for an operator does not panic.
    if let Some(draft) = reading.draft {
        let a = Operator::from_fn(3, 5, |i, j| if (i + j) % 2 == 0 { 1.5 } else { 0.0 }).expect("legal");
        let _ = draft.spec_for(&a).map(|spec| gemm_codegen::bespoke::validate(&a, &spec));
    }
    Ok(())
}

/// Pieces of bodies, right and wrong: keys, words, numbers of every kind,
/// strings, brackets, comments and characters the lexer must refuse.
fn fragment() -> impl Strategy<Value = String> {
    let keys: Vec<String> = PARAMS.iter().map(|p| p.key.to_owned()).collect();
    let fixed = [
        "=",
        ",",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "-",
        "!",
        ";",
        "'",
        "\"",
        "f32",
        "f64",
        "c64",
        "F64",
        "32",
        "bstream",
        "cstream",
        "BStream",
        "runtime",
        "0",
        "1",
        "2",
        "sm_80",
        "sm80",
        "sm_90a",
        "80",
        "x",
        "true",
        "struct",
        "r#width",
        "gemm_bespoke",
        "famliy",
        "0x20",
        "0b102",
        "1.5",
        "1e3",
        "128u8",
        "16_usize",
        "\"hex.mtx\"",
        "\"\\q\"",
        "\"\\u{e9}\"",
        "r#\"a\\b\"#",
        "\"x\"suf",
        "b\"x\"",
        "'a'",
        "//c\n",
        "/* c */",
        "/*",
        "*/",
        "///d\n",
        "\\",
        "§",
        "é",
        "\u{0}",
        "1..2",
    ];
    prop_oneof![
        prop::sample::select(keys),
        prop::sample::select(fixed.map(str::to_owned).to_vec()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<u32>().prop_map(|n| format!("{n:#x}")),
        "[a-zA-Z_][a-zA-Z0-9_]{0,6}",
        "[0-9][0-9a-z_.]{0,8}",
        "\"[ -~]{0,8}\"",
    ]
}

fn specs() -> impl Strategy<Value = BespokeSpec> {
    (
        prop::sample::select(vec![Precision::F32, Precision::F64]),
        prop::sample::select(Form::ALL.to_vec()),
        any::<[u32; 4]>(),
        prop::sample::select(BetaMode::ALL.to_vec()),
        prop::sample::select(Target::ALL.to_vec()),
        any::<[Option<u32>; 2]>(),
    )
        .prop_map(|(precision, form, [width, block, msplit, chunk], beta, arch, [ldb, ldc])| {
            BespokeSpec { precision, form, width, block, msplit, chunk, beta, arch, ldb, ldc }
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_text(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn any_printable_text(text in "[ -~\n]{0,80}") {
        check(&text)?;
    }

    #[test]
    fn soups_of_fragments(parts in prop::collection::vec((fragment(), prop::sample::select(vec!["", " ", "\n"])), 0..24)) {
        let text: String = parts.iter().map(|(part, space)| format!("{part}{space}")).collect();
        check(&text)?;
    }

    #[test]
    fn soups_of_items(items in prop::collection::vec((fragment(), fragment()), 0..12), wrap in any::<bool>()) {
        let body = items.iter().map(|(key, value)| format!("{key} = {value}")).collect::<Vec<_>>().join(", ");
        check(&if wrap { format!("gemm_bespoke! {{ {body} }}") } else { body })?;
    }

    #[test]
    fn every_spec_prints_and_reads_back(spec in specs()) {
        prop_assert_eq!(spec.to_string().parse::<BespokeSpec>(), Ok(spec));
        let invocation = format!("gemm_bespoke! {{ name = K, a = \"k.mtx\", {spec} }}");
        prop_assert_eq!(invocation.parse::<BespokeSpec>(), Ok(spec));
    }

    /// Any whole number, in any of the four numeric fields: read when it
    /// fits `u32`, else refused at its digits with the largest value allowed.
    #[test]
    fn numeric_fields_take_any_number(field in 0usize..4, value in prop_oneof![any::<u32>().prop_map(u128::from), any::<u128>()]) {
        let key = ["width", "block", "msplit", "chunk"][field];
        let text = format!("precision = f64, family = bstream, {key} = {value}");
        check(&text)?;
        match u32::try_from(value) {
            Ok(fits) => {
                let spec: BespokeSpec = text.parse().expect("a u32 is read");
                prop_assert_eq!([spec.width, spec.block, spec.msplit, spec.chunk][field], fits);
            }
            Err(_) => {
                let error = text.parse::<BespokeSpec>().expect_err("too large");
                prop_assert_eq!(error.errors().len(), 1);
                prop_assert_eq!(&text[error.errors()[0].at.range()], value.to_string());
                prop_assert!(error.errors()[0].message.ends_with("use at most 4294967295"));
            }
        }
    }

    /// Any numbers, read and then validated against a small operator:
    /// validation and compilation never panic either.
    #[test]
    fn any_numbers_validate_without_panic(spec in specs(), small in any::<[u8; 4]>()) {
        // Small values as often as huge ones, so that some specs are legal.
        let [w, b, m, c] = small.map(u32::from);
        let near = BespokeSpec { width: w % 5, block: b * 4, msplit: m % 40, chunk: c % 70, ..spec };
        for spec in [spec, near] {
            let read: BespokeSpec = spec.to_string().parse().expect("reads back");
            prop_assert_eq!(read, spec);
            let a = Operator::from_fn(7, 6, |i, j| if (i * j) % 3 == 1 { -0.5 } else { 0.0 }).expect("legal");
            if let Ok(image) = gemm_codegen::bespoke::compile(&a, &read) {
                prop_assert!(image.ptx.contains(&*image.entry));
            }
        }
    }
}
