//! On the GPU: stream-K kernels (`schedule = stream_k`) of every precision,
//! each shared out over as many blocks as the device holds at once, on
//! ragged shapes whose tiles are split between blocks, checked against the
//! `f64` reference (guards around every buffer) and run twice for bitwise
//! equality: the last block to reach a split tile sums its slots in stripe
//! order, whichever block that is.
//!
//! Without a GPU each test prints `skipping: no CUDA GPU (<reason>)` and
//! passes; with `GEMMFORGE_REQUIRE_GPU=1` it fails instead.

use crate::common::{Guarded, gpu, say};
use gemm_codegen::{Element, KernelImage, KernelSpec, Op};
use gemm_host::case::Case;
use gemm_host::num_complex::Complex;
use gemm_host::reference::{Random, to_bits};
use gemm_host::{Gemm, GemmConfig, Matrix};

/// A stream-K spec for `T` that every sm_80+ GPU runs: a `cp.async` ring of
/// 64 × 64 × 16 FMA tiles.
fn image<T: Element>(op: (Op, Op)) -> KernelImage {
    let text = format!(
        "precision = {}, op = ({:?}, {:?}), tile = (64, 64, 16), threads = (16, 16), load_a = ({}), \
         load_b = ({}), arch = sm_80, stages = 3, schedule = stream_k",
        T::PRECISION,
        op.0,
        op.1,
        if op.0 == Op::N { "64, 4" } else { "16, 16" },
        if op.1 == Op::N { "16, 16" } else { "64, 4" },
    );
    let spec: KernelSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    gemm_codegen::compile(&spec).unwrap_or_else(|v| panic!("{spec}: {v:?}"))
}

fn stream_k<T: Element>(gemm: &Gemm, seed: u64) -> Vec<String> {
    let mut rng = Random::new(seed);
    let mut failures = Vec::new();
    let shapes = [(768, 768, 768), (1000, 777, 333), (100, 37, 5000), (64, 64, 16)];
    for (i, &op) in [(Op::N, Op::N), (Op::T, Op::N), (Op::N, Op::T), (Op::T, Op::T)].iter().enumerate() {
        let (m, n, k) = shapes[i];
        let image = image::<T>(op);
        let cfg = GemmConfig::<T>::new(op.0, op.1, m, n, k).alpha(rng.scalar()).beta(rng.scalar());
        let case = Case::random(cfg, &mut rng);
        let kernel = gemm.load(&image).expect("the kernel loads");
        let grid = gemm.stream_k_grid::<T>(&kernel, m as u32, n as u32, k as u32).expect("a stream-K grid");
        let what = format!(
            "{} {} on {} blocks of {} stripes ({} tiles, {} stripes)",
            T::PRECISION,
            gemm_host::case::describe(&cfg),
            grid.blocks,
            grid.share,
            grid.tiles,
            grid.stripes
        );
        let [a, b] = [Matrix::A, Matrix::B].map(|x| Guarded::upload(gemm, case.guarded(x).to_vec()));
        let mut outs = Vec::new();
        for _ in 0..2 {
            let mut c = Guarded::upload(gemm, case.guarded(Matrix::C).to_vec());
            let run = gemm.gemm_image(&image, &cfg, &a.view(), &b.view(), &mut c.view_mut());
            outs.push(run.map(|()| c.download(gemm)));
        }
        let outcome = match (&outs[0], &outs[1]) {
            (Ok(x), Ok(y)) if x.iter().map(|&v| to_bits(v)).ne(y.iter().map(|&v| to_bits(v))) => {
                Err("two runs differ".to_owned())
            }
            (Ok(x), Ok(_)) => {
                case.check(&a.download(gemm), &b.download(gemm), x, image.spec.math).map(|_| ())
            }
            (Err(e), _) | (_, Err(e)) => Err(e.to_string()),
        };
        match outcome {
            Ok(()) => say(&format!("{what}: within tolerance, two runs bitwise equal")),
            Err(e) => failures.push(format!("{what}: {e}")),
        }
    }
    failures
}

#[test]
fn stream_k_on_the_gpu_is_correct_and_deterministic() {
    let Some(gemm) = gpu() else { return };
    let mut failures = stream_k::<f32>(&gemm, 21);
    failures.extend(stream_k::<f64>(&gemm, 22));
    failures.extend(stream_k::<Complex<f32>>(&gemm, 23));
    failures.extend(stream_k::<Complex<f64>>(&gemm, 24));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
