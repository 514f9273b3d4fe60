//! The macro and `KernelSpec: FromStr` read the same bodies with the same
//! errors at the same tokens: a corpus of right and wrong bodies run through
//! both front ends, constraint violations included.

use gemm_codegen::KernelSpec;
use gemm_codegen::grammar::{ByteRange, GrammarError, text};

use super::check;

/// `name = K` and a legal SGEMM NN body, where `{tile}` and `{extra}` are
/// replaced.
const BASE: &str = "name = K, precision = f32, op = (N, N), tile = (96, 96, 16), threads = (16, 16), \
                    load_a = (32, 8), load_b = (8, 32)";

/// Right and wrong bodies, each with a name (see
/// [`name_is_the_only_difference`] for bodies without).
fn corpus() -> Vec<String> {
    let base = BASE.to_owned();
    let with = |from: &str, to: &str| {
        assert!(base.contains(from), "{from}");
        base.replace(from, to)
    };
    let plus = |extra: &str| format!("{base}, {extra}");
    vec![
        // Accepted.
        base.clone(),
        plus("lds_width = 2, ldg = ca"),
        plus("lds_width = 1, ldg = nc,"),
        plus(
            "arch = sm_80, stages = 3, ldg_width = 1, warps = (2, 4), raster = 8, unroll = 4, frag_sets = 2",
        ),
        "ldg = cg, load_b = (16, 16), load_a = (16, 16), threads = (16, 16), tile = (64, 64, 16), \
         op = (C, T), precision = c32, name = Cg,"
            .to_owned(),
        with("(96, 96, 16)", "(0x60, 0o140, 1_6)"),
        with("(32, 8)", "(32, 8,)"),
        with("tile =", "r#tile =").replace("name = K", "name = r#K"),
        with("op = (N, N)", "op = /* A, B */ (N, N) // ops\n"),
        // Pipeline rules.
        plus("unroll = 3"),
        plus("frag_sets = 4"),
        plus("unroll = 0"),
        plus("unroll = (2, 2)"),
        plus("stages = 3"),
        plus("warps = (4, 4)"),
        // Words.
        with("(N, N)", "(n, T)"),
        with("(N, N)", "NT"),
        with("(N, N)", "(N, X)"),
        with("f32", "f16"),
        with("f32", "F32"),
        with("f32", "32"),
        with("f32", "\"f32\""),
        plus("ldg = CG"),
        plus("ldg = lu"),
        // Parameters.
        plus("tiles = 3"),
        plus("foo = 1, lds_widht = 2"),
        plus("tile = (64, 64, 16)"),
        with(", threads = (16, 16)", ""),
        "name = K, precision = f32".to_owned(),
        // Tuples.
        with("(96, 96, 16)", "(96, 96)"),
        with("(8, 32)", "(8, , 32)"),
        with("(16, 16)", "256"),
        with("(32, 8)", "[32, 8]"),
        with("(96, 96, 16)", "()"),
        // Numbers.
        with("(96, 96, 16)", "(96u32, 96, 16f32)"),
        with("(16, 16)", "(16, 16_usize)"),
        with("(8, 32)", "(8, 4294967296)"),
        with("(8, 32)", "(8, 0x1_0000_0000_0000_0000_0000_0000_0000_0000)"),
        plus("lds_width = -1"),
        with("(16, 16)", "(16.0, 1e3)"),
        with("(96, 96, 16)", "(96, \"96\", 'a')"),
        with("(32, 8)", "(b'a', \"x\")"),
        plus("lds_width = true"),
        plus("lds_width = 2 + 2"),
        // Names.
        with("name = K", "name = struct"),
        with("name = K", "name = \"K\""),
        with("name = K", "name = (K)"),
        // Broken structure.
        with("tile =", "tile"),
        with("(96, 96, 16)", "96, 96, 16"),
        plus("lds_width ="),
        plus("lds_width"),
        with("tile =", "tile =="),
        with("f32", "f32 f64"),
        format!("/// doc\n{base}"),
        // Constraints, alone and with other mistakes.
        with("(96, 96, 16)", "(100, 88, 0)"),
        with("(96, 96, 16)", "(100, 96, 16)") + ", blocks = 2",
        plus("lds_width = 3"),
        plus("lds_width = 4"),
        with("(16, 16)", "(32, 64)"),
        with("(32, 8)", "(16, 8)").replace("(N, N)", "(T, N)"),
        "name = Bad, precision = f16, op = (N, X), tile = (96, \"96\", 16u8), threads = (16, 16, 1), \
         load_a = (32, 8), tile = (1, 1, 1), tiles = 3, foo = 1"
            .to_owned(),
    ]
}

