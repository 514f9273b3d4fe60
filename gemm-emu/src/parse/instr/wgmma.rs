//! The `wgmma` family (its `fence.proxy.async` is read with the other fences,
//! in `atomic.rs`): the forms the IR has ([`gemm_codegen::ptx::WgmmaShape`]),
//! spelled exactly as the writer prints them, every operand checked — the
//! TF32 `m64nNk8.f32.tf32.tf32` (A by descriptor or from registers, no
//! transpose immediates: K-major only) and the 16-bit
//! `m64nNk16.f32.f16.f16` and `.f32.bf16.bf16` (A and B by descriptor,
//! followed by `imm-trans-a` and `imm-trans-b`, 0 for K-major, 1 for
//! MN-major); any other shape or type is an error naming the forms the
//! emulator has. And `setmaxnreg`, which the warp-specialized `wgmma`
//! kernels use.

use gemm_codegen::ptx::{
    Instr, Major, Operand, Reg, SETMAXNREG_MAX, SETMAXNREG_MIN, Type, WgmmaInput, WgmmaShape,
};

use super::{Arg, Ctx, ParseError, compatible, unknown};

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 count`, the count 24 … 256 and
/// a multiple of 8.
pub(super) fn setmaxnreg(cx: &Ctx<'_>, parts: &[&str], args: Vec<Arg>) -> Result<Instr, ParseError> {
    let inc = match parts {
        ["setmaxnreg", "inc", "sync", "aligned", "u32"] => true,
        ["setmaxnreg", "dec", "sync", "aligned", "u32"] => false,
        _ => {
            return cx
                .fail("expected `setmaxnreg.inc.sync.aligned.u32` or `setmaxnreg.dec.sync.aligned.u32`");
        }
    };
    match args.as_slice() {
        [Arg::Op(Operand::Imm(n))] => match u32::try_from(*n) {
            Ok(count) if (SETMAXNREG_MIN..=SETMAXNREG_MAX).contains(&count) && count.is_multiple_of(8) => {
                Ok(Instr::SetMaxNReg { inc, count })
            }
            _ => cx.fail(format!(
                "register count {n} is not a multiple of 8 from {SETMAXNREG_MIN} to {SETMAXNREG_MAX}"
            )),
        },
        _ => cx.fail("expected one immediate register count (`setmaxnreg.dec.sync.aligned.u32 40`)"),
    }
}

/// The input type a `wgmma.mma_async`'s type suffix names.
fn input(name: &str) -> Option<WgmmaInput> {
    [WgmmaInput::Tf32, WgmmaInput::F16, WgmmaInput::Bf16].into_iter().find(|i| i.name() == name)
}

/// `wgmma.mma_async.sync.aligned.m64nNkK.f32.T.T {d}, a, b_desc, scale_d,
/// ±1, ±1` (T `tf32`, K 8: A by descriptor, `a_desc`, or from four
/// registers, `{a0, a1, a2, a3}`; T `f16` or `bf16`, K 16: A by
/// descriptor, then `imm-trans-a, imm-trans-b`), `wgmma.fence.sync.aligned`,
/// `wgmma.commit_group.sync.aligned` and `wgmma.wait_group.sync.aligned n`.
pub(super) fn wgmma(cx: &Ctx<'_>, parts: &[&str], args: Vec<Arg>) -> Result<Instr, ParseError> {
    match parts {
        ["wgmma", "fence", "sync", "aligned"] => cx.arity(&args, 0).map(|()| Instr::WgmmaFence),
        ["wgmma", "commit_group", "sync", "aligned"] => cx.arity(&args, 0).map(|()| Instr::WgmmaCommit),
        ["wgmma", "wait_group", "sync", "aligned"] => match args.as_slice() {
            [Arg::Op(Operand::Imm(n))] => match u32::try_from(*n) {
                Ok(n) => Ok(Instr::WgmmaWait { n }),
                Err(_) => cx.fail(format!("group count {n} is not a 32-bit unsigned integer")),
            },
            _ => cx.fail("expected one immediate group count (`wgmma.wait_group.sync.aligned 0`)"),
        },
        ["wgmma", "mma_async", "sync", "aligned", shape, "f32", a, b] if a == b && input(a).is_some() => {
            let input = input(a).expect("matched");
            let k = format!("k{}", WgmmaShape::K_BYTES / input.bytes());
            let n = shape.strip_prefix("m64n").and_then(|s| s.strip_suffix(&k)).and_then(|n| n.parse().ok());
            match n.and_then(|n| WgmmaShape::new(input, n)) {
                Some(shape) => mma_async(cx, shape, args),
                None => cx.fail(format!(
                    "`{shape}` is not a .{} wgmma shape: m64nN{k} with N a multiple of 8 from 8 to 256",
                    input.name()
                )),
            }
        }
        ["wgmma", "mma_async", ..] => cx.fail(
            "expected `wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32` (B by descriptor, A by descriptor \
             or from registers) or `.m64nNk16.f32.f16.f16` or `.m64nNk16.f32.bf16.bf16` (A and B by \
             descriptor): the emulator has these wgmma only",
        ),
        _ => unknown(cx),
    }
}

