//! Host memory in, host memory out: a checked column-major call cut into
//! chunks that stream through two pinned staging slots, so the host's
//! packing, the copies both ways and the GPU's products overlap.
//!
//! # The plan
//!
//! One operand stays resident on the device for the whole call and the
//! other streams with C in chunks ([`Plan`]): cut along C's **columns**
//! (A resident, columns of op(B) and C streamed), or along C's **rows** (B
//! resident, rows of op(A) and C streamed) when A is the larger operand.
//! Chunks hold about [`Tuning::chunk_bytes`] of streamed data, at most
//! [`MAX_CHUNKS`] of them, and are never narrower than
//! [`Tuning::min_step`] (a product too thin to fill the GPU would cost
//! more than the overlap saves). A small call is one chunk.
//!
//! # The pipeline
//!
//! ```text
//! host:    pack A pieces ─ pack B₀ C₀ ─ pack B₁ C₁ ─ unpack C₀ ─ pack B₂ C₂ ─ unpack C₁ …
//! upload:        A ────────── B₀ C₀ ───── B₁ C₁ ─────────────── B₂ C₂ …
//! compute:                         GEMM₀ ───── GEMM₁ ──────────── GEMM₂ …
//! download:                               C₀ ────────── C₁ ───────────── C₂ …
//! ```
//!
//! Packing gathers a block of the caller's matrix (any leading dimension,
//! either op) into a dense slot, unpacking scatters a chunk of C back:
//! only the chunk's `m × n` block is written, so rows past `m` (`ldc > m`)
//! are never touched, and C is not uploaded when `beta = 0`. An operand
//! that is already device memory ([`Operand::Device`]) is used in place:
//! nothing is staged for it.
//!
//! The pipeline is written once against [`Device`]: the GPU
//! ([`crate::gpu`]) queues copies and products on three streams ordered by
//! events; the PTX emulator ([`crate::emulated`]) runs each step at once.
//! So the conformance tests, which run on the emulator, run this code.
//!
//! # Failure
//!
//! A chunk's C is written back only after its product and copy succeeded,
//! so an error leaves every chunk either final or as the caller had it:
//! [`Failure::done`] says how many chunks are final, and [`Plan::rest`]
//! is the call that computes the others (the CPU fallback runs it).

use std::ops::Range;
use std::sync::OnceLock;

use gemm_codegen::Op;
use gemm_host::{GemmConfig, GemmError};

use crate::scalar::Scalar;

/// At most this many chunks per call.
pub const MAX_CHUNKS: usize = 16;

/// How a call is cut ([`Plan::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Streamed bytes (the streamed operand's block and C's, both ways) a
    /// chunk aims at.
    pub chunk_bytes: usize,
    /// The fewest columns (or rows) of C in a chunk, unless the call has
    /// fewer.
    pub min_step: usize,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning { chunk_bytes: 8 << 20, min_step: 128 }
    }
}

/// Along which of C's dimensions a call is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Along {
    /// C's columns: A resident, op(B)'s columns and C's streamed.
    Columns,
    /// C's rows: B resident, op(A)'s rows and C's streamed.
    Rows,
}

/// A block of a stored column-major matrix: `rows` rows from `row0`, `cols`
/// columns from `col0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// First row.
    pub row0: usize,
    /// Rows.
    pub rows: usize,
    /// First column.
    pub col0: usize,
    /// Columns.
    pub cols: usize,
}

impl Block {
    /// Elements of the block, packed.
    pub const fn len(&self) -> usize {
        self.rows * self.cols
    }

    /// Whether it holds no element.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element offset of the block's first element in a matrix of leading
    /// dimension `ld`.
    pub const fn offset(&self, ld: usize) -> usize {
        self.row0 + self.col0 * ld
    }

    /// Columns `cols` of this block.
    fn columns(self, cols: Range<usize>) -> Block {
        Block { col0: self.col0 + cols.start, cols: cols.len(), ..self }
    }
}

/// How a checked column-major call is cut into chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Along which dimension of C.
    pub along: Along,
    /// C's columns (or rows) per chunk; the last chunk may have fewer.
    pub step: usize,
    /// Number of chunks (at least 1).
    pub chunks: usize,
    /// Elements of the resident operand sent up at once, at least (a
    /// chunk's worth: it goes up through the same slots).
    piece: usize,
    m: usize,
    n: usize,
    k: usize,
    op_a: Op,
    op_b: Op,
}

