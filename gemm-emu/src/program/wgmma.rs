//! What the decoder prepares for the `wgmma` family: each
//! `wgmma.mma_async` with its registers resolved, and, per instruction,
//! which of the registers `wgmma`s use it touches.
//!
//! An accumulator (a register some `wgmma.mma_async` has in its D) or an A
//! fragment register (one some `wgmma.mma_async` takes A from) may be in
//! flight, and the PTX ISA wants a `wgmma.fence` between another
//! instruction's access of one and the next `wgmma` using it. The
//! interpreter tracks these registers only, through *slots* (their index
//! in [`Accumulators`]). An accumulator is touched by any read or write (a
//! read of D in flight sees a value not yet written); an A fragment
//! register by writes only: reading an operand the `wgmma` also reads is
//! harmless, and the ISA only forbids *modifying* it until the `wgmma`
//! completes. Which slots an instruction touches is worked out here once,
//! so that the interpreter pays one look-up per instruction, and only for
//! a kernel that uses `wgmma` at all.

use gemm_codegen::ptx::{self, Major, Type, WgmmaInput, WgmmaShape};

use super::Decoder;
use super::op::{Base, Mma, Op, Src};
use crate::error::EmuError;

/// Where a `wgmma.mma_async` takes A from: registers `R` (the IR's, or
/// value registers once decoded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ASource<R> {
    /// Shared memory, named by the descriptor in this register.
    Desc(R),
    /// These four registers of each lane, its elements of A in the order
    /// of [`WgmmaShape::a_at`].
    Regs([R; 4]),
}

/// `wgmma.mma_async.sync.aligned.{shape}.f32.{tf32,f16,bf16}` (its input
/// type is the shape's): the warpgroup's `D = (±A) · (±B) + (scale_d ? D :
/// 0)`, B in shared memory named by a descriptor, A too or (TF32 only) in
/// registers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Wgmma {
    pub shape: WgmmaShape,
    /// How A and B lie in shared memory (`imm-trans-a`, `imm-trans-b`):
    /// MN-major only for the 16-bit inputs, always K-major for TF32 and
    /// for A from registers.
    pub major: (Major, Major),
    /// The thread's accumulators (value registers), in the order of
    /// [`WgmmaShape::d_at`].
    pub d: Vec<u32>,
    /// The accumulator slot of each register of `d`.
    pub d_slots: Vec<u32>,
    /// Where A comes from (value registers).
    pub a: ASource<u32>,
    /// The slot of each of A's registers; empty for A by descriptor.
    pub a_slots: Vec<u32>,
    /// The value register holding B's descriptor.
    pub b_desc: u32,
    /// The predicate register `scale-d`.
    pub scale_d: u32,
    /// `imm-scale-a = -1`, `imm-scale-b = -1`.
    pub neg_a: bool,
    pub neg_b: bool,
}