/// What the text front end makes of `src`, as [`check`] reports the macro's:
/// whether it was accepted, and every error as (the text it points at, its
/// message), constraint violations last.
fn text_check(src: &str) -> (bool, Vec<(String, String)>) {
    let reading = text::read(src);
    let mut errors = reading.errors;
    let mut accepted = false;
    if let Some(spec) = reading.spec {
        match gemm_codegen::validate(&spec) {
            Ok(_) => accepted = errors.is_empty(),
            Err(violations) => errors.extend(violations.iter().map(|v| reading.located.error(v))),
        }
    }
    let whole = |e: &GrammarError<ByteRange>| e.at.start == 0 && e.at.end == src.len();
    // The macro's errors about the whole body point at the invocation, which
    // has no source text outside the compiler.
    let errors = errors
        .iter()
        .map(|e| (if whole(e) { String::new() } else { src[e.at.range()].to_owned() }, e.message.clone()))
        .collect();
    (accepted, errors)
}

#[test]
fn both_front_ends_accept_and_refuse_alike() {
    let corpus = corpus();
    assert!(corpus.len() >= 30);
    let mut accepted = 0;
    for src in &corpus {
        let (kernel, macro_errors) = check(src);
        let (text_accepted, text_errors) = text_check(src);
        assert_eq!(kernel.is_some() && macro_errors.is_empty(), text_accepted, "{src}");
        assert_eq!(macro_errors, text_errors, "{src}");
        if text_accepted {
            accepted += 1;
            let spec = *check(src).0.unwrap().plan.spec();
            assert_eq!(src.parse::<KernelSpec>(), Ok(spec), "{src}");
        } else {
            assert!(!macro_errors.is_empty(), "{src}");
        }
    }
    assert_eq!(accepted, 9, "the corpus starts with 9 legal bodies");
}

#[test]
fn name_is_the_only_difference() {
    // Without a name the macro stops before the constraints: take the bodies
    // whose spec, if any, passes them.
    let passes = |src: &str| text::read(src).spec.is_none_or(|spec| gemm_codegen::validate(&spec).is_ok());
    let mut bodies: Vec<String> = corpus()
        .iter()
        .filter(|src| src.starts_with("name = K, "))
        .map(|src| src.replacen("name = K, ", "", 1))
        .collect();
    bodies.retain(|src| passes(src));
    bodies.push(String::new());
    assert!(bodies.len() >= 20, "{}", bodies.len());
    let missing = (String::new(), NAME_MISSING.to_owned());
    for src in &bodies {
        let (kernel, macro_errors) = check(src);
        let (text_accepted, mut text_errors) = text_check(src);
        assert!(kernel.is_none(), "{src}");
        assert_eq!(text_accepted, text_errors.is_empty(), "{src}");
        if text_errors.first().is_some_and(|(_, m)| m.starts_with("expected")) {
            // A broken structure is reported alone, before names are looked at.
            assert_eq!(macro_errors, text_errors, "{src}");
            continue;
        }
        // The macro's one extra error, where missing parameters are reported:
        // after the rest, first of them.
        let at = text_errors
            .iter()
            .position(|(_, m)| m.starts_with("missing parameter"))
            .unwrap_or(text_errors.len());
        text_errors.insert(at, missing.clone());
        assert_eq!(macro_errors, text_errors, "{src}");
    }
}

const NAME_MISSING: &str =
    "missing parameter `name`: add `name = SgemmNN`, the name of the kernel type to define";

#[test]
fn keywords_are_refused_as_syn_refuses_them() {
    // Every word that `syn` will not take as an identifier, and a few it will.
    let words = [
        "_",
        "as",
        "async",
        "await",
        "break",
        "const",
        "crate",
        "dyn",
        "else",
        "false",
        "fn",
        "for",
        "if",
        "impl",
        "in",
        "let",
        "loop",
        "match",
        "mod",
        "move",
        "mut",
        "pub",
        "ref",
        "return",
        "Self",
        "self",
        "static",
        "struct",
        "super",
        "trait",
        "true",
        "type",
        "unsafe",
        "use",
        "where",
        "while",
        "abstract",
        "become",
        "box",
        "do",
        "final",
        "macro",
        "override",
        "priv",
        "typeof",
        "unsized",
        "virtual",
        "yield",
        "try",
        "union",
        "default",
        "raw",
        "safe",
        "macro_rules",
        "K",
        "SgemmNN",
    ];
    for word in words {
        if syn::parse_str::<syn::Ident>(word).is_err() {
            assert!(gemm_codegen::grammar::is_keyword(word), "{word}");
        }
    }
    assert!(!gemm_codegen::grammar::is_keyword("union"), "a weak keyword names a type");
}
