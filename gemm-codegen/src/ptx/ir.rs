//! The PTX intermediate representation: modules, kernels, registers and
//! instructions, as typed data.
//!
//! Every kernel family builds this IR through [`crate::ptx::KernelBuilder`]
//! and prints it with [`crate::ptx::Writer`]; nothing else produces PTX text.
//! The IR covers the subset of PTX that gemmforge emits, so it can be parsed
//! back and executed by an emulator without a GPU.
//!
//! Invariants, upheld by the builder:
//! - every [`Reg`] names a declaration of the kernel it is used in, with the
//!   same type;
//! - register names are valid PTX identifiers, unique within the kernel, and
//!   never a PTX special register (`%tid`, `%ctaid`, ...);
//! - every [`Label`] used by a branch is placed exactly once;
//! - a kernel has at most one dynamic shared array ([`SharedDecl::bytes`]
//!   `None`), and `cp.async` copies 4, 8 or 16 bytes (16 with `.cg`) from a
//!   register-based global address to a shared one, reading at most that
//!   many (the constructors of [`Instr::CpAsync`] check these).

use std::fmt;

/// A PTX fundamental type, as used in register declarations and instruction
/// type suffixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `.pred`: a predicate register.
    Pred,
    /// `.b32`: 32 untyped bits.
    B32,
    /// `.b64`: 64 untyped bits.
    B64,
    /// `.u32`.
    U32,
    /// `.u64`.
    U64,
    /// `.s32`.
    S32,
    /// `.s64`.
    S64,
    /// `.f32`.
    F32,
    /// `.f64`.
    F64,
}

impl Type {
    /// Every type.
    pub const ALL: [Type; 9] =
        [Type::Pred, Type::B32, Type::B64, Type::U32, Type::U64, Type::S32, Type::S64, Type::F32, Type::F64];

