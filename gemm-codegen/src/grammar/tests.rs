//! The grammar through its text front end. That the macro reads the same
//! bodies with the same errors is checked in gemm-macros, which can run both.

use super::text::{self, SpecParseError};
use super::{ByteRange, Need, PARAMS};
use crate::constraints::{Field, ParamPath};
use crate::spec::{GlobalLoad, KernelSpec, LoadShape, Op, Precision};

const SGEMM_NN: &str = "precision = f32, op = (N, N), tile = (96, 96, 16), threads = (16, 16), \
                        load_a = (32, 8), load_b = (8, 32)";

fn sgemm_nn() -> KernelSpec {
    KernelSpec {
        precision: Precision::F32,
        op_a: Op::N,
        op_b: Op::N,
        m_blk: 96,
        n_blk: 96,
        k_blk: 16,
        m_dim: 16,
        n_dim: 16,
        load_a: LoadShape { lead: 32, cross: 8 },
        load_b: LoadShape { lead: 8, cross: 32 },
        lds_width: 1,
        ldg: GlobalLoad::Nc,
        ..super::params::BLANK
    }
}

fn fail(text: &str) -> SpecParseError {
    text.parse::<KernelSpec>().expect_err(text)
}

/// Every error of `text` as (the text it points at, its message).
fn errors(text: &str) -> Vec<(String, String)> {
    let error = fail(text);
    error.errors().iter().map(|e| (text[e.at.range()].to_owned(), e.message.clone())).collect()
}

#[test]
fn every_parameter_reaches_its_field() {
    let text = "name = Z, precision = c64, op = (T, C), tile = (1, 2, 3), threads = (4, 5), \
                load_a = (6, 7), load_b = (8, 9), lds_width = 10, ldg = cg";
    let spec = KernelSpec {
        precision: Precision::C64,
        op_a: Op::T,
        op_b: Op::C,
        m_blk: 1,
        n_blk: 2,
        k_blk: 3,
        m_dim: 4,
        n_dim: 5,
        load_a: LoadShape { lead: 6, cross: 7 },
        load_b: LoadShape { lead: 8, cross: 9 },
        lds_width: 10,
        ldg: GlobalLoad::Cg,
        ..super::params::BLANK
    };
    assert_eq!(text.parse(), Ok(spec));
}

#[test]
fn defaults_are_what_the_table_says() {
    for param in PARAMS {
        let Need::Optional(default) = param.need else { continue };
        let explicit = format!("{SGEMM_NN}, {} = {default}", param.key);
        assert_eq!(explicit.parse(), Ok(sgemm_nn()), "{}", param.key);
    }
    assert_eq!(SGEMM_NN.parse(), Ok(sgemm_nn()));
}

#[test]
fn name_is_optional_but_must_be_an_identifier() {
    assert_eq!(format!("name = SgemmNN, {SGEMM_NN}").parse(), Ok(sgemm_nn()));
    assert_eq!(format!("{SGEMM_NN}, name = r#SgemmNN").parse(), Ok(sgemm_nn()));
    assert_eq!(
        errors(&format!("name = struct, {SGEMM_NN}")),
        [("struct".into(), "`name` cannot be the keyword `struct`: choose another name".into())]
    );
    assert_eq!(errors(&format!("name = \"K\", {SGEMM_NN}"))[0].0, "\"K\"");
}

#[test]
fn the_invocation_and_comments_around_the_body() {
    for text in [
        format!("gemm_kernel! {{ name = SgemmNN, {SGEMM_NN} }}"),
        format!("gemm_kernel!({SGEMM_NN});"),
        format!("gemm_kernel! [\n  // the tile\n  {SGEMM_NN}, /* nested /* comment */ */\n]"),
        format!("  {SGEMM_NN},  "),
    ] {
        assert_eq!(text.parse(), Ok(sgemm_nn()), "{text}");
    }
    // A doc comment is an attribute to the compiler: a stray token here too.
    assert_eq!(
        errors(&format!("/// doc\n{SGEMM_NN}")),
        [("/// doc".into(), "expected a parameter name such as `tile`".into())]
    );
}

#[test]
fn messages_point_at_the_smallest_token() {
    let text = "name = Bad, precision = f8, op = (N, x), tile = (96, \"96\", 16u8), \
                threads = (16, 16, 1), load_a = (32, 8), tile = (1, 1, 1), tiles = 3, lds_width = -1";
    let expected = [
        ("f8", "`precision` must be `f32`, `f64`, `c32`, `c64`, `f16` or `bf16`"),
        ("x", "`op.1` (op(B)) must be `N`, `T` or `C`"),
        ("\"96\"", "`tile.1` must be an integer literal, not a string: remove the quotes"),
        ("16u8", "`tile.2` must be an unsuffixed integer: remove `u8`"),
        ("(16, 16, 1)", "`threads` must have 2 elements, `(M_dim, N_dim)`, not 3"),
        ("tile", "duplicate parameter `tile`: remove one of the two"),
        ("tiles", "unknown parameter `tiles`: did you mean `tile`?"),
        ("-1", "`lds_width` must be a positive integer literal: remove the `-`"),
        ("Bad", "missing parameter `load_b`: add `load_b = (lead, cross)`"),
    ];
    let errors = errors(text);
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for ((at, message), (want_at, want)) in errors.iter().zip(expected) {
        assert_eq!(at, want_at);
        assert!(message.starts_with(want), "{message:?} should start with {want:?}");
    }
    // The duplicate is the second `tile`.
    let error = fail(text);
    assert_eq!(error.errors()[5].at.start, text.rfind("tile =").unwrap());
}

