//! How each [`FaultKind`] reads: what went wrong and, where it helps, what
//! to change.

use std::fmt;

use gemm_codegen::ptx::{DescSwizzle, Major, SmemDesc};

use super::{FaultKind, WarpgroupMismatch};

fn threads(list: &[u32]) -> String {
    list.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::GlobalOutOfBounds { access, addr, bytes, near } => {
                write!(f, "global {access} of {bytes} bytes at {addr:#x} is outside every buffer")?;
                match near {
                    Some(r) => write!(f, " ({r})"),
                    None => Ok(()),
                }
            }
            FaultKind::ReadOnlyWrite { addr, region } => {
                write!(f, "global write at {addr:#x} ({region}) to a buffer passed in read-only")
            }
            FaultKind::SharedOutOfBounds { access, addr, bytes, near } => {
                write!(f, "shared {access} of {bytes} bytes at {addr:#x} is outside the declared arrays")?;
                match near {
                    Some(r) => write!(f, " ({r})"),
                    None => Ok(()),
                }
            }
            FaultKind::Misaligned { space, access, addr, bytes } => {
                write!(
                    f,
                    "misaligned {space} {access}: {bytes} bytes at {addr:#x}, not a multiple of {bytes}"
                )
            }
            FaultKind::SharedUninitialized { addr, region } => {
                write!(f, "shared read at {addr:#x} ({region}) of bytes no thread of the block has written")
            }
            FaultKind::UninitializedRegister { reg } => {
                write!(f, "read of register {reg}, which this thread has never written")
            }
            FaultKind::Race { space, addr, region, access, other_thread, other_access, other_line } => {
                let other = match *other_thread {
                    u32::MAX => "several threads".to_owned(),
                    t => format!("thread {t}"),
                };
                write!(
                    f,
                    "{space}-memory race at {addr:#x} ({region}): this {access} and {} by {other} at line \
                     {other_line}, with no barrier ordering them",
                    other_access.with_article()
                )
            }
            FaultKind::CrossBlockRace { addr, region, access, other_block, other_access, unordered } => {
                let other = match other_block {
                    Some((x, y, z)) => format!("block ({x}, {y}, {z})"),
                    None => "another block".to_owned(),
                };
                write!(
                    f,
                    "global-memory race between blocks at {addr:#x} ({region}): this {access} and {} by {other}",
                    other_access.with_article()
                )?;
                if *unordered {
                    write!(
                        f,
                        ", which no release (`fence.acq_rel.gpu`, then `atom`) and acquire (a later `atom` on \
                         the same word, then `fence.acq_rel.gpu`) orders"
                    )?;
                }
                Ok(())
            }
            FaultKind::DivergentUniformBranch { taken, not_taken } => write!(
                f,
                "`bra.uni` diverges: taken by threads [{}], not by [{}]",
                threads(taken),
                threads(not_taken)
            ),
            FaultKind::DivergentBarrier => write!(
                f,
                "`bar.sync` or `bar.arrive` executed by only some threads of the warp (a guard that splits it, or \
                 for `bar.arrive`, a warp not converged)"
            ),
            FaultKind::BarrierUnfinished { barrier, arrived, expected } => write!(
                f,
                "the block ended with {arrived} of the {expected} threads of barrier {barrier} arrived: an \
                 arrival no `bar.sync` completes (does every `bar.arrive` have its wait?)"
            ),
            FaultKind::BarrierArrivedTwice { barrier } => write!(
                f,
                "this warp arrives at barrier {barrier} a second time before it completed: the barrier would \
                 count it as another warp's arrival (a wait missing before this arrival?)"
            ),
            FaultKind::BarrierCountMismatch { barrier, threads, expected } => {
                let count = |c: &Option<u32>| {
                    c.map_or("every thread of the block".to_owned(), |n| format!("{n} threads"))
                };
                write!(
                    f,
                    "barrier {barrier}: this warp arrives counting {}, an earlier arrival of the same generation \
                     counted {}: every arrival must give the same thread count",
                    count(threads),
                    count(expected)
                )
            }
            FaultKind::MmaNotConverged { active } => write!(
                f,
                "`mma.sync` needs all 32 lanes of the warp converged, executed by threads [{}] only",
                threads(active)
            ),
            FaultKind::MmaOperandNotTf32 { thread, operand, bits } => write!(
                f,
                "`mma.sync` on .tf32: thread {thread}'s {operand} operand 0x{bits:08x} is not a TF32 value \
                 (its 13 low bits are set): round it with `cvt.rna.tf32.f32` first"
            ),
            FaultKind::BarrierDeadlock { waiting, exited, barriers, counted } => {
                if barriers.len() > 1 {
                    write!(f, "barrier deadlock: {waiting} threads wait at different barriers {barriers:?}")
                } else if let Some((id, arrived, expected)) = counted {
                    write!(
                        f,
                        "barrier deadlock: {waiting} threads wait at barrier {id}, which {arrived} of the {expected} \
                         threads it counts have reached and no other thread can reach ({exited} have exited)"
                    )
                } else {
                    write!(
                        f,
                        "barrier deadlock: {waiting} threads wait at `bar.sync` while {exited} threads of the block \
                         have exited"
                    )
                }
            }
            FaultKind::AsyncCopyInFlight { access, addr, region, copy_thread, copy_line } => write!(
                f,
                "shared {access} at {addr:#x} ({region}) of bytes a `cp.async` of thread {copy_thread} at line \
                 {copy_line} is still copying: only that thread's `cp.async.wait_group`/`wait_all` lands them \
                 (then other threads need a `bar.sync`)"
            ),
            FaultKind::AsyncCopySourceSize { src_bytes, bytes } => {
                write!(f, "`cp.async` src-size {src_bytes} is larger than its cp-size {bytes}")
            }
            FaultKind::AsyncCopyNotWaited { copies, copy_line } => write!(
                f,
                "thread exits with {copies} `cp.async` copies it never waited for (the oldest at line \
                 {copy_line}): their bytes may never land"
            ),
            FaultKind::SetMaxNRegNotConverged { active } => write!(
                f,
                "`setmaxnreg` is `.sync.aligned`: all 32 lanes of the warp must execute it together, unguarded, \
                 but only threads [{}] do",
                threads(active)
            ),
            FaultKind::SetMaxNRegWrongWay { inc, count, current } => write!(
                f,
                "`setmaxnreg.{}` to {count} registers a thread, but the warp has {current}: `.inc` raises the \
                 limit, `.dec` lowers it",
                if *inc { "inc" } else { "dec" }
            ),
            FaultKind::SetMaxNRegDeadlock { waiting, requested, available } => write!(
                f,
                "{waiting} threads wait at `setmaxnreg.inc` for {requested} registers of the block's pool, which \
                 holds {available} and will not grow: another warpgroup must first release its registers \
                 (`setmaxnreg.dec`), or ask for fewer"
            ),
            FaultKind::SetMaxNRegWarpgroupDiverged { warpgroup, counts } => write!(
                f,
                "the warps of warpgroup {warpgroup} ended with {counts:?} registers a thread: every warp of a \
                 warpgroup must execute the same `setmaxnreg`"
            ),
            FaultKind::WgmmaNotConverged { active } => write!(
                f,
                "`wgmma` instructions are `.sync.aligned`: all 32 lanes of the warp must execute them together, \
                 unguarded, but only threads [{}] do",
                threads(active)
            ),
            FaultKind::WgmmaPartialWarpgroup { threads } => write!(
                f,
                "`wgmma` runs on warpgroups of 128 threads, but the block has {threads} threads, not a multiple \
                 of 128"
            ),
            FaultKind::WgmmaNotUniform { operand, thread, value, first } => write!(
                f,
                "`wgmma.mma_async`'s {operand} must be the same in every thread of the warp: thread {thread} has \
                 {value:#x}, the warp's first thread {first:#x}"
            ),
            FaultKind::WgmmaWarpgroupDiverged { other_thread, mismatch } => match mismatch {
                WarpgroupMismatch::Instruction { other_line } => write!(
                    f,
                    "the four warps of a warpgroup must execute the same `wgmma` instructions in the same order \
                     (`.aligned`), but thread {other_thread}'s warp executed line {other_line} where this warp \
                     executes this one"
                ),
                WarpgroupMismatch::Descriptors { a, b } => write!(
                    f,
                    "a `wgmma.mma_async`'s descriptors must be the same in the four warps of the warpgroup, but \
                     thread {other_thread}'s warp gave A {a:#x}, B {b:#x}"
                ),
                WarpgroupMismatch::Missing => write!(
                    f,
                    "the four warps of a warpgroup must execute the same `wgmma` instructions (`.aligned`), but \
                     this warp never executed this one, which thread {other_thread}'s warp did"
                ),
            },
            FaultKind::WgmmaWithoutFence { reg: None } => write!(
                f,
                "`wgmma.mma_async` before the warp's first `wgmma.fence`: execute `wgmma.fence.sync.aligned` \
                 before the first `wgmma`"
            ),
            FaultKind::WgmmaWithoutFence { reg: Some(reg) } => write!(
                f,
                "{reg}, which this `wgmma` uses (as an accumulator, or A's register), was accessed by another \
                 instruction since the warp's last `wgmma.fence` (an accumulator read or written, A's register \
                 written): put a `wgmma.fence.sync.aligned` between that access and this `wgmma`"
            ),
            FaultKind::WgmmaRegisterInFlight { reg, wgmma_line } => write!(
                f,
                "register {reg} is an accumulator of the `wgmma.mma_async` at line {wgmma_line}, which is still \
                 in flight: commit its group (`wgmma.commit_group`) and retire it (`wgmma.wait_group`) before \
                 touching the register"
            ),
            FaultKind::WgmmaOperandRegisterWritten { reg, wgmma_line } => write!(
                f,
                "register {reg} holds part of A for the `wgmma.mma_async` at line {wgmma_line}, which is still in \
                 flight: it may read the old or the new value; retire it (`wgmma.commit_group`, \
                 `wgmma.wait_group`) before writing the register"
            ),
            FaultKind::WgmmaRegisterNotTf32 { thread, reg, row, k, bits } => write!(
                f,
                "`wgmma.mma_async` with A from registers: thread {thread}'s {reg}, A({row}, {k}), 0x{bits:08x} is \
                 not a TF32 value (its 13 low bits are set): round it with `cvt.rna.tf32.f32` first"
            ),
            FaultKind::WgmmaUnsupportedDescriptor { operand, major, bits } => {
                let desc = SmemDesc::decode(*bits);
                write!(f, "`wgmma.mma_async`'s {operand} descriptor {bits:#x} ")?;
                let swizzle = match desc.swizzle {
                    DescSwizzle::None | DescSwizzle::B128 => None,
                    DescSwizzle::B64 => Some(64),
                    DescSwizzle::B32 => Some(32),
                };
                if *major == Major::Mn && desc.swizzle == DescSwizzle::None {
                    write!(
                        f,
                        "of an MN-major operand (imm-trans 1) has no swizzle: the emulator models MN-major \
                         16-bit operands with the 128-byte swizzle (bits 62-63 = 1) only, as gemmforge emits them"
                    )
                } else if let Some(bytes) = swizzle {
                    write!(
                        f,
                        "asks for the {bytes}-byte swizzle, which gemmforge does not emit and the emulator does not \
                         model: use the non-swizzled layout (bits 62-63 zero) or the 128-byte swizzle (1)"
                    )
                } else if desc.base_offset != 0 {
                    write!(
                        f,
                        "has base offset {}, which gemmforge does not emit and the emulator does not model: align \
                         a swizzled operand's 8-row atoms to 1024 bytes, base offset 0",
                        desc.base_offset
                    )
                } else {
                    write!(
                        f,
                        "sets reserved bits {:#x}: encode start, LBO and SBO as `(x & 0x3FFFF) >> 4` in their \
                         14-bit fields (`SmemDesc::encode`; an address added unshifted overflows its field)",
                        bits ^ desc.encode()
                    )
                }
            }
            FaultKind::WgmmaOperandOutOfBounds { operand, row, k, bytes, addr, near } => {
                let piece = if *bytes == 128 { "core matrix" } else { "chunk" };
                write!(
                    f,
                    "`wgmma.mma_async`'s {operand} operand: the {piece} starting at {operand}({row}, {k}) \
                     ({bytes} bytes at {addr:#x}) is outside the declared shared arrays"
                )?;
                if let Some(r) = near {
                    write!(f, " ({r})")?;
                }
                write!(f, ": check the descriptor's start address, LBO and SBO")
            }
            FaultKind::MissingProxyFence { operand, addr, region, writer, write_line } => write!(
                f,
                "`wgmma.mma_async` reads its {operand} operand at {addr:#x} ({region}), which thread {writer} wrote \
                 at line {write_line} and did not follow with `fence.proxy.async.shared::cta`: the async proxy \
                 `wgmma` reads through may not see the write; fence after writing (before the `bar.sync`)"
            ),
            FaultKind::WgmmaOperandNotTf32 { operand, row, k, addr, bits, wgmma_line } => write!(
                f,
                "the `wgmma.mma_async` at line {wgmma_line} reads {operand}({row}, {k}) at {addr:#x}: \
                 0x{bits:08x} is not a TF32 value (its 13 low bits are set): round it with `cvt.rna.tf32.f32` \
                 before storing it to shared memory"
            ),
            FaultKind::WgmmaOperandOverwritten { addr, region, wgmma_thread, wgmma_line } => write!(
                f,
                "shared write at {addr:#x} ({region}) to an operand the `wgmma.mma_async` at line {wgmma_line} of \
                 thread {wgmma_thread}'s warp is still reading: it may read the old or the new value; write only \
                 after that warp's `wgmma.wait_group` retires it (and a `bar.sync` for other warps)"
            ),
            FaultKind::WgmmaPendingAtExit { wgmmas, uncommitted, wgmma_line } => {
                write!(
                    f,
                    "thread exits with {wgmmas} `wgmma.mma_async` not retired (the oldest at line {wgmma_line})"
                )?;
                if *uncommitted > 0 {
                    write!(f, ", {uncommitted} of them never committed")?;
                }
                write!(
                    f,
                    ": their accumulators never land; commit them (`wgmma.commit_group`) and wait \
                     (`wgmma.wait_group 0`) before exiting"
                )
            }
            FaultKind::Tma(t) => write!(f, "{t}"),
            FaultKind::DivisionByZero => write!(f, "integer division by zero"),
            FaultKind::StepLimit { steps } => {
                write!(f, "a warp ran more than {steps} instructions (an endless loop?)")
            }
        }
    }
}
