//! The end of a tuning run, with or without a GPU: the CSV and SVG, the
//! winners written back as generated files, the closing table and the GPU
//! time each kernel type took.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use gemm_codegen::bound::GpuThroughput;

use super::record::{self, DeviceKey, Journal, KernelType, Phase, Record, Status, Subject, shape_name};
use super::{Args, Tally, report as csv_svg, winners};
use crate::bound::KernelBound;

/// GPU seconds the journal's measurements of `kt` on `device` took.
pub(super) fn gpu_seconds(records: &[Record], device: &DeviceKey, kt: KernelType) -> f64 {
    records.iter().filter(|r| &r.device == device && r.kernel_type == kt).filter_map(|r| r.gpu_s).sum()
}

pub(super) fn print_gpu_time(records: &[Record], device: &DeviceKey, types: &[KernelType]) {
    let mut total = 0.0;
    println!("GPU time per kernel type (all calls):");
    for &kt in types {
        let s = gpu_seconds(records, device, kt);
        total += s;
        println!("  {:<9} {:>7.1} s", kt.name(), s);
    }
    println!("  {:<9} {:>7.1} s ({:.1} min)", "total", total, total / 60.0);
}

pub(super) fn report(
    args: &Args,
    journal: &Journal,
    device: &DeviceKey,
    machine: Option<&GpuThroughput>,
    types: &[KernelType],
    tallies: &BTreeMap<KernelType, Tally>,
) -> Result<()> {
    let records: Vec<&Record> = journal.records().iter().filter(|r| &r.device == device).collect();
    std::fs::create_dir_all(&args.out)?;
    let table = csv_svg::csv(&records, machine);
    if journal.compressed() {
        // A compressed journal's table is as large: compressed beside it.
        std::fs::write(record::gz_path(&args.out.join("tune.csv")), record::gzip(table.as_bytes())?)?;
    } else {
        std::fs::write(args.out.join("tune.csv"), table)?;
    }
    let title = format!("{} (sm_{}): TFLOP/s of every tuned variant", device.device, device.arch);
    csv_svg::svg(&records, &title, &args.out.join("tune.svg"))?;

    let all: Vec<Record> = records.iter().map(|&r| r.clone()).collect();
    let winners = winners::select(&all, device, |p| args.shape(p));
    let family = winners::render_family(device, &winners);
    let file = format!("sm_{}.rs", device.arch);
    let tuned = args.repo.join("gemm-kernels/src/tuned");
    if winners.is_empty() {
        println!("no verified variant: nothing to write back");
    } else if tuned.is_dir() {
        std::fs::write(tuned.join(&file), &family)?;
        let archs = families(&tuned)?;
        std::fs::write(tuned.join("families.rs"), winners::render_families(&archs))?;
        println!("wrote {} and families.rs", tuned.join(&file).display());
    } else {
        // Only the binary travelled (a GPU machine without the sources):
        // keep the file with the journal.
        std::fs::write(args.out.join(&file), &family)?;
        println!("wrote {} (no gemm-kernels under {})", args.out.join(&file).display(), args.repo.display());
    }
    summary(&records, device, machine, types, tallies, &winners);
    Ok(())
}

/// The compute capabilities that have a generated file in `dir`.
fn families(dir: &Path) -> Result<Vec<u32>> {
    let mut archs = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        let name = name.to_string_lossy();
        if let Some(arch) =
            name.strip_prefix("sm_").and_then(|n| n.strip_suffix(".rs")).and_then(|n| n.parse().ok())
        {
            archs.push(arch);
        }
    }
    archs.sort_unstable();
    Ok(archs)
}

fn summary(
    records: &[&Record],
    device: &DeviceKey,
    machine: Option<&GpuThroughput>,
    types: &[KernelType],
    tallies: &BTreeMap<KernelType, Tally>,
    winners: &[winners::Winner],
) {
    println!(
        "\n{} (sm_{}), driver {}, generator {}",
        device.device, device.arch, device.driver, device.generator
    );
    println!(
        "{:<9} {:>11} {:>10} {:>5} {:>6} {:>7} {:>8} {:>8} {:>8} {:>6} {:>8} {:>6}  winner",
        "type",
        "size",
        "space",
        "run",
        "failed",
        "GPU s",
        "winner",
        "Table 2",
        "cuBLAS",
        "ratio",
        "bound",
        "%peak"
    );
    let mut gpu_total = 0.0;
    for kt in types {
        let mine: Vec<&&Record> = records
            .iter()
            .filter(|r| r.kernel_type == *kt && r.phase == Phase::Search)
            .filter(|r| matches!(r.subject, Subject::Variant { .. }))
            .collect();
        let failed = mine.iter().filter(|r| r.status != Status::Ok).count();
        // Journals written before GPU times were kept have none.
        let gpu_s =
            records.iter().filter(|r| r.kernel_type == *kt).filter_map(|r| r.gpu_s).reduce(|a, b| a + b);
        gpu_total += gpu_s.unwrap_or(0.0);
        let tally = tallies.get(kt);
        // A row per shape the type was tuned at (one without a winner).
        let mut ws: Vec<Option<&winners::Winner>> =
            winners.iter().filter(|w| w.kernel_type == *kt).map(Some).collect();
        if ws.is_empty() {
            ws.push(None);
        }
        for w in ws {
            let fmt = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2}"));
            let kb = w.map(|w| KernelBound::of_spec(&w.spec, machine, None)).unwrap_or_default();
            println!(
                "{:<9} {:>11} {:>10} {:>5} {:>6} {:>7} {:>8} {:>8} {:>8} {:>6} {:>8} {:>6}  {}",
                kt.name(),
                w.map_or("-".to_owned(), |w| shape_name(w.size)),
                tally.map_or("-".to_owned(), |t| t.space.to_string()),
                mine.len(),
                failed,
                gpu_s.map_or("-".to_owned(), |s| format!("{s:.1}")),
                fmt(w.map(|w| w.tflops)),
                fmt(w.and_then(|w| w.table2_tflops)),
                fmt(w.and_then(|w| w.cublas_tflops)),
                fmt(w.and_then(|w| Some(w.tflops / w.cublas_tflops?))),
                fmt(kb.bound.as_ref().map(|b| b.tflops)),
                kb.pct_of_peak(w.map(|w| w.tflops)).map_or("-".to_owned(), |p| format!("{p:.1}")),
                w.map_or(String::new(), |w| w.spec.to_invocation_body()),
            );
        }
    }
    println!("GPU time of the tuning, all calls: {:.1} s ({:.1} min)", gpu_total, gpu_total / 60.0);
}
