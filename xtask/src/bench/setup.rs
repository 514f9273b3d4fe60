//! The command line of `cargo xtask bench`, resolved into the run's
//! [`Setup`], and the square sizes each kernel is timed at.

use std::path::PathBuf;

use anyhow::{Result, bail};
use gemm_codegen::{KernelSpec, Op, Precision};

use super::Sweep;
use crate::cli;
use crate::measure::Plan;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Precisions: s, d, c, z.
    #[arg(long, value_delimiter = ',', default_value = "s,d,c,z", value_parser = cli::parse_precision)]
    precision: Vec<Precision>,
    /// Op pairs: nn, nt, …, cc; `all` (nine); `transposes` (nn, nt, tn, tt).
    #[arg(long, value_delimiter = ',', default_value = "transposes")]
    op: Vec<String>,
    /// Bench the Table 2 kernels instead of the ones gemm-host uses on this GPU.
    #[arg(long, conflicts_with = "both")]
    table2: bool,
    /// Bench the kernels gemm-host uses on this GPU and the Table 2 ones, side
    /// by side (once when they are the same kernel).
    #[arg(long)]
    both: bool,
    /// One spec in `gemm_kernel!` syntax, compiled now (its precision and ops
    /// replace --precision and --op).
    #[arg(long, conflicts_with_all = ["table2", "both"])]
    spec: Option<KernelSpec>,
    /// Sweeps to run.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "square,skinny")]
    sweep: Vec<Sweep>,
    /// Largest square size, rounded down to a multiple of each kernel's tile
    /// [default: 8192; 4096 with --quick].
    #[arg(long, value_name = "N")]
    max_size: Option<i64>,
    /// Smallest square size, rounded to a multiple of each kernel's tile.
    #[arg(long, value_name = "N", default_value_t = 256)]
    min_size: i64,
    /// Square sizes per kernel, spread geometrically from --min-size to
    /// --max-size [default: 12; 4 with --quick].
    #[arg(long, value_name = "COUNT")]
    sizes: Option<usize>,
    /// K of the skinny sweep.
    #[arg(long, value_delimiter = ',', value_name = "K", default_value = "32,64")]
    skinny_k: Vec<i64>,
    /// M = N of the skinny sweep [default: 4096,8192,16384; 8192 with --quick].
    #[arg(long, value_delimiter = ',', value_name = "MN")]
    skinny_mn: Option<Vec<i64>>,
    /// A short run: 4 square sizes up to 4096, skinny at M = N = 8192, 1
    /// warm-up and 3 timed runs (each flag given explicitly still wins).
    #[arg(long)]
    quick: bool,
    /// Untimed runs before each measurement [default: 2; 1 with --quick].
    #[arg(long)]
    warmup: Option<usize>,
    /// Timed runs per measurement, the median reported [default: 7; 3 with --quick].
    #[arg(long)]
    reps: Option<usize>,
    /// Folder for bench.csv, bench-square.svg and bench-skinny.svg.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// The peak.json of `cargo xtask peak` to compare with; without it the
    /// peak is measured at the start of the run and written to <OUT>/peak.json.
    #[arg(long, value_name = "FILE")]
    peak: Option<PathBuf>,
    /// Split every call's K into each of these many slices in turn (1:
    /// never split), a row each [default: what gemm-host's dispatch picks
    /// for the call].
    #[arg(long, value_delimiter = ',', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=128))]
    slices: Vec<u32>,
}

/// Which kernels to bench.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Choice {
    /// What gemm-host runs on this GPU.
    Default,
    Table2,
    Both,
    Spec(KernelSpec),
}

