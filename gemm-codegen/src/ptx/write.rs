//! The one PTX writer: IR in, text out.
//!
//! `write_*` methods print whole sections, `put_*` methods print fragments.
//! The output is meant to be read: tab-indented, one instruction per line,
//! named registers declared in commented groups, stencil phases headed by
//! comments.

use std::fmt::{self, Write};

use super::ir::{
    AddrBase, Address, BinOp, Guard, HalfCvt, Instr, Kernel, Module, Operand, ParamType, Space, Stmt, Tma,
    Type, UnOp,
};

/// Longest register declaration line before it wraps.
const DECL_WIDTH: usize = 100;

/// Prints PTX into any [`fmt::Write`].
#[derive(Debug)]
pub struct Writer<W> {
    out: W,
}

/// Prints `module` to a `String`.
pub fn write_string(module: &Module) -> String {
    let mut w = Writer::new(String::new());
    w.write_module(module).expect("formatting into a String cannot fail");
    w.into_inner()
}

impl<W: Write> Writer<W> {
    /// A writer printing into `out`.
    pub fn new(out: W) -> Writer<W> {
        Writer { out }
    }

    /// The destination back.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Prints a whole module: header comment, directives, kernels.
    pub fn write_module(&mut self, module: &Module) -> fmt::Result {
        self.write_header(&module.header)?;
        writeln!(self.out, ".version {}", module.version())?;
        writeln!(self.out, ".target {}", module.target())?;
        writeln!(self.out, ".address_size 64")?;
        for kernel in &module.kernels {
            writeln!(self.out)?;
            // PTX declares initialized `.global` arrays at module scope.
            for g in &kernel.globals {
                writeln!(self.out, "// read-only data of {}: {} words", kernel.name, g.words.len())?;
                write!(self.out, ".global .align {} .b64 {}[{}] = {{", g.align, g.name, g.words.len())?;
                for (i, w) in g.words.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "," };
                    if i % 4 == 0 {
                        write!(self.out, "{sep}\n\t0x{w:016x}")?;
                    } else {
                        write!(self.out, "{sep} 0x{w:016x}")?;
                    }
                }
                writeln!(self.out, "\n}};")?;
            }
            // PTX declares `.extern .shared` arrays at module scope only.
            if let Some(id) = kernel.dynamic_shared() {
                let s = &kernel.shared[id.index()];
                writeln!(self.out, "// dynamic shared memory of {}, sized by the launch", kernel.name)?;
                writeln!(self.out, ".extern .shared .align {} .b8 {}[];", s.align, s.name)?;
            }
            self.write_kernel(kernel)?;
        }
        Ok(())
    }

    /// Prints the header comment block.
    pub fn write_header(&mut self, lines: &[String]) -> fmt::Result {
        writeln!(self.out, "//")?;
        for line in lines {
            if line.is_empty() {
                writeln!(self.out, "//")?;
            } else {
                writeln!(self.out, "// {line}")?;
            }
        }
        writeln!(self.out, "//")?;
        writeln!(self.out)
    }

    /// Prints one `.entry` with its declarations and body.
    pub fn write_kernel(&mut self, kernel: &Kernel) -> fmt::Result {
        writeln!(self.out, ".visible .entry {}(", kernel.name)?;
        for (i, p) in kernel.params.iter().enumerate() {
            let sep = if i + 1 == kernel.params.len() { "" } else { "," };
            let array = match p.ty {
                ParamType::Scalar(_) => String::new(),
                ParamType::TensorMap => format!("[{}]", ParamType::TENSOR_MAP_BYTES),
            };
            writeln!(self.out, "\t.param {} {}{array}{sep}", p.ty, p.name)?;
        }
        writeln!(self.out, ")")?;
        if let Some((x, y, z)) = kernel.reqntid {
            writeln!(self.out, ".reqntid {x}, {y}, {z}")?;
        }
        writeln!(self.out, "{{")?;
        self.write_decls(kernel)?;
        for stmt in &kernel.body {
            self.write_stmt(kernel, stmt)?;
        }
        writeln!(self.out, "}}")
    }

    /// Prints register and shared-memory declarations.
    pub fn write_decls(&mut self, kernel: &Kernel) -> fmt::Result {
        let mut i = 0;
        while i < kernel.regs.len() {
            let group = kernel.regs[i].group;
            let comment = &kernel.reg_groups[group];
            if !comment.is_empty() {
                writeln!(self.out, "\t// {comment}")?;
            }
            while i < kernel.regs.len() && kernel.regs[i].group == group {
                // One line per run of the same type, wrapped.
                let ty = kernel.regs[i].ty;
                let mut line = format!("\t.reg {ty} ");
                let start = line.len();
                while i < kernel.regs.len() && kernel.regs[i].group == group && kernel.regs[i].ty == ty {
                    let name = format!("%{}", kernel.regs[i].name);
                    if line.len() > start && line.len() + name.len() + 2 > DECL_WIDTH {
                        writeln!(self.out, "{};", line.trim_end_matches(", "))?;
                        line.truncate(start);
                    }
                    line += &name;
                    line += ", ";
                    i += 1;
                }
                writeln!(self.out, "{};", line.trim_end_matches(", "))?;
            }
        }
        // The dynamic array, if any, is declared at module scope.
        let statics: Vec<_> = kernel.shared.iter().filter_map(|s| s.bytes.map(|b| (s, b))).collect();
        if !statics.is_empty() {
            writeln!(self.out, "\t// shared memory")?;
        }
        for (s, bytes) in statics {
            writeln!(self.out, "\t.shared .align {} .b8 {}[{bytes}];", s.align, s.name)?;
        }
        Ok(())
    }

    /// Prints one body line.
    pub fn write_stmt(&mut self, kernel: &Kernel, stmt: &Stmt) -> fmt::Result {
        match stmt {
            Stmt::Instr { guard, instr } => {
                self.out.write_char('\t')?;
                if let Some(g) = guard {
                    self.put_guard(kernel, g)?;
                }
                self.put_instr(kernel, instr)?;
                writeln!(self.out, ";")
            }
            Stmt::Label(l) => writeln!(self.out, "${}:", kernel.labels[l.index()]),
            Stmt::Comment(text) => writeln!(self.out, "\t// {text}"),
            Stmt::Blank => writeln!(self.out),
        }
    }

    /// `@%p ` or `@!%p `.
    pub fn put_guard(&mut self, kernel: &Kernel, guard: &Guard) -> fmt::Result {
        let bang = if guard.negated { "!" } else { "" };
        write!(self.out, "@{bang}%{} ", kernel.reg(guard.pred).name)
    }

    /// An instruction: opcode with its qualifiers, a tab, the operands.
    pub fn put_instr(&mut self, kernel: &Kernel, instr: &Instr) -> fmt::Result {
        self.out.write_str(&opcode(kernel, instr))?;
        let operands = operands(instr);
        if operands.is_empty() {
            return Ok(());
        }
        self.out.write_char('\t')?;
        for (i, op) in operands.iter().enumerate() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            match op {
                Piece::Op(o) => self.put_operand(kernel, o)?,
                Piece::Vec(v) => {
                    self.out.write_char('{')?;
                    for (j, o) in v.iter().enumerate() {
                        if j > 0 {
                            self.out.write_str(", ")?;
                        }
                        self.put_operand(kernel, o)?;
                    }
                    self.out.write_char('}')?;
                }
                Piece::Addr(a) => self.put_address(kernel, a)?,
                Piece::Label(l) => write!(self.out, "${}", kernel.labels[*l])?,
                Piece::Int(n) => write!(self.out, "{n}")?,
                Piece::Sink => self.out.write_char('_')?,
                Piece::Param(p) => self.out.write_str(&kernel.params[*p].name)?,
                Piece::Tensor(map, coords) => {
                    self.out.write_char('[')?;
                    self.put_operand(kernel, map)?;
                    self.out.write_str(", {")?;
                    for (j, o) in coords.iter().enumerate() {
                        if j > 0 {
                            self.out.write_str(", ")?;
                        }
                        self.put_operand(kernel, o)?;
                    }
                    self.out.write_str("}]")?;
                }
            }
        }
        Ok(())
    }

    /// A source operand.
    pub fn put_operand(&mut self, kernel: &Kernel, op: &Operand) -> fmt::Result {
        match *op {
            Operand::Reg(r) => write!(self.out, "%{}", kernel.reg(r).name),
            Operand::Imm(v) => write!(self.out, "{v}"),
            Operand::F32(bits) => write!(self.out, "0f{bits:08X}"),
            Operand::F64(bits) => write!(self.out, "0d{bits:016X}"),
            Operand::Special(s) => self.out.write_str(s.name()),
            Operand::Shared(s) => self.out.write_str(&kernel.shared[s.index()].name),
            Operand::Global(g) => self.out.write_str(&kernel.globals[g.index()].name),
        }
    }

    /// `[base]` or `[base+offset]`.
    pub fn put_address(&mut self, kernel: &Kernel, addr: &Address) -> fmt::Result {
        self.out.write_char('[')?;
        match addr.base {
            AddrBase::Reg(r) => write!(self.out, "%{}", kernel.reg(r).name)?,
            AddrBase::Shared(s) => self.out.write_str(&kernel.shared[s.index()].name)?,
            AddrBase::Param(p) => self.out.write_str(&kernel.params[p.index()].name)?,
        }
        if addr.offset != 0 {
            write!(self.out, "+{}", addr.offset)?;
        }
        self.out.write_char(']')
    }
}

