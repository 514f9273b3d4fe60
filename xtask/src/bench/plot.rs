//! The SVGs of `cargo xtask bench`: TFLOP/s per kernel and per cuBLAS op
//! pair, a panel per precision (and per K for the skinny sweep).

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Result, anyhow, bail};
use gemm_codegen::Precision;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::report::ops_text;
use super::{Row, Source, Sweep};
use crate::cli;

/// One line of a panel.
#[derive(Debug)]
struct Series {
    label: String,
    /// The op pair's position in BLAS order: the line's colour.
    color: usize,
    /// `None` for cuBLAS (dashed).
    source: Option<Source>,
    points: Vec<(f64, f64)>,
}

/// The lines of one panel: a line per kernel through its TFLOP/s, and one
/// per cuBLAS op pair (once, however many kernels of the pair were run).
fn series(rows: &[&Row], x_of: impl Fn(&Row) -> f64) -> Vec<Series> {
    let all_ops = cli::all_ops();
    let color = |r: &Row| all_ops.iter().position(|&o| o == (r.spec.op_a, r.spec.op_b)).unwrap_or(0);
    let mut out: Vec<Series> = Vec::new();
    let mut cublas: Vec<Series> = Vec::new();
    for r in rows {
        let x = x_of(r);
        if let Some(t) = r.ours_tflops() {
            let label = r.label();
            match out.iter_mut().find(|s| s.label == label) {
                Some(s) => s.points.push((x, t)),
                None => {
                    out.push(Series { label, color: color(r), source: Some(r.source), points: vec![(x, t)] })
                }
            }
        }
        if let Some(t) = r.cublas_tflops() {
            let label = format!("cuBLAS {}", ops_text(&r.spec));
            match cublas.iter_mut().find(|s| s.label == label) {
                Some(s) if !s.points.iter().any(|p| p.0 == x) => s.points.push((x, t)),
                Some(_) => {}
                None => cublas.push(Series { label, color: color(r), source: None, points: vec![(x, t)] }),
            }
        }
    }
    out.extend(cublas);
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// Draws `sweep`'s rows into an SVG: a panel per precision for the square
/// sweep (TFLOP/s against the size), per precision and K for the skinny one
/// (TFLOP/s against M = N).
pub(super) fn svg(rows: &[Row], sweep: Sweep, title: &str, path: &Path) -> Result<()> {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.sweep == sweep && r.ours.is_some()).collect();
    if mine.is_empty() {
        bail!("no {} results to plot", sweep.name());
    }
    let precisions: Vec<Precision> =
        mine.iter().map(|r| r.spec.precision).collect::<BTreeSet<_>>().into_iter().collect();
    let ks: Vec<i64> = mine.iter().map(|r| r.shape.2).collect::<BTreeSet<_>>().into_iter().collect();
    let mns: Vec<i64> = mine.iter().map(|r| r.shape.0).collect::<BTreeSet<_>>().into_iter().collect();
    // Panels: (title, rows of the panel).
    let mut panels: Vec<(String, Vec<&Row>)> = Vec::new();
    for &p in &precisions {
        let of_p = mine.iter().copied().filter(|r| r.spec.precision == p);
        let name = format!("{}gemm", p.blas_letter());
        if sweep == Sweep::Skinny {
            for &k in &ks {
                panels.push((format!("{name}, K = {k}"), of_p.clone().filter(|r| r.shape.2 == k).collect()));
            }
        } else {
            panels.push((name, of_p.collect()));
        }
    }
    let cols = if sweep == Sweep::Skinny { ks.len() } else { precisions.len().min(2) };
    let grid_rows = panels.len().div_ceil(cols);
    let (w, h) = (620u32, 440u32);
    let err = |e: DrawingAreaErrorKind<_>| anyhow!("drawing {}: {e:?}", path.display());
    let root = SVGBackend::new(path, (w * cols as u32, h * grid_rows as u32 + 40)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 18)).map_err(err)?;
    let areas = root.split_evenly((grid_rows, cols));
    for ((name, rows), area) in panels.iter().zip(&areas) {
        let ymax =
            rows.iter().flat_map(|r| [r.ours_tflops(), r.cublas_tflops()]).flatten().fold(0.1f64, f64::max)
                * 1.1;
        if sweep == Sweep::Skinny {
            let x_of = |r: &Row| mns.iter().position(|&m| m == r.shape.0).unwrap_or(0) as f64;
            let labels =
                |x: &f64| mns.get(x.round().max(0.0) as usize).map_or(String::new(), |m| m.to_string());
            let x = XAxis {
                desc: "M = N",
                range: -0.3..mns.len() as f64 - 0.7,
                labels: mns.len(),
                format: &labels,
            };
            panel(area, name, x, ymax, &series(rows, x_of)).map_err(err)?;
        } else {
            let xmax = rows.iter().map(|r| r.shape.0).max().unwrap_or(1) as f64 * 1.03;
            let labels = |x: &f64| format!("{x:.0}");
            let x = XAxis { desc: "m = n = k", range: 0.0..xmax, labels: 8, format: &labels };
            panel(area, name, x, ymax, &series(rows, |r| r.shape.0 as f64)).map_err(err)?;
        }
    }
    root.present().map_err(err)?;
    Ok(())
}

