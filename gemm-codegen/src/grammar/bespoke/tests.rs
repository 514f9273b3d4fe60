//! The `gemm_bespoke!` grammar through its text front end. That the macro
//! reads the same bodies with the same errors is checked in gemm-macros.

use super::{BLANK, BespokeDraft, PARAMS, parse, read_text};
use crate::bespoke::{BespokeField, BespokeSpec, BetaMode, Form, MAX_NNZ, Operator, default_spec};
use crate::grammar::Need;
use crate::spec::{Precision, Target};

/// Every error of `text` as (the text it points at, its message).
fn errors(text: &str) -> Vec<(String, String)> {
    let reading = read_text(text);
    assert!(!reading.errors.is_empty(), "{text} has no error");
    reading.errors.iter().map(|e| (text[e.at.range()].to_owned(), e.message.clone())).collect()
}

/// The draft of a macro body given as text (`name` and `a` read, `family`
/// optional), with no error.
fn draft(text: &str) -> BespokeDraft {
    let trees = crate::grammar::text::lex(text).expect("lexes");
    let whole = crate::grammar::ByteRange { start: 0, end: text.len() };
    let reading = super::read(&trees, whole, crate::grammar::Front::Macro);
    assert_eq!(reading.errors, vec![], "{text}");
    reading.draft.expect("complete")
}

#[test]
fn every_parameter_reaches_its_field() {
    let text = "name = K, a = \"x.mtx\", precision = f32, family = cstream, width = 4, block = 64, msplit = 3, \
                chunk = 5, beta = 1, arch = sm_90";
    let spec = BespokeSpec {
        precision: Precision::F32,
        form: Form::CStream,
        width: 4,
        block: 64,
        msplit: 3,
        chunk: 5,
        beta: BetaMode::One,
        arch: Target::Sm90,
        ldb: None,
        ldc: None,
    };
    assert_eq!(text.parse(), Ok(spec));
    assert_eq!(draft(text), BespokeDraft::of(spec));
    let reading = read_text(text);
    assert_eq!(
        reading.path.as_ref().map(|(p, at)| (p.as_str(), &text[at.range()])),
        Some(("x.mtx", "\"x.mtx\""))
    );
    assert_eq!(reading.name.map(|n| n.text), Some("K".to_owned()));
}

#[test]
fn defaults_are_bespoke_spec_new() {
    let base = "precision = f64, family = bstream";
    let new = BespokeSpec::new(Precision::F64);
    assert_eq!(base.parse(), Ok(new));
    for param in PARAMS {
        let Need::Optional(default) = param.need else { continue };
        let explicit = format!("{base}, {} = {default}", param.key);
        assert_eq!(explicit.parse(), Ok(new), "{}", param.key);
    }
    assert_eq!(BLANK.given(), None);
    assert_eq!(BespokeDraft { family: Some(Form::BStream), ..BLANK }.given(), Some(new));
}

#[test]
fn display_reads_back_for_many_specs() {
    let mut count = 0;
    for precision in [Precision::F32, Precision::F64] {
        for form in Form::ALL {
            for (i, width) in [1, 2, 4, 3, 0, u32::MAX].into_iter().enumerate() {
                for beta in BetaMode::ALL {
                    for (j, arch) in Target::ALL.into_iter().enumerate() {
                        let spec = BespokeSpec {
                            precision,
                            form,
                            width,
                            block: [32, 128, 1024, 0, 48, u32::MAX][(i + j) % 6],
                            msplit: [1, 2, 3, 32, 0, 100][(i * 3 + j) % 6],
                            chunk: [16, 1, 8, 64, 0, 65][(i + 2 * j) % 6],
                            beta,
                            arch,
                            ldb: None,
                            ldc: None,
                        };
                        let text = spec.to_string();
                        assert_eq!(text.parse(), Ok(spec), "{text}");
                        let wrapped = format!("gemm_bespoke! {{ name = K, a = \"k.mtx\", {text} }}");
                        assert_eq!(wrapped.parse(), Ok(spec), "{wrapped}");
                        count += 1;
                    }
                }
            }
        }
    }
    assert_eq!(count, 2 * Form::ALL.len() * 6 * 3 * Target::ALL.len());
    // Every candidate the tuner times for a real operator.
    let a = crate::bespoke::operators::random_sparse(40, 30, 0.2, 7).unwrap();
    for precision in [Precision::F32, Precision::F64] {
        let all = crate::bespoke::candidates(&a, precision, BetaMode::Zero, Target::Sm86);
        assert!(all.len() >= 4);
        for spec in all {
            assert_eq!(spec.to_string().parse(), Ok(spec));
        }
    }
}

