//! The instructions of the 16-bit precisions, spelled as the writer prints
//! them: `ld.space.b16` and `st.space.b16` through a 32-bit register (the
//! only place `.b16` appears: no register is declared `.b16`), and the
//! conversions `cvt.f32.f16`, `cvt.rn.f16x2.f32` and `cvt.rn.bf16x2.f32`
//! ([`HalfCvt`]).

use gemm_codegen::ptx::{Address, CacheQual, HalfCvt, Instr, Operand, Reg, Space, Type};

use super::{Arg, Ctx, ParseError};

/// Whether a register of type `ty` may carry the 16 bits of a `.b16` load
/// or store: PTX allows a register wider than the instruction's bit-size
/// type, zero-extending on a load; gemmforge uses `.b32`.
fn holds_b16(ty: Type) -> bool {
    matches!(ty, Type::B32 | Type::U32 | Type::S32)
}

/// `ld.space{.qual}.b16 r, [addr]` (`load`) or `st.space.b16 [addr], x`,
/// one value (the caller has refused `.v2` and `.v4`) at `addr`, checked.
pub(super) fn memory_b16(
    cx: &Ctx<'_>,
    (load, space, qual): (bool, Space, CacheQual),
    args: &[Arg],
    addr: Address,
) -> Result<Instr, ParseError> {
    if space == Space::Param {
        return cx.fail("`.param` is not read or written as .b16");
    }
    let data = if load { &args[0] } else { &args[1] };
    let wrong = |shown: String| {
        cx.fail(format!(
            "a .b16 {} {shown}: the 16 bits travel in a 32-bit integer register (`.b32`)",
            if load { "load into" } else { "store of" }
        ))
    };
    match data {
        Arg::Op(Operand::Reg(r)) if holds_b16(r.ty()) => {
            let r: Reg = *r;
            if load {
                Ok(Instr::Ld { space, qual, ty: Type::B16, dst: vec![r], addr })
            } else {
                Ok(Instr::St { space, ty: Type::B16, addr, src: vec![Operand::Reg(r)] })
            }
        }
        Arg::Op(Operand::Reg(r)) => wrong(format!("{} of type {}", cx.reg_name(*r), r.ty())),
        Arg::Op(Operand::Imm(v)) if !load && (0..=0xffff).contains(v) => {
            Ok(Instr::St { space, ty: Type::B16, addr, src: vec![Operand::Imm(*v)] })
        }
        Arg::Op(Operand::Imm(v)) if !load => {
            cx.fail(format!("a .b16 store of {v}, which needs more than 16 bits"))
        }
        a => wrong(a.describe().to_owned()),
    }
}

/// `cvt.f32.f16 f, r` (`pack` `None`), `cvt.rn.f16x2.f32 r, hi, lo`
/// (`Some(false)`) and `cvt.rn.bf16x2.f32 r, hi, lo` (`Some(true)`).
pub(super) fn cvt(cx: &Ctx<'_>, pack: Option<bool>, args: &[Arg]) -> Result<Instr, ParseError> {
    let reg = |arg: &Arg, ty: Type, what: &str| match arg {
        Arg::Op(Operand::Reg(r)) if r.ty() == ty => Ok(*r),
        Arg::Op(Operand::Reg(r)) => {
            cx.fail(format!("{what} {} of type {} must be a `{ty}` register", cx.reg_name(*r), r.ty()))
        }
        a => cx.fail(format!("{what} must be a `{ty}` register, found {}", a.describe())),
    };
    Ok(match pack {
        None => {
            cx.arity(args, 2)?;
            let dst = reg(&args[0], Type::F32, "the destination")?;
            let src = reg(&args[1], Type::B32, "the source (an f16 in its low half)")?;
            Instr::CvtHalf(HalfCvt::F16ToF32 { dst, src })
        }
        Some(bf16) => {
            cx.arity(args, 3)?;
            let dst = reg(&args[0], Type::B32, "the destination (the pair)")?;
            let hi = reg(&args[1], Type::F32, "the upper half's source")?;
            let lo = reg(&args[2], Type::F32, "the lower half's source")?;
            Instr::CvtHalf(HalfCvt::Pack { dst, hi, lo, bf16 })
        }
    })
}
