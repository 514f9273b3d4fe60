//! The GPU path without a GPU: the launch that `validate::check` plans
//! (column-major, A and B swapped for row-major, `k = 0` for `alpha = 0`)
//! run on the real Table 2 kernels in `gemm-codegen`'s PTX emulator, in
//! sentinel-filled buffers, against the `f64` reference.
//!
//! Everything `Gemm::gemm_loaded` does except the cudarc calls: when these
//! pass, a wrong result on the GPU is the launch itself (or the hardware).

use gemm_codegen::emu::{Gemm as Emulated, GemmArgs, Options};
use gemm_codegen::{Element, KernelImage, Op, Precision};
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::validate::{self, BufferInfo, Buffers, Checked};
use gemm_host::{GemmConfig, Layout, Matrix};

/// Whether buffer index `idx` holds an element of `matrix` (not an ld gap).
fn in_matrix<T: Element>(cfg: &GemmConfig<T>, matrix: Matrix, idx: usize) -> bool {
    let stored = cfg.stored(matrix);
    let (inner, outer, ld) =
        (cfg.dim(stored.inner) as usize, cfg.dim(stored.outer) as usize, cfg.ld(matrix) as usize);
    idx % ld < inner && idx / ld < outer
}

fn buffer<T: Element>(cfg: &GemmConfig<T>, matrix: Matrix, mut fill: impl FnMut() -> T) -> Vec<T> {
    let len = cfg.required_len(matrix) as usize;
    (0..len).map(|i| if in_matrix(cfg, matrix, i) { fill() } else { reference::sentinel() }).collect()
}

/// Runs `cfg` as `Gemm` would: check, then launch the planned arguments.
fn emulate<T: Element>(
    image: &KernelImage,
    cfg: &GemmConfig<T>,
    a: &[T],
    b: &[T],
    c: &mut [T],
) -> Result<(), String> {
    let buffers = Buffers {
        a: BufferInfo::new(0, a.len()),
        b: BufferInfo::new(0, b.len()),
        c: BufferInfo::new(0, c.len()),
    };
    let launch = match validate::check(cfg, &buffers, Some(&image.spec)).map_err(|e| e.to_string())? {
        Checked::Skip(_) => return Ok(()),
        Checked::Launch(l) => l,
    };
    let (first, second) = launch.operands(a, b);
    let args = GemmArgs {
        m: launch.m,
        n: launch.n,
        k: launch.k,
        lda: launch.lda,
        ldb: launch.ldb,
        ldc: launch.ldc,
        alpha: launch.alpha,
        beta: launch.beta,
    };
    let kernel = Emulated::new(image).map_err(|e| e.to_string())?;
    kernel.run(&args, first, second, c, &Options::default()).map(drop).map_err(|e| e.to_string())
}

fn case<T: Element>(rng: &mut Random, image: &KernelImage, cfg: &GemmConfig<T>) -> Result<(), String> {
    let what = format!(
        "{} {} op=({}, {}) {}x{}x{}",
        image.entry,
        cfg.layout.name(),
        cfg.op_a,
        cfg.op_b,
        cfg.m,
        cfg.n,
        cfg.k
    );
    let a = buffer(cfg, Matrix::A, || rng.element());
    let b = buffer(cfg, Matrix::B, || rng.element());
    let nan = reference::narrow::<T>(Complex::new(f64::NAN, f64::NAN));
    let poisoned = cfg.beta == T::ZERO;
    let c0 = buffer(cfg, Matrix::C, || if poisoned { nan } else { rng.element() });
    let mut c = c0.clone();
    emulate(image, cfg, &a, &b, &mut c).map_err(|e| format!("{what}: {e}"))?;
    for (i, (now, before)) in c.iter().zip(&c0).enumerate() {
        if !in_matrix(cfg, Matrix::C, i) && !reference::same_bits(*now, *before) {
            return Err(format!("{what}: wrote the gap element {i} of C"));
        }
    }
    let expected = reference::gemm(cfg, &a, &b, &c0).map_err(|e| e.to_string())?;
    let err = reference::relative_error(&reference::logical_c(cfg, &c), &expected);
    if expected.is_empty() || err < reference::tolerance(T::PRECISION) {
        Ok(())
    } else {
        Err(format!("{what}: relative error {err:e}"))
    }
}

fn sweep<T: Element>(seed: u64, ops: &[(Op, Op)]) {
    let mut rng = Random::new(seed);
    let mut failures = Vec::new();
    let shapes = [(0, 3, 3), (5, 4, 0), (1, 1, 1), (17, 9, 5), (25, 33, 19)];
    for &(op_a, op_b) in ops {
        let image = gemm_kernels::table2(T::PRECISION, op_a, op_b).image();
        for (i, &(m, n, k)) in shapes.iter().enumerate() {
            let pairs = [
                (rng.scalar(), T::ZERO),
                (T::ZERO, rng.scalar()),
                (rng.scalar(), rng.scalar()),
                (T::ONE, T::ONE),
            ];
            for (alpha, beta) in pairs {
                let extra = (i % 3) as i64;
                // Column-major with the kernel's ops; row-major with them
                // swapped, which runs the same kernel.
                for (layout, ops) in [(Layout::ColMajor, (op_a, op_b)), (Layout::RowMajor, (op_b, op_a))] {
                    let cfg = GemmConfig::with_layout(layout, ops.0, ops.1, m, n, k).alpha(alpha).beta(beta);
                    let cfg = cfg
                        .lda(cfg.min_ld(Matrix::A) + extra)
                        .ldb(cfg.min_ld(Matrix::B) + 2 * extra)
                        .ldc(cfg.min_ld(Matrix::C) + extra);
                    if let Err(e) = case(&mut rng, &image, &cfg) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn sgemm_planned_launches() {
    sweep::<f32>(1, &[(Op::N, Op::N), (Op::T, Op::C)]);
}

#[test]
fn dgemm_planned_launches() {
    sweep::<f64>(2, &[(Op::N, Op::T), (Op::C, Op::N)]);
}

#[test]
fn cgemm_planned_launches() {
    sweep::<Complex<f32>>(3, &[(Op::N, Op::C), (Op::C, Op::T), (Op::T, Op::N)]);
}

#[test]
fn zgemm_planned_launches() {
    sweep::<Complex<f64>>(4, &[(Op::C, Op::C), (Op::N, Op::N)]);
}

#[test]
fn rejected_calls_never_reach_the_kernel() {
    let image = gemm_kernels::table2(Precision::F32, Op::N, Op::N).image();
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 4, 4, 4).lda(3);
    let mut c = vec![1.0f32; 16];
    let err = emulate(&image, &cfg, &[0.0; 16], &[0.0; 16], &mut c).unwrap_err();
    assert!(err.starts_with("argument `lda` = 3"), "{err}");
    assert!(c.iter().all(|&x| x == 1.0));
}