#[test]
fn messages_point_at_the_smallest_token() {
    let text = "name = Bad, a = hex.mtx, precision = c64, family = BStream, width = -1, block = \"64\", \
                beta = 2, arch = sm80, chunk = 16u8, msplit = 1.5, beta = 0, famliy = cstream";
    let expected = [
        ("hex.mtx", "`a` must be a string literal: put the path in double quotes"),
        ("c64", "`precision` must be `f32` or `f64`: bespoke kernels are real, write `f64`"),
        ("BStream", "`family` must be `bstream`, `cstream`, `mma` or `bsplit`: write `bstream`"),
        ("-1", "`width` must be a positive integer literal: remove the `-`"),
        ("\"64\"", "`block` must be an integer literal, not a string: remove the quotes"),
        ("2", "`beta` must be `0`, `1` or `runtime`"),
        (
            "sm80",
            "`arch` must be `sm_70`, `sm_75`, `sm_80`, `sm_86`, `sm_89`, `sm_90` or `sm_90a`: write `sm_80`",
        ),
        ("16u8", "`chunk` must be an unsuffixed integer: remove `u8`"),
        ("1.5", "`msplit` must be an integer literal, found a float"),
        ("beta", "duplicate parameter `beta`: remove one of the two"),
        ("famliy", "unknown parameter `famliy`: did you mean `family`?"),
    ];
    let errors = errors(text);
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for ((at, message), (want_at, want)) in errors.iter().zip(expected) {
        assert_eq!((at.as_str(), message.as_str()), (want_at, want));
    }
}

#[test]
fn the_path_is_a_string_literal() {
    let first = |a: &str| errors(&format!("precision = f32, a = {a}")).remove(0);
    assert_eq!(
        first("hex"),
        ("hex".into(), "`a` must be a string literal: put `hex` in double quotes".into())
    );
    assert_eq!(first("3"), ("3".into(), "`a` must be a string literal, found an integer".into()));
    assert_eq!(
        first("b\"x\""),
        ("b\"x\"".into(), "`a` must be a string literal, found another kind of literal".into())
    );
    assert_eq!(
        first("\"x\"s"),
        ("\"x\"s".into(), "`a` must be an unsuffixed string literal: remove `s`".into())
    );
    assert!(first("\"\\q\"").1.starts_with("`a` has an unknown escape `\\q`: write `\\\\` for a backslash"));
    let path = |text: &str| read_text(text).path.map(|(p, _)| p);
    assert_eq!(path("a = \"dir/x y.mtx\""), Some("dir/x y.mtx".into()));
    assert_eq!(path("a = r\"C:\\ops\\x.mtx\""), Some("C:\\ops\\x.mtx".into()));
    assert_eq!(path("a = \"\\u{e9}.mtx\""), Some("é.mtx".into()));
}

#[test]
fn the_walk_needs_its_family() {
    let macro_body = "name = K, a = \"k.mtx\", precision = f32, beta = 0";
    assert_eq!(draft(macro_body), BespokeDraft { precision: Precision::F32, beta: BetaMode::Zero, ..BLANK });
    let trees =
        crate::grammar::text::lex("name = K, a = \"k.mtx\", precision = f32, width = 2, chunk = 8").unwrap();
    let whole = crate::grammar::ByteRange { start: 0, end: 0 };
    let reading = super::read(&trees, whole, crate::grammar::Front::Macro);
    let messages: Vec<&str> = reading.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "`width` needs `family`: add `family = bstream` (or `cstream`, `mma`, `bsplit`), or remove `width` to take the operator's default spec",
            "`chunk` needs `family`: add `family = bstream` (or `cstream`, `mma`, `bsplit`), or remove `chunk` to take the operator's default spec",
        ]
    );
    // Text has no operator: `family` is required there.
    let errors = errors("precision = f64, beta = runtime");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].1.starts_with(
            "missing parameter `family`: add `family = bstream` (or `cstream`, `mma`, `bsplit`)"
        ),
        "{errors:?}"
    );
}

#[test]
fn the_macro_requires_name_and_a() {
    let trees = crate::grammar::text::lex("precision = f64").unwrap();
    let whole = crate::grammar::ByteRange { start: 0, end: 15 };
    let reading = super::read(&trees, whole, crate::grammar::Front::Macro);
    let messages: Vec<&str> = reading.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].starts_with("missing parameter `name`: add `name = HexGrad`"));
    assert!(messages[1].starts_with("missing parameter `a`: add `a = \"operator.mtx\"`"));
    assert_eq!(reading.draft, None);
    // Text ignores both.
    assert!(
        "name = K, a = \"nowhere.mtx\", precision = f64, family = bstream".parse::<BespokeSpec>().is_ok()
    );
}

