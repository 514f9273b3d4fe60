//! A PTX emulator: runs the exact PTX text gemmforge emits on the CPU, with
//! the memory-safety and synchronisation checks a GPU does not give.
//!
//! ```text
//! PTX text ──parse──▶ ptx::Module ──Program::from_module──▶ Program ──run(Launch, buffers)──▶ Stats
//! ```
//!
//! # Model
//!
//! - A [`Program`] is one `.entry`, decoded once into compact operations with
//!   resolved register indices; it can be run any number of times.
//! - A launch runs a grid of blocks; each block's threads (linear index, x
//!   fastest) form warps of 32 lanes that execute in lockstep, a predicate
//!   guard masking lanes. Blocks are independent and run in parallel on
//!   [`Options::workers`] host threads.
//! - Registers hold typed bits per thread; predicates one bit per lane.
//! - `.param` holds the launch's [`ParamValue`]s. `.shared` is per block: the
//!   kernel's arrays laid out in a shared window with unmapped gaps between
//!   them, the dynamic (`.extern`) array, if any, last and
//!   [`Launch::dynamic_shared_bytes`] long. `.global` is the [`Buffer`]s
//!   passed in, buffer `i` at the fake address [`buffer_address`]`(i)`, so
//!   a pointer names its buffer; a
//!   generic address of a buffer is its global address (`cvta.to.global` is
//!   the identity).
//! - `bar.sync id` waits for every thread of the block; `bar.sync id, n`
//!   for the `n / 32` warps that arrive at barrier `id`, `bar.arrive id, n`
//!   (a producer's signal) arriving without waiting. A warp waiting at a
//!   barrier lets the other warps run. Accesses are ordered by the
//!   barriers their warps meet (happens-before with a clock per warp:
//!   `memory/clock.rs`), so producer and consumer warps handing shared
//!   memory to each other through named barriers are checked as exactly as
//!   a kernel of block-wide barriers.
//! - Divergent `bra` splits a warp and reconverges it where the paths meet;
//!   a `bra.uni` that diverges is a fault, being a broken promise.
//! - `cp.async` follows the PTX ISA: each thread's copies form groups
//!   (`cp.async.commit_group`), and a copy's bytes land in shared memory when
//!   its thread's `cp.async.wait_group n` (all but the `n` newest committed
//!   groups) or `cp.async.wait_all` waits for it; until then they are in
//!   flight. The source is checked and read when the copy is issued; with
//!   `src-size` below the copy size only that many bytes are read and the
//!   rest are zeros, so a source address with `src-size = 0` need not lie in
//!   a buffer (it must still be aligned).
//! - `mma.sync` on `.f64` is the warp's: its 32 lanes' fragments of A, B
//!   and C, laid out as the PTX ISA says ([`gemm_codegen::ptx::MmaShape`]),
//!   make one `m × n × k` product, each element of D a chain of FMAs along
//!   K.
//! - `wgmma.mma_async` (`m64nNk8.f32.tf32.tf32`, and the 16-bit
//!   `m64nNk16.f32.f16.f16` and `.f32.bf16.bf16` with their transpose
//!   immediates; A and B in shared memory named by descriptors, K-major or,
//!   16-bit, MN-major) follows the PTX ISA's rules, one warp's part at a
//!   time (its 16 rows of D): it joins the warp's open wgmma-group, its
//!   accumulators are in flight until the `wgmma.wait_group` that retires
//!   the group, and it reads its operands and computes D at that retirement,
//!   as `mma.sync`'s `.tf32` path does (16-bit elements converted to f32
//!   exactly, each product exact, a chain of f32 FMAs along K).
//!   `fence.proxy.async` makes a thread's earlier shared-memory writes
//!   visible to it.
//! - The 16-bit precisions' loads and stores (`ld.global.b16`,
//!   `st.global.b16`, through a 32-bit register: zero-extended, low half
//!   stored) and conversions (`cvt.f32.f16`, exact; `cvt.rn.f16x2.f32` and
//!   `cvt.rn.bf16x2.f32`, round to nearest even) are bit-exact; a 16-bit
//!   store leaves the other half of its word as it is.
//! - `atom.relaxed.gpu.global.inc.u32 d, [a], bound` runs lane by lane, in
//!   lane order, each lane atomically (across the workers too): `d = old =
//!   [a]`, then `[a] = old >= bound ? 0 : old + 1`. `fence.acq_rel.gpu`
//!   changes no value; it orders accesses of different blocks, as the race
//!   checks below describe.
//! - Floating point is IEEE binary32/binary64 with round-to-nearest-even, as
//!   the `.rn` instructions and `fma.rn` (one rounding, `mul_add`) specify;
//!   subnormals are kept (no `.ftz` in the IR).
//!
//! # Checks
//!
//! Each is a [`Fault`] naming the block, the thread, the PTX line, the
//! instruction and the address:
//! - a global access not wholly inside one buffer (a vector straddling a
//!   buffer's end included), or not aligned to its size; a store to a
//!   [`Buffer::read_only`] buffer;
//! - a shared access not wholly inside one declared array (the dynamic one
//!   as long as the launch made it), or misaligned;
//! - a `cp.async` whose source (the bytes it reads) or destination (all of
//!   them) is outside a buffer or array, or either address not aligned to
//!   its copy size, or whose `src-size` exceeds its copy size;
//! - a shared access (`ld.shared`, `st.shared` or another `cp.async`), by any
//!   thread, to bytes a `cp.async` has in flight
//!   ([`FaultKind::AsyncCopyInFlight`], naming the copy's line);
//! - a thread exiting with `cp.async` copies it never waited for
//!   ([`FaultKind::AsyncCopyNotWaited`]): the GPU reports nothing, but no
//!   thread can read those bytes without a race, so the kernel is wrong. A
//!   `bar.sync` with copies in flight is normal and not reported;
//! - a shared read of bytes no thread of the block wrote;
//! - a read of a register (or predicate, guards included) the thread never
//!   wrote;
//! - a race: two threads of a block touching the same shared or global bytes
//!   with no barrier ordering the two, at least one writing (two atomics never
//!   race: [`AccessKind::Atomic`]); and two blocks touching the same global
//!   bytes, at least one writing, unless release and acquire order them
//!   (next item). Exact, not sampled (see the `memory` module); turned off
//!   by [`Options::check_races`] for speed. A `cp.async` reads its source
//!   when issued and writes its destination both when issued and when it
//!   lands (as its thread's write at its wait): the GPU may write at any
//!   moment in between. So another thread touching the bytes after the wait
//!   but before a `bar.sync`, or earlier in the barrier interval the copy
//!   was issued in (reading a stage that is being refilled), races;
//! - across blocks, atomics never race with atomics, and an access `a` of
//!   block X is ordered before an access `b` of block Y (so that they do not
//!   race, [`FaultKind::CrossBlockRace`]) when
//!   - X *released* `a`: a thread `T` of X executes `fence.acq_rel.gpu`,
//!     then an `atom` (`T`'s next after the fence), and `a` is `T`'s before
//!     the fence or any thread's in a barrier interval of X that ended
//!     before the fence's;
//!   - and Y *acquired* that release: a thread `U` of Y executes an `atom`
//!     on the same word later in its modification order (any later atomic
//!     on it), then `fence.acq_rel.gpu`, and `b` is `U`'s after that fence
//!     or any thread's in a barrier interval of Y after the fence's;
//!   - or a chain of such releases and acquires leads from `a` to `b`: a
//!     release carries all its block had acquired before it.
//!
//!   A write must be ordered after every earlier access of another block, a
//!   read after every earlier write, an atomic after every earlier plain
//!   access, a plain access after every earlier atomic; a word read by
//!   several blocks not ordered one after another races with any later
//!   write of another block (conservatively);
//! - an `mma.sync` that some lanes of the warp do not execute with the
//!   others (diverged, guarded off, exited, a partial warp):
//!   [`FaultKind::MmaNotConverged`];
//! - for `wgmma` (see `exec/wgmma.rs` and `exec/async_proxy.rs`): an
//!   instruction of the family not executed by the whole warp, unguarded,
//!   or in a block that is not whole warpgroups; descriptors or `scale-d`
//!   differing between the warp's lanes, or the warpgroup's warps executing
//!   different `wgmma`s or descriptors; a `wgmma.mma_async` without the
//!   `wgmma.fence` the ISA requires ([`FaultKind::WgmmaWithoutFence`]); an
//!   access to an accumulator in flight
//!   ([`FaultKind::WgmmaRegisterInFlight`]) or write of an A register in
//!   flight ([`FaultKind::WgmmaOperandRegisterWritten`]); a descriptor of
//!   a layout not modelled ([`FaultKind::WgmmaUnsupportedDescriptor`]: the
//!   64- or 32-byte swizzle, a base offset, an MN-major operand without
//!   the 128-byte swizzle), an operand outside the shared arrays, a TF32
//!   operand value (in shared memory or an A register) that is not TF32,
//!   a shared write a `fence.proxy.async` of its thread did not make
//!   visible ([`FaultKind::MissingProxyFence`]), a shared write to an
//!   operand of a `wgmma` in flight
//!   ([`FaultKind::WgmmaOperandOverwritten`]), and a thread exiting with
//!   `wgmma`s not retired ([`FaultKind::WgmmaPendingAtExit`]);
//! - for `setmaxnreg` (see `exec/registers.rs`): warps waiting at `.inc`
//!   for registers the block's pool will never hold
//!   ([`FaultKind::SetMaxNRegDeadlock`]), a limit moved the wrong way, a
//!   warp not converged, the warps of a warpgroup ending at different
//!   limits;
//! - a barrier that cannot complete (threads wait while others have exited,
//!   wait at different barriers, or wait for a count no other warp makes up),
//!   arrivals at one barrier with different thread counts, a warp arriving
//!   twice before the barrier completed, a `bar.sync` under a divergent
//!   guard or a `bar.arrive` by a warp not converged, a
//!   divergent `bra.uni`, an integer division by zero, and a warp exceeding
//!   [`Options::max_warp_steps`].
//!
//! The first fault stops the launch (the one of the lowest block index among
//! the blocks that faulted, so runs are repeatable except for races between
//! blocks, which either of the two may report). The buffers are copied back
//! either way, holding whatever the kernel wrote before it stopped.
//!
//! [`Gemm`] runs a GEMM kernel of the stencil on host slices through its
//! ABI; it checks nothing a BLAS would (that is `gemm-host`'s job), only what
//! it needs to run.
//!
//! # Example
//!
//! ```
//! use gemm_emu::{Buffer, FaultKind, Launch, ParamValue, Program};
//!
//! let ptx = "
//! .version 6.0
//! .target sm_70
//! .address_size 64
//! .visible .entry iota(.param .u64 out)
//! {
//!     .reg .u64 %p, %off;
//!     .reg .u32 %t;
//!     ld.param.u64 %p, [out];
//!     cvta.to.global.u64 %p, %p;
//!     mov.u32 %t, %tid.x;
//!     mul.wide.u32 %off, %t, 4;
//!     add.u64 %p, %p, %off;
//!     st.global.u32 [%p], %t;
//!     ret;
//! }";
//! let program = Program::from_ptx(ptx, Some("iota"))?;
//! let launch = Launch { grid: (1, 1, 1), block: (64, 1, 1), params: vec![ParamValue::ptr(0)], ..Launch::default() };
//!
//! let mut out = [Buffer::zeroed("out", 256)];
//! let stats = program.run(&launch, &mut out)?;
//! assert_eq!(&out[0].bytes[4..8], &1u32.to_le_bytes());
//! assert_eq!(stats.thread_instructions, 64 * 7);
//!
//! // One element short: thread 63 writes past the end, and the fault says so.
//! let mut short = [Buffer::zeroed("out", 252)];
//! let fault = program.run(&launch, &mut short).unwrap_err();
//! let fault = fault.fault().unwrap();
//! assert_eq!((fault.thread, fault.line), (63, 14));
//! assert!(matches!(fault.kind, FaultKind::GlobalOutOfBounds { .. }));
//! # Ok::<(), gemm_emu::EmuError>(())
//! ```
//!
//! # Limitations
//!
//! - Only the PTX the IR expresses: no atomics but `atom.inc` (relaxed, GPU
//!   scope, global, `.u32`), no fences but `fence.acq_rel.gpu` and
//!   `fence.proxy.async`, no shuffles, votes, local or generic memory,
//!   `%tid.y`/`%tid.z`; the reader names anything else.
//! - Arithmetic is bit-exact except the bits of a NaN an operation creates,
//!   which are the host's (the GPU's canonical NaN differs); NaN inputs
//!   propagate as on the GPU, and `min`/`max`/`setp` treat NaN as PTX does.
//! - Races and shared reads of unwritten bytes are found only with
//!   [`Options::check_races`] (the default). A cross-block race found by a
//!   write after several blocks read the same bytes names none of them.
//! - Barrier intervals are numbered in 32 bits per worker: a launch of more
//!   than 2³² of them would alias old intervals with new ones. A kernel
//!   with atomics may not use barriers with a thread count (refused as
//!   [`EmuError::Unsupported`]): the order of atomics below is modelled for
//!   block-wide barriers. Of three or more reads of one word not ordered
//!   with one another, a write must follow the latest of them in every
//!   warp's knowledge, not only in their own warps' (a race may be reported
//!   where named barriers order them, never the reverse). In a kernel
//!   with atomics, a block's accesses after its first 2²¹ barriers and
//!   fences together are never ordered before another block's (a race may
//!   be reported where release and acquire order them, never the reverse).
//! - Release and acquire are modelled per thread and barrier interval, as
//!   the checks above say: an order a fence's thread gets from other threads
//!   of its block without `bar.sync` is not seen, and the reads of one word
//!   by several threads of a block in one barrier interval are ordered
//!   before another block's access only once the whole interval is. Both
//!   can report a race where there is none, never the reverse. Costs grow
//!   with what is known: an acquire copies, per block, what its word
//!   released, so a counter shared by all the blocks of a large grid, with
//!   fences, costs time quadratic in the grid.
//! - A `cp.async` reads its source when issued: a write to those global
//!   bytes between the copy and its wait, by the same thread, is not seen
//!   (on the GPU the result is undefined); by another thread it is a race
//!   only if it falls in the barrier interval of the read. The race
//!   detector records a partial-word `src-size` read as a read of the whole
//!   word.
//! - `wgmma` is modelled per warp: each warp's part of a warpgroup's
//!   `wgmma` retires at that warp's own `wgmma.wait_group`. On the GPU, the
//!   operation is complete for the whole warpgroup once any of its warps has
//!   waited for it; a kernel relying on that (overwriting another warp's
//!   operands after its own wait, without a `bar.sync`) is refused. The
//!   layouts modelled are those gemmforge emits ([`gemm_codegen::ptx::SmemDesc::at`]):
//!   K-major without swizzle or with the 128-byte one, MN-major (16-bit
//!   inputs) with the 128-byte one; A from registers is TF32's only.
//! - 16-bit accesses are modelled in global memory only (a `.b16` shared
//!   access is [`EmuError::Unsupported`]); a kernel with them keeps its
//!   global race records per half-word, twice the memory.
//! - Shared memory per block (static and dynamic) is capped at 227 KiB, the
//!   most any GPU gives (sm_90, opted in); the emulator does not know the
//!   target, so a launch a smaller GPU would refuse may still run.