    /// The suffix without its dot: `u32`.
    pub const fn name(self) -> &'static str {
        match self {
            Type::Pred => "pred",
            Type::B32 => "b32",
            Type::B64 => "b64",
            Type::U32 => "u32",
            Type::U64 => "u64",
            Type::S32 => "s32",
            Type::S64 => "s64",
            Type::F32 => "f32",
            Type::F64 => "f64",
        }
    }

    /// Parses a suffix without its dot.
    pub fn from_name(name: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Width in bits (1 for predicates).
    pub const fn bits(self) -> u32 {
        match self {
            Type::Pred => 1,
            Type::B32 | Type::U32 | Type::S32 | Type::F32 => 32,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 => 64,
        }
    }

    /// Width in bytes of a value in memory.
    pub const fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// Whether this is `.f32` or `.f64`.
    pub const fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    /// Whether this is a signed integer type.
    pub const fn is_signed(self) -> bool {
        matches!(self, Type::S32 | Type::S64)
    }

    /// The type of twice the width, for `mul.wide` and `mad.wide`.
    pub const fn wide(self) -> Option<Type> {
        match self {
            Type::U32 => Some(Type::U64),
            Type::S32 => Some(Type::S64),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// A register: an index into its kernel's declarations, and its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub(crate) index: u32,
    pub(crate) ty: Type,
}

impl Reg {
    /// The register declared at `index` of its kernel's [`Kernel::regs`],
    /// of type `ty`. Kernels normally get registers from
    /// [`KernelBuilder::reg`](super::KernelBuilder::reg); readers of PTX text
    /// (the emulator's parser) build them from declarations they have checked.
    pub const fn new(index: u32, ty: Type) -> Reg {
        Reg { index, ty }
    }

    /// The register's declared type.
    pub const fn ty(self) -> Type {
        self.ty
    }

    /// Index of its declaration in [`Kernel::regs`].
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

/// A kernel parameter: an index into [`Kernel::params`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamId(pub(crate) u32);

impl ParamId {
    /// The entry at `index` of [`Kernel::params`].
    pub const fn new(index: u32) -> ParamId {
        ParamId(index)
    }

    /// Index into [`Kernel::params`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A shared-memory array: an index into [`Kernel::shared`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedId(pub(crate) u32);

impl SharedId {
    /// The entry at `index` of [`Kernel::shared`].
    pub const fn new(index: u32) -> SharedId {
        SharedId(index)
    }

    /// Index into [`Kernel::shared`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A branch target: an index into [`Kernel::labels`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label(pub(crate) u32);

impl Label {
    /// The entry at `index` of [`Kernel::labels`].
    pub const fn new(index: u32) -> Label {
        Label(index)
    }

    /// Index into [`Kernel::labels`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A PTX special register (read-only, per thread or per block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// `%tid.x`: the thread's index in its block.
    TidX,
    /// `%ntid.x`: threads per block along x.
    NtidX,
    /// `%ctaid.x`: the block's index in the grid along x.
    CtaidX,
    /// `%ctaid.y`: the block's index in the grid along y.
    CtaidY,
    /// `%ctaid.z`: the block's index in the grid along z.
    CtaidZ,
    /// `%nctaid.x`: blocks in the grid along x (grid-stride loops).
    NctaidX,
}

impl Special {
    /// Every special register the IR knows.
    pub const ALL: [Special; 6] =
        [Special::TidX, Special::NtidX, Special::CtaidX, Special::CtaidY, Special::CtaidZ, Special::NctaidX];

    /// The PTX spelling, with its `%`.
    pub const fn name(self) -> &'static str {
        match self {
            Special::TidX => "%tid.x",
            Special::NtidX => "%ntid.x",
            Special::CtaidX => "%ctaid.x",
            Special::CtaidY => "%ctaid.y",
            Special::CtaidZ => "%ctaid.z",
            Special::NctaidX => "%nctaid.x",
        }
    }

    /// Parses the PTX spelling.
    pub fn from_name(name: &str) -> Option<Special> {
        Special::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// A register.
    Reg(Reg),
    /// An integer immediate.
    Imm(i64),
    /// An `.f32` immediate, by its bits (printed `0fXXXXXXXX`: exact).
    F32(u32),
    /// An `.f64` immediate, by its bits (printed `0dXXXXXXXXXXXXXXXX`).
    F64(u64),
    /// A special register.
    Special(Special),
    /// The shared-window address of a shared array.
    Shared(SharedId),
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Operand {
        Operand::Reg(r)
    }
}

impl From<Special> for Operand {
    fn from(s: Special) -> Operand {
        Operand::Special(s)
    }
}

impl From<SharedId> for Operand {
    fn from(s: SharedId) -> Operand {
        Operand::Shared(s)
    }
}

impl Operand {
    /// An integer immediate.
    pub fn imm(value: impl Into<i64>) -> Operand {
        Operand::Imm(value.into())
    }

    /// An exact `.f32` immediate.
    pub fn f32(value: f32) -> Operand {
        Operand::F32(value.to_bits())
    }

    /// An exact `.f64` immediate.
    pub fn f64(value: f64) -> Operand {
        Operand::F64(value.to_bits())
    }

    /// Floating-point zero of type `ty` (`.f32` or `.f64`).
    pub fn float_zero(ty: Type) -> Operand {
        match ty {
            Type::F64 => Operand::f64(0.0),
            _ => Operand::f32(0.0),
        }
    }

    /// The register, if this operand is one.
    pub const fn reg(self) -> Option<Reg> {
        match self {
            Operand::Reg(r) => Some(r),
            _ => None,
        }
    }
}

/// What an address is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrBase {
    /// A register holding an address in the instruction's state space.
    Reg(Reg),
    /// A shared array, by name.
    Shared(SharedId),
    /// A kernel parameter, by name (for `ld.param`).
    Param(ParamId),
}

/// `[base + offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    /// What the offset is added to.
    pub base: AddrBase,
    /// Byte offset.
    pub offset: i64,
}

impl Address {
    /// `[reg + offset]`.
    pub const fn reg(base: Reg, offset: i64) -> Address {
        Address { base: AddrBase::Reg(base), offset }
    }

    /// `[shared_array + offset]`.
    pub const fn shared(base: SharedId, offset: i64) -> Address {
        Address { base: AddrBase::Shared(base), offset }
    }

    /// `[param]`.
    pub const fn param(param: ParamId) -> Address {
        Address { base: AddrBase::Param(param), offset: 0 }
    }
}

/// The state space of a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `.global`.
    Global,
    /// `.shared`.
    Shared,
    /// `.param` (loads only).
    Param,
}

impl Space {
    /// The qualifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Param => "param",
        }
    }
}