#[test]
fn broken_structure_is_reported_alone_with_the_name() {
    let reading = read_text("name = K, precision = f64, family bstream, width = x");
    assert_eq!(reading.errors.len(), 1);
    assert_eq!(reading.errors[0].message, "expected `=` after `family`");
    assert_eq!(reading.name.map(|n| n.text), Some("K".to_owned()));
    assert_eq!(errors("a = \"x")[0].1, "unterminated string: add its closing quote");
}

#[test]
fn located_points_at_values_and_the_name_for_the_rest() {
    let text = "name = K, a = \"k.mtx\", precision = f32, family = bstream, msplit = 40";
    let trees = crate::grammar::text::lex(text).unwrap();
    let whole = crate::grammar::ByteRange { start: 0, end: text.len() };
    let reading = super::read(&trees, whole, crate::grammar::Front::Macro);
    let at = |field| &text[reading.located.at(field).range()];
    assert_eq!(at(BespokeField::Operator), "\"k.mtx\"");
    assert_eq!(at(BespokeField::Precision), "f32");
    assert_eq!(at(BespokeField::Form), "bstream");
    assert_eq!(at(BespokeField::Msplit), "40");
    assert_eq!(at(BespokeField::Chunk), "K");
    let spec = reading.draft.unwrap().given().unwrap();
    let a = Operator::from_fn(8, 8, |i, j| (i + j) as f64).unwrap();
    let violations = crate::bespoke::validate(&a, &spec).unwrap_err();
    let error = reading.located.error(&violations[0]);
    assert_eq!(
        (&text[error.at.range()], error.message.as_str()),
        ("40", "msplit is 1 to 32 groups of threads, not 40")
    );
}

#[test]
fn spec_for_takes_the_given_spec_or_the_default() {
    let a = crate::bespoke::operators::random_sparse(48, 40, 0.1, 1).unwrap();
    let d = BespokeDraft { precision: Precision::F64, beta: BetaMode::Zero, arch: Target::Sm90, ..BLANK };
    assert_eq!(d.spec_for(&a), Ok(default_spec(&a, Precision::F64, BetaMode::Zero, Target::Sm90).unwrap()));
    let given = BespokeDraft { family: Some(Form::CStream), width: 7, ..d };
    assert_eq!(given.spec_for(&a), Ok(given.given().unwrap()), "not validated here");
}

#[test]
fn spec_for_says_why_no_family_takes_the_operator() {
    let small = Operator::from_fn(4, 4, |i, j| (i * 4 + j + 1) as f64).unwrap();
    let d = BespokeDraft { precision: Precision::F64, ..BLANK };
    let fields = |d: BespokeDraft, a: &Operator| {
        d.spec_for(a).unwrap_err().into_iter().map(|v| (v.field, v.message)).collect::<Vec<_>>()
    };
    let complex = fields(BespokeDraft { precision: Precision::C64, ..d }, &small);
    assert_eq!(
        complex,
        [(BespokeField::Precision, "bespoke kernels are real: use f32 or f64, not c64".to_owned())]
    );
    let sm90a = fields(BespokeDraft { arch: Target::Sm90a, ..d }, &small);
    assert_eq!(sm90a[0].0, BespokeField::Arch);
    // Too many non-zeros for any unrolled kernel, and too large a dense
    // operator for the tensor-core form's data.
    let dense = Operator::from_fn(600, 600, |_, _| 1.0).unwrap();
    assert!(dense.nnz() > MAX_NNZ);
    assert_eq!(fields(d, &dense)[0].0, BespokeField::Operator);
    // 400 rows and 400 columns, one non-zero each: no thread holds every
    // row; on sm_70, which cannot stage B (no cp.async), the rows split
    // over blocks.
    let diagonal = Operator::from_fn(400, 400, |i, j| if i == j { 2.0 } else { 0.0 }).unwrap();
    let old = BespokeDraft { arch: Target::Sm70, ..d }.spec_for(&diagonal).unwrap();
    assert_eq!((old.form, old.arch), (Form::Split, Target::Sm70));
    assert!(d.spec_for(&diagonal).is_ok());
    // 4096 rows, 4096 columns: no msplit up to 32 holds 128 rows of f64.
    let tall = Operator::from_fn(4096, 4096, |i, j| if i == j { 2.0 } else { 0.0 }).unwrap();
    let none = fields(d, &tall);
    assert_eq!(none[0].0, BespokeField::Operator);
    assert!(
        none[0].1.starts_with("no bespoke kernel fits this 4096 x 4096 operator (4096 non-zeros)"),
        "{}",
        none[0].1
    );
}

