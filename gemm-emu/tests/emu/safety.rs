//! Tiny hand-written kernels: each safety check of the emulator fires, with
//! the right thread, line and address, and correct kernels run clean.

use crate::common as emu_common;

use emu_common::Run;
use gemm_emu::{
    AccessKind, Buffer, EmuError, FaultKind, Launch, MemSpace, Options, ParamValue, Program, buffer_address,
};

/// A kernel `k(out, inp, n)`: every thread has `%t = %tid.x`, `%addr =
/// out + 4 t` and `%iaddr = inp + 4 t` ready; `BODY` follows.
const TEMPLATE: &str = "\
.version 6.0
.target sm_70
.address_size 64

.visible .entry k(
\t.param .u64 out,
\t.param .u64 inp,
\t.param .u32 n
)
{
\t.reg .u64 %out, %inp, %addr, %iaddr, %off, %x;
\t.reg .u32 %t, %v, %w, %n, %s;
\t.reg .s32 %i, %j;
\t.reg .s64 %l;
\t.reg .f32 %f, %g, %h;
\t.reg .f64 %d, %e;
\t.reg .pred %p, %q;
\t.shared .align 16 .b8 buf[128];
\t.shared .align 16 .b8 other[64];
\tld.param.u64\t%out, [out];
\tld.param.u64\t%inp, [inp];
\tld.param.u32\t%n, [n];
\tcvta.to.global.u64\t%out, %out;
\tcvta.to.global.u64\t%inp, %inp;
\tmov.u32\t%t, %tid.x;
\tmul.wide.u32\t%off, %t, 4;
\tadd.u64\t%addr, %out, %off;
\tadd.u64\t%iaddr, %inp, %off;
BODY
\tret;
}
";

fn run_with(body: &str, grid: u32, block: u32, out_len: usize, inp: Vec<u8>, options: Options) -> Run {
    let text = TEMPLATE.replace("BODY", body);
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}"));
    let mut buffers = [Buffer::zeroed("out", out_len), Buffer::read_only("inp", inp)];
    let launch = Launch {
        grid: (grid, 1, 1),
        block: (block, 1, 1),
        params: vec![ParamValue::ptr(0), ParamValue::ptr(1), ParamValue::U32(block)],
        options,
        ..Launch::default()
    };
    let result = program.run(&launch, &mut buffers);
    let [out, _] = buffers;
    Run { text, result, out: out.bytes }
}

fn run(body: &str, grid: u32, block: u32, out_len: usize) -> Run {
    run_with(body, grid, block, out_len, vec![0; 256], Options::default())
}

#[test]
fn clean_kernel_runs_and_counts() {
    // out[ctaid * ntid + tid] = ctaid * ntid + tid.
    let body = "\tmov.u32\t%w, %ntid.x;\n\tmov.u32\t%v, %ctaid.x;\n\tmad.lo.u32\t%w, %v, %w, %t;\n\
                \tmul.wide.u32\t%off, %w, 4;\n\tadd.u64\t%addr, %out, %off;\n\tst.global.u32\t[%addr], %w;";
    let r = run(body, 2, 64, 512);
    let stats = *r.result.as_ref().unwrap();
    assert_eq!(r.out_u32(), (0..128).collect::<Vec<_>>());
    // 16 instructions (9 + 6 + ret) for each of 2 blocks × 64 threads.
    assert_eq!(stats.thread_instructions, 16 * 128);
    assert_eq!(stats.warp_instructions, 16 * 4);
    assert_eq!(stats.blocks, 2);
}

#[test]
fn global_out_of_bounds_names_thread_line_and_address() {
    // 32 threads store 4 bytes each into a 124-byte buffer: thread 31 is out.
    let r = run("\tst.global.u32\t[%addr], %t;", 1, 32, 124);
    let f = r.fault();
    assert_eq!((f.thread, f.line), (31, r.line_of("st.global.u32")));
    match &f.kind {
        FaultKind::GlobalOutOfBounds { access: AccessKind::Write, addr, bytes: 4, near: Some(region) } => {
            assert_eq!(*addr, buffer_address(0) + 124);
            assert_eq!((region.name.as_str(), region.offset), ("out", 124));
        }
        k => panic!("{k:?}"),
    }
    let msg = r.result.as_ref().unwrap_err().to_string();
    assert!(msg.contains("thread 31") && msg.contains("outside every buffer"), "{msg}");
    // Earlier threads' stores happened.
    assert_eq!(r.out_u32()[30], 30);
}

