//! Shared memory as `wgmma.mma_async` sees it: through the *async proxy*.
//!
//! The PTX memory model has threads write shared memory through the generic
//! proxy (`st.shared`, and `cp.async`, whose bytes land as a write of the
//! issuing thread) and `wgmma` read it through the async proxy; a write is
//! visible to the async proxy only once the writing thread has executed
//! `fence.proxy.async` after it. The emulator keeps, for a kernel that uses
//! `wgmma` (nothing otherwise):
//!
//! - per thread, a count of its `fence.proxy.async`s (its *fence epoch*);
//! - per shared word, the latest write by a thread and that thread's epoch
//!   at the write: the word is visible to `wgmma` once the writer's epoch
//!   has moved on ([`FaultKind::MissingProxyFence`] otherwise, checked when
//!   the `wgmma` is issued, as the ISA orders fences before the `wgmma`);
//! - per shared word, how many `wgmma`s in flight read it. A `wgmma` reads
//!   its operands some time between its issue and the `wgmma.wait_group`
//!   that retires it; the emulator reads them at retirement, and faults any
//!   write to them in between where it happens, at the store or `cp.async`
//!   ([`FaultKind::WgmmaOperandOverwritten`]), rather than comparing values
//!   later: a write of the same value is caught too, and the fault names
//!   the writing instruction.
//!
//! For the race detector, a warp's part of a `wgmma` reads its operands
//! both at issue and at retirement (the bytes may be read at any moment
//! between), as the warp's first thread, or at issue as the thread of the
//! warp that wrote the word in the same barrier interval (the warp's own
//! writes, fenced, are ordered before its `wgmma`). So a write by another
//! warp in either barrier interval races, and reading bytes no thread wrote
//! faults. This is stricter than the hardware in one case: once any warp of
//! a warpgroup has waited for a `wgmma`, the whole warpgroup's operation is
//! complete, but the emulator retires each warp's part at that warp's own
//! wait, so another warp overwriting an operand after its wait, without a
//! `bar.sync` after the waits, is refused. Copies of `cp.async` still in
//! flight to an operand fault at issue.
//!
//! An operand is addressed through its descriptor as [`SmemDesc::at`]
//! says for its major and element size: K-major without swizzle or with
//! the 128-byte one (TF32, f16, bf16), MN-major with the 128-byte swizzle
//! (f16, bf16). Each contiguous piece read must lie in one declared array:
//! a *core matrix* (8 rows of 16 bytes, 128 contiguous bytes) of a
//! non-swizzled operand, a 16-byte chunk of a swizzled one (along K of a
//! row, K-major; 8 elements along M or N of one k, MN-major). The
//! descriptor stores the start address divided by 16, so a misaligned
//! start cannot be expressed (a kernel computing one gets it rounded down,
//! which the emulator cannot tell from a deliberate address).
//!
//! The bookkeeping above is per 4-byte word, whatever the element size: a
//! 16-bit operand's two elements of a word count as two reads of it.

use gemm_codegen::ptx::{DescSwizzle, Major, SmemDesc, WgmmaInput, WgmmaShape};

use super::{LaneTrap, Lanes, Trap, WARP, Worker};
use crate::error::{AccessKind, FaultKind};
use crate::program::Mem;

/// No thread, in [`GenericWrite`].
const NO_THREAD: u16 = u16::MAX;

/// The latest generic-proxy write of a shared word.
#[derive(Clone, Copy, Debug)]
struct GenericWrite {
    /// The writing thread, or [`NO_THREAD`].
    thread: u16,
    /// The writer's fence epoch at the write.
    epoch: u32,
    /// The writing instruction.
    pc: u32,
    /// Whether it was a `cp.async`'s landing: the bytes of global memory
    /// as they are, which `wgmma` may read as f32 (see
    /// [`Worker::retire_operands`]).
    copied: bool,
}

/// A word no thread has written in this block.
const UNWRITTEN: GenericWrite = GenericWrite { thread: NO_THREAD, epoch: 0, pc: 0, copied: false };