/// The run, resolved from [`Args`] (defaults, `--quick`) and checked.
#[derive(Clone, Debug)]
pub(super) struct Setup {
    pub(super) precisions: Vec<Precision>,
    pub(super) ops: Vec<(Op, Op)>,
    pub(super) choice: Choice,
    pub(super) square: bool,
    /// The shapes of every sweep but the square one, in sweep order.
    pub(super) fixed: Vec<(Sweep, (i64, i64, i64))>,
    pub(super) min_size: i64,
    pub(super) max_size: i64,
    pub(super) sizes: usize,
    pub(super) skinny_k: Vec<i64>,
    pub(super) plan: Plan,
    pub(super) out: PathBuf,
    pub(super) seed: u64,
    pub(super) peak: Option<PathBuf>,
    /// `--slices`; empty for the dispatch's choice.
    pub(super) slices: Vec<u32>,
}

pub(super) fn setup(args: &Args) -> Result<Setup> {
    let quick = args.quick;
    let positive = |what: &str, values: &[i64]| -> Result<()> {
        if let Some(v) = values.iter().find(|&&v| v <= 0) {
            bail!("{what} must be positive, got {v}");
        }
        Ok(())
    };
    let max_size = args.max_size.unwrap_or(if quick { 4096 } else { 8192 });
    positive("--max-size", &[max_size])?;
    positive("--min-size", &[args.min_size])?;
    if args.min_size > max_size {
        bail!("--min-size ({}) must not exceed --max-size ({max_size})", args.min_size);
    }
    let sizes = args.sizes.unwrap_or(if quick { 4 } else { 12 });
    if sizes == 0 {
        bail!("--sizes must be at least 1");
    }
    let skinny_mn =
        args.skinny_mn.clone().unwrap_or_else(|| if quick { vec![8192] } else { vec![4096, 8192, 16384] });
    positive("--skinny-mn", &skinny_mn)?;
    positive("--skinny-k", &args.skinny_k)?;
    let sorted = |mut v: Vec<i64>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    let default_plan = if quick { Plan { warmup: 1, reps: 3 } } else { Plan::DEFAULT };
    let plan = Plan {
        warmup: args.warmup.unwrap_or(default_plan.warmup),
        reps: args.reps.unwrap_or(default_plan.reps),
    };
    if plan.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let choice = match (&args.spec, args.table2, args.both) {
        (Some(spec), _, _) => Choice::Spec(*spec),
        (None, true, _) => Choice::Table2,
        (None, false, true) => Choice::Both,
        (None, false, false) => Choice::Default,
    };
    let (precisions, ops) = match &choice {
        Choice::Spec(spec) => (vec![spec.precision], vec![(spec.op_a, spec.op_b)]),
        _ => (args.precision.clone(), cli::parse_op_list(&args.op)?),
    };
    if precisions.is_empty() || ops.is_empty() {
        bail!("no precision or no op pair to bench");
    }
    let (skinny_k, skinny_mn) = (sorted(args.skinny_k.clone()), sorted(skinny_mn));
    let square = args.sweep.contains(&Sweep::Square);
    let mut fixed = Vec::new();
    for sweep in [Sweep::Skinny, Sweep::Small, Sweep::LargeK, Sweep::Tall, Sweep::Batched] {
        if args.sweep.contains(&sweep) {
            fixed.extend(fixed_shapes(sweep, &skinny_mn, &skinny_k).into_iter().map(|shape| (sweep, shape)));
        }
    }
    if !square && fixed.is_empty() {
        bail!("--sweep: name at least one of square, skinny, small, large-k, tall, batched");
    }
    Ok(Setup {
        precisions,
        ops,
        choice,
        square,
        fixed,
        min_size: args.min_size,
        max_size,
        sizes,
        skinny_k,
        plan,
        out: args.out.clone(),
        seed: args.seed,
        peak: args.peak.clone(),
        slices: args.slices.clone(),
    })
}

/// The small squares (issue 11's n ≤ 1024 class), not rounded to a tile:
/// a library call does not choose its size.
pub(super) const SMALL: [i64; 5] = [256, 384, 512, 768, 1024];

