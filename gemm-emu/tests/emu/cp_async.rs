//! `cp.async` and dynamic shared memory in the emulator: a correct
//! multi-stage ring runs clean and computes the right result, and each
//! mistake a pipelined kernel can make (a missing or too lenient wait, a
//! missing barrier, a misaligned copy) is reported where it happens.

use crate::common as emu_common;

use emu_common::Run;
use gemm_emu::{
    AccessKind, Buffer, EmuError, FaultKind, Launch, MemSpace, ParamValue, Program, buffer_address,
};

/// A kernel `k(out, inp)` of sm_80: every thread has `%t = %tid.x` and
/// `%addr = out + 4 t` ready, and a 2 KiB shared `ring`; `BODY` follows.
const TEMPLATE: &str = "\
.version 7.0
.target sm_80
.address_size 64

EXTERN.visible .entry k(
\t.param .u64 out,
\t.param .u64 inp
)
{
\t.reg .u64 %out, %inp, %addr, %src, %off, %x;
\t.reg .u32 %t, %v, %w, %s, %d, %n, %j, %i, %acc, %f;
\t.reg .pred %p, %q;
\t.shared .align 16 .b8 ring[2048];
DECLS
\tld.param.u64\t%out, [out];
\tld.param.u64\t%inp, [inp];
\tcvta.to.global.u64\t%out, %out;
\tcvta.to.global.u64\t%inp, %inp;
\tmov.u32\t%t, %tid.x;
\tmul.wide.u32\t%off, %t, 4;
\tadd.u64\t%addr, %out, %off;
BODY
\tret;
}
";

/// Runs `body` in [`TEMPLATE`] (with extra declarations `decls`) on one
/// block of `threads` threads, `inp` read-only, an `out` of `out_len` zero
/// bytes and `dynamic` bytes of dynamic shared memory.
fn run_full(decls: &str, body: &str, threads: u32, inp: Vec<u8>, out_len: usize, dynamic: u32) -> Run {
    // A `.extern .shared` declaration goes at module scope, the rest in the kernel.
    let (module_decls, kernel_decls): (Vec<&str>, Vec<&str>) =
        decls.split_inclusive('\n').partition(|l| l.trim_start().starts_with(".extern"));
    let text = TEMPLATE
        .replace("EXTERN", &module_decls.iter().map(|l| l.trim_start()).collect::<String>())
        .replace("DECLS\n", &kernel_decls.concat())
        .replace("BODY", body);
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut buffers = [Buffer::zeroed("out", out_len), Buffer::read_only("inp", inp)];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (threads, 1, 1),
        params: vec![ParamValue::ptr(0), ParamValue::ptr(1)],
        dynamic_shared_bytes: dynamic,
        ..Launch::default()
    };
    let result = program.run(&launch, &mut buffers);
    let [out, _] = buffers;
    Run { text, result, out: out.bytes }
}

fn run(body: &str, threads: u32, inp: Vec<u8>, out_len: usize) -> Run {
    run_full("", body, threads, inp, out_len, 0)
}

/// Threads of the ring kernel, tiles it streams, and bytes per tile (one
/// 16-byte chunk per thread).
const THREADS: u32 = 64;
const TILES: u32 = 4;
const TILE_BYTES: u32 = 16 * THREADS;

/// Every thread accumulates `Σ_i tile[i] · (i + t)` over the 256 words of
/// the tile in stage `%j mod 2`; `label` names its loop.
fn read_stage(label: &str) -> String {
    format!(
        "\tand.b32\t%s, %j, 1;\n\tmov.u32\t%v, ring;\n\tmad.lo.u32\t%s, %s, {TILE_BYTES}, %v;\n\tmov.u32\t%i, 0;\n\
         ${label}:\n\tld.shared.u32\t%v, [%s];\n\tadd.u32\t%f, %i, %t;\n\tmad.lo.u32\t%acc, %v, %f, %acc;\n\
         \tadd.u32\t%s, %s, 4;\n\tadd.u32\t%i, %i, 1;\n\tsetp.lt.u32\t%q, %i, {};\n\t@%q bra.uni\t${label};\n",
        TILE_BYTES / 4
    )
}

