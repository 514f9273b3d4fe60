//! The phases run on token streams outside the compiler. With
//! proc-macro2's `span-locations` (a dev-dependency feature), spans keep
//! their source text, so each test checks which token an error points at.

use gemm_codegen::{Field, GlobalLoad, Op, ParamPath, Precision};
use proc_macro2::TokenStream;

use crate::ctxt::{Ctxt, Spans};
use crate::{expand, parse, validate};

const SGEMM_NN: &str = "name = SgemmNN, precision = f32, op = (N, N), tile = (96, 96, 16), \
                        threads = (16, 16), load_a = (32, 8), load_b = (8, 32)";

fn tokens(src: &str) -> TokenStream {
    src.parse().expect("test input tokenizes")
}

/// Parses and validates `src`: the kernel, if it passed, and every error as
/// (the source text it points at, its message).
fn check(src: &str) -> (Option<validate::Kernel>, Vec<(String, String)>) {
    let mut cx = Ctxt::default();
    let parsed = parse::parse(tokens(src), &mut cx);
    let kernel = parsed.spec.and_then(|spec| validate::validate(spec, &mut cx));
    let errors = match cx.finish() {
        Ok(()) => Vec::new(),
        Err(e) => {
            e.into_iter().map(|e| (e.span().source_text().unwrap_or_default(), e.to_string())).collect()
        }
    };
    (kernel, errors)
}

/// The errors of an invocation that must fail (the spec may still have
/// validated: an unknown or duplicate parameter does not stop validation).
fn fail(src: &str) -> Vec<(String, String)> {
    let (_, errors) = check(src);
    assert!(!errors.is_empty(), "{src} passed");
    errors
}

