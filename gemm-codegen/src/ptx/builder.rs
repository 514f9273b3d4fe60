//! Building kernels: declarations, and instructions from typed constructors.
//!
//! Lowering passes never format PTX text. They declare named registers, then
//! push [`Instr`]s made by the constructors below, which check operand types
//! against the instruction (a mismatch is a compiler bug and panics).

use std::collections::HashSet;

use super::ir::{
    AddrBase, Address, BinOp, CacheQual, Cmp, CpAsyncCache, GlobalDecl, GlobalId, Guard, HalfCvt, Instr,
    Kernel, Label, Major, MmaKind, MmaShape, Operand, ParamDecl, ParamId, ParamType, Reg, RegDecl,
    SETMAXNREG_MAX, SETMAXNREG_MIN, SharedDecl, SharedId, Space, Stmt, Type, UnOp, WgmmaShape,
};

/// Names PTX reserves for special registers: a register named like one of
/// these would shadow it (`%tid` makes `%tid.x` unparsable).
const RESERVED: &[&str] = &[
    "tid",
    "ntid",
    "laneid",
    "warpid",
    "nwarpid",
    "ctaid",
    "nctaid",
    "smid",
    "nsmid",
    "gridid",
    "clock",
    "clock64",
    "clock_hi",
    "lanemask_eq",
    "lanemask_le",
    "lanemask_lt",
    "lanemask_ge",
    "lanemask_gt",
    "globaltimer",
    "globaltimer_lo",
    "globaltimer_hi",
    "total_smem_size",
    "dynamic_smem_size",
    "aggr_smem_size",
    "reserved_smem_offset_begin",
    "reserved_smem_offset_end",
    "reserved_smem_offset_cap",
    "reserved_smem_offset_0",
    "reserved_smem_offset_1",
    "is_explicit_cluster",
    "clusterid",
    "nclusterid",
    "cluster_ctaid",
    "cluster_nctaid",
    "cluster_ctarank",
    "cluster_nctarank",
    "current_graph_exec",
];

/// Whether `name` is a PTX identifier as gemmforge spells them.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `%name` would be (or shadow) a PTX special register.
pub fn is_reserved(name: &str) -> bool {
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    };
    RESERVED.contains(&name) || numbered("envreg") || numbered("pm")
}

/// Builds one [`Kernel`].
#[derive(Debug)]
pub struct KernelBuilder {
    kernel: Kernel,
    /// Parameter, shared-array and label names.
    names: HashSet<String>,
    /// Register names (without `%`: a namespace of their own in PTX).
    reg_names: HashSet<String>,
    placed: Vec<bool>,
}

impl KernelBuilder {
    /// Starts a kernel with entry name `name`.
    pub fn new(name: impl Into<String>) -> KernelBuilder {
        let name = name.into();
        assert!(is_identifier(&name), "invalid entry name {name:?}");
        let kernel = Kernel { name, reg_groups: vec![String::new()], ..Kernel::default() };
        KernelBuilder { kernel, names: HashSet::new(), reg_names: HashSet::new(), placed: Vec::new() }
    }

    /// Requires the block shape `(x, y, z)` at launch (`.reqntid`), which
    /// lets ptxas budget registers for exactly that many threads.
    pub fn reqntid(&mut self, shape: (u32, u32, u32)) {
        self.kernel.reqntid = Some(shape);
    }

    fn claim(&mut self, name: &str) {
        assert!(is_identifier(name), "invalid PTX identifier {name:?}");
        assert!(self.names.insert(name.to_owned()), "name {name:?} declared twice");
    }

    /// The declared name of `reg`, without `%`.
    pub fn reg_name(&self, reg: Reg) -> &str {
        &self.kernel.regs[reg.index()].name
    }

    /// Declares a parameter.
    pub fn param(&mut self, name: &str, ty: impl Into<ParamType>) -> ParamId {
        self.claim(name);
        self.kernel.params.push(ParamDecl { name: name.to_owned(), ty: ty.into() });
        ParamId(self.kernel.params.len() as u32 - 1)
    }

    /// Starts a group of register declarations, headed by `comment`.
    pub fn reg_group(&mut self, comment: impl Into<String>) {
        self.kernel.reg_groups.push(comment.into());
    }

    /// Declares register `%name` of type `ty`.
    pub fn reg(&mut self, name: impl AsRef<str>, ty: Type) -> Reg {
        let name = name.as_ref();
        assert!(!is_reserved(name), "register name %{name} shadows a PTX special register");
        assert!(is_identifier(name), "invalid PTX identifier {name:?}");
        assert!(self.reg_names.insert(name.to_owned()), "register %{name} declared twice");
        let group = self.kernel.reg_groups.len() - 1;
        self.kernel.regs.push(RegDecl { name: name.to_owned(), ty, group });
        Reg { index: self.kernel.regs.len() as u32 - 1, ty }
    }

