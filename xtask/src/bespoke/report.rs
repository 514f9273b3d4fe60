//! What `cargo xtask bespoke` writes and prints: a row per operator and
//! precision, as CSV (`bench.csv`), a table, and the geometric means.

use std::fmt::Write as _;
use std::time::Duration;

use gemm_codegen::Precision;
use gemm_codegen::bespoke::{BespokeSpec, BetaMode};
use gemm_host::bespoke::Choice;

use crate::bench::csv_field;
use crate::measure::Timing;

/// How an operator fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// Measured.
    Ok,
    /// No bespoke kernel takes the operator (too many non-zeros): only the
    /// dense GEMM and cuBLAS were timed.
    NoBespoke,
    /// Every candidate verified in the emulator (`--emulate`; nothing timed).
    Emulated,
    /// A candidate failed, or nothing could be measured.
    Failed,
}

impl Status {
    pub(super) fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::NoBespoke => "no-bespoke",
            Status::Emulated => "emulated",
            Status::Failed => "failed",
        }
    }
}

/// The fastest bespoke kernel of an operator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Best {
    pub(super) spec: BespokeSpec,
    pub(super) timing: Timing,
}

/// The run-time tuner's verdict on an operator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Tuner {
    pub(super) choice: Choice,
    pub(super) median_us: f64,
    pub(super) compile: Duration,
    pub(super) benchmark: Duration,
}

/// One operator in one precision.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Row {
    pub(super) operator: String,
    pub(super) precision: Precision,
    /// `(m, n, k)`: A is `m × k`, B `k × n`, C `m × n`.
    pub(super) shape: (usize, u32, usize),
    pub(super) nnz: usize,
    pub(super) density: f64,
    pub(super) beta: BetaMode,
    /// Bytes a call must move: B read once, C written once, and read once
    /// for `beta ≠ 0`.
    pub(super) bytes: f64,
    pub(super) best: Option<Best>,
    /// Bespoke candidates tried, and how many passed their verification.
    pub(super) candidates: usize,
    pub(super) verified: usize,
    /// Generating and loading the bespoke candidates.
    pub(super) compile: Duration,
    /// Columns the candidates were verified on.
    pub(super) verify_n: u32,
    /// The largest error of a verified candidate against the reference.
    pub(super) max_error: Option<f64>,
    pub(super) dense: Option<Timing>,
    pub(super) cublas: Option<Timing>,
    /// A device-to-device copy of `bytes` (half read, half written).
    pub(super) copy: Option<Timing>,
    pub(super) tuner: Option<Tuner>,
    pub(super) status: Status,
    pub(super) note: String,
}

impl Row {
    /// A row of `operator` before any measurement.
    pub(super) fn new(
        operator: &str,
        a: &gemm_codegen::bespoke::Operator,
        precision: Precision,
        n: u32,
        beta: BetaMode,
    ) -> Row {
        let (m, k) = (a.rows(), a.cols());
        let esz = f64::from(precision.element_bytes());
        let c_passes = if beta == BetaMode::Zero { 1.0 } else { 2.0 };
        Row {
            operator: operator.to_owned(),
            precision,
            shape: (m, n, k),
            nnz: a.nnz(),
            density: a.density(),
            beta,
            bytes: esz * f64::from(n) * (k as f64 + c_passes * m as f64),
            best: None,
            candidates: 0,
            verified: 0,
            compile: Duration::ZERO,
            verify_n: 0,
            max_error: None,
            dense: None,
            cublas: None,
            copy: None,
            tuner: None,
            status: Status::Ok,
            note: String::new(),
        }
    }

    pub(super) fn us(&self) -> Option<f64> {
        self.best.map(|b| b.timing.median_ms * 1e3)
    }

    pub(super) fn gbps(&self) -> Option<f64> {
        self.best.map(|b| b.timing.gbps(self.bytes))
    }

