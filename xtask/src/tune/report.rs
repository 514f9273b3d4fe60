//! The tuning report: a CSV with one row per variant, and an SVG of the
//! distribution of performance per kernel type (every variant a dot, the
//! Table 2 configuration a triangle, cuBLAS a bar).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Result, anyhow};
use plotters::prelude::*;

use gemm_codegen::KernelSpec;
use gemm_codegen::bound::GpuThroughput;

use super::record::{KernelType, Phase, Record, Subject};
use crate::bound::{self, KernelBound};

/// CSV header, in column order; [`crate::bound::COLUMNS`] follow.
const COLUMNS: [&str; 16] = [
    "kernel_type",
    "subject",
    "phase",
    "spec",
    "status",
    "m",
    "n",
    "k",
    "registers",
    "spill_bytes",
    "shared_bytes",
    "blocks_per_sm",
    "median_ms",
    "tflops",
    "fraction_of_cublas",
    "error",
];

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

/// The fastest cuBLAS time per (kernel type, size) among `records`.
fn cublas_tflops(records: &[&Record]) -> BTreeMap<(KernelType, (u64, u64, u64)), f64> {
    let mut best = BTreeMap::new();
    for r in records.iter().filter(|r| r.subject == Subject::Cublas) {
        if let Some(t) = r.tflops() {
            let e = best.entry((r.kernel_type, r.size)).or_insert(t);
            *e = f64::max(*e, t);
        }
    }
    best
}

/// Renders the CSV of `records`, each variant with its analytic bound on
/// `machine` (and cuBLAS with the FMA peak).
pub fn csv(records: &[&Record], machine: Option<&GpuThroughput>) -> String {
    let cublas = cublas_tflops(records);
    let mut bounds: HashMap<(KernelSpec, Option<u32>), KernelBound> = HashMap::new();
    let mut out = [&COLUMNS[..], &bound::COLUMNS[..]].concat().join(",");
    out.push('\n');
    for r in records {
        let (subject, spec) = match &r.subject {
            Subject::Variant { spec, table2 } => {
                (if *table2 { "table2" } else { "variant" }, spec.to_invocation_body())
            }
            Subject::Cublas => ("cublas", String::new()),
        };
        let opt = |x: Option<u32>| x.map_or(String::new(), |x| x.to_string());
        let tflops = r.tflops();
        let fraction = tflops.zip(cublas.get(&(r.kernel_type, r.size))).map(|(t, c)| t / c);
        let fields = [
            r.kernel_type.name(),
            subject.to_owned(),
            match r.phase {
                Phase::Search => "search".to_owned(),
                Phase::Confirm { run } => format!("confirm {run}"),
                Phase::Split { run, slices } => format!("split {slices} {run}"),
            },
            spec,
            format!("{:?}", r.status).to_lowercase(),
            r.size.0.to_string(),
            r.size.1.to_string(),
            r.size.2.to_string(),
            opt(r.registers),
            opt(r.local_bytes),
            opt(r.shared_bytes),
            opt(r.blocks_per_sm),
            r.median_ms.map_or(String::new(), |t| format!("{t:.4}")),
            tflops.map_or(String::new(), |t| format!("{t:.3}")),
            fraction.map_or(String::new(), |f| format!("{f:.3}")),
            r.error.clone().unwrap_or_default(),
        ];
        let kb = match &r.subject {
            Subject::Variant { spec, .. } => bounds
                .entry((*spec, r.blocks_per_sm))
                .or_insert_with(|| KernelBound::of_spec(spec, machine, r.blocks_per_sm))
                .clone(),
            Subject::Cublas => KernelBound::peak_only(r.kernel_type.precision, machine),
        };
        let cells = kb.cells(tflops);
        let line: Vec<String> = fields.iter().chain(&cells).map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", line.join(","));
    }
    out
}