/// The async proxy's view of one block's shared memory.
#[derive(Debug, Default)]
pub(super) struct AsyncProxy {
    /// Whether the kernel uses `wgmma`: everything else is empty if not.
    pub active: bool,
    /// Per thread of the block: its `fence.proxy.async`s so far.
    epochs: Vec<u32>,
    /// Per shared-window word: its latest generic-proxy write.
    writes: Vec<GenericWrite>,
    /// Per shared-window word: reads of it by `wgmma`s in flight.
    readers: Vec<u32>,
    /// The warps' parts of `wgmma`s in flight in the block, with the first
    /// thread of the warp and the `wgmma`'s instruction: while there are
    /// none, no write needs to look at `readers`.
    in_flight: Vec<(Operands, u32, u32)>,
}

/// One warp's part of a `wgmma.mma_async`: what it reads from shared
/// memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Operands {
    /// The shape, with the input type (the elements' size).
    pub shape: WgmmaShape,
    /// How A and B lie (`imm-trans-a`, `imm-trans-b`).
    pub major: (Major, Major),
    /// A's descriptor; `None` for A from registers.
    pub a: Option<SmemDesc>,
    pub b: SmemDesc,
    /// The warp's quarter of the warpgroup: it reads rows `16q … 16q + 15`
    /// of A.
    pub quarter: u32,
}

impl Operands {
    /// Every element the warp's part reads, as `(operand, row, k,
    /// address)`: its 16 rows of A (if A is in shared memory), then all of
    /// B (`N × k`), each where [`SmemDesc::at`] puts it.
    fn elements(&self) -> impl Iterator<Item = (char, u32, u32, u32)> + '_ {
        let (esz, depth) = (self.shape.input.bytes(), self.shape.k());
        let at = move |d: SmemDesc, major: Major, row: u32, k: u32| {
            d.at(major, esz, row, k).expect("a descriptor the emulator models")
        };
        let (major_a, major_b) = self.major;
        let a = self.a.into_iter().flat_map(move |a| {
            (16 * self.quarter..16 * self.quarter + 16)
                .flat_map(move |row| (0..depth).map(move |k| ('A', row, k, at(a, major_a, row, k))))
        });
        let b = (0..self.shape.n)
            .flat_map(move |row| (0..depth).map(move |k| ('B', row, k, at(self.b, major_b, row, k))));
        a.chain(b)
    }

    /// The first `(operand, row, k, address)` of each contiguous piece
    /// read, and its bytes: a core matrix (8 rows of 16 bytes, 128 bytes)
    /// of a non-swizzled K-major operand; a row's 16-byte chunk along K of
    /// a swizzled K-major one; 8 rows' elements of one k (16 bytes) of an
    /// MN-major one.
    fn core_matrices(&self) -> impl Iterator<Item = (char, u32, u32, u32, u32)> + '_ {
        let per_chunk = 16 / self.shape.input.bytes();
        let layout = move |operand: char| match operand {
            'A' => (self.major.0, self.a.map_or(DescSwizzle::None, |a| a.swizzle)),
            _ => (self.major.1, self.b.swizzle),
        };
        self.elements().filter_map(move |(operand, row, k, addr)| {
            let (first, bytes) = match layout(operand) {
                (Major::K, DescSwizzle::None) => (row % 8 == 0 && k % per_chunk == 0, 128),
                (Major::K, _) => (k % per_chunk == 0, 16),
                (Major::Mn, _) => (row % 8 == 0, 16),
            };
            first.then_some((operand, row, k, addr, bytes))
        })
    }
}

impl AsyncProxy {
    /// The bookkeeping of a block of `threads` threads and a shared window
    /// of `window_words` words, if the program `used` `wgmma`.
    pub fn new(used: bool, window_words: usize, threads: usize) -> AsyncProxy {
        if !used {
            return AsyncProxy::default();
        }
        AsyncProxy {
            active: true,
            epochs: vec![0; threads],
            writes: vec![UNWRITTEN; window_words],
            readers: vec![0; window_words],
            in_flight: Vec::new(),
        }
    }

    /// Forgets everything, for a new block.
    pub fn reset(&mut self) {
        if self.active {
            self.epochs.fill(0);
            self.writes.fill(UNWRITTEN);
            self.readers.fill(0);
            self.in_flight.clear();
        }
    }

