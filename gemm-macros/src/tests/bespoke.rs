//! `gemm_bespoke!`'s phases on token streams outside the compiler: which
//! token each error points at, what the expansion holds, and that the macro
//! and `BespokeSpec: FromStr` read the same bodies with the same errors.

use std::path::PathBuf;

use gemm_codegen::bespoke::{self, BespokeSpec, BetaMode, mtx, operators};
use gemm_codegen::grammar::bespoke::read_text;
use gemm_codegen::{Precision, Target};

use super::tokens;
use crate::bespoke::{expand, parse, validate};
use crate::ctxt::Ctxt;

/// The doc example's operator, relative to gemm-macros' Cargo.toml (the
/// tests run with it as `CARGO_MANIFEST_DIR`, as the compiler does).
const DOC_MTX: &str = "doc/second-difference.mtx";

/// A body for the doc example's operator, with `rest` after `a`.
fn body(rest: &str) -> String {
    format!("name = K, a = \"{DOC_MTX}\", {rest}")
}

/// Parses and validates `src`: the kernel, if it passed, and every error as
/// (the source text it points at, its message).
fn check(src: &str) -> (Option<validate::Kernel>, Vec<(String, String)>) {
    let mut cx = Ctxt::default();
    let parsed = parse::parse(tokens(src), &mut cx);
    let kernel = parsed.tokens.and_then(|t| validate::validate(t, &mut cx));
    let errors = match cx.finish() {
        Ok(()) => Vec::new(),
        Err(e) => {
            e.into_iter().map(|e| (e.span().source_text().unwrap_or_default(), e.to_string())).collect()
        }
    };
    (kernel, errors)
}

/// The errors of an invocation that must fail.
fn fail(src: &str) -> Vec<(String, String)> {
    let (kernel, errors) = check(src);
    assert!(kernel.is_none() || !errors.is_empty(), "{src} passed");
    assert!(!errors.is_empty(), "{src} has no error");
    errors
}