mod bespoke;
mod error;
mod exec;
mod gemm;
mod memory;
mod parse;
mod program;
mod tensor_map;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub use bespoke::Bespoke;
pub use error::{AccessKind, EmuError, Fault, FaultKind, MemSpace, Region, TmaFault, WarpgroupMismatch};
pub use gemm::{Gemm, GemmArgs};
pub use memory::buffer_address;
pub use parse::{ParseError, SourceMap, parse, parse_with_source_map};
pub use program::Program;

use gemm_codegen::ptx::{ParamType, Type};

/// A kernel argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue {
    /// For a `.u32`, `.s32` or `.b32` parameter.
    U32(u32),
    /// For a `.u32`, `.s32` or `.b32` parameter.
    S32(i32),
    /// For a `.u64`, `.s64` or `.b64` parameter.
    U64(u64),
    /// For a `.u64`, `.s64` or `.b64` parameter.
    S64(i64),
    /// For an `.f32` parameter.
    F32(f32),
    /// For an `.f64` parameter.
    F64(f64),
    /// The address of byte `offset` of buffer `buffer`, for a 64-bit integer
    /// parameter.
    Ptr {
        /// Index into the launch's buffers.
        buffer: usize,
        /// Bytes from the buffer's start.
        offset: u64,
    },
    /// A tensor map (for a `.align 64 .b8 name[128]` parameter), its base in
    /// a buffer of the launch, by index.
    TensorMap(gemm_codegen::abi::TensorMap<usize>),
}

