//! From an opcode and its parsed operands to an [`Instr`], checking every
//! operand as the builder's constructors would (but by PTX's own typing
//! rules).

use std::fmt;

use gemm_codegen::ptx::binop_mnemonic;
use gemm_codegen::ptx::{
    AddrBase, Address, BinOp, CacheQual, Cmp, CpAsyncCache, Instr, Kernel, Label, MmaKind, Operand,
    ParamType, Reg, Space, Type, UnOp,
};

use super::{Arg, ParseError, err};

mod atomic;
mod half;
mod tma;
mod wgmma;

/// Whether a register declared `reg` may be an operand of an instruction of
/// type `ty`, by PTX's rules: same size, and either both integers, or one of
/// them untyped bits, or the same floating-point type. Predicates match only
/// predicates.
fn compatible(reg: Type, ty: Type) -> bool {
    if reg == Type::Pred || ty == Type::Pred {
        return reg == ty;
    }
    if reg.bits() != ty.bits() {
        return false;
    }
    let bits = |t: Type| matches!(t, Type::B32 | Type::B64);
    reg == ty || bits(reg) || bits(ty) || !reg.is_float() && !ty.is_float()
}

struct Ctx<'k> {
    kernel: &'k Kernel,
    line: u32,
    opcode: &'k str,
}

impl Ctx<'_> {
    fn fail<T>(&self, message: impl fmt::Display) -> Result<T, ParseError> {
        err(self.line, format!("`{}`: {message}", self.opcode))
    }

    fn reg_name(&self, r: Reg) -> String {
        format!("%{}", self.kernel.regs[r.index()].name)
    }

    /// Checks that operand `op` may be read as type `ty`.
    fn check(&self, op: Operand, ty: Type, what: &str) -> Result<(), ParseError> {
        let ok = match op {
            Operand::Reg(r) => compatible(r.ty(), ty),
            Operand::Imm(_) => !ty.is_float() && ty != Type::Pred,
            Operand::F32(_) => matches!(ty, Type::F32 | Type::B32),
            Operand::F64(_) => matches!(ty, Type::F64 | Type::B64),
            Operand::Special(_) => matches!(ty, Type::U32 | Type::S32 | Type::B32),
            Operand::Shared(_) => matches!(ty, Type::U32 | Type::B32 | Type::U64 | Type::B64),
            Operand::Global(_) => matches!(ty, Type::U64 | Type::B64),
        };
        if ok {
            return Ok(());
        }
        let shown = match op {
            Operand::Reg(r) => format!("{} of type {}", self.reg_name(r), r.ty()),
            Operand::Imm(v) => format!("integer {v}"),
            Operand::F32(b) => format!("0f{b:08X}"),
            Operand::F64(b) => format!("0d{b:016X}"),
            Operand::Special(s) => s.name().to_owned(),
            Operand::Shared(s) => format!("shared array `{}`", self.kernel.shared[s.index()].name),
            Operand::Global(g) => format!("global array `{}`", self.kernel.globals[g.index()].name),
        };
        self.fail(format!("{what} {shown} cannot be used as {ty}"))
    }

    fn dst(&self, arg: &Arg, ty: Type) -> Result<Reg, ParseError> {
        match arg {
            Arg::Op(Operand::Reg(r)) => {
                self.check(Operand::Reg(*r), ty, "destination")?;
                Ok(*r)
            }
            a => self.fail(format!("the destination must be a register, found {}", a.describe())),
        }
    }

    fn src(&self, arg: &Arg, ty: Type) -> Result<Operand, ParseError> {
        match arg {
            Arg::Op(op) => {
                self.check(*op, ty, "operand")?;
                Ok(*op)
            }
            a => self.fail(format!("expected a register or immediate, found {}", a.describe())),
        }
    }

    fn src_reg(&self, arg: &Arg, ty: Type) -> Result<Reg, ParseError> {
        match self.src(arg, ty)? {
            Operand::Reg(r) => Ok(r),
            _ => self.fail("this operand must be a register"),
        }
    }

    fn arity(&self, args: &[Arg], n: usize) -> Result<(), ParseError> {
        if args.len() == n {
            Ok(())
        } else {
            self.fail(format!("expected {n} operands, found {}", args.len()))
        }
    }

    fn addr(&self, arg: &Arg) -> Result<Address, ParseError> {
        match arg {
            Arg::Addr(a) => Ok(*a),
            a => self.fail(format!("expected an address `[...]`, found {}", a.describe())),
        }
    }
}