    pub(super) fn copy_gbps(&self) -> Option<f64> {
        self.copy.map(|t| t.gbps(self.bytes))
    }

    /// Our bandwidth over the copy's.
    pub(super) fn copy_fraction(&self) -> Option<f64> {
        Some(self.gbps()? / self.copy_gbps()?)
    }

    /// cuBLAS's time over ours: above 1, ours is faster.
    pub(super) fn ratio(&self) -> Option<f64> {
        Some(self.cublas?.median_ms * 1e3 / self.us()?)
    }
}

/// CSV header, in column order: bench's `sweep, precision, op, m, n, k,
/// ratio, status, spec` among the bespoke ones.
pub(super) const COLUMNS: [&str; 31] = [
    "device",
    "arch",
    "sweep",
    "operator",
    "precision",
    "op",
    "m",
    "n",
    "k",
    "nnz",
    "density",
    "beta",
    "family",
    "us",
    "gbps",
    "copy_gbps",
    "copy_fraction",
    "cublas_us",
    "ratio",
    "dense_us",
    "candidates",
    "verified",
    "compile_ms",
    "verify_n",
    "max_error",
    "tuner_choice",
    "tuner_compile_ms",
    "tuner_benchmark_ms",
    "status",
    "note",
    "spec",
];

/// Renders `rows` as CSV, one line per row after the header.
pub(super) fn csv(rows: &[Row], device: &str, arch: u32) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    let num = |x: Option<f64>, digits: usize| x.map_or(String::new(), |x| format!("{x:.digits$}"));
    let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
    for r in rows {
        let (m, n, k) = r.shape;
        let fields = [
            device.to_owned(),
            arch.to_string(),
            "bespoke".to_owned(),
            r.operator.clone(),
            r.precision.token().to_owned(),
            "nn".to_owned(),
            m.to_string(),
            n.to_string(),
            k.to_string(),
            r.nnz.to_string(),
            format!("{:.4}", r.density),
            r.beta.token().to_owned(),
            r.best.map_or(String::new(), |b| b.spec.form.token().to_owned()),
            num(r.us(), 2),
            num(r.gbps(), 1),
            num(r.copy_gbps(), 1),
            num(r.copy_fraction(), 3),
            num(r.cublas.map(|t| t.median_ms * 1e3), 2),
            num(r.ratio(), 3),
            num(r.dense.map(|t| t.median_ms * 1e3), 2),
            r.candidates.to_string(),
            r.verified.to_string(),
            ms(r.compile),
            r.verify_n.to_string(),
            r.max_error.map_or(String::new(), |e| format!("{e:.2e}")),
            r.tuner.map_or(String::new(), |t| t.choice.to_string()),
            r.tuner.map_or(String::new(), |t| ms(t.compile)),
            r.tuner.map_or(String::new(), |t| ms(t.benchmark)),
            r.status.name().to_owned(),
            r.note.clone(),
            r.best.map_or(String::new(), |b| b.spec.to_string()),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", line.join(","));
    }
    out
}

