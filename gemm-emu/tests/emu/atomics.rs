//! `atom.relaxed.gpu.global.inc.u32` and `fence.acq_rel.gpu` in the
//! emulator: the values `atom.inc` returns and leaves, atomic across
//! workers; the semaphore hand-off of partial results between blocks
//! (CUTLASS's pattern, which stream-K's fix-up uses) running clean with its
//! fences, and reported as a cross-block race without either fence, or
//! when the reader reads before its atomic, whatever order the workers run
//! the blocks in; the address checks of an atomic; atomics against plain
//! accesses within a block.

use crate::common as emu_common;

use emu_common::Run;
use gemm_emu::{
    AccessKind, Buffer, FaultKind, Launch, MemSpace, Options, ParamValue, Program, Stats, buffer_address,
};

/// Worker counts the multi-block tests run with: one (blocks in index
/// order) and several (blocks in whatever order the host runs them).
const WORKERS: [usize; 4] = [1, 2, 3, 8];

/// A kernel `k(ctr, out, bound)`: every thread has `%t = %tid.x`, `%b =
/// %ctaid.x`, `%g = %b * %ntid.x + %t`, `%addr = out + 4 g`, and `%ctr` and
/// `%bound` ready; `BODY` follows.
const TEMPLATE: &str = "\
.version 6.0
.target sm_70
.address_size 64

.visible .entry k(
\t.param .u64 ctr,
\t.param .u64 out,
\t.param .u32 bound
)
{
\t.reg .u64 %ctr, %out, %addr, %off;
\t.reg .u32 %t, %b, %g, %bound, %old, %v;
\t.reg .pred %p;
\tld.param.u64\t%ctr, [ctr];
\tld.param.u64\t%out, [out];
\tld.param.u32\t%bound, [bound];
\tcvta.to.global.u64\t%ctr, %ctr;
\tcvta.to.global.u64\t%out, %out;
\tmov.u32\t%t, %tid.x;
\tmov.u32\t%b, %ctaid.x;
\tmov.u32\t%g, %ntid.x;
\tmad.lo.u32\t%g, %b, %g, %t;
\tmul.wide.u32\t%off, %g, 4;
\tadd.u64\t%addr, %out, %off;
BODY
\tret;
}
";

/// Runs `body` in [`TEMPLATE`] on `grid` blocks of `block` threads, with
/// counters `ctr`, an `out` of one zero word per thread, and `bound` as
/// the parameter.
fn run_template(body: &str, (grid, block): (u32, u32), ctr: Vec<u32>, bound: u32, options: Options) -> Run {
    run_counters(body, (grid, block), Buffer::new("ctr", words(&ctr)), bound, options).0
}

