//! What `cargo xtask bench` writes and prints: the CSV of every row, the
//! table of every measurement and the summary per kernel.

use std::fmt::Write as _;

use gemm_codegen::KernelSpec;
use gemm_host::cublas::CublasMath;

use super::{Row, Sweep};
use crate::bound::{self, KernelBound};
use crate::measure::Timing;

/// `; bound 52.80 TFLOP/s (issue) of the 66.91 FMA peak; one-block-per-sm`,
/// or nothing without a bound.
pub(super) fn bound_text(kb: &KernelBound) -> String {
    let Some(b) = &kb.bound else { return String::new() };
    let peak = kb.peak_tflops.map_or(String::new(), |p| format!(" of the {p:.2} FMA peak"));
    let caveats = if b.caveats.is_empty() { String::new() } else { format!("; {}", b.caveat_names()) };
    format!("; bound {:.2} TFLOP/s ({}){peak}{caveats}", b.tflops, b.limiter.name())
}

pub(super) fn shape_text((m, n, k): (i64, i64, i64)) -> String {
    format!("{m}×{n}×{k}")
}

/// `nt`.
pub(super) fn ops_text(spec: &KernelSpec) -> String {
    format!("{}{}", spec.op_a, spec.op_b).to_lowercase()
}

/// `96×96×16`.
pub(super) fn tile_text(spec: &KernelSpec) -> String {
    format!("{}×{}×{}", spec.m_blk, spec.n_blk, spec.k_blk)
}

/// CSV header, in column order; [`crate::bound::COLUMNS`] follow.
pub(super) const COLUMNS: [&str; 27] = [
    "device",
    "arch",
    "sweep",
    "kernel",
    "source",
    "precision",
    "op",
    "m",
    "n",
    "k",
    "flops",
    "median_ms",
    "min_ms",
    "max_ms",
    "tflops",
    "cublas_median_ms",
    "cublas_min_ms",
    "cublas_max_ms",
    "cublas_tflops",
    "cublas_math",
    "ratio",
    "status",
    "note",
    "spec",
    "gbps",
    "cublas_gbps",
    "copy_fraction",
];

/// A CSV field, quoted when it holds a comma, quote or newline.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

/// Renders `rows` as CSV, one line per row after the header.
pub(super) fn csv(rows: &[Row], device: &str, arch: u32) -> String {
    let mut out = [&COLUMNS[..], &bound::COLUMNS[..]].concat().join(",");
    out.push('\n');
    for r in rows {
        let ms =
            |t: Option<Timing>, f: fn(&Timing) -> f64| t.map_or(String::new(), |t| format!("{:.4}", f(&t)));
        let num = |x: Option<f64>, digits: usize| x.map_or(String::new(), |x| format!("{x:.digits$}"));
        let spec = r.spec;
        let fields = [
            device.to_owned(),
            arch.to_string(),
            r.sweep.name().to_owned(),
            r.name.clone(),
            r.source.name().to_owned(),
            spec.precision.token().to_owned(),
            ops_text(&spec),
            r.shape.0.to_string(),
            r.shape.1.to_string(),
            r.shape.2.to_string(),
            format!("{:.0}", r.flops),
            ms(r.ours, |t| t.median_ms),
            ms(r.ours, |t| t.min_ms),
            ms(r.ours, |t| t.max_ms),
            num(r.ours_tflops(), 3),
            ms(r.cublas, |t| t.median_ms),
            ms(r.cublas, |t| t.min_ms),
            ms(r.cublas, |t| t.max_ms),
            num(r.cublas_tflops(), 3),
            CublasMath::matching(spec.math).name().to_owned(),
            num(r.ratio(), 3),
            r.status.name().to_owned(),
            r.note.clone(),
            spec.to_invocation_body(),
            num(r.gbps()[0], 1),
            num(r.gbps()[1], 1),
            num(r.copy_fraction(), 3),
        ];
        let bound = r.bound.cells(r.ours_tflops());
        let line: Vec<String> = fields.iter().chain(&bound).map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", line.join(","));
    }
    out
}