/// Strided batches: `m = n = k` of each problem; as many problems as fill
/// [`BATCH_BYTES`].
pub(super) const BATCHED: [i64; 6] = [8, 16, 32, 64, 128, 256];

/// The bytes of A, B and C together in one batched measurement: far past
/// the L2, so a batch streams from memory.
pub(super) const BATCH_BYTES: u64 = 768 << 20;

/// Problems in a batched measurement of `(m, n, k)` of `element_bytes`
/// elements: [`BATCH_BYTES`] of A, B and C (1 for every other sweep).
pub(super) fn batch_count(sweep: Sweep, (m, n, k): (i64, i64, i64), element_bytes: u64) -> usize {
    if sweep != Sweep::Batched {
        return 1;
    }
    let one = (m * k + k * n + m * n).max(1) as u64 * element_bytes;
    (BATCH_BYTES / one).max(1) as usize
}

/// Large K: `m = n` of 256 and 512, `k` of 64 Ki, 256 Ki and 1 Mi.
pub(super) const LARGE_K: [(i64, i64, i64); 6] = [
    (256, 256, 1 << 16),
    (256, 256, 1 << 18),
    (256, 256, 1 << 20),
    (512, 512, 1 << 16),
    (512, 512, 1 << 18),
    (512, 512, 1 << 20),
];

/// Tall and skinny: one of `m`, `n` of 16 or 64, the other 16384, `k` 4096.
pub(super) const TALL: [(i64, i64, i64); 4] =
    [(16384, 16, 4096), (16384, 64, 4096), (16, 16384, 4096), (64, 16384, 4096)];