impl ParamValue {
    /// The address of the start of buffer `buffer`.
    pub const fn ptr(buffer: usize) -> ParamValue {
        ParamValue::Ptr { buffer, offset: 0 }
    }
}

/// A global-memory buffer: its bytes, and a name for diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Named in faults.
    pub name: String,
    /// Its contents, read and written by the kernel.
    pub bytes: Vec<u8>,
    /// Whether a store to it is a fault (an input the kernel may read
    /// through the non-coherent `.nc` path must not change while it runs).
    pub read_only: bool,
}

impl Buffer {
    /// A writable buffer holding `bytes`.
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Buffer {
        Buffer { name: name.into(), bytes, read_only: false }
    }

    /// A buffer holding `bytes` that the kernel must not write.
    pub fn read_only(name: impl Into<String>, bytes: Vec<u8>) -> Buffer {
        Buffer { name: name.into(), bytes, read_only: true }
    }

    /// A buffer of `len` zero bytes.
    pub fn zeroed(name: impl Into<String>, len: usize) -> Buffer {
        Buffer::new(name, vec![0; len])
    }
}

/// How to run a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Host threads running blocks; 0 means one per available core.
    pub workers: usize,
    /// Whether to detect races (within and across blocks) and shared reads
    /// of unwritten bytes. The other checks are always on.
    pub check_races: bool,
    /// The most instructions one warp may execute before the launch faults
    /// (a guard against endless loops).
    pub max_warp_steps: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options { workers: 0, check_races: true, max_warp_steps: 1 << 32 }
    }
}