/// [`run_template`] with the counter buffer given, returning it too.
fn run_counters(
    body: &str,
    (grid, block): (u32, u32),
    ctr: Buffer,
    bound: u32,
    options: Options,
) -> (Run, Vec<u32>) {
    let text = TEMPLATE.replace("BODY", body);
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut buffers = [ctr, Buffer::zeroed("out", 4 * (grid * block) as usize)];
    let launch = Launch {
        grid: (grid, 1, 1),
        block: (block, 1, 1),
        params: vec![ParamValue::ptr(0), ParamValue::ptr(1), ParamValue::U32(bound)],
        options,
        ..Launch::default()
    };
    let result = program.run(&launch, &mut buffers);
    let [ctr, out] = buffers;
    (Run { text, result, out: out.bytes }, u32s(&ctr.bytes))
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn workers(workers: usize) -> Options {
    Options { workers, ..Options::default() }
}

/// Each thread increments counter 0 with the bound parameter and stores
/// the old value to `out[g]`.
const INCREMENT: &str = "\
\tatom.relaxed.gpu.global.inc.u32\t%old, [%ctr], %bound;
\tst.global.u32\t[%addr], %old;";

#[test]
fn atom_inc_returns_the_old_value_and_wraps_at_the_bound_in_lane_order() {
    for bound in [0, 1, 3, 40] {
        // One warp: lanes take their turns in lane order.
        let (r, ctr) = run_counters(INCREMENT, (1, 32), Buffer::zeroed("ctr", 4), bound, Options::default());
        r.result.as_ref().unwrap_or_else(|e| panic!("bound {bound}: {e}"));
        let expected: Vec<u32> = (0..32).map(|l| l % (bound + 1)).collect();
        assert_eq!(r.out_u32(), expected, "bound {bound}");
        assert_eq!(ctr, [32 % (bound + 1)], "bound {bound}");
    }
    // A value already past the bound wraps to 0 at once.
    let (r, ctr) = run_counters(INCREMENT, (1, 4), Buffer::new("ctr", words(&[9])), 3, Options::default());
    r.result.as_ref().unwrap();
    assert_eq!(r.out_u32(), [9, 0, 1, 2]);
    assert_eq!(ctr, [3]);
    // An immediate bound; guarded-off lanes do nothing.
    let body = "\tsetp.lt.u32\t%p, %t, 5;\n\t@%p atom.relaxed.gpu.global.inc.u32\t%old, [%ctr+4], 2;\n\
                \t@!%p mov.u32\t%old, 77;\n\tst.global.u32\t[%addr], %old;";
    let (r, ctr) = run_counters(body, (1, 8), Buffer::zeroed("ctr", 8), 0, Options::default());
    r.result.as_ref().unwrap();
    assert_eq!(r.out_u32(), [0, 1, 2, 0, 1, 77, 77, 77]);
    assert_eq!(ctr, [0, 2]);
}

#[test]
fn many_blocks_on_one_counter_count_exactly_across_workers() {
    // 64 blocks of 64 threads: 4096 increments.
    for (bound, checks) in [(u32::MAX, true), (u32::MAX, false), (999, true)] {
        for n in [2, 4, 8] {
            let options = Options { workers: n, check_races: checks, ..Options::default() };
            let (r, ctr) = run_counters(INCREMENT, (64, 64), Buffer::zeroed("ctr", 4), bound, options);
            let stats: &Stats = r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(stats.blocks, 64);
            // Every old value is taken exactly as often as the counter
            // passes it: once each below 4096, or 0..=999 four times and
            // 0..96 a fifth.
            let wrap = |i: u32| i.checked_rem(bound.wrapping_add(1)).unwrap_or(i);
            let mut olds = r.out_u32();
            olds.sort_unstable();
            let mut expected: Vec<u32> = (0..4096).map(wrap).collect();
            expected.sort_unstable();
            assert_eq!(olds, expected, "bound {bound}, {n} workers");
            assert_eq!(ctr, [wrap(4096)], "bound {bound}, {n} workers");
        }
    }
}

#[test]
fn an_atomic_outside_a_buffer_or_misaligned_or_read_only_faults() {
    // Misaligned.
    let r =
        run_template(INCREMENT.replace("[%ctr]", "[%ctr+2]").as_str(), (1, 32), vec![0; 4], 9, workers(1));
    let f = r.fault();
    assert_eq!((f.thread, f.line), (0, r.line_of("atom.")));
    match &f.kind {
        FaultKind::Misaligned { space: MemSpace::Global, access: AccessKind::Atomic, addr, bytes: 4 } => {
            assert_eq!(*addr, buffer_address(0) + 2);
        }
        k => panic!("{k:?}"),
    }
    assert!(r.result.as_ref().unwrap_err().to_string().contains("misaligned global atomic"));
    // Just past the counters' buffer, for lane 3 only.
    let body = "\tmul.wide.u32\t%off, %t, 4;\n\tadd.u64\t%off, %ctr, %off;\n\
                \tatom.relaxed.gpu.global.inc.u32\t%old, [%off], %bound;";
    let r = run_template(body, (1, 32), vec![0; 3], 9, workers(1));
    let f = r.fault();
    assert_eq!(f.thread, 3);
    match &f.kind {
        FaultKind::GlobalOutOfBounds { access: AccessKind::Atomic, bytes: 4, near: Some(region), .. } => {
            assert_eq!((region.name.as_str(), region.offset), ("ctr", 12));
        }
        k => panic!("{k:?}"),
    }
    // A read-only buffer.
    let text = TEMPLATE.replace("BODY", INCREMENT);
    let program = Program::from_ptx(&text, Some("k")).unwrap();
    let mut buffers = [Buffer::read_only("ctr", vec![0; 4]), Buffer::zeroed("out", 128)];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        params: vec![ParamValue::ptr(0), ParamValue::ptr(1), ParamValue::U32(5)],
        ..Launch::default()
    };
    let e = program.run(&launch, &mut buffers).unwrap_err();
    assert!(matches!(e.fault().unwrap().kind, FaultKind::ReadOnlyWrite { .. }), "{e}");
    assert_eq!(buffers[0].bytes, [0; 4], "a faulting atomic changes nothing");
}