/// Writes `text` to a fresh file of this test process and returns its
/// absolute path, as the literal of `a` takes it.
fn scratch(name: &str, text: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("gemm-macros-bespoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).expect("a scratch file");
    path.to_str().expect("a unicode temp dir").to_owned()
}

#[test]
fn the_doc_example_parses_validates_and_expands() {
    let (kernel, errors) = check(&body("precision = f64, family = bstream, width = 2, beta = 0"));
    assert_eq!(errors, vec![]);
    let kernel = kernel.unwrap();
    assert_eq!(kernel.name, "K");
    let spec = BespokeSpec { width: 2, beta: BetaMode::Zero, ..BespokeSpec::new(Precision::F64) };
    assert_eq!(kernel.plan.spec(), &spec);
    assert!(!kernel.default);
    let expected = std::path::absolute(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(DOC_MTX)).unwrap();
    assert_eq!(PathBuf::from(&kernel.file), expected);
    assert_eq!(kernel.runtime.to_string(), ":: gemm_codegen");

    let output = expand::kernel(&kernel);
    let file: syn::File = syn::parse2(output).expect("the expansion is valid Rust");
    let [syn::Item::Struct(item), syn::Item::Impl(imp), syn::Item::Const(include)] = &file.items[..] else {
        panic!("expected a struct, an impl and a const, got {}", file.items.len());
    };
    assert_eq!(item.ident, "K");
    assert!(matches!(item.vis, syn::Visibility::Public(_)));
    assert_eq!(imp.items.len(), 7, "Elem and six constants");
    let image =
        bespoke::compile(&mtx::parse(&std::fs::read_to_string(&expected).unwrap()).unwrap(), &spec).unwrap();
    let text = quote::quote!(#imp).to_string();
    assert!(text.contains(":: gemm_codegen :: bespoke :: BespokeKernel for K"), "{text}");
    assert!(text.contains(&format!("{:?}", image.entry)), "ENTRY");
    assert!(text.contains(&format!("DIGEST : :: core :: primitive :: u64 = {}", image.digest)));
    assert!(text.contains("M : :: core :: primitive :: u32 = 6"));
    assert!(text.contains("type Elem = :: core :: primitive :: f64"));
    assert!(text.contains("form : :: gemm_codegen :: bespoke :: Form :: BStream"));
    assert!(text.contains("beta : :: gemm_codegen :: bespoke :: BetaMode :: Zero"));
    assert!(text.contains("arch : :: gemm_codegen :: Target :: Sm80"));
    let include = quote::quote!(#include).to_string();
    assert!(
        include.starts_with("const _ : & [:: core :: primitive :: u8] = :: core :: include_bytes !"),
        "{include}"
    );
    assert!(include.contains(&format!("{:?}", kernel.file)), "{include}");

    let doc = expand::doc(&kernel, &image, 16);
    assert!(
        doc.starts_with("Bespoke DGEMM kernel: `C = alpha·A·B + beta·C` with the constant 6 × 6 operator")
    );
    assert!(doc.contains(&format!("gemm_bespoke! {{ name = K, a = \"{DOC_MTX}\", {spec} }}")), "{doc}");
    assert!(doc.contains("must be multiples of 2 elements"), "{doc}");
    assert!(!doc.contains("`family` was left out"));
}

#[test]
fn without_family_the_spec_is_the_operators_default() {
    let (kernel, errors) = check(&body("precision = f32, beta = 1, arch = sm_90"));
    assert_eq!(errors, vec![]);
    let kernel = kernel.unwrap();
    let a = kernel.plan.operator().clone();
    let default = bespoke::default_spec(&a, Precision::F32, BetaMode::One, Target::Sm90).unwrap();
    assert_eq!(kernel.plan.spec(), &default);
    assert!(kernel.default);
    let image = bespoke::emit(&kernel.plan);
    assert!(expand::doc(&kernel, &image, a.nnz()).contains("`family` was left out"));
}

#[test]
fn file_errors_point_at_the_path_with_the_files_line() {
    let missing = fail("name = K, a = \"no/such.mtx\", precision = f64");
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].0, "\"no/such.mtx\"");
    assert_eq!(
        missing[0].1,
        "cannot read `no/such.mtx`: no such file; give the operator's path relative to the directory of this \
         crate's Cargo.toml"
    );
    let directory = fail("name = K, a = \"doc\", precision = f64");
    assert_eq!(
        directory,
        [(
            "\"doc\"".to_owned(),
            "cannot read `doc`: is a directory; name a readable Matrix Market file".to_owned()
        )]
    );
    let cases: [(&str, &[u8], &str); 5] = [
        ("header.mtx", b"%%MatrixMarket matrix array real upper\n1 1\n1\n", ":1: unknown symmetry `upper`"),
        (
            "range.mtx",
            b"%%MatrixMarket matrix coordinate real general\n2 2 1\n%\n3 1 1\n",
            ":4: row index 3 is outside 1..=2",
        ),
        (
            "nan.mtx",
            b"%%MatrixMarket matrix array real general\n1 2\n1\nNaN\n",
            ":4: value `NaN` is not finite",
        ),
        ("empty.mtx", b"", ": the input is empty"),
        (
            "latin1.mtx",
            b"%%MatrixMarket matrix array real general\n% caf\xe9\n1 1\n1\n",
            ":2: a byte that is not utf-8 text",
        ),
    ];
    for (name, text, message) in cases {
        let path = scratch(name, text);
        let errors = fail(&format!("name = K, a = {path:?}, precision = f64, width = 3"));
        // The file's error, and the grammar's about `width`: the rules of the
        // spec are not checked without an operator.
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0].0, "width");
        assert_eq!(errors[1].0, format!("{path:?}"));
        assert!(errors[1].1.starts_with(&format!("{path}{message}")), "{name}: {}", errors[1].1);
        std::fs::remove_file(&path).expect("the scratch file is ours");
    }
}