fn dim(v: i64) -> usize {
    usize::try_from(v).unwrap_or(0)
}

impl Plan {
    /// The plan for `cfg` (checked, column-major, `m, n ≥ 1`) with
    /// elements of `elem` bytes; `beta_nonzero` when C is read.
    pub fn new<E>(cfg: &GemmConfig<E>, elem: usize, beta_nonzero: bool, tuning: Tuning) -> Plan {
        let (m, n, k) = (dim(cfg.m), dim(cfg.n), dim(cfg.k));
        // The resident operand is the smaller one.
        let along = if m * k <= k * n { Along::Columns } else { Along::Rows };
        let (len, streamed) = match along {
            Along::Columns => (n, k * n),
            Along::Rows => (m, m * k),
        };
        let c_ways = if beta_nonzero { 2 } else { 1 };
        let bytes = (streamed + c_ways * m * n) * elem;
        let wanted = bytes.div_ceil(tuning.chunk_bytes.max(1)).clamp(1, MAX_CHUNKS);
        let widest = len.div_ceil(tuning.min_step.max(1)).max(1);
        let step = len.div_ceil(wanted.min(widest)).max(1);
        let chunks = len.div_ceil(step).max(1);
        let piece = tuning.chunk_bytes / elem.max(1);
        Plan { along, step, chunks, piece, m, n, k, op_a: cfg.op_a, op_b: cfg.op_b }
    }

    /// C's columns (or rows) of chunk `i`.
    pub fn range(&self, i: usize) -> Range<usize> {
        let len = match self.along {
            Along::Columns => self.n,
            Along::Rows => self.m,
        };
        (i * self.step).min(len)..((i + 1) * self.step).min(len)
    }

    /// The stored block of A (op_a N: m × k, else k × m) a product over C's
    /// rows `rows` reads.
    fn a_block(&self, rows: Range<usize>) -> Block {
        match self.op_a {
            Op::N => Block { row0: rows.start, rows: rows.len(), col0: 0, cols: self.k },
            Op::T | Op::C => Block { row0: 0, rows: self.k, col0: rows.start, cols: rows.len() },
        }
    }

    /// The stored block of B (op_b N: k × n, else n × k) a product over C's
    /// columns `cols` reads.
    fn b_block(&self, cols: Range<usize>) -> Block {
        match self.op_b {
            Op::N => Block { row0: 0, rows: self.k, col0: cols.start, cols: cols.len() },
            Op::T | Op::C => Block { row0: cols.start, rows: cols.len(), col0: 0, cols: self.k },
        }
    }

    /// The blocks of A, B and C chunk `i` reads and writes.
    pub fn blocks(&self, i: usize) -> [Block; 3] {
        let r = self.range(i);
        match self.along {
            Along::Columns => [
                self.a_block(0..self.m),
                self.b_block(r.clone()),
                Block { row0: 0, rows: self.m, col0: r.start, cols: r.len() },
            ],
            Along::Rows => [
                self.a_block(r.clone()),
                self.b_block(0..self.n),
                Block { row0: r.start, rows: r.len(), col0: 0, cols: self.n },
            ],
        }
    }

    /// Which operand stays resident (0 for A, 1 for B) and which streams.
    const fn resident(&self) -> usize {
        match self.along {
            Along::Columns => 0,
            Along::Rows => 1,
        }
    }

    /// Chunk `i`'s product: `cfg` over its blocks, each operand at
    /// leading dimension `ld`.
    fn chunk_config<E: Copy>(&self, cfg: &GemmConfig<E>, i: usize, ld: [usize; 3]) -> GemmConfig<E> {
        let r = self.range(i);
        let (m, n) = match self.along {
            Along::Columns => (self.m, r.len()),
            Along::Rows => (r.len(), self.n),
        };
        let i64 = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
        GemmConfig { m: i64(m), n: i64(n), lda: i64(ld[0]), ldb: i64(ld[1]), ldc: i64(ld[2]), ..*cfg }
    }

