//! The random calls of `cargo xtask soak`: [`Call`], one GEMM call as
//! plain data (no buffers, no GPU) with a one-line text form that
//! `--replay` reads back, and [`Draw`], the seeded generator of them.
//!
//! A call's inputs (A, B, C and the random `alpha`, `beta`) are not stored:
//! they are drawn from the call's own `seed` ([`Call::inputs`]), so the
//! line alone repeats the call exactly.
//!
//! What [`Draw`] draws, each choice independent:
//!
//! - precision: uniform over the chosen ones;
//! - layout: column- or row-major, even odds;
//! - ops: N, T, C each a third for complex precisions; N, T each 2/5 and C
//!   (the transpose, on reals) 1/5 for real ones;
//! - shape, every dimension at most `max_size`: tiny (each of m, n, k in
//!   0..=16, 10%), near-cubic (a log-uniform size, each dimension within a
//!   factor 2 of it, 45%), skinny (one dimension log-uniform in 1..=64, the
//!   other two log-uniform up to `max_size`, 20%), or each dimension
//!   log-uniform on its own (25%); so ragged against every tile;
//! - leading-dimension gaps, per matrix: none (1/2), 1..=8 (7/20), 9..=128
//!   (3/20) elements past the tightest;
//! - `alpha`, `beta`: 0, 1 or random, a third each (C is NaN-poisoned when
//!   `beta = 0`, so it must not be read);
//! - form: the default dispatch (80%), a strided batch of 2..=64 problems
//!   of at most 64 in each dimension, one A for all a quarter of the time
//!   (10%), or K split explicitly into 2..=16 slices, `m`, `n` up to 256
//!   and `k` from 256 (10%).

use std::fmt;
use std::str::FromStr;

use anyhow::{Context as _, Result, bail};
use gemm_codegen::{Element, Op, Precision};
use gemm_host::case::GUARD;
use gemm_host::reference::Random;
use gemm_host::validate::StridedBatch;
use gemm_host::{GemmConfig, Layout, Matrix};

use crate::cli;

/// `alpha` or `beta`: the three classes BLAS treats apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// 0: for `alpha`, A and B are not read; for `beta`, C is not read.
    Zero,
    /// 1.
    One,
    /// Drawn from the call's seed ([`Random::scalar`]: far from 0 and 1).
    Random,
}

impl Scalar {
    const ALL: [Scalar; 3] = [Scalar::Zero, Scalar::One, Scalar::Random];

    const fn token(self) -> &'static str {
        match self {
            Scalar::Zero => "0",
            Scalar::One => "1",
            Scalar::Random => "r",
        }
    }

    fn value<T: Element>(self, rng: &mut Random) -> T {
        match self {
            Scalar::Zero => T::ZERO,
            Scalar::One => T::ONE,
            Scalar::Random => rng.scalar(),
        }
    }
}

/// How the call runs on our side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// `Gemm::gemm_default`: the dispatch's kernel, K split where it splits.
    Plain,
    /// `Gemm::gemm_strided_batched` of `count` problems, each matrix's
    /// guarded buffer after the previous one's; with `shared_a`, one A for
    /// every problem (stride 0).
    Batch {
        /// Problems.
        count: u32,
        /// Whether A's stride is 0.
        shared_a: bool,
    },
    /// `Gemm::gemm_split_k_loaded` with the dispatch's kernel, K in at most
    /// `slices` slices.
    Split {
        /// Slices asked for.
        slices: u32,
    },
}

/// One GEMM call of the soak, everything but its buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    /// Element type.
    pub precision: Precision,
    /// Storage order.
    pub layout: Layout,
    /// `op(A)`.
    pub op_a: Op,
    /// `op(B)`.
    pub op_b: Op,
    /// Rows of C.
    pub m: i64,
    /// Columns of C.
    pub n: i64,
    /// Depth.
    pub k: i64,
    /// Elements added to the tightest `lda`, `ldb`, `ldc`.
    pub gaps: [i64; 3],
    /// `alpha`'s class.
    pub alpha: Scalar,
    /// `beta`'s class.
    pub beta: Scalar,
    /// How ours runs it.
    pub form: Form,
    /// Seed of the inputs and the random scalars.
    pub seed: u64,
}

