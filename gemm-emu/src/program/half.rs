//! What the decoder makes of the instructions of the 16-bit precisions
//! (`f16`, `bf16`): 16-bit global loads and stores through 32-bit
//! registers, and the conversions between f32 and a 16-bit float held in
//! a `.b32` register's low half ([`HalfCvt`]).
//!
//! PTX lets `ld` and `st` of type `.b16` name a 32-bit register: a load
//! zero-extends, a store writes the low 16 bits. The IR writes them with
//! [`Type::B16`], which no register is declared with. Only global memory
//! is modelled: the race detector tells shared words apart, not their
//! halves (global memory it tells apart by half-word in a kernel with
//! these accesses, see `memory.rs`), and gemmforge moves 16-bit shared
//! data only in whole words or by TMA.

use gemm_codegen::ptx::{self, Address, HalfCvt, Operand, Space, Type};

use super::op::{F2, I1, Src};
use super::{Decoder, Op};
use crate::error::EmuError;

/// Whether a register of type `ty` may hold the 16 bits of a `.b16` load or
/// store: a 32-bit integer or bits register (PTX's "wider than the
/// instruction type"; never a float or predicate).
fn holds_b16(ty: Type) -> bool {
    matches!(ty, Type::B32 | Type::U32 | Type::S32)
}

impl Decoder<'_> {
    /// `ld.space.b16 dst, [addr]` into `dst` (one register).
    pub(super) fn ld_b16(&self, space: Space, dst: &[ptx::Reg], addr: Address) -> Result<Op, EmuError> {
        let &[d] = dst else {
            return self
                .unsupported(format!("a .b16 load of {} values (one, into a .b32 register)", dst.len()));
        };
        if !holds_b16(d.ty()) {
            return self.unsupported(format!(
                "a .b16 load into {} of type {}: it fills a 32-bit integer register (.b32)",
                self.name(d),
                d.ty()
            ));
        }
        self.global_b16(space, "load")?;
        Ok(Op::LdB16 { d: self.val(d)?, base: self.base(space, addr.base)?, off: addr.offset })
    }

    /// `st.space.b16 [addr], src` of `src` (one value).
    pub(super) fn st_b16(&self, space: Space, addr: Address, src: &[Operand]) -> Result<Op, EmuError> {
        let &[s] = src else {
            return self.unsupported(format!("a .b16 store of {} values (one, a .b32 register)", src.len()));
        };
        if let Operand::Reg(r) = s
            && !holds_b16(r.ty())
        {
            return self.unsupported(format!(
                "a .b16 store of {} of type {}: it takes a 32-bit integer register (.b32)",
                self.name(r),
                r.ty()
            ));
        }
        if !matches!(s, Operand::Reg(_) | Operand::Imm(_)) {
            return self.unsupported("a .b16 store of a value that is neither a register nor an integer");
        }
        self.global_b16(space, "store")?;
        Ok(Op::StB16 { s: self.src(s, 32)?, base: self.base(space, addr.base)?, off: addr.offset })
    }

    /// Fails unless a 16-bit access is to global memory.
    fn global_b16(&self, space: Space, what: &str) -> Result<(), EmuError> {
        match space {
            Space::Global => Ok(()),
            Space::Shared => self.unsupported(format!(
                "a .b16 shared {what}: the emulator models 16-bit accesses of global memory only (its race \
                 detector tells shared words apart, not their halves); move shared data in whole words"
            )),
            Space::Param => self.unsupported(format!("a .b16 {what} of .param")),
        }
    }

    /// A conversion between f32 and a 16-bit float, its registers checked
    /// as the builder's constructors ([`ptx::Instr::cvt_f32_f16`],
    /// [`ptx::Instr::cvt_pack_half`]) check them (the IR's fields are
    /// public, so a module may hold what the builder refuses).
    pub(super) fn half_cvt(&self, cvt: HalfCvt) -> Result<Op, EmuError> {
        let need = |r: ptx::Reg, ty: Type, what: &str| {
            if r.ty() == ty {
                Ok(())
            } else {
                self.unsupported(format!("{what} {} of type {} is not a {ty} register", self.name(r), r.ty()))
            }
        };
        match cvt {
            HalfCvt::F16ToF32 { dst, src } => {
                need(dst, Type::F32, "`cvt.f32.f16` destination")?;
                need(src, Type::B32, "`cvt.f32.f16` source")?;
                Ok(Op::I1 { f: I1::F16ToF32, d: self.val(dst)?, a: Src::R(self.val(src)?) })
            }
            HalfCvt::Pack { dst, hi, lo, bf16 } => {
                need(dst, Type::B32, "a 16-bit pair's destination")?;
                need(hi, Type::F32, "a 16-bit pair's source")?;
                need(lo, Type::F32, "a 16-bit pair's source")?;
                let f = if bf16 { F2::PackBf16 } else { F2::PackF16 };
                Ok(Op::F2 { f, d: self.val(dst)?, a: Src::R(self.val(hi)?), b: Src::R(self.val(lo)?) })
            }
        }
    }
}