    /// The call that computes every chunk from `done` on, with `a`, `b`,
    /// `c` moved to its first elements: what is left after a failure.
    pub fn rest<E: Copy>(
        &self,
        cfg: &GemmConfig<E>,
        done: usize,
        (a, b, c): (*const E, *const E, *mut E),
    ) -> (GemmConfig<E>, (*const E, *const E, *mut E)) {
        let r = self.range(done);
        let left = match self.along {
            Along::Columns => self.n - r.start,
            Along::Rows => self.m - r.start,
        };
        let [ba, bb, bc] = self.blocks(done);
        let (lda, ldb, ldc) = (dim(cfg.lda), dim(cfg.ldb), dim(cfg.ldc));
        let i64 = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
        let rest = match self.along {
            Along::Columns => GemmConfig { n: i64(left), ..*cfg },
            Along::Rows => GemmConfig { m: i64(left), ..*cfg },
        };
        // Pointers into the caller's matrices (wrapping: A and B may be
        // dangling when k = 0, and are then not read).
        let ptrs =
            (a.wrapping_add(ba.offset(lda)), b.wrapping_add(bb.offset(ldb)), c.wrapping_add(bc.offset(ldc)));
        (rest, ptrs)
    }
}

/// One matrix as the caller gave it.
#[derive(Clone, Copy, Debug)]
pub enum Operand<E> {
    /// Host memory at this address, leading dimension `ld`.
    Host { ptr: *mut E, ld: usize },
    /// Device memory (of the device the call runs on) at this address.
    Device { addr: u64, ld: usize },
}

impl<E> Operand<E> {
    fn ld(&self) -> usize {
        match *self {
            Operand::Host { ld, .. } | Operand::Device { ld, .. } => ld,
        }
    }
}

/// A place in device memory a product reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The resident operand's buffer, at an element offset.
    Resident(usize),
    /// Staging buffer `slot` (0 or 1) of the streamed operand.
    Streamed(usize),
    /// Staging buffer `slot` (0 or 1) of C.
    C(usize),
    /// The caller's device memory at this address.
    User(u64),
}

/// A pinned host staging slot: `2 · parity` holds pieces of the resident
/// operand and the streamed operand's chunks, `2 · parity + 1` C's chunks.
pub type Slot = usize;

/// What the pipeline needs of a device. Each method queues work after
/// everything it depends on; the implementation orders it (the GPU with
/// events, the emulator by doing it at once).
pub trait Device<E> {
    /// Makes room: the resident operand's buffer for `resident` elements,
    /// each of the two streamed and two C buffers for `streamed` and `c`,
    /// and each of the four host slots for the larger of those and
    /// `piece`.
    fn reserve(&mut self, resident: usize, streamed: usize, c: usize, piece: usize) -> Result<(), GemmError>;
    /// Host slot `slot`'s first `len` elements, once no copy uses it.
    fn slot(&mut self, slot: Slot, len: usize) -> Result<&mut [E], GemmError>;
    /// Copies host slot `slot`'s first `len` elements to `place`.
    fn upload(&mut self, slot: Slot, len: usize, place: Place) -> Result<(), GemmError>;
    /// Runs `cfg` (checked, column-major) on `a`, `b`, `c`.
    fn gemm(&mut self, cfg: &GemmConfig<E>, a: Place, b: Place, c: Place) -> Result<(), GemmError>;
    /// Copies `len` elements of `place` into host slot `slot`.
    fn download(&mut self, place: Place, len: usize, slot: Slot) -> Result<(), GemmError>;
    /// Waits for everything queued.
    fn finish(&mut self) -> Result<(), GemmError>;
}

/// Why a pipelined call failed, and how far it got.
#[derive(Debug)]
pub struct Failure {
    /// The error.
    pub error: GemmError,
    /// Chunks whose C is final in the caller's host memory; the others are
    /// as the caller had them. (A C in device memory is written in place:
    /// after a failure its chunks may be either.)
    pub done: usize,
}

/// Runs `cfg` (checked, column-major, after `backend::unread_product`,
/// `m, n ≥ 1`) planned as `plan` on `device`.
///
/// # Safety
/// Each host operand's pointer holds its matrix (`cfg`'s extents and
/// leading dimensions; A and B are not read when `k = 0`), C overlapping
/// neither A nor B; each device operand lives on `device`'s GPU.
pub unsafe fn run<E: Scalar>(
    device: &mut impl Device<E>,
    cfg: &GemmConfig<E>,
    plan: &Plan,
    operands: [Operand<E>; 3],
) -> Result<(), Failure> {
    let mut done = 0;
    // SAFETY: forwarded.
    unsafe { pipeline(device, cfg, plan, operands, &mut done) }.map_err(|error| Failure { error, done })
}