/// Draws the performance distribution per kernel type into an SVG file.
pub fn svg(records: &[&Record], title: &str, path: &Path) -> Result<()> {
    let types: Vec<KernelType> = {
        let mut t: Vec<_> = records.iter().map(|r| r.kernel_type).collect();
        t.sort();
        t.dedup();
        t
    };
    if types.is_empty() {
        return Err(anyhow!("no records to plot"));
    }
    let x_of = |t: &KernelType| types.iter().position(|u| u == t).unwrap_or(0) as f64;
    let ymax = records.iter().filter_map(|r| r.tflops()).fold(1.0f64, f64::max) * 1.1;
    let err = |e: DrawingAreaErrorKind<_>| anyhow!("drawing {}: {e:?}", path.display());

    let root = SVGBackend::new(path, (160 + 90 * types.len() as u32, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..types.len() as f64 - 0.5, 0f64..ymax)
        .map_err(err)?;
    let names: Vec<String> = types.iter().map(KernelType::name).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(types.len())
        .x_label_formatter(&|x| names.get(x.round().max(0.0) as usize).cloned().unwrap_or_default())
        .y_desc("TFLOP/s")
        .draw()
        .map_err(err)?;

    // Spread each type's dots across its column, deterministically.
    let mut seen: BTreeMap<KernelType, usize> = BTreeMap::new();
    let mut dots = Vec::new();
    let mut table2 = Vec::new();
    let mut cublas = Vec::new();
    for r in records.iter().filter(|r| r.phase == Phase::Search) {
        let Some(t) = r.tflops() else { continue };
        let x = x_of(&r.kernel_type);
        match &r.subject {
            Subject::Cublas => cublas.push((x, t)),
            Subject::Variant { table2: true, .. } => table2.push((x, t)),
            Subject::Variant { .. } => {
                let i = seen.entry(r.kernel_type).or_default();
                *i += 1;
                let jitter = ((*i * 37) % 61) as f64 / 61.0 * 0.6 - 0.3;
                dots.push((x + jitter, t));
            }
        }
    }
    chart
        .draw_series(dots.iter().map(|&p| Circle::new(p, 2, BLUE.mix(0.45).filled())))
        .map_err(err)?
        .label("variants")
        .legend(|(x, y)| Circle::new((x, y), 3, BLUE.filled()));
    chart
        .draw_series(table2.iter().map(|&p| TriangleMarker::new(p, 6, RED.filled())))
        .map_err(err)?
        .label("Table 2 configuration")
        .legend(|(x, y)| TriangleMarker::new((x, y), 5, RED.filled()));
    chart
        .draw_series(
            cublas
                .iter()
                .map(|&(x, t)| PathElement::new(vec![(x - 0.4, t), (x + 0.4, t)], BLACK.stroke_width(2))),
        )
        .map_err(err)?
        .label("cuBLAS")
        .legend(|(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], BLACK.stroke_width(2)));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::record::Status;
    use super::super::record::tests::{record, spec};
    use super::*;

    #[test]
    fn csv_has_a_row_per_record_and_quotes_specs() {
        let mut failed = record(spec(128), 1.0);
        failed.status = Status::CompileFailed;
        failed.median_ms = None;
        failed.error = Some("ptx \"error\", line 3".into());
        let mut cublas = record(spec(64), 0.5);
        cublas.subject = Subject::Cublas;
        let ok = record(spec(64), 1.0);
        let h100 = bound::machine_for_arch("NVIDIA H100 80GB HBM3", 90, None).unwrap();
        let text = csv(&[&ok, &failed, &cublas], Some(&h100));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        // The columns of old, in their order, then the bound's.
        assert_eq!(lines[0], format!("{},{}", COLUMNS.join(","), bound::COLUMNS.join(",")));
        assert!(lines[1].contains("\"precision = f32, op = (N, N)"));
        let kb = KernelBound::of_spec(&spec(64), Some(&h100), ok.blocks_per_sm);
        let cells = kb.cells(ok.tflops()).join(",");
        assert!(lines[1].ends_with(&format!(",0.500,,{cells}")), "fraction of cuBLAS, bound: {}", lines[1]);
        assert!(!kb.cells(None)[0].is_empty() && cells.contains(",66.908,"), "{cells}");
        // cuBLAS: the FMA peak and its share of it, no bound.
        let pct = 100.0 * cublas.tflops().unwrap() / 66.908;
        assert!(lines[3].ends_with(&format!(",,66.908,{pct:.1},,")), "{}", lines[3]);
        // Without a machine model the new cells are empty.
        let alone = csv(&[&ok, &cublas], None);
        assert!(alone.lines().nth(1).unwrap().ends_with(",0.500,,,,,,"), "{alone}");
        assert!(lines[2].contains("compilefailed") && lines[2].contains("\"ptx \"\"error\"\", line 3\""));
    }

    #[test]
    fn svg_is_written() {
        let dir = std::env::temp_dir().join(format!("gemmforge-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("perf.svg");
        let mut t2 = record(spec(96), 2.0);
        t2.subject = Subject::Variant { spec: spec(96), table2: true };
        svg(&[&record(spec(64), 1.0), &t2], "test", &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("<svg") && text.contains("sgemm_nn"));
    }
}