    /// Declares a shared array of `bytes` bytes aligned to `align`.
    pub fn shared(&mut self, name: &str, bytes: u32, align: u32) -> SharedId {
        // The dynamic array is printed at module scope, read back last.
        assert!(self.kernel.dynamic_shared().is_none(), "static shared array {name:?} after the dynamic one");
        self.shared_decl(name, Some(bytes), align)
    }

    /// Declares the kernel's dynamic shared array (`.extern .shared .align
    /// A .b8 name[];`, printed at module scope as PTX requires), aligned to
    /// `align`, whose size the launch gives. A kernel has at most one,
    /// declared after its static arrays.
    pub fn dynamic_shared(&mut self, name: &str, align: u32) -> SharedId {
        assert!(self.kernel.dynamic_shared().is_none(), "a second dynamic shared array {name:?}");
        self.shared_decl(name, None, align)
    }

    fn shared_decl(&mut self, name: &str, bytes: Option<u32>, align: u32) -> SharedId {
        assert!(align.is_power_of_two(), "alignment {align} is not a power of two");
        self.claim(name);
        self.kernel.shared.push(SharedDecl { name: name.to_owned(), align, bytes });
        SharedId(self.kernel.shared.len() as u32 - 1)
    }

    /// Declares an initialized, read-only global array of `.b64` words,
    /// aligned to `align` bytes (see [`GlobalDecl`]); its address is the
    /// operand of the returned id.
    pub fn global_data(&mut self, name: &str, align: u32, words: Vec<u64>) -> GlobalId {
        assert!(align.is_power_of_two() && align >= 8, "alignment {align} of a .b64 array");
        assert!(!words.is_empty(), "global array {name:?} has no values");
        self.claim(name);
        self.kernel.globals.push(GlobalDecl { name: name.to_owned(), align, words });
        GlobalId(self.kernel.globals.len() as u32 - 1)
    }

    /// Declares a label; place it with [`KernelBuilder::place`].
    pub fn label(&mut self, name: &str) -> Label {
        self.claim(name);
        self.kernel.labels.push(name.to_owned());
        self.placed.push(false);
        Label(self.kernel.labels.len() as u32 - 1)
    }

    /// Places `label` here.
    pub fn place(&mut self, label: Label) {
        let placed = &mut self.placed[label.index()];
        assert!(!*placed, "label {} placed twice", self.kernel.labels[label.index()]);
        *placed = true;
        self.kernel.body.push(Stmt::Label(label));
    }

    /// A `// comment` line.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.kernel.body.push(Stmt::Comment(text.into()));
    }

    /// An empty line, then a comment line: the start of a phase.
    pub fn section(&mut self, text: impl Into<String>) {
        self.kernel.body.push(Stmt::Blank);
        self.comment(text);
    }

    /// Appends an instruction.
    pub fn push(&mut self, instr: Instr) {
        self.push_guarded(None, instr);
    }

    /// Appends an instruction that executes only where `pred` holds.
    pub fn push_if(&mut self, pred: Reg, instr: Instr) {
        self.push_guarded(Some(Guard { pred, negated: false }), instr);
    }

    /// Appends an instruction that executes only where `pred` does not hold.
    pub fn push_unless(&mut self, pred: Reg, instr: Instr) {
        self.push_guarded(Some(Guard { pred, negated: true }), instr);
    }

    /// Appends an instruction under an optional guard.
    pub fn push_guarded(&mut self, guard: Option<Guard>, instr: Instr) {
        if let Some(g) = guard {
            assert_eq!(g.pred.ty, Type::Pred, "guard on a non-predicate register");
        }
        self.kernel.body.push(Stmt::Instr { guard, instr });
    }

    /// Finishes the kernel; every declared label must have been placed.
    pub fn finish(mut self) -> Kernel {
        for (name, placed) in self.kernel.labels.iter().zip(&self.placed) {
            assert!(placed, "label {name} declared but never placed");
        }
        // Number the labels in the order they are placed, as a reader of
        // the text does, so that a module read back equals the one built
        // whatever order its parts declared their labels in.
        let mut renumber = vec![0u32; self.kernel.labels.len()];
        let mut names = Vec::with_capacity(self.kernel.labels.len());
        for stmt in &self.kernel.body {
            if let Stmt::Label(l) = stmt {
                renumber[l.index()] = names.len() as u32;
                names.push(std::mem::take(&mut self.kernel.labels[l.index()]));
            }
        }
        for stmt in &mut self.kernel.body {
            match stmt {
                Stmt::Label(l) | Stmt::Instr { instr: Instr::Bra { target: l, .. }, .. } => {
                    *l = Label(renumber[l.index()]);
                }
                _ => {}
            }
        }
        self.kernel.labels = names;
        self.kernel
    }
}