/// Every row: operator, shape, non-zeros, the best bespoke kernel's µs,
/// GB/s and fraction of the copy's, cuBLAS's µs, the ratio, the tuner's
/// choice.
pub(super) fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<28} {:>3} {:>11} {:>6} {:>6} {:>9} {:>8} {:>6} {:>9} {:>6}  best family / tuner's choice",
        "operator", "p", "m×k", "nnz", "dens", "ours µs", "GB/s", "%copy", "cuBLAS µs", "ratio"
    );
    let num = |x: Option<f64>, d: usize| x.map_or("-".to_owned(), |x| format!("{x:.d$}"));
    for r in rows {
        let (m, _, k) = r.shape;
        let family = r.best.map_or("-".to_owned(), |b| {
            format!(
                "{} w{} b{} s{} c{}",
                b.spec.form.token(),
                b.spec.width,
                b.spec.block,
                b.spec.msplit,
                b.spec.chunk
            )
        });
        let tuner = r.tuner.map_or(String::new(), |t| match t.choice {
            Choice::Dense(kernel) => format!(" / dense {kernel}"),
            Choice::Bespoke(s) if Some(s) == r.best.map(|b| b.spec) => " / same".to_owned(),
            Choice::Bespoke(s) => format!(" / {} w{}", s.form.token(), s.width),
        });
        let status =
            if r.status == Status::Ok { String::new() } else { format!("  {}: {}", r.status.name(), r.note) };
        let _ = writeln!(
            out,
            "{:<28} {:>3} {:>11} {:>6} {:>6.3} {:>9} {:>8} {:>6} {:>9} {:>6}  {family}{tuner}{status}",
            r.operator,
            r.precision.token(),
            format!("{m}×{k}"),
            r.nnz,
            r.density,
            num(r.us(), 1),
            num(r.gbps(), 0),
            num(r.copy_fraction().map(|f| 100.0 * f), 1),
            num(r.cublas.map(|t| t.median_ms * 1e3), 1),
            num(r.ratio(), 2),
        );
    }
    out
}

/// The geometric mean of `values` (`None` for none).
pub(super) fn geomean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values.into_iter().fold((0.0, 0usize), |(s, c), v| (s + v.ln(), c + 1));
    (count > 0).then(|| (sum / count as f64).exp())
}