fn vector_count(q: &str) -> Option<usize> {
    match q {
        "v2" => Some(2),
        "v4" => Some(4),
        _ => None,
    }
}

/// Builds the instruction `opcode args`, checking every operand as the
/// builder's constructors would (but by PTX's own typing rules).
pub(super) fn build(
    kernel: &Kernel,
    line: u32,
    opcode: &str,
    args: Vec<Arg>,
) -> Result<(Instr, Option<String>), ParseError> {
    let cx = Ctx { kernel, line, opcode };
    let parts: Vec<&str> = opcode.split('.').collect();
    let last_ty = || parts.last().and_then(|t| Type::from_name(t));
    let head = parts[0];
    let instr = match head {
        "ld" | "st" => return memory(&cx, &parts, args).map(|i| (i, None)),
        "cp" if opcode.starts_with("cp.async.bulk.") => {
            return tma::tensor_load(&cx, &args).map(|i| (i, None));
        }
        "cp" => return cp_async(&cx, args).map(|i| (i, None)),
        "mbarrier" => return tma::mbarrier(&cx, &args).map(|i| (i, None)),
        "mma" => return mma(&cx, &parts, args).map(|i| (i, None)),
        "wgmma" => return wgmma::wgmma(&cx, &parts, args).map(|i| (i, None)),
        "setmaxnreg" => return wgmma::setmaxnreg(&cx, &parts, args).map(|i| (i, None)),
        "fence" => return atomic::fence(&cx, args).map(|i| (i, None)),
        "atom" => return atomic::atom(&cx, args).map(|i| (i, None)),
        "mov" => {
            cx.arity(&args, 2)?;
            if let Some(addr) = tma::param_addr(&cx, &args)? {
                return Ok((addr, None));
            }
            let ty = match (parts.len(), last_ty()) {
                (2, Some(t)) => t,
                _ => return unknown(&cx),
            };
            let dst = cx.dst(&args[0], ty)?;
            if dst.ty() != ty {
                return cx.fail(format!(
                    "the IR's `mov` has its destination's type: write `mov{}` for {}",
                    dst.ty(),
                    cx.reg_name(dst)
                ));
            }
            Instr::Mov { dst, src: cx.src(&args[1], ty)? }
        }
        "cvta" if opcode == "cvta.param.u64" => return tma::cvta_param(&cx, &args).map(|i| (i, None)),
        "cvta" => {
            if opcode != "cvta.to.global.u64" {
                return unknown(&cx);
            }
            cx.arity(&args, 2)?;
            let dst = cx.dst(&args[0], Type::U64)?;
            let src = cx.src_reg(&args[1], Type::U64)?;
            if dst.ty() != Type::U64 || src.ty() != Type::U64 {
                return cx.fail("`cvta.to.global.u64` takes `.u64` registers");
            }
            Instr::CvtaToGlobal { dst, src }
        }
        "cvt" if opcode == "cvt.f32.f16" => return half::cvt(&cx, None, &args).map(|i| (i, None)),
        "cvt" if opcode == "cvt.rn.f16x2.f32" => {
            return half::cvt(&cx, Some(false), &args).map(|i| (i, None));
        }
        "cvt" if opcode == "cvt.rn.bf16x2.f32" => {
            return half::cvt(&cx, Some(true), &args).map(|i| (i, None));
        }
        "cvt" if opcode == "cvt.rna.tf32.f32" => {
            cx.arity(&args, 2)?;
            let dst = cx.dst(&args[0], Type::B32)?;
            let src = cx.src_reg(&args[1], Type::F32)?;
            if dst.ty() != Type::B32 || src.ty() != Type::F32 {
                return cx.fail(format!(
                    "`cvt.rna.tf32.f32` writes a `.b32` register from an `.f32` one, not {} from {}",
                    cx.reg_name(dst),
                    cx.reg_name(src)
                ));
            }
            Instr::CvtTf32 { dst, src }
        }
        "cvt" => {
            cx.arity(&args, 2)?;
            let (Some(d), Some(s)) = (parts.get(1).and_then(|t| Type::from_name(t)), last_ty()) else {
                return unknown(&cx);
            };
            if parts.len() != 3 || [d, s].iter().any(|t| t.is_float() || *t == Type::Pred) {
                return cx.fail("only integer conversions `cvt.D.S` are supported");
            }
            let dst = cx.dst(&args[0], d)?;
            let src = cx.src_reg(&args[1], s)?;
            if dst.ty() != d || src.ty() != s {
                return cx.fail(format!(
                    "the IR's `cvt` takes its registers' types: write `cvt{}{}` for {}, {}",
                    dst.ty(),
                    src.ty(),
                    cx.reg_name(dst),
                    cx.reg_name(src)
                ));
            }
            Instr::Cvt { dst, src }
        }
        "neg" | "not" => {
            cx.arity(&args, 2)?;
            let ty = match (parts.len(), last_ty()) {
                (2, Some(t)) => t,
                _ => return unknown(&cx),
            };
            let op = if head == "neg" { UnOp::Neg } else { UnOp::Not };
            let legal = match op {
                UnOp::Neg => ty.is_float() || ty.is_signed(),
                UnOp::Not => matches!(ty, Type::B32 | Type::B64 | Type::Pred),
            };
            if !legal {
                return cx.fail(format!("`{head}` is not defined on {ty}"));
            }
            Instr::Unary { op, ty, dst: cx.dst(&args[0], ty)?, src: cx.src(&args[1], ty)? }
        }
        "add" | "sub" | "mul" | "div" | "rem" | "and" | "or" | "xor" | "shl" | "shr" | "min" | "max" => {
            let Some(ty) = last_ty() else { return unknown(&cx) };
            let Some(op) = BinOp::ALL
                .into_iter()
                .find(|&op| format!("{}{ty}", binop_mnemonic(op, ty)) == opcode && binop_legal(op, ty))
            else {
                return unknown(&cx);
            };
            cx.arity(&args, 3)?;
            let dst_ty = if op == BinOp::MulWide { ty.wide().expect("checked by binop_legal") } else { ty };
            let b_ty = if matches!(op, BinOp::Shl | BinOp::Shr) { Type::U32 } else { ty };
            Instr::Binary {
                op,
                ty,
                dst: cx.dst(&args[0], dst_ty)?,
                a: cx.src(&args[1], ty)?,
                b: cx.src(&args[2], b_ty)?,
            }
        }
        "mad" => {
            let (wide, ty) = match (parts.as_slice(), last_ty()) {
                ([_, "lo", _], Some(t)) if !t.is_float() && t != Type::Pred && !is_bits(t) => (false, t),
                ([_, "wide", _], Some(t)) if t.wide().is_some() => (true, t),
                _ => return unknown(&cx),
            };
            cx.arity(&args, 4)?;
            let wide_ty = if wide { ty.wide().expect("checked") } else { ty };
            Instr::Mad {
                wide,
                ty,
                dst: cx.dst(&args[0], wide_ty)?,
                a: cx.src(&args[1], ty)?,
                b: cx.src(&args[2], ty)?,
                c: cx.src(&args[3], wide_ty)?,
            }
        }
        "fma" => {
            let ty = match (parts.as_slice(), last_ty()) {
                ([_, "rn", _], Some(t)) if t.is_float() => t,
                _ => return unknown(&cx),
            };
            cx.arity(&args, 4)?;
            Instr::Fma {
                ty,
                dst: cx.dst(&args[0], ty)?,
                a: cx.src(&args[1], ty)?,
                b: cx.src(&args[2], ty)?,
                c: cx.src(&args[3], ty)?,
            }
        }
        "setp" => {
            let (cmp, ty) = match (parts.as_slice(), last_ty()) {
                ([_, c, _], Some(t)) if t != Type::Pred => match Cmp::from_name(c) {
                    Some(c) => (c, t),
                    None => return unknown(&cx),
                },
                _ => return unknown(&cx),
            };
            cx.arity(&args, 3)?;
            Instr::Setp {
                cmp,
                ty,
                dst: cx.dst(&args[0], Type::Pred)?,
                a: cx.src(&args[1], ty)?,
                b: cx.src(&args[2], ty)?,
            }
        }
        "selp" => {
            let ty = match (parts.len(), last_ty()) {
                (2, Some(t)) if t != Type::Pred => t,
                _ => return unknown(&cx),
            };
            cx.arity(&args, 4)?;
            let dst = cx.dst(&args[0], ty)?;
            if dst.ty() != ty {
                return cx.fail(format!(
                    "the IR's `selp` has its destination's type: write `selp{}` for {}",
                    dst.ty(),
                    cx.reg_name(dst)
                ));
            }
            Instr::Selp {
                ty,
                dst,
                a: cx.src(&args[1], ty)?,
                b: cx.src(&args[2], ty)?,
                pred: cx.src_reg(&args[3], Type::Pred)?,
            }
        }
        "bar" => {
            let arrive = match opcode {
                "bar.sync" => false,
                "bar.arrive" => true,
                _ => return unknown(&cx),
            };
            let (id, threads) = match args.as_slice() {
                [Arg::Op(Operand::Imm(id))] => (*id, None),
                [Arg::Op(Operand::Imm(id)), Arg::Op(Operand::Imm(n))] => (*id, Some(*n)),
                _ => {
                    return cx.fail(
                        "expected a barrier number and, optionally, a thread count, both immediates \
                         (`bar.sync 0` or `bar.sync 1, 256`)",
                    );
                }
            };
            if !(0..16).contains(&id) {
                return cx.fail(format!("barrier {id} is not in 0..16"));
            }
            let id = id as u32;
            match (threads, arrive) {
                (None, false) => Instr::BarSync { id, threads: None },
                (None, true) => return cx.fail("`bar.arrive` needs a thread count (`bar.arrive 1, 256`)"),
                (Some(n), _) if n <= 0 || n % 32 != 0 || n > 1024 => {
                    return cx.fail(format!("thread count {n} is not a multiple of 32 in 32..=1024"));
                }
                (Some(n), false) => Instr::BarSync { id, threads: Some(n as u32) },
                (Some(n), true) => Instr::BarArrive { id, threads: n as u32 },
            }
        }
        "bra" => {
            let uni = match opcode {
                "bra" => false,
                "bra.uni" => true,
                _ => return unknown(&cx),
            };
            match args.as_slice() {
                [Arg::Label(name)] => {
                    return Ok((Instr::Bra { uni, target: Label::new(u32::MAX) }, Some(name.clone())));
                }
                _ => return cx.fail("expected one `$label` operand"),
            }
        }
        "ret" => {
            if opcode != "ret" {
                return unknown(&cx);
            }
            cx.arity(&args, 0)?;
            Instr::Ret
        }
        _ => return err(line, format!("unknown instruction `{opcode}`")),
    };
    Ok((instr, None))
}

