//! What the decoder prepares for the `wgmma` family: each
//! `wgmma.mma_async` with its registers resolved, and, per instruction,
//! which accumulator registers it touches.
//!
//! An accumulator (a register some `wgmma.mma_async` has in its D) may be
//! in flight, and an access to it needs a `wgmma.fence` before the next
//! `wgmma` on it: the interpreter tracks these registers only, through
//! *slots* (their index among the accumulators). Which slots an
//! instruction reads or writes is worked out here once, so that the
//! interpreter pays one look-up per instruction, and only for a kernel
//! that uses `wgmma` at all.

use gemm_codegen::ptx::{self, Type, WgmmaShape};

use super::Decoder;
use super::op::{Base, Mma, Op, Src};
use crate::error::EmuError;

/// `wgmma.mma_async.sync.aligned.{shape}.f32.tf32.tf32`: the warpgroup's
/// `D = (±A) · (±B) + (scale_d ? D : 0)`, A and B in shared memory named
/// by descriptors.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Wgmma {
    pub shape: WgmmaShape,
    /// The thread's accumulators (value registers), in the order of
    /// [`WgmmaShape::d_at`].
    pub d: Vec<u32>,
    /// The accumulator slot of each register of `d`.
    pub d_slots: Vec<u32>,
    /// The value registers holding A's and B's descriptors.
    pub a_desc: u32,
    pub b_desc: u32,
    /// The predicate register `scale-d`.
    pub scale_d: u32,
    /// `imm-scale-a = -1`, `imm-scale-b = -1`.
    pub neg_a: bool,
    pub neg_b: bool,
}

impl Decoder<'_> {
    /// A `wgmma.mma_async`, its registers checked as the builder's
    /// constructor does (the IR's fields are public, so a module may hold
    /// what the builder refuses).
    pub(super) fn wgmma(
        &self,
        shape: WgmmaShape,
        d: &[ptx::Reg],
        (a_desc, b_desc): (ptx::Reg, ptx::Reg),
        scale_d: ptx::Reg,
        (neg_a, neg_b): (bool, bool),
    ) -> Result<Wgmma, EmuError> {
        if WgmmaShape::tf32(shape.n) != Some(shape) {
            return self.unsupported(format!(
                "wgmma of shape {}: N must be a multiple of 8 from 8 to 256",
                shape.name()
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
        for r in [a_desc, b_desc] {
            if r.ty().bits() != 64 || r.ty().is_float() {
                return self
                    .unsupported(format!("wgmma descriptor {} is not a 64-bit integer", self.name(r)));
            }
        }
        Ok(Wgmma {
            shape,
            d: regs,
            d_slots: Vec::new(),
            a_desc: self.val(a_desc)?,
            b_desc: self.val(b_desc)?,
            scale_d: self.pred(scale_d)?,
            neg_a,
            neg_b,
        })
    }
}

/// The accumulator registers of a kernel and the instructions touching
/// them. Empty for a kernel without `wgmma`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Accumulators {
    /// Per slot, the value register.
    pub regs: Vec<u32>,
    /// Per instruction, the range of [`Self::slots`] it touches; empty
    /// unless the kernel uses `wgmma`. A `wgmma` instruction's own range is
    /// empty: its accumulators follow their own rules.
    pub touch: Vec<(u32, u32)>,
    /// The slots each instruction touches, concatenated.
    pub slots: Vec<u32>,
}

impl Accumulators {
    /// The accumulators of `wgmmas` (whose `d_slots` it fills) and which
    /// of them each operation of `code` (whose `mma`s are `mmas`) reads or
    /// writes; `n_vals` value registers.
    pub fn new(wgmmas: &mut [Wgmma], code: &[Op], mmas: &[Mma], n_vals: usize) -> Accumulators {
        let mut slot_of = vec![u32::MAX; n_vals];
        let mut regs = Vec::new();
        for w in wgmmas.iter_mut() {
            w.d_slots =
                w.d.iter()
                    .map(|&r| {
                        if slot_of[r as usize] == u32::MAX {
                            slot_of[r as usize] = regs.len() as u32;
                            regs.push(r);
                        }
                        slot_of[r as usize]
                    })
                    .collect();
        }
        let mut acc = Accumulators { regs, ..Accumulators::default() };
        if wgmmas.is_empty() {
            return acc;
        }
        let mut touched = Vec::new();
        for op in code {
            touched.clear();
            value_regs(op, mmas, &mut touched);
            let start = acc.slots.len() as u32;
            for &r in &touched {
                let slot = slot_of[r as usize];
                if slot != u32::MAX && !acc.slots[start as usize..].contains(&slot) {
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
}

/// Appends the value registers `op` reads or writes (predicates aside) to
/// `out`; nothing for the `wgmma` family, whose accumulators are tracked
/// by their own rules. `mmas` is the kernel's table of `mma.sync`s.
fn value_regs(op: &Op, mmas: &[Mma], out: &mut Vec<u32>) {
    let mut src = |s: Src| {
        if let Src::R(r) = s {
            out.push(r);
        }
    };
    match *op {
        Op::Mov { d, a } | Op::I1 { d, a, .. } | Op::FNeg32 { d, a } | Op::FNeg64 { d, a } => {
            src(Src::R(d));
            src(a);
        }
        Op::I2 { d, a, b, .. } | Op::IDiv { d, a, b, .. } | Op::F2 { d, a, b, .. } => {
            src(Src::R(d));
            src(a);
            src(b);
        }
        Op::I3 { d, a, b, c, .. } | Op::Fma32 { d, a, b, c } | Op::Fma64 { d, a, b, c } => {
            src(Src::R(d));
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
            src(Src::R(d));
            src(a);
            src(b);
        }
        Op::LdParam { d, n, .. } => d[..n as usize].iter().for_each(|&r| src(Src::R(r))),
        Op::Ld { d, n, base, .. } => {
            d[..n as usize].iter().for_each(|&r| src(Src::R(r)));
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
        Op::CpAsync(c) => {
            for base in [c.dst, c.src] {
                if let Base::Reg(r) = base {
                    src(Src::R(r));
                }
            }
            src(c.src_bytes);
        }
        Op::Mma(i) => {
            let m = &mmas[i as usize];
            out.extend(m.d.iter().chain(&m.a).chain(&m.b).chain(&m.c));
        }
        Op::PMov { .. }
        | Op::PAnd { .. }
        | Op::POr { .. }
        | Op::PNot { .. }
        | Op::CpAsyncCommit
        | Op::CpAsyncWait { .. }
        | Op::Wgmma(_)
        | Op::WgmmaFence
        | Op::WgmmaCommit
        | Op::WgmmaWait { .. }
        | Op::FenceProxyAsync
        | Op::Bar { .. }
        | Op::Bra { .. }
        | Op::Ret => {}
    }
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
}