/// The shapes of a sweep that does not depend on the kernel's tile (every
/// sweep but the square one).
fn fixed_shapes(sweep: Sweep, skinny_mn: &[i64], skinny_k: &[i64]) -> Vec<(i64, i64, i64)> {
    match sweep {
        Sweep::Skinny => {
            skinny_mn.iter().flat_map(|&mn| skinny_k.iter().map(move |&k| (mn, mn, k))).collect()
        }
        Sweep::Small => SMALL.iter().map(|&n| (n, n, n)).collect(),
        Sweep::LargeK => LARGE_K.to_vec(),
        Sweep::Tall => TALL.to_vec(),
        Sweep::Batched => BATCHED.iter().map(|&n| (n, n, n)).collect(),
        Sweep::Square | Sweep::Check => Vec::new(),
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The square sizes that fill every tile of `spec`: multiples of the lcm of
/// `M_blk` and `N_blk`.
pub(super) fn tile(spec: &KernelSpec) -> i64 {
    let (m, n) = (i64::from(spec.m_blk), i64::from(spec.n_blk));
    m / gcd(m, n) * n
}

/// Up to `count` multiples of `tile` spread geometrically from `min` to
/// `max` (each rounded to the nearest multiple, at least one tile, the
/// largest `max` rounded down), ascending, without repeats.
pub(super) fn square_sizes(tile: i64, min: i64, max: i64, count: usize) -> Vec<i64> {
    let top = (max / tile).max(1);
    let bottom = ((min as f64 / tile as f64).round() as i64).clamp(1, top);
    if count <= 1 {
        return vec![top * tile];
    }
    let ratio = top as f64 / bottom as f64;
    let mut out: Vec<i64> = (0..count)
        .map(|i| {
            let j = bottom as f64 * ratio.powf(i as f64 / (count - 1) as f64);
            (j.round() as i64).clamp(bottom, top) * tile
        })
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
pub(super) mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    /// The setup of `cargo xtask bench ARGV…`.
    pub(in crate::bench) fn parse(argv: &[&str]) -> Result<Setup> {
        let cli = Cli::try_parse_from(std::iter::once("bench").chain(argv.iter().copied()))?;
        setup(&cli.args)
    }

    /// The M = N values of the skinny sweep's shapes, in order, once each.
    fn skinny_mns(s: &Setup) -> Vec<i64> {
        let mut mns: Vec<i64> = s.fixed.iter().filter(|f| f.0 == Sweep::Skinny).map(|f| f.1.0).collect();
        mns.dedup();
        mns
    }

    #[test]
    fn defaults_are_the_sixteen_kernel_types_and_both_sweeps() {
        let s = parse(&[]).unwrap();
        assert_eq!(s.precisions, Precision::ALL);
        assert_eq!(s.ops, [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)]);
        assert_eq!(s.choice, Choice::Default);
        assert!(s.square);
        assert!(s.fixed.iter().all(|&(sweep, _)| sweep == Sweep::Skinny));
        assert_eq!(s.fixed.len(), 6, "M = N of 4096, 8192, 16384 by K of 32, 64");
        assert_eq!((s.min_size, s.max_size, s.sizes), (256, 8192, 12));
        assert_eq!(s.skinny_k, [32, 64]);
        assert_eq!(skinny_mns(&s), [4096, 8192, 16384]);
        assert_eq!((s.plan.warmup, s.plan.reps), (Plan::DEFAULT.warmup, Plan::DEFAULT.reps));
        assert_eq!(s.out, PathBuf::from("target/bench"));
        assert_eq!(s.peak, None);
        assert_eq!(
            parse(&["--peak", "target/peak/peak.json"]).unwrap().peak,
            Some("target/peak/peak.json".into())
        );
    }

    #[test]
    fn quick_shortens_the_run_and_explicit_flags_win() {
        let s = parse(&["--quick"]).unwrap();
        assert_eq!((s.max_size, s.sizes, skinny_mns(&s).as_slice()), (4096, 4, &[8192][..]));
        assert_eq!((s.plan.warmup, s.plan.reps), (1, 3));
        let s = parse(&["--quick", "--max-size", "2048", "--reps", "5", "--skinny-mn", "16384,4096,4096"])
            .unwrap();
        assert_eq!((s.max_size, s.sizes, s.plan.reps), (2048, 4, 5));
        assert_eq!(skinny_mns(&s), [4096, 16384]);
    }

    #[test]
    fn kernel_choices_and_lists_parse() {
        let s = parse(&["--precision", "z,s", "--op", "all", "--both", "--sweep", "skinny"]).unwrap();
        assert_eq!(s.precisions, [Precision::C64, Precision::F32]);
        assert_eq!(s.ops.len(), 9);
        assert_eq!(s.choice, Choice::Both);
        assert!(!s.square);
        assert_eq!(s.fixed.first(), Some(&(Sweep::Skinny, (4096, 4096, 32))));
        assert_eq!(parse(&["--table2"]).unwrap().choice, Choice::Table2);
        let body = gemm_kernels::table2(Precision::C32, Op::T, Op::N).spec.to_invocation_body();
        let s = parse(&["--spec", &body, "--precision", "s"]).unwrap();
        assert_eq!(s.precisions, [Precision::C32]);
        assert_eq!(s.ops, [(Op::T, Op::N)]);
        assert!(matches!(s.choice, Choice::Spec(spec) if spec.m_blk == 64));
    }

    #[test]
    fn the_batched_sweep_fills_its_bytes_and_slices_parse() {
        let s = parse(&["--sweep", "batched", "--slices", "1,8,32"]).unwrap();
        assert_eq!(s.fixed.iter().map(|f| f.1.0).collect::<Vec<_>>(), BATCHED);
        assert_eq!(s.slices, [1, 8, 32]);
        assert!(parse(&["--slices", "0"]).is_err() && parse(&["--slices", "129"]).is_err());
        assert_eq!(batch_count(Sweep::Batched, (8, 8, 8), 4), (768 << 20) / (3 * 64 * 4));
        assert_eq!(batch_count(Sweep::Batched, (256, 256, 256), 16), 256);
        assert_eq!(batch_count(Sweep::Square, (8, 8, 8), 4), 1);
        assert!(parse(&[]).unwrap().slices.is_empty());
    }

    /// Issue 11's sweeps: small squares, large K, tall; in the order named by
    /// `fixed_shapes`, whatever the order given.
    #[test]
    fn the_shape_class_sweeps_have_their_shapes() {
        let s = parse(&["--sweep", "tall,large-k,small,skinny", "--skinny-k", "128", "--skinny-mn", "8192"])
            .unwrap();
        assert!(!s.square);
        let of = |sweep: Sweep| s.fixed.iter().filter(|f| f.0 == sweep).map(|f| f.1).collect::<Vec<_>>();
        assert_eq!(of(Sweep::Skinny), [(8192, 8192, 128)]);
        assert_eq!(
            of(Sweep::Small),
            [(256, 256, 256), (384, 384, 384), (512, 512, 512), (768, 768, 768), (1024, 1024, 1024)]
        );
        assert_eq!(of(Sweep::LargeK).len(), 6);
        assert!(of(Sweep::LargeK).iter().all(|&(m, n, k)| m == n && m <= 512 && k >= 65536));
        assert!(of(Sweep::Tall).iter().all(|&(m, n, _)| m.min(n) <= 64 && m.max(n) == 16384));
        let order: Vec<Sweep> = s.fixed.iter().map(|f| f.0).collect();
        assert!(order.is_sorted(), "{order:?}");
        assert_eq!(Sweep::LargeK.name(), "large-k");
    }

    #[test]
    fn bad_arguments_are_refused() {
        for argv in [
            &["--table2", "--both"][..],
            &["--spec", "precision = f32", "--table2"],
            &["--spec", "tile = (1, 2)"],
            &["--op", "nx"],
            &["--precision", "q"],
            &["--max-size", "0"],
            &["--min-size", "9000"],
            &["--sizes", "0"],
            &["--skinny-k", "32,-1"],
            &["--reps", "0"],
            &["--sweep", "check"],
        ] {
            assert!(parse(argv).is_err(), "{argv:?} was accepted");
        }
    }

    #[test]
    fn square_sizes_are_tile_multiples_spread_geometrically() {
        let sizes = square_sizes(96, 256, 8192, 12);
        assert_eq!(sizes.len(), 12);
        assert_eq!((sizes[0], sizes[11]), (288, 8160));
        assert!(sizes.iter().all(|n| n % 96 == 0));
        assert!(sizes.windows(2).all(|w| w[0] < w[1]));
        // Roughly constant ratio, (8160 / 288)^(1/11) ≈ 1.355, up to rounding
        // to the tile: 288, 384, 576, 672, 960, …, 6048, 8160.
        for w in sizes.windows(2) {
            let r = w[1] as f64 / w[0] as f64;
            assert!((1.15..1.55).contains(&r), "{sizes:?}");
        }
        assert_eq!(square_sizes(64, 256, 8192, 12).last(), Some(&8192));
        assert_eq!(square_sizes(48, 256, 4096, 4), [240, 624, 1584, 4080]);
        // Few tiles: repeats dropped; the top never exceeds max unless one
        // tile does.
        assert_eq!(square_sizes(96, 100, 300, 12), [96, 192, 288]);
        assert_eq!(square_sizes(96, 10, 50, 3), [96]);
        assert_eq!(square_sizes(64, 256, 8192, 1), [8192]);
    }

    #[test]
    fn tiles_are_the_lcm_of_the_block() {
        let mut spec = gemm_kernels::table2(Precision::C64, Op::N, Op::N).spec;
        assert_eq!((spec.m_blk, spec.n_blk, tile(&spec)), (24, 16, 48));
        spec.n_blk = 24;
        assert_eq!(tile(&spec), 24);
        assert_eq!(tile(&gemm_kernels::table2(Precision::F32, Op::N, Op::N).spec), 96);
    }
}