/// The untyped-bits type of the same width, for `and`, `or`, `not`, `shl`.
fn bits_of(ty: Type) -> Type {
    match ty {
        Type::Pred => Type::Pred,
        t if t.bits() == 64 => Type::B64,
        _ => Type::B32,
    }
}

#[track_caller]
fn check_operand(op: Operand, ty: Type) {
    match op {
        // PTX: a bit-size register serves any type of its size, and a
        // bit-size type takes any register of its size.
        Operand::Reg(r) => assert!(
            r.ty.bits() == ty.bits()
                && (r.ty.is_float() == ty.is_float()
                    || matches!(r.ty, Type::B32 | Type::B64)
                    || matches!(ty, Type::B32 | Type::B64)),
            "register of type {} used as {}",
            r.ty,
            ty
        ),
        Operand::Imm(_) => assert!(!ty.is_float() && ty != Type::Pred, "integer immediate used as {ty}"),
        Operand::F32(_) => assert_eq!(ty, Type::F32, "f32 immediate used as {ty}"),
        Operand::F64(_) => assert_eq!(ty, Type::F64, "f64 immediate used as {ty}"),
        Operand::Special(_) => {
            assert!(matches!(ty, Type::U32 | Type::B32 | Type::S32), "special register used as {ty}")
        }
        Operand::Shared(_) => assert!(
            matches!(ty, Type::U32 | Type::B32 | Type::U64 | Type::B64),
            "shared address used as {ty}"
        ),
        Operand::Global(_) => assert!(matches!(ty, Type::U64 | Type::B64), "global address used as {ty}"),
    }
}

#[track_caller]
fn check_float(ty: Type) {
    assert!(ty.is_float(), "floating-point instruction on {ty}");
}

#[track_caller]
fn check_int(ty: Type) {
    assert!(!ty.is_float() && ty != Type::Pred, "integer instruction on {ty}");
}

impl Instr {
    /// `ld.param` of `param` into `dst` (the parameter's type must match).
    pub fn ld_param(dst: Reg, param: ParamId) -> Instr {
        Instr::LdParam { dst, param }
    }

    /// `mov.T dst, src` with `T` the type of `dst`.
    #[track_caller]
    pub fn mov(dst: Reg, src: impl Into<Operand>) -> Instr {
        let src = src.into();
        check_operand(src, dst.ty);
        Instr::Mov { dst, src }
    }

    /// `cvta.to.global.u64 dst, src`.
    #[track_caller]
    pub fn cvta_to_global(dst: Reg, src: Reg) -> Instr {
        assert!(dst.ty == Type::U64 && src.ty == Type::U64, "cvta on non-u64 registers");
        Instr::CvtaToGlobal { dst, src }
    }

    /// `cvt.D.S dst, src`: integer widening or narrowing.
    #[track_caller]
    pub fn cvt(dst: Reg, src: Reg) -> Instr {
        check_int(dst.ty);
        check_int(src.ty);
        Instr::Cvt { dst, src }
    }

    /// `neg.T dst, src`, `T` the type of `dst`, or for a bit-size `dst` (a
    /// `.tf32` value in a `.b32` register) the float type of its size.
    #[track_caller]
    pub fn neg(dst: Reg, src: impl Into<Operand>) -> Instr {
        let src = src.into();
        let ty = match dst.ty {
            Type::B32 => Type::F32,
            Type::B64 => Type::F64,
            ty => ty,
        };
        check_operand(src, ty);
        assert!(ty.is_float() || ty.is_signed(), "neg on {}", dst.ty);
        Instr::Unary { op: UnOp::Neg, ty, dst, src }
    }

    /// `not.T dst, src` (bits or predicate).
    #[track_caller]
    pub fn not(dst: Reg, src: impl Into<Operand>) -> Instr {
        let src = src.into();
        check_operand(src, dst.ty);
        assert!(!dst.ty.is_float(), "not on {}", dst.ty);
        Instr::Unary { op: UnOp::Not, ty: bits_of(dst.ty), dst, src }
    }

