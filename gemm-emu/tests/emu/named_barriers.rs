//! Named barriers (`bar.sync id, n` and `bar.arrive id, n`) in the
//! emulator: a producer warp hands a two-slot shared ring to three consumer
//! warps, `FULL` barriers saying a slot is written and `EMPTY` ones that it
//! is read — the pattern of a warp-specialized kernel. The correct kernel
//! runs clean and sums right; each mistake such a kernel can make (a
//! missing wait on either side, a wrong or disagreeing thread count, a
//! barrier nobody completes, a diverged arrival) is reported.

use gemm_emu::{AccessKind, Buffer, EmuError, FaultKind, Launch, MemSpace, ParamValue, Program};

use crate::common::Run;

/// Rounds the producer writes; slot `i % 2` holds round `i`.
const ROUNDS: u32 = 4;
/// Consumer threads (warps 1..4); each reads one word of a slot.
const CONSUMERS: u32 = 96;

/// What to get wrong.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mistake {
    None,
    /// The consumers read round 1 without waiting on `FULL`.
    ConsumerSkipsFull,
    /// The producer overwrites slot 0 in round 2 without waiting on `EMPTY`.
    ProducerSkipsEmpty,
    /// The consumers count 96 threads at `FULL`, the producer 128.
    CountsDisagree,
    /// Everyone counts 96 threads at `FULL`: it completes before the last
    /// consumer warp arrives.
    CountTooSmall,
    /// The consumers never arrive at `EMPTY`.
    NoEmptyArrival,
    /// Half of the producer warp arrives at `FULL`.
    DivergedArrival,
}

/// The kernel `k(out)` on 128 threads: warp 0 produces, threads 32..128
/// consume (`out[t - 32]` = the sum of what they read).
fn kernel(mistake: Mistake) -> String {
    let full = |s: u32| 1 + s;
    let empty = |s: u32| 3 + s;
    let mut producer = String::new();
    let mut consumer = String::new();
    for i in 0..ROUNDS {
        let s = i % 2;
        let slot = 4 * s * CONSUMERS;
        if i >= 2 && !(mistake == Mistake::ProducerSkipsEmpty && i == 2) {
            producer += &format!("\tbar.sync\t{}, 128;\n", empty(s));
        }
        producer += &format!("\t// round {i}: slot {s}\n");
        for j in 0..CONSUMERS / 32 {
            producer += &format!(
                "\tadd.u32\t%val, %t, {};\n\tst.shared.u32\t[%sa+{}], %val;\n",
                1000 * i + 32 * j,
                slot + 128 * j
            );
        }
        let full_count = if mistake == Mistake::CountTooSmall { 96 } else { 128 };
        if mistake == Mistake::DivergedArrival {
            producer += &format!("\tsetp.lt.u32\t%p, %t, 16;\n\t@%p bra\t$half{i};\n");
            producer += &format!("\tbar.arrive\t{}, {full_count};\n$half{i}:\n", full(s));
        } else {
            producer += &format!("\tbar.arrive\t{}, {full_count};\n", full(s));
        }

        consumer += &format!("\t// round {i}: slot {s}\n");
        if !(mistake == Mistake::ConsumerSkipsFull && i == 1) {
            let count =
                if matches!(mistake, Mistake::CountsDisagree | Mistake::CountTooSmall) { 96 } else { 128 };
            consumer += &format!("\tbar.sync\t{}, {count};\n", full(s));
        }
        consumer += &format!("\tld.shared.u32\t%v, [%sa+{slot}];\n\tadd.u32\t%acc, %acc, %v;\n");
        if i + 2 < ROUNDS && mistake != Mistake::NoEmptyArrival {
            consumer += &format!("\tbar.arrive\t{}, 128;\n", empty(s));
        }
    }
    format!(
        "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry k(
\t.param .u64 out
)
{{
\t.reg .u64 %out, %addr, %off;
\t.reg .u32 %t, %c, %v, %acc, %sa, %val;
\t.reg .pred %p;
\t.shared .align 16 .b8 ring[{bytes}];
\tld.param.u64\t%out, [out];
\tcvta.to.global.u64\t%out, %out;
\tmov.u32\t%t, %tid.x;
\tmov.u32\t%sa, ring;
\tsetp.lt.u32\t%p, %t, 32;
\t@%p bra\t$producer;
\tsub.u32\t%c, %t, 32;
\tshl.b32\t%v, %c, 2;
\tadd.u32\t%sa, %sa, %v;
\tmov.u32\t%acc, 0;
{consumer}\tmul.wide.u32\t%off, %c, 4;
\tadd.u64\t%addr, %out, %off;
\tst.global.u32\t[%addr], %acc;
\tret;
$producer:
\tshl.b32\t%v, %t, 2;
\tadd.u32\t%sa, %sa, %v;
{producer}\tret;
}}
",
        bytes = 2 * 4 * CONSUMERS
    )
}