/// [`run`], counting the chunks written back in `done`.
///
/// # Safety
/// As for [`run`].
unsafe fn pipeline<E: Scalar>(
    device: &mut impl Device<E>,
    cfg: &GemmConfig<E>,
    plan: &Plan,
    operands: [Operand<E>; 3],
    done: &mut usize,
) -> Result<(), GemmError> {
    let res = plan.resident();
    let str = 1 - res;
    let first = plan.blocks(0);
    let beta_read = cfg.beta != E::ZERO;
    let staged = |o: &Operand<E>| matches!(o, Operand::Host { .. });
    // Buffer sizes: the resident block, the widest chunk's blocks.
    let resident_block = first[res];
    let streamed_len = if staged(&operands[str]) { first[str].len() } else { 0 };
    let c_len = if staged(&operands[2]) { first[2].len() } else { 0 };
    // The resident operand goes up in pieces of whole columns, each as large
    // as a slot holds (a chunk's worth at least, also when nothing else is
    // staged).
    let rows = resident_block.rows.max(1);
    let piece_cols = (streamed_len.max(c_len).max(plan.piece).max(rows) / rows).max(1);
    let resident_len = if staged(&operands[res]) { resident_block.len() } else { 0 };
    let piece = if resident_len == 0 { 0 } else { piece_cols.min(resident_block.cols) * rows };
    device.reserve(resident_len, streamed_len, c_len, piece)?;

    if let (Operand::Host { ptr, ld }, false) = (operands[res], resident_block.is_empty()) {
        for (p, start) in (0..resident_block.cols).step_by(piece_cols).enumerate() {
            let cols = start..(start + piece_cols).min(resident_block.cols);
            let block = resident_block.columns(cols.clone());
            let slot = device.slot(2 * (p % 2), block.len())?;
            // SAFETY: the block lies within the caller's matrix.
            unsafe { pack(ptr, ld, block, slot) };
            device.upload(2 * (p % 2), block.len(), Place::Resident(cols.start * rows))?;
        }
    }

    let place = |o: &Operand<E>, block: Block, staged_at: Place| match *o {
        Operand::Host { .. } => staged_at,
        Operand::Device { addr, ld } => Place::User(addr + (block.offset(ld) * size_of::<E>()) as u64),
    };
    let ld = |o: &Operand<E>, block: Block| match o {
        Operand::Host { .. } => block.rows.max(1),
        Operand::Device { .. } => o.ld(),
    };
    for i in 0..plan.chunks {
        let parity = i % 2;
        let blocks = plan.blocks(i);
        if let (Operand::Host { ptr, ld }, false) = (operands[str], blocks[str].is_empty()) {
            let block = blocks[str];
            let slot = device.slot(2 * parity, block.len())?;
            // SAFETY: the block lies within the caller's matrix.
            unsafe { pack(ptr, ld, block, slot) };
            device.upload(2 * parity, block.len(), Place::Streamed(parity))?;
        }
        if let (Operand::Host { ptr, ld }, true) = (operands[2], beta_read) {
            let block = blocks[2];
            let slot = device.slot(2 * parity + 1, block.len())?;
            // SAFETY: the block lies within the caller's matrix.
            unsafe { pack(ptr, ld, block, slot) };
            device.upload(2 * parity + 1, block.len(), Place::C(parity))?;
        }
        let resident_at = place(&operands[res], blocks[res], Place::Resident(0));
        let streamed_at = place(&operands[str], blocks[str], Place::Streamed(parity));
        let (a_at, b_at) = if res == 0 { (resident_at, streamed_at) } else { (streamed_at, resident_at) };
        let c_at = place(&operands[2], blocks[2], Place::C(parity));
        let lds = [ld(&operands[0], blocks[0]), ld(&operands[1], blocks[1]), ld(&operands[2], blocks[2])];
        device.gemm(&plan.chunk_config(cfg, i, lds), a_at, b_at, c_at)?;
        if staged(&operands[2]) {
            device.download(Place::C(parity), blocks[2].len(), 2 * parity + 1)?;
            if i > 0 {
                // SAFETY: as in the loop's packing.
                unsafe { write_back(device, plan, operands[2], i - 1)? };
                *done = i;
            }
        }
    }
    if staged(&operands[2]) {
        // SAFETY: as above.
        unsafe { write_back(device, plan, operands[2], plan.chunks - 1)? };
        *done = plan.chunks;
    }
    device.finish()
}