#[test]
fn vector_straddling_the_end_is_out_of_bounds() {
    // Thread t stores 8 bytes at out + 4 t (misaligned for odd t), so use
    // 8 t: thread 15's .v2 covers bytes 120..128 of a 124-byte buffer.
    let body =
        "\tmul.wide.u32\t%off, %t, 8;\n\tadd.u64\t%addr, %out, %off;\n\tst.global.v2.u32\t[%addr], {%t, %t};";
    let r = run(body, 1, 32, 124);
    let f = r.fault();
    assert_eq!(f.thread, 15);
    assert!(matches!(f.kind, FaultKind::GlobalOutOfBounds { bytes: 8, .. }), "{:?}", f.kind);
}

#[test]
fn misaligned_and_stray_pointers_fault() {
    let r = run("\tst.global.v2.u32\t[%addr], {%t, %t};", 1, 32, 1024);
    let f = r.fault();
    assert_eq!(f.thread, 1);
    assert!(
        matches!(f.kind, FaultKind::Misaligned { space: MemSpace::Global, bytes: 8, .. }),
        "{:?}",
        f.kind
    );
    // A 16-byte vector load at an address that is 8 mod 16: aligned for
    // each element, not for the vector.
    let r = run("\tld.global.v4.u32\t{%v, %w, %n, %s}, [%inp+8];", 1, 32, 16);
    assert_eq!((r.fault().thread, r.fault().line), (0, r.line_of("ld.global.v4.u32")));
    assert_eq!(
        r.fault().kind,
        FaultKind::Misaligned {
            space: MemSpace::Global,
            access: AccessKind::Read,
            addr: buffer_address(1) + 8,
            bytes: 16
        }
    );
    // A pointer between the buffers.
    let r = run("\tsub.u64\t%x, %out, 4;\n\tld.global.u32\t%v, [%x];", 1, 32, 16);
    assert!(matches!(r.fault().kind, FaultKind::GlobalOutOfBounds { access: AccessKind::Read, .. }));
    // A store to the read-only input.
    let r = run("\tst.global.u32\t[%iaddr], %t;", 1, 32, 16);
    assert!(matches!(&r.fault().kind, FaultKind::ReadOnlyWrite { region, .. } if region.name == "inp"));
}

#[test]
fn shared_out_of_bounds_faults_even_next_to_another_array() {
    // buf is 128 bytes: threads 0..31 store words 1..32, thread 31 past the end.
    let body = "\tmov.u32\t%s, buf;\n\tmad.lo.u32\t%s, %t, 4, %s;\n\tst.shared.u32\t[%s+4], %t;";
    let r = run(body, 1, 32, 16);
    let f = r.fault();
    assert_eq!((f.thread, f.line), (31, r.line_of("st.shared.u32")));
    match &f.kind {
        FaultKind::SharedOutOfBounds { access: AccessKind::Write, near: Some(region), .. } => {
            assert_eq!((region.name.as_str(), region.offset), ("buf", 128));
        }
        k => panic!("{k:?}"),
    }
    // A misaligned shared vector.
    let r = run("\tmov.u32\t%s, buf;\n\tst.shared.v4.u32\t[%s+4], {%t, %t, %t, %t};", 1, 32, 16);
    assert!(matches!(r.fault().kind, FaultKind::Misaligned { space: MemSpace::Shared, bytes: 16, .. }));
}

#[test]
fn uninitialised_registers_and_shared_memory_fault() {
    // %v is written only by even threads, then read by all.
    let body = "\tand.b32\t%w, %t, 1;\n\tsetp.eq.u32\t%p, %w, 0;\n\t@%p mov.u32\t%v, 7;\n\tst.global.u32\t[%addr], %v;";
    let r = run(body, 1, 32, 128);
    let f = r.fault();
    assert_eq!((f.thread, f.line), (1, r.line_of("st.global.u32")));
    assert_eq!(f.kind, FaultKind::UninitializedRegister { reg: "%v".into() });
    // A guard never set.
    let r = run("\t@%q st.global.u32\t[%addr], %t;", 1, 32, 128);
    assert_eq!(r.fault().kind, FaultKind::UninitializedRegister { reg: "%q".into() });
    // Shared memory no thread wrote.
    let r = run("\tmov.u32\t%s, buf;\n\tld.shared.u32\t%v, [%s+8];", 1, 32, 128);
    assert!(matches!(r.fault().kind, FaultKind::SharedUninitialized { .. }), "{:?}", r.fault().kind);
}