#[test]
fn messages_are_lowercase_without_trailing_period() {
    let texts = [
        "name = 1, a = 2, precision = x, family = y, width = z, block = (1), msplit = [], chunk = -1, beta = f, \
         arch = 80, what = 1",
        "precision = f32",
        "a = \"x\", a = \"y\"",
        "width = 2",
    ];
    for text in texts {
        for (_, message) in errors(text) {
            assert!(message.starts_with(|c: char| !c.is_uppercase()), "{message}");
            assert!(!message.ends_with('.'), "{message}");
        }
    }
}

#[test]
fn parse_hands_back_where_values_were() {
    let text = "precision = f64, family = bstream, width = 4";
    let (spec, located) = parse(text).unwrap();
    assert_eq!(spec.width, 4);
    assert_eq!(&text[located.at(BespokeField::Width).range()], "4");
    assert_eq!(located.at(BespokeField::Arch).range(), 0..text.len(), "left out: the whole body");
}

#[test]
fn word_lists_follow_the_enums_and_every_field_has_one_row() {
    assert_eq!(super::PRECISIONS, super::REAL.map(Precision::token));
    assert_eq!(super::FAMILIES, Form::ALL.map(Form::token));
    assert_eq!(super::BETAS, BetaMode::ALL.map(BetaMode::token));
    let fields = {
        use BespokeField::*;
        [Precision, Form, Width, Block, Msplit, Chunk, Beta, Arch, Ldb, Ldc, Operator]
    };
    for field in fields {
        let rows: Vec<_> = PARAMS.iter().filter(|p| p.field == Some(field)).collect();
        assert_eq!(rows.len(), 1, "{field:?}");
        assert_eq!(rows[0].key, field.key());
    }
    let keys: std::collections::HashSet<_> = PARAMS.iter().map(|p| p.key).collect();
    assert_eq!(keys.len(), PARAMS.len(), "keys are unique");
}

/// `ldb = N` and `ldc = N` fix the strides; left out, they are arguments.
/// Both read back from `Display`, and the rules refuse a zero stride and
/// one that breaks the vectors of `width`, each at its own value.
#[test]
fn fixed_strides_read_back_and_are_checked() {
    let text = "precision = f32, family = bstream, width = 4, ldb = 4096, ldc = 8192";
    let spec: BespokeSpec = text.parse().unwrap();
    assert_eq!((spec.ldb, spec.ldc), (Some(4096), Some(8192)));
    assert_eq!(spec.to_string().parse(), Ok(spec));
    assert!(spec.to_string().ends_with(", ldb = 4096, ldc = 8192"), "{spec}");
    let only_b: BespokeSpec = "precision = f64, family = bstream, ldb = 7".parse().unwrap();
    assert_eq!((only_b.ldb, only_b.ldc), (Some(7), None));
    assert!(only_b.takes_strides(7, 123) && !only_b.takes_strides(8, 123));
    assert!(BespokeSpec::new(Precision::F64).takes_strides(1, u64::MAX));
    // Packed at n: fixed where n keeps width's vectors aligned, else as is.
    let w4 = BespokeSpec { ldb: None, ldc: None, ..spec };
    assert_eq!((w4.packed_at(96).ldb, w4.packed_at(96).ldc), (Some(96), Some(96)));
    assert_eq!(w4.packed_at(98), w4);
    assert_eq!(w4.packed_at(96).with_runtime_strides(), w4);

    let a = Operator::from_fn(4, 3, |i, j| (i + j) as f64).unwrap();
    let check = |text: &str| {
        let spec: BespokeSpec = text.parse().unwrap();
        crate::bespoke::validate(&a, &spec).err().unwrap_or_default()
    };
    let zero = check("precision = f64, family = bstream, ldc = 0");
    assert_eq!(zero.len(), 1, "{zero:?}");
    assert_eq!(
        (zero[0].field, zero[0].message.as_str()),
        (BespokeField::Ldc, "ldc is a row stride of at least 1 element, not 0")
    );
    let odd = check("precision = f32, family = bstream, width = 4, ldb = 4098");
    assert_eq!(odd.len(), 1, "{odd:?}");
    assert_eq!(odd[0].field, BespokeField::Ldb);
    assert!(odd[0].message.contains("use a multiple of 4, or width = 1"), "{}", odd[0].message);
    assert!(check("precision = f32, family = bstream, width = 4, ldb = 4096, ldc = 4").is_empty());
    // Where the macro points: at the value.
    let text = "name = K, a = \"k.mtx\", precision = f64, family = bstream, ldb = 0";
    let located = read_text(text).located;
    assert_eq!(&text[located.at(BespokeField::Ldb).range()], "0");
}
