//! Decoding: one kernel of the IR into a flat list of compact operations
//! with resolved register indices, done once per kernel.
//!
//! Registers are split into two files: values (every non-predicate type,
//! 64 bits per lane, 32-bit types zero-extended) and predicates (one bit per
//! lane). Special registers become hidden value registers filled at block
//! start; shared-array names become their shared-window addresses; `.param`
//! loads read a byte image of the launch's arguments.

use gemm_codegen::ptx::{
    self, AddrBase, BinOp, Instr, Kernel, Module, Operand, ParamDecl, Space, Special, Stmt, Type, UnOp,
};

use super::error::EmuError;
use crate::parse::SourceMap;

mod half;
mod op;
mod tma;
mod wgmma;

pub(crate) use op::{Base, Class, CpAsync, F2, I1, I2, I3, IDiv, Inst, Mem, Mma, Op, Src, TensorLoad};
pub(crate) use wgmma::{ASource, Accumulators, Wgmma};

/// A shared array placed in the emulated shared window.
#[derive(Clone, Debug)]
pub(crate) struct SharedArray {
    pub name: String,
    pub base: u64,
    /// Its size; for the dynamic array, 0 until a launch sizes it (see
    /// [`Program::shared_layout`]).
    pub bytes: u64,
    /// Whether this is the kernel's dynamic (`.extern`) array, placed after
    /// the static ones.
    pub dynamic: bool,
}

/// Bytes left unmapped before, between and after shared arrays, so that a
/// small overrun of one array faults instead of landing in the next.
pub(crate) const SHARED_GAP: u64 = 256;

/// One kernel, decoded and ready to run any number of times.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) name: String,
    pub(crate) params: Vec<ParamDecl>,
    /// Byte offset of each parameter in the parameter image.
    pub(crate) param_offsets: Vec<u32>,
    pub(crate) param_bytes: u32,
    pub(crate) reqntid: Option<(u32, u32, u32)>,
    pub(crate) shared: Vec<SharedArray>,
    /// Total bytes of the static shared arrays.
    pub(crate) static_shared_bytes: u64,
    /// Whether the kernel has `cp.async` instructions, its group
    /// instructions included (and so needs the bookkeeping of copies in
    /// flight).
    pub(crate) async_copies: bool,
    pub(crate) code: Vec<Inst>,
    /// The `mma.sync` instructions, which [`Op::Mma`] indexes.
    pub(crate) mmas: Vec<Mma>,
    /// Whether the kernel has instructions of the `wgmma` family or
    /// `fence.proxy.async` (and so needs their bookkeeping).
    pub(crate) uses_wgmma: bool,
    /// Whether any instruction is `setmaxnreg` (the block's register pool
    /// is kept, `exec/registers.rs`).
    pub(crate) uses_setmaxnreg: bool,
    /// Whether the kernel has `atom` or `fence.acq_rel.gpu` (and so needs,
    /// with race checks on, the release/acquire bookkeeping that orders
    /// accesses of different blocks; see `memory/order.rs`).
    pub(crate) uses_atomics: bool,
    /// Whether the kernel has 16-bit global loads or stores (and so needs
    /// the race records of global memory per half-word, not per word).
    pub(crate) half_global: bool,
    /// The `wgmma.mma_async` instructions, which [`Op::Wgmma`] indexes.
    pub(crate) wgmmas: Vec<Wgmma>,
    /// The `cp.async.bulk.tensor` instructions, which [`Op::TensorLoad`]
    /// indexes.
    pub(crate) tensor_loads: Vec<TensorLoad>,
    /// Whether the kernel has instructions of the TMA family (and so needs
    /// the bookkeeping of `mbarrier`s and bulk copies).
    pub(crate) uses_tma: bool,
    /// Their accumulator and A fragment registers, and the instructions
    /// touching them.
    pub(crate) accumulators: Accumulators,
    /// PTX line of each instruction.
    pub(crate) lines: Vec<u32>,
    /// Each instruction as the writer prints it, guard included.
    pub(crate) texts: Vec<String>,
    /// Names of the value registers (with `%`), specials last.
    pub(crate) val_names: Vec<String>,
    /// Names of the predicate registers (with `%`).
    pub(crate) pred_names: Vec<String>,
    /// Index of the first hidden special register.
    pub(crate) special_base: u32,
    /// The module's initialized global arrays the kernel reads: name and
    /// bytes. Each is a read-only buffer of every launch, after the
    /// caller's, whose address a hidden register after the specials holds.
    pub(crate) globals: Vec<(String, Vec<u8>)>,
}