/// `SGEMM_NN` with `param` replaced by `value`.
fn with(param: &str, value: &str) -> String {
    SGEMM_NN
        .split(", ")
        .fold(Vec::<String>::new(), |mut parts, part| {
            match parts.last_mut() {
                // Re-join commas inside tuples.
                Some(last) if last.matches('(').count() > last.matches(')').count() => {
                    *last = format!("{last}, {part}");
                }
                _ => parts.push(part.to_owned()),
            }
            parts
        })
        .into_iter()
        .map(|part| if part.starts_with(&format!("{param} =")) { format!("{param} = {value}") } else { part })
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn table2_sgemm_parses_validates_and_expands() {
    let (kernel, errors) = check(SGEMM_NN);
    assert_eq!(errors, vec![]);
    let kernel = kernel.unwrap();
    assert_eq!(kernel.name, "SgemmNN");
    let spec = kernel.plan.spec();
    assert_eq!((spec.m_blk, spec.n_blk, spec.k_blk, spec.m_dim, spec.n_dim), (96, 96, 16, 16, 16));
    assert_eq!((spec.load_b.lead, spec.load_b.cross), (8, 32));
    assert_eq!((spec.lds_width, spec.ldg), (1, GlobalLoad::Nc));
    // gemm-macros depends on gemm-codegen, not the facade.
    assert_eq!(kernel.runtime.to_string(), ":: gemm_codegen");

    let output = expand::kernel(&kernel);
    let file: syn::File = syn::parse2(output).expect("the expansion is valid Rust");
    let [syn::Item::Struct(item), syn::Item::Impl(imp)] = &file.items[..] else {
        panic!("expected a struct and an impl, got {:#?}", file.items.len());
    };
    assert_eq!(item.ident, "SgemmNN");
    assert!(matches!(item.vis, syn::Visibility::Public(_)));
    assert_eq!(imp.items.len(), 5);
    let image = gemm_codegen::compile(spec).unwrap();
    let text = quote::quote!(#imp).to_string();
    assert!(text.contains(&format!("{:?}", image.entry)), "ENTRY");
    assert!(text.contains(&format!("SHARED_BYTES : :: core :: primitive :: u32 = {}", image.shared_bytes)));
    assert!(text.contains("type Elem = :: core :: primitive :: f32"));
    assert!(text.contains("load_b : :: gemm_codegen :: LoadShape { lead : 8 , cross : 32 }"));
}

#[test]
fn optional_parameters_any_order_trailing_comma() {
    let src = "ldg = ca, lds_width = 2, load_b = (16, 16), load_a = (16, 16), threads = (16, 16), \
               tile = (64, 64, 16), op = (C, T), precision = c32, name = Cg,";
    let (kernel, errors) = check(src);
    assert_eq!(errors, vec![]);
    let spec = *kernel.unwrap().plan.spec();
    assert_eq!((spec.precision, spec.op_a, spec.op_b), (Precision::C32, Op::C, Op::T));
    assert_eq!((spec.lds_width, spec.ldg), (2, GlobalLoad::Ca));
}

#[test]
fn real_conjugate_is_accepted() {
    let (kernel, errors) = check(&with("op", "(C, C)"));
    assert_eq!(errors.len(), 2, "SGEMM NN loads do not fit the transposed stripes: {errors:?}");
    assert!(kernel.is_none());
    let src =
        with("op", "(C, T)").replace("load_a = (32, 8)", "load_a = (16, 16)").replace("(8, 32)", "(32, 8)");
    let (kernel, errors) = check(&src);
    assert_eq!(errors, vec![]);
    assert_eq!(kernel.unwrap().plan.spec().eff_op_a(), Op::T);
}

#[test]
fn every_violation_points_at_its_token() {
    let cases = [
        // (parameter, value, token pointed at, start of the message)
        ("tile", "(96, 96, 0)", "0", "`tile.2` must be at least 1"),
        ("tile", "(100, 96, 16)", "100", "`tile.0` (100) must be a multiple of `threads.0` (16)"),
        ("tile", "(96, 88, 16)", "88", "`tile.1` (88) must be a multiple"),
        ("threads", "(32, 64)", "(32, 64)", "`threads` (32 × 64 = 2048) exceeds"),
        ("threads", "(12, 4)", "(12, 4)", "`threads` (12 × 4 = 48) must be a multiple of the warp size"),
        ("load_a", "(16, 8)", "(16, 8)", "`load_a` (16 × 8 = 128) must reshape"),
        ("load_b", "(32, 8)", "32", "`load_b.0` (32) must divide"),
        ("load_b", "(8, 64)", "64", "`load_b.1` (64) must divide the stripe's other dimension (N_blk = 96)"),
        ("lds_width", "3", "3", "`lds_width` (3) must be 1, 2 or 4"),
        ("tile", "(256, 256, 16)", "(256, 256, 16)", "`tile` needs at least 320 registers per thread"),
        ("tile", "(96, 96, 128)", "(96, 96, 128)", "`tile` needs 99328 bytes of shared memory"),
    ];
    for (param, value, token, message) in cases {
        let src = if param == "lds_width" {
            format!("{SGEMM_NN}, lds_width = {value}")
        } else {
            with(param, value)
        };
        let errors = fail(&src);
        assert!(
            errors.iter().any(|(at, m)| at == token && m.starts_with(message)),
            "{param} = {value}: expected `{message}` at `{token}`, got {errors:?}"
        );
    }
}

#[test]
fn the_op_decides_which_stripe_the_load_reads() {
    // (32, 8) reads A's 96 × 16 stripe for op(A) = N, not the 16 × 96 one of T.
    let errors = fail(&with("op", "(T, N)"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "32");
    assert!(errors[0].1.contains("the stored stripe of A for op(A) = T is 16 × 96 with K contiguous"));
}

/// The source text under `spans`.
fn text_of(spans: Spans) -> String {
    spans.first.join(spans.last).and_then(|s| s.source_text()).unwrap_or_default()
}

#[test]
fn located_maps_every_field_and_element() {
    let src = format!("{SGEMM_NN}, lds_width = 2, ldg = cg");
    let mut cx = Ctxt::default();
    let spec = parse::parse(tokens(&src), &mut cx).spec.unwrap();
    let text = |field, index| text_of(spec.located.at(ParamPath { field, index }));
    assert_eq!(text(Field::Precision, None), "f32");
    assert_eq!(text(Field::Op, None), "(N, N)");
    assert_eq!(text(Field::Op, Some(1)), "N");
    assert_eq!(text(Field::Tile, None), "(96, 96, 16)");
    assert_eq!(text(Field::Tile, Some(2)), "16");
    assert_eq!(text(Field::Threads, Some(0)), "16");
    assert_eq!(text(Field::LoadA, Some(0)), "32");
    assert_eq!(text(Field::LoadA, None), "(32, 8)");
    assert_eq!(text(Field::LoadB, Some(1)), "32");
    assert_eq!(text(Field::LdsWidth, None), "2");
    assert_eq!(text(Field::Ldg, None), "cg");
    // An optional parameter left at its default: the kernel's name.
    let spec = parse::parse(tokens(SGEMM_NN), &mut cx).spec.unwrap();
    let text = |field| text_of(spec.located.at(ParamPath { field, index: None }));
    assert_eq!(text(Field::LdsWidth), "SgemmNN");
    assert_eq!(text(Field::Ldg), "SgemmNN");
    assert!(cx.finish().is_ok());
}

#[test]
fn parse_errors_are_all_reported_together() {
    let src = "name = Bad, precision = f8, op = (N, X), tile = (96, \"96\", 16u8), \
               threads = (16, 16, 1), load_a = (32, 8), tile = (1, 1, 1), tiles = 3, foo = 1";
    let errors = fail(src);
    let expected = [
        ("f8", "`precision` must be `f32`, `f64`, `c32`, `c64`, `f16` or `bf16`"),
        ("X", "`op.1` (op(B)) must be `N`, `T` or `C`"),
        ("\"96\"", "`tile.1` must be an integer literal, not a string: remove the quotes"),
        ("16u8", "`tile.2` must be an unsuffixed integer: remove `u8`"),
        ("(16, 16, 1)", "`threads` must have 2 elements, `(M_dim, N_dim)`, not 3"),
        ("tile", "duplicate parameter `tile`: remove one of the two"),
        ("tiles", "unknown parameter `tiles`: did you mean `tile`?"),
        (
            "foo",
            "unknown parameter `foo`: expected one of `name`, `precision`, `op`, `tile`, `threads`, `load_a`, `load_b`, `lds_width`, `ldg`",
        ),
        ("Bad", "missing parameter `load_b`: add `load_b = (lead, cross)`"),
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for ((at, message), (want_at, want)) in errors.iter().zip(expected) {
        assert_eq!(at, want_at);
        assert!(message.starts_with(want), "{message:?} should start with {want:?}");
    }
}

#[test]
fn duplicate_points_at_the_second() {
    let src = format!("{SGEMM_NN},\n tile = (64, 64, 16)");
    let errors = fail(&src);
    assert_eq!(errors.len(), 1);
    let mut cx = Ctxt::default();
    let spec = parse::parse(tokens(&src), &mut cx).spec.unwrap();
    assert_eq!(spec.spec.m_blk, 96, "the first value is the one validated");
    let e = cx.finish().unwrap_err();
    assert_eq!(e.span().start().line, 2, "the second `tile`");
}

#[test]
fn unknown_and_violations_are_reported_together() {
    // An unknown parameter does not stop the rest from being validated.
    let errors = fail(&format!("{SGEMM_NN}, blocks = 2").replace("(96, 96, 16)", "(100, 96, 16)"));
    let at: Vec<&str> = errors.iter().map(|(at, _)| at.as_str()).collect();
    assert!(at.contains(&"blocks") && at.contains(&"100"), "{errors:?}");
}

#[test]
fn values_from_macro_rules_groups_are_read() {
    use proc_macro2::{Delimiter, Group, TokenTree};
    // `$x:literal` arrives as a literal inside an invisible group.
    let wrap = |src: &str| TokenTree::Group(Group::new(Delimiter::None, tokens(src)));
    let (k, width, ops) = (wrap("16"), wrap("2"), wrap("(N, N)"));
    let input = quote::quote! {
        name = G, precision = f64, op = #ops, tile = (64, 64, #k), threads = (16, 16),
        load_a = (16, 16), load_b = (16, 16), lds_width = #width
    };
    let mut cx = Ctxt::default();
    let spec = parse::parse(input, &mut cx).spec.expect("parses");
    assert!(cx.finish().is_ok());
    assert_eq!((spec.spec.k_blk, spec.spec.lds_width), (16, 2));
}

#[test]
fn structural_errors_stop_but_keep_the_name() {
    let mut cx = Ctxt::default();
    let parsed = parse::parse(tokens("name = Half, precision = f32, tile (96, 96, 16)"), &mut cx);
    assert_eq!(parsed.name.unwrap(), "Half");
    assert!(parsed.spec.is_none());
    let errors: Vec<String> = cx.finish().unwrap_err().into_iter().map(|e| e.to_string()).collect();
    assert_eq!(errors, vec!["expected `=` after `tile`"]);

    let errors = fail("name = A, tile = 96, 96, 16");
    assert_eq!(errors.len(), 1, "only the structural error: {errors:?}");
    assert!(errors[0].1.contains("tuple values need parentheses"));
    assert_eq!(fail("name = A, precision =")[0].1, "expected a value after `precision =`");
}

#[test]
fn missing_points_at_the_name_or_the_invocation() {
    let errors = fail("name = K, precision = f32, op = (N, N)");
    assert_eq!(errors.len(), 4);
    assert!(errors.iter().all(|(at, m)| at == "K" && m.starts_with("missing parameter `")));
    let errors = fail(&SGEMM_NN.replace("name = SgemmNN, ", ""));
    assert_eq!(errors.len(), 1);
    assert!(errors[0].1.starts_with("missing parameter `name`: add `name = SgemmNN`"));
}

#[test]
fn hints_for_near_misses() {
    let hint = |param, value| fail(&with(param, value)).remove(0).1;
    assert_eq!(
        hint("precision", "32"),
        "`precision` must be `f32`, `f64`, `c32`, `c64`, `f16` or `bf16`: write `f32` (or `c32` for complex)"
    );
    assert_eq!(
        hint("precision", "F64"),
        "`precision` must be `f32`, `f64`, `c32`, `c64`, `f16` or `bf16`: write `f64`"
    );
    assert_eq!(hint("op", "NT"), "`op` must be a tuple `(op(A), op(B))`: write `(N, T)`");
    assert_eq!(hint("op", "(n, T)"), "`op.0` (op(A)) must be `N`, `T` or `C`: write `N`");
    assert_eq!(hint("tile", "(96, 96, -16)"), "`tile.2` must be a positive integer literal: remove the `-`");
    assert_eq!(
        hint("tile", "(96, 96, 4294967296)"),
        "`tile.2` (4294967296) is too large: use at most 4294967295"
    );
    assert_eq!(hint("name", "struct"), "`name` cannot be the keyword `struct`: choose another name");
}

#[test]
fn trailing_comma_inside_a_tuple_is_accepted() {
    let (kernel, errors) = check(&with("load_a", "(32, 8,)"));
    assert_eq!(errors, vec![]);
    assert_eq!(kernel.unwrap().plan.spec().load_a.cross, 8);
}

#[test]
fn messages_are_lowercase_without_trailing_period() {
    let srcs = [
        "name = 1, precision = x, op = (N), tile = [1], threads = (1, 1.5), load_a = (1, 1u8), load_b = 3, \
         lds_width = \"2\", ldg = 1, what = 2",
        "precision = f32",
        "name = A, name = B",
    ];
    for src in srcs {
        for (_, message) in fail(src) {
            assert!(message.starts_with(|c: char| !c.is_uppercase()), "{message}");
            assert!(!message.ends_with('.'), "{message}");
        }
    }
}

#[test]
fn edit_distance_suggests_close_names_only() {
    let errors = fail(&format!("{SGEMM_NN}, ldsw = 1, thread = 2, lgd = nc, xyz = 1"));
    let messages: Vec<&str> = errors.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(messages[0], "unknown parameter `ldsw`: did you mean `ldg`?");
    assert_eq!(messages[1], "unknown parameter `thread`: did you mean `threads`?");
    assert_eq!(messages[2], "unknown parameter `lgd`: did you mean `ldg`?");
    assert!(messages[3].starts_with("unknown parameter `xyz`: expected one of"));
}

#[test]
fn annotated_example_shows_the_generated_doc() {
    // examples/sgemm-expanded.rs at the workspace root checks the rest of
    // its hand-written expansion against the macro at compile time; the doc
    // comment can only be checked here.
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/sgemm-expanded.rs"))
            .expect("the annotated expansion exists");
    let (kernel, _) = check(SGEMM_NN);
    let image = gemm_codegen::emit(&kernel.unwrap().plan);
    let doc = expand::doc("SgemmNN", &image);
    let lines: Vec<&str> = example.lines().collect();
    let start =
        lines.iter().position(|l| l.starts_with("/// SGEMM kernel:")).expect("the example shows the doc");
    for (i, line) in doc.lines().enumerate() {
        let want = if line.is_empty() { "///".to_owned() } else { format!("/// {line}") };
        assert_eq!(lines[start + i], want, "line {} of the generated doc", i + 1);
    }
    assert!(lines[start + doc.lines().count()].starts_with("#[derive("));
}

#[test]
fn the_doc_lists_every_parameter_of_the_grammar() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    for param in gemm_codegen::grammar::PARAMS {
        let row = format!("/// | `{}`", param.key);
        assert!(
            lib.lines().any(|l| l.starts_with(&row)),
            "no row for `{}` in the table of lib.rs",
            param.key
        );
    }
}

mod agree;

mod bespoke;