/// A load's cache qualifier (global loads only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CacheQual {
    /// None: the default `.ca` behaviour for reads.
    #[default]
    None,
    /// `.nc`: the non-coherent, read-only data path.
    Nc,
    /// `.ca`: cache at all levels.
    Ca,
    /// `.cg`: cache in L2 only.
    Cg,
}

impl CacheQual {
    /// The qualifier without its dot, or `None`.
    pub const fn name(self) -> Option<&'static str> {
        match self {
            CacheQual::None => None,
            CacheQual::Nc => Some("nc"),
            CacheQual::Ca => Some("ca"),
            CacheQual::Cg => Some("cg"),
        }
    }
}

/// The cache qualifier of `cp.async`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpAsyncCache {
    /// `.ca`: cache at all levels (L1 and L2); copies of 4, 8 or 16 bytes.
    Ca,
    /// `.cg`: cache in L2 only, bypassing L1; copies of 16 bytes only.
    Cg,
}

impl CpAsyncCache {
    /// The qualifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            CpAsyncCache::Ca => "ca",
            CpAsyncCache::Cg => "cg",
        }
    }

    /// Whether PTX allows a copy of `bytes` bytes with this qualifier: 4, 8
    /// or 16 for `.ca`, 16 for `.cg`.
    pub const fn allows(self, bytes: u32) -> bool {
        match self {
            CpAsyncCache::Ca => matches!(bytes, 4 | 8 | 16),
            CpAsyncCache::Cg => bytes == 16,
        }
    }
}

/// Comparison of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `.eq`.
    Eq,
    /// `.ne`.
    Ne,
    /// `.lt`.
    Lt,
    /// `.le`.
    Le,
    /// `.gt`.
    Gt,
    /// `.ge`.
    Ge,
}

impl Cmp {
    /// Every comparison.
    pub const ALL: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

    /// The qualifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
        }
    }

    /// Parses the qualifier without its dot.
    pub fn from_name(name: &str) -> Option<Cmp> {
        Cmp::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Two-operand arithmetic and logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `add` (`add.rn` on floats).
    Add,
    /// `sub` (`sub.rn` on floats).
    Sub,
    /// `mul.lo` on integers, `mul.rn` on floats.
    Mul,
    /// `mul.wide`: full product of two 32-bit integers into 64 bits.
    MulWide,
    /// `div` (integers).
    Div,
    /// `rem` (integers).
    Rem,
    /// `and` (bits or predicates).
    And,
    /// `or` (bits or predicates).
    Or,
    /// `shl`.
    Shl,
    /// `shr`.
    Shr,
    /// `min`.
    Min,
    /// `max`.
    Max,
}

impl BinOp {
    /// Every operation.
    pub const ALL: [BinOp; 12] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::MulWide,
        BinOp::Div,
        BinOp::Rem,
        BinOp::And,
        BinOp::Or,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Min,
        BinOp::Max,
    ];
}

/// One-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `neg`.
    Neg,
    /// `not` (bits or predicates).
    Not,
}