impl Program {
    /// Reads PTX text and decodes its entry `entry` (or its only entry, if
    /// `entry` is `None`). Diagnostics name the lines of `text`.
    pub fn from_ptx(text: &str, entry: Option<&str>) -> Result<Program, EmuError> {
        let (module, map) = crate::parse::parse_with_source_map(text)?;
        Program::decode(&module, &map, entry)
    }

    /// Decodes entry `entry` (or the only one) of an IR module. Diagnostics
    /// name the lines of the module as [`ptx::write_string`] prints it.
    pub fn from_module(module: &Module, entry: Option<&str>) -> Result<Program, EmuError> {
        let text = ptx::write_string(module);
        let (reparsed, map) = crate::parse::parse_with_source_map(&text)?;
        // The map is only valid if the text has the module's statements; the
        // writer and reader guarantee that, but check rather than trust.
        let same_shape = reparsed.kernels.len() == module.kernels.len()
            && reparsed.kernels.iter().zip(&module.kernels).all(|(a, b)| a.body.len() == b.body.len());
        let map = if same_shape {
            map
        } else {
            SourceMap { kernels: module.kernels.iter().map(|k| vec![0; k.body.len()]).collect() }
        };
        Program::decode(module, &map, entry)
    }

    fn decode(module: &Module, map: &SourceMap, entry: Option<&str>) -> Result<Program, EmuError> {
        let available = || module.kernels.iter().map(|k| k.name.clone()).collect::<Vec<_>>();
        let index = match entry {
            Some(name) => module.kernels.iter().position(|k| k.name == name),
            None if module.kernels.len() == 1 => Some(0),
            None => None,
        };
        let Some(index) = index else {
            return Err(EmuError::NoEntry {
                name: entry.unwrap_or("<the only one>").to_owned(),
                available: available(),
            });
        };
        Decoder::new(&module.kernels[index], &map.kernels[index]).run()
    }

    /// The entry's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The entry's parameters, in launch order.
    pub fn params(&self) -> &[ParamDecl] {
        &self.params
    }

    /// The block shape the kernel requires (`.reqntid`), if any.
    pub fn reqntid(&self) -> Option<(u32, u32, u32)> {
        self.reqntid
    }

    /// Instructions in the kernel body.
    pub fn len(&self) -> usize {
        self.code.len()
    }

    /// Whether the body has no instructions.
    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Value registers per thread (the kernel's, plus the hidden special
    /// registers).
    pub(crate) fn n_vals(&self) -> usize {
        self.val_names.len()
    }

    pub(crate) fn n_preds(&self) -> usize {
        self.pred_names.len()
    }

    /// The shared arrays of a launch with `dynamic_bytes` of dynamic shared
    /// memory (the dynamic array, if any, sized to it), and the bytes of the
    /// shared window holding them and the gaps around them.
    pub(crate) fn shared_layout(&self, dynamic_bytes: u32) -> (Vec<SharedArray>, u64) {
        let mut arrays = self.shared.clone();
        for a in arrays.iter_mut().filter(|a| a.dynamic) {
            a.bytes = u64::from(dynamic_bytes);
        }
        let end = arrays.iter().map(|a| a.base + a.bytes).max().unwrap_or(0);
        (arrays, end + SHARED_GAP)
    }
}

/// Which file a kernel register lives in.
#[derive(Clone, Copy)]
enum Slot {
    Val(u32),
    Pred(u32),
}

struct Decoder<'k> {
    kernel: &'k Kernel,
    lines: &'k [u32],
    slots: Vec<Slot>,
    shared: Vec<SharedArray>,
    special_base: u32,
    line: u32,
}