enum Piece {
    Op(Operand),
    Vec(Vec<Operand>),
    Addr(Address),
    Label(usize),
    Int(u32),
    /// `_`: a result nobody reads.
    Sink,
    /// A kernel parameter's name, as a value (its address).
    Param(usize),
    /// `[map, {c0, c1, c2}]`: a tensor map's address and a box's
    /// coordinates.
    Tensor(Operand, Vec<Operand>),
}

/// The mnemonic of `op` on type `ty`, with its rounding or width qualifier.
pub fn binop_mnemonic(op: BinOp, ty: Type) -> &'static str {
    match (op, ty.is_float()) {
        (BinOp::Add, true) => "add.rn",
        (BinOp::Add, false) => "add",
        (BinOp::Sub, true) => "sub.rn",
        (BinOp::Sub, false) => "sub",
        (BinOp::Mul, true) => "mul.rn",
        (BinOp::Mul, false) => "mul.lo",
        (BinOp::MulWide, _) => "mul.wide",
        (BinOp::Div, _) => "div",
        (BinOp::Rem, _) => "rem",
        (BinOp::And, _) => "and",
        (BinOp::Or, _) => "or",
        (BinOp::Xor, _) => "xor",
        (BinOp::Shl, _) => "shl",
        (BinOp::Shr, _) => "shr",
        (BinOp::Min, _) => "min",
        (BinOp::Max, _) => "max",
    }
}