    /// `fence.proxy.async` by thread `tid`.
    pub fn fence(&mut self, tid: u32) {
        self.epochs[tid as usize] += 1;
    }

    /// Records a generic-proxy write of `words` words from `word` by
    /// thread `tid` at `pc`: a store, or the landing of a `cp.async`
    /// (`copied`).
    pub fn record_write(&mut self, word: usize, words: usize, tid: u32, pc: u32, copied: bool) {
        let write = GenericWrite { thread: tid as u16, epoch: self.epochs[tid as usize], pc, copied };
        self.writes[word..word + words].fill(write);
    }
}

impl AsyncProxy {
    /// Records word `word` landed by a bulk copy (instruction `pc`): a
    /// write of the async proxy, visible to `wgmma` without a fence, of
    /// global memory's bytes as they are.
    pub fn record_async_copy(&mut self, word: usize, pc: u32) {
        self.writes[word] = GenericWrite { thread: NO_THREAD, epoch: 0, pc, copied: true };
    }
}

impl Worker<'_> {
    /// Before a bulk copy's write of `word`: faults if a `wgmma` in flight
    /// reads it.
    pub(super) fn async_proxy_write(&self, word: usize) -> Result<(), Trap> {
        if !self.proxy.in_flight.is_empty() && self.proxy.readers[word] != 0 {
            return Err(self.overwritten(word));
        }
        Ok(())
    }

    /// Before a warp's `st.shared` of `bytes` bytes per lane at `addrs`
    /// (lanes `m`): faults a write to an operand of a `wgmma` in flight,
    /// and records each lane's write for the proxy-fence check. A lane
    /// whose access is invalid is left to the store, which faults on it.
    #[cold]
    #[inline(never)]
    pub(super) fn lanes_generic_write(
        &mut self,
        addrs: &Lanes,
        m: u32,
        bytes: u32,
        tid0: u32,
        pc: u32,
    ) -> Result<(), LaneTrap> {
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let Ok((_, word)) = self.locate(Mem::Shared, AccessKind::Write, addrs[l as usize], bytes, bytes)
            else {
                return Ok(());
            };
            self.generic_write(word, bytes as usize / 4, tid0 + l, pc).map_err(|t| (t, l))?;
        }
        Ok(())
    }

    /// A write of `words` words from `word` by thread `tid` at `pc`, by
    /// `st.shared` or (at its issue) `cp.async`: faults if a `wgmma` in
    /// flight reads one of them, else records it.
    pub(super) fn generic_write(&mut self, word: usize, words: usize, tid: u32, pc: u32) -> Result<(), Trap> {
        if !self.proxy.in_flight.is_empty()
            && let Some(i) = (word..word + words).find(|&i| self.proxy.readers[i] != 0)
        {
            return Err(self.overwritten(i));
        }
        self.proxy.record_write(word, words, tid, pc, false);
        Ok(())
    }

    /// The fault of a write to word `word`, which a `wgmma` in flight reads.
    #[cold]
    fn overwritten(&self, word: usize) -> Trap {
        let addr = 4 * word as u64;
        let reads = |ops: &Operands| ops.elements().any(|(_, _, _, a)| u64::from(a) & !3 == addr);
        let (wgmma_thread, wgmma_pc) = match self.proxy.in_flight.iter().find(|(ops, _, _)| reads(ops)) {
            Some(&(_, tid, pc)) => (tid, pc),
            None => unreachable!("a word with readers is read by a wgmma in flight"),
        };
        Trap::Kind(FaultKind::WgmmaOperandOverwritten {
            addr,
            region: self.shared_region(addr).expect("a located shared access lies in an array"),
            wgmma_thread,
            wgmma_line: self.prog.lines.get(wgmma_pc as usize).copied().unwrap_or(0),
        })
    }

    /// Checks the shared operands of a warp's part of a `wgmma` issued by
    /// thread `tid` (the warp's first) at `pc`, and marks them read: every
    /// core matrix inside an array, no `cp.async` in flight to them, every
    /// word written and its latest write fenced; for the race detector, a
    /// read by `tid`.
    pub(super) fn issue_operands(&mut self, ops: &Operands, tid: u32, pc: u32) -> Result<(), Trap> {
        for (operand, row, k, addr, bytes) in ops.core_matrices() {
            let addr = u64::from(addr);
            if self.locate(Mem::Shared, AccessKind::Read, addr, bytes, 16).is_err() {
                let near = self.shared_region(addr);
                let kind = FaultKind::WgmmaOperandOutOfBounds { operand, row, k, bytes, addr, near };
                return Err(Trap::Kind(kind));
            }
        }
        for (operand, _, _, addr) in ops.elements() {
            let word = addr as usize / 4;
            if self.copies.pending != 0 {
                self.not_in_flight(AccessKind::Read, word, 1)?;
            }
            if self.checks {
                // A write by a thread of the warp is ordered before the
                // warp's `wgmma`; attributing the read to that thread keeps
                // the race detector from seeing two threads.
                let writer = self.sshadow.entry(word).0.unordered_writer(&self.view);
                let reader = writer.filter(|w| w / WARP as u32 == tid / WARP as u32).unwrap_or(tid);
                self.shadow::<false>(0, word, 1, u64::from(addr), reader, pc, AccessKind::Read)?;
            }
            let write = self.proxy.writes[word];
            if write.thread != NO_THREAD && self.proxy.epochs[write.thread as usize] == write.epoch {
                let addr = u64::from(addr);
                return Err(Trap::Kind(FaultKind::MissingProxyFence {
                    operand,
                    addr,
                    region: self.shared_region(addr).expect("located"),
                    writer: u32::from(write.thread),
                    write_line: self.prog.lines.get(write.pc as usize).copied().unwrap_or(0),
                }));
            }
        }
        for (_, _, _, addr) in ops.elements() {
            self.proxy.readers[addr as usize / 4] += 1;
        }
        self.proxy.in_flight.push((*ops, tid, pc));
        Ok(())
    }

    /// Reads the shared operands of a warp's part of the `wgmma` at `pc`,
    /// issued by thread `tid`, as it retires: A's 16 rows into `a` (if A is
    /// in shared memory) and B into `b` (row-major, `k` values a row: 8
    /// TF32, 16 f16 or bf16), no longer marked read.
    ///
    /// A TF32 word the kernel stored must hold a TF32 value, its 13 low
    /// bits zero: a conversion that forgot to round is the typical mistake,
    /// and faults. A word copied from global memory as it is (`cp.async`,
    /// TMA) is read as the tensor cores read f32 data: those bits dropped,
    /// truncating (`math = tf32` reading its stripes from the ring). An f16
    /// or bf16 element is any 16 bits, its value exactly.
    pub(super) fn retire_operands(
        &mut self,
        ops: &Operands,
        tid: u32,
        pc: u32,
        a: &mut [f32],
        b: &mut [f32],
    ) -> Result<(), Trap> {
        for (_, _, _, addr) in ops.elements() {
            self.proxy.readers[addr as usize / 4] -= 1;
        }
        let same = |&(o, t, p): &(Operands, u32, u32)| (o, t, p) == (*ops, tid, pc);
        let i = self.proxy.in_flight.iter().position(same).expect("a wgmma retires once");
        self.proxy.in_flight.swap_remove(i);
        let depth = ops.shape.k();
        for (operand, row, k, addr) in ops.elements() {
            let word = addr as usize / 4;
            if self.checks {
                self.shadow::<false>(0, word, 1, u64::from(addr), tid, pc, AccessKind::Read)?;
            }
            let (out, row) = if operand == 'A' { (&mut *a, row - 16 * ops.quarter) } else { (&mut *b, row) };
            let mut bits = self.smem[word];
            if ops.shape.input != WgmmaInput::Tf32 {
                let half = (bits >> (8 * (addr % 4))) as u16;
                out[(row * depth + k) as usize] = super::half::operand_value(ops.shape.input, half);
                continue;
            }
            if bits & super::mma::TF32_LOW != 0 {
                if !self.proxy.writes[word].copied {
                    return Err(Trap::Kind(FaultKind::WgmmaOperandNotTf32 {
                        operand,
                        row,
                        k,
                        addr: u64::from(addr),
                        bits,
                        wgmma_line: self.prog.lines.get(pc as usize).copied().unwrap_or(0),
                    }));
                }
                bits &= !super::mma::TF32_LOW;
            }
            out[(row * depth + k) as usize] = f32::from_bits(bits);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A warp's part reads its 16 rows of A and all of B, each element
    /// where [`SmemDesc::at`] puts it, and the core matrices
    /// are those elements' first rows and columns of each 8 × 4 block; with
    /// A from registers, B only.
    #[test]
    fn a_warp_reads_its_rows_of_a_and_all_of_b() {
        let (a, b) = (SmemDesc::k_major(1024, 128, 512), SmemDesc::k_major(8192, 256, 128));
        let (shape, major) = (WgmmaShape::tf32(24).unwrap(), (Major::K, Major::K));
        let ops = Operands { shape, major, a: Some(a), b, quarter: 2 };
        let all: Vec<_> = ops.elements().collect();
        assert_eq!(all.len(), 16 * 8 + 24 * 8);
        assert_eq!(all[0], ('A', 32, 0, 1024 + 4 * 512));
        assert_eq!(all[127], ('A', 47, 7, 1024 + 5 * 512 + 128 + 7 * 16 + 12));
        assert_eq!(all[128], ('B', 0, 0, 8192));
        assert_eq!(all.last(), Some(&('B', 23, 7, 8192 + 2 * 128 + 256 + 7 * 16 + 12)));
        let cores: Vec<_> = ops.core_matrices().map(|(o, row, k, _, _)| (o, row, k)).collect();
        let mut want = vec![('A', 32, 0), ('A', 32, 4), ('A', 40, 0), ('A', 40, 4)];
        want.extend((0..3).flat_map(|r| [('B', 8 * r, 0), ('B', 8 * r, 4)]));
        assert_eq!(cores, want);
        // A from registers: B only.
        let ops = Operands { a: None, ..ops };
        assert_eq!(ops.elements().collect::<Vec<_>>(), all[128..]);
        assert_eq!(ops.core_matrices().count(), 6);
    }

    /// A 16-bit part reads 16 elements of each row along K: A K-major
    /// with the 128-byte swizzle (16-byte chunks of 8 elements along K),
    /// B MN-major (16-byte chunks of 8 elements along N, one each k), each
    /// element where [`SmemDesc::at`] puts it.
    #[test]
    fn a_16_bit_part_reads_16_deep_rows_in_chunks() {
        let (a, b) = (SmemDesc::k_major_sw128(0, 1024), SmemDesc::mn_major_sw128(8192, 2048, 1024));
        let shape = WgmmaShape::new(WgmmaInput::F16, 128).unwrap();
        let ops = Operands { shape, major: (Major::K, Major::Mn), a: Some(a), b, quarter: 1 };
        let all: Vec<_> = ops.elements().collect();
        assert_eq!(all.len(), 16 * 16 + 128 * 16);
        assert_eq!(all[0], ('A', 16, 0, 2048));
        // Row 17 (row 1 of its atom), k 9 (chunk 1): chunk 1 ^ 1 = 0.
        assert_eq!(all[16 + 9], ('A', 17, 9, 2048 + 128 + 2));
        // B(70, 11): the second atom along N (LBO), K group 1 (SBO), its row 3.
        let b_at = all.iter().find(|e| e.0 == 'B' && e.1 == 70 && e.2 == 11).unwrap().3;
        assert_eq!(b_at, SmemDesc::mn_major_sw128(8192, 2048, 1024).at(Major::Mn, 2, 70, 11).unwrap());
        assert_eq!(b_at, 8192 + 2048 + 1024 + ((3 * 128) ^ (3 << 4)) + 12);
        let pieces: Vec<_> = ops.core_matrices().collect();
        assert_eq!(pieces.len(), 16 * 2 + 128 / 8 * 16);
        assert!(pieces.iter().all(|p| p.4 == 16 && p.3 % 16 == 0));
    }
}