impl Decoder<'_> {
    /// A `wgmma.mma_async`, its registers and majors checked as the
    /// builder's constructors ([`ptx::Instr::wgmma`],
    /// [`ptx::Instr::wgmma_rs`]) do (the IR's fields are public, so a
    /// module may hold what the builder refuses).
    pub(super) fn wgmma(
        &self,
        shape: WgmmaShape,
        d: &[ptx::Reg],
        (a, b_desc): (ASource<ptx::Reg>, ptx::Reg),
        scale_d: ptx::Reg,
        (neg_a, neg_b): (bool, bool),
        major: (Major, Major),
    ) -> Result<Wgmma, EmuError> {
        if WgmmaShape::new(shape.input, shape.n) != Some(shape) {
            return self.unsupported(format!(
                "wgmma of shape {}: N must be a multiple of 8 from 8 to 256",
                shape.name()
            ));
        }
        if !shape.input.transposes() && major != (Major::K, Major::K) {
            return self.unsupported(format!(
                "an MN-major operand of a .{} wgmma: its operands are K-major",
                shape.input.name()
            ));
        }
        if matches!(a, ASource::Regs(_)) && shape.input != WgmmaInput::Tf32 {
            return self.unsupported(format!(
                "a .{} wgmma with A from registers: the emulator has A from registers for .tf32 only",
                shape.input.name()
            ));
        }
        if d.len() != shape.d_per_thread() as usize {
            return self.unsupported(format!(
                "wgmma {} with {} accumulators, not {}",
                shape.name(),
                d.len(),
                shape.d_per_thread()
            ));
        }
        let mut regs = Vec::with_capacity(d.len());
        for &r in d {
            if r.ty() != Type::F32 {
                return self
                    .unsupported(format!("wgmma accumulator {} is not an .f32 register", self.name(r)));
            }
            let v = self.val(r)?;
            if regs.contains(&v) {
                return self.unsupported(format!("wgmma accumulator {} is listed twice", self.name(r)));
            }
            regs.push(v);
        }
        let descriptors = match a {
            ASource::Desc(a_desc) => vec![a_desc, b_desc],
            ASource::Regs(_) => vec![b_desc],
        };
        for r in descriptors {
            if r.ty().bits() != 64 || r.ty().is_float() {
                return self
                    .unsupported(format!("wgmma descriptor {} is not a 64-bit integer", self.name(r)));
            }
        }
        let a = match a {
            ASource::Desc(r) => ASource::Desc(self.val(r)?),
            ASource::Regs(rs) => {
                let mut a = [0; 4];
                for (v, r) in a.iter_mut().zip(rs) {
                    if r.ty() != Type::B32 {
                        return self.unsupported(format!(
                            "wgmma A register {} is not a .b32 register",
                            self.name(r)
                        ));
                    }
                    *v = self.val(r)?;
                }
                ASource::Regs(a)
            }
        };
        Ok(Wgmma {
            shape,
            major,
            d: regs,
            d_slots: Vec::new(),
            a,
            a_slots: Vec::new(),
            b_desc: self.val(b_desc)?,
            scale_d: self.pred(scale_d)?,
            neg_a,
            neg_b,
        })
    }
}

/// The registers of a kernel's `wgmma`s (accumulators, then A fragment
/// registers) and the instructions touching them. Empty for a kernel
/// without `wgmma`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Accumulators {
    /// Per slot, the value register.
    pub regs: Vec<u32>,
    /// The first slot of an A fragment register: the slots before it are
    /// accumulators. (The two sets are disjoint: accumulators are `.f32`
    /// registers, A's `.b32`.)
    pub first_a: u32,
    /// Per instruction, the range of [`Self::slots`] it touches (see the
    /// module's documentation); empty unless the kernel uses `wgmma`. A
    /// `wgmma` instruction's own range is empty: its registers follow
    /// their own rules.
    pub touch: Vec<(u32, u32)>,
    /// The slots each instruction touches, concatenated.
    pub slots: Vec<u32>,
}

impl Accumulators {
    /// The accumulators and A fragment registers of `wgmmas` (whose
    /// `d_slots` and `a_slots` it fills) and which of them each operation
    /// of `code` (whose `mma`s are `mmas`) touches: accumulators read or
    /// written, A fragment registers written; `n_vals` value registers.
    pub fn new(wgmmas: &mut [Wgmma], code: &[Op], mmas: &[Mma], n_vals: usize) -> Accumulators {
        let mut slot_of = vec![u32::MAX; n_vals];
        let mut regs = Vec::new();
        let mut slots = |rs: &[u32], regs: &mut Vec<u32>| -> Vec<u32> {
            rs.iter()
                .map(|&r| {
                    if slot_of[r as usize] == u32::MAX {
                        slot_of[r as usize] = regs.len() as u32;
                        regs.push(r);
                    }
                    slot_of[r as usize]
                })
                .collect()
        };
        for w in wgmmas.iter_mut() {
            w.d_slots = slots(&w.d, &mut regs);
        }
        let first_a = regs.len() as u32;
        for w in wgmmas.iter_mut() {
            if let ASource::Regs(a) = w.a {
                w.a_slots = slots(&a, &mut regs);
            }
        }
        let mut acc = Accumulators { regs, first_a, ..Accumulators::default() };
        if wgmmas.is_empty() {
            return acc;
        }
        let mut touched = Vec::new();
        for op in code {
            touched.clear();
            value_regs(op, mmas, &mut touched);
            let start = acc.slots.len() as u32;
            for &(r, write) in &touched {
                let slot = slot_of[r as usize];
                let counts = slot < first_a || (slot != u32::MAX && write);
                if counts && !acc.slots[start as usize..].contains(&slot) {
                    acc.slots.push(slot);
                }
            }
            acc.touch.push((start, acc.slots.len() as u32 - start));
        }
        acc
    }