fn unknown<T>(cx: &Ctx<'_>) -> Result<T, ParseError> {
    err(cx.line, format!("unknown or unsupported instruction `{}`", cx.opcode))
}

fn is_bits(t: Type) -> bool {
    matches!(t, Type::B32 | Type::B64)
}

/// Whether the IR's writer prints `op` on `ty` as a PTX instruction (the
/// combinations the builder's constructors make).
fn binop_legal(op: BinOp, ty: Type) -> bool {
    let int = !ty.is_float() && ty != Type::Pred;
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Min | BinOp::Max => {
            ty.is_float() || int && !is_bits(ty)
        }
        BinOp::MulWide => ty.wide().is_some(),
        BinOp::Div | BinOp::Rem => int && !is_bits(ty),
        BinOp::And | BinOp::Or => is_bits(ty) || ty == Type::Pred,
        BinOp::Xor => is_bits(ty),
        BinOp::Shl => is_bits(ty),
        BinOp::Shr => int,
    }
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], bytes{, src_bytes}`,
/// `cp.async.commit_group`, `cp.async.wait_group n` and `cp.async.wait_all`.
fn cp_async(cx: &Ctx<'_>, args: Vec<Arg>) -> Result<Instr, ParseError> {
    let cache = match cx.opcode {
        "cp.async.ca.shared.global" => CpAsyncCache::Ca,
        "cp.async.cg.shared.global" => CpAsyncCache::Cg,
        "cp.async.commit_group" | "cp.async.wait_all" => {
            cx.arity(&args, 0)?;
            let commit = cx.opcode == "cp.async.commit_group";
            return Ok(if commit { Instr::CpAsyncCommit } else { Instr::CpAsyncWaitAll });
        }
        "cp.async.wait_group" => {
            return match args.as_slice() {
                [Arg::Op(Operand::Imm(n))] => match u32::try_from(*n) {
                    Ok(n) => Ok(Instr::CpAsyncWait { n }),
                    Err(_) => cx.fail(format!("group count {n} is not a 32-bit unsigned integer")),
                },
                _ => cx.fail("expected one immediate group count (`cp.async.wait_group 1`)"),
            };
        }
        _ => return unknown(cx),
    };
    if !matches!(args.len(), 3 | 4) {
        return cx.fail(format!("expected 3 or 4 operands, found {}", args.len()));
    }
    let (dst, src) = (cx.addr(&args[0])?, cx.addr(&args[1])?);
    let bytes = match args[2] {
        Arg::Op(Operand::Imm(n)) if u32::try_from(n).is_ok_and(|n| cache.allows(n)) => n as u32,
        Arg::Op(Operand::Imm(n)) => {
            return cx.fail(format!("cp-size {n}: `.ca` copies 4, 8 or 16 bytes, `.cg` 16"));
        }
        ref a => return cx.fail(format!("expected an immediate cp-size, found {}", a.describe())),
    };
    let address_reg = |r: Reg| {
        if r.ty() == Type::Pred || r.ty().is_float() {
            return cx.fail(format!("address register {} has type {}", cx.reg_name(r), r.ty()));
        }
        Ok(())
    };
    match dst.base {
        AddrBase::Reg(r) => address_reg(r)?,
        AddrBase::Shared(_) => {}
        AddrBase::Param(p) => {
            let name = &cx.kernel.params[p.index()].name;
            return cx.fail(format!("the destination is a shared address, not parameter `{name}`"));
        }
    }
    match src.base {
        AddrBase::Reg(r) => address_reg(r)?,
        AddrBase::Shared(s) => {
            let name = &cx.kernel.shared[s.index()].name;
            return cx.fail(format!("the source is a global address, not shared array `{name}`"));
        }
        AddrBase::Param(p) => {
            let name = &cx.kernel.params[p.index()].name;
            return cx.fail(format!(
                "parameter `{name}` is not an address in global: load it with `ld.param` first"
            ));
        }
    }
    let src_bytes = match args.get(3) {
        None => None,
        Some(Arg::Op(Operand::Imm(n))) if (0..=i64::from(bytes)).contains(n) => Some(Operand::Imm(*n)),
        Some(Arg::Op(Operand::Imm(n))) => {
            return cx.fail(format!("src-size {n} is not in 0..={bytes}, the cp-size"));
        }
        Some(Arg::Op(op @ Operand::Reg(_))) => {
            cx.check(*op, Type::U32, "src-size")?;
            Some(*op)
        }
        Some(a) => {
            return cx
                .fail(format!("src-size must be a 32-bit register or an integer, found {}", a.describe()));
        }
    };
    Ok(Instr::CpAsync { cache, dst, src, bytes, src_bytes })
}

/// `mma.sync.aligned.{shape}.row.col{types} {d}, {a}, {b}, {c}`, the shapes
/// of each [`MmaKind`]: `.f64.f64.f64.f64` and `.f32.tf32.tf32.f32`.
fn mma(cx: &Ctx<'_>, parts: &[&str], args: Vec<Arg>) -> Result<Instr, ParseError> {
    let (shape, kind) = match parts {
        ["mma", "sync", "aligned", shape, "row", "col", "f64", "f64", "f64", "f64"] => (*shape, MmaKind::F64),
        ["mma", "sync", "aligned", shape, "row", "col", "f32", "tf32", "tf32", "f32"] => {
            (*shape, MmaKind::Tf32)
        }
        _ => {
            return cx.fail(
                "expected `mma.sync.aligned.{shape}.row.col` with `.f64.f64.f64.f64` or \
                 `.f32.tf32.tf32.f32`: the emulator has these mma only",
            );
        }
    };
    let dims = shape
        .strip_prefix('m')
        .and_then(|s| s.split_once('n'))
        .and_then(|(m, rest)| rest.split_once('k').map(|(n, k)| (m, n, k)))
        .and_then(|(m, n, k)| Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?)));
    let Some(shape) = dims.and_then(|(m, n, k)| kind.shape(m, n, k)) else {
        let names: Vec<String> = kind.shapes().iter().map(|s| s.name()).collect();
        return cx.fail(format!("`{shape}` is not an {} mma shape: {}", kind.suffixes(), names.join(", ")));
    };
    cx.arity(&args, 4)?;
    let mut frags = Vec::new();
    for (arg, (what, count, ty)) in args.iter().zip([
        ("D", shape.c_per_lane(), kind.cd_type()),
        ("A", shape.a_per_lane(), kind.ab_type()),
        ("B", shape.b_per_lane(), kind.ab_type()),
        ("C", shape.c_per_lane(), kind.cd_type()),
    ]) {
        let Arg::Vec(ops) = arg else {
            return cx.fail(format!(
                "{what} must be a vector `{{...}}` of {count} registers, found {}",
                arg.describe()
            ));
        };
        if ops.len() != count as usize {
            return cx.fail(format!(
                "{what} has {} registers; {} takes {count} a lane",
                ops.len(),
                shape.name()
            ));
        }
        let regs = ops
            .iter()
            .map(|&op| match op {
                // ptxas wants `.tf32` operands in `.b32` registers, no other type.
                Operand::Reg(r) if ty == Type::B32 && r.ty() != Type::B32 => cx.fail(format!(
                    "{what} {} of type {} must be a `.b32` register for .tf32",
                    cx.reg_name(r),
                    r.ty()
                )),
                Operand::Reg(r) => cx.check(op, ty, what).map(|()| r),
                _ => cx.fail(format!("{what} must hold registers only")),
            })
            .collect::<Result<Vec<Reg>, _>>()?;
        frags.push(regs);
    }
    let [d, a, b, c]: [Vec<Reg>; 4] = frags.try_into().expect("four fragments read");
    Ok(Instr::Mma { shape, kind, d, a, b, c })
}

fn memory(cx: &Ctx<'_>, parts: &[&str], args: Vec<Arg>) -> Result<Instr, ParseError> {
    let load = parts[0] == "ld";
    let Some(space) = parts.get(1).and_then(|s| match *s {
        "global" => Some(Space::Global),
        "shared" => Some(Space::Shared),
        "param" => Some(Space::Param),
        _ => None,
    }) else {
        return unknown(cx);
    };
    let mut rest = &parts[2..];
    let mut qual = CacheQual::None;
    let cache = |q: &&str| match *q {
        "nc" => Some(CacheQual::Nc),
        "ca" => Some(CacheQual::Ca),
        "cg" => Some(CacheQual::Cg),
        _ => None,
    };
    if load
        && space == Space::Global
        && let Some(q) = rest.first().and_then(cache)
    {
        qual = q;
        rest = &rest[1..];
    }
    let mut count = 1;
    if let Some(n) = rest.first().and_then(|q| vector_count(q)) {
        count = n;
        rest = &rest[1..];
    }
    let ty = match rest {
        // `.b16` is a type of loads and stores only (no register has it).
        ["b16"] => Type::B16,
        [t] => match Type::from_name(t) {
            Some(t) if t != Type::Pred => t,
            _ => return unknown(cx),
        },
        _ => return unknown(cx),
    };
    if ty == Type::B16 && count != 1 {
        return cx.fail(".b16 accesses move one value (no `.v2` or `.v4`)");
    }
    if !load && space == Space::Param {
        return cx.fail("stores to `.param` are not supported");
    }
    if count as u32 * ty.bytes() > 16 {
        return cx.fail("a vector access moves at most 16 bytes");
    }
    cx.arity(&args, 2)?;
    let (data, addr) = if load { (&args[0], &args[1]) } else { (&args[1], &args[0]) };
    let addr = cx.addr(addr)?;
    let values: Vec<Operand> = match (data, count) {
        (Arg::Op(op), 1) => vec![*op],
        (Arg::Vec(v), n) if n > 1 && v.len() == n => v.clone(),
        (Arg::Vec(v), n) => {
            return cx.fail(format!(
                "{} values in braces for a {}",
                v.len(),
                if n == 1 {
                    "scalar access (a single value is written without braces)".to_owned()
                } else {
                    format!(".v{n} access")
                }
            ));
        }
        (a, n) => return cx.fail(format!("expected a vector of {n} values, found {}", a.describe())),
    };
    match (space, addr.base) {
        (Space::Param, AddrBase::Param(_)) | (Space::Global | Space::Shared, AddrBase::Reg(_)) => {}
        (Space::Shared, AddrBase::Shared(_)) => {}
        (Space::Param, _) => return cx.fail("a `.param` load names its parameter: `[name]`"),
        (_, AddrBase::Param(p)) => {
            return cx.fail(format!(
                "parameter `{}` is not an address in {}: load it with `ld.param` first",
                cx.kernel.params[p.index()].name,
                space.name()
            ));
        }
        (_, AddrBase::Shared(s)) => {
            return cx.fail(format!(
                "shared array `{}` addressed in .{}",
                cx.kernel.shared[s.index()].name,
                space.name()
            ));
        }
    }
    if let AddrBase::Reg(r) = addr.base
        && (r.ty() == Type::Pred || r.ty().is_float())
    {
        return cx.fail(format!("address register {} has type {}", cx.reg_name(r), r.ty()));
    }
    if ty == Type::B16 {
        return half::memory_b16(cx, (load, space, qual), &args, addr);
    }
    if load {
        let mut dst = Vec::with_capacity(count);
        for v in &values {
            dst.push(cx.dst(&Arg::Op(*v), ty)?);
        }
        if let (Space::Param, AddrBase::Param(p), 1) = (space, addr.base, count)
            && addr.offset == 0
            && cx.kernel.params[p.index()].ty == ParamType::Scalar(ty)
        {
            return Ok(Instr::LdParam { dst: dst[0], param: p });
        }
        Ok(Instr::Ld { space, qual, ty, dst, addr })
    } else {
        for v in &values {
            cx.check(*v, ty, "stored value")?;
        }
        Ok(Instr::St { space, ty, addr, src: values })
    }
}
