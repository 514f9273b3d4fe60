//! `cargo xtask bespoke --emulate`: every candidate generated and verified
//! in the PTX emulator, no GPU.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use gemm_codegen::bespoke::{Operator, candidates};
use gemm_codegen::{Element, Precision, Target};
use gemm_host::Matrix;
use gemm_host::bespoke::{BespokeCase, BespokeKernel};
use gemm_host::case::GUARD;
use gemm_host::emulate::Emulator;
use gemm_host::reference::Random;

use super::Log;
use super::report::{Row, Status, csv, table};
use super::setup::Setup;

/// The architecture the candidates are generated for: the H100's.
const ARCH: Target = Target::Sm90;

pub(super) fn run(setup: &Setup, log: &mut Log) -> Result<()> {
    log.say(&format!(
        "bespoke --emulate (no GPU): {} operator(s) × {} precision(s); every candidate for {} generated and verified \
         in the PTX emulator against the f64 reference at n = {}, beta = {}; nothing is timed",
        setup.operators.len(),
        setup.precisions.len(),
        ARCH.token(),
        setup.n,
        setup.beta.token()
    ));
    let emulator = Emulator::new();
    let mut rows = Vec::new();
    for &p in &setup.precisions {
        for (i, (name, a)) in setup.operators.iter().enumerate() {
            let mut rng = Random::new(setup.seed ^ (i as u64) << 8);
            let row = match p {
                Precision::F32 => operator::<f32>(setup, &emulator, name, a, &mut rng, log),
                _ => operator::<f64>(setup, &emulator, name, a, &mut rng, log),
            };
            rows.push(row);
            std::fs::write(setup.out.join("bench.csv"), csv(&rows, "emulator", ARCH.sm()))?;
        }
    }
    log.say(&format!("\n{}", table(&rows)));
    let failed = rows.iter().filter(|r| r.status == Status::Failed).count();
    let verified: usize = rows.iter().map(|r| r.verified).sum();
    log.say(&format!(
        "{verified} candidate(s) of {} operator row(s) verified in the emulator; wrote {}",
        rows.len(),
        setup.out.join("bench.csv").display()
    ));
    if failed > 0 {
        bail!("{failed} operator(s) failed: see the table");
    }
    Ok(())
}