/// Per precision: the geometric means of the ratio to cuBLAS and of the
/// fraction of copy bandwidth, and what the tuner chose.
pub(super) fn summary(rows: &[Row]) -> String {
    let mut out = String::new();
    for p in [Precision::F64, Precision::F32] {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.precision == p).collect();
        if mine.is_empty() {
            continue;
        }
        let ratios: Vec<f64> = mine.iter().filter_map(|r| r.ratio()).collect();
        let fractions: Vec<f64> = mine.iter().filter_map(|r| r.copy_fraction()).collect();
        let dense =
            mine.iter().filter(|r| r.tuner.is_some_and(|t| matches!(t.choice, Choice::Dense(_)))).count();
        let tuned = mine.iter().filter(|r| r.tuner.is_some()).count();
        let cost: f64 =
            mine.iter().filter_map(|r| r.tuner).map(|t| (t.compile + t.benchmark).as_secs_f64()).sum::<f64>();
        let num = |x: Option<f64>, d: usize| x.map_or("-".to_owned(), |x| format!("{x:.d$}"));
        let _ = writeln!(
            out,
            "{}: geometric mean of cuBLAS µs / ours {} over {} operators (min {}, max {}); {}% of the copy bandwidth \
             (geometric mean); the tuner chose the dense GEMM for {dense} of {tuned}, tuning cost {cost:.1} s in all",
            p.token(),
            num(geomean(ratios.iter().copied()), 3),
            ratios.len(),
            num(ratios.iter().copied().reduce(f64::min), 2),
            num(ratios.iter().copied().reduce(f64::max), 2),
            num(geomean(fractions.iter().copied()).map(|f| 100.0 * f), 1),
        );
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use gemm_codegen::Target;
    use gemm_codegen::bespoke::{Form, Operator};

    use super::*;

    fn t(us: f64) -> Timing {
        Timing { median_ms: us * 1e-3, min_ms: us * 0.9e-3, max_ms: us * 1.1e-3 }
    }

    /// A measured row: ours `us`, cuBLAS `cublas_us`, the copy `copy_us`.
    pub(in crate::bespoke) fn sample(
        name: &str,
        precision: Precision,
        us: f64,
        cublas_us: f64,
        copy_us: f64,
    ) -> Row {
        let a = Operator::from_fn(8, 4, |i, j| if (i + j) % 2 == 0 { 1.5 } else { 0.0 }).unwrap();
        let mut row = Row::new(name, &a, precision, 1 << 17, BetaMode::Zero);
        let spec =
            BespokeSpec { form: Form::CStream, width: 2, arch: Target::Sm90, ..BespokeSpec::new(precision) };
        row.best = Some(Best { spec, timing: t(us) });
        row.cublas = Some(t(cublas_us));
        row.copy = Some(t(copy_us));
        row.dense = Some(t(cublas_us * 1.1));
        (row.candidates, row.verified, row.verify_n, row.max_error) = (6, 6, 4096, Some(1e-16));
        row.tuner = Some(Tuner {
            choice: Choice::Bespoke(spec),
            median_us: us,
            compile: Duration::from_millis(120),
            benchmark: Duration::from_millis(40),
        });
        row
    }

    #[test]
    fn rows_derive_bandwidths_and_ratios() {
        let r = sample("x", Precision::F64, 20.0, 60.0, 10.0);
        // 8 bytes × 2^17 columns × (4 rows of B + 8 of C).
        assert_eq!(r.bytes, 8.0 * 131072.0 * 12.0);
        assert!((r.ratio().unwrap() - 3.0).abs() < 1e-12);
        assert!((r.copy_fraction().unwrap() - 0.5).abs() < 1e-12);
        assert!((r.gbps().unwrap() - r.bytes / 20e-6 / 1e9).abs() < 1e-6);
        let mut one =
            Row::new("y", &Operator::from_fn(2, 2, |_, _| 1.0).unwrap(), Precision::F32, 10, BetaMode::One);
        one.note = "no candidate".into();
        assert_eq!(one.bytes, 4.0 * 10.0 * (2.0 + 2.0 * 2.0));
        assert_eq!((one.ratio(), one.copy_fraction()), (None, None));
    }

    #[test]
    fn csv_keeps_benchs_columns_and_quotes_specs() {
        for column in ["sweep", "precision", "op", "m", "n", "k", "ratio", "status", "spec"] {
            assert!(COLUMNS.contains(&column), "{column}");
        }
        let rows = [
            sample("quad-p2", Precision::F64, 20.0, 60.0, 10.0),
            sample("tri", Precision::F32, 5.0, 4.0, 4.0),
        ];
        let text = csv(&rows, "NVIDIA H100 80GB HBM3", 90);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[1].starts_with(
                "NVIDIA H100 80GB HBM3,90,bespoke,quad-p2,f64,nn,8,131072,4,16,0.5000,0,cstream,20.00,"
            ),
            "{}",
            lines[1]
        );
        assert!(lines[1].contains(",3.000,") && lines[1].contains(",0.500,"), "{}", lines[1]);
        assert!(lines[1].ends_with("\"precision = f64, family = cstream, width = 2, block = 128, msplit = 1, chunk = 16, beta = runtime, arch = sm_90\""), "{}", lines[1]);
        for line in &lines[1..] {
            let mut fields = 1;
            let mut quoted = false;
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields += 1,
                    _ => {}
                }
            }
            assert_eq!(fields, COLUMNS.len(), "{line}");
        }
    }

    #[test]
    fn table_and_summary() {
        let rows = [
            sample("a", Precision::F64, 20.0, 60.0, 10.0),
            sample("b", Precision::F64, 10.0, 10.0 / 3.0, 5.0),
            sample("c", Precision::F32, 5.0, 4.0, 4.0),
        ];
        let table = table(&rows);
        assert_eq!(table.lines().count(), 4);
        assert!(table.contains("cstream w2 b128 s1 c16 / same"), "{table}");
        let summary = summary(&rows);
        assert!(
            summary.starts_with(
                "f64: geometric mean of cuBLAS µs / ours 1.000 over 2 operators (min 0.33, max 3.00)"
            ),
            "{summary}"
        );
        assert!(
            summary.contains("f32: geometric mean of cuBLAS µs / ours 0.800 over 1 operators"),
            "{summary}"
        );
        assert!(summary.contains("tuning cost 0.3 s"), "{summary}");
        assert_eq!(geomean([]), None);
        assert!((geomean([2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
    }
}
