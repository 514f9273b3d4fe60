//! The TMA family (`gemm_codegen::ptx::Tma`): a parameter's address
//! (`mov.u64 %rd, name` and `cvta.param.u64`), `mbarrier.init`,
//! `mbarrier.arrive.expect_tx`, `mbarrier.try_wait.parity` (all
//! `.shared::cta.b64`) and the 3-d tile form of `cp.async.bulk.tensor`,
//! spelled exactly as the writer prints them.

use gemm_codegen::ptx::{AddrBase, Address, Instr, Operand, Reg, Tma, Type};

use super::{Arg, Ctx, ParseError};

/// `mov.u64 dst, param`: the parameter's address.
pub(super) fn param_addr(cx: &Ctx<'_>, args: &[Arg]) -> Result<Option<Instr>, ParseError> {
    let [dst, Arg::Param(param)] = args else { return Ok(None) };
    if cx.opcode != "mov.u64" {
        return cx.fail("a parameter's address is a `.u64`: write `mov.u64`");
    }
    let dst = u64_reg(cx, cx.dst(dst, Type::U64)?, "the address")?;
    Ok(Some(Instr::Tma(Tma::ParamAddr { dst, param: *param })))
}

/// `cvta.param.u64 dst, src`.
pub(super) fn cvta_param(cx: &Ctx<'_>, args: &[Arg]) -> Result<Instr, ParseError> {
    cx.arity(args, 2)?;
    let dst = u64_reg(cx, cx.dst(&args[0], Type::U64)?, "the generic address")?;
    let src = u64_reg(cx, cx.src_reg(&args[1], Type::U64)?, "the parameter address")?;
    Ok(Instr::Tma(Tma::CvtaParam { dst, src }))
}

/// `mbarrier.{init, arrive.expect_tx, try_wait.parity}.shared::cta.b64`.
pub(super) fn mbarrier(cx: &Ctx<'_>, args: &[Arg]) -> Result<Instr, ParseError> {
    let tma = match cx.opcode {
        "mbarrier.init.shared::cta.b64" => {
            cx.arity(args, 2)?;
            Tma::MbarrierInit { bar: shared(cx, &args[0])?, count: imm_u32(cx, &args[1], "arrival count")? }
        }
        "mbarrier.arrive.expect_tx.shared::cta.b64" => {
            cx.arity(args, 3)?;
            if !matches!(args[0], Arg::Sink) {
                return cx.fail("the emulator has the state-less arrival only: write `_` for its result");
            }
            Tma::MbarrierArriveExpectTx {
                bar: shared(cx, &args[1])?,
                bytes: imm_u32(cx, &args[2], "transaction byte count")?,
            }
        }
        "mbarrier.try_wait.parity.shared::cta.b64" => {
            cx.arity(args, 3)?;
            let done = cx.dst(&args[0], Type::Pred)?;
            let parity = cx.src(&args[2], Type::U32)?;
            Tma::MbarrierTryWait { done, bar: shared(cx, &args[1])?, parity }
        }
        _ => {
            return cx.fail(
                "the emulator has `mbarrier.init`, `mbarrier.arrive.expect_tx` and \
                 `mbarrier.try_wait.parity`, each `.shared::cta.b64`",
            );
        }
    };
    Ok(Instr::Tma(tma))
}

/// The opcode of the one bulk tensor copy the emulator has.
const TENSOR_LOAD: &str = "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes";

/// `cp.async.bulk.tensor.3d.… [dst], [map, {c0, c1, c2}], [bar]`.
pub(super) fn tensor_load(cx: &Ctx<'_>, args: &[Arg]) -> Result<Instr, ParseError> {
    if cx.opcode != TENSOR_LOAD {
        return cx.fail(format!("the emulator has one bulk copy, `{TENSOR_LOAD}`"));
    }
    cx.arity(args, 3)?;
    let Arg::Tensor(map, coords) = &args[1] else {
        return cx.fail(format!(
            "expected a tensor operand `[map, {{c0, c1, c2}}]`, found {}",
            args[1].describe()
        ));
    };
    let map = u64_reg(cx, *map, "the tensor map's address")?;
    let [c0, c1, c2] = coords[..] else {
        return cx.fail(format!("a 3-d copy takes 3 coordinates, not {}", coords.len()));
    };
    for c in [c0, c1, c2] {
        cx.check(c, Type::S32, "coordinate")?;
    }
    Ok(Instr::Tma(Tma::TensorLoad {
        dst: shared(cx, &args[0])?,
        map,
        coords: [c0, c1, c2],
        bar: shared(cx, &args[2])?,
    }))
}

fn u64_reg(cx: &Ctx<'_>, r: Reg, what: &str) -> Result<Reg, ParseError> {
    if r.ty() == Type::U64 || r.ty() == Type::B64 {
        Ok(r)
    } else {
        cx.fail(format!("{what} is a 64-bit register, not {} of type {}", cx.reg_name(r), r.ty()))
    }
}

/// A shared address: a 32-bit register holding a shared-window address, or
/// a shared array, plus an offset.
fn shared(cx: &Ctx<'_>, arg: &Arg) -> Result<Address, ParseError> {
    let addr = cx.addr(arg)?;
    match addr.base {
        AddrBase::Reg(r) if matches!(r.ty(), Type::U32 | Type::B32 | Type::S32) => Ok(addr),
        AddrBase::Reg(r) => cx.fail(format!(
            "a shared address is a 32-bit register, not {} of type {}",
            cx.reg_name(r),
            r.ty()
        )),
        AddrBase::Shared(_) => Ok(addr),
        AddrBase::Param(p) => cx.fail(format!(
            "expected a shared address, found parameter `{}`",
            cx.kernel.params[p.index()].name
        )),
    }
}

fn imm_u32(cx: &Ctx<'_>, arg: &Arg, what: &str) -> Result<u32, ParseError> {
    match arg {
        Arg::Op(Operand::Imm(n)) => match u32::try_from(*n) {
            Ok(n) => Ok(n),
            Err(_) => cx.fail(format!("{what} {n} is not a 32-bit unsigned integer")),
        },
        a => cx.fail(format!("expected an immediate {what}, found {}", a.describe())),
    }
}