#[test]
fn atomics_of_one_block_race_with_its_plain_accesses_only() {
    // Two warps incrementing one counter in one barrier interval: no race.
    let r = run_template(INCREMENT, (1, 64), vec![0], u32::MAX, workers(1));
    r.result.as_ref().unwrap();
    // Thread 5 reads the counter that thread 0 increments, with no barrier.
    let body = "\tsetp.eq.u32\t%p, %t, 0;\n\t@%p atom.relaxed.gpu.global.inc.u32\t%old, [%ctr], %bound;\n\
                \tsetp.eq.u32\t%p, %t, 5;\n\t@%p ld.global.u32\t%v, [%ctr];";
    let r = run_template(body, (1, 32), vec![0], 9, workers(1));
    let f = r.fault();
    assert_eq!((f.thread, f.line), (5, r.line_of("ld.global")));
    match &f.kind {
        FaultKind::Race {
            space: MemSpace::Global,
            access: AccessKind::Read,
            other_thread: 0,
            other_access: AccessKind::Atomic,
            other_line,
            ..
        } => assert_eq!(*other_line, r.line_of("atom.")),
        k => panic!("{k:?}"),
    }
    // After every thread's atomic, a read by any of them races with the
    // others': reported as atomics of several threads.
    let body = format!("{INCREMENT}\n\tld.global.u32\t%v, [%ctr];");
    let r = run_template(&body, (1, 32), vec![0], u32::MAX, workers(1));
    match &r.fault().kind {
        FaultKind::Race { other_thread: u32::MAX, other_access: AccessKind::Atomic, .. } => {}
        k => panic!("{k:?}"),
    }
    assert!(r.result.as_ref().unwrap_err().to_string().contains("by several threads"), "{:?}", r.result);
    // With a barrier between them, the reads see the final count.
    let body =
        format!("{INCREMENT}\n\tbar.sync\t0;\n\tld.global.u32\t%v, [%ctr];\n\tst.global.u32\t[%addr], %v;");
    let r = run_template(&body, (1, 64), vec![0], u32::MAX, workers(1));
    r.result.as_ref().unwrap();
    assert_eq!(r.out_u32(), [64; 64]);
    // An atomic after another thread's plain write of the interval races.
    let body = "\tsetp.eq.u32\t%p, %t, 3;\n\t@%p st.global.u32\t[%ctr], %t;\n\
                \tsetp.eq.u32\t%p, %t, 4;\n\t@%p atom.relaxed.gpu.global.inc.u32\t%old, [%ctr], %bound;";
    let r = run_template(body, (1, 32), vec![0], 9, workers(1));
    match &r.fault().kind {
        FaultKind::Race {
            access: AccessKind::Atomic,
            other_thread: 3,
            other_access: AccessKind::Write,
            ..
        } => {}
        k => panic!("{k:?}"),
    }
}