/// Thread t writes buf[t], then reads buf[(t + 1) mod 32]: a race unless a
/// barrier separates the two.
fn neighbour_exchange(barrier: bool) -> String {
    format!(
        "\tmov.u32\t%s, buf;\n\tmad.lo.u32\t%s, %t, 4, %s;\n\tst.shared.u32\t[%s], %t;\n{}\
         \tadd.u32\t%w, %t, 1;\n\tand.b32\t%w, %w, 31;\n\tmov.u32\t%s, buf;\n\tmad.lo.u32\t%s, %w, 4, %s;\n\
         \tld.shared.u32\t%v, [%s];\n\tst.global.u32\t[%addr], %v;",
        if barrier { "\tbar.sync\t0;\n" } else { "" }
    )
}

#[test]
fn shared_race_without_barrier_is_reported() {
    // 64 threads in two warps: warp 0 runs first, so thread 31 reads buf[0]
    // (written by thread 0 in the same interval) - a race between two threads
    // that a barrier would order.
    let r = run(&neighbour_exchange(false), 1, 32, 128);
    let f = r.fault();
    assert_eq!(f.line, r.line_of("ld.shared.u32"));
    match &f.kind {
        FaultKind::Race {
            space: MemSpace::Shared,
            access: AccessKind::Read,
            other_access: AccessKind::Write,
            other_thread,
            other_line,
            region,
            ..
        } => {
            assert_eq!(*other_thread, (f.thread + 1) % 32);
            assert_eq!(*other_line, r.line_of("st.shared.u32"));
            assert_eq!(region.name, "buf");
        }
        k => panic!("{k:?}"),
    }
    assert!(r.result.as_ref().unwrap_err().to_string().contains("no barrier ordering them"));
}

#[test]
fn the_same_exchange_with_a_barrier_is_clean() {
    let r = run(&neighbour_exchange(true), 1, 32, 128);
    let stats = *r.result.as_ref().unwrap();
    assert_eq!(stats.barriers, 1);
    assert_eq!(r.out_u32(), (0..32).map(|t| (t + 1) % 32).collect::<Vec<_>>());
}

#[test]
fn write_write_and_global_races_are_reported() {
    // Every thread of a block stores to out[0].
    let r = run("\tst.global.u32\t[%out], %t;", 1, 64, 16);
    match &r.fault().kind {
        FaultKind::Race {
            space: MemSpace::Global,
            access: AccessKind::Write,
            other_access: AccessKind::Write,
            ..
        } => {}
        k => panic!("{k:?}"),
    }
    // Each block writes out[t] for its own t: blocks collide.
    let r = run_with(
        "\tst.global.u32\t[%addr], %t;",
        2,
        32,
        128,
        vec![0; 16],
        Options { workers: 1, ..Options::default() },
    );
    match &r.fault().kind {
        FaultKind::CrossBlockRace { other_block: Some((0, 0, 0)), access: AccessKind::Write, .. } => {}
        k => panic!("{k:?}"),
    }
    assert_eq!(r.fault().block, (1, 0, 0));
    // Reading what another block writes is a race too, whichever runs first.
    let one = Options { workers: 1, ..Options::default() };
    let body = "\tmov.u32\t%w, %ctaid.x;\n\tsetp.eq.u32\t%p, %w, 0;\n\t@%p st.global.u32\t[%addr], %t;\n\
                \t@!%p ld.global.u32\t%v, [%addr];";
    let r = run_with(body, 2, 32, 128, vec![0; 16], one.clone());
    match &r.fault().kind {
        FaultKind::CrossBlockRace {
            other_block: Some((0, 0, 0)),
            access: AccessKind::Read,
            other_access: AccessKind::Write,
            ..
        } => {}
        k => panic!("{k:?}"),
    }
    let body = "\tmov.u32\t%w, %ctaid.x;\n\tsetp.eq.u32\t%p, %w, 2;\n\t@%p st.global.u32\t[%addr], %t;\n\
                \t@!%p ld.global.u32\t%v, [%addr];";
    let r = run_with(body, 3, 32, 128, vec![0; 16], one);
    match &r.fault().kind {
        FaultKind::CrossBlockRace {
            other_block: None,
            access: AccessKind::Write,
            other_access: AccessKind::Read,
            ..
        } => {}
        k => panic!("{k:?}"),
    }
    assert!(r.result.as_ref().unwrap_err().to_string().contains("by another block"));
    // Threads reading the same bytes is no race.
    let r = run("\tld.global.u32\t%v, [%inp];\n\tst.global.u32\t[%addr], %v;", 1, 32, 128);
    r.result.as_ref().unwrap();
    // With the race checks off, the same kernel runs (last writer wins).
    let off = Options { check_races: false, ..Options::default() };
    run_with("\tst.global.u32\t[%out], %t;", 1, 64, 16, vec![0; 16], off).result.unwrap();
}