/// Every candidate of `a` in `E`, verified on one random case.
fn operator<E: Element>(
    setup: &Setup,
    emulator: &Emulator,
    name: &str,
    a: &Arc<Operator>,
    rng: &mut Random,
    log: &mut Log,
) -> Row {
    let mut row = Row::new(name, a, E::PRECISION, setup.n, setup.beta);
    row.verify_n = setup.n;
    let mut specs = candidates(a, E::PRECISION, setup.beta, ARCH);
    specs.truncate(setup.max_candidates.unwrap_or(usize::MAX));
    log.say(&format!(
        "{name} {} ({}×{}, {} non-zeros): {} candidate(s)",
        E::PRECISION.token(),
        a.rows(),
        a.cols(),
        row.nnz,
        specs.len()
    ));
    let case = if setup.fixed_strides {
        // The strides compiled in where n keeps the candidate's vectors
        // aligned (else its twin runs, strides as arguments).
        for spec in &mut specs {
            *spec = spec.packed_at(setup.n);
        }
        let packed = u64::from(setup.n);
        BespokeCase::<E>::random_strided(a, setup.n, (packed, packed), setup.beta, rng)
    } else {
        BespokeCase::<E>::random(a, setup.n, setup.beta, rng)
    };
    let mut failures = Vec::new();
    for spec in specs {
        row.candidates += 1;
        let t = Instant::now();
        let kernel = match BespokeKernel::compile(Arc::clone(a), &spec) {
            Ok(k) => k,
            Err(e) => {
                failures.push(format!("{spec}: {e}"));
                continue;
            }
        };
        let generate = t.elapsed();
        row.compile += generate;
        let t = Instant::now();
        let result = verify(emulator, &kernel, &case);
        let ran = t.elapsed();
        match &result {
            Ok(error) => {
                row.verified += 1;
                row.max_error = Some(row.max_error.unwrap_or(0.0).max(*error));
            }
            Err(e) => failures.push(format!("{spec}: {e}")),
        }
        log.say(&format!(
            "  {spec:<118} generate {:>7.1} ms, emulated {:>8.1} ms: {}",
            ms(generate),
            ms(ran),
            match result {
                Ok(e) => format!("ok, error {e:.1e}"),
                Err(e) => format!("FAILED: {e}"),
            }
        ));
    }
    row.status = match (failures.first(), row.candidates) {
        (Some(first), _) => {
            row.note = format!("{} of {} failed, first {first}", failures.len(), row.candidates);
            Status::Failed
        }
        (None, 0) => {
            row.note = "no bespoke kernel takes it (too many non-zeros)".to_owned();
            Status::NoBespoke
        }
        (None, n) => {
            row.note = format!("{n} candidate(s) verified in the emulator");
            Status::Emulated
        }
    };
    row
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `kernel` on the case's inputs in the emulator and checks it.
fn verify<E: Element>(
    emulator: &Emulator,
    kernel: &BespokeKernel,
    case: &BespokeCase<E>,
) -> Result<f64, String> {
    let b = case.case.guarded(Matrix::B).to_vec();
    let mut c = case.case.guarded(Matrix::C).to_vec();
    let len = c.len();
    emulator
        .bespoke(kernel, &case.call, &b[GUARD..b.len() - GUARD], &mut c[GUARD..len - GUARD])
        .map_err(|e| e.to_string())?;
    case.check(&b, &c, kernel.image().spec.math())
}

#[cfg(test)]
mod tests {
    use super::super::setup::tests::parse;
    use super::*;

    /// The CI-speed run of `cargo xtask bespoke --emulate` on three small
    /// operators in both precisions: every candidate verified, the CSV and
    /// log written.
    #[test]
    fn emulate_verifies_every_candidate_of_small_operators() {
        let dir = std::env::temp_dir().join(format!("gemmforge-bespoke-emulate-{}", std::process::id()));
        let out = dir.to_str().unwrap();
        let names = "rand-4x4-d0.50,quad-p1-gl-grad,hex-p1-gll-gl-interp";
        let setup =
            parse(&["--emulate", "--operator", names, "--n", "37", "--beta", "1", "--out", out]).unwrap();
        assert_eq!(setup.operators.len(), 3);
        std::fs::create_dir_all(&setup.out).unwrap();
        let mut log = Log::create(&setup.out.join("bespoke.log")).unwrap();
        run(&setup, &mut log).unwrap();
        let text = std::fs::read_to_string(dir.join("bench.csv")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 6, "{text}");
        assert!(lines[1..].iter().all(|l| l.contains(",emulated,")), "{text}");
        assert!(lines[1].starts_with("emulator,90,bespoke,rand-4x4-d0.50,f64,nn,4,37,4,"), "{}", lines[1]);
        let log = std::fs::read_to_string(dir.join("bespoke.log")).unwrap();
        assert!(log.contains("verified in the PTX emulator") && log.contains("ok, error"), "{log}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// By default every candidate whose vectors n keeps aligned is compiled
    /// with `ldb = ldc = n` and verified at those strides;
    /// `--runtime-strides` takes them as arguments.
    #[test]
    fn emulate_with_fixed_strides_verifies_them() {
        let runtime = parse(&["--emulate", "--runtime-strides"]).unwrap();
        assert!(!runtime.fixed_strides);
        let dir = std::env::temp_dir().join(format!("gemmforge-bespoke-fixed-{}", std::process::id()));
        let out = dir.to_str().unwrap();
        let argv = ["--emulate", "--operator", "quad-p1-gl-grad", "--n", "40", "--out", out];
        let setup = parse(&argv).unwrap();
        assert!(setup.fixed_strides);
        std::fs::create_dir_all(&setup.out).unwrap();
        let mut log = Log::create(&setup.out.join("bespoke.log")).unwrap();
        run(&setup, &mut log).unwrap();
        let log = std::fs::read_to_string(dir.join("bespoke.log")).unwrap();
        let candidates: Vec<&str> = log.lines().filter(|l| l.contains("precision = ")).collect();
        assert!(!candidates.is_empty(), "{log}");
        assert!(
            candidates.iter().all(|l| l.contains("ldb = 40, ldc = 40") && l.contains("ok, error")),
            "{log}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