fn run(mistake: Mistake) -> Run {
    let text = kernel(mistake);
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut buffers = [Buffer::zeroed("out", 4 * CONSUMERS as usize)];
    let launch =
        Launch { grid: (1, 1, 1), block: (128, 1, 1), params: vec![ParamValue::ptr(0)], ..Launch::default() };
    let result = program.run(&launch, &mut buffers);
    let [out] = buffers;
    Run { text, result, out: out.bytes }
}

#[test]
fn a_producer_and_its_consumers_meet_at_named_barriers() {
    let r = run(Mistake::None);
    let stats = r.result.as_ref().unwrap_or_else(|e| panic!("{e}\n{}", r.text));
    let rounds: u32 = (0..ROUNDS).map(|i| 1000 * i).sum();
    let expected: Vec<u32> = (0..CONSUMERS).map(|c| rounds + ROUNDS * c).collect();
    assert_eq!(r.out_u32(), expected);
    // Each round's FULL, and the EMPTY of every round but the last two.
    assert_eq!(stats.barriers, u64::from(ROUNDS + ROUNDS - 2));
}

#[test]
fn a_consumer_reading_without_waiting_on_full_races_with_the_producer() {
    let r = run(Mistake::ConsumerSkipsFull);
    let f = r.fault();
    match &f.kind {
        FaultKind::Race {
            space: MemSpace::Shared,
            access: AccessKind::Read,
            other_thread,
            other_access: AccessKind::Write,
            ..
        } => assert!(*other_thread < 32, "the producer wrote it: {}", f.kind),
        k => panic!("{k}"),
    }
    assert!(f.thread >= 32, "a consumer reads it");
    assert!(f.instr.starts_with("ld.shared"), "{}", f.instr);
}

#[test]
fn a_producer_writing_without_waiting_on_empty_runs_ahead_of_the_consumers() {
    // The producer runs ahead (the emulator runs warp 0 first): it
    // refills slot 0 and arrives at its FULL barrier again before the
    // consumers took round 0, which the count would take for a consumer's
    // arrival.
    let r = run(Mistake::ProducerSkipsEmpty);
    let f = r.fault();
    assert_eq!(f.kind, FaultKind::BarrierArrivedTwice { barrier: 1 }, "{}", f.kind);
    assert!(f.thread < 32 && f.instr.starts_with("bar.arrive"), "{f}");
    assert!(f.to_string().contains("a second time before it completed"), "{f}");
}

#[test]
fn thread_counts_must_agree_and_suffice() {
    let r = run(Mistake::CountsDisagree);
    let f = r.fault();
    assert_eq!(
        f.kind,
        FaultKind::BarrierCountMismatch { barrier: 1, threads: Some(96), expected: Some(128) },
        "{}",
        f.kind
    );
    assert!(f.to_string().contains("every arrival must give the same thread count"), "{f}");

    // A count of three warps completes FULL without the last consumer
    // warp: the generations then drift apart from the rounds, and a
    // consumer reads a word the producer wrote in an interval its FULL
    // arrival did not cover.
    let r = run(Mistake::CountTooSmall);
    let f = r.fault();
    match &f.kind {
        FaultKind::Race {
            space: MemSpace::Shared,
            access: AccessKind::Read,
            other_thread: 0,
            other_access: AccessKind::Write,
            ..
        } => assert!(f.thread >= 32, "{f}"),
        k => panic!("{k}"),
    }
}

#[test]
fn a_barrier_nobody_completes_is_a_deadlock() {
    let r = run(Mistake::NoEmptyArrival);
    let f = r.fault();
    match &f.kind {
        FaultKind::BarrierDeadlock { waiting: 128, exited: 0, barriers, .. } => assert_eq!(barriers, &[1, 3]),
        k => panic!("{k}"),
    }
    // The producer alone at EMPTY, the consumers at round 2's FULL.
    let text = "\t.reg .u32 %t;\n\tmov.u32\t%t, %tid.x;\n";
    let body = format!("{text}\tbar.sync\t5, 96;\n");
    let r = run_body(&body, 64);
    match &r.fault().kind {
        FaultKind::BarrierDeadlock { waiting: 64, exited: 0, counted: Some((5, 64, 96)), .. } => {}
        k => panic!("{k}"),
    }
    assert!(r.fault().to_string().contains("which 64 of the 96 threads it counts have reached"));
}