impl Call {
    /// The call's configuration for element type `T` (of the call's
    /// precision), and the generator that then draws its inputs: the random
    /// scalars come first from the call's seed.
    pub fn inputs<T: Element>(&self) -> (GemmConfig<T>, Random) {
        let mut rng = Random::new(self.seed);
        let (alpha, beta) = (self.alpha.value(&mut rng), self.beta.value(&mut rng));
        let cfg = GemmConfig::<T>::with_layout(self.layout, self.op_a, self.op_b, self.m, self.n, self.k)
            .alpha(alpha)
            .beta(beta);
        let [ga, gb, gc] = self.gaps;
        let cfg = cfg
            .lda(cfg.min_ld(Matrix::A) + ga)
            .ldb(cfg.min_ld(Matrix::B) + gb)
            .ldc(cfg.min_ld(Matrix::C) + gc);
        (cfg, rng)
    }

    /// Problems in the call.
    pub fn count(&self) -> u32 {
        match self.form {
            Form::Batch { count, .. } => count,
            Form::Plain | Form::Split { .. } => 1,
        }
    }

    /// `m · n · k` over all problems: what the `f64` reference costs.
    pub fn work(&self) -> u64 {
        let dims = [self.m, self.n, self.k].map(|d| d.max(0) as u128);
        let work = dims[0] * dims[1] * dims[2] * u128::from(self.count());
        u64::try_from(work).unwrap_or(u64::MAX)
    }

    /// The batch of a [`Form::Batch`] call with `cfg`: each problem's
    /// matrices one guarded buffer (the matrix and [`GUARD`] sentinels on
    /// both sides) after the previous one's, A's stride 0 when shared.
    pub fn strided_batch<T: Element>(&self, cfg: &GemmConfig<T>) -> Option<StridedBatch> {
        let Form::Batch { count, shared_a } = self.form else { return None };
        let stride = |x: Matrix| i64::try_from(cfg.required_len(x)).unwrap_or(i64::MAX) + 2 * GUARD as i64;
        Some(StridedBatch {
            count: i64::from(count),
            stride_a: if shared_a { 0 } else { stride(Matrix::A) },
            stride_b: stride(Matrix::B),
            stride_c: stride(Matrix::C),
        })
    }
}

/// The one-line form `--replay` reads: `z row cn 17x4000x33 gaps=0,3,120
/// alpha=r beta=0 plain seed=1234` (forms `plain`, `batch=5`,
/// `batch=5:shared-a`, `split=7`).
impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layout = match self.layout {
            Layout::ColMajor => "col",
            Layout::RowMajor => "row",
        };
        let ops = format!("{}{}", self.op_a.letter(), self.op_b.letter()).to_ascii_lowercase();
        let form = match self.form {
            Form::Plain => "plain".to_owned(),
            Form::Batch { count, shared_a: false } => format!("batch={count}"),
            Form::Batch { count, shared_a: true } => format!("batch={count}:shared-a"),
            Form::Split { slices } => format!("split={slices}"),
        };
        let [ga, gb, gc] = self.gaps;
        write!(
            f,
            "{} {layout} {ops} {}x{}x{} gaps={ga},{gb},{gc} alpha={} beta={} {form} seed={}",
            self.precision.blas_letter(),
            self.m,
            self.n,
            self.k,
            self.alpha.token(),
            self.beta.token(),
            self.seed
        )
    }
}