/// A launch: grid and block shape, arguments, options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Launch {
    /// Blocks along x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block along x, y, z.
    pub block: (u32, u32, u32),
    /// One value per kernel parameter, in order.
    pub params: Vec<ParamValue>,
    /// Bytes of dynamic shared memory per block (CUDA's `sharedMemBytes`):
    /// the size of the kernel's `.extern .shared` array, if it has one.
    pub dynamic_shared_bytes: u32,
    /// How to run it.
    pub options: Options,
}

/// What a launch executed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions executed, counted once per thread of the warp stepping
    /// through it (guarded-off threads included, as a GPU issues them).
    pub thread_instructions: u64,
    /// Instructions executed, counted once per warp (or part of a diverged
    /// warp).
    pub warp_instructions: u64,
    /// Blocks run.
    pub blocks: u64,
    /// Barriers completed, summed over blocks.
    pub barriers: u64,
    /// Bytes `cp.async` copied into shared memory (its cp-size, zero fill
    /// included), summed over threads.
    pub async_copy_bytes: u64,
    /// Warps' parts of `wgmma.mma_async` retired: four per warpgroup
    /// `wgmma`.
    pub wgmmas: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.thread_instructions += o.thread_instructions;
        self.warp_instructions += o.warp_instructions;
        self.blocks += o.blocks;
        self.barriers += o.barriers;
        self.async_copy_bytes += o.async_copy_bytes;
        self.wgmmas += o.wgmmas;
    }
}

