//! Tests of the tuner's arguments: sizes, space, budget, seeds.

use std::path::Path;

use super::*;

#[test]
fn default_sizes_hold_about_a_gibibyte() {
    for p in Precision::ALL {
        let n = default_size(p) as f64;
        let bytes = 3.0 * n * n * f64::from(p.element_bytes());
        assert!(bytes <= f64::from(1u32 << 30) && bytes > 0.85 * f64::from(1u32 << 30), "{p}: {n}");
    }
    assert_eq!(default_size(Precision::F32), 9216);
}

#[test]
fn the_tuner_space_on_an_h100_has_rings_and_its_limits() {
    let args = <Args as clap::FromArgMatches>::from_arg_matches(
        &<Args as clap::Args>::augment_args(clap::Command::new("tune")).get_matches_from(["tune"]),
    )
    .unwrap();
    let kt = KernelType { precision: Precision::F32, op_a: Op::N, op_b: Op::N };
    let space = space(&args, kt, &DeviceLimits::for_arch("sm_90").unwrap());
    assert_eq!(space.limits().max_shared_per_block, 227 * 1024);
    assert_eq!(space.guidelines, Guidelines::pipelined(Precision::F32));
    assert_eq!(args.type_budget_s(16), 25.0 * 60.0 / 16.0);
    let shipped = gemm_kernels::tuned_kernels(90, Precision::F32, Op::N, Op::N).len();
    let plain = prune::seeds(kt, 90, &[], None);
    assert_eq!(plain.len(), 1 + shipped, "Table 2 and the shipped sm_90 kernels");
    let table2 = gemm_kernels::table2(Precision::F32, Op::N, Op::N).spec;
    assert_eq!(prune::seeds(kt, 75, &[], None), [table2]);
    // Given seeds of this type join once; others are left to their type.
    let mine = KernelSpec { raster: 8, ..table2 };
    let other = KernelSpec { op_b: Op::T, ..table2 };
    assert_eq!(prune::seeds(kt, 75, &[mine, other, mine, table2], None), [table2, mine]);
    // With `--c-batched`, the class's shipped kernel brings its `c_batch`
    // siblings (a 128 × 128 tile on 16 × 8 threads: 16 columns a thread).
    let class = gemm_kernels::tuned_kernels(90, Precision::F32, Op::N, Op::N)
        .into_iter()
        .find(|e| e.tuned_for == [8192, 8192, 64] && !e.batch)
        .expect("a skinny class");
    let with = prune::seeds(kt, 90, &[], Some(((8192, 8192, 64), false)));
    assert_eq!(with[..plain.len()], plain[..]);
    let siblings: Vec<KernelSpec> = with[plain.len()..].to_vec();
    // Each once: a sibling that is itself shipped (another class's winner)
    // is already among the seeds.
    let expected: Vec<KernelSpec> = prune::c_batch_values(&class.spec)
        .map(|c_batch| KernelSpec { c_batch, ..class.spec })
        .filter(|s| !plain.contains(s))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(siblings, expected);
    // A class that is not shipped brings none; given seeds bring theirs.
    assert_eq!(prune::seeds(kt, 90, &[], Some(((1, 2, 3), false))), plain);
    let given = prune::seeds(kt, 90, &[class.spec, other], Some(((1, 2, 3), false)));
    assert_eq!(given, [plain.clone(), expected].concat());
}

fn parse(args: &[&str]) -> Result<Args, clap::Error> {
    let cmd = <Args as clap::Args>::augment_args(clap::Command::new("tune"));
    <Args as clap::FromArgMatches>::from_arg_matches(&cmd.try_get_matches_from(args)?)
}

/// `--c-batched` times siblings that differ only where C is read: it needs
/// `--update`.
#[test]
fn c_batched_siblings_need_the_update() {
    assert!(parse(&["tune", "--shape", "8192,8192,32", "--c-batched", "1"]).is_err());
    let args = parse(&["tune", "--shape", "8192,8192,32", "--update", "--c-batched", "1"]).unwrap();
    assert_eq!(args.prune_config(Precision::F32).c_batched, 1);
    assert_eq!(parse(&["tune"]).unwrap().prune_config(Precision::F32).c_batched, 0);
}

/// `--shape` tunes both rounds at that shape, prunes for it, and `--update`
/// times `C = C − A·B`; squares keep `--size` and `--small-size`.
#[test]
fn a_shape_is_tuned_in_both_rounds_and_update_is_the_call_form() {
    let args = parse(&["tune", "--shape", "8192,8192,64", "--update"]).unwrap();
    for p in Precision::ALL {
        assert_eq!(args.shape(p), (8192, 8192, 64));
        assert_eq!(args.small_shape(p), (8192, 8192, 64));
        assert_eq!(args.prune_config(p).shape, (8192, 8192, 64));
    }
    assert!(args.update);
    let square = parse(&["tune", "--size", "2048", "--small-size", "512"]).unwrap();
    assert_eq!(square.shape(Precision::F64), (2048, 2048, 2048));
    assert_eq!(square.small_shape(Precision::F64), (512, 512, 512));
    assert!(!square.update);
    let default = parse(&["tune"]).unwrap();
    assert_eq!(default.shape(Precision::F32), (9216, 9216, 9216));
    assert_eq!(default.small_shape(Precision::F32), (4096, 4096, 4096));
    for bad in ["8192,8192", "8192,0,64", "a,b,c", "1,2,3,4", "-1,2,3"] {
        let arg = format!("--shape={bad}");
        let e = parse(&["tune", &arg]).err().unwrap_or_else(|| panic!("{bad} was accepted"));
        assert!(e.to_string().contains("--shape"), "{bad}: {e}");
    }
    assert!(parse(&["tune", "--shape", "64,64,64", "--size", "64"]).is_err(), "one or the other");
}