/// Every row: kernel, sweep, shape, TFLOP/s of ours and cuBLAS, the ratio,
/// why a row has no number, and for the sweeps bound by memory (skinny K,
/// batches) the GB/s each side moved and ours as a fraction of the copy.
pub(super) fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:<6} {:>16} {:>8} {:>8} {:>6}  (TFLOP/s)",
        "kernel", "sweep", "shape", "ours", "cuBLAS", "ratio"
    );
    let num = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2}"));
    for r in rows {
        let _ = writeln!(
            out,
            "{:<16} {:<6} {:>16} {:>8} {:>8} {:>6}{}{}",
            r.label(),
            r.sweep.name(),
            r.shape_text(),
            num(r.ours_tflops()),
            num(r.cublas_tflops()),
            num(r.ratio()),
            if r.note.is_empty() { String::new() } else { format!("  {}: {}", r.status.name(), r.note) },
            match (r.sweep, r.gbps(), r.copy_fraction()) {
                (Sweep::Skinny | Sweep::Batched, [Some(ours), Some(theirs)], fraction) => format!(
                    "  {ours:.0} GB/s{}, cuBLAS {theirs:.0} GB/s",
                    fraction.map_or(String::new(), |f| format!(" ({:.0}% of the copy)", 100.0 * f))
                ),
                _ => String::new(),
            }
        );
    }
    out
}