/// Arrivals that no `bar.sync` completes before the block ends: the
/// arrivals and waits of the kernel do not pair up.
#[test]
fn an_arrival_nobody_waits_for_is_reported_at_the_end() {
    let body = "\t.reg .u32 %t;\n\tmov.u32\t%t, %tid.x;\n\tbar.arrive\t6, 96;\n";
    let r = run_body(body, 64);
    assert_eq!(r.fault().kind, FaultKind::BarrierUnfinished { barrier: 6, arrived: 64, expected: 96 });
    assert!(r.fault().instr.starts_with("bar.arrive"), "{}", r.fault().instr);
    assert!(r.fault().to_string().contains("64 of the 96 threads of barrier 6 arrived"), "{}", r.fault());
    // Completed by the third warp, the same arrivals are fine.
    let body = "\t.reg .u32 %t;\n\t.reg .pred %p;\n\tmov.u32\t%t, %tid.x;\n\tsetp.lt.u32\t%p, %t, 64;\n\
                \t@%p bra.uni\t$arrive;\n\tbar.sync\t6, 96;\n\tret;\n$arrive:\n\tbar.arrive\t6, 96;\n";
    let r = run_body(body, 96);
    assert!(r.result.is_ok(), "{:?}", r.result);
}

#[test]
fn a_warp_arrives_whole() {
    let r = run(Mistake::DivergedArrival);
    assert_eq!(r.fault().kind, FaultKind::DivergentBarrier);
    assert!(r.fault().instr.starts_with("bar.arrive"), "{}", r.fault().instr);
}

/// `body` as a whole kernel `k()` on `threads` threads.
fn run_body(body: &str, threads: u32) -> Run {
    let text = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{{\n{body}\tret;\n}}\n"
    );
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let launch = Launch { grid: (1, 1, 1), block: (threads, 1, 1), ..Launch::default() };
    let result = program.run(&launch, &mut []);
    Run { text, result, out: Vec::new() }
}

#[test]
fn counts_are_checked_when_parsed() {
    for (line, message) in [
        ("bar.arrive\t1;", "`bar.arrive` needs a thread count"),
        ("bar.sync\t1, 100;", "thread count 100 is not a multiple of 32"),
        ("bar.arrive\t16, 64;", "barrier 16 is not in 0..16"),
        ("bar.sync\t1, 2048;", "not a multiple of 32 in 32..=1024"),
    ] {
        let text = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{{\n\t{line}\n\tret;\n}}\n"
        );
        match Program::from_ptx(&text, Some("k")) {
            Err(e) => assert!(e.to_string().contains(message), "{line}: {e}"),
            Ok(_) => panic!("{line} parsed"),
        }
    }
    // Named barriers and atomics: the cross-block order of atomics is
    // modelled for block-wide barriers only.
    let text = ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 c\n)\n{\n\
                \t.reg .u64 %c;\n\t.reg .u32 %o;\n\tld.param.u64\t%c, [c];\n\tcvta.to.global.u64\t%c, %c;\n\
                \tatom.relaxed.gpu.global.inc.u32\t%o, [%c], 9;\n\tbar.sync\t1, 64;\n\tret;\n}\n";
    match Program::from_ptx(text, Some("k")) {
        Err(EmuError::Unsupported { line, message }) => {
            assert_eq!(line, 14);
            assert!(message.contains("thread count in a kernel with atomics"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn named_barriers_round_trip_through_the_writer_and_the_parser() {
    use gemm_codegen::ptx::{self, Instr, KernelBuilder, write_string};
    let mut b = KernelBuilder::new("handoff");
    b.push(Instr::bar_sync(0));
    b.push(Instr::bar_sync_named(1, 128));
    b.push(Instr::bar_arrive(15, 1024));
    b.push(Instr::ret());
    let module = ptx::Module {
        header: vec!["named barriers".into()],
        floor: ptx::Arch::SM_70,
        kernels: vec![b.finish()],
    };
    let text = write_string(&module);
    for line in ["\tbar.sync\t0;", "\tbar.sync\t1, 128;", "\tbar.arrive\t15, 1024;"] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let parsed = gemm_emu::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed, module);
}
