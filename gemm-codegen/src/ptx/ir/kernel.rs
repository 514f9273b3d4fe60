//! Declarations, kernels and modules.

use super::{Arch, Instr, PtxVersion, Reg, SharedId, Stmt, Type};

#[cfg(doc)]
use super::Operand;

/// A kernel parameter declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    /// Its name.
    pub name: String,
    /// Its type (`.u64` for pointers).
    pub ty: ParamType,
}

/// What a kernel parameter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// One value of a scalar type, read with `ld.param`.
    Scalar(Type),
    /// An opaque 128-byte, 64-byte aligned tensor map (`.param .align 64
    /// .b8 name[128]`, CUDA's `CUtensorMap`), passed by value. The kernel
    /// never reads it: it hands the parameter's generic address
    /// (`cvta.param`) to `cp.async.bulk.tensor`.
    TensorMap,
}

impl ParamType {
    /// Bytes of the parameter.
    pub const TENSOR_MAP_BYTES: u32 = 128;
    /// Alignment of a tensor map parameter.
    pub const TENSOR_MAP_ALIGN: u32 = 64;

    /// The scalar type, if the parameter holds one.
    pub const fn scalar(self) -> Option<Type> {
        match self {
            ParamType::Scalar(t) => Some(t),
            ParamType::TensorMap => None,
        }
    }

    /// Bytes the parameter takes in the parameter block.
    pub const fn bytes(self) -> u32 {
        match self {
            ParamType::Scalar(t) => t.bytes(),
            ParamType::TensorMap => Self::TENSOR_MAP_BYTES,
        }
    }

    /// Its alignment in the parameter block.
    pub const fn align(self) -> u32 {
        match self {
            ParamType::Scalar(t) => t.bytes(),
            ParamType::TensorMap => Self::TENSOR_MAP_ALIGN,
        }
    }
}

impl From<Type> for ParamType {
    fn from(t: Type) -> ParamType {
        ParamType::Scalar(t)
    }
}

impl std::fmt::Display for ParamType {
    /// The declaration's type part: `.u64`, or `.align 64 .b8` (the
    /// name then takes `[128]`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamType::Scalar(t) => write!(f, "{t}"),
            ParamType::TensorMap => write!(f, ".align {} .b8", Self::TENSOR_MAP_ALIGN),
        }
    }
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

/// An initialized, read-only global array of the kernel's module
/// (`.global .align A .b64 name[N] = { ... };`): constants a kernel reads
/// with per-thread addresses (a bespoke kernel's operator in fragment
/// order), which the constant bank would serialize. Its address is the
/// operand [`Operand::Global`]; the kernel never writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalDecl {
    /// Its name.
    pub name: String,
    /// Alignment in bytes.
    pub align: u32,
    /// The values, as 64-bit words (`.b64` elements).
    pub words: Vec<u64>,
}

impl GlobalDecl {
    /// Its size in bytes.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
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
    /// Initialized global arrays it reads (declared at module scope, just
    /// before the kernel).
    pub globals: Vec<GlobalDecl>,
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