impl FromStr for Call {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Call> {
        let tokens: Vec<&str> = s.split_whitespace().collect();
        let [precision, layout, ops, dims, gaps, alpha, beta, form, seed] = tokens[..] else {
            bail!(
                "a call has 9 fields, like `z row cn 17x4000x33 gaps=0,3,120 alpha=r beta=0 plain seed=1234`; \
                 `{s}` has {}",
                tokens.len()
            );
        };
        let precision = cli::parse_precision(precision)?;
        let layout = match layout {
            "col" => Layout::ColMajor,
            "row" => Layout::RowMajor,
            _ => bail!("layout `{layout}` is `col` or `row`"),
        };
        let (op_a, op_b) = cli::parse_ops(ops)?;
        let dims: Vec<i64> = numbers(dims, 'x').with_context(|| format!("shape `{dims}` is MxNxK"))?;
        let [m, n, k] = dims[..] else { bail!("shape `{}` is MxNxK", dims.len()) };
        let gaps = numbers(value(gaps, "gaps")?, ',').with_context(|| format!("`{gaps}` is gaps=A,B,C"))?;
        let [ga, gb, gc] = gaps[..] else { bail!("gaps are three numbers, not {}", gaps.len()) };
        if m < 0 || n < 0 || k < 0 || gaps.iter().any(|&g| g < 0) {
            bail!("sizes and gaps are not negative: {m}x{n}x{k} gaps={ga},{gb},{gc}");
        }
        let scalar = |token: &str, name: &str| -> Result<Scalar> {
            let v = value(token, name)?;
            Scalar::ALL.into_iter().find(|c| c.token() == v).with_context(|| format!("{name}={v}: 0, 1 or r"))
        };
        let (alpha, beta) = (scalar(alpha, "alpha")?, scalar(beta, "beta")?);
        let form = parse_form(form)?;
        let seed = value(seed, "seed")?.parse().with_context(|| format!("`{seed}`: the seed is a number"))?;
        Ok(Call { precision, layout, op_a, op_b, m, n, k, gaps: [ga, gb, gc], alpha, beta, form, seed })
    }
}

/// `plain`, `batch=N`, `batch=N:shared-a` or `split=N`.
fn parse_form(token: &str) -> Result<Form> {
    let positive = |v: &str| -> Result<u32> {
        v.parse::<u32>()
            .ok()
            .filter(|&x| x >= 1)
            .with_context(|| format!("`{token}`: {v} is not a positive count"))
    };
    Ok(match token.split_once('=') {
        None if token == "plain" => Form::Plain,
        Some(("batch", v)) => match v.split_once(':') {
            Some((count, "shared-a")) => Form::Batch { count: positive(count)?, shared_a: true },
            None => Form::Batch { count: positive(v)?, shared_a: false },
            Some(_) => bail!("`{token}`: a batch is batch=N or batch=N:shared-a"),
        },
        Some(("split", v)) => Form::Split { slices: positive(v)? },
        _ => bail!("form `{token}` is plain, batch=N, batch=N:shared-a or split=N"),
    })
}

/// What follows `name=` in `token`.
fn value<'a>(token: &'a str, name: &str) -> Result<&'a str> {
    token
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('='))
        .with_context(|| format!("`{token}` should be {name}=…"))
}

/// The integers of `text` split at `sep`.
fn numbers(text: &str, sep: char) -> Result<Vec<i64>> {
    text.split(sep).map(|x| x.parse::<i64>().with_context(|| format!("`{x}` is not a number"))).collect()
}