fn vector_suffix(n: usize) -> &'static str {
    match n {
        1 => "",
        2 => ".v2",
        4 => ".v4",
        _ => unreachable!("vector of {n}"),
    }
}

fn opcode(kernel: &Kernel, instr: &Instr) -> String {
    match instr {
        Instr::LdParam { param, .. } => format!("ld.param{}", kernel.params[param.index()].ty),
        Instr::Mov { dst, .. } => format!("mov{}", dst.ty()),
        Instr::CvtaToGlobal { .. } => "cvta.to.global.u64".to_owned(),
        Instr::Cvt { dst, src } => format!("cvt{}{}", dst.ty(), src.ty()),
        Instr::CvtTf32 { .. } => "cvt.rna.tf32.f32".to_owned(),
        Instr::CvtHalf(HalfCvt::F16ToF32 { .. }) => "cvt.f32.f16".to_owned(),
        Instr::CvtHalf(HalfCvt::Pack { bf16, .. }) => {
            format!("cvt.rn.{}x2.f32", if *bf16 { "bf16" } else { "f16" })
        }
        Instr::Unary { op, ty, .. } => {
            let m = match op {
                UnOp::Neg => "neg",
                UnOp::Not => "not",
            };
            format!("{m}{ty}")
        }
        Instr::Binary { op, ty, .. } => format!("{}{ty}", binop_mnemonic(*op, *ty)),
        Instr::Mad { wide, ty, .. } => format!("mad.{}{ty}", if *wide { "wide" } else { "lo" }),
        Instr::Fma { ty, .. } => format!("fma.rn{ty}"),
        Instr::Setp { cmp, ty, .. } => format!("setp.{}{ty}", cmp.name()),
        Instr::Selp { ty, .. } => format!("selp{ty}"),
        Instr::Ld { space, qual, ty, dst, .. } => {
            let q = qual.name().map(|q| format!(".{q}")).unwrap_or_default();
            format!("ld.{}{q}{}{ty}", space.name(), vector_suffix(dst.len()))
        }
        Instr::St { space, ty, src, .. } => {
            debug_assert!(*space != Space::Param);
            format!("st.{}{}{ty}", space.name(), vector_suffix(src.len()))
        }
        Instr::CpAsync { cache, .. } => format!("cp.async.{}.shared.global", cache.name()),
        Instr::CpAsyncCommit => "cp.async.commit_group".to_owned(),
        Instr::CpAsyncWait { .. } => "cp.async.wait_group".to_owned(),
        Instr::CpAsyncWaitAll => "cp.async.wait_all".to_owned(),
        Instr::Mma { shape, kind, .. } => {
            format!("mma.sync.aligned.{}.row.col{}", shape.name(), kind.suffixes())
        }
        Instr::Wgmma { shape, .. } | Instr::WgmmaRs { shape, .. } => {
            format!("wgmma.mma_async.sync.aligned.{}{}", shape.name(), shape.types())
        }
        Instr::WgmmaFence => "wgmma.fence.sync.aligned".to_owned(),
        Instr::WgmmaCommit => "wgmma.commit_group.sync.aligned".to_owned(),
        Instr::WgmmaWait { .. } => "wgmma.wait_group.sync.aligned".to_owned(),
        Instr::SetMaxNReg { inc, .. } => {
            format!("setmaxnreg.{}.sync.aligned.u32", if *inc { "inc" } else { "dec" })
        }
        Instr::FenceProxyAsync => "fence.proxy.async.shared::cta".to_owned(),
        Instr::AtomInc { .. } => "atom.relaxed.gpu.global.inc.u32".to_owned(),
        Instr::FenceAcqRelGpu => "fence.acq_rel.gpu".to_owned(),
        Instr::BarSync { .. } => "bar.sync".to_owned(),
        Instr::BarArrive { .. } => "bar.arrive".to_owned(),
        Instr::Tma(t) => t.opcode().to_owned(),
        Instr::Bra { uni, .. } => if *uni { "bra.uni" } else { "bra" }.to_owned(),
        Instr::Ret => "ret".to_owned(),
    }
}

