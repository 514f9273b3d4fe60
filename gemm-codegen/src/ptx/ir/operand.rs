//! Types, registers, special registers, operands and addresses: what an
//! instruction reads and writes.

use std::fmt;

#[cfg(doc)]
use super::Kernel;

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
    /// `.b16`: only as the type of a load or store of 16 bits held in a
    /// `.b32` register (PTX lets `ld`, `st` and `cvt` take operands wider
    /// than their type: a load zero-extends, a store writes the low 16
    /// bits). No register is declared `.b16`, so it is not in
    /// [`Type::ALL`].
    B16,
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
            Type::B16 => "b16",
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
            Type::B16 => 16,
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
    /// [`KernelBuilder::reg`](crate::ptx::KernelBuilder::reg); readers of PTX text
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

/// An initialized global array: an index into [`Kernel::globals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalId(pub(crate) u32);

impl GlobalId {
    /// The entry at `index` of [`Kernel::globals`].
    pub const fn new(index: u32) -> GlobalId {
        GlobalId(index)
    }

    /// Index into [`Kernel::globals`].
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
    /// `%nctaid.z`: blocks in the grid along z (the problems of a batch, or
    /// the slices of a split K).
    NctaidZ,
}

impl Special {
    /// Every special register the IR knows.
    pub const ALL: [Special; 7] = [
        Special::TidX,
        Special::NtidX,
        Special::CtaidX,
        Special::CtaidY,
        Special::CtaidZ,
        Special::NctaidX,
        Special::NctaidZ,
    ];

    /// The PTX spelling, with its `%`.
    pub const fn name(self) -> &'static str {
        match self {
            Special::TidX => "%tid.x",
            Special::NtidX => "%ntid.x",
            Special::CtaidX => "%ctaid.x",
            Special::CtaidY => "%ctaid.y",
            Special::CtaidZ => "%ctaid.z",
            Special::NctaidX => "%nctaid.x",
            Special::NctaidZ => "%nctaid.z",
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
    /// The generic address of an initialized global array (`.u64`).
    Global(GlobalId),
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

impl From<GlobalId> for Operand {
    fn from(g: GlobalId) -> Operand {
        Operand::Global(g)
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
