//! The SVG of `cargo xtask bespoke`: per operator, cuBLAS's time over ours
//! and the fraction of the copy bandwidth reached, against the operator's
//! non-zeros, a series per precision.

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use gemm_codegen::Precision;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::report::Row;

/// One panel: `y` of every row that has one, against its non-zeros.
struct Panel<'a> {
    title: &'a str,
    y_desc: &'a str,
    y: fn(&Row) -> Option<f64>,
    /// A horizontal reference line (parity, the copy).
    line: f64,
}

/// Draws the two panels of `rows` into `path`.
pub(super) fn svg(rows: &[Row], title: &str, path: &Path) -> Result<()> {
    if !rows.iter().any(|r| r.ratio().is_some() || r.copy_fraction().is_some()) {
        bail!("no measured operator to plot");
    }
    let err = |e: DrawingAreaErrorKind<_>| anyhow!("drawing {}: {e:?}", path.display());
    let root = SVGBackend::new(path, (1240, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 18)).map_err(err)?;
    let areas = root.split_evenly((1, 2));
    let panels = [
        Panel {
            title: "cuBLAS time / ours (above 1: ours faster)",
            y_desc: "ratio",
            y: Row::ratio,
            line: 1.0,
        },
        Panel {
            title: "fraction of the copy bandwidth",
            y_desc: "GB/s over a copy's",
            y: Row::copy_fraction,
            line: 1.0,
        },
    ];
    for (panel, area) in panels.iter().zip(&areas) {
        draw(area, panel, rows).map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    rows: &[Row],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let points = |p: Precision| -> Vec<(f64, f64)> {
        rows.iter()
            .filter(|r| r.precision == p)
            .filter_map(|r| Some((r.nnz.max(1) as f64, (panel.y)(r)?)))
            .collect()
    };
    let all: Vec<(f64, f64)> = [Precision::F64, Precision::F32].into_iter().flat_map(points).collect();
    let xmax = all.iter().map(|p| p.0).fold(10.0f64, f64::max) * 1.5;
    let ymax = all.iter().map(|p| p.1).fold(panel.line, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(panel.title, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d((1f64..xmax).log_scale(), 0f64..ymax)?;
    chart.configure_mesh().x_desc("non-zeros of A").y_desc(panel.y_desc).draw()?;
    chart.draw_series(LineSeries::new(
        [(1.0, panel.line), (xmax, panel.line)],
        BLACK.mix(0.4).stroke_width(1),
    ))?;
    for (p, color) in [(Precision::F64, RED), (Precision::F32, BLUE)] {
        let pts = points(p);
        if pts.is_empty() {
            continue;
        }
        chart
            .draw_series(pts.iter().map(|&xy| Circle::new(xy, 3, color.filled())))?
            .label(p.token())
            .legend(move |(x, y)| Circle::new((x, y), 3, color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::report::tests::sample;
    use super::*;

    #[test]
    fn the_svg_has_both_panels_and_precisions() {
        let dir = std::env::temp_dir().join(format!("gemmforge-bespoke-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bespoke.svg");
        let rows =
            [sample("a", Precision::F64, 20.0, 60.0, 10.0), sample("b", Precision::F32, 5.0, 4.0, 4.0)];
        svg(&rows, "test", &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("<svg")
                && text.contains("fraction of the copy bandwidth")
                && text.contains("f32")
        );
        let unmeasured = [super::super::report::Row {
            best: None,
            copy: None,
            ..sample("c", Precision::F64, 1.0, 1.0, 1.0)
        }];
        assert!(svg(&unmeasured, "test", &dir.join("none.svg")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