#[test]
fn atomics_of_other_blocks_race_with_unordered_plain_accesses() {
    // Block 0 increments the counter, block 1 reads it: nothing orders them.
    let body = "\tsetp.eq.u32\t%p, %b, 0;\n\t@%p atom.relaxed.gpu.global.inc.u32\t%old, [%ctr], %bound;\n\
                \t@!%p ld.global.u32\t%v, [%ctr];";
    for n in WORKERS {
        let r = run_template(body, (2, 1), vec![0], 9, workers(n));
        match &r.fault().kind {
            FaultKind::CrossBlockRace { unordered: true, .. } => {}
            k => panic!("{n} workers: {k:?}"),
        }
    }
    let r = run_template(body, (2, 1), vec![0], 9, workers(1));
    match &r.fault().kind {
        FaultKind::CrossBlockRace {
            access: AccessKind::Read,
            other_access: AccessKind::Atomic,
            other_block: Some((0, 0, 0)),
            ..
        } => {}
        k => panic!("{k:?}"),
    }
    assert_eq!(r.fault().block, (1, 0, 0));
}

/// How a hand-off kernel differs from the correct one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mutation {
    /// None: the correct kernel.
    Correct,
    /// (a) No `fence.acq_rel.gpu` before the arrival's `atom`: nothing is
    /// released.
    NoReleaseFence,
    /// (b) No `fence.acq_rel.gpu` after it: nothing is acquired.
    NoAcquireFence,
    /// (c) The block with the group's last index sums before any atomic
    /// (assuming it arrives last).
    ReadBeforeAtomicLast,
    /// (c) The same with the group's first block, which with one worker
    /// runs before the others write: the writes come after the reads.
    ReadBeforeAtomicFirst,
}

/// Threads per block of the hand-off kernel.
const THREADS: u32 = 64;

/// Which blocks contribute to which tile: (first block, blocks), per tile.
const GROUPS: [(u32, u32); 3] = [(0, 2), (2, 4), (6, 2)];

/// The sum over the group of `plan` row `(tile, first, n)`: each thread
/// `t` adds `ws[64 (first + j) + t]` for `j < n` into `out[64 tile + t]`,
/// zeroing the slots (`clear`) after reading them. `tag` makes its labels
/// unique.
fn sum(tag: &str, clear: bool) -> String {
    let clear = if clear { "\tst.global.u32\t[%a], 0;\n" } else { "" };
    format!(
        "\tmov.u32\t%s, 0;\n\tmov.u32\t%j, 0;\n$loop_{tag}:\n\tadd.u32\t%i, %first, %j;\n\
         \tmad.lo.u32\t%i, %i, 64, %t;\n\tmul.wide.u32\t%off, %i, 4;\n\tadd.u64\t%a, %ws, %off;\n\
         \tld.global.u32\t%v, [%a];\n\tadd.u32\t%s, %s, %v;\n{clear}\tadd.u32\t%j, %j, 1;\n\
         \tsetp.lt.u32\t%p, %j, %n;\n\t@%p bra\t$loop_{tag};\n\tmad.lo.u32\t%i, %tile, 64, %t;\n\
         \tmul.wide.u32\t%off, %i, 4;\n\tadd.u64\t%a, %out, %off;\n\tst.global.u32\t[%a], %s;\n"
    )
}