/// `--batch` times a packed batch at `--shape` (which it needs), and
/// pruning ranks for the batch's waves.
#[test]
fn a_batch_needs_a_shape_and_reaches_pruning() {
    assert!(parse(&["tune", "--batch", "1000"]).is_err(), "--batch without --shape");
    assert!(parse(&["tune", "--shape", "16,16,16", "--batch", "0"]).is_err(), "an empty batch");
    let args = parse(&["tune", "--shape", "16,16,16", "--batch", "65536"]).unwrap();
    assert_eq!(args.batch, Some(65536));
    assert_eq!(args.prune_config(Precision::F32).problems, 65536);
    assert_eq!(args.prune_config(Precision::F32).shape, (16, 16, 16));
    assert_eq!(parse(&["tune"]).unwrap().prune_config(Precision::F32).problems, 1);
}

/// `--split-only` times the journal's classes: with a `--shape` filter,
/// never with a batch (batches are not split) or another no-search mode.
#[test]
fn split_only_is_its_own_mode() {
    let args = parse(&["tune", "--split-only", "--shape", "512,512,512"]).unwrap();
    assert!(args.split_only && args.shape == Some((512, 512, 512)));
    for other in [
        &["--report-only"][..],
        &["--prune-only", "--arch", "sm_90"],
        &["--shape", "16,16,16", "--batch", "8"],
    ] {
        let argv = [&["tune", "--split-only"][..], other].concat();
        assert!(parse(&argv).is_err(), "{argv:?}");
    }
}

#[test]
fn precisions_are_tuned_in_the_order_asked() {
    let args = parse(&["tune", "--precision", "z,d,c", "--op", "nn,tt"]).unwrap();
    let types = args.kernel_types().unwrap();
    assert_eq!(precision_order(&types), [Precision::C64, Precision::F64, Precision::C32]);
    assert_eq!(types.len(), 6);
    let args = parse(&["tune"]).unwrap();
    assert_eq!(precision_order(&args.kernel_types().unwrap()), Precision::ALL);
}

/// The dispatch table shipped for sm_90 is what the committed journal gives
/// (`xtask tune --report-only --out tuning/sm_90`): every class, its kernel
/// and its split come from measurements on record, and a journal appended
/// without regenerating the table (or a table edited by hand) fails here.
#[test]
fn the_shipped_sm_90_table_is_the_journal_s() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let journal = Journal::open(&root.join("tuning/sm_90/tune.jsonl")).unwrap();
    let device = journal.records().last().expect("the journal has records").device.clone();
    assert_eq!(device.arch, 90);
    let args = parse(&["tune"]).unwrap();
    let mine: Vec<Record> = journal.records().iter().filter(|r| r.device == device).cloned().collect();
    assert!(mine.len() > 10_000, "{} records of {device:?}", mine.len());
    let generated = winners::render_family(&device, &winners::select(&mine, &device, |p| args.shape(p)));
    let shipped = std::fs::read_to_string(root.join("gemm-kernels/src/tuned/sm_90.rs")).unwrap();
    assert!(
        generated == shipped,
        "gemm-kernels/src/tuned/sm_90.rs differs from its journal: run --report-only"
    );
}

/// The first round times the seeds before the search's candidates: a type
/// whose GPU budget runs out in the round (call 25's f64 tall class skipped
/// the 21 last jobs, the shipped kernels among them) keeps the bar to beat.
#[test]
fn the_first_round_times_the_seeds_first() {
    let spec = |m_blk| KernelSpec { m_blk, ..gemm_kernels::table2(Precision::F64, Op::N, Op::N).spec };
    let ranked = |m_blk, seed| Ranked {
        spec: spec(m_blk),
        bound_tflops: 1.0,
        registers: None,
        blocks_per_sm: 1,
        seed,
    };
    let list = [ranked(1, false), ranked(2, false), ranked(3, false), ranked(4, true), ranked(5, true)];
    let order = |small| round_one(&list, small).iter().map(|r| r.spec.m_blk).collect::<Vec<_>>();
    assert_eq!(order(2), [4, 5, 1, 2]);
    assert_eq!(order(0), [4, 5]);
    assert_eq!(order(9), [4, 5, 1, 2, 3]);
}

/// `--stream-k` seeds: each seed then its stream-K twin, each spec once
/// (a stream-K seed is its own twin).
#[test]
fn stream_k_twins_follow_their_seeds_once() {
    let kt = KernelType { precision: Precision::F64, op_a: Op::N, op_b: Op::T };
    let sk = |s: KernelSpec| KernelSpec { schedule: gemm_codegen::Schedule::StreamK, ..s };
    let a = gemm_kernels::table2(kt.precision, kt.op_a, kt.op_b).spec;
    let b = KernelSpec { stages: 2, arch: gemm_codegen::Target::Sm80, ..a };
    assert_eq!(prune::with_stream_k_twins(vec![a, b, sk(a)]), [a, sk(a), b, sk(b)]);
    assert_eq!(prune::with_stream_k_twins(vec![sk(b), b]), [sk(b), b]);
    let shipped = prune::seeds(kt, 90, &[], None);
    let twins = prune::with_stream_k_twins(shipped.clone());
    assert!(shipped.iter().all(|s| twins.contains(s) && twins.contains(&sk(*s))));
    assert_eq!(prune::with_stream_k_twins(twins.clone()), twins);
}