#[test]
fn violations_point_at_the_value_of_their_field() {
    let cases = [
        ("precision = f64, family = bstream, width = 3", "3", "width is 1, 2 or 4 columns per thread, not 3"),
        ("precision = f64, family = bstream, width = 4", "4", "4 columns of f64 are 32 bytes"),
        ("precision = f32, family = bstream, block = 48", "48", "block is a multiple of 32 threads"),
        (
            "precision = f32, family = bstream, msplit = 7",
            "7",
            "msplit = 7 is more groups than A has rows (6): lower it",
        ),
        ("precision = f32, family = cstream, msplit = 2", "2", "c-streaming holds every row of B per thread"),
        ("precision = f32, family = bstream, chunk = 65", "65", "chunk is 1 to 64 rows of B, not 65"),
        (
            "precision = f32, family = bstream, msplit = 2, arch = sm_75",
            "sm_75",
            "msplit > 1 stages B with cp.async",
        ),
        (
            "precision = f32, arch = sm_90a",
            "sm_90a",
            "bespoke kernels use no sm_90a instruction: use arch = sm_90",
        ),
    ];
    for (rest, token, message) in cases {
        let errors = fail(&body(rest));
        assert!(
            errors.iter().any(|(at, m)| at == token && m.starts_with(message)),
            "{rest}: expected `{message}` at `{token}`, got {errors:?}"
        );
    }
    // A field left out: the kernel's name.
    let tall = scratch(
        "tall.mtx",
        mtx::write_coordinate(&operators::random_sparse(200, 3, 1.0, 1).unwrap()).as_bytes(),
    );
    let errors = fail(&format!("name = Tall, a = {tall:?}, precision = f64, family = bstream"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "Tall");
    assert!(errors[0].1.ends_with("raise msplit or lower width"), "{}", errors[0].1);
    std::fs::remove_file(&tall).expect("the scratch file is ours");
    // The operator's own limit: the path.
    let dense = scratch(
        "dense.mtx",
        mtx::write_array(&operators::random_sparse(190, 190, 1.0, 2).unwrap()).as_bytes(),
    );
    let errors = fail(&format!("name = Dense, a = {dense:?}, precision = f64, family = bstream, msplit = 8"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, format!("{dense:?}"));
    assert!(errors[0].1.starts_with("A has 36100 non-zeros, over the 32768"), "{}", errors[0].1);
    std::fs::remove_file(&dense).expect("the scratch file is ours");
}

#[test]
fn grammar_errors_come_with_the_files_and_the_rules() {
    let errors = fail(&body("precision = f64, famliy = cstream, family = bstream, width = 3, chunk = 8u8"));
    let expected = [
        ("famliy", "unknown parameter `famliy`: did you mean `family`?"),
        ("8u8", "`chunk` must be an unsuffixed integer: remove `u8`"),
        ("3", "width is 1, 2 or 4 columns per thread, not 3"),
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:?}");
    for ((at, message), (want_at, want)) in errors.iter().zip(expected) {
        assert_eq!((at.as_str(), message.as_str()), (want_at, want));
    }
    let errors = fail("precision = c64");
    let messages: Vec<&str> = errors.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(messages[0], "`precision` must be `f32` or `f64`: bespoke kernels are real, write `f64`");
    assert!(messages[1].starts_with("missing parameter `name`"));
    assert!(messages[2].starts_with("missing parameter `a`"));
}

/// Bodies whose grammar errors, if any, the two front ends report alike:
/// each gives `name`, `a` and `family`, where the fronts differ.
fn corpus() -> Vec<String> {
    let base = "precision = f64, family = bstream";
    let plus = |rest: &str| body(&format!("{base}, {rest}"));
    vec![
        body(base),
        plus("width = 2, block = 64, msplit = 2, chunk = 8, beta = 1, arch = sm_86,"),
        body("family = cstream, precision = f32, beta = runtime"),
        body(&base.replace("f64", "F64")),
        body(&base.replace("f64", "32")),
        body(&base.replace("bstream", "BStream")),
        body(&base.replace("bstream", "\"bstream\"")),
        plus("beta = 2"),
        plus("beta = 0.0"),
        plus("arch = sm80"),
        plus("arch = 90"),
        plus("width = -1"),
        plus("block = 4294967296"),
        plus("chunk = (8)"),
        plus("msplit = \"2\""),
        plus("widht = 2, foo = 1"),
        plus("width = 2, width = 4"),
        plus("a = \"other.mtx\""),
        plus("width"),
        plus("width = 1 2"),
        format!("name = K, a = doc/x.mtx, {base}"),
        format!("name = K, a = 3, {base}"),
        format!("name = struct, a = \"x.mtx\", {base}"),
    ]
}

#[test]
fn both_front_ends_read_the_grammar_alike() {
    for src in corpus() {
        let mut cx = Ctxt::default();
        let _ = parse::parse(tokens(&src), &mut cx);
        let macro_errors: Vec<(String, String)> = match cx.finish() {
            Ok(()) => Vec::new(),
            Err(e) => {
                e.into_iter().map(|e| (e.span().source_text().unwrap_or_default(), e.to_string())).collect()
            }
        };
        let reading = read_text(&src);
        let text_errors: Vec<(String, String)> =
            reading.errors.iter().map(|e| (src[e.at.range()].to_owned(), e.message.clone())).collect();
        assert_eq!(macro_errors, text_errors, "{src}");
        if text_errors.is_empty() {
            let spec: BespokeSpec = src.parse().expect("text reads it");
            let mut cx = Ctxt::default();
            let tokens = parse::parse(tokens(&src), &mut cx).tokens.expect("the macro reads it");
            assert_eq!(tokens.draft.given(), Some(spec), "{src}");
            assert_eq!(tokens.draft.family, Some(spec.form));
            assert_eq!(tokens.path, DOC_MTX);
        }
    }
    assert!(corpus().iter().filter(|src| read_text(src).errors.is_empty()).count() >= 3);
}

#[test]
fn the_doc_lists_every_parameter_of_the_bespoke_grammar() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let section = lib.split("pub fn gemm_kernel").nth(1).expect("gemm_bespoke! comes after gemm_kernel!");
    for param in gemm_codegen::grammar::bespoke::PARAMS {
        let row = format!("/// | `{}`", param.key);
        assert!(
            section.lines().any(|l| l.starts_with(&row)),
            "no row for `{}` in gemm_bespoke!'s table",
            param.key
        );
    }
}

#[test]
fn annotated_example_shows_the_generated_doc() {
    // examples/bespoke-expanded.rs at the workspace root checks the rest of
    // its hand-written expansion against the macro at compile time; the doc
    // comment can only be checked here. The example's path is relative to
    // the workspace root, this test's to gemm-macros.
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/bespoke-expanded.rs"))
            .expect("the annotated expansion exists");
    let written = "gemm-kernels/data/bespoke/rand-48x40-d0.10.mtx";
    let src = format!(
        "name = RandomSparse, a = \"../{written}\", precision = f64, family = bstream, width = 2, block = 32, \
         msplit = 3, chunk = 4"
    );
    let (kernel, errors) = check(&src);
    assert_eq!(errors, vec![]);
    let kernel = validate::Kernel { path: written.to_owned(), ..kernel.unwrap() };
    let image = bespoke::emit(&kernel.plan);
    let doc = expand::doc(&kernel, &image, kernel.plan.nnz());
    let lines: Vec<&str> = example.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("/// Bespoke DGEMM kernel:"))
        .expect("the example shows the doc");
    for (i, line) in doc.lines().enumerate() {
        let want = if line.is_empty() { "///".to_owned() } else { format!("/// {line}") };
        assert_eq!(lines[start + i], want, "line {} of the generated doc", i + 1);
    }
    assert!(lines[start + doc.lines().count()].starts_with("#[derive("));
}
