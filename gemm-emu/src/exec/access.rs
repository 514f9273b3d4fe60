//! Memory accesses of a warp: addresses, bounds and alignment checks, the
//! race detector's shadows, and the loads and stores built on them.

use std::sync::atomic::Ordering;

use super::lanes::need;
use super::{LaneTrap, Lanes, Trap, WARP, Warp, Worker, atomic};
use crate::error::{AccessKind, FaultKind, MemSpace, Region};
use crate::memory::{Conflict, NONE};
use crate::program::{Base, Mem, Src};

/// A warp access located: each lane's address, the bytes per lane, and
/// the buffer and base of the warp-wide fast path, if it applies.
type WarpAccess = (Lanes, u32, Option<(usize, u64)>);
impl Worker<'_> {
    /// Addresses of lanes `m`.
    #[inline(always)]
    pub(super) fn addresses(w: &Warp, m: u32, base: Base, off: i64, out: &mut Lanes) -> Result<(), LaneTrap> {
        match base {
            Base::Reg(r) => {
                need(w, Src::R(r), m)?;
                for (o, &a) in out.iter_mut().zip(&w.vals[r as usize]) {
                    *o = a.wrapping_add(off as u64);
                }
            }
            Base::Abs(a) => *out = [a.wrapping_add(off as u64); WARP],
        }
        Ok(())
    }

    /// The first word of a checked access of `bytes` bytes that must be
    /// aligned to `align`, in its buffer or the shared window.
    pub(super) fn locate(
        &self,
        mem: Mem,
        access: AccessKind,
        addr: u64,
        bytes: u32,
        align: u32,
    ) -> Result<(usize, usize), Trap> {
        let misaligned = |space| Trap::Kind(FaultKind::Misaligned { space, access, addr, bytes });
        let aligned = addr & (u64::from(align) - 1) == 0;
        match mem {
            Mem::Global => match self.global.locate(addr, bytes) {
                Ok(_) if !aligned => Err(misaligned(MemSpace::Global)),
                Ok((buf, offset)) if access != AccessKind::Read && self.global.bufs[buf].read_only => {
                    Err(Trap::Kind(FaultKind::ReadOnlyWrite {
                        addr,
                        region: self.global.region(buf, offset),
                    }))
                }
                Ok((buf, offset)) => Ok((buf, (offset / 4) as usize)),
                Err(near) => Err(Trap::Kind(FaultKind::GlobalOutOfBounds { access, addr, bytes, near })),
            },
            Mem::Shared => {
                let end = addr.checked_add(u64::from(bytes));
                let inside = end.is_some_and(|end| {
                    self.info.shared.iter().any(|a| addr >= a.base && end <= a.base + a.bytes)
                });
                if !inside {
                    let near = self.shared_region(addr);
                    return Err(Trap::Kind(FaultKind::SharedOutOfBounds { access, addr, bytes, near }));
                }
                if !aligned {
                    return Err(misaligned(MemSpace::Shared));
                }
                Ok((0, (addr / 4) as usize))
            }
        }
    }

    /// Checks the accesses of all lanes `m` at once: when they are aligned
    /// and lie in one buffer (or shared array), returns the buffer and the
    /// address of its word 0; otherwise `None`, and the caller checks lane
    /// by lane.
    #[inline]
    fn locate_warp(
        &self,
        mem: Mem,
        access: AccessKind,
        addrs: &Lanes,
        m: u32,
        bytes: u32,
    ) -> Option<(usize, u64)> {
        let (mut lo, mut hi, mut or) = (u64::MAX, 0u64, 0u64);
        if m == u32::MAX {
            for &a in addrs {
                lo = lo.min(a);
                hi = hi.max(a);
                or |= a;
            }
        } else {
            let mut mm = m;
            while mm != 0 {
                let a = addrs[mm.trailing_zeros() as usize];
                mm &= mm - 1;
                lo = lo.min(a);
                hi = hi.max(a);
                or |= a;
            }
        }
        if or & (u64::from(bytes) - 1) != 0 {
            return None;
        }
        let span = u32::try_from(hi - lo).ok()?.checked_add(bytes)?;
        let (buf, word) = self.locate(mem, access, lo, span, bytes).ok()?;
        Some((buf, lo - 4 * word as u64))
    }

    pub(super) fn shared_region(&self, addr: u64) -> Option<Region> {
        self.info
            .shared
            .iter()
            .min_by_key(|a| addr.abs_diff(a.base).min(addr.abs_diff(a.base + a.bytes)))
            .map(|a| Region { name: a.name.clone(), offset: addr.wrapping_sub(a.base) as i64, len: a.bytes })
    }

    /// The race fault of `access` at `addr` (in buffer `buf`, for a global
    /// one) against the conflicting access `c`, of another block if `cross`.
    pub(super) fn race(
        &self,
        mem: Mem,
        addr: u64,
        buf: usize,
        access: AccessKind,
        c: Conflict,
        cross: bool,
    ) -> Trap {
        let region = match mem {
            Mem::Global => self.global.region(buf, addr & ((1 << crate::memory::BUFFER_STRIDE_LOG2) - 1)),
            Mem::Shared => self.shared_region(addr).expect("a located shared access lies in an array"),
        };
        let space = match mem {
            Mem::Global => MemSpace::Global,
            Mem::Shared => MemSpace::Shared,
        };
        if cross {
            let (gx, gy, _) = self.info.grid;
            let b = c.other;
            let other_block = (b != NONE).then(|| (b % gx, (b / gx) % gy, b / (gx * gy)));
            Trap::Kind(FaultKind::CrossBlockRace {
                addr,
                region,
                access,
                other_block,
                other_access: c.other_access,
                unordered: self.ordered.is_some(),
            })
        } else {
            // The shadow records an atomic as a write.
            let atomic = c.other_access == AccessKind::Write && atomic::is_atomic(self.prog, c.other_pc);
            Trap::Kind(FaultKind::Race {
                space,
                addr,
                region,
                access,
                other_thread: c.other,
                other_access: if atomic { AccessKind::Atomic } else { c.other_access },
                other_line: self.prog.lines.get(c.other_pc as usize).copied().unwrap_or(0),
            })
        }
    }

    /// Records one thread's access to `words` words from `word` (at address
    /// `addr`) in the shadows; `G` is whether the access is global. In a
    /// kernel whose global records are per half-word (`Global::half_units`),
    /// a global access records both halves of each word.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shadow<const G: bool>(
        &mut self,
        buf: usize,
        word: usize,
        words: usize,
        addr: u64,
        tid: u32,
        pc: u32,
        access: AccessKind,
    ) -> Result<(), Trap> {
        if G && self.global.half_units {
            return self.shadow_units::<G>(buf, (2 * word, 2 * words, 2), addr & !3, tid, pc, access);
        }
        self.shadow_units::<G>(buf, (word, words, 4), addr & !3, tid, pc, access)
    }

    /// Records one thread's access to the half-word `half` (0 low, 1 high)
    /// of global word `word` of buffer `buf` (at address `addr`): a 16-bit
    /// access, in a kernel whose global records are per half-word.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shadow_half(
        &mut self,
        buf: usize,
        (word, half): (usize, usize),
        addr: u64,
        tid: u32,
        pc: u32,
        access: AccessKind,
    ) -> Result<(), Trap> {
        debug_assert!(self.global.half_units, "a 16-bit access in a kernel of word records");
        self.shadow_units::<true>(buf, (2 * word + half, 1, 2), addr & !1, tid, pc, access)
    }

    /// Records one thread's access to `count` units of the race records
    /// from unit `first`, each `unit` bytes (4, or 2 for the half-words of
    /// global memory), the first at address `addr`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn shadow_units<const G: bool>(
        &mut self,
        buf: usize,
        (first, count, unit): (usize, usize, u64),
        addr: u64,
        tid: u32,
        pc: u32,
        access: AccessKind,
    ) -> Result<(), Trap> {
        let mem = if G { Mem::Global } else { Mem::Shared };
        let prog = self.prog;
        for i in 0..count {
            let (entry, pcs) =
                if G { self.gshadow[buf].entry(first + i) } else { self.sshadow.entry(first + i) };
            let at = addr + unit * i as u64;
            // Block threads are at most 1024: they fit the shadow's 16 bits.
            let thread = tid as u16;
            let r = match access {
                AccessKind::Read => {
                    if !G && !entry.written_since(self.clocks.block_first()) {
                        let region = self.shared_region(at).expect("located");
                        return Err(Trap::Kind(FaultKind::SharedUninitialized { addr: at, region }));
                    }
                    entry.read(pcs, thread, &self.view, pc)
                }
                AccessKind::Write => entry.write(pcs, thread, &self.view, pc),
                AccessKind::Atomic => {
                    entry.atomic(pcs, thread, &self.view, pc, |p| atomic::is_atomic(prog, p))
                }
            };
            if let Err(c) = r {
                return Err(self.race(mem, at, buf, access, c, false));
            }
            // An atomic's cross-block check is its own (`atomic.rs`).
            if G && access != AccessKind::Atomic {
                let r = match self.ordered {
                    None => self.global.cross_block(buf, first + i, self.block_id, access),
                    Some(o) => self.ordered_access(o, (buf, first + i), tid, access),
                };
                if let Err(c) = r {
                    return Err(self.race(mem, at, buf, access, c, true));
                }
            }
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn read_word<const G: bool>(&self, buf: usize, word: usize) -> u64 {
        if G {
            u64::from(self.global.bufs[buf].words[word].load(Ordering::Relaxed))
        } else {
            u64::from(self.smem[word])
        }
    }

    #[inline(always)]
    fn write_word<const G: bool>(&mut self, buf: usize, word: usize, v: u32) {
        if G {
            self.global.bufs[buf].words[word].store(v, Ordering::Relaxed);
        } else {
            self.smem[word] = v;
        }
    }

    /// Checks lane `l`'s access and records it in the shadows: its buffer
    /// and first word. `fast` is the warp-level result of [`Self::locate_warp`].
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn access<const G: bool>(
        &mut self,
        fast: Option<(usize, u64)>,
        access: AccessKind,
        addr: u64,
        bytes: u32,
        tid: u32,
        pc: u32,
    ) -> Result<(usize, usize), Trap> {
        let mem = if G { Mem::Global } else { Mem::Shared };
        let (buf, word) = match fast {
            Some((buf, base)) => (buf, ((addr - base) / 4) as usize),
            None => self.locate(mem, access, addr, bytes, bytes)?,
        };
        if self.checks {
            self.shadow::<G>(buf, word, bytes as usize / 4, addr, tid, pc, access)?;
        }
        Ok((buf, word))
    }

    /// What a warp's load or store of `n` elements of `size` bytes per lane
    /// (lanes `m`) needs before it touches memory: each lane's address, the
    /// bytes per lane, no overlap with a `cp.async` still in flight (shared
    /// memory), and the warp-wide fast path ([`Self::locate_warp`]).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn lanes<const G: bool>(
        &self,
        w: &Warp,
        m: u32,
        kind: AccessKind,
        n: u8,
        size: u8,
        base: Base,
        off: i64,
    ) -> Result<WarpAccess, LaneTrap> {
        let mut addrs = [0; WARP];
        Self::addresses(w, m, base, off, &mut addrs)?;
        let bytes = u32::from(n) * u32::from(size);
        if !G && self.copies.pending != 0 {
            self.lanes_not_in_flight(kind, &addrs, m, bytes)?;
        }
        let mem = if G { Mem::Global } else { Mem::Shared };
        Ok((addrs, bytes, self.locate_warp(mem, kind, &addrs, m, bytes)))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn load(
        &mut self,
        w: &mut Warp,
        pc: u32,
        m: u32,
        mem: Mem,
        d: [u32; 4],
        n: u8,
        size: u8,
        base: Base,
        off: i64,
    ) -> Result<(), LaneTrap> {
        match mem {
            Mem::Global => self.load_in::<true>(w, pc, m, d, n, size, base, off),
            Mem::Shared => self.load_in::<false>(w, pc, m, d, n, size, base, off),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn load_in<const G: bool>(
        &mut self,
        w: &mut Warp,
        pc: u32,
        m: u32,
        d: [u32; 4],
        n: u8,
        size: u8,
        base: Base,
        off: i64,
    ) -> Result<(), LaneTrap> {
        let (addrs, bytes, fast) = self.lanes::<G>(w, m, AccessKind::Read, n, size, base, off)?;
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let (buf, word) = self
                .access::<G>(fast, AccessKind::Read, addrs[l as usize], bytes, w.tid0 + l, pc)
                .map_err(|t| (t, l))?;
            for (e, &r) in d.iter().enumerate().take(n as usize) {
                let v = if size == 4 {
                    self.read_word::<G>(buf, word + e)
                } else {
                    self.read_word::<G>(buf, word + 2 * e) | self.read_word::<G>(buf, word + 2 * e + 1) << 32
                };
                w.vals[r as usize][l as usize] = v;
            }
        }
        for &r in &d[..n as usize] {
            w.written[r as usize] |= m;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
        &mut self,
        w: &mut Warp,
        pc: u32,
        m: u32,
        mem: Mem,
        s: [Src; 4],
        n: u8,
        size: u8,
        base: Base,
        off: i64,
    ) -> Result<(), LaneTrap> {
        match mem {
            Mem::Global => self.store_in::<true>(w, pc, m, s, n, size, base, off),
            Mem::Shared => self.store_in::<false>(w, pc, m, s, n, size, base, off),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn store_in<const G: bool>(
        &mut self,
        w: &mut Warp,
        pc: u32,
        m: u32,
        s: [Src; 4],
        n: u8,
        size: u8,
        base: Base,
        off: i64,
    ) -> Result<(), LaneTrap> {
        for &src in &s[..n as usize] {
            need(w, src, m)?;
        }
        let (addrs, bytes, fast) = self.lanes::<G>(w, m, AccessKind::Write, n, size, base, off)?;
        if !G && self.proxy.active {
            self.lanes_generic_write(&addrs, m, bytes, w.tid0, pc)?;
        }
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let (buf, word) = self
                .access::<G>(fast, AccessKind::Write, addrs[l as usize], bytes, w.tid0 + l, pc)
                .map_err(|t| (t, l))?;
            for (e, &src) in s.iter().enumerate().take(n as usize) {
                let v = match src {
                    Src::R(r) => w.vals[r as usize][l as usize],
                    Src::I(v) => v,
                };
                if size == 4 {
                    self.write_word::<G>(buf, word + e, v as u32);
                } else {
                    self.write_word::<G>(buf, word + 2 * e, v as u32);
                    self.write_word::<G>(buf, word + 2 * e + 1, (v >> 32) as u32);
                }
            }
        }
        Ok(())
    }
}
