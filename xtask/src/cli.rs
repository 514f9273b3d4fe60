//! Command-line values shared by the tasks.

use anyhow::{Context, Result, bail};
use gemm_codegen::{Op, Precision};

/// A precision: `s`, `d`, `c`, `z`, `h` (f16), `b` (bf16) (or `f32`, `f64`,
/// `c32`, `c64`, `f16`, `bf16`, `sgemm`, `hgemm`, …).
pub fn parse_precision(s: &str) -> Result<Precision> {
    let lower = s.to_ascii_lowercase();
    let token = lower.strip_suffix("gemm").unwrap_or(&lower);
    let precision = match token {
        "s" | "f32" | "single" => Precision::F32,
        "d" | "f64" | "double" => Precision::F64,
        "c" | "c32" | "complex" => Precision::C32,
        "z" | "c64" => Precision::C64,
        "h" | "f16" | "half" => Precision::F16,
        "b" | "bf16" => Precision::Bf16,
        _ => bail!("unknown precision `{s}`: use s, d, c, z, h or b (or f32, f64, c32, c64, f16, bf16)"),
    };
    Ok(precision)
}

/// An op pair: `nn`, `nt`, …, `cc`.
pub fn parse_ops(s: &str) -> Result<(Op, Op)> {
    let mut letters = s.chars();
    let (Some(a), Some(b), None) = (letters.next(), letters.next(), letters.next()) else {
        bail!("`--op {s}` must be two letters from n, t, c: nn, nt, tn, tt, cn, …");
    };
    let op = |l: char| Op::from_letter(l).with_context(|| format!("`{l}` in `--op {s}` is not n, t or c"));
    Ok((op(a)?, op(b)?))
}

/// Every op pair, in BLAS order.
pub fn all_ops() -> Vec<(Op, Op)> {
    Op::ALL.into_iter().flat_map(|a| Op::ALL.into_iter().map(move |b| (a, b))).collect()
}

/// A list of op pairs, where `all` means all nine and `transposes` the four
/// of Figure 5 (nn, nt, tn, tt).
pub fn parse_op_list(items: &[String]) -> Result<Vec<(Op, Op)>> {
    let mut out = Vec::new();
    for item in items {
        match item.to_ascii_lowercase().as_str() {
            "all" => out.extend(all_ops()),
            "transposes" => out.extend([(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)]),
            _ => out.push(parse_ops(item)?),
        }
    }
    let mut seen = Vec::new();
    out.retain(|o| {
        if seen.contains(o) {
            false
        } else {
            seen.push(*o);
            true
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_precisions_and_ops() {
        for (s, p) in [
            ("s", Precision::F32),
            ("D", Precision::F64),
            ("c32", Precision::C32),
            ("zgemm", Precision::C64),
            ("hgemm", Precision::F16),
        ] {
            assert_eq!(parse_precision(s).unwrap(), p);
        }
        assert_eq!(parse_precision("h").unwrap(), Precision::F16);
        assert_eq!(parse_precision("BF16").unwrap(), Precision::Bf16);
        assert!(parse_precision("q").is_err());
        assert_eq!(parse_ops("nt").unwrap(), (Op::N, Op::T));
        assert_eq!(parse_ops("CC").unwrap(), (Op::C, Op::C));
        assert!(parse_ops("n").is_err());
        assert!(parse_ops("nx").is_err());
        assert!(parse_ops("ntt").is_err());
    }

    #[test]
    fn op_lists_expand_and_deduplicate() {
        assert_eq!(parse_op_list(&["all".into()]).unwrap().len(), 9);
        assert_eq!(parse_op_list(&["transposes".into(), "nn".into()]).unwrap().len(), 4);
        assert_eq!(parse_op_list(&["cc".into(), "CC".into()]).unwrap(), vec![(Op::C, Op::C)]);
        assert!(parse_op_list(&["xx".into()]).is_err());
    }
}