/// The most threads a block may have.
const MAX_BLOCK_THREADS: u32 = 1024;

/// The most shared memory, static and dynamic, any GPU gives one block
/// (sm_90's 227 KiB, after the host opts in above 48 KiB).
const MAX_BLOCK_SHARED_BYTES: u64 = 227 * 1024;

impl Program {
    /// Runs the kernel over `launch.grid` on `buffers`, which the kernel
    /// reads and writes in place.
    pub fn run(&self, launch: &Launch, buffers: &mut [Buffer]) -> Result<Stats, EmuError> {
        let bad = |m: String| Err(EmuError::Launch(m));
        let (gx, gy, gz) = launch.grid;
        let (bx, by, bz) = launch.block;
        if gx == 0 || gy == 0 || gz == 0 {
            return bad(format!("grid ({gx}, {gy}, {gz}) has no blocks"));
        }
        let threads = u64::from(bx) * u64::from(by) * u64::from(bz);
        if threads == 0 || threads > u64::from(MAX_BLOCK_THREADS) {
            return bad(format!("block ({bx}, {by}, {bz}) must have 1 to {MAX_BLOCK_THREADS} threads"));
        }
        if let Some(req) = self.reqntid
            && req != launch.block
        {
            return bad(format!("block {:?} differs from the kernel's `.reqntid` {req:?}", launch.block));
        }
        let blocks = u64::from(gx) * u64::from(gy) * u64::from(gz);
        if blocks > u64::from(u32::MAX - 2) {
            return bad(format!("grid ({gx}, {gy}, {gz}) has more blocks than the emulator can number"));
        }
        let params = self.param_image(&launch.params, buffers.len())?;
        let shared_bytes = self.static_shared_bytes + u64::from(launch.dynamic_shared_bytes);
        if shared_bytes > MAX_BLOCK_SHARED_BYTES {
            return bad(format!(
                "{} static and {} dynamic shared bytes exceed the {MAX_BLOCK_SHARED_BYTES} bytes a block can have",
                self.static_shared_bytes, launch.dynamic_shared_bytes
            ));
        }
        let (shared, shared_window) = self.shared_layout(launch.dynamic_shared_bytes);

        // The caller's buffers, then the module's read-only global arrays.
        let names = buffers
            .iter()
            .map(|b| (b.name.clone(), b.read_only))
            .chain(self.globals.iter().map(|(name, _)| (name.clone(), true)))
            .collect();
        let mut bytes: Vec<Vec<u8>> = buffers
            .iter_mut()
            .map(|b| std::mem::take(&mut b.bytes))
            .chain(self.globals.iter().map(|(_, data)| data.clone()))
            .collect();
        let global = memory::Global::new(
            &bytes,
            names,
            launch.options.check_races,
            (self.uses_atomics, self.half_global),
        );
        let info = exec::LaunchInfo {
            grid: launch.grid,
            block: launch.block,
            params: &params,
            shared,
            shared_window,
            options: &launch.options,
            user_buffers: buffers.len(),
        };

        let workers = match launch.options.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .min(usize::try_from(blocks).unwrap_or(usize::MAX))
        .max(1);
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let faults: Mutex<Vec<(u64, Fault)>> = Mutex::new(Vec::new());
        let work = || {
            let mut worker = exec::Worker::new(self, &info, &global);
            while !stop.load(Ordering::Relaxed) {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= blocks {
                    break;
                }
                if let Err(f) = worker.run_block(b) {
                    stop.store(true, Ordering::Relaxed);
                    faults.lock().unwrap_or_else(|e| e.into_inner()).push((b, f));
                }
            }
            worker.stats
        };
        let mut stats = Stats::default();
        if workers == 1 {
            stats = work();
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (1..workers).map(|_| s.spawn(work)).collect();
                stats = work();
                for h in handles {
                    stats += h.join().expect("an emulator worker panicked");
                }
            });
        }

        global.write_back(&mut bytes);
        bytes.truncate(buffers.len());
        for (b, v) in buffers.iter_mut().zip(bytes) {
            b.bytes = v;
        }
        let faults = faults.into_inner().unwrap_or_else(|e| e.into_inner());
        match faults.into_iter().min_by_key(|(b, _)| *b) {
            Some((_, f)) => Err(f.into()),
            None => Ok(stats),
        }
    }

    /// The parameters as the bytes `ld.param` reads.
    fn param_image(&self, values: &[ParamValue], buffers: usize) -> Result<Vec<u8>, EmuError> {
        if values.len() != self.params.len() {
            return Err(EmuError::Launch(format!(
                "kernel `{}` takes {} parameters, {} given",
                self.name,
                self.params.len(),
                values.len()
            )));
        }
        let mut image = vec![0u8; self.param_bytes as usize];
        for ((decl, &off), &v) in self.params.iter().zip(&self.param_offsets).zip(values) {
            let check_buffer = |buffer: usize| {
                if buffer >= buffers {
                    return Err(EmuError::Launch(format!(
                        "parameter `{}` points into buffer {buffer}, but {buffers} buffers were given",
                        decl.name
                    )));
                }
                Ok(())
            };
            let ty = match (decl.ty, v) {
                (ParamType::TensorMap, ParamValue::TensorMap(map)) => {
                    check_buffer(map.base)?;
                    let bytes = tensor_map::encode(&map, buffer_address(map.base));
                    image[off as usize..off as usize + bytes.len()].copy_from_slice(&bytes);
                    continue;
                }
                (ParamType::Scalar(ty), v) if !matches!(v, ParamValue::TensorMap(_)) => ty,
                (_, v) => {
                    return Err(EmuError::Launch(format!(
                        "parameter `{}` is {}, but {v:?} was given",
                        decl.name, decl.ty
                    )));
                }
            };
            let int = !ty.is_float();
            let bytes: Vec<u8> = match (v, ty.bits()) {
                (ParamValue::U32(x), 32) if int => x.to_le_bytes().to_vec(),
                (ParamValue::S32(x), 32) if int => x.to_le_bytes().to_vec(),
                (ParamValue::U64(x), 64) if int => x.to_le_bytes().to_vec(),
                (ParamValue::S64(x), 64) if int => x.to_le_bytes().to_vec(),
                (ParamValue::F32(x), _) if ty == Type::F32 => x.to_bits().to_le_bytes().to_vec(),
                (ParamValue::F64(x), _) if ty == Type::F64 => x.to_bits().to_le_bytes().to_vec(),
                (ParamValue::Ptr { buffer, offset }, 64) if int => {
                    check_buffer(buffer)?;
                    buffer_address(buffer).wrapping_add(offset).to_le_bytes().to_vec()
                }
                (v, _) => {
                    return Err(EmuError::Launch(format!(
                        "parameter `{}` is {}, but {v:?} was given",
                        decl.name, decl.ty
                    )));
                }
            };
            image[off as usize..off as usize + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(image)
    }
}
