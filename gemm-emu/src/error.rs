//! What can go wrong: the PTX cannot be read or run, the launch does not fit
//! the kernel, or the kernel does something a GPU would not report (a
//! [`Fault`]).

use std::fmt;

use crate::parse::ParseError;

mod display;
mod tma;

pub use tma::TmaFault;

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
    /// A read-modify-write atomic (`atom`): it reads and writes the word,
    /// but never races with another atomic.
    Atomic,
}

impl AccessKind {
    /// "a read", "a write", "an atomic".
    fn with_article(self) -> String {
        let article = if self == AccessKind::Atomic { "an" } else { "a" };
        format!("{article} {self}")
    }
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
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
    /// Two threads of one block touch the same bytes, at least one of them
    /// writing, with no barrier ordering the two accesses (`bar.sync` of the
    /// whole block, or named barriers their warps meet at in that order).
    Race {
        /// Shared or global.
        space: MemSpace,
        /// First byte both touch (the faulting access's 4-byte word).
        addr: u64,
        /// Where it is.
        region: Region,
        /// What this thread does.
        access: AccessKind,
        /// The other thread, in the same block; `u32::MAX` when the other
        /// access is atomics of several threads.
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
        /// Whether the kernel has atomics, so that a release and an acquire
        /// (`fence.acq_rel.gpu` then `atom` in one block, a later `atom` on
        /// the same word then `fence.acq_rel.gpu` in the other) could have
        /// ordered the two accesses, and none did.
        unordered: bool,
    },
    /// A `bra.uni` taken by some threads of a warp and not by others.
    DivergentUniformBranch {
        /// Threads (linear index in the block) taking it.
        taken: Vec<u32>,
        /// Threads not taking it.
        not_taken: Vec<u32>,
    },
    /// A `bar.sync` under a guard that holds for some threads of the warp
    /// and not for others, or a `bar.arrive` by a warp not converged (the
    /// warp arrives as a whole).
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
        /// For one barrier with a thread count: its number, the threads
        /// arrived at it and the count it waits for.
        counted: Option<(u32, u32, u32)>,
    },
    /// A warp arrives at a barrier a second time before the barrier
    /// completed: the count takes it for another warp, so the barrier
    /// would complete without one of the warps it waits for (typically a
    /// producer that ran ahead of a missing wait).
    BarrierArrivedTwice {
        /// The barrier's number.
        barrier: u32,
    },
    /// Every thread of the block has exited with a barrier's generation
    /// under way: arrivals (`bar.arrive`) that no `bar.sync` completes,
    /// which the hardware's barrier would still hold — the kernel's
    /// arrivals and waits do not pair up (the fault is at the last
    /// arrival).
    BarrierUnfinished {
        /// The barrier's number.
        barrier: u32,
        /// Threads arrived.
        arrived: u32,
        /// Threads its count waits for.
        expected: u32,
    },
    /// Two warps arrived at one barrier with different thread counts (or
    /// one with a count and one without): the hardware's behaviour is
    /// undefined.
    BarrierCountMismatch {
        /// The barrier's number.
        barrier: u32,
        /// This arrival's count (`None`: every thread of the block).
        threads: Option<u32>,
        /// The count of the first arrival of the barrier's generation.
        expected: Option<u32>,
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
    /// `setmaxnreg` executed by fewer than all 32 lanes of a warp
    /// (`.sync.aligned`).
    SetMaxNRegNotConverged {
        /// Threads (linear index in the block) executing it.
        active: Vec<u32>,
    },
    /// `setmaxnreg.inc` to fewer registers than the warp has, or `.dec` to
    /// more.
    SetMaxNRegWrongWay {
        /// `.inc` (else `.dec`).
        inc: bool,
        /// The count asked for.
        count: u32,
        /// The warp's registers a thread before it.
        current: u32,
    },
    /// Warps wait at `setmaxnreg.inc` for registers the block's pool will
    /// never hold: no warp left can release them (`setmaxnreg.dec`).
    SetMaxNRegDeadlock {
        /// Threads waiting.
        waiting: u32,
        /// Registers the waiting warp asks for (per warp, all its lanes).
        requested: u32,
        /// Registers in the pool.
        available: u32,
    },
    /// The warps of a warpgroup ended with different register counts: the
    /// same `setmaxnreg` must be executed by every warp of a warpgroup.
    SetMaxNRegWarpgroupDiverged {
        /// The warpgroup.
        warpgroup: u32,
        /// Each of its warps' registers a thread.
        counts: Vec<u32>,
    },
    /// A `wgmma` instruction (`.sync.aligned`: `wgmma.mma_async`,
    /// `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`) executed by
    /// fewer than all 32 lanes of a warp (diverged or guarded off).
    WgmmaNotConverged {
        /// Threads (linear index in the block) executing it.
        active: Vec<u32>,
    },
    /// A `wgmma` instruction in a block whose thread count is not a
    /// multiple of 128: its last warpgroup is incomplete.
    WgmmaPartialWarpgroup {
        /// Threads in the block.
        threads: u32,
    },
    /// A `wgmma.mma_async` operand that must be the same in every thread
    /// of the warp (a descriptor, `scale-d`) is not.
    WgmmaNotUniform {
        /// `"A's descriptor"`, `"B's descriptor"` or `"scale-d"`.
        operand: &'static str,
        /// A thread whose value differs from its warp's first thread's.
        thread: u32,
        /// Its value.
        value: u64,
        /// The first thread's.
        first: u64,
    },
    /// The warps of a warpgroup do not execute the same `wgmma`
    /// instructions, or give one `wgmma.mma_async` different descriptors
    /// (`.aligned`: all four must execute each with the same descriptors).
    WgmmaWarpgroupDiverged {
        /// A thread of the warp that differs.
        other_thread: u32,
        /// How.
        mismatch: WarpgroupMismatch,
    },
    /// A `wgmma.mma_async` without the `wgmma.fence` the PTX ISA requires:
    /// before the warp's first `wgmma`, and between any other instruction's
    /// access of an accumulator register (read or write) or write of an A
    /// fragment register and a `wgmma` using it.
    WgmmaWithoutFence {
        /// The register (an accumulator, or one A comes from) accessed
        /// since the warp's last `wgmma.fence`; `None`: the warp has
        /// executed no `wgmma.fence` at all.
        reg: Option<String>,
    },
    /// An instruction reads or writes an accumulator of a `wgmma.mma_async`
    /// still in flight (not yet retired by a `wgmma.wait_group`), or a
    /// `wgmma.mma_async` of another shape or accumulator list has it in D.
    WgmmaRegisterInFlight {
        /// The register, with `%`.
        reg: String,
        /// The PTX line of the `wgmma.mma_async` that has it in flight.
        wgmma_line: u32,
    },
    /// An instruction writes a register a `wgmma.mma_async` still in
    /// flight takes A from: the ISA forbids modifying it until the `wgmma`
    /// completes (it may read the old or the new value).
    WgmmaOperandRegisterWritten {
        /// The register, with `%`.
        reg: String,
        /// The PTX line of the `wgmma.mma_async` that reads it.
        wgmma_line: u32,
    },
    /// A `wgmma.mma_async` with A from registers, issued while a lane's
    /// register holds a value that is not TF32 (its 13 low bits are not
    /// zero): it was not rounded with `cvt.rna.tf32.f32`. The hardware
    /// would drop the bits silently.
    WgmmaRegisterNotTf32 {
        /// The thread (linear index in the block) holding it.
        thread: u32,
        /// The register, with `%`.
        reg: String,
        /// The element of the `64 × 8` A it holds: row.
        row: u32,
        /// Its column along K.
        k: u32,
        /// Its bits.
        bits: u32,
    },
    /// A `wgmma.mma_async` descriptor the emulator does not model (nor
    /// gemmforge emits): the 64- or 32-byte swizzle, a base offset, an
    /// MN-major operand without the 128-byte swizzle, or reserved bits set.
    WgmmaUnsupportedDescriptor {
        /// `'A'` or `'B'`.
        operand: char,
        /// How the instruction says the operand lies (`imm-trans`).
        major: gemm_codegen::ptx::Major,
        /// The descriptor.
        bits: u64,
    },
    /// A contiguous piece of a `wgmma.mma_async` operand (a core matrix of
    /// 8 rows of 16 bytes, or a 16-byte chunk of a swizzled layout) is not
    /// wholly inside one declared shared array.
    WgmmaOperandOutOfBounds {
        /// `'A'` or `'B'`.
        operand: char,
        /// The row (of A's M or B's N) of its first element.
        row: u32,
        /// The column along K of its first element.
        k: u32,
        /// Its bytes: 128 (a core matrix) or 16 (a chunk).
        bytes: u32,
        /// Its first byte (a shared-window address).
        addr: u64,
        /// The array the address points into or past, if any.
        near: Option<Region>,
    },
    /// A `wgmma.mma_async` reads shared memory whose latest write by a
    /// thread (`st.shared`, or a `cp.async` landing) that thread did not
    /// follow with `fence.proxy.async` before the `wgmma` was issued: the
    /// async proxy `wgmma` reads through may not see the write.
    MissingProxyFence {
        /// `'A'` or `'B'`.
        operand: char,
        /// The word's address.
        addr: u64,
        /// Where it is.
        region: Region,
        /// The writing thread.
        writer: u32,
        /// The PTX line of its write (the `cp.async`'s, for a copy).
        write_line: u32,
    },
    /// A `wgmma.mma_async` operand element that is not a TF32 value (its
    /// 13 low bits are not zero): it was not rounded with
    /// `cvt.rna.tf32.f32` before being stored. The hardware would drop the
    /// bits silently.
    WgmmaOperandNotTf32 {
        /// `'A'` or `'B'`.
        operand: char,
        /// Its row (of A's M or B's N).
        row: u32,
        /// Its column along K.
        k: u32,
        /// Its address.
        addr: u64,
        /// Its bits.
        bits: u32,
        /// The PTX line of the `wgmma.mma_async`.
        wgmma_line: u32,
    },
    /// A shared write (`st.shared`, `cp.async`) to an operand of a
    /// `wgmma.mma_async` still in flight: the `wgmma` may read the old or
    /// the new value.
    WgmmaOperandOverwritten {
        /// The word's address.
        addr: u64,
        /// Where it is.
        region: Region,
        /// The first thread of the warp whose `wgmma` reads it.
        wgmma_thread: u32,
        /// The PTX line of that `wgmma.mma_async`.
        wgmma_line: u32,
    },
    /// A fault of the TMA family: tensor maps, `mbarrier`s, bulk copies.
    Tma(TmaFault),
    /// A thread exits with `wgmma.mma_async`s not retired by a
    /// `wgmma.wait_group` (committed or not): their accumulators are never
    /// written back.
    WgmmaPendingAtExit {
        /// Its warp's `wgmma.mma_async`s not retired.
        wgmmas: u32,
        /// How many of them were never committed (`wgmma.commit_group`).
        uncommitted: u32,
        /// The PTX line of the oldest one.
        wgmma_line: u32,
    },
    /// An integer division or remainder by zero.
    DivisionByZero,
    /// A warp ran more instructions than [`crate::Options::max_warp_steps`].
    StepLimit {
        /// The limit.
        steps: u64,
    },
}

/// How the warps of a warpgroup differ in their `wgmma` instructions
/// ([`FaultKind::WgmmaWarpgroupDiverged`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpgroupMismatch {
    /// The other warp executed the instruction at this PTX line where this
    /// warp executes this one.
    Instruction {
        /// The other warp's instruction.
        other_line: u32,
    },
    /// The other warp gave the same `wgmma.mma_async` these descriptors.
    Descriptors {
        /// Its A descriptor.
        a: u64,
        /// Its B descriptor.
        b: u64,
    },
    /// This warp finished without executing this instruction, which the
    /// other warp executed.
    Missing,
}