    /// The slots the instruction at `pc` touches.
    #[inline(always)]
    pub fn touched(&self, pc: u32) -> &[u32] {
        let (start, len) = self.touch[pc as usize];
        &self.slots[start as usize..(start + len) as usize]
    }

    /// Whether `slot` is an A fragment register (else an accumulator).
    pub fn is_a(&self, slot: u32) -> bool {
        slot >= self.first_a
    }
}

/// Appends the value registers `op` reads or writes (predicates aside) to
/// `out`, each with whether it is written; nothing for the `wgmma` family,
/// whose registers are tracked by their own rules. `mmas` is the kernel's
/// table of `mma.sync`s.
fn value_regs(op: &Op, mmas: &[Mma], out: &mut Vec<(u32, bool)>) {
    let mut src = |s: Src| {
        if let Src::R(r) = s {
            out.push((r, false));
        }
    };
    let mut dsts = Vec::new();
    match *op {
        Op::Mov { d, a } | Op::I1 { d, a, .. } | Op::FNeg32 { d, a } | Op::FNeg64 { d, a } => {
            dsts.push(d);
            src(a);
        }
        Op::I2 { d, a, b, .. } | Op::IDiv { d, a, b, .. } | Op::F2 { d, a, b, .. } => {
            dsts.push(d);
            src(a);
            src(b);
        }
        Op::I3 { d, a, b, c, .. } | Op::Fma32 { d, a, b, c } | Op::Fma64 { d, a, b, c } => {
            dsts.push(d);
            src(a);
            src(b);
            src(c);
        }
        // `d` and `p` are predicates.
        Op::Setp { a, b, .. } => {
            src(a);
            src(b);
        }
        Op::Selp { d, a, b, .. } => {
            dsts.push(d);
            src(a);
            src(b);
        }
        Op::LdParam { d, n, .. } => dsts.extend(&d[..n as usize]),
        Op::Ld { d, n, base, .. } => {
            dsts.extend(&d[..n as usize]);
            if let Base::Reg(r) = base {
                src(Src::R(r));
            }
        }
        Op::St { s, n, base, .. } => {
            s[..n as usize].iter().for_each(|&v| src(v));
            if let Base::Reg(r) = base {
                src(Src::R(r));
            }
        }
        Op::LdB16 { d, base, .. } => {
            dsts.push(d);
            if let Base::Reg(r) = base {
                src(Src::R(r));
            }
        }
        Op::StB16 { s, base, .. } => {
            src(s);
            if let Base::Reg(r) = base {
                src(Src::R(r));
            }
        }
        Op::CpAsync(c) => {
            for base in [c.dst, c.src] {
                if let Base::Reg(r) = base {
                    src(Src::R(r));
                }
            }
            src(c.src_bytes);
        }
        Op::AtomInc { d, base, bound, .. } => {
            dsts.push(d);
            if let Base::Reg(r) = base {
                src(Src::R(r));
            }
            src(bound);
        }
        Op::MbarInit { base, .. } | Op::MbarExpectTx { base, .. } => {
            if let Base::Reg(r) = base {
                src(Src::R(r));
            }
        }
        Op::MbarTryWait { base, parity, .. } => {
            if let Base::Reg(r) = base {
                src(Src::R(r));
            }
            src(parity);
        }
        // Its table entry's registers are read by the exec, not tracked
        // here: addresses and coordinates, never accumulators (the
        // kernel's lowering keeps them apart, and the copy reads no
        // register of `wgmma`).
        Op::TensorLoad(_) => {}
        Op::Mma(i) => {
            let m = &mmas[i as usize];
            m.a.iter().chain(&m.b).chain(&m.c).for_each(|&r| src(Src::R(r)));
            dsts.extend(&m.d);
        }
        Op::PMov { .. }
        | Op::PAnd { .. }
        | Op::POr { .. }
        | Op::PNot { .. }
        | Op::SetMaxNReg { .. }
        | Op::CpAsyncCommit
        | Op::CpAsyncWait { .. }
        | Op::Wgmma(_)
        | Op::WgmmaFence
        | Op::WgmmaCommit
        | Op::WgmmaWait { .. }
        | Op::FenceProxyAsync
        | Op::FenceAcqRel
        | Op::Bar { .. }
        | Op::Bra { .. }
        | Op::Ret => {}
    }
    out.extend(dsts.into_iter().map(|r| (r, true)));
}

