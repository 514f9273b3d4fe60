//! `KernelSpec: FromStr` on arbitrary input: it never panics, every error
//! points inside the text, and whatever it accepts prints back to itself.
//! `PROPTEST_CASES` overrides the 4096 cases of each property.

use gemm_codegen::grammar::{self, PARAMS};
use gemm_codegen::{GlobalLoad, KernelSpec, LoadShape, Math, MmaShape, Op, Precision, Target, WarpShape};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(4096);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Reads `text` and checks what holds for any input.
fn check(text: &str) -> Result<(), TestCaseError> {
    let reading = grammar::text::read(text);
    for error in &reading.errors {
        prop_assert!(error.at.start <= error.at.end && error.at.end <= text.len(), "{error:?} in {text:?}");
        prop_assert!(text.get(error.at.range()).is_some(), "{error:?} splits a character of {text:?}");
        prop_assert!(!error.message.is_empty() && !error.message.ends_with('.'));
    }
    match text.parse::<KernelSpec>() {
        Ok(spec) => {
            prop_assert!(reading.errors.is_empty());
            prop_assert_eq!(spec.to_string().parse::<KernelSpec>(), Ok(spec));
        }
        Err(error) => {
            prop_assert_eq!(error.errors(), &reading.errors[..]);
            prop_assert!(!error.errors().is_empty());
            prop_assert!(!error.to_string().is_empty());
        }
    }
    Ok(())
}

/// Pieces of bodies, right and wrong: keys, words, numbers of every kind,
/// brackets, strings, comments and characters the lexer must refuse.
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
        "F32",
        "c64",
        "N",
        "n",
        "T",
        "C",
        "NT",
        "nc",
        "cg",
        "x",
        "true",
        "struct",
        "r#tile",
        "gemm_kernel",
        "tiles",
        "32",
        "0",
        "0x60",
        "0b102",
        "1.5",
        "1e3",
        "96u8",
        "16_usize",
        "\"96\"",
        "'a'",
        "b'a'",
        "r#\"x\"#",
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
        "1.foo",
        "'\\u{41}'",
    ];
    prop_oneof![
        prop::sample::select(keys),
        prop::sample::select(fixed.map(str::to_owned).to_vec()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<u32>().prop_map(|n| format!("{n:#x}")),
        "[a-zA-Z_][a-zA-Z0-9_]{0,6}",
        "[0-9][0-9a-z_.]{0,8}",
    ]
}

/// A value: a word, a number or a (nested) tuple of them.
fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![fragment(), (0u32..300).prop_map(|n| n.to_string())];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop::collection::vec(inner, 0..5).prop_map(|elems| format!("({})", elems.join(", ")))
    })
}

fn precision() -> impl Strategy<Value = Precision> {
    prop::sample::select(Precision::ALL.to_vec())
}

fn op() -> impl Strategy<Value = Op> {
    prop::sample::select(Op::ALL.to_vec())
}

fn specs() -> impl Strategy<Value = KernelSpec> {
    let shape = || (any::<u32>(), any::<u32>()).prop_map(|(lead, cross)| LoadShape { lead, cross });
    let warps = prop::option::of((any::<u32>(), any::<u32>()).prop_map(|(m, n)| WarpShape { m, n }));
    (
        (precision(), op(), op(), any::<[u32; 3]>(), any::<[u32; 2]>()),
        (shape(), shape(), any::<u32>(), prop::sample::select(GlobalLoad::ALL.to_vec())),
        (
            prop::sample::select(Target::ALL.to_vec()),
            any::<[u32; 6]>(),
            warps,
            prop::option::of(any::<u32>()),
        ),
        (
            prop::sample::select(Math::ALL.to_vec()),
            prop::option::of(any::<[u32; 3]>().prop_map(|[m, n, k]| MmaShape { m, n, k })),
            prop::sample::select(gemm_codegen::Schedule::ALL.to_vec()),
            any::<u32>(),
            prop::sample::select(gemm_codegen::Operands::ALL.to_vec()),
        ),
    )
        .prop_map(
            |(
                (precision, op_a, op_b, [m_blk, n_blk, k_blk], [m_dim, n_dim]),
                (load_a, load_b, lds_width, ldg),
                (arch, [stages, ldg_width, raster, frag_sets, interleave, c_batch], warps, unroll),
                (math, mma, schedule, producers, operands),
            )| {
                KernelSpec {
                    precision,
                    op_a,
                    op_b,
                    m_blk,
                    n_blk,
                    k_blk,
                    m_dim,
                    n_dim,
                    load_a,
                    load_b,
                    lds_width,
                    ldg,
                    arch,
                    stages,
                    ldg_width,
                    warps,
                    raster,
                    unroll,
                    frag_sets,
                    interleave,
                    c_batch,
                    math,
                    mma,
                    schedule,
                    producers,
                    operands,
                }
            },
        )
}