#[test]
fn divergent_uniform_branch_is_reported() {
    let body = "\tsetp.lt.u32\t%p, %t, 5;\n\t@%p bra.uni\t$skip;\n\tst.global.u32\t[%addr], %t;\n$skip:";
    let r = run(body, 1, 32, 128);
    let f = r.fault();
    assert_eq!(f.line, r.line_of("bra.uni"));
    match &f.kind {
        FaultKind::DivergentUniformBranch { taken, not_taken } => {
            assert_eq!(taken, &(0..5).collect::<Vec<_>>());
            assert_eq!(not_taken.len(), 27);
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn divergent_branches_reconverge() {
    // if (t even) w = 200 else w = 100; out[t] = w + t.
    let body = "\tand.b32\t%v, %t, 1;\n\tsetp.eq.u32\t%p, %v, 0;\n\t@%p bra\t$even;\n\tmov.u32\t%w, 100;\n\
                \tbra\t$join;\n$even:\n\tmov.u32\t%w, 200;\n$join:\n\tadd.u32\t%w, %w, %t;\n\
                \tst.global.u32\t[%addr], %w;";
    let r = run(body, 1, 32, 128);
    let stats = *r.result.as_ref().unwrap();
    assert_eq!(r.out_u32(), (0..32).map(|t| t + if t % 2 == 0 { 200 } else { 100 }).collect::<Vec<_>>());
    // 9 + 3 before the split, 2 + 1 on the two paths, 3 after reconverging.
    assert_eq!(stats.warp_instructions, 9 + 3 + 2 + 1 + 3);

    // A loop each thread runs t times.
    let body = "\tmov.u32\t%w, 0;\n$loop:\n\tsetp.ge.u32\t%p, %w, %t;\n\t@%p bra\t$done;\n\
                \tadd.u32\t%w, %w, 1;\n\tbra\t$loop;\n$done:\n\tst.global.u32\t[%addr], %w;";
    let r = run(body, 1, 64, 256);
    r.result.as_ref().unwrap();
    assert_eq!(r.out_u32(), (0..64).collect::<Vec<_>>());
}

#[test]
fn barrier_deadlocks_and_divergent_barriers_fault() {
    // Threads 0..15 return, the rest wait at the barrier forever.
    let body = "\tsetp.lt.u32\t%p, %t, 16;\n\t@%p ret;\n\tbar.sync\t0;";
    let r = run(body, 1, 64, 16);
    match &r.fault().kind {
        FaultKind::BarrierDeadlock { waiting: 48, exited: 16, .. } => {}
        k => panic!("{k:?}"),
    }
    assert_eq!(r.fault().line, r.line_of("bar.sync"));
    // A barrier under a guard that splits a warp.
    let r = run("\tsetp.lt.u32\t%p, %t, 16;\n\t@%p bar.sync\t0;", 1, 64, 16);
    assert_eq!(r.fault().kind, FaultKind::DivergentBarrier);
    // Warps waiting at different barriers.
    let body = "\tsetp.lt.u32\t%p, %t, 32;\n\t@%p bra\t$one;\n\tbar.sync\t1;\n\tbra\t$end;\n$one:\n\tbar.sync\t0;\n$end:";
    let r = run(body, 1, 64, 16);
    assert!(
        matches!(&r.fault().kind, FaultKind::BarrierDeadlock { barriers, .. } if barriers == &[0, 1]),
        "{:?}",
        r.fault().kind
    );
}

#[test]
fn endless_loops_and_division_by_zero_fault() {
    let r = run_with(
        "$spin:\n\tbra.uni\t$spin;",
        1,
        32,
        16,
        vec![0; 16],
        Options { max_warp_steps: 1000, ..Options::default() },
    );
    assert_eq!(r.fault().kind, FaultKind::StepLimit { steps: 1000 });
    let r = run(
        "\tsub.u32\t%w, %t, 3;\n\tsetp.eq.u32\t%p, %w, 0;\n\tselp.u32\t%w, 0, 1, %p;\n\tdiv.u32\t%v, %t, %w;",
        1,
        32,
        16,
    );
    assert_eq!((r.fault().thread, &r.fault().kind), (3, &FaultKind::DivisionByZero));
}

#[test]
fn unknown_instructions_are_named_not_skipped() {
    let text = TEMPLATE.replace("BODY", "\tshfl.sync.bfly.b32\t%v, %t, 1, 31, -1;");
    let line = text.lines().position(|l| l.contains("shfl")).unwrap() as u32 + 1;
    match Program::from_ptx(&text, None) {
        Err(EmuError::Parse(e)) => {
            assert_eq!(e.line, line);
            assert!(e.message.contains("`shfl.sync.bfly.b32`"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let text = TEMPLATE.replace("BODY", "\tmov.u32\t%v, %laneid;");
    assert!(Program::from_ptx(&text, None).unwrap_err().to_string().contains("`%laneid`"));
}

#[test]
fn launches_that_do_not_fit_the_kernel_are_refused() {
    let text = TEMPLATE.replace("BODY", "");
    let p = Program::from_ptx(&text, None).unwrap();
    let mut bufs = [Buffer::zeroed("out", 4)];
    let launch = |params| Launch { grid: (1, 1, 1), block: (32, 1, 1), params, ..Launch::default() };
    let e = p.run(&launch(vec![ParamValue::ptr(0)]), &mut bufs).unwrap_err();
    assert!(e.to_string().contains("takes 3 parameters, 1 given"), "{e}");
    let e = p
        .run(&launch(vec![ParamValue::ptr(0), ParamValue::F32(1.0), ParamValue::U32(1)]), &mut bufs)
        .unwrap_err();
    assert!(e.to_string().contains("parameter `inp` is .u64"), "{e}");
    let e = p
        .run(&launch(vec![ParamValue::ptr(0), ParamValue::ptr(5), ParamValue::U32(1)]), &mut bufs)
        .unwrap_err();
    assert!(e.to_string().contains("buffer 5"), "{e}");
    assert!(Program::from_ptx(&text, Some("nope")).is_err());
}

/// One thread computes `dst = op(src...)` for the listed values and stores
/// the result's bits.
fn compute(body: &str) -> Vec<u8> {
    let body = format!("\tsetp.ne.u32\t%p, %t, 0;\n\t@%p ret;\n{body}");
    let r = run(&body, 1, 32, 64);
    r.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
    r.out
}

fn word(out: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap())
}

fn dword(out: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(out[8 * i..8 * i + 8].try_into().unwrap())
}

#[test]
fn integer_semantics_match_ptx() {
    let out = compute(
        "\tmov.u32\t%v, -7;\n\
         \tshr.s32\t%w, %v, 1;\n\tst.global.u32\t[%out], %w;\n\
         \tshr.u32\t%w, %v, 1;\n\tst.global.u32\t[%out+4], %w;\n\
         \tshl.b32\t%w, %v, 40;\n\tst.global.u32\t[%out+8], %w;\n\
         \tshr.s32\t%w, %v, 40;\n\tst.global.u32\t[%out+12], %w;\n\
         \tdiv.s32\t%i, %v, 2;\n\tst.global.u32\t[%out+16], %i;\n\
         \trem.s32\t%i, %v, 2;\n\tst.global.u32\t[%out+20], %i;\n\
         \tmin.s32\t%i, %v, 3;\n\tst.global.u32\t[%out+24], %i;\n\
         \tmin.u32\t%w, %v, 3;\n\tst.global.u32\t[%out+28], %w;\n\
         \tmul.wide.s32\t%l, %v, 3;\n\tst.global.u64\t[%out+32], %l;\n\
         \tmul.wide.u32\t%x, %v, 3;\n\tst.global.u64\t[%out+40], %x;\n\
         \tcvt.s64.s32\t%l, %i;\n\tst.global.u64\t[%out+48], %l;\n\
         \tmad.lo.u32\t%w, %v, %v, 1;\n\tst.global.u32\t[%out+56], %w;\n\
         \tneg.s32\t%i, %v;\n\tst.global.u32\t[%out+60], %i;",
    );
    let m7 = (-7i32) as u32;
    assert_eq!(word(&out, 0), (-4i32) as u32);
    assert_eq!(word(&out, 1), m7 >> 1);
    assert_eq!(word(&out, 2), 0, "shl clamps at the width");
    assert_eq!(word(&out, 3), u32::MAX, "shr.s fills with the sign");
    assert_eq!(word(&out, 4), (-3i32) as u32);
    assert_eq!(word(&out, 5), (-1i32) as u32);
    assert_eq!(word(&out, 6), m7);
    assert_eq!(word(&out, 7), 3);
    assert_eq!(dword(&out, 4), (-21i64) as u64);
    assert_eq!(dword(&out, 5), u64::from(m7) * 3);
    assert_eq!(dword(&out, 6), (-7i64) as u64, "cvt.s64.s32 sign-extends min(-7, 3)");
    assert_eq!(word(&out, 14), 50);
    assert_eq!(word(&out, 15), 7);
}

#[test]
fn float_semantics_match_ptx() {
    // fma is fused: (1 + 2^-23) * (1 - 2^-23) - 1 = -2^-46 exactly, which an
    // unfused multiply would round to 0.
    let out = compute(
        "\tmov.f32\t%f, 0f3F800001;\n\tmov.f32\t%g, 0f3F7FFFFE;\n\
         \tfma.rn.f32\t%h, %f, %g, 0fBF800000;\n\tst.global.f32\t[%out], %h;\n\
         \tmul.rn.f32\t%h, %f, %g;\n\tadd.rn.f32\t%h, %h, 0fBF800000;\n\tst.global.f32\t[%out+4], %h;\n\
         \tmov.f32\t%h, 0f7FC00000;\n\
         \tsetp.ne.f32\t%q, %h, %h;\n\tselp.u32\t%w, 1, 0, %q;\n\tst.global.u32\t[%out+8], %w;\n\
         \tsetp.eq.f32\t%q, %f, %f;\n\tselp.u32\t%w, 1, 0, %q;\n\tst.global.u32\t[%out+12], %w;\n\
         \tmin.f32\t%g, %h, %f;\n\tst.global.f32\t[%out+16], %g;\n\
         \tneg.f32\t%g, %h;\n\tst.global.f32\t[%out+20], %g;\n\
         \tmov.f64\t%d, 0d3FF0000000000001;\n\tmov.f64\t%e, 0d3FEFFFFFFFFFFFFE;\n\
         \tfma.rn.f64\t%d, %d, %e, 0dBFF0000000000000;\n\tst.global.f64\t[%out+24], %d;",
    );
    assert_eq!(f32::from_bits(word(&out, 0)), -(2f32.powi(-46)));
    assert_eq!(f32::from_bits(word(&out, 1)), 0.0);
    assert_eq!(word(&out, 2), 0, "setp.ne is ordered: false on NaN");
    assert_eq!(word(&out, 3), 1);
    assert_eq!(word(&out, 4), 0x3F80_0001, "min ignores a NaN operand");
    assert_eq!(word(&out, 5), 0xFFC0_0000, "neg flips the sign of NaN too");
    assert_eq!(f64::from_bits(dword(&out, 3)), -(2f64.powi(-104)));
}

#[test]
fn grid_stride_loop_reads_nctaid() {
    // out[i] = i for i < n, in a grid-stride loop: stride = nctaid.x * ntid.x.
    let body = "\tmov.u32\t%w, %ntid.x;\n\tmov.u32\t%v, %ctaid.x;\n\tmad.lo.u32\t%v, %v, %w, %t;\n\
                \tmov.u32\t%s, %nctaid.x;\n\tmul.lo.u32\t%s, %s, %w;\n\
                $again:\n\tsetp.ge.u32\t%p, %v, %n;\n\t@%p bra\t$done;\n\
                \tmul.wide.u32\t%off, %v, 4;\n\tadd.u64\t%addr, %out, %off;\n\tst.global.u32\t[%addr], %v;\n\
                \tadd.u32\t%v, %v, %s;\n\tbra\t$again;\n$done:";
    // 3 blocks of 32 threads cover 96 of the 200 elements per pass.
    let text = TEMPLATE.replace("BODY", body);
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}"));
    let mut buffers = [Buffer::zeroed("out", 800), Buffer::read_only("inp", vec![0; 4])];
    let launch = Launch {
        grid: (3, 1, 1),
        block: (32, 1, 1),
        params: vec![ParamValue::ptr(0), ParamValue::ptr(1), ParamValue::U32(200)],
        dynamic_shared_bytes: 0,
        options: Options::default(),
    };
    program.run(&launch, &mut buffers).unwrap();
    let out: Vec<u32> =
        buffers[0].bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(out, (0..200).collect::<Vec<_>>());
}
