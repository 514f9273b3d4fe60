//! What can go wrong: the PTX cannot be read or run, the launch does not fit
//! the kernel, or the kernel does something a GPU would not report (a
//! [`Fault`]).

use std::fmt;

use crate::parse::ParseError;

/// Why a program could not be built or run.
#[derive(Clone, Debug, PartialEq)]
pub enum EmuError {
    /// The PTX text could not be read.
    Parse(ParseError),
    /// The module has no `.entry` of that name.
    NoEntry {
        /// The name asked for.
        name: String,
        /// The entries it has.
        available: Vec<String>,
    },
    /// The kernel uses a form the emulator does not execute.
    Unsupported {
        /// PTX line.
        line: u32,
        /// What, and why.
        message: String,
    },
    /// The launch does not match the kernel (block shape, parameters,
    /// buffers), or the element type does not match a GEMM kernel.
    Launch(String),
    /// The kernel faulted while running.
    Fault(Box<Fault>),
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmuError::Parse(e) => write!(f, "cannot read the PTX: {e}"),
            EmuError::NoEntry { name, available } => {
                write!(f, "no entry `{name}` in the module (it has: {})", available.join(", "))
            }
            EmuError::Unsupported { line, message } => write!(f, "line {line}: {message}"),
            EmuError::Launch(message) => write!(f, "invalid launch: {message}"),
            EmuError::Fault(fault) => fault.fmt(f),
        }
    }
}

impl std::error::Error for EmuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EmuError::Parse(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ParseError> for EmuError {
    fn from(e: ParseError) -> EmuError {
        EmuError::Parse(e)
    }
}

impl From<Fault> for EmuError {
    fn from(f: Fault) -> EmuError {
        EmuError::Fault(Box::new(f))
    }
}

impl EmuError {
    /// The fault, if the kernel faulted.
    pub fn fault(&self) -> Option<&Fault> {
        match self {
            EmuError::Fault(f) => Some(f),
            _ => None,
        }
    }
}

/// A kernel misbehaving: where, and what.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The block, `%ctaid`.
    pub block: (u32, u32, u32),
    /// The thread's linear index in its block (`%tid.x` for 1-D blocks).
    pub thread: u32,
    /// The PTX line of the instruction.
    pub line: u32,
    /// The instruction, as the writer prints it.
    pub instr: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (x, y, z) = self.block;
        write!(
            f,
            "block ({x}, {y}, {z}) thread {}, line {} `{}`: {}",
            self.thread, self.line, self.instr, self.kind
        )
    }
}

impl std::error::Error for Fault {}

/// A state space a fault is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    /// `.global`.
    Global,
    /// `.shared`.
    Shared,
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
        })
    }
}

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
        })
    }
}

/// Where an address lies, for messages: a buffer or shared array and the
/// offset into it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The buffer's or array's name.
    pub name: String,
    /// Byte offset of the address from its start (negative: before it).
    pub offset: i64,
    /// Its size in bytes.
    pub len: u64,
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {} of `{}` ({} bytes)", self.offset, self.name, self.len)
    }
}