#[cfg(test)]
mod tests {
    use crate::Program;

    /// Which instructions touch which accumulators: reads and writes of
    /// `%d0`/`%d1`, by any kind of instruction, and nothing for the rest.
    #[test]
    fn instructions_touching_accumulators_are_found() {
        let ptx = "
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .u64 %p;
    .reg .b64 %desc;
    .reg .f32 %d0, %d1, %d2, %d3, %x;
    .reg .pred %acc;
    ld.param.u64 %p, [out];
    mov.b64 %desc, 0;
    setp.ne.u32 %acc, 0, 0;
    mov.f32 %d1, 0f00000000;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%d0, %d1, %d2, %d3}, %desc, %desc, %acc, 1, 1;
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
    add.rn.f32 %x, %d0, %d0;
    fma.rn.f32 %x, %x, %x, %d3;
    st.global.f32 [%p], %d2;
    ld.global.f32 %d1, [%p+4];
    ret;
}";
        let program = Program::from_ptx(ptx, None).unwrap_or_else(|e| panic!("{e}"));
        let acc = &program.accumulators;
        let names: Vec<&str> = acc.regs.iter().map(|&r| program.val_names[r as usize].as_str()).collect();
        assert_eq!(names, ["%d0", "%d1", "%d2", "%d3"]);
        let touched: Vec<Vec<&str>> = (0..program.len() as u32)
            .map(|pc| acc.touched(pc).iter().map(|&s| names[s as usize]).collect())
            .collect();
        let none: Vec<&str> = Vec::new();
        assert_eq!(
            touched,
            [
                none.clone(),
                none.clone(),
                none.clone(),
                vec!["%d1"],
                none.clone(),
                none.clone(),
                none.clone(),
                none.clone(),
                vec!["%d0"],
                vec!["%d3"],
                vec!["%d2"],
                vec!["%d1"],
                none,
            ]
        );
        assert!(program.uses_wgmma);
        assert_eq!(program.wgmmas[0].d_slots, [0, 1, 2, 3]);
    }

    /// A registers of a `wgmma` with A from registers get slots after the
    /// accumulators, and only writes of them count: a load into `%a1`, an
    /// `add` writing `%a2`; not the reads by `st` and `setp`.
    #[test]
    fn instructions_writing_a_registers_are_found() {
        let ptx = "
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .u64 %p;
    .reg .b64 %desc;
    .reg .f32 %d0, %d1, %d2, %d3;
    .reg .b32 %a0, %a1, %a2, %a3;
    .reg .pred %acc;
    ld.param.u64 %p, [out];
    ld.global.b32 %a1, [%p];
    st.global.b32 [%p], %a0;
    setp.ne.b32 %acc, %a3, 0;
    add.u32 %a2, %a0, 1;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, %desc, %acc, 1, 1;
    ret;
}";
        let program = Program::from_ptx(ptx, None).unwrap_or_else(|e| panic!("{e}"));
        let acc = &program.accumulators;
        let names: Vec<&str> = acc.regs.iter().map(|&r| program.val_names[r as usize].as_str()).collect();
        assert_eq!(names, ["%d0", "%d1", "%d2", "%d3", "%a0", "%a1", "%a2", "%a3"]);
        assert_eq!(acc.first_a, 4);
        assert!(acc.is_a(4) && !acc.is_a(3));
        let touched: Vec<Vec<&str>> = (0..program.len() as u32)
            .map(|pc| acc.touched(pc).iter().map(|&s| names[s as usize]).collect())
            .collect();
        let none: Vec<&str> = Vec::new();
        let (load, add) = (vec!["%a1"], vec!["%a2"]);
        assert_eq!(touched, [&none, &load, &none, &none, &add, &none, &none, &none].map(Vec::clone));
        assert_eq!(program.wgmmas[0].d_slots, [0, 1, 2, 3]);
        assert_eq!(program.wgmmas[0].a_slots, [4, 5, 6, 7]);
    }
}
