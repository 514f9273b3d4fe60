//! `setmaxnreg` in the emulator: three warpgroups of a 384-thread block
//! (168 registers a thread each), the third giving registers back
//! (`.dec` to 40) and the first two taking them (`.inc` to 232), the
//! pattern of a warp-specialized kernel whose producer only copies. The
//! hand-off runs in either order (an `.inc` waits for the pool); each
//! mistake is reported: no `.dec` or an `.inc` the pool cannot meet
//! (deadlock), the limit moved the wrong way, a warp not converged, the
//! warps of a warpgroup at different limits, a count of the wrong form.

use gemm_emu::{EmuError, FaultKind, Launch, Program};

use crate::common::Run;

/// The kernel `k()` on 384 threads: warpgroup 2 runs `producer`, 0 and 1
/// run `consumer` (each a line or empty), then every thread returns.
fn kernel(consumer: &str, producer: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n.reqntid 384, 1, 1\n{{\n\
         \t.reg .u32 %t;\n\t.reg .pred %p, %q;\n\tmov.u32\t%t, %tid.x;\n\tsetp.ge.u32\t%p, %t, 256;\n\
         \t@%p bra.uni\t$producer;\n{consumer}\tret;\n$producer:\n{producer}\tret;\n}}\n"
    )
}

fn run(consumer: &str, producer: &str) -> Run {
    let text = kernel(consumer, producer);
    let program = Program::from_ptx(&text, Some("k")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let launch = Launch { grid: (1, 1, 1), block: (384, 1, 1), ..Launch::default() };
    let result = program.run(&launch, &mut []);
    Run { text, result, out: Vec::new() }
}

const INC: &str = "\tsetmaxnreg.inc.sync.aligned.u32\t232;\n";
const DEC: &str = "\tsetmaxnreg.dec.sync.aligned.u32\t40;\n";

/// The producer's 128 × 128 registers are exactly what two consumer
/// warpgroups need to go from 168 to 232; the consumers run first, wait at
/// `.inc`, and go on once the producer has given them back. The other way
/// round (two warpgroups giving, the last taking) nobody waits.
#[test]
fn the_consumers_take_what_the_producer_gives_back() {
    let r = run(INC, DEC);
    assert!(r.result.is_ok(), "{:?}", r.result);
    let r = run(DEC, INC);
    assert!(r.result.is_ok(), "{:?}", r.result);
}

/// With no `.dec` the consumers wait forever; asking for 240 (2 × 128 ×
/// 72 = 18432 registers) the second warpgroup does, once the first has
/// taken its share of the 16384 the producer gave.
#[test]
fn an_inc_the_pool_cannot_meet_is_a_deadlock() {
    let r = run(INC, "");
    assert_eq!(r.fault().kind, FaultKind::SetMaxNRegDeadlock { waiting: 256, requested: 2048, available: 0 });
    assert!(r.fault().instr.starts_with("setmaxnreg.inc"), "{}", r.fault().instr);
    let r = run("\tsetmaxnreg.inc.sync.aligned.u32\t240;\n", DEC);
    match r.fault().kind {
        FaultKind::SetMaxNRegDeadlock { waiting, requested: 2304, available } => {
            assert!(waiting % 32 == 0 && waiting > 0 && available < 2304, "{waiting} {available}");
        }
        ref k => panic!("{k}"),
    }
    assert!(r.fault().to_string().contains("another warpgroup must first release"), "{}", r.fault());
}

/// `.inc` below the warp's limit, `.dec` above it.
#[test]
fn the_limit_moves_the_way_asked() {
    let r = run("\tsetmaxnreg.inc.sync.aligned.u32\t160;\n", DEC);
    assert_eq!(r.fault().kind, FaultKind::SetMaxNRegWrongWay { inc: true, count: 160, current: 168 });
    let r = run(INC, "\tsetmaxnreg.dec.sync.aligned.u32\t176;\n");
    assert_eq!(r.fault().kind, FaultKind::SetMaxNRegWrongWay { inc: false, count: 176, current: 168 });
}

/// Half of each consumer warp (a guard on the lane's parity) executing it,
/// and one warp of a warpgroup alone (the others branching round it).
#[test]
fn every_lane_and_every_warp_of_a_warpgroup_executes_it() {
    let guarded =
        "\tand.b32\t%t, %t, 1;\n\tsetp.eq.u32\t%q, %t, 0;\n\t@%q setmaxnreg.inc.sync.aligned.u32\t232;\n";
    let r = run(guarded, DEC);
    assert!(matches!(r.fault().kind, FaultKind::SetMaxNRegNotConverged { .. }), "{}", r.fault());
    let one_warp = format!("\tsetp.ge.u32\t%q, %t, 32;\n\t@%q bra.uni\t$skip;\n{INC}$skip:\n");
    let r = run(&one_warp, DEC);
    match &r.fault().kind {
        FaultKind::SetMaxNRegWarpgroupDiverged { warpgroup: 0, counts } => {
            assert_eq!(counts, &[232, 168, 168, 168]);
        }
        k => panic!("{k}"),
    }
}

/// A count must be a multiple of 8 from 24 to 256.
#[test]
fn counts_are_checked_when_parsed() {
    for line in ["setmaxnreg.inc.sync.aligned.u32\t236;", "setmaxnreg.dec.sync.aligned.u32\t16;"] {
        let text = kernel("", &format!("\t{line}\n"));
        match Program::from_ptx(&text, Some("k")) {
            Err(EmuError::Parse(e)) => {
                assert!(e.to_string().contains("not a multiple of 8 from 24 to 256"), "{e}")
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}
