//! `atom.relaxed.gpu.global.inc.u32` and the fences (`fence.acq_rel.gpu`,
//! and `fence.proxy.async.shared::cta` of the `wgmma` family): the forms the IR has,
//! spelled exactly as the writer prints them; any other atomic or fence is
//! an error naming the forms the emulator has.

use gemm_codegen::ptx::{AddrBase, Instr, Operand, Type};

use super::{Arg, Ctx, ParseError};

/// `atom.relaxed.gpu.global.inc.u32 d, [addr], bound`.
pub(super) fn atom(cx: &Ctx<'_>, args: Vec<Arg>) -> Result<Instr, ParseError> {
    if cx.opcode != "atom.relaxed.gpu.global.inc.u32" {
        return cx.fail("the emulator has `atom.relaxed.gpu.global.inc.u32` only");
    }
    cx.arity(&args, 3)?;
    let dst = cx.dst(&args[0], Type::U32)?;
    if dst.ty() != Type::U32 {
        return cx.fail(format!(
            "the old value goes to a `.u32` register, not {} of type {}",
            cx.reg_name(dst),
            dst.ty()
        ));
    }
    let addr = cx.addr(&args[1])?;
    match addr.base {
        AddrBase::Reg(r) if r.ty() == Type::Pred || r.ty().is_float() => {
            return cx.fail(format!("address register {} has type {}", cx.reg_name(r), r.ty()));
        }
        AddrBase::Reg(_) => {}
        AddrBase::Shared(s) => {
            let name = &cx.kernel.shared[s.index()].name;
            return cx.fail(format!("the counter is a global address, not shared array `{name}`"));
        }
        AddrBase::Param(p) => {
            let name = &cx.kernel.params[p.index()].name;
            return cx.fail(format!(
                "parameter `{name}` is not an address in global: load it with `ld.param` first"
            ));
        }
    }
    let bound = match args[2] {
        Arg::Op(Operand::Imm(n)) if u32::try_from(n).is_err() => {
            return cx.fail(format!("bound {n} is not a 32-bit unsigned integer"));
        }
        ref a => cx.src(a, Type::U32)?,
    };
    Ok(Instr::AtomInc { dst, addr, bound })
}

/// `fence.acq_rel.gpu` and `fence.proxy.async.shared::cta`.
pub(super) fn fence(cx: &Ctx<'_>, args: Vec<Arg>) -> Result<Instr, ParseError> {
    match cx.opcode {
        "fence.acq_rel.gpu" => cx.arity(&args, 0).map(|()| Instr::FenceAcqRelGpu),
        "fence.proxy.async.shared::cta" => cx.arity(&args, 0).map(|()| Instr::FenceProxyAsync),
        _ => cx.fail("the emulator has `fence.acq_rel.gpu` and `fence.proxy.async.shared::cta` only"),
    }
}