/// An instruction. The type suffix `ty` is the one PTX prints; the
/// destination's type follows from it (twice as wide for `MulWide` and wide
/// `Mad`, `.pred` for `Setp`).
#[derive(Clone, Debug, PartialEq)]
pub enum Instr {
    /// `ld.param.ty dst, [param]`.
    LdParam {
        /// Destination.
        dst: Reg,
        /// The parameter (its declared type is the load's).
        param: ParamId,
    },
    /// `mov.ty dst, src`.
    Mov {
        /// Destination; its type is the instruction's.
        dst: Reg,
        /// Source.
        src: Operand,
    },
    /// `cvta.to.global.u64 dst, src`: generic to global address.
    CvtaToGlobal {
        /// Destination (`.u64`).
        dst: Reg,
        /// Source (`.u64`).
        src: Reg,
    },
    /// `cvt.dty.sty dst, src`: integer widening or narrowing.
    Cvt {
        /// Destination; its type is `dty`.
        dst: Reg,
        /// Source; its type is `sty`.
        src: Reg,
    },
    /// `op.ty dst, src`.
    Unary {
        /// The operation.
        op: UnOp,
        /// Instruction type.
        ty: Type,
        /// Destination.
        dst: Reg,
        /// Source.
        src: Operand,
    },
    /// `op.ty dst, a, b`.
    Binary {
        /// The operation.
        op: BinOp,
        /// Instruction type (the sources' type for `MulWide`).
        ty: Type,
        /// Destination.
        dst: Reg,
        /// First source.
        a: Operand,
        /// Second source.
        b: Operand,
    },
    /// `mad.lo.ty` or `mad.wide.ty dst, a, b, c`: `a * b + c` on integers.
    Mad {
        /// Whether this is `mad.wide` (32-bit sources, 64-bit `c` and `dst`).
        wide: bool,
        /// Instruction type (the sources' type).
        ty: Type,
        /// Destination.
        dst: Reg,
        /// First factor.
        a: Operand,
        /// Second factor.
        b: Operand,
        /// Addend.
        c: Operand,
    },
    /// `fma.rn.ty dst, a, b, c`: fused `a * b + c`, one rounding.
    Fma {
        /// Instruction type (`.f32` or `.f64`).
        ty: Type,
        /// Destination.
        dst: Reg,
        /// First factor.
        a: Operand,
        /// Second factor.
        b: Operand,
        /// Addend.
        c: Operand,
    },
    /// `setp.cmp.ty dst, a, b`.
    Setp {
        /// The comparison.
        cmp: Cmp,
        /// Type of `a` and `b`.
        ty: Type,
        /// Destination predicate.
        dst: Reg,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
    },
    /// `selp.ty dst, a, b, pred`: `pred ? a : b`.
    Selp {
        /// Instruction type.
        ty: Type,
        /// Destination.
        dst: Reg,
        /// Chosen when `pred` holds.
        a: Operand,
        /// Chosen otherwise.
        b: Operand,
        /// The predicate.
        pred: Reg,
    },
    /// `ld.space{.qual}{.vN}.ty dst, [addr]`.
    Ld {
        /// State space.
        space: Space,
        /// Cache qualifier (global only).
        qual: CacheQual,
        /// Element type.
        ty: Type,
        /// One, two or four destinations (`.v2`, `.v4` when more than one).
        dst: Vec<Reg>,
        /// Address of the first element.
        addr: Address,
    },
    /// `st.space{.vN}.ty [addr], src`.
    St {
        /// State space.
        space: Space,
        /// Element type.
        ty: Type,
        /// Address of the first element.
        addr: Address,
        /// One, two or four sources.
        src: Vec<Operand>,
    },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], bytes{, src_bytes}`:
    /// starts copying `bytes` bytes from global to shared memory without
    /// waiting for them. Only the first `src_bytes` (all, when absent) are
    /// read from `src`; the rest of the `bytes` destination bytes are filled
    /// with zeros, which is how a ragged edge is loaded without reading past
    /// it (`src_bytes = 0` reads nothing). The copy joins the thread's open
    /// group ([`Instr::CpAsyncCommit`] closes it) and its bytes are in
    /// flight, not to be touched, until [`Instr::CpAsyncWait`] or
    /// [`Instr::CpAsyncWaitAll`] has waited for it; other threads then see
    /// them only after a barrier. Both addresses must be aligned to `bytes`.
    CpAsync {
        /// `.ca` or `.cg`.
        cache: CpAsyncCache,
        /// The shared destination: a register holding a shared-window
        /// address, or a shared array, plus an offset.
        dst: Address,
        /// The global source: a register holding a global address, plus an
        /// offset.
        src: Address,
        /// `cp-size`: bytes written to `dst`, 4, 8 or 16 (16 for `.cg`).
        bytes: u32,
        /// `src-size`: bytes read from `src`, at most `bytes`; a 32-bit
        /// integer register or an immediate.
        src_bytes: Option<Operand>,
    },
    /// `cp.async.commit_group`: closes the thread's open group of
    /// `cp.async` copies (an empty group if it has none).
    CpAsyncCommit,
    /// `cp.async.wait_group n`: waits until at most the `n` most recently
    /// committed groups of this thread are still in flight; every older
    /// group has landed in shared memory.
    CpAsyncWait {
        /// Committed groups that may stay in flight.
        n: u32,
    },
    /// `cp.async.wait_all`: commits the open group and waits for every copy
    /// of this thread (`cp.async.commit_group; cp.async.wait_group 0`).
    CpAsyncWaitAll,
    /// `bar.sync id`: wait until every thread of the block arrives.
    BarSync {
        /// Barrier number.
        id: u32,
    },
    /// `bra{.uni} target`.
    Bra {
        /// Whether every thread of a warp is known to take the same path.
        uni: bool,
        /// The target.
        target: Label,
    },
    /// `ret`.
    Ret,
}

/// A guard: execute only where `pred` (or, negated, its complement) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub pred: Reg,
    /// Whether the guard is `@!pred`.
    pub negated: bool,
}

/// One line of a kernel body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// An instruction, perhaps guarded.
    Instr {
        /// Its guard, if any.
        guard: Option<Guard>,
        /// The instruction.
        instr: Instr,
    },
    /// A branch target.
    Label(Label),
    /// A `// comment` line (a stencil phase, an explanation).
    Comment(String),
    /// An empty line.
    Blank,
}