/// What a kernel did wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    /// A global access not wholly inside one of the buffers passed in.
    GlobalOutOfBounds {
        /// Read or write.
        access: AccessKind,
        /// First byte.
        addr: u64,
        /// Bytes accessed.
        bytes: u32,
        /// The buffer the address points into or past, if any.
        near: Option<Region>,
    },
    /// A store to a buffer passed in read-only.
    ReadOnlyWrite {
        /// First byte.
        addr: u64,
        /// Where it is.
        region: Region,
    },
    /// A shared access not wholly inside one declared array.
    SharedOutOfBounds {
        /// Read or write.
        access: AccessKind,
        /// First byte (a shared-window address).
        addr: u64,
        /// Bytes accessed.
        bytes: u32,
        /// The array the address points into or past, if any.
        near: Option<Region>,
    },
    /// An access whose address is not a multiple of its size.
    Misaligned {
        /// Its state space.
        space: MemSpace,
        /// Read or write.
        access: AccessKind,
        /// First byte.
        addr: u64,
        /// Bytes accessed (the whole vector).
        bytes: u32,
    },
    /// A shared-memory read of bytes no thread of the block has written.
    SharedUninitialized {
        /// The first such byte.
        addr: u64,
        /// Where it is.
        region: Region,
    },
    /// A register read before this thread ever wrote it.
    UninitializedRegister {
        /// Its name, with `%`.
        reg: String,
    },
    /// Two threads of one block touch the same bytes in the same barrier
    /// interval, at least one of them writing.
    Race {
        /// Shared or global.
        space: MemSpace,
        /// First byte both touch (the faulting access's 4-byte word).
        addr: u64,
        /// Where it is.
        region: Region,
        /// What this thread does.
        access: AccessKind,
        /// The other thread, in the same block.
        other_thread: u32,
        /// What it did.
        other_access: AccessKind,
        /// At which PTX line.
        other_line: u32,
    },
    /// Two blocks touch the same global bytes, at least one writing: blocks
    /// run in no defined order.
    CrossBlockRace {
        /// First byte both touch.
        addr: u64,
        /// Where it is.
        region: Region,
        /// What this thread does.
        access: AccessKind,
        /// The other block, when known (a write after reads by several
        /// blocks names none).
        other_block: Option<(u32, u32, u32)>,
        /// What it did.
        other_access: AccessKind,
    },
    /// A `bra.uni` taken by some threads of a warp and not by others.
    DivergentUniformBranch {
        /// Threads (linear index in the block) taking it.
        taken: Vec<u32>,
        /// Threads not taking it.
        not_taken: Vec<u32>,
    },
    /// A `bar.sync` under a guard that holds for some threads of the warp
    /// and not for others.
    DivergentBarrier,
    /// An `mma.sync` executed by fewer than all 32 lanes of a warp
    /// (diverged, guarded off, exited, or a partial warp): the warp's
    /// fragments are incomplete.
    MmaNotConverged {
        /// Threads (linear index in the block) executing it.
        active: Vec<u32>,
    },
    /// An `mma.sync` on `.tf32` whose A or B operand, in some lane, is not
    /// a TF32 value (its 13 low bits are not zero): it was not rounded with
    /// `cvt.rna.tf32.f32`. The hardware would drop the bits silently.
    MmaOperandNotTf32 {
        /// The thread (linear index in the block) holding it.
        thread: u32,
        /// `'A'` or `'B'`.
        operand: char,
        /// The register's bits.
        bits: u32,
    },
    /// Threads wait at a barrier that can never complete.
    BarrierDeadlock {
        /// Threads waiting.
        waiting: u32,
        /// Threads that have exited.
        exited: u32,
        /// Barrier numbers waited on, when they differ.
        barriers: Vec<u32>,
    },
    /// A shared access (`ld.shared`, `st.shared` or another `cp.async`) to
    /// bytes a `cp.async` is still copying: until the issuing thread's
    /// `cp.async.wait_group` or `cp.async.wait_all` lands them, the GPU may
    /// write them at any moment.
    AsyncCopyInFlight {
        /// What this access does.
        access: AccessKind,
        /// First such byte (its 4-byte word).
        addr: u64,
        /// Where it is.
        region: Region,
        /// The thread whose copy is in flight.
        copy_thread: u32,
        /// The PTX line of its `cp.async`.
        copy_line: u32,
    },
    /// A `cp.async` whose src-size exceeds its cp-size (undefined in PTX).
    AsyncCopySourceSize {
        /// The src-size.
        src_bytes: u32,
        /// The cp-size.
        bytes: u32,
    },
    /// A thread exits with `cp.async` copies it never waited for. The GPU
    /// does not report this, but no thread can then read their bytes
    /// without a race, so the kernel is wrong.
    AsyncCopyNotWaited {
        /// Copies of the thread still in flight.
        copies: u32,
        /// The PTX line of the oldest one's `cp.async`.
        copy_line: u32,
    },
    /// An integer division or remainder by zero.
    DivisionByZero,
    /// A warp ran more instructions than [`crate::Options::max_warp_steps`].
    StepLimit {
        /// The limit.
        steps: u64,
    },
}

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
                write!(
                    f,
                    "{space}-memory race at {addr:#x} ({region}): this {access} and a {other_access} by thread \
                 {other_thread} at line {other_line}, with no barrier between them"
                )
            }
            FaultKind::CrossBlockRace { addr, region, access, other_block, other_access } => {
                let other = match other_block {
                    Some((x, y, z)) => format!("block ({x}, {y}, {z})"),
                    None => "another block".to_owned(),
                };
                write!(
                    f,
                    "global-memory race between blocks at {addr:#x} ({region}): this {access} and a {other_access} \
                     by {other}"
                )
            }
            FaultKind::DivergentUniformBranch { taken, not_taken } => write!(
                f,
                "`bra.uni` diverges: taken by threads [{}], not by [{}]",
                threads(taken),
                threads(not_taken)
            ),
            FaultKind::DivergentBarrier => {
                write!(f, "`bar.sync` under a guard that holds for only some threads of the warp")
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
            FaultKind::BarrierDeadlock { waiting, exited, barriers } => {
                if barriers.len() > 1 {
                    write!(f, "barrier deadlock: {waiting} threads wait at different barriers {barriers:?}")
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
            FaultKind::DivisionByZero => write!(f, "integer division by zero"),
            FaultKind::StepLimit { steps } => {
                write!(f, "a warp ran more than {steps} instructions (an endless loop?)")
            }
        }
    }
}