/// The x axis of a panel.
struct XAxis<'a> {
    desc: &'a str,
    range: std::ops::Range<f64>,
    /// How many labels to draw.
    labels: usize,
    format: &'a dyn Fn(&f64) -> String,
}

/// One chart: the lines of `lines` over `x`, TFLOP/s from 0 to `ymax`.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    name: &str,
    x: XAxis,
    ymax: f64,
    lines: &[Series],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut chart = ChartBuilder::on(area)
        .caption(name, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(x.range, 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_labels(x.labels)
        .x_label_formatter(x.format)
        .x_desc(x.desc)
        .y_desc("TFLOP/s")
        .draw()?;
    for s in lines {
        let color = Palette99::pick(s.color).to_rgba();
        let points = s.points.clone();
        match s.source {
            None => {
                chart
                    .draw_series(DashedLineSeries::new(points, 6, 4, color.stroke_width(1)))?
                    .label(&s.label)
                    .legend(move |(x, y)| {
                        DashedPathElement::new(vec![(x - 8, y), (x + 8, y)], 4, 2, color.stroke_width(1))
                    });
            }
            Some(source) => {
                let width = if source == Source::Table2 { 1 } else { 2 };
                chart
                    .draw_series(LineSeries::new(points.clone(), color.stroke_width(width)))?
                    .label(&s.label)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x - 8, y), (x + 8, y)], color.stroke_width(width))
                    });
                if source == Source::Table2 {
                    chart.draw_series(points.iter().map(|&p| TriangleMarker::new(p, 4, color.filled())))?;
                } else {
                    chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                }
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample_rows;
    use super::*;

    #[test]
    fn series_share_cublas_per_op_pair() {
        let rows = sample_rows();
        let square: Vec<&Row> =
            rows.iter().filter(|r| r.sweep == Sweep::Square && r.spec.precision == Precision::F32).collect();
        let lines = series(&square, |r| r.shape.0 as f64);
        let labels: Vec<&str> = lines.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["SgemmNN/tuned", "SgemmNN/table2", "cuBLAS nn"]);
        assert!(lines.iter().all(|s| s.points.len() == 3 && s.color == 0));
        assert_eq!(lines[2].source, None);
    }

    #[test]
    fn svgs_are_written() {
        let dir = std::env::temp_dir().join(format!("gemmforge-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rows = sample_rows();
        for (sweep, file) in [(Sweep::Square, "square.svg"), (Sweep::Skinny, "skinny.svg")] {
            let path = dir.join(file);
            svg(&rows, sweep, "test", &path).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.starts_with("<svg") && text.contains("cuBLAS tn") && text.contains("zgemm"),
                "{file}"
            );
        }
        assert!(text_of(&dir.join("skinny.svg")).contains("K = 64"));
        assert!(svg(&rows, Sweep::Check, "test", &dir.join("check.svg")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn text_of(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }
}