/// A two-stage `cp.async` ring streaming `TILES` tiles of `inp` through
/// shared memory, each thread copying one 16-byte chunk per tile: copy
/// tile 0; then for each tile j, copy tile j + 1 into the other stage,
/// `wait_group 1` (tile j has landed), `bar.sync`, everyone reads all of
/// tile j, `bar.sync` (before the stage is refilled); the last tile is
/// waited for with `wait_group 0`. Thread t stores its sum to `out[t]`.
fn ring() -> String {
    let last = TILES - 1;
    format!(
        "\t// this thread's chunk of stage 0, and of tile 0\n\
         \tmov.u32\t%d, ring;\n\tmad.lo.u32\t%d, %t, 16, %d;\n\
         \tmul.wide.u32\t%off, %t, 16;\n\tadd.u64\t%src, %inp, %off;\n\
         \tcp.async.cg.shared.global\t[%d], [%src], 16;\n\tcp.async.commit_group;\n\
         \tmov.u32\t%acc, 0;\n\tmov.u32\t%j, 0;\n\
         $main:\n\
         \t// prefetch tile j + 1 into stage (j + 1) mod 2\n\
         \tadd.u32\t%w, %j, 1;\n\tand.b32\t%s, %w, 1;\n\tmad.lo.u32\t%s, %s, {TILE_BYTES}, %d;\n\
         \tmul.wide.u32\t%x, %w, {TILE_BYTES};\n\tadd.u64\t%x, %src, %x;\n\
         \tcp.async.cg.shared.global\t[%s], [%x], 16;\n\tcp.async.commit_group;\n\
         \tcp.async.wait_group\t1;\n\tbar.sync\t0;\n{}\tbar.sync\t0;\n\
         \tadd.u32\t%j, %j, 1;\n\tsetp.lt.u32\t%p, %j, {last};\n\t@%p bra.uni\t$main;\n\
         \t// the last tile\n\
         \tcp.async.wait_group\t0;\n\tbar.sync\t0;\n{}\
         \tst.global.u32\t[%addr], %acc;",
        read_stage("body_read"),
        read_stage("tail_read"),
    )
}

fn ring_input() -> (Vec<u32>, Vec<u8>) {
    let words: Vec<u32> =
        (0..TILES * TILE_BYTES / 4).map(|i| i.wrapping_mul(2_654_435_761).rotate_left(7)).collect();
    let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    (words, bytes)
}

fn run_ring(text: &str) -> Run {
    let (_, inp) = ring_input();
    run(text, THREADS, inp, 4 * THREADS as usize)
}

#[test]
fn a_two_stage_ring_runs_clean_and_computes_the_sums() {
    let r = run_ring(&ring());
    let stats = *r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
    let (words, _) = ring_input();
    let per_tile = TILE_BYTES as usize / 4;
    let want: Vec<u32> = (0..THREADS)
        .map(|t| {
            let mut acc = 0u32;
            for tile in words.chunks(per_tile) {
                for (i, &w) in tile.iter().enumerate() {
                    acc = acc.wrapping_add(w.wrapping_mul(i as u32 + t));
                }
            }
            acc
        })
        .collect();
    assert_eq!(r.out_u32(), want);
    // A copy per thread and tile, the prologue's and the loop's.
    assert_eq!(stats.async_copy_bytes, u64::from(TILES * TILE_BYTES));
    // Each barrier but the last is reached with the next tile in flight.
    assert_eq!(stats.barriers, u64::from(2 * (TILES - 1) + 1));
}

#[test]
fn reading_before_the_wait_faults_in_flight() {
    let text = ring().replacen("\tcp.async.wait_group\t1;\n", "", 1);
    let r = run_ring(&text);
    let f = r.fault();
    // Thread 0 reads word 0 of tile 0, its own chunk, still being copied.
    assert_eq!((f.thread, f.line), (0, r.line_of("ld.shared.u32")));
    match &f.kind {
        FaultKind::AsyncCopyInFlight {
            access: AccessKind::Read, region, copy_thread: 0, copy_line, ..
        } => {
            assert_eq!((region.name.as_str(), region.offset), ("ring", 0));
            assert_eq!(*copy_line, r.line_of("cp.async.cg.shared.global"));
        }
        k => panic!("{k:?}"),
    }
    let msg = r.result.as_ref().unwrap_err().to_string();
    assert!(msg.contains("still copying"), "{msg}");
}