#[test]
fn display_shows_each_message_and_its_text() {
    let error = fail("precision = f8,\n op = (N,\n N)");
    assert_eq!(
        error.to_string().lines().take(1).collect::<Vec<_>>(),
        ["`precision` must be `f32`, `f64`, `c32`, `c64`, `f16` or `bf16` (at `f8`)"]
    );
    // Missing parameters are about the body as a whole: no text to show.
    assert!(error.to_string().lines().nth(1).unwrap().starts_with("missing parameter `tile`: add"));
    assert!(!error.to_string().contains("(at `precision"));
    assert_eq!(error.errors().len(), 5);
}

#[test]
fn broken_structure_is_reported_alone() {
    let cases = [
        ("precision = f32, tile (96, 96, 16)", "(", "expected `=` after `tile`"),
        ("precision = f32, tile", "tile", "expected `=` after `tile`"),
        (
            "tile = 96, 96, 16",
            "96",
            "expected a parameter name such as `tile`: tuple values need parentheses, e.g. `tile = (96, 96, 16)`",
        ),
        ("precision =, op = (N, N)", "=", "expected a value after `precision =`"),
        ("precision = f32 =", "f32 =", "`precision` must be `f32`, `f64`, `c32`, `c64`, `f16` or `bf16`"),
        ("tile = (96, 96, 16", "(", "unclosed `(`: add `)`"),
        ("tile = (96, 96, 16]", "]", "mismatched `]`: the `(` before it needs `)`"),
        ("tile = 96)", ")", "unmatched `)`: remove it"),
        ("name = \"K", "\"", "unterminated string: add its closing quote"),
        ("name = K /* x", "/*", "unterminated comment: add `*/`"),
        ("name = K\\", "\\", "unexpected character `\\`: remove it"),
        ("name = K, precision = f32 §", "§", "unexpected character `§`: remove it"),
    ];
    for (text, at, message) in cases {
        let errors = errors(text);
        assert_eq!(errors[0], (at.to_owned(), message.to_owned()), "{text}");
        if !message.starts_with('`') {
            assert_eq!(errors.len(), 1, "{text}: {errors:?}");
        }
    }
}

#[test]
fn literals_of_every_kind() {
    let with_tile = |tile: &str| SGEMM_NN.replace("(96, 96, 16)", tile);
    assert_eq!(with_tile("(0x60, 0o140, 0b10000)").parse(), Ok(sgemm_nn()));
    assert_eq!(with_tile("(9_6, 96, 16,)").parse(), Ok(sgemm_nn()));
    let first = |tile: &str| errors(&with_tile(tile)).remove(0);
    let kinds = [
        ("(96.0, 96, 16)", "96.0", "`tile.0` must be an integer literal, found a float"),
        ("(1e3, 96, 16)", "1e3", "`tile.0` must be an integer literal, found a float"),
        ("('a', 96, 16)", "'a'", "`tile.0` must be an integer literal, found a char"),
        ("(b'a', 96, 16)", "b'a'", "`tile.0` must be an integer literal, found another kind of literal"),
        ("(\"x\", 96, 16)", "\"x\"", "`tile.0` must be an integer literal, found a string"),
        (
            "(r\"96\", 96, 16)",
            "r\"96\"",
            "`tile.0` must be an integer literal, not a string: remove the quotes",
        ),
        ("(96f32, 96, 16)", "96f32", "`tile.0` must be an unsuffixed integer: remove `f32`"),
        (
            "(0x1_0000_0000, 96, 16)",
            "0x1_0000_0000",
            "`tile.0` (4294967296) is too large: use at most 4294967295",
        ),
        ("(true, 96, 16)", "true", "`tile.0` must be an integer literal"),
        ("(9 6, 96, 16)", "9 6", "`tile.0` must be an integer literal"),
        ("(-96, 96, 16)", "-96", "`tile.0` must be a positive integer literal: remove the `-`"),
        ("[96, 96, 16]", "[96, 96, 16]", "`tile` must be a tuple `(M_blk, N_blk, K_blk)`"),
        ("(96, , 16)", "(96, , 16)", "`tile` has an empty element: remove the extra comma"),
        ("()", "()", "`tile` must have 3 elements, `(M_blk, N_blk, K_blk)`, not 0"),
    ];
    for (tile, at, message) in kinds {
        assert_eq!(first(tile), (at.to_owned(), message.to_owned()), "{tile}");
    }
}

#[test]
fn located_points_violations_at_their_tokens() {
    let text = format!("{SGEMM_NN}, lds_width = 2").replace("(96, 96, 16)", "( 96 , 88, 16 )");
    let (spec, located) = text::parse(&text).unwrap();
    let at = |field, index| &text[located.at(ParamPath { field, index }).range()];
    assert_eq!(at(Field::Tile, None), "( 96 , 88, 16 )");
    assert_eq!(at(Field::Tile, Some(1)), "88");
    assert_eq!(at(Field::Op, Some(1)), "N");
    assert_eq!(at(Field::LoadB, Some(0)), "8");
    assert_eq!(at(Field::LdsWidth, None), "2");
    // Left at its default, without a name: the whole body.
    assert_eq!(
        located.at(ParamPath { field: Field::Ldg, index: None }),
        ByteRange { start: 0, end: text.len() }
    );

    let violations = crate::validate(&spec).unwrap_err();
    let errors: Vec<_> = violations.iter().map(|v| located.error(v)).collect();
    assert_eq!(&text[errors[0].at.range()], "88");
    assert_eq!(errors[0].message, "`tile.1` (88) must be a multiple of `threads.1` (16)");
}