/// One line per kernel: the largest square size run (ours, cuBLAS, ratio),
/// the best square TFLOP/s and where, and the ratio to cuBLAS per skinny K
/// at the largest M = N run.
pub(super) fn summary(rows: &[Row], skinny_k: &[i64]) -> String {
    let mut kernels: Vec<(String, &Row)> = Vec::new();
    for r in rows {
        if !kernels.iter().any(|(l, _)| *l == r.label()) {
            kernels.push((r.label(), r));
        }
    }
    let mut out = String::new();
    let skinny_head: String = skinny_k.iter().map(|k| format!(" {:>7}", format!("K={k}"))).collect();
    let _ = writeln!(
        out,
        "summary (TFLOP/s): square at its largest size, its analytic bound and % of the FMA peak; best square; \
         skinny: ours / cuBLAS at the largest M = N"
    );
    let _ = writeln!(
        out,
        "{:<16} {:<10} {:>6} {:>7} {:>7} {:>6} {:>7} {:>6} {:>7} {:>6} {:>6}{skinny_head}",
        "kernel", "tile", "n", "ours", "cuBLAS", "ratio", "bound", "%peak", "best", "at n", "M=N"
    );
    let num = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2}"));
    for (name, first) in &kernels {
        let mine: Vec<&Row> = rows.iter().filter(|r| &r.label() == name).collect();
        if let Some(failed) = mine.iter().find(|r| r.sweep == Sweep::Check) {
            let _ =
                writeln!(out, "{name:<16} {:<10} failed its check: {}", tile_text(&first.spec), failed.note);
            continue;
        }
        let square: Vec<&&Row> =
            mine.iter().filter(|r| r.sweep == Sweep::Square && r.ours.is_some()).collect();
        let last = square.iter().max_by_key(|r| r.shape.0);
        let best = square
            .iter()
            .max_by(|a, b| a.ours_tflops().unwrap_or(0.0).total_cmp(&b.ours_tflops().unwrap_or(0.0)));
        let skinny: Vec<&&Row> =
            mine.iter().filter(|r| r.sweep == Sweep::Skinny && r.ours.is_some()).collect();
        let mn = skinny.iter().map(|r| r.shape.0).max();
        let per_k: String = skinny_k
            .iter()
            .map(|&k| {
                let r = skinny.iter().find(|r| Some(r.shape.0) == mn && r.shape.2 == k);
                format!(" {:>7}", num(r.and_then(|r| r.ratio())))
            })
            .collect();
        let _ = writeln!(
            out,
            "{name:<16} {:<10} {:>6} {:>7} {:>7} {:>6} {:>7} {:>6} {:>7} {:>6} {:>6}{per_k}",
            tile_text(&first.spec),
            last.map_or("-".to_owned(), |r| r.shape.0.to_string()),
            num(last.and_then(|r| r.ours_tflops())),
            num(last.and_then(|r| r.cublas_tflops())),
            num(last.and_then(|r| r.ratio())),
            num(first.bound.bound.as_ref().map(|b| b.tflops)),
            last.and_then(|r| r.bound.pct_of_peak(r.ours_tflops()))
                .map_or("-".to_owned(), |p| format!("{p:.1}")),
            num(best.and_then(|r| r.ours_tflops())),
            best.map_or("-".to_owned(), |r| r.shape.0.to_string()),
            mn.map_or("-".to_owned(), |m| m.to_string()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample_rows;
    use super::*;

    #[test]
    fn csv_has_a_row_per_measurement_and_quotes_specs() {
        let rows = sample_rows();
        let text = csv(&rows, "NVIDIA H100 80GB HBM3", 90);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), rows.len() + 1);
        // The columns of old, in their order, then the bound's.
        assert_eq!(lines[0], format!("{},{}", COLUMNS.join(","), bound::COLUMNS.join(",")));
        // Sorted: SgemmNN tuned square first; 2 TFLOP/s per ms at 960³…
        let first = lines[1];
        assert!(
            first.starts_with("NVIDIA H100 80GB HBM3,90,square,SgemmNN,tuned,f32,nn,960,960,960,1769472000,")
        );
        let kb = &rows[0].bound;
        let b = kb.bound.as_ref().unwrap();
        // 3 · 960² f32 moved: 11.06 MB in 1 ms (ours) and 0.5 ms (cuBLAS).
        let copy = kb.copy_gbps.expect("the datasheet's DRAM rate");
        assert!(copy > 1000.0, "{copy}");
        assert!(
            first.ends_with(&format!(
                ",1.0000,0.9000,1.1000,1.769,0.5000,0.4500,0.5500,3.539,default,0.500,ok,,\"precision = f32, op = (N, N), \
                 tile = (96, 96, 16), threads = (16, 16), load_a = (32, 8), load_b = (8, 32)\",11.1,22.1,{:.3},{:.3},66.908,2.6,{},{}",
                11.0592 / copy,
                b.tflops,
                b.limiter.name(),
                b.caveat_names(),
            )),
            "{first}"
        );
        let skipped = lines.iter().find(|l| l.contains(",skipped,")).unwrap();
        assert!(
            skipped.contains("32640,32640,32640")
                && skipped.contains("\"needs 47.6 GiB, over 60% of the GPU's 79 GiB\"")
        );
        let failed = lines.iter().find(|l| l.contains(",failed,")).unwrap();
        assert!(failed.contains(",check,spec,spec,"));
        // Every line has every column (quoted fields hold the commas).
        for line in &lines[1..] {
            let mut fields = 0;
            let mut quoted = false;
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields += 1,
                    _ => {}
                }
            }
            assert_eq!(fields + 1, COLUMNS.len() + bound::COLUMNS.len(), "{line}");
        }
    }

    #[test]
    fn table_and_summary_list_every_kernel() {
        let rows = sample_rows();
        let table = table(&rows);
        assert_eq!(table.lines().count(), rows.len() + 1);
        assert!(
            table.contains("SgemmNN/tuned    square             960³     1.77     3.54   0.50"),
            "{table}"
        );
        // A skinny row says what it moved: 16 · (2 · 8192 · 64 + 8192²) bytes
        // in 2 ms (ours) and 1 ms (cuBLAS); a square row does not.
        assert!(
            table.contains("ZgemmTN/table2   skinny     8192×8192×64    17.18    34.36   0.50  545 GB/s (")
                && table.contains("of the copy), cuBLAS 1091 GB/s\n"),
            "{table}"
        );
        assert!(table.contains("960³     1.77     3.54   0.50\n"), "{table}");
        assert!(table.contains("32640³        -        -      -  skipped: needs 47.6 GiB"), "{table}");
        let summary = summary(&rows, &[32, 64]);
        let lines: Vec<&str> = summary.lines().collect();
        assert_eq!(lines.len(), 2 + 4, "{summary}");
        assert!(lines[1].ends_with("M=N    K=32    K=64"), "{}", lines[1]);
        // 37.75 TFLOP/s of the 66.908 of the H100's FP32 FMA peak: 56.4%.
        let bound = rows[0].bound.bound.as_ref().unwrap().tflops;
        assert_eq!(
            lines[2],
            format!(
                "SgemmNN/tuned    96×96×16     3840   37.75   75.50   0.50 {bound:>7.2}   56.4   37.75   3840   8192    0.50    0.50"
            )
        );
        // No skinny rows: dashes.
        assert!(lines[3].starts_with("SgemmNN/table2") && lines[3].ends_with("3840      -       -       -"));
        assert!(lines[4].starts_with("spec             96×96×16   failed its check: differs from cuBLAS"));
        // The skipped size does not count as the largest.
        assert!(lines[5].starts_with("ZgemmTN/table2   24×16×8      3840   75.50"), "{}", lines[5]);
    }

    #[test]
    fn the_check_line_names_the_bound_and_its_limit() {
        let kb = &sample_rows()[0].bound;
        let b = kb.bound.as_ref().unwrap();
        let text = bound_text(kb);
        assert!(text.starts_with(&format!(
            "; bound {:.2} TFLOP/s ({}) of the 66.91 FMA peak",
            b.tflops,
            b.limiter.name()
        )));
        assert!(text.ends_with(&b.caveat_names()), "{text}");
        assert_eq!(bound_text(&KernelBound::default()), "");
    }
}