    /// `op.T dst, a, b` with `T` the type of `dst` (or its bits type where PTX
    /// requires one); use [`Instr::mul_wide`] for `mul.wide`.
    #[track_caller]
    pub fn binary(op: BinOp, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> Instr {
        let (a, b) = (a.into(), b.into());
        let ty = match op {
            BinOp::MulWide => panic!("use Instr::mul_wide"),
            BinOp::And | BinOp::Or => bits_of(dst.ty),
            BinOp::Xor => {
                assert!(dst.ty != Type::Pred, "xor on a predicate");
                bits_of(dst.ty)
            }
            BinOp::Shl => {
                check_int(dst.ty);
                bits_of(dst.ty)
            }
            BinOp::Div | BinOp::Rem | BinOp::Shr => {
                check_int(dst.ty);
                dst.ty
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Min | BinOp::Max => {
                assert!(dst.ty != Type::Pred, "{op:?} on a predicate");
                dst.ty
            }
        };
        check_operand(a, ty);
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            check_operand(b, Type::U32);
        } else {
            check_operand(b, ty);
        }
        Instr::Binary { op, ty, dst, a, b }
    }

    /// `op.ty dst, a, b` on registers declared with another type of `ty`'s
    /// size (PTX lets a bit-size register serve any type of its size): a
    /// `.b32` TF32 value in `sub.f32` or `add.u32`, say.
    #[track_caller]
    pub fn binary_as(op: BinOp, ty: Type, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> Instr {
        let (a, b) = (a.into(), b.into());
        assert!(
            matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or),
            "binary_as takes add, sub, mul, and, or"
        );
        assert!(!matches!(ty, Type::B32 | Type::B64 | Type::Pred), "{op:?} needs a typed instruction");
        for x in [Operand::Reg(dst), a, b] {
            check_operand(x, ty);
        }
        Instr::Binary { op, ty, dst, a, b }
    }

    /// `add dst, a, b`.
    #[track_caller]
    pub fn add(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> Instr {
        Instr::binary(BinOp::Add, dst, a, b)
    }

    /// `sub dst, a, b`.
    #[track_caller]
    pub fn sub(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> Instr {
        Instr::binary(BinOp::Sub, dst, a, b)
    }

    /// `mul.lo` (integers) or `mul.rn` (floats) `dst, a, b`.
    #[track_caller]
    pub fn mul(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> Instr {
        Instr::binary(BinOp::Mul, dst, a, b)
    }

    /// `mul.wide.T dst, a, b`: `dst` is twice as wide as `a` and `b`.
    #[track_caller]
    pub fn mul_wide(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> Instr {
        let (a, b) = (a.into(), b.into());
        let ty = narrow_of(dst.ty);
        check_operand(a, ty);
        check_operand(b, ty);
        Instr::Binary { op: BinOp::MulWide, ty, dst, a, b }
    }

    /// `mad.lo.T dst, a, b, c` on integers.
    #[track_caller]
    pub fn mad(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>, c: impl Into<Operand>) -> Instr {
        let (a, b, c) = (a.into(), b.into(), c.into());
        check_int(dst.ty);
        for x in [a, b, c] {
            check_operand(x, dst.ty);
        }
        Instr::Mad { wide: false, ty: dst.ty, dst, a, b, c }
    }

    /// `mad.wide.T dst, a, b, c`: 32-bit `a * b` widened, plus 64-bit `c`.
    #[track_caller]
    pub fn mad_wide(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>, c: impl Into<Operand>) -> Instr {
        let (a, b, c) = (a.into(), b.into(), c.into());
        let ty = narrow_of(dst.ty);
        check_operand(a, ty);
        check_operand(b, ty);
        check_operand(c, dst.ty);
        Instr::Mad { wide: true, ty, dst, a, b, c }
    }

    /// `fma.rn.T dst, a, b, c`, `T` the type of `dst`, or for a bit-size
    /// `dst` (a `.tf32` value in a `.b32` register) the float type of its size.
    #[track_caller]
    pub fn fma(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>, c: impl Into<Operand>) -> Instr {
        let (a, b, c) = (a.into(), b.into(), c.into());
        let ty = match dst.ty {
            Type::B32 => Type::F32,
            Type::B64 => Type::F64,
            ty => ty,
        };
        check_float(ty);
        for x in [a, b, c] {
            check_operand(x, ty);
        }
        Instr::Fma { ty, dst, a, b, c }
    }

    /// `mma.sync.aligned.{shape}.row.col{kind} {d}, {a}, {b}, {c}`:
    /// `D = A · B + C` by the warp (see [`Instr::Mma`]). A's and B's
    /// registers are of [`MmaKind::ab_type`], C's and D's of
    /// [`MmaKind::cd_type`], and each fragment has the shape's count per lane.
    #[track_caller]
    pub fn mma(kind: MmaKind, shape: MmaShape, d: &[Reg], a: &[Reg], b: &[Reg], c: &[Reg]) -> Instr {
        assert!(kind.shapes().contains(&shape), "no {} mma of shape {}", kind.suffixes(), shape.name());
        for (what, regs, count, ty) in [
            ("D", d, shape.c_per_lane(), kind.cd_type()),
            ("A", a, shape.a_per_lane(), kind.ab_type()),
            ("B", b, shape.b_per_lane(), kind.ab_type()),
            ("C", c, shape.c_per_lane(), kind.cd_type()),
        ] {
            assert_eq!(
                regs.len(),
                count as usize,
                "mma {}: {what} has {count} registers a lane",
                shape.name()
            );
            assert!(
                regs.iter().all(|r| r.ty == ty),
                "mma {}: {what} in a register not {ty}",
                kind.suffixes()
            );
        }
        Instr::Mma { shape, kind, d: d.to_vec(), a: a.to_vec(), b: b.to_vec(), c: c.to_vec() }
    }

    /// `cvt.rna.tf32.f32 dst, src`: `dst` (`.b32`) is `src` (`.f32`) rounded
    /// to `.tf32`.
    #[track_caller]
    pub fn cvt_tf32(dst: Reg, src: Reg) -> Instr {
        assert!(dst.ty == Type::B32 && src.ty == Type::F32, "cvt.rna.tf32.f32 takes .b32 from .f32");
        Instr::CvtTf32 { dst, src }
    }

    /// `setp.cmp.T dst, a, b`.
    #[track_caller]
    pub fn setp(cmp: Cmp, ty: Type, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> Instr {
        let (a, b) = (a.into(), b.into());
        assert_eq!(dst.ty, Type::Pred, "setp into a non-predicate");
        assert!(ty != Type::Pred, "setp on predicates");
        check_operand(a, ty);
        check_operand(b, ty);
        Instr::Setp { cmp, ty, dst, a, b }
    }

    /// `selp.T dst, a, b, pred`.
    #[track_caller]
    pub fn selp(dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>, pred: Reg) -> Instr {
        let (a, b) = (a.into(), b.into());
        assert_eq!(pred.ty, Type::Pred, "selp on a non-predicate");
        check_operand(a, dst.ty);
        check_operand(b, dst.ty);
        Instr::Selp { ty: dst.ty, dst, a, b, pred }
    }

    /// A load of one, two or four consecutive values of `dst[0]`'s type.
    #[track_caller]
    pub fn ld(space: Space, qual: CacheQual, dst: &[Reg], addr: Address) -> Instr {
        assert!(matches!(dst.len(), 1 | 2 | 4), "vector of {} values", dst.len());
        let ty = dst[0].ty;
        assert!(dst.iter().all(|r| r.ty == ty), "mixed types in a vector load");
        assert!(qual == CacheQual::None || space == Space::Global, "cache qualifier off global");
        assert!(dst.len() as u32 * ty.bytes() <= 16, "vector load over 16 bytes");
        Instr::Ld { space, qual, ty, dst: dst.to_vec(), addr }
    }

    /// `ld.space.b16 dst, [addr]`: 16 bits into the low half of a `.b32`
    /// register, zero-extended.
    #[track_caller]
    pub fn ld_b16(space: Space, dst: Reg, addr: Address) -> Instr {
        assert_eq!(dst.ty, Type::B32, "a 16-bit load fills a .b32 register");
        Instr::Ld { space, qual: CacheQual::None, ty: Type::B16, dst: vec![dst], addr }
    }

    /// `st.space.b16 [addr], src`: the low 16 bits of a `.b32` register.
    #[track_caller]
    pub fn st_b16(space: Space, addr: Address, src: Reg) -> Instr {
        assert_eq!(src.ty, Type::B32, "a 16-bit store takes a .b32 register");
        assert!(space != Space::Param, "store to .param");
        Instr::St { space, ty: Type::B16, addr, src: vec![Operand::Reg(src)] }
    }

    /// `cvt.f32.f16 dst, src`: the f16 in `src`'s low half (see
    /// [`HalfCvt::F16ToF32`]).
    #[track_caller]
    pub fn cvt_f32_f16(dst: Reg, src: Reg) -> Instr {
        assert!(dst.ty == Type::F32 && src.ty == Type::B32, "cvt.f32.f16: .f32 from .b32");
        Instr::CvtHalf(HalfCvt::F16ToF32 { dst, src })
    }

    /// `cvt.rn.{f16x2,bf16x2}.f32 dst, hi, lo` (see [`HalfCvt::Pack`]).
    #[track_caller]
    pub fn cvt_pack_half(dst: Reg, hi: Reg, lo: Reg, bf16: bool) -> Instr {
        assert!(dst.ty == Type::B32, "cvt.rn.f16x2.f32: a .b32 destination");
        assert!(hi.ty == Type::F32 && lo.ty == Type::F32, "cvt.rn.f16x2.f32: .f32 sources");
        Instr::CvtHalf(HalfCvt::Pack { dst, hi, lo, bf16 })
    }

    /// A store of one, two or four consecutive values of `src[0]`'s type.
    #[track_caller]
    pub fn st(space: Space, addr: Address, src: &[Reg]) -> Instr {
        assert!(matches!(src.len(), 1 | 2 | 4), "vector of {} values", src.len());
        assert!(space != Space::Param, "store to .param");
        let ty = src[0].ty;
        assert!(src.iter().all(|r| r.ty == ty), "mixed types in a vector store");
        assert!(src.len() as u32 * ty.bytes() <= 16, "vector store over 16 bytes");
        Instr::St { space, ty, addr, src: src.iter().map(|&r| Operand::Reg(r)).collect() }
    }

    /// `cp.async.{ca,cg}.shared.global [dst], [src], bytes`: an
    /// asynchronous copy of `bytes` bytes (4, 8 or 16; 16 for `.cg`) from a
    /// global address (`src`, register-based) to a shared one (`dst`, a
    /// register holding a shared-window address or a shared array). See
    /// [`Instr::CpAsync`].
    #[track_caller]
    pub fn cp_async(cache: CpAsyncCache, dst: Address, src: Address, bytes: u32) -> Instr {
        check_cp_async(cache, dst, src, bytes);
        Instr::CpAsync { cache, dst, src, bytes, src_bytes: None }
    }

    /// `cp.async.{ca,cg}.shared.global [dst], [src], bytes, src_bytes`: like
    /// [`Instr::cp_async`], but reading only `src_bytes` bytes (a 32-bit
    /// integer register, or an immediate of at most `bytes`) and filling the
    /// rest of the destination with zeros. With `src_bytes = 0` nothing is
    /// read, so `src` may point anywhere (aligned): the way to load the
    /// ragged edge of a matrix without reading past it.
    #[track_caller]
    pub fn cp_async_zfill(
        cache: CpAsyncCache,
        dst: Address,
        src: Address,
        bytes: u32,
        src_bytes: impl Into<Operand>,
    ) -> Instr {
        let src_bytes = src_bytes.into();
        check_cp_async(cache, dst, src, bytes);
        match src_bytes {
            Operand::Reg(_) => check_operand(src_bytes, Type::U32),
            Operand::Imm(n) => {
                assert!((0..=i64::from(bytes)).contains(&n), "cp.async src-size {n} not in 0..={bytes}")
            }
            op => panic!("cp.async src-size {op:?}: a 32-bit integer register or an immediate"),
        }
        Instr::CpAsync { cache, dst, src, bytes, src_bytes: Some(src_bytes) }
    }

    /// `cp.async.commit_group`: closes this thread's open group of copies.
    pub const fn cp_async_commit() -> Instr {
        Instr::CpAsyncCommit
    }

    /// `cp.async.wait_group n`: waits for all but the `n` most recently
    /// committed groups of this thread's copies.
    pub const fn cp_async_wait(n: u32) -> Instr {
        Instr::CpAsyncWait { n }
    }

    /// `cp.async.wait_all`: commits the open group and waits for every copy
    /// of this thread.
    pub const fn cp_async_wait_all() -> Instr {
        Instr::CpAsyncWaitAll
    }

    /// `wgmma.mma_async…m64nNkK.f32.{tf32,f16,bf16}`: `D = (±A)·(±B) +
    /// (scale_d ? D : 0)` by the warpgroup (see [`Instr::Wgmma`]); D has `N
    /// / 2` `.f32` registers, the descriptors 64-bit (`.b64` or `.u64`),
    /// `scale_d` a predicate; A and B lie `major` (MN-major only for the
    /// 16-bit inputs).
    #[track_caller]
    pub fn wgmma(
        shape: WgmmaShape,
        d: &[Reg],
        (a_desc, b_desc): (Reg, Reg),
        scale_d: Reg,
        (neg_a, neg_b): (bool, bool),
        major: (Major, Major),
    ) -> Instr {
        assert_eq!(d.len(), shape.d_per_thread() as usize, "wgmma {}: D has N / 2 registers", shape.name());
        assert!(d.iter().all(|r| r.ty == Type::F32), "wgmma: D in a register not .f32");
        let desc = |r: Reg| matches!(r.ty, Type::B64 | Type::U64);
        assert!(desc(a_desc) && desc(b_desc), "wgmma: descriptors are 64-bit");
        assert!(scale_d.ty == Type::Pred, "wgmma: scale-d is a predicate");
        assert!(
            shape.input.transposes() || major == (Major::K, Major::K),
            "wgmma: {} operands are K-major",
            shape.input.name()
        );
        Instr::Wgmma { shape, d: d.to_vec(), a_desc, b_desc, scale_d, neg_a, neg_b, major }
    }

    /// [`Instr::wgmma`] with A from registers (see [`Instr::WgmmaRs`]): four
    /// `.b32` registers of TF32 values.
    #[track_caller]
    pub fn wgmma_rs(
        shape: WgmmaShape,
        d: &[Reg],
        (a, b_desc): ([Reg; 4], Reg),
        scale_d: Reg,
        (neg_a, neg_b): (bool, bool),
    ) -> Instr {
        assert_eq!(d.len(), shape.d_per_thread() as usize, "wgmma {}: D has N / 2 registers", shape.name());
        assert!(d.iter().all(|r| r.ty == Type::F32), "wgmma: D in a register not .f32");
        assert!(a.iter().all(|r| r.ty == Type::B32), "wgmma: A's registers are .b32");
        assert!(shape.input == crate::ptx::WgmmaInput::Tf32, "wgmma: A from registers is TF32's");
        assert!(matches!(b_desc.ty, Type::B64 | Type::U64), "wgmma: descriptors are 64-bit");
        assert!(scale_d.ty == Type::Pred, "wgmma: scale-d is a predicate");
        Instr::WgmmaRs { shape, d: d.to_vec(), a, b_desc, scale_d, neg_a, neg_b }
    }

    /// `wgmma.fence.sync.aligned`.
    pub const fn wgmma_fence() -> Instr {
        Instr::WgmmaFence
    }

    /// `wgmma.commit_group.sync.aligned`.
    pub const fn wgmma_commit() -> Instr {
        Instr::WgmmaCommit
    }

    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 count` (see
    /// [`Instr::SetMaxNReg`]).
    #[track_caller]
    pub fn setmaxnreg(inc: bool, count: u32) -> Instr {
        assert!(
            (SETMAXNREG_MIN..=SETMAXNREG_MAX).contains(&count) && count.is_multiple_of(8),
            "setmaxnreg: {count} registers is not a multiple of 8 from 24 to 256"
        );
        Instr::SetMaxNReg { inc, count }
    }

    /// `wgmma.wait_group.sync.aligned n`.
    pub const fn wgmma_wait(n: u32) -> Instr {
        Instr::WgmmaWait { n }
    }

    /// `fence.proxy.async.shared::cta`.
    pub const fn fence_proxy_async() -> Instr {
        Instr::FenceProxyAsync
    }

    /// `atom.relaxed.gpu.global.inc.u32 dst, [addr], bound`.
    pub fn atom_inc(dst: Reg, addr: Address, bound: impl Into<Operand>) -> Instr {
        assert_eq!(dst.ty, Type::U32, "atom.inc into a non-.u32 register");
        Instr::AtomInc { dst, addr, bound: bound.into() }
    }

    /// `fence.acq_rel.gpu`.
    pub const fn fence_acq_rel_gpu() -> Instr {
        Instr::FenceAcqRelGpu
    }

    /// `bar.sync id`: every thread of the block.
    pub const fn bar_sync(id: u32) -> Instr {
        Instr::BarSync { id, threads: None }
    }

    /// `bar.sync id, threads`: the `threads / 32` warps that arrive at `id`.
    pub fn bar_sync_named(id: u32, threads: u32) -> Instr {
        assert_named_barrier(id, threads);
        Instr::BarSync { id, threads: Some(threads) }
    }

    /// `bar.arrive id, threads`.
    pub fn bar_arrive(id: u32, threads: u32) -> Instr {
        assert_named_barrier(id, threads);
        Instr::BarArrive { id, threads }
    }

    /// `bra target`.
    pub const fn bra(target: Label) -> Instr {
        Instr::Bra { uni: false, target }
    }

    /// `bra.uni target`: the caller guarantees no thread of a warp diverges.
    pub const fn bra_uni(target: Label) -> Instr {
        Instr::Bra { uni: true, target }
    }

    /// `ret`.
    pub const fn ret() -> Instr {
        Instr::Ret
    }

    /// Predicate conjunction `dst = a && b`.
    #[track_caller]
    pub fn and_pred(dst: Reg, a: Reg, b: Reg) -> Instr {
        assert!([dst, a, b].iter().all(|r| r.ty == Type::Pred), "and.pred on non-predicates");
        Instr::binary(BinOp::And, dst, a, b)
    }
}

/// The rules of both `cp.async` constructors: the size the qualifier allows,
/// a shared destination and a register-based global source.
#[track_caller]
fn check_cp_async(cache: CpAsyncCache, dst: Address, src: Address, bytes: u32) {
    assert!(cache.allows(bytes), "cp.async.{} of {bytes} bytes", cache.name());
    let int_reg = |r: Reg| !r.ty.is_float() && r.ty != Type::Pred;
    match dst.base {
        AddrBase::Shared(_) => {}
        AddrBase::Reg(r) => assert!(int_reg(r), "cp.async destination register of type {}", r.ty),
        AddrBase::Param(_) => panic!("cp.async destination in .param"),
    }
    match src.base {
        AddrBase::Reg(r) => assert!(int_reg(r), "cp.async source register of type {}", r.ty),
        base => panic!("cp.async source {base:?} is not a global address register"),
    }
}

#[track_caller]
fn narrow_of(wide: Type) -> Type {
    match wide {
        Type::U64 => Type::U32,
        Type::S64 => Type::S32,
        t => panic!("no 32-bit type widens to {t}"),
    }
}

/// A barrier number and thread count the hardware has: 16 barriers, whole
/// warps of at most a full block.
fn assert_named_barrier(id: u32, threads: u32) {
    assert!(
        id < 16 && threads > 0 && threads <= 1024 && threads.is_multiple_of(32),
        "barrier {id} with {threads} threads: not a named barrier"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::Arch;

    #[test]
    fn reserved_names_are_refused() {
        let mut b = KernelBuilder::new("k");
        let r = std::panic::catch_unwind(move || b.reg("tid", Type::U32));
        assert!(r.is_err());
    }

    #[test]
    #[should_panic(expected = "register %x declared twice")]
    fn duplicate_names_are_refused() {
        let mut b = KernelBuilder::new("k");
        b.reg("x", Type::U32);
        b.reg("x", Type::F32);
    }

    #[test]
    #[should_panic(expected = "never placed")]
    fn unplaced_labels_are_refused() {
        let mut b = KernelBuilder::new("k");
        b.label("loop");
        b.finish();
    }

    #[test]
    fn labels_are_numbered_in_placement_order() {
        let mut b = KernelBuilder::new("k");
        let late = b.label("late");
        let early = b.label("early");
        b.push(Instr::bra_uni(late));
        b.place(early);
        b.push(Instr::bra_uni(early));
        b.place(late);
        let k = b.finish();
        assert_eq!(k.labels, ["early", "late"]);
        let targets: Vec<_> = k
            .body
            .iter()
            .filter_map(|s| match s {
                Stmt::Instr { instr: Instr::Bra { target, .. }, .. } => {
                    Some(k.labels[target.index()].as_str())
                }
                _ => None,
            })
            .collect();
        assert_eq!(targets, ["late", "early"]);
        let placed: Vec<_> = k
            .body
            .iter()
            .filter_map(|s| if let Stmt::Label(l) = s { Some(l.index()) } else { None })
            .collect();
        assert_eq!(placed, [0, 1]);
    }

    #[test]
    #[should_panic(expected = "register of type .f32 used as .u32")]
    fn operand_types_are_checked() {
        let mut b = KernelBuilder::new("k");
        let f = b.reg("f", Type::F32);
        let u = b.reg("u", Type::U32);
        Instr::add(u, u, f);
    }

    /// As in PTX, a bit-size instruction takes a float register, and an
    /// FMA into a `.b32` register (a TF32 value) is `fma.rn.f32`.
    #[test]
    fn bit_size_types_take_any_register_of_their_size() {
        let mut b = KernelBuilder::new("k");
        let f = b.reg("f", Type::F32);
        let bits = b.reg("bits", Type::B32);
        assert!(matches!(
            Instr::binary(BinOp::And, bits, f, Operand::imm(1)),
            Instr::Binary { ty: Type::B32, .. }
        ));
        assert!(matches!(Instr::fma(bits, bits, Operand::f32(0.5), f), Instr::Fma { ty: Type::F32, .. }));
    }

    #[test]
    fn cp_async_sizes_and_operands_are_checked() {
        let mut b = KernelBuilder::new("k");
        let src = b.reg("src", Type::U64);
        let n = b.reg("n", Type::U32);
        let f = b.reg("f", Type::F32);
        let stage = b.shared("stage", 64, 16);
        let (dst, from) = (Address::shared(stage, 0), Address::reg(src, 0));
        let refused = |make: Box<dyn FnOnce() -> Instr + std::panic::UnwindSafe>| {
            std::panic::catch_unwind(make).is_err()
        };
        assert!(refused(Box::new(move || Instr::cp_async(CpAsyncCache::Cg, dst, from, 8))));
        assert!(refused(Box::new(move || Instr::cp_async(CpAsyncCache::Ca, dst, from, 2))));
        assert!(refused(Box::new(move || Instr::cp_async_zfill(
            CpAsyncCache::Ca,
            dst,
            from,
            8,
            Operand::imm(9)
        ))));
        assert!(refused(Box::new(move || Instr::cp_async_zfill(CpAsyncCache::Ca, dst, from, 8, f))));
        assert!(refused(Box::new(move || Instr::cp_async(CpAsyncCache::Ca, from, dst, 4))));
        let ok = Instr::cp_async_zfill(CpAsyncCache::Ca, dst, from, 8, n);
        assert_eq!(ok.min_arch(), Arch::SM_80);
        assert_eq!(Instr::cp_async(CpAsyncCache::Ca, dst, from, 4).min_arch(), Arch::SM_80);
        assert_eq!(Instr::bar_sync(0).min_arch(), Arch::SM_70);
    }

    #[test]
    #[should_panic(expected = "a second dynamic shared array")]
    fn one_dynamic_shared_array_per_kernel() {
        let mut b = KernelBuilder::new("k");
        b.dynamic_shared("a", 16);
        b.dynamic_shared("b", 16);
    }

    #[test]
    fn bit_operations_use_bit_types() {
        let mut b = KernelBuilder::new("k");
        let u = b.reg("u", Type::U32);
        match Instr::binary(BinOp::Shl, u, u, Operand::imm(2)) {
            Instr::Binary { ty, .. } => assert_eq!(ty, Type::B32),
            _ => unreachable!(),
        }
        let w = b.reg("w", Type::U64);
        match Instr::mul_wide(w, u, Operand::imm(4)) {
            Instr::Binary { ty, .. } => assert_eq!(ty, Type::U32),
            _ => unreachable!(),
        }
    }
}