/// The semaphore hand-off: every block writes its partial results to its
/// workspace slot; thread 0 releases them and counts the block's arrival
/// on its tile's counter (`atom.inc` with bound `n - 1` wraps to 0 after
/// the group's last arrival), acquires what the earlier arrivals released,
/// and tells its block through shared memory whether it came last; the
/// last sums the group's slots into the tile's output and clears them.
fn handoff(mutation: Mutation) -> String {
    let early = match mutation {
        Mutation::ReadBeforeAtomicLast => {
            format!(
                "\tadd.u32\t%i, %first, %n;\n\tsub.u32\t%i, %i, 1;\n\tsetp.ne.u32\t%p, %b, %i;\n\
                 \t@%p bra\t$arrive;\n{}$arrive:\n",
                sum("early", false)
            )
        }
        Mutation::ReadBeforeAtomicFirst => {
            format!("\tsetp.ne.u32\t%p, %b, %first;\n\t@%p bra\t$arrive;\n{}$arrive:\n", sum("early", false))
        }
        _ => String::new(),
    };
    let fence = "\tfence.acq_rel.gpu;\n";
    let release = if mutation == Mutation::NoReleaseFence { "" } else { fence };
    let acquire = if mutation == Mutation::NoAcquireFence { "" } else { fence };
    let finish = match mutation {
        Mutation::ReadBeforeAtomicLast | Mutation::ReadBeforeAtomicFirst => String::new(),
        _ => format!(
            "\tld.shared.u32\t%flag, [flag];\n\tsetp.eq.u32\t%p, %flag, 0;\n\t@%p bra\t$done;\n{}",
            sum("last", true)
        ),
    };
    format!(
        "\
.version 6.0
.target sm_70
.address_size 64

.visible .entry handoff(
\t.param .u64 plan,
\t.param .u64 ws,
\t.param .u64 counters,
\t.param .u64 out
)
{{
\t.reg .u64 %plan, %ws, %ctr, %out, %a, %off;
\t.reg .u32 %t, %b, %tile, %first, %n, %last, %old, %flag, %j, %s, %v, %i;
\t.reg .pred %p, %q;
\t.shared .align 16 .b8 flag[16];
\tld.param.u64\t%plan, [plan];
\tld.param.u64\t%ws, [ws];
\tld.param.u64\t%ctr, [counters];
\tld.param.u64\t%out, [out];
\tcvta.to.global.u64\t%plan, %plan;
\tcvta.to.global.u64\t%ws, %ws;
\tcvta.to.global.u64\t%ctr, %ctr;
\tcvta.to.global.u64\t%out, %out;
\tmov.u32\t%t, %tid.x;
\tmov.u32\t%b, %ctaid.x;
\tmul.wide.u32\t%off, %b, 12;
\tadd.u64\t%a, %plan, %off;
\tld.global.u32\t%tile, [%a];
\tld.global.u32\t%first, [%a+4];
\tld.global.u32\t%n, [%a+8];
\tadd.u32\t%v, %b, 1;
\tmul.lo.u32\t%v, %v, 1000;
\tadd.u32\t%v, %v, %t;
\tmad.lo.u32\t%i, %b, 64, %t;
\tmul.wide.u32\t%off, %i, 4;
\tadd.u64\t%a, %ws, %off;
\tst.global.u32\t[%a], %v;
\tbar.sync\t0;
{early}\tsetp.ne.u32\t%p, %t, 0;
\t@%p bra\t$wait;
\tmul.wide.u32\t%off, %tile, 4;
\tadd.u64\t%a, %ctr, %off;
\tsub.u32\t%last, %n, 1;
{release}\tatom.relaxed.gpu.global.inc.u32\t%old, [%a], %last;
{acquire}\tsetp.eq.u32\t%q, %old, %last;
\tselp.u32\t%flag, 1, 0, %q;
\tst.shared.u32\t[flag], %flag;
$wait:
\tbar.sync\t0;
{finish}$done:
\tret;
}}
"
    )
}

/// A hand-off run: what the launch returned, the text, and the workspace,
/// counters and output after it.
struct Handoff {
    run: Run,
    ws: Vec<u32>,
    counters: Vec<u32>,
}

