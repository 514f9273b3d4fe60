//! Emulator throughput on a representative GEMM, in emulated
//! thread-instructions per second. Ignored by default; run with
//! `cargo test -p gemm-emu --test emu speed:: -- --ignored --nocapture`
//! (`GEMMFORGE_EMU_WORKERS=1` for one host thread).

use crate::common as emu_common;

use std::time::Instant;

use emu_common::table2;
use gemm_codegen::num_complex::Complex;
use gemm_codegen::{Element, Op, Precision};
use gemm_emu::{Gemm, GemmArgs, Options};

fn measure<T: Element>(precision: Precision, size: u32, checks: bool) {
    let spec = table2(precision, Op::N, Op::N);
    let gemm = Gemm::new(&gemm_codegen::compile(&spec).unwrap()).unwrap();
    let n = size as usize;
    let mut random = gemm_host::reference::Random::new(1);
    let (a, b, mut c) = (random.matrix::<T>(n * n), random.matrix::<T>(n * n), random.matrix::<T>(n * n));
    let args = GemmArgs {
        m: size,
        n: size,
        k: size,
        lda: size.into(),
        ldb: size.into(),
        ldc: size.into(),
        alpha: T::ONE,
        beta: T::ONE,
    };
    let workers = std::env::var("GEMMFORGE_EMU_WORKERS").ok().and_then(|w| w.parse().ok()).unwrap_or(0);
    let options = Options { workers, check_races: checks, ..Options::default() };
    // The best of five runs.
    let mut best = f64::INFINITY;
    let mut stats = Default::default();
    for _ in 0..5 {
        let started = Instant::now();
        stats = gemm.run(&args, &a, &b, &mut c, &options).unwrap();
        best = best.min(started.elapsed().as_secs_f64());
    }
    let secs = best;
    eprintln!(
        "{:<52} {size}^3, race checks {:<5}: {:.3e} thread-instructions in {secs:.2} s = {:.1} M/s ({:.1} M warp-instructions/s)",
        spec.entry_name(),
        checks,
        stats.thread_instructions as f64,
        stats.thread_instructions as f64 / secs / 1e6,
        stats.warp_instructions as f64 / secs / 1e6,
    );
}

#[test]
#[ignore = "a measurement, not a check: run with --ignored --nocapture"]
fn emulator_speed() {
    for checks in [true, false] {
        measure::<f32>(Precision::F32, 384, checks);
        measure::<f64>(Precision::F64, 256, checks);
        measure::<Complex<f32>>(Precision::C32, 256, checks);
        measure::<Complex<f64>>(Precision::C64, 192, checks);
    }
}