/// Every parameter of `spec` as (key, value), in the order of [`PARAMS`].
fn items_of(spec: &KernelSpec) -> Vec<(&'static str, String)> {
    let s = spec;
    let values = [
        "K".to_owned(),
        s.precision.to_string(),
        format!("({}, {})", s.op_a, s.op_b),
        format!("({}, {}, {})", s.m_blk, s.n_blk, s.k_blk),
        format!("({}, {})", s.m_dim, s.n_dim),
        format!("({}, {})", s.load_a.lead, s.load_a.cross),
        format!("({}, {})", s.load_b.lead, s.load_b.cross),
        s.lds_width.to_string(),
        s.ldg.to_string(),
        s.arch.to_string(),
        s.stages.to_string(),
        s.ldg_width.to_string(),
        s.warps.map_or_else(String::new, |w| format!("({}, {})", w.m, w.n)),
        s.raster.to_string(),
        s.unroll.map_or_else(String::new, |u| u.to_string()),
        s.frag_sets.to_string(),
        s.interleave.to_string(),
        s.c_batch.to_string(),
        s.math.to_string(),
        s.mma.map_or_else(String::new, |m| format!("({}, {}, {})", m.m, m.n, m.k)),
        s.schedule.to_string(),
        s.producers.to_string(),
        s.operands.to_string(),
    ];
    assert_eq!(values.len(), PARAMS.len(), "a value for every parameter");
    // `warps`, `unroll` and `mma` left out have no value to write: leave them out.
    PARAMS.iter().map(|p| p.key).zip(values).filter(|(_, v)| !v.is_empty()).collect()
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
    fn soups_of_items(items in prop::collection::vec((fragment(), value()), 0..12), wrap in any::<bool>()) {
        let body = items.iter().map(|(key, value)| format!("{key} = {value}")).collect::<Vec<_>>().join(", ");
        check(&if wrap { format!("gemm_kernel! {{ {body} }}") } else { body })?;
    }

    #[test]
    fn legal_bodies_with_one_value_replaced(spec in specs(), key in 0..PARAMS.len(), value in value()) {
        let mut items = items_of(&spec);
        let key = key % items.len();
        items[key].1 = value;
        let body = items.iter().map(|(key, value)| format!("{key} = {value}")).collect::<Vec<_>>().join(", ");
        check(&body)?;
    }

    #[test]
    fn every_spec_prints_and_reads_back(spec in specs()) {
        prop_assert_eq!(spec.to_string().parse::<KernelSpec>(), Ok(spec));
        let items = items_of(&spec);
        let absent = [spec.warps.is_none(), spec.unroll.is_none(), spec.mma.is_none()].map(usize::from).iter().sum::<usize>();
        prop_assert_eq!(items.len(), PARAMS.len() - absent);
        let body = items.iter().map(|(key, value)| format!("{key} = {value}")).collect::<Vec<_>>().join(", ");
        prop_assert_eq!(body.parse::<KernelSpec>(), Ok(spec));
        prop_assert_eq!(spec.to_invocation("K").parse::<KernelSpec>(), Ok(spec));
    }
}