fn tma_operands(t: &Tma) -> Vec<Piece> {
    use Piece::*;
    match t {
        Tma::ParamAddr { dst, param } => vec![Op((*dst).into()), Param(param.index())],
        Tma::CvtaParam { dst, src } => vec![Op((*dst).into()), Op((*src).into())],
        Tma::MbarrierInit { bar, count } => vec![Addr(*bar), Int(*count)],
        Tma::MbarrierArriveExpectTx { bar, bytes } => vec![Sink, Addr(*bar), Int(*bytes)],
        Tma::MbarrierTryWait { done, bar, parity } => vec![Op((*done).into()), Addr(*bar), Op(*parity)],
        Tma::TensorLoad { dst, map, coords, bar } => {
            vec![Addr(*dst), Tensor((*map).into(), coords.to_vec()), Addr(*bar)]
        }
    }
}

fn operands(instr: &Instr) -> Vec<Piece> {
    use Piece::*;
    let vector = |regs: &[Operand]| {
        if regs.len() == 1 { Op(regs[0]) } else { Vec(regs.to_vec()) }
    };
    match instr {
        Instr::LdParam { dst, param } => vec![Op((*dst).into()), Addr(Address::param(*param))],
        Instr::Mov { dst, src } => vec![Op((*dst).into()), Op(*src)],
        Instr::CvtaToGlobal { dst, src }
        | Instr::Cvt { dst, src }
        | Instr::CvtTf32 { dst, src }
        | Instr::CvtHalf(HalfCvt::F16ToF32 { dst, src }) => vec![Op((*dst).into()), Op((*src).into())],
        Instr::CvtHalf(HalfCvt::Pack { dst, hi, lo, .. }) => {
            vec![Op((*dst).into()), Op((*hi).into()), Op((*lo).into())]
        }
        Instr::Unary { dst, src, .. } => vec![Op((*dst).into()), Op(*src)],
        Instr::Binary { dst, a, b, .. } | Instr::Setp { dst, a, b, .. } => {
            vec![Op((*dst).into()), Op(*a), Op(*b)]
        }
        Instr::Mad { dst, a, b, c, .. } | Instr::Fma { dst, a, b, c, .. } => {
            vec![Op((*dst).into()), Op(*a), Op(*b), Op(*c)]
        }
        Instr::Selp { dst, a, b, pred, .. } => {
            vec![Op((*dst).into()), Op(*a), Op(*b), Op((*pred).into())]
        }
        Instr::Ld { dst, addr, .. } => {
            let regs: std::vec::Vec<Operand> = dst.iter().map(|&r| r.into()).collect();
            vec![vector(&regs), Addr(*addr)]
        }
        Instr::St { addr, src, .. } => vec![Addr(*addr), vector(src)],
        Instr::CpAsync { dst, src, bytes, src_bytes, .. } => {
            let mut v = vec![Addr(*dst), Addr(*src), Int(*bytes)];
            v.extend(src_bytes.map(Op));
            v
        }
        Instr::CpAsyncWait { n } => vec![Int(*n)],
        Instr::Mma { d, a, b, c, .. } => {
            let regs = |rs: &[crate::ptx::Reg]| Vec(rs.iter().map(|&r| r.into()).collect());
            vec![regs(d), regs(a), regs(b), regs(c)]
        }
        Instr::Wgmma { shape, d, a_desc, b_desc, scale_d, neg_a, neg_b, major } => {
            let scale = |neg: bool| Op(Operand::Imm(if neg { -1 } else { 1 }));
            let mut v = vec![
                Vec(d.iter().map(|&r| r.into()).collect()),
                Op((*a_desc).into()),
                Op((*b_desc).into()),
                Op((*scale_d).into()),
                scale(*neg_a),
                scale(*neg_b),
            ];
            if shape.input.transposes() {
                let trans = |m: crate::ptx::Major| Int(u32::from(m == crate::ptx::Major::Mn));
                v.extend([trans(major.0), trans(major.1)]);
            }
            v
        }
        Instr::WgmmaRs { d, a, b_desc, scale_d, neg_a, neg_b, .. } => {
            let scale = |neg: bool| Op(Operand::Imm(if neg { -1 } else { 1 }));
            vec![
                Vec(d.iter().map(|&r| r.into()).collect()),
                Vec(a.iter().map(|&r| r.into()).collect()),
                Op((*b_desc).into()),
                Op((*scale_d).into()),
                scale(*neg_a),
                scale(*neg_b),
            ]
        }
        Instr::WgmmaWait { n } | Instr::SetMaxNReg { count: n, .. } => vec![Int(*n)],
        Instr::AtomInc { dst, addr, bound } => vec![Op((*dst).into()), Addr(*addr), Op(*bound)],
        Instr::BarSync { id, threads: None } => vec![Int(*id)],
        Instr::BarSync { id, threads: Some(n) } | Instr::BarArrive { id, threads: n } => {
            vec![Int(*id), Int(*n)]
        }
        Instr::Bra { target, .. } => vec![Label(target.index())],
        Instr::Tma(t) => tma_operands(t),
        Instr::CpAsyncCommit
        | Instr::CpAsyncWaitAll
        | Instr::WgmmaFence
        | Instr::WgmmaCommit
        | Instr::FenceProxyAsync
        | Instr::FenceAcqRelGpu
        | Instr::Ret => vec![],
    }
}