/// A kernel parameter declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    /// Its name.
    pub name: String,
    /// Its type (`.u64` for pointers).
    pub ty: Type,
}

/// A register declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDecl {
    /// Its name without the `%`.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Index into [`Kernel::reg_groups`]: the comment its declaration sits
    /// under.
    pub group: usize,
}

/// A shared-memory array: statically sized (`.shared .align A .b8
/// name[bytes];`), or the kernel's dynamic array (`.extern .shared .align A
/// .b8 name[];`), whose size the launch gives.
///
/// A kernel has at most one dynamic array. It starts after the static ones
/// and holds the launch's dynamic shared bytes (on CUDA, the `sharedMemBytes`
/// of the launch, above 48 KiB only once the host has raised
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedDecl {
    /// Its name.
    pub name: String,
    /// Alignment in bytes.
    pub align: u32,
    /// Size in bytes; `None` for the dynamic array.
    pub bytes: Option<u32>,
}

impl SharedDecl {
    /// Whether this is the dynamic (`.extern`) array.
    pub const fn is_dynamic(&self) -> bool {
        self.bytes.is_none()
    }
}

/// A `.visible .entry` kernel.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Kernel {
    /// Entry name.
    pub name: String,
    /// Parameters, in launch order.
    pub params: Vec<ParamDecl>,
    /// The exact block shape it must be launched with (`.reqntid`).
    pub reqntid: Option<(u32, u32, u32)>,
    /// Comments heading groups of register declarations.
    pub reg_groups: Vec<String>,
    /// Register declarations.
    pub regs: Vec<RegDecl>,
    /// Shared arrays.
    pub shared: Vec<SharedDecl>,
    /// Label names.
    pub labels: Vec<String>,
    /// The body.
    pub body: Vec<Stmt>,
}

impl Kernel {
    /// The declaration of `reg`.
    pub fn reg(&self, reg: Reg) -> &RegDecl {
        &self.regs[reg.index()]
    }

    /// Iterates over the instructions of the body.
    pub fn instrs(&self) -> impl Iterator<Item = &Instr> {
        self.body.iter().filter_map(|s| match s {
            Stmt::Instr { instr, .. } => Some(instr),
            _ => None,
        })
    }