/// Unpacks chunk `i`'s C from its slot into the caller's C.
///
/// # Safety
/// As for [`run`].
unsafe fn write_back<E: Scalar>(
    device: &mut impl Device<E>,
    plan: &Plan,
    c: Operand<E>,
    i: usize,
) -> Result<(), GemmError> {
    let Operand::Host { ptr, ld } = c else { return Ok(()) };
    let block = plan.blocks(i)[2];
    let slot = device.slot(2 * (i % 2) + 1, block.len())?;
    // SAFETY: the block lies within the caller's C.
    unsafe { unpack(slot, ptr, ld, block) };
    Ok(())
}

/// Bytes from which packing and unpacking use several threads.
const PARALLEL_BYTES: usize = 1 << 20;

/// The threads that pack and unpack large blocks: at most 8, fewer on a
/// smaller machine. Built on first use (a program of small calls never
/// starts them); `None` if they cannot be started (one thread then).
fn copy_threads() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("gemmforge-blas-copy-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// A raw pointer that may cross to the copy threads (each touches its own
/// columns).
#[derive(Clone, Copy)]
struct Shared<T>(T);
// SAFETY: used only for disjoint columns of one copy, joined before it returns.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}

/// Runs `column(j)` for every column of `block`, on the copy threads when
/// it is large.
fn for_columns<E>(block: Block, column: impl Fn(usize) + Sync) {
    let bytes = block.len() * size_of::<E>();
    match copy_threads() {
        Some(pool) if bytes >= PARALLEL_BYTES && block.cols > 1 => {
            use rayon::prelude::*;
            let per = block.cols.div_ceil(pool.current_num_threads() * 4).max(1);
            pool.install(|| {
                (0..block.cols).into_par_iter().with_min_len(per).for_each(&column);
            });
        }
        _ => (0..block.cols).for_each(column),
    }
}

/// Copies `block` of the column-major matrix at `src` (leading dimension
/// `ld`) into `dst`, packed (leading dimension `block.rows`).
///
/// # Safety
/// `src` holds the block: `block.offset(ld) + (block.cols − 1)·ld +
/// block.rows` elements from it are readable.
///
/// # Panics
/// If `dst` is shorter than the block.
pub unsafe fn pack<E: Copy>(src: *const E, ld: usize, block: Block, dst: &mut [E]) {
    if block.is_empty() {
        return;
    }
    let dst = &mut dst[..block.len()];
    let (from, to) = (Shared(src), Shared(dst.as_mut_ptr()));
    for_columns::<E>(block, |j| {
        let (from, to) = (from, to);
        // SAFETY: column j of the block, within `src` by the contract and
        // within `dst` (checked above); columns are disjoint.
        unsafe {
            std::ptr::copy_nonoverlapping(
                from.0.add(block.offset(ld) + j * ld),
                to.0.add(j * block.rows),
                block.rows,
            );
        }
    });
}

/// Copies the packed `src` into `block` of the column-major matrix at
/// `dst` (leading dimension `ld`); nothing outside the block is written.
///
/// # Safety
/// As for [`pack`], for writes.
///
/// # Panics
/// If `src` is shorter than the block.
pub unsafe fn unpack<E: Copy>(src: &[E], dst: *mut E, ld: usize, block: Block) {
    if block.is_empty() {
        return;
    }
    let src = &src[..block.len()];
    let (from, to) = (Shared(src.as_ptr()), Shared(dst));
    for_columns::<E>(block, |j| {
        let (from, to) = (from, to);
        // SAFETY: as in `pack`, the other way.
        unsafe {
            std::ptr::copy_nonoverlapping(
                from.0.add(j * block.rows),
                to.0.add(block.offset(ld) + j * ld),
                block.rows,
            );
        }
    });
}

#[cfg(test)]
#[path = "staging_tests.rs"]
mod tests;