/// SplitMix64 (Steele, Lea, Flood): small, fast, and fixed here, so that a
/// seed draws the same calls whatever crate versions change.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting at `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi` (`lo` when `hi < lo`).
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    /// Log-uniform in `lo..=hi` (both at least 1): each octave as likely.
    fn log_range(&mut self, lo: i64, hi: i64) -> i64 {
        let (lo, hi) = (lo.max(1), hi.max(lo.max(1)));
        let (a, b) = ((lo as f64).ln(), ((hi + 1) as f64).ln());
        ((a + (b - a) * self.unit()).exp() as i64).clamp(lo, hi)
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// Draws random calls ([`Call`]), reproducibly from a seed.
#[derive(Clone, Debug)]
pub struct Draw {
    rng: SplitMix64,
    precisions: Vec<Precision>,
    max_size: i64,
}

impl Draw {
    /// A generator of calls of `precisions` (at least one) with dimensions
    /// up to `max_size` (at least 1), from `seed`.
    pub fn new(seed: u64, precisions: &[Precision], max_size: i64) -> Draw {
        let precisions = if precisions.is_empty() { Precision::ALL.to_vec() } else { precisions.to_vec() };
        Draw { rng: SplitMix64::new(seed), precisions, max_size: max_size.max(1) }
    }

    /// The next call.
    pub fn call(&mut self) -> Call {
        let r = &mut self.rng;
        let precision = self.precisions[r.range(0, self.precisions.len() as i64 - 1) as usize];
        let layout = if r.chance(0.5) { Layout::ColMajor } else { Layout::RowMajor };
        let mut op = || {
            if precision.is_complex() {
                Op::ALL[r.range(0, 2) as usize]
            } else {
                [Op::N, Op::N, Op::T, Op::T, Op::C][r.range(0, 4) as usize]
            }
        };
        let (op_a, op_b) = (op(), op());
        let form = match r.range(0, 9) {
            0 => Form::Batch { count: r.log_range(2, 64) as u32, shared_a: r.chance(0.25) },
            1 => Form::Split { slices: r.range(2, 16) as u32 },
            _ => Form::Plain,
        };
        let max = self.max_size;
        let [m, n, k] = match form {
            Form::Batch { .. } => {
                [0; 3].map(|_| if r.chance(0.05) { 0 } else { r.log_range(1, max.min(64)) })
            }
            Form::Split { .. } => {
                [r.log_range(1, max.min(256)), r.log_range(1, max.min(256)), r.log_range(max.min(256), max)]
            }
            Form::Plain => shape(r, max),
        };
        let mut gap = || match r.range(0, 19) {
            0..10 => 0,
            10..17 => r.range(1, 8),
            _ => r.range(9, 128),
        };
        let gaps = [gap(), gap(), gap()];
        let mut scalar = || Scalar::ALL[r.range(0, 2) as usize];
        let (alpha, beta) = (scalar(), scalar());
        let seed = r.next_u64();
        Call { precision, layout, op_a, op_b, m, n, k, gaps, alpha, beta, form, seed }
    }
}

/// A plain call's `[m, n, k]`, each at most `max` (see the module docs).
fn shape(r: &mut SplitMix64, max: i64) -> [i64; 3] {
    match r.range(0, 19) {
        0..2 => [0; 3].map(|_| r.range(0, 16.min(max))),
        2..11 => {
            let size = r.log_range(1, max);
            [0; 3].map(|_| {
                ((size as f64) * 2f64.powf(2.0 * r.unit() - 1.0)).round().clamp(1.0, max as f64) as i64
            })
        }
        11..15 => {
            let thin = r.range(0, 2) as usize;
            let mut dims = [0; 3].map(|_| r.log_range(1, max));
            dims[thin] = r.log_range(1, max.min(64));
            dims
        }
        _ => [0; 3].map(|_| r.log_range(1, max)),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use gemm_host::num_complex::Complex;
    use gemm_host::validate::{self, BufferInfo, Buffers};

    use super::*;

    /// `call` passes every rule of `gemm_host::validate` on buffers exactly
    /// as long as the soak allocates (aligned as cudarc's are), run by the
    /// kernel the default dispatch picks on an H100 (sm_90).
    fn valid<T: Element>(call: &Call) -> Result<(), String> {
        let (cfg, _) = call.inputs::<T>();
        let col = cfg.to_column_major();
        let shape = (col.m as u64, col.n as u64, col.k as u64);
        let p = T::PRECISION;
        let what = |e: gemm_host::ArgError| format!("{call}: {e}");
        let at = |i: u64, len: u64| BufferInfo::new(0x7f00_0000_0000 + (i << 36), len as usize);
        match call.strided_batch(&cfg) {
            Some(batch) => {
                let image = gemm_kernels::Dispatch::TUNED
                    .batch_kernel_for(90, p, col.op_a, col.op_b, shape, cfg.form())
                    .image();
                let len = |x: Matrix| (batch.count as u64 - 1) * batch.stride(x) as u64 + cfg.required_len(x);
                let buffers =
                    Buffers { a: at(0, len(Matrix::A)), b: at(1, len(Matrix::B)), c: at(2, len(Matrix::C)) };
                validate::check_batch(&cfg, &batch, &buffers, Some(&image)).map(drop).map_err(what)
            }
            None => {
                let image = gemm_kernels::Dispatch::TUNED
                    .kernel_for(90, p, col.op_a, col.op_b, shape, cfg.form())
                    .image();
                let len = |x: Matrix| cfg.required_len(x);
                let buffers =
                    Buffers { a: at(0, len(Matrix::A)), b: at(1, len(Matrix::B)), c: at(2, len(Matrix::C)) };
                validate::check(&cfg, &buffers, Some(&image)).map(drop).map_err(what)
            }
        }
    }

    fn draws(n: usize) -> Vec<Call> {
        let mut draw = Draw::new(2026, &Precision::ALL, 8192);
        (0..n).map(|_| draw.call()).collect()
    }

    #[test]
    fn every_drawn_call_is_valid_and_reads_back_from_its_line() {
        for call in draws(10_000) {
            let valid = match call.precision {
                Precision::F32 => valid::<f32>(&call),
                Precision::F64 => valid::<f64>(&call),
                Precision::C32 => valid::<Complex<f32>>(&call),
                Precision::C64 => valid::<Complex<f64>>(&call),
                Precision::F16 => valid::<gemm_codegen::half::f16>(&call),
                Precision::Bf16 => valid::<gemm_codegen::half::bf16>(&call),
            };
            assert_eq!(valid, Ok(()));
            assert!([call.m, call.n, call.k].iter().all(|&d| (0..=8192).contains(&d)), "{call}");
            let line = call.to_string();
            assert_eq!(line.parse::<Call>().unwrap(), call, "{line}");
        }
    }

    #[test]
    fn ten_thousand_draws_cover_every_class() {
        let calls = draws(10_000);
        let seen = |f: &dyn Fn(&Call) -> bool| calls.iter().any(f);
        for p in Precision::ALL {
            let ops: &[Op] = if p.is_complex() { &Op::ALL } else { &[Op::N, Op::T, Op::C] };
            for &a in ops {
                for &b in ops {
                    assert!(seen(&|c| c.precision == p && (c.op_a, c.op_b) == (a, b)), "{p} {a:?}{b:?}");
                }
            }
            for layout in [Layout::ColMajor, Layout::RowMajor] {
                assert!(seen(&|c| c.precision == p && c.layout == layout), "{p} {layout:?}");
            }
            for alpha in Scalar::ALL {
                for beta in Scalar::ALL {
                    assert!(seen(&|c| c.precision == p && (c.alpha, c.beta) == (alpha, beta)), "{p}");
                }
            }
            assert!(seen(&|c| c.precision == p && matches!(c.form, Form::Batch { shared_a: true, .. })));
            assert!(seen(&|c| c.precision == p && matches!(c.form, Form::Batch { shared_a: false, .. })));
            assert!(seen(&|c| c.precision == p && matches!(c.form, Form::Split { .. })));
        }
        // Shapes: empty and single, tiny, ragged, skinny both ways, large, gaps.
        assert!(seen(&|c| c.m == 0) && seen(&|c| c.n == 0) && seen(&|c| c.k == 0));
        assert!(seen(&|c| c.m == 1 && c.n == 1));
        assert!(seen(&|c| c.m > 4096 && c.n > 4096 && c.k > 4096));
        assert!(seen(&|c| c.m <= 16 && c.n >= 1024) && seen(&|c| c.n <= 16 && c.m >= 1024));
        assert!(seen(&|c| c.k <= 16 && c.m >= 1024 && c.n >= 1024));
        assert!(seen(&|c| matches!(c.form, Form::Split { .. }) && c.k >= 4096));
        let ragged = calls.iter().filter(|c| [c.m, c.n, c.k].iter().any(|d| d % 8 != 0)).count();
        assert!(ragged > 9000, "{ragged}");
        assert!(seen(&|c| c.gaps == [0, 0, 0]) && seen(&|c| c.gaps.iter().all(|&g| g > 8)));
        let distinct: HashSet<u64> = calls.iter().map(|c| c.seed).collect();
        assert_eq!(distinct.len(), calls.len());
    }

    #[test]
    fn a_seed_repeats_its_calls_and_max_size_bounds_them() {
        let mut a = Draw::new(7, &[Precision::F64], 100);
        let mut b = Draw::new(7, &[Precision::F64], 100);
        for _ in 0..1000 {
            let (x, y) = (a.call(), b.call());
            assert_eq!(x, y);
            assert_eq!(x.precision, Precision::F64);
            assert!([x.m, x.n, x.k].iter().all(|&d| (0..=100).contains(&d)), "{x}");
        }
        let mut c = Draw::new(8, &[Precision::F64], 100);
        assert_ne!(Draw::new(7, &[Precision::F64], 100).call(), c.call());
    }

    #[test]
    fn inputs_follow_the_scalar_classes_and_the_gaps() {
        let call: Call = "z row ct 5x7x3 gaps=0,2,9 alpha=r beta=0 plain seed=42".parse().unwrap();
        let (cfg, _) = call.inputs::<Complex<f64>>();
        assert_eq!((cfg.layout, cfg.op_a, cfg.op_b), (Layout::RowMajor, Op::C, Op::T));
        assert_eq!((cfg.lda, cfg.ldb, cfg.ldc), (5, 3 + 2, 7 + 9));
        assert!(cfg.alpha != Complex::new(0.0, 0.0) && cfg.alpha != Complex::new(1.0, 0.0));
        assert_eq!(cfg.beta, Complex::new(0.0, 0.0));
        // The same line, the same scalars.
        assert_eq!(call.inputs::<Complex<f64>>().0, cfg);
        let one: Call = "s col nn 2x2x2 gaps=0,0,0 alpha=1 beta=1 split=3 seed=1".parse().unwrap();
        assert_eq!((one.inputs::<f32>().0.alpha, one.inputs::<f32>().0.beta), (1.0, 1.0));
        let batch: Call = "d col nn 4x3x2 gaps=1,0,0 alpha=1 beta=r batch=3:shared-a seed=5".parse().unwrap();
        let b = batch.strided_batch(&batch.inputs::<f64>().0).unwrap();
        assert_eq!(
            (b.count, b.stride_a, b.stride_b, b.stride_c),
            (3, 0, 6 + 2 * GUARD as i64, 12 + 2 * GUARD as i64)
        );
        assert_eq!(batch.work(), 3 * 24);
    }

    #[test]
    fn bad_lines_are_errors_that_name_the_field() {
        for (line, says) in [
            ("", "9 fields"),
            ("q col nn 1x1x1 gaps=0,0,0 alpha=1 beta=1 plain seed=1", "unknown precision"),
            ("s diag nn 1x1x1 gaps=0,0,0 alpha=1 beta=1 plain seed=1", "layout"),
            ("s col nx 1x1x1 gaps=0,0,0 alpha=1 beta=1 plain seed=1", "n, t or c"),
            ("s col nn 1x1 gaps=0,0,0 alpha=1 beta=1 plain seed=1", "MxNxK"),
            ("s col nn 1x-1x1 gaps=0,0,0 alpha=1 beta=1 plain seed=1", "not negative"),
            ("s col nn 1x1x1 gaps=0,0 alpha=1 beta=1 plain seed=1", "three numbers"),
            ("s col nn 1x1x1 gap=0,0,0 alpha=1 beta=1 plain seed=1", "gaps="),
            ("s col nn 1x1x1 gaps=0,0,0 alpha=2 beta=1 plain seed=1", "0, 1 or r"),
            ("s col nn 1x1x1 gaps=0,0,0 alpha=1 beta=1 batch=0 seed=1", "positive count"),
            ("s col nn 1x1x1 gaps=0,0,0 alpha=1 beta=1 batch=2:b seed=1", "shared-a"),
            ("s col nn 1x1x1 gaps=0,0,0 alpha=1 beta=1 twice seed=1", "form"),
            ("s col nn 1x1x1 gaps=0,0,0 alpha=1 beta=1 plain seed=-1", "number"),
        ] {
            let e = format!("{:#}", line.parse::<Call>().unwrap_err());
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