    /// Total bytes of the statically sized shared arrays (the dynamic one,
    /// if any, is sized by the launch).
    pub fn shared_bytes(&self) -> u32 {
        self.shared.iter().filter_map(|s| s.bytes.map(|b| b.next_multiple_of(s.align))).sum()
    }

    /// The dynamic shared array, if the kernel declares one.
    pub fn dynamic_shared(&self) -> Option<SharedId> {
        self.shared.iter().position(SharedDecl::is_dynamic).map(|i| SharedId(i as u32))
    }
}

/// A PTX target architecture: `sm_XY` as `XY`, and whether it is the
/// architecture-specific `sm_XYa`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch {
    /// `10 × major + minor`.
    pub sm: u32,
    /// `sm_90a`: the architecture-specific instructions, on that GPU only.
    pub specific: bool,
}

impl Arch {
    /// The oldest GPU gemmforge targets.
    pub const SM_70: Arch = Arch::new(70);
    /// Ampere: `cp.async`, `mma` on TF32/BF16.
    pub const SM_80: Arch = Arch::new(80);
    /// Hopper.
    pub const SM_90: Arch = Arch::new(90);
    /// Hopper with `wgmma` and `setmaxnreg`.
    pub const SM_90A: Arch = Arch { sm: 90, specific: true };

    /// `sm_XY`, portable.
    pub const fn new(sm: u32) -> Arch {
        Arch { sm, specific: false }
    }

    /// Reads `sm_XY` or `sm_XYa`.
    pub fn from_name(name: &str) -> Option<Arch> {
        let digits = name.strip_prefix("sm_")?;
        let (digits, specific) = match digits.strip_suffix('a') {
            Some(d) => (d, true),
            None => (digits, false),
        };
        let sm = digits.parse().ok().filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))?;
        Some(Arch { sm, specific })
    }

    /// The oldest PTX ISA version that can target this architecture.
    pub const fn min_ptx_version(self) -> PtxVersion {
        match self.sm {
            0..=70 => PtxVersion(6, 0),
            71..=75 => PtxVersion(6, 3),
            76..=80 => PtxVersion(7, 0),
            81..=86 => PtxVersion(7, 1),
            87..=89 => PtxVersion(7, 8),
            _ if self.specific => PtxVersion(8, 0),
            _ => PtxVersion(7, 8),
        }
    }
}

impl Default for Arch {
    fn default() -> Arch {
        Arch::SM_70
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.sm, if self.specific { "a" } else { "" })
    }
}

/// A PTX ISA version, `.version major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion(pub u32, pub u32);

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

impl Instr {
    /// The oldest architecture that has this instruction in this form.
    ///
    /// `cp.async` and its group instructions need sm_80; everything else the
    /// IR holds exists on sm_70. `mma` and `wgmma` will raise this when they
    /// are added, and with it the module's `.target`.
    pub const fn min_arch(&self) -> Arch {
        match self {
            Instr::CpAsync { .. }
            | Instr::CpAsyncCommit
            | Instr::CpAsyncWait { .. }
            | Instr::CpAsyncWaitAll => Arch::SM_80,
            _ => Arch::SM_70,
        }
    }
}

/// A PTX module: a header comment, the target, and its kernels.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// Lines of the header comment, without `//`.
    pub header: Vec<String>,
    /// The oldest target the module is for, whatever its instructions need
    /// (a kernel compiled for `arch = sm_90` says so). The reader sets it
    /// to the `.target` it reads, so a module whose floor is its whole
    /// [`Module::target`] reads back equal.
    pub floor: Arch,
    /// The kernels.
    pub kernels: Vec<Kernel>,
}

impl Module {
    /// The module's `.target`: the oldest architecture every instruction of
    /// every kernel runs on, and never below [`Module::floor`].
    pub fn target(&self) -> Arch {
        self.kernels.iter().flat_map(Kernel::instrs).map(Instr::min_arch).fold(self.floor, Arch::max)
    }

    /// The PTX ISA version matching [`Module::target`].
    pub fn version(&self) -> PtxVersion {
        self.target().min_ptx_version()
    }
}