/// The operands of a `wgmma.mma_async` of shape `shape`: A by descriptor
/// ([`Instr::Wgmma`]), with the transpose immediates for the 16-bit
/// inputs, or, given as a vector, from four `.b32` registers
/// ([`Instr::WgmmaRs`], TF32 only).
fn mma_async(cx: &Ctx<'_>, shape: WgmmaShape, args: Vec<Arg>) -> Result<Instr, ParseError> {
    let ty = shape.input.name();
    let a_regs = matches!(args.get(1), Some(Arg::Vec(_)));
    match (shape.input.transposes(), args.len()) {
        (true, _) if a_regs => {
            return cx.fail(format!(
                "A from registers: the emulator has it for .tf32 only; give a .{ty} A by descriptor"
            ));
        }
        (false, 8) => {
            return cx.fail(format!(
                "a .{ty} wgmma has no imm-trans-a or imm-trans-b (its operands are K-major): expected 6 \
                 operands, found 8"
            ));
        }
        (true, 6) => {
            return cx.fail(format!(
                "a .{ty} wgmma takes imm-trans-a and imm-trans-b (0 K-major, 1 MN-major) after imm-scale-b: \
                 expected 8 operands, found 6"
            ));
        }
        (true, _) => cx.arity(&args, 8)?,
        (false, _) => cx.arity(&args, 6)?,
    }
    let count = shape.d_per_thread() as usize;
    let Arg::Vec(ops) = &args[0] else {
        return cx.fail(format!(
            "D must be a vector `{{...}}` of {count} registers, found {}",
            args[0].describe()
        ));
    };
    if ops.len() != count {
        return cx.fail(format!("D has {} registers; {} takes {count} a thread", ops.len(), shape.name()));
    }
    let d = ops
        .iter()
        .map(|&op| match op {
            Operand::Reg(r) if r.ty() == Type::F32 => Ok(r),
            Operand::Reg(r) => {
                cx.fail(format!("D {} of type {} must be an `.f32` register", cx.reg_name(r), r.ty()))
            }
            _ => cx.fail("D must hold registers only"),
        })
        .collect::<Result<Vec<Reg>, _>>()?;
    let desc = |arg: &Arg, what: &str| match arg {
        Arg::Op(Operand::Reg(r)) if compatible(r.ty(), Type::B64) => Ok(*r),
        Arg::Op(Operand::Reg(r)) => {
            cx.fail(format!("{what} {} of type {} must be a 64-bit register", cx.reg_name(*r), r.ty()))
        }
        a => cx.fail(format!("{what} must be a 64-bit register, found {}", a.describe())),
    };
    let a = match &args[1] {
        Arg::Vec(ops) => A::Regs(a_fragment(cx, ops)?),
        arg => A::Desc(desc(arg, "A's descriptor")?),
    };
    let b_desc = desc(&args[2], "B's descriptor")?;
    let scale_d = match &args[3] {
        Arg::Op(Operand::Reg(r)) if r.ty() == Type::Pred => *r,
        a => return cx.fail(format!("scale-d must be a `.pred` register, found {}", a.describe())),
    };
    let negated = |arg: &Arg, what: &str| match arg {
        Arg::Op(Operand::Imm(1)) => Ok(false),
        Arg::Op(Operand::Imm(-1)) => Ok(true),
        a => cx.fail(format!("{what} must be the integer 1 or -1, found {}", a.describe())),
    };
    let (neg_a, neg_b) = (negated(&args[4], "imm-scale-a")?, negated(&args[5], "imm-scale-b")?);
    let trans = |arg: &Arg, what: &str| match arg {
        Arg::Op(Operand::Imm(0)) => Ok(Major::K),
        Arg::Op(Operand::Imm(1)) => Ok(Major::Mn),
        a => {
            cx.fail(format!("{what} must be the integer 0 (K-major) or 1 (MN-major), found {}", a.describe()))
        }
    };
    let major = match args.get(6..8) {
        Some([ta, tb]) => (trans(ta, "imm-trans-a")?, trans(tb, "imm-trans-b")?),
        _ => (Major::K, Major::K),
    };
    Ok(match a {
        A::Desc(a_desc) => Instr::Wgmma { shape, d, a_desc, b_desc, scale_d, neg_a, neg_b, major },
        A::Regs(a) => Instr::WgmmaRs { shape, d, a, b_desc, scale_d, neg_a, neg_b },
    })
}

/// Where a `wgmma.mma_async` takes A from, as parsed.
enum A {
    Desc(Reg),
    Regs([Reg; 4]),
}

/// A's four registers `{a0, a1, a2, a3}` of a `wgmma.mma_async` with A from
/// registers: `.b32`, as the builder's [`Instr::wgmma_rs`] wants them (they
/// hold TF32 values, which PTX types as `.b32`).
fn a_fragment(cx: &Ctx<'_>, ops: &[Operand]) -> Result<[Reg; 4], ParseError> {
    let regs = ops
        .iter()
        .map(|&op| match op {
            Operand::Reg(r) if r.ty() == Type::B32 => Ok(r),
            Operand::Reg(r) => {
                cx.fail(format!("A {} of type {} must be a `.b32` register", cx.reg_name(r), r.ty()))
            }
            _ => cx.fail("A's vector must hold registers only"),
        })
        .collect::<Result<Vec<Reg>, _>>()?;
    match <[Reg; 4]>::try_from(regs) {
        Ok(a) => Ok(a),
        Err(regs) => cx.fail(format!("A from registers has {} registers, not 4 a thread", regs.len())),
    }
}
