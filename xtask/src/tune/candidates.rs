//! The candidates a tune times for a kernel type: its search space as the
//! flags shape it, pruned ([`prune`]) or taken from the cache of an earlier
//! pruning in `<out>/candidates` (reseeded where the seeds changed).

use std::time::Instant;

use anyhow::{Context, Result};
use gemm_codegen::DeviceLimits;
use gemm_codegen::space::Space;

use super::Args;
use super::prune::{self, Ranked};
use super::record::{KernelType, shape_name};
use crate::bound;

/// The search space of `kt` on `limits`, as `args` shape it (guidelines,
/// `--tf32x3`, `--wgmma`).
pub(super) fn space(args: &Args, kt: KernelType, limits: &DeviceLimits) -> Space {
    let space = Space::for_tuning(kt.precision, kt.op_a, kt.op_b, limits.clone())
        .with_guidelines(args.guidelines(kt.precision));
    let mut pipeline = space.pipeline.clone();
    if args.tf32x3 {
        pipeline = pipeline.with_tf32x3();
    }
    if args.wgmma {
        pipeline = pipeline.with_wgmma();
    }
    space.with_pipeline(pipeline)
}

/// The pruned candidates of `kt` on `limits` (a GPU of `name`), from the
/// cache in `<out>/candidates` or computed and cached.
pub(super) fn candidates(
    args: &Args,
    kt: KernelType,
    limits: &DeviceLimits,
    name: &str,
) -> Result<Vec<Ranked>> {
    let arch = limits.compute_capability().sm();
    let config = args.prune_config(kt.precision);
    let class = (args.c_batched > 0).then(|| (args.shape(kt.precision), args.batch.is_some()));
    let mut seeds = prune::seeds(kt, arch, &args.seed, class);
    if args.stream_k {
        seeds = prune::with_stream_k_twins(seeds);
    }
    let cached = match prune::load(&args.out, kt, arch, &config) {
        Some(file) if file.seeds == seeds => return Ok(file.candidates),
        other => other,
    };
    let started = Instant::now();
    let ptxas = crate::ptxas::find_ptxas()?;
    if ptxas.is_none() {
        eprintln!(
            "note: no ptxas (GEMMFORGE_PTXAS or target/cuda-tools): registers are not checked before timing"
        );
    }
    let gpu = bound::machine_for_arch(name, arch, None).context("pruning ranks by the analytic bound")?;
    let space = space(args, kt, limits);
    let cubins = prune::cubin_dir(&args.out, kt);
    if cached.is_none() {
        // Cubins of an earlier pruning (other candidates) go with it.
        let _ = std::fs::remove_dir_all(&cubins);
    }
    let pruning = prune::Pruning::new(&space, &gpu, &config, ptxas.as_deref(), &cubins)?;
    let (found, what) = match cached {
        Some(file) => (pruning.reseed(file.candidates, &seeds), "reseeded"),
        None => (pruning.candidates(&seeds), "pruned"),
    };
    // Its scratch folder goes now; `config` moves into the file.
    drop(pruning);
    let file = prune::File {
        arch,
        generator: gemm_codegen::VERSION.to_owned(),
        ptxas: ptxas.is_some(),
        config,
        seeds,
        candidates: found,
    };
    prune::save(&args.out, kt, &file)?;
    println!(
        "{}: {} candidates {what} in {:.1} s (best bound at {} {:.2} TFLOP/s)",
        kt.name(),
        file.candidates.len(),
        started.elapsed().as_secs_f64(),
        shape_name(file.config.shape),
        file.candidates.first().map_or(0.0, |r| r.bound_tflops)
    );
    Ok(file.candidates)
}