#[test]
fn waiting_for_all_but_one_group_where_none_may_remain_faults() {
    // The last tile is the newest group: `wait_group 1` leaves it in flight.
    let text = ring().replacen("cp.async.wait_group\t0;", "cp.async.wait_group\t1;", 1);
    let r = run_ring(&text);
    let f = r.fault();
    let tail_read = r.text.lines().position(|l| l == "$tail_read:").unwrap() as u32 + 2;
    assert_eq!((f.thread, f.line), (0, tail_read));
    let loop_copy = r.text.lines().filter(|l| l.contains("cp.async.cg")).nth(1).unwrap();
    match &f.kind {
        FaultKind::AsyncCopyInFlight { access: AccessKind::Read, region, copy_line, .. } => {
            // The last tile went to stage 1.
            assert_eq!((region.name.as_str(), region.offset), ("ring", i64::from(TILE_BYTES)));
            assert_eq!(*copy_line, r.line_of(loop_copy));
            assert_ne!(*copy_line, r.line_of("cp.async.cg"));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn reading_another_threads_chunk_without_a_barrier_after_the_wait_is_a_race() {
    let text = ring().replacen("cp.async.wait_group\t1;\n\tbar.sync\t0;\n", "cp.async.wait_group\t1;\n", 1);
    let r = run_ring(&text);
    let f = r.fault();
    // Thread 1 reads word 0, which thread 0's wait landed in the same
    // barrier interval: the landing is a write at the wait.
    assert_eq!((f.thread, f.line), (1, r.line_of("ld.shared.u32")));
    match &f.kind {
        FaultKind::Race {
            space: MemSpace::Shared,
            access: AccessKind::Read,
            other_access: AccessKind::Write,
            other_thread: 0,
            other_line,
            ..
        } => assert_eq!(*other_line, r.line_of("cp.async.wait_group\t1")),
        k => panic!("{k:?}"),
    }
}

#[test]
fn refilling_a_stage_before_everyone_has_read_it_is_a_race() {
    // Without the barrier after the reads, thread 0 copies the next tile
    // into the stage threads 0 and 1 just read: the copy may land before
    // their reads do.
    let text = ring().replacen("\tbar.sync\t0;\n\tadd.u32\t%j, %j, 1;", "\tadd.u32\t%j, %j, 1;", 1);
    let r = run_ring(&text);
    let f = r.fault();
    let loop_copy = r.text.lines().filter(|l| l.contains("cp.async.cg")).nth(1).unwrap();
    assert_eq!((f.thread, f.line), (0, r.line_of(loop_copy)));
    match &f.kind {
        FaultKind::Race { access: AccessKind::Write, other_access: AccessKind::Read, other_line, .. } => {
            assert_eq!(*other_line, r.line_of("ld.shared.u32"));
        }
        k => panic!("{k:?}"),
    }
}

/// Each thread copies 16 bytes of `inp` (at `src_off`) to its chunk of
/// `ring` (at `dst_off`), with the optional `src_size`, waits for it, and
/// stores the chunk's 4 words to `out[4t..4t + 4]`.
fn copy_back(cache: &str, size: u32, src_size: &str, src_off: u32, dst_off: u32) -> String {
    format!(
        "\tmov.u32\t%d, ring;\n\tmad.lo.u32\t%d, %t, 16, %d;\n\
         \tmul.wide.u32\t%off, %t, 16;\n\tadd.u64\t%src, %inp, %off;\n\
         \tcp.async.{cache}.shared.global\t[%d+{dst_off}], [%src+{src_off}], {size}{src_size};\n\
         \tcp.async.wait_all;\n\
         \tld.shared.v4.u32\t{{%v, %w, %n, %f}}, [%d];\n\
         \tadd.u64\t%x, %out, %off;\n\tst.global.v4.u32\t[%x], {{%v, %w, %n, %f}};"
    )
}

fn iota_bytes(n: u32) -> Vec<u8> {
    (0..n).map(|i| i as u8).collect()
}

#[test]
fn misaligned_copies_fault_on_either_side() {
    // The source 8 bytes into a 16-byte chunk.
    let r = run(&copy_back("cg", 16, "", 8, 0), 32, iota_bytes(1024), 512);
    assert_eq!((r.fault().thread, r.fault().line), (0, r.line_of("cp.async.cg")));
    assert_eq!(
        r.fault().kind,
        FaultKind::Misaligned {
            space: MemSpace::Global,
            access: AccessKind::Read,
            addr: buffer_address(1) + 8,
            bytes: 16
        }
    );
    // The destination.
    let r = run(&copy_back("cg", 16, "", 0, 8), 32, iota_bytes(1024), 512);
    match r.fault().kind {
        FaultKind::Misaligned { space: MemSpace::Shared, access: AccessKind::Write, bytes: 16, .. } => {}
        ref k => panic!("{k:?}"),
    }
    // A .ca copy of 4 bytes needs only 4-byte alignment.
    let r = run(&copy_back("ca", 4, "", 4, 0), 32, iota_bytes(1024), 512);
    // It fills only the first word of the chunk, so reading all 4 faults as
    // an unwritten read, which proves the copy itself was accepted.
    assert_eq!(r.fault().line, r.line_of("ld.shared.v4"));
    assert!(matches!(r.fault().kind, FaultKind::SharedUninitialized { .. }), "{:?}", r.fault().kind);
}

#[test]
fn a_short_src_size_zero_fills_the_rest() {
    // Thread t reads 4 (t mod 5) bytes of its 16.
    let body = copy_back("cg", 16, ", %s", 0, 0).replacen(
        "\tcp.async",
        "\trem.u32\t%s, %t, 5;\n\tmul.lo.u32\t%s, %s, 4;\n\tcp.async",
        1,
    );
    let r = run(&body, 32, vec![0xab; 512], 512);
    let stats = *r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
    for t in 0..32 {
        let chunk = &r.out[16 * t..16 * t + 16];
        let read = 4 * (t % 5);
        assert!(chunk[..read].iter().all(|&b| b == 0xab), "thread {t}: {chunk:?}");
        assert!(chunk[read..].iter().all(|&b| b == 0), "thread {t}: {chunk:?}");
    }
    assert_eq!(stats.async_copy_bytes, 32 * 16);
    // A src-size that is not a whole number of words: 6 bytes of iota.
    let r = run(&copy_back("ca", 16, ", 6", 0, 0), 32, iota_bytes(512), 512);
    r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&r.out[16..32], &[16, 17, 18, 19, 20, 21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // src-size past cp-size.
    let body =
        copy_back("cg", 16, ", %s", 0, 0).replacen("\tcp.async", "\tadd.u32\t%s, %t, 1;\n\tcp.async", 1);
    let r = run(&body, 32, vec![0; 512], 512);
    // Threads 0..15 are fine; thread 16 asks for 17 bytes.
    assert_eq!(r.fault().thread, 16);
    assert_eq!(r.fault().kind, FaultKind::AsyncCopySourceSize { src_bytes: 17, bytes: 16 });
}

#[test]
fn a_zero_src_size_reads_nothing_even_out_of_bounds() {
    // Every source is 1 MiB past the end of `inp`: nothing is read, the
    // chunks are zeros.
    let r = run(&copy_back("cg", 16, ", 0", 1 << 20, 0), 32, vec![0xff; 64], 512);
    r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert!(r.out.iter().all(|&b| b == 0));
    // The same with 4 bytes read is out of bounds,
    let r = run(&copy_back("cg", 16, ", 4", 1 << 20, 0), 32, vec![0xff; 64], 512);
    assert!(
        matches!(r.fault().kind, FaultKind::GlobalOutOfBounds { access: AccessKind::Read, bytes: 4, .. }),
        "{:?}",
        r.fault().kind
    );
    // and a misaligned source faults even when nothing is read.
    let r = run(&copy_back("cg", 16, ", 0", (1 << 20) + 4, 0), 32, vec![0xff; 64], 512);
    assert!(matches!(r.fault().kind, FaultKind::Misaligned { space: MemSpace::Global, .. }));
}

#[test]
fn touching_bytes_in_flight_faults() {
    // Another copy to the same bytes.
    let body = "\tmov.u32\t%d, ring;\n\tmad.lo.u32\t%d, %t, 16, %d;\n\
                \tmul.wide.u32\t%off, %t, 16;\n\tadd.u64\t%src, %inp, %off;\n\
                \tcp.async.ca.shared.global\t[%d], [%src], 16;\n\
                \tcp.async.ca.shared.global\t[%d+8], [%src], 8;\n\tcp.async.wait_all;";
    let r = run(body, 32, vec![0; 512], 512);
    assert_eq!(r.fault().line, r.line_of("[%d+8]"));
    match r.fault().kind {
        FaultKind::AsyncCopyInFlight { access: AccessKind::Write, copy_thread: 0, copy_line, .. } => {
            assert_eq!(copy_line, r.line_of("[%d], [%src], 16"))
        }
        ref k => panic!("{k:?}"),
    }
    // A store.
    let body =
        body.replace("\tcp.async.ca.shared.global\t[%d+8], [%src], 8;", "\tst.shared.u32\t[%d+12], %t;");
    let r = run(&body, 32, vec![0; 512], 512);
    assert_eq!(r.fault().line, r.line_of("st.shared.u32"));
    assert!(matches!(r.fault().kind, FaultKind::AsyncCopyInFlight { access: AccessKind::Write, .. }));
}

#[test]
fn guarded_copies_and_barriers_with_copies_in_flight_are_fine() {
    // Even threads copy; a barrier passes with the copies in flight; each
    // even thread then waits and reads its own chunk.
    let body = "\tand.b32\t%v, %t, 1;\n\tsetp.eq.u32\t%p, %v, 0;\n\
                \tmov.u32\t%d, ring;\n\tmad.lo.u32\t%d, %t, 16, %d;\n\
                \tmul.wide.u32\t%off, %t, 16;\n\tadd.u64\t%src, %inp, %off;\n\
                \t@%p cp.async.cg.shared.global\t[%d], [%src], 16;\n\tcp.async.commit_group;\n\
                \tbar.sync\t0;\n\tcp.async.wait_group\t0;\n\
                \t@%p ld.shared.u32\t%w, [%d+12];\n\t@%p st.global.u32\t[%addr], %w;";
    let r = run(body, 64, iota_bytes(1024), 256);
    let stats = *r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stats.async_copy_bytes, 32 * 16);
    let want: Vec<u32> = (0..64u32)
        .map(|t| {
            if t % 2 == 0 {
                u32::from_le_bytes(std::array::from_fn(|b| (16 * t + 12 + b as u32) as u8))
            } else {
                0
            }
        })
        .collect();
    assert_eq!(r.out_u32(), want);
}

#[test]
fn exiting_with_copies_never_waited_for_faults() {
    let body = "\tmov.u32\t%d, ring;\n\tmad.lo.u32\t%d, %t, 16, %d;\n\
                \tmul.wide.u32\t%off, %t, 16;\n\tadd.u64\t%src, %inp, %off;\n\
                \tcp.async.cg.shared.global\t[%d], [%src], 16;\n\tcp.async.commit_group;";
    let r = run(body, 32, vec![0; 512], 128);
    assert_eq!((r.fault().thread, r.fault().line), (0, r.line_of("ret;")));
    assert_eq!(
        r.fault().kind,
        FaultKind::AsyncCopyNotWaited { copies: 1, copy_line: r.line_of("cp.async.cg") }
    );
    // An uncommitted copy is as lost; `wait_group 0` does not wait for it.
    let uncommitted = body.replace("\tcp.async.commit_group;", "\tcp.async.wait_group\t0;");
    assert!(matches!(
        run(&uncommitted, 32, vec![0; 512], 128).fault().kind,
        FaultKind::AsyncCopyNotWaited { .. }
    ));
    // `wait_all` lands it.
    let waited = body.replace("\tcp.async.commit_group;", "\tcp.async.wait_all;");
    run(&waited, 32, vec![0; 512], 128).result.unwrap();
    // Group instructions with nothing in flight return at once.
    let nothing = "\tcp.async.commit_group;\n\tcp.async.wait_group\t0;\n\tcp.async.wait_all;";
    let stats = run(nothing, 32, vec![0; 512], 128).result.unwrap();
    assert_eq!(stats.async_copy_bytes, 0);
}

/// Thread t writes word t of the dynamic array `dyn`, then reads word
/// `(t + 1) mod n` after a barrier.
const DYNAMIC_EXCHANGE: &str = "\tmov.u32\t%d, dyn;\n\tmad.lo.u32\t%s, %t, 4, %d;\n\tst.shared.u32\t[%s], %t;\n\
                                \tbar.sync\t0;\n\tadd.u32\t%w, %t, 1;\n\trem.u32\t%w, %w, 32;\n\
                                \tmad.lo.u32\t%s, %w, 4, %d;\n\tld.shared.u32\t%v, [%s];\n\
                                \tst.global.u32\t[%addr], %v;";

fn run_dynamic(dynamic: u32) -> Run {
    // No cp.async: the module is sm_70's.
    let body = DYNAMIC_EXCHANGE;
    let text = TEMPLATE.replace(".version 7.0", ".version 6.0").replace(".target sm_80", ".target sm_70");
    let text = text
        .replace("EXTERN", ".extern .shared .align 16 .b8 dyn[];\n")
        .replace("DECLS\n", "")
        .replace("BODY", body);
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}"));
    let mut buffers = [Buffer::zeroed("out", 128), Buffer::read_only("inp", vec![0; 16])];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        params: vec![ParamValue::ptr(0), ParamValue::ptr(1)],
        dynamic_shared_bytes: dynamic,
        ..Launch::default()
    };
    let result = program.run(&launch, &mut buffers);
    let [out, _] = buffers;
    Run { text, result, out: out.bytes }
}

#[test]
fn dynamic_shared_memory_is_sized_by_the_launch() {
    let r = run_dynamic(128);
    r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.out_u32(), (0..32).map(|t| (t + 1) % 32).collect::<Vec<_>>());
    // One word short: thread 31 stores past the end of `dyn`.
    let r = run_dynamic(124);
    assert_eq!((r.fault().thread, r.fault().line), (31, r.line_of("st.shared.u32")));
    match &r.fault().kind {
        FaultKind::SharedOutOfBounds { access: AccessKind::Write, bytes: 4, near: Some(region), .. } => {
            assert_eq!((region.name.as_str(), region.offset, region.len), ("dyn", 124, 124));
        }
        k => panic!("{k:?}"),
    }
    // None at all.
    assert!(matches!(run_dynamic(0).fault().kind, FaultKind::SharedOutOfBounds { .. }));
    // More than any GPU gives a block, with the 2 KiB `ring`.
    match run_dynamic(226 * 1024).result {
        Err(EmuError::Launch(m)) => assert!(m.contains("2048 static and 231424 dynamic shared bytes"), "{m}"),
        other => panic!("{other:?}"),
    }
    run_dynamic(225 * 1024).result.unwrap();
}