impl<'k> Decoder<'k> {
    fn new(kernel: &'k Kernel, lines: &'k [u32]) -> Decoder<'k> {
        let (mut nv, mut np) = (0u32, 0u32);
        let slots = kernel
            .regs
            .iter()
            .map(|r| {
                if r.ty == Type::Pred {
                    np += 1;
                    Slot::Pred(np - 1)
                } else {
                    nv += 1;
                    Slot::Val(nv - 1)
                }
            })
            .collect();
        // Static arrays in declaration order, then the dynamic one (as CUDA
        // places dynamic shared memory after the static).
        let mut cursor = SHARED_GAP;
        let mut place = |align: u32, bytes: u64| {
            let base = cursor.next_multiple_of(u64::from(align.max(16)));
            cursor = base + bytes + SHARED_GAP;
            base
        };
        let mut shared: Vec<SharedArray> = kernel
            .shared
            .iter()
            .map(|s| SharedArray {
                name: s.name.clone(),
                base: s.bytes.map_or(0, |b| place(s.align, u64::from(b))),
                bytes: u64::from(s.bytes.unwrap_or(0)),
                dynamic: s.is_dynamic(),
            })
            .collect();
        for (a, s) in shared.iter_mut().zip(&kernel.shared).filter(|(a, _)| a.dynamic) {
            a.base = place(s.align, 0);
        }
        Decoder { kernel, lines, slots, shared, special_base: nv, line: 0 }
    }

    fn unsupported<T>(&self, message: impl Into<String>) -> Result<T, EmuError> {
        Err(EmuError::Unsupported { line: self.line, message: message.into() })
    }

    fn name(&self, r: ptx::Reg) -> String {
        format!("%{}", self.kernel.regs[r.index()].name)
    }

    fn val(&self, r: ptx::Reg) -> Result<u32, EmuError> {
        match self.slots.get(r.index()) {
            Some(Slot::Val(v)) => Ok(*v),
            Some(Slot::Pred(_)) => self.unsupported(format!("predicate {} used as a value", self.name(r))),
            None => self.unsupported(format!("register index {} is not declared", r.index())),
        }
    }

    fn pred(&self, r: ptx::Reg) -> Result<u32, EmuError> {
        match self.slots.get(r.index()) {
            Some(Slot::Pred(p)) => Ok(*p),
            Some(Slot::Val(_)) => self.unsupported(format!("{} used as a predicate", self.name(r))),
            None => self.unsupported(format!("register index {} is not declared", r.index())),
        }
    }

    fn pred_src(&self, op: Operand) -> Result<u32, EmuError> {
        match op {
            Operand::Reg(r) => self.pred(r),
            _ => self.unsupported("a predicate operand must be a register"),
        }
    }

    /// A source read as an operand of `bits` width.
    fn src(&self, op: Operand, bits: u32) -> Result<Src, EmuError> {
        let mask = |v: u64| if bits == 32 { v & 0xffff_ffff } else { v };
        Ok(match op {
            Operand::Reg(r) => Src::R(self.val(r)?),
            Operand::Imm(v) => Src::I(mask(v as u64)),
            Operand::F32(b) => Src::I(u64::from(b)),
            Operand::F64(b) => Src::I(b),
            Operand::Special(s) => {
                let i = Special::ALL.iter().position(|&x| x == s).expect("every special is listed");
                Src::R(self.special_base + i as u32)
            }
            Operand::Shared(s) => match self.shared.get(s.index()) {
                Some(a) => Src::I(mask(a.base)),
                None => return self.unsupported(format!("shared array index {} is not declared", s.index())),
            },
            Operand::Global(g) if g.index() < self.kernel.globals.len() => {
                Src::R(self.special_base + (Special::ALL.len() + g.index()) as u32)
            }
            Operand::Global(g) => {
                return self.unsupported(format!("global array index {} is not declared", g.index()));
            }
        })
    }

    fn run(mut self) -> Result<Program, EmuError> {
        let kernel = self.kernel;
        let mut param_offsets = Vec::new();
        let mut param_bytes = 0u32;
        for p in &kernel.params {
            let size = p.ty.bytes();
            param_bytes = param_bytes.next_multiple_of(p.ty.align());
            param_offsets.push(param_bytes);
            param_bytes += size;
        }

        // Labels to instruction indices.
        let mut label_pc = vec![None; kernel.labels.len()];
        let mut pc = 0u32;
        for stmt in &kernel.body {
            match stmt {
                Stmt::Label(l) => label_pc[l.index()] = Some(pc),
                Stmt::Instr { .. } => pc += 1,
                _ => {}
            }
        }

        let mut code = Vec::new();
        let mut mmas = Vec::new();
        let mut wgmmas = Vec::new();
        let mut tensor_loads = Vec::new();
        let mut lines = Vec::new();
        let mut texts = Vec::new();
        let mut named_barrier: Option<u32> = None;
        for (i, stmt) in kernel.body.iter().enumerate() {
            let Stmt::Instr { guard, instr } = stmt else { continue };
            self.line = self.lines.get(i).copied().unwrap_or(0);
            let mut w = ptx::Writer::new(String::new());
            if let Some(g) = guard {
                w.put_guard(kernel, g).expect("formatting into a String cannot fail");
            }
            w.put_instr(kernel, instr).expect("formatting into a String cannot fail");
            let text = w.into_inner().replace('\t', " ");
            let guard = match guard {
                Some(g) => Some((self.pred(g.pred)?, g.negated)),
                None => None,
            };
            let op = match instr {
                Instr::Mma { shape, kind, d, a, b, c } => {
                    if !kind.shapes().contains(shape) {
                        return self.unsupported(format!("mma of shape {}{}", shape.name(), kind.suffixes()));
                    }
                    let regs =
                        |rs: &[ptx::Reg]| rs.iter().map(|&r| self.val(r)).collect::<Result<Vec<_>, _>>();
                    let (d, a, b, c) = (regs(d)?, regs(a)?, regs(b)?, regs(c)?);
                    mmas.push(Mma { shape: *shape, kind: *kind, d, a, b, c });
                    Op::Mma(mmas.len() as u32 - 1)
                }
                Instr::Wgmma { shape, d, a_desc, b_desc, scale_d, neg_a, neg_b, major } => {
                    let a = (ASource::Desc(*a_desc), *b_desc);
                    wgmmas.push(self.wgmma(*shape, d, a, *scale_d, (*neg_a, *neg_b), *major)?);
                    Op::Wgmma(wgmmas.len() as u32 - 1)
                }
                Instr::WgmmaRs { shape, d, a, b_desc, scale_d, neg_a, neg_b } => {
                    let a = (ASource::Regs(*a), *b_desc);
                    let major = (ptx::Major::K, ptx::Major::K);
                    wgmmas.push(self.wgmma(*shape, d, a, *scale_d, (*neg_a, *neg_b), major)?);
                    Op::Wgmma(wgmmas.len() as u32 - 1)
                }
                Instr::WgmmaFence => Op::WgmmaFence,
                Instr::WgmmaCommit => Op::WgmmaCommit,
                Instr::WgmmaWait { n } => Op::WgmmaWait { keep: *n },
                Instr::FenceProxyAsync => Op::FenceProxyAsync,
                Instr::Tma(t) => self.tma(t, &param_offsets, &mut tensor_loads)?,
                _ => self.instr(instr, &label_pc, &param_offsets)?,
            };
            if matches!(op, Op::Bar { threads: Some(_), .. }) {
                named_barrier.get_or_insert(self.line);
            }
            code.push(Inst { op, guard });
            lines.push(self.line);
            texts.push(text);
        }
        let atomics = code.iter().any(|i| matches!(i.op, Op::AtomInc { .. } | Op::FenceAcqRel));
        if let (true, Some(line)) = (atomics, named_barrier) {
            // `BlockOrder` publishes what a thread acquired to the whole
            // block at a barrier: true of block-wide barriers only.
            return Err(EmuError::Unsupported {
                line,
                message: "a barrier with a thread count in a kernel with atomics (the cross-block order of \
                          atomics is modelled for block-wide barriers only)"
                    .into(),
            });
        }

        let mut val_names = Vec::new();
        let mut pred_names = Vec::new();
        for r in &kernel.regs {
            let name = format!("%{}", r.name);
            if r.ty == Type::Pred { pred_names.push(name) } else { val_names.push(name) }
        }
        val_names.extend(Special::ALL.iter().map(|s| s.name().to_owned()));
        val_names.extend(kernel.globals.iter().map(|g| g.name.clone()));
        let ops: Vec<Op> = code.iter().map(|i: &Inst| i.op).collect();
        let accumulators = Accumulators::new(&mut wgmmas, &ops, &mmas, val_names.len());

        Ok(Program {
            name: kernel.name.clone(),
            params: kernel.params.clone(),
            param_offsets,
            param_bytes,
            reqntid: kernel.reqntid,
            static_shared_bytes: self.shared.iter().map(|a| a.bytes).sum(),
            async_copies: code.iter().any(|i| {
                matches!(
                    i.op,
                    Op::CpAsync(_) | Op::CpAsyncCommit | Op::CpAsyncWait { .. } | Op::TensorLoad(_)
                )
            }),
            uses_tma: code.iter().any(|i| {
                matches!(
                    i.op,
                    Op::MbarInit { .. }
                        | Op::MbarExpectTx { .. }
                        | Op::MbarTryWait { .. }
                        | Op::TensorLoad(_)
                )
            }),
            uses_wgmma: code.iter().any(|i| {
                matches!(
                    i.op,
                    Op::Wgmma(_)
                        | Op::WgmmaFence
                        | Op::WgmmaCommit
                        | Op::WgmmaWait { .. }
                        | Op::FenceProxyAsync
                )
            }),
            uses_setmaxnreg: code.iter().any(|i| matches!(i.op, Op::SetMaxNReg { .. })),
            uses_atomics: atomics,
            half_global: code.iter().any(|i| matches!(i.op, Op::LdB16 { .. } | Op::StB16 { .. })),
            shared: self.shared,
            code,
            mmas,
            wgmmas,
            tensor_loads,
            accumulators,
            lines,
            texts,
            val_names,
            pred_names,
            special_base: self.special_base,
            globals: kernel
                .globals
                .iter()
                .map(|g| (g.name.clone(), g.words.iter().flat_map(|w| w.to_le_bytes()).collect()))
                .collect(),
        })
    }

    fn instr(&self, instr: &Instr, label_pc: &[Option<u32>], param_offsets: &[u32]) -> Result<Op, EmuError> {
        Ok(match *instr {
            Instr::CvtHalf(cvt) => self.half_cvt(cvt)?,
            Instr::Ld { space, ty: Type::B16, ref dst, addr, .. } => self.ld_b16(space, dst, addr)?,
            Instr::St { space, ty: Type::B16, addr, ref src } => self.st_b16(space, addr, src)?,
            Instr::LdParam { dst, param } => {
                let Some(p) = self.kernel.params.get(param.index()) else {
                    return self.unsupported("parameter index out of range");
                };
                let Some(ty) = p.ty.scalar() else {
                    return self
                        .unsupported(format!("`ld.param` of tensor map `{}`: take its address", p.name));
                };
                if dst.ty().bits() != ty.bits() || dst.ty() == Type::Pred {
                    return self.unsupported(format!(
                        "{} cannot hold parameter `{}` of type {}",
                        self.name(dst),
                        p.name,
                        p.ty
                    ));
                }
                Op::LdParam {
                    d: [self.val(dst)?, 0, 0, 0],
                    n: 1,
                    size: p.ty.bytes() as u8,
                    off: param_offsets[param.index()],
                }
            }
            Instr::Mov { dst, src } => {
                if dst.ty() == Type::Pred {
                    Op::PMov { d: self.pred(dst)?, a: self.pred_src(src)? }
                } else {
                    Op::Mov { d: self.val(dst)?, a: self.src(src, dst.ty().bits())? }
                }
            }
            Instr::CvtaToGlobal { dst, src } => Op::Mov { d: self.val(dst)?, a: Src::R(self.val(src)?) },
            Instr::CvtTf32 { dst, src } => {
                Op::I1 { f: I1::Tf32, d: self.val(dst)?, a: Src::R(self.val(src)?) }
            }
            Instr::Cvt { dst, src } => {
                if [dst.ty(), src.ty()].iter().any(|t| t.is_float() || matches!(t, Type::Pred | Type::B16)) {
                    return self.unsupported("only integer `cvt` is supported");
                }
                let f = match (dst.ty().bits(), src.ty().bits()) {
                    (64, 32) if src.ty().is_signed() => I1::Sext32,
                    (32, 64) => I1::Trunc32,
                    _ => I1::Copy,
                };
                Op::I1 { f, d: self.val(dst)?, a: Src::R(self.val(src)?) }
            }
            Instr::Unary { op, ty, dst, src } => match (op, ty) {
                (UnOp::Not, Type::Pred) => Op::PNot { d: self.pred(dst)?, a: self.pred_src(src)? },
                (UnOp::Neg, Type::F32) => Op::FNeg32 { d: self.val(dst)?, a: self.src(src, 32)? },
                (UnOp::Neg, Type::F64) => Op::FNeg64 { d: self.val(dst)?, a: self.src(src, 64)? },
                (_, t) if t.is_float() || matches!(t, Type::Pred | Type::B16) => {
                    return self.unsupported(format!("`{op:?}` on {t}"));
                }
                (op, t) => {
                    let wide = t.bits() == 64;
                    let f = match (op, wide) {
                        (UnOp::Neg, false) => I1::Neg32,
                        (UnOp::Neg, true) => I1::Neg64,
                        (UnOp::Not, false) => I1::Not32,
                        (UnOp::Not, true) => I1::Not64,
                    };
                    Op::I1 { f, d: self.val(dst)?, a: self.src(src, t.bits())? }
                }
            },
            Instr::Binary { op, ty, dst, a, b } => self.binary(op, ty, dst, a, b)?,
            Instr::Mad { wide, ty, dst, a, b, c } => {
                if ty.is_float() || matches!(ty, Type::Pred | Type::B16) {
                    return self.unsupported(format!("`mad` on {ty}"));
                }
                let f = match (wide, ty.bits(), ty.is_signed()) {
                    (false, 32, _) => I3::MadLo32,
                    (false, _, _) => I3::MadLo64,
                    (true, 32, false) => I3::MadWideU32,
                    (true, 32, true) => I3::MadWideS32,
                    (true, _, _) => return self.unsupported(format!("`mad.wide` on {ty}")),
                };
                let cw = if wide { 64 } else { ty.bits() };
                Op::I3 {
                    f,
                    d: self.val(dst)?,
                    a: self.src(a, ty.bits())?,
                    b: self.src(b, ty.bits())?,
                    c: self.src(c, cw)?,
                }
            }
            Instr::Fma { ty, dst, a, b, c } => {
                let (d, a, b, c) = (
                    self.val(dst)?,
                    self.src(a, ty.bits())?,
                    self.src(b, ty.bits())?,
                    self.src(c, ty.bits())?,
                );
                match ty {
                    Type::F32 => Op::Fma32 { d, a, b, c },
                    Type::F64 => Op::Fma64 { d, a, b, c },
                    t => return self.unsupported(format!("`fma` on {t}")),
                }
            }
            Instr::Setp { cmp, ty, dst, a, b } => {
                let class = match ty {
                    Type::U32 | Type::B32 => Class::U32,
                    Type::S32 => Class::S32,
                    Type::U64 | Type::B64 => Class::U64,
                    Type::S64 => Class::S64,
                    Type::F32 => Class::F32,
                    Type::F64 => Class::F64,
                    Type::Pred => return self.unsupported("`setp` on predicates"),
                    Type::B16 => return self.unsupported("`setp` on .b16"),
                };
                Op::Setp {
                    cmp,
                    class,
                    d: self.pred(dst)?,
                    a: self.src(a, ty.bits())?,
                    b: self.src(b, ty.bits())?,
                }
            }
            Instr::Selp { ty, dst, a, b, pred } => {
                if matches!(ty, Type::Pred | Type::B16) {
                    return self.unsupported(format!("`selp` on {ty}"));
                }
                Op::Selp {
                    d: self.val(dst)?,
                    a: self.src(a, ty.bits())?,
                    b: self.src(b, ty.bits())?,
                    p: self.pred(pred)?,
                }
            }
            Instr::Ld { space, ty, ref dst, addr, .. } => {
                let (n, size) = self.vector(ty, dst.len())?;
                let mut d = [0u32; 4];
                for (slot, &r) in d.iter_mut().zip(dst) {
                    if r.ty().bits() != ty.bits() || r.ty() == Type::Pred {
                        return self.unsupported(format!("{} cannot hold a {ty} value", self.name(r)));
                    }
                    *slot = self.val(r)?;
                }
                match (space, addr.base) {
                    (Space::Param, AddrBase::Param(p)) => {
                        let Some(decl) = self.kernel.params.get(p.index()) else {
                            return self.unsupported("parameter index out of range");
                        };
                        let off = i64::from(param_offsets[p.index()]) + addr.offset;
                        let end = off + i64::from(n) * i64::from(size);
                        if addr.offset < 0 || end > i64::from(param_offsets[p.index()] + decl.ty.bytes()) {
                            return self
                                .unsupported(format!("`.param` load outside parameter `{}`", decl.name));
                        }
                        Op::LdParam { d, n, size, off: off as u32 }
                    }
                    (Space::Param, _) => return self.unsupported("`.param` loads must name their parameter"),
                    (space, base) => Op::Ld {
                        mem: self.mem(space)?,
                        d,
                        n,
                        size,
                        base: self.base(space, base)?,
                        off: addr.offset,
                    },
                }
            }
            Instr::St { space, ty, addr, ref src } => {
                let (n, size) = self.vector(ty, src.len())?;
                let mut s = [Src::I(0); 4];
                for (slot, &op) in s.iter_mut().zip(src) {
                    if let Operand::Reg(r) = op
                        && (r.ty().bits() != ty.bits() || r.ty() == Type::Pred)
                    {
                        return self.unsupported(format!("{} is not a {ty} value", self.name(r)));
                    }
                    *slot = self.src(op, ty.bits())?;
                }
                Op::St {
                    mem: self.mem(space)?,
                    s,
                    n,
                    size,
                    base: self.base(space, addr.base)?,
                    off: addr.offset,
                }
            }
            Instr::CpAsync { cache, dst, src, bytes, src_bytes } => {
                if !cache.allows(bytes) {
                    return self.unsupported(format!("`cp.async.{}` of {bytes} bytes", cache.name()));
                }
                let src_bytes = match src_bytes {
                    None => Src::I(u64::from(bytes)),
                    Some(Operand::Reg(r))
                        if r.ty().bits() != 32 || r.ty().is_float() || r.ty() == Type::Pred =>
                    {
                        return self.unsupported(format!(
                            "`cp.async` src-size {} is not a 32-bit integer",
                            self.name(r)
                        ));
                    }
                    Some(op) => self.src(op, 32)?,
                };
                Op::CpAsync(CpAsync {
                    dst: self.base(Space::Shared, dst.base)?,
                    dst_off: dst.offset,
                    src: self.base(Space::Global, src.base)?,
                    src_off: src.offset,
                    bytes: bytes as u8,
                    src_bytes,
                })
            }
            Instr::AtomInc { dst, addr, bound } => {
                if dst.ty() != Type::U32 {
                    return self
                        .unsupported(format!("`atom.inc` into {}, not a `.u32` register", self.name(dst)));
                }
                if let Operand::Reg(r) = bound
                    && (r.ty().bits() != 32 || r.ty().is_float() || r.ty() == Type::Pred)
                {
                    return self
                        .unsupported(format!("`atom.inc` bound {} is not a 32-bit integer", self.name(r)));
                }
                Op::AtomInc {
                    d: self.val(dst)?,
                    base: self.base(Space::Global, addr.base)?,
                    off: addr.offset,
                    bound: self.src(bound, 32)?,
                }
            }
            Instr::FenceAcqRelGpu => Op::FenceAcqRel,
            Instr::CpAsyncCommit => Op::CpAsyncCommit,
            Instr::CpAsyncWait { n } => Op::CpAsyncWait { keep: Some(n) },
            Instr::CpAsyncWaitAll => Op::CpAsyncWait { keep: None },
            Instr::BarSync { id, threads } => Op::Bar { id, threads, arrive: false },
            Instr::BarArrive { id, threads } => Op::Bar { id, threads: Some(threads), arrive: true },
            Instr::Bra { uni, target } => match label_pc.get(target.index()).copied().flatten() {
                Some(pc) => Op::Bra { target: pc, uni },
                None => return self.unsupported("branch to a label that is not placed"),
            },
            Instr::Ret => Op::Ret,
            Instr::SetMaxNReg { inc, count } => Op::SetMaxNReg { inc, count },
            Instr::Mma { .. }
            | Instr::Wgmma { .. }
            | Instr::WgmmaRs { .. }
            | Instr::WgmmaFence
            | Instr::WgmmaCommit
            | Instr::WgmmaWait { .. }
            | Instr::FenceProxyAsync
            | Instr::Tma(_) => unreachable!("decoded by `run`"),
        })
    }

    fn vector(&self, ty: Type, n: usize) -> Result<(u8, u8), EmuError> {
        if ty == Type::Pred || !matches!(n, 1 | 2 | 4) || n as u32 * ty.bytes() > 16 {
            return self.unsupported(format!("a memory access of {n} values of {ty}"));
        }
        Ok((n as u8, ty.bytes() as u8))
    }

    fn mem(&self, space: Space) -> Result<Mem, EmuError> {
        match space {
            Space::Global => Ok(Mem::Global),
            Space::Shared => Ok(Mem::Shared),
            Space::Param => self.unsupported("stores to `.param` are not supported"),
        }
    }

    fn base(&self, space: Space, base: AddrBase) -> Result<Base, EmuError> {
        match (space, base) {
            (_, AddrBase::Reg(r)) => {
                if r.ty().is_float() || r.ty() == Type::Pred {
                    return self.unsupported(format!(
                        "address register {} has type {}",
                        self.name(r),
                        r.ty()
                    ));
                }
                Ok(Base::Reg(self.val(r)?))
            }
            (Space::Shared, AddrBase::Shared(s)) => match self.shared.get(s.index()) {
                Some(a) => Ok(Base::Abs(a.base)),
                None => self.unsupported("shared array index out of range"),
            },
            _ => self.unsupported(format!("this address cannot be used in .{}", space.name())),
        }
    }

    fn binary(&self, op: BinOp, ty: Type, dst: ptx::Reg, a: Operand, b: Operand) -> Result<Op, EmuError> {
        if ty == Type::Pred {
            let (d, a, b) = (self.pred(dst)?, self.pred_src(a)?, self.pred_src(b)?);
            return match op {
                BinOp::And => Ok(Op::PAnd { d, a, b }),
                BinOp::Or => Ok(Op::POr { d, a, b }),
                _ => self.unsupported(format!("`{op:?}` on predicates")),
            };
        }
        if ty == Type::B16 {
            return self.unsupported(format!("`{op:?}` on .b16 (only loads and stores are 16-bit)"));
        }
        let bits = ty.bits();
        let b_bits = if matches!(op, BinOp::Shl | BinOp::Shr) { 32 } else { bits };
        let (d, sa, sb) = (self.val(dst)?, self.src(a, bits)?, self.src(b, b_bits)?);
        if ty.is_float() {
            let f = match (op, bits) {
                (BinOp::Add, 32) => F2::Add32,
                (BinOp::Sub, 32) => F2::Sub32,
                (BinOp::Mul, 32) => F2::Mul32,
                (BinOp::Min, 32) => F2::Min32,
                (BinOp::Max, 32) => F2::Max32,
                (BinOp::Add, _) => F2::Add64,
                (BinOp::Sub, _) => F2::Sub64,
                (BinOp::Mul, _) => F2::Mul64,
                (BinOp::Min, _) => F2::Min64,
                (BinOp::Max, _) => F2::Max64,
                _ => return self.unsupported(format!("`{op:?}` on {ty}")),
            };
            return Ok(Op::F2 { f, d, a: sa, b: sb });
        }
        let s = ty.is_signed();
        let w = bits == 64;
        let div = |f| Ok(Op::IDiv { f, d, a: sa, b: sb });
        let f = match op {
            BinOp::Add => [I2::Add32, I2::Add64][w as usize],
            BinOp::Sub => [I2::Sub32, I2::Sub64][w as usize],
            BinOp::Mul => [I2::MulLo32, I2::MulLo64][w as usize],
            BinOp::MulWide if !w => [I2::MulWideU32, I2::MulWideS32][s as usize],
            BinOp::MulWide => return self.unsupported(format!("`mul.wide` on {ty}")),
            BinOp::And => [I2::And32, I2::And64][w as usize],
            BinOp::Or => [I2::Or32, I2::Or64][w as usize],
            BinOp::Xor => [I2::Xor32, I2::Xor64][w as usize],
            BinOp::Shl => [I2::Shl32, I2::Shl64][w as usize],
            BinOp::Shr => [[I2::ShrU32, I2::ShrS32], [I2::ShrU64, I2::ShrS64]][w as usize][s as usize],
            BinOp::Min => [[I2::MinU32, I2::MinS32], [I2::MinU64, I2::MinS64]][w as usize][s as usize],
            BinOp::Max => [[I2::MaxU32, I2::MaxS32], [I2::MaxU64, I2::MaxS64]][w as usize][s as usize],
            BinOp::Div => {
                return div(
                    [[IDiv::DivU32, IDiv::DivS32], [IDiv::DivU64, IDiv::DivS64]][w as usize][s as usize]
                );
            }
            BinOp::Rem => {
                return div(
                    [[IDiv::RemU32, IDiv::RemS32], [IDiv::RemU64, IDiv::RemS64]][w as usize][s as usize]
                );
            }
        };
        Ok(Op::I2 { f, d, a: sa, b: sb })
    }
}