fn run_handoff(mutation: Mutation, options: Options) -> Handoff {
    let text = handoff(mutation);
    let program = Program::from_ptx(&text, Some("handoff")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let plan: Vec<u32> = GROUPS
        .iter()
        .enumerate()
        .flat_map(|(tile, &(first, n))| (0..n).flat_map(move |_| [tile as u32, first, n]))
        .collect();
    let blocks = plan.len() as u32 / 3;
    let tiles = GROUPS.len();
    let mut buffers = [
        Buffer::read_only("plan", words(&plan)),
        Buffer::zeroed("ws", 4 * (blocks * THREADS) as usize),
        Buffer::zeroed("counters", 4 * tiles),
        Buffer::zeroed("out", 4 * tiles * THREADS as usize),
    ];
    let launch = Launch {
        grid: (blocks, 1, 1),
        block: (THREADS, 1, 1),
        params: (0..4).map(ParamValue::ptr).collect(),
        options,
        ..Launch::default()
    };
    let result = program.run(&launch, &mut buffers);
    let [_, ws, counters, out] = buffers;
    Handoff {
        run: Run { text, result, out: out.bytes },
        ws: u32s(&ws.bytes),
        counters: u32s(&counters.bytes),
    }
}

/// What tile `tile`'s output holds for thread `t`.
fn tile_sum(tile: usize, t: u32) -> u32 {
    let (first, n) = GROUPS[tile];
    (first..first + n).map(|b| 1000 * (b + 1) + t).sum()
}

#[test]
fn the_handoff_with_its_fences_sums_each_tile_once_in_any_order() {
    for n in WORKERS {
        // Several runs, so that several workers run the blocks in several orders.
        for _ in 0..4 {
            let h = run_handoff(Mutation::Correct, workers(n));
            let stats = h.run.result.as_ref().unwrap_or_else(|e| panic!("{n} workers: {e}"));
            assert_eq!(stats.blocks, 8);
            let expected: Vec<u32> =
                (0..GROUPS.len()).flat_map(|tile| (0..THREADS).map(move |t| tile_sum(tile, t))).collect();
            assert_eq!(h.run.out_u32(), expected, "{n} workers");
            assert_eq!(h.counters, [0; 3], "each counter wrapped back to 0");
            assert!(h.ws.iter().all(|&w| w == 0), "the last arrival cleared every slot");
        }
    }
    // Without race checks it runs the same.
    let h = run_handoff(Mutation::Correct, Options { workers: 4, check_races: false, ..Options::default() });
    h.run.result.as_ref().unwrap();
    assert_eq!(h.run.out_u32()[64..128], (0..THREADS).map(|t| tile_sum(1, t)).collect::<Vec<_>>()[..]);
    assert_eq!(h.counters, [0; 3]);
}

/// The fault of a mutated hand-off, which must be a cross-block race that
/// release and acquire did not order, for every worker count and run.
fn assert_unordered_race(mutation: Mutation) {
    for n in WORKERS {
        for _ in 0..4 {
            let h = run_handoff(mutation, workers(n));
            let f = h.run.fault();
            match &f.kind {
                FaultKind::CrossBlockRace { unordered: true, region, .. } => {
                    assert_eq!(region.name, "ws", "{mutation:?}, {n} workers");
                }
                k => panic!("{mutation:?}, {n} workers: {k:?}"),
            }
            let message = h.run.result.as_ref().unwrap_err().to_string();
            assert!(message.contains("no release (`fence.acq_rel.gpu`, then `atom`)"), "{message}");
        }
    }
}

/// With one worker, blocks run in index order: block 1, the last of tile
/// 0's group, reads block 0's slot (thread 0's word first) at `line`.
fn assert_block_1_reads_block_0s_slot(mutation: Mutation, needle: &str) {
    let h = run_handoff(mutation, workers(1));
    let f = h.run.fault();
    assert_eq!((f.block, f.thread), ((1, 0, 0), 0), "{mutation:?}");
    let line = h.run.text.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1;
    assert_eq!(f.line, line, "{mutation:?}");
    match &f.kind {
        FaultKind::CrossBlockRace {
            addr,
            access: AccessKind::Read,
            other_block: Some((0, 0, 0)),
            other_access: AccessKind::Write,
            unordered: true,
            ..
        } => assert_eq!(*addr, buffer_address(1)),
        k => panic!("{mutation:?}: {k:?}"),
    }
}

#[test]
fn a_handoff_without_its_release_fence_races() {
    assert_block_1_reads_block_0s_slot(Mutation::NoReleaseFence, "ld.global.u32\t%v");
    assert_unordered_race(Mutation::NoReleaseFence);
}

#[test]
fn a_handoff_without_its_acquire_fence_races() {
    assert_block_1_reads_block_0s_slot(Mutation::NoAcquireFence, "ld.global.u32\t%v");
    assert_unordered_race(Mutation::NoAcquireFence);
}

#[test]
fn a_handoff_reading_before_its_atomic_races_whichever_block_runs_first() {
    assert_block_1_reads_block_0s_slot(Mutation::ReadBeforeAtomicLast, "ld.global.u32\t%v");
    assert_unordered_race(Mutation::ReadBeforeAtomicLast);
    // Block 0 reads block 1's slot before block 1 writes it: the write
    // finds the read.
    let h = run_handoff(Mutation::ReadBeforeAtomicFirst, workers(1));
    let f = h.run.fault();
    assert_eq!((f.block, f.thread, f.line), ((1, 0, 0), 0, h.run.line_of("st.global.u32\t[%a], %v")));
    match &f.kind {
        FaultKind::CrossBlockRace {
            access: AccessKind::Write,
            other_block: Some((0, 0, 0)),
            other_access: AccessKind::Read,
            unordered: true,
            ..
        } => {}
        k => panic!("{k:?}"),
    }
    assert_unordered_race(Mutation::ReadBeforeAtomicFirst);
}

/// A two-level tree of hand-offs on four blocks of 32 threads: blocks 0
/// and 1 meet on counter 0, blocks 2 and 3 on counter 1, and the last of
/// each pair on counter 2, whose last sums all four slots. With one
/// worker, block 3 sums, and knows block 0's slot only through block 1's
/// release on counter 2, which carries what block 1 acquired on counter 0.
const TREE: &str = "\
\tmov.u32\t%v, 100;\n\tmad.lo.u32\t%v, %b, %v, %t;\n\tst.global.u32\t[%addr], %v;\n\tbar.sync\t0;
\tsetp.ne.u32\t%p, %t, 0;\n\t@%p bra\t$wait;
\tshr.u32\t%old, %b, 1;\n\tmul.wide.u32\t%off, %old, 4;\n\tadd.u64\t%off, %ctr, %off;
\tfence.acq_rel.gpu;\n\tatom.relaxed.gpu.global.inc.u32\t%old, [%off], 1;\n\tfence.acq_rel.gpu;
\tsetp.eq.u32\t%p, %old, 1;\n\tmov.u32\t%v, 0;\n\t@!%p bra\t$tell;
\tatom.relaxed.gpu.global.inc.u32\t%old, [%ctr+8], 1;\n\tfence.acq_rel.gpu;
\tsetp.eq.u32\t%p, %old, 1;\n\tselp.u32\t%v, 1, 0, %p;
$tell:\n\tst.shared.u32\t[flag], %v;
$wait:\n\tbar.sync\t0;\n\tld.shared.u32\t%v, [flag];\n\tsetp.eq.u32\t%p, %v, 0;\n\t@%p bra\t$done;
\tmov.u32\t%g, 0;\n\tmov.u32\t%bound, 0;
$sum:\n\tmad.lo.u32\t%old, %bound, 32, %t;\n\tmul.wide.u32\t%off, %old, 4;\n\tadd.u64\t%off, %out, %off;
\tld.global.u32\t%old, [%off];\n\tadd.u32\t%g, %g, %old;\n\tadd.u32\t%bound, %bound, 1;
\tsetp.lt.u32\t%p, %bound, 4;\n\t@%p bra\t$sum;
\tmul.wide.u32\t%off, %t, 4;\n\tadd.u64\t%off, %ctr, %off;\n\tst.global.u32\t[%off+12], %g;
$done:";

#[test]
fn acquisition_is_transitive_through_a_chain_of_releases() {
    let body = format!("\t.shared .align 16 .b8 flag[16];\n{TREE}");
    for n in WORKERS {
        for _ in 0..4 {
            let (r, ctr) = run_counters(&body, (4, 32), Buffer::zeroed("ctr", 4 * (3 + 32)), 0, workers(n));
            r.result.as_ref().unwrap_or_else(|e| panic!("{n} workers: {e}"));
            assert_eq!(ctr[..3], [0; 3], "{n} workers");
            let sums: Vec<u32> = (0..32).map(|t| (0..4).map(|b| 100 * b + t).sum()).collect();
            assert_eq!(ctr[3..], sums[..], "{n} workers");
        }
    }
}

/// Thread `W` of each block writes the block's slot `out[32 b + W]`;
/// thread 0, with no barrier, releases, counts the block's arrival and
/// acquires; the last arrival's thread 0 sums the slots into `ctr[1]`.
const OWN_THREAD: &str = "\
\tsetp.eq.u32\t%p, %t, W;\n\t@%p add.u32\t%v, %b, 1;\n\t@%p st.global.u32\t[%addr], %v;
\tsetp.ne.u32\t%p, %t, 0;\n\t@%p bra\t$done;
\tfence.acq_rel.gpu;\n\tatom.relaxed.gpu.global.inc.u32\t%old, [%ctr], %bound;\n\tfence.acq_rel.gpu;
\tsetp.ne.u32\t%p, %old, %bound;\n\t@%p bra\t$done;
\tmov.u32\t%v, 0;\n\tmov.u32\t%g, 0;
$sum:\n\tmad.lo.u32\t%old, %g, 32, W;\n\tmul.wide.u32\t%off, %old, 4;\n\tadd.u64\t%off, %out, %off;
\tld.global.u32\t%old, [%off];\n\tadd.u32\t%v, %v, %old;
\tadd.u32\t%g, %g, 1;\n\tsetp.le.u32\t%p, %g, %bound;\n\t@%p bra\t$sum;
\tst.global.u32\t[%ctr+4], %v;
$done:";

#[test]
fn a_fence_releases_its_own_threads_writes_without_a_barrier_and_no_others() {
    let blocks = 5;
    for n in WORKERS {
        let (r, ctr) = run_counters(
            &OWN_THREAD.replace('W', "0"),
            (blocks, 32),
            Buffer::zeroed("ctr", 8),
            blocks - 1,
            workers(n),
        );
        r.result.as_ref().unwrap_or_else(|e| panic!("{n} workers: {e}"));
        assert_eq!(ctr, [0, (1..=blocks).sum::<u32>()], "{n} workers");
        // Thread 1's write, in the fence's barrier interval, is not released:
        // the last block to arrive reads it unordered, another block's as a
        // cross-block race, or first its own (thread 1's, no barrier between)
        // as a race in the block — which block arrives last is the workers'.
        let (r, _) = run_counters(
            &OWN_THREAD.replace('W', "1"),
            (blocks, 32),
            Buffer::zeroed("ctr", 8),
            blocks - 1,
            workers(n),
        );
        match &r.fault().kind {
            FaultKind::CrossBlockRace {
                access: AccessKind::Read,
                other_access: AccessKind::Write,
                unordered: true,
                ..
            } => {}
            FaultKind::Race {
                access: AccessKind::Read,
                other_access: AccessKind::Write,
                other_thread: 1,
                region,
                ..
            } if region.name == "out" => {}
            k => panic!("{n} workers: {k:?}"),
        }
    }
}