#[test]
fn a_pipeline_may_copy_into_dynamic_shared_memory() {
    // The ring's staging in `dyn` instead of `ring`: the same sums, and a
    // launch one tile too small faults at the first copy past the end.
    let decls = "\t.extern .shared .align 16 .b8 dyn[];\n";
    let text = ring()
        .replace("mov.u32\t%d, ring", "mov.u32\t%d, dyn")
        .replace("mov.u32\t%v, ring", "mov.u32\t%v, dyn");
    let (_, inp) = ring_input();
    let good = run_full(decls, &text, THREADS, inp.clone(), 4 * THREADS as usize, 2 * TILE_BYTES);
    let reference = run_ring(&ring());
    assert_eq!(
        good.result.as_ref().unwrap_or_else(|e| panic!("{e}")).async_copy_bytes,
        u64::from(TILES * TILE_BYTES)
    );
    assert_eq!(good.out, reference.out);
    let short = run_full(decls, &text, THREADS, inp, 4 * THREADS as usize, TILE_BYTES);
    let loop_copy = short.text.lines().filter(|l| l.contains("cp.async.cg")).nth(1).unwrap();
    assert_eq!((short.fault().thread, short.fault().line), (0, short.line_of(loop_copy)));
    assert!(
        matches!(&short.fault().kind, FaultKind::SharedOutOfBounds { access: AccessKind::Write, near: Some(r), .. } if r.name == "dyn"),
        "{:?}",
        short.fault().kind
    );
}
