//! What a broken rule says: the parameter ([`Field`], [`ParamPath`]), the
//! rule ([`Rule`]) and the message ([`Violation`]) that `gemm_kernel!` spans
//! on the offending token and the tuner counts.

use std::fmt;

/// A parameter of `gemm_kernel!`, as a violation names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `precision`.
    Precision,
    /// `op`.
    Op,
    /// `tile`.
    Tile,
    /// `threads`.
    Threads,
    /// `load_a`.
    LoadA,
    /// `load_b`.
    LoadB,
    /// `lds_width`.
    LdsWidth,
    /// `ldg`.
    Ldg,
    /// `arch`.
    Arch,
    /// `stages`.
    Stages,
    /// `ldg_width`.
    LdgWidth,
    /// `warps`.
    Warps,
    /// `raster`.
    Raster,
    /// `unroll`.
    Unroll,
    /// `frag_sets`.
    FragSets,
    /// `interleave`.
    Interleave,
    /// `c_batch`.
    CBatch,
    /// `math`.
    Math,
    /// `mma`.
    Mma,
    /// `schedule`.
    Schedule,
    /// `producers`.
    Producers,
    /// `operands`.
    Operands,
}

impl Field {
    /// The parameter's name in `gemm_kernel!`.
    pub const fn name(self) -> &'static str {
        match self {
            Field::Precision => "precision",
            Field::Op => "op",
            Field::Tile => "tile",
            Field::Threads => "threads",
            Field::LoadA => "load_a",
            Field::LoadB => "load_b",
            Field::LdsWidth => "lds_width",
            Field::Ldg => "ldg",
            Field::Arch => "arch",
            Field::Stages => "stages",
            Field::LdgWidth => "ldg_width",
            Field::Warps => "warps",
            Field::Raster => "raster",
            Field::Unroll => "unroll",
            Field::FragSets => "frag_sets",
            Field::Interleave => "interleave",
            Field::CBatch => "c_batch",
            Field::Math => "math",
            Field::Mma => "mma",
            Field::Schedule => "schedule",
            Field::Producers => "producers",
            Field::Operands => "operands",
        }
    }
}

/// The smallest part of the spec a violation is about: a parameter, or one
/// element of a tuple parameter (`tile.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamPath {
    /// The parameter.
    pub field: Field,
    /// The tuple element, if the violation is about one.
    pub index: Option<u8>,
}

impl ParamPath {
    /// The whole parameter.
    pub(crate) const fn whole(field: Field) -> ParamPath {
        ParamPath { field, index: None }
    }

    /// Element `index` of a tuple parameter.
    pub(crate) const fn at(field: Field, index: u8) -> ParamPath {
        ParamPath { field, index: Some(index) }
    }
}

impl fmt::Display for ParamPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}.{}", self.field.name(), i),
            None => f.write_str(self.field.name()),
        }
    }
}

/// Which rule a spec broke; lets callers count or test without matching text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// A size, thread count or width is zero.
    Zero,
    /// More threads per block than the hardware allows.
    TooManyThreads,
    /// Threads per block not a whole number of warps.
    PartialWarp,
    /// `tile.0` not a multiple of `threads.0`, or `tile.1` of `threads.1`.
    TileNotMultipleOfThreads,
    /// A load shape with another thread count than `threads`.
    LoadThreads,
    /// A load shape that does not tile its operand's stored stripe.
    LoadNotDividingStripe,
    /// `lds_width` not 1, 2 or 4, wider than 16 bytes, or not dividing the
    /// per-thread rows and columns of C.
    LdsWidth,
    /// Shared memory over the per-block limit.
    SharedMemory,
    /// Registers certainly over the per-thread limit.
    Registers,
    /// `stages` out of range, or above 1 on an architecture without
    /// `cp.async`.
    Stages,
    /// `ldg_width` not 1, 2 or 4, wider than 16 bytes, or not tiling a
    /// stripe's leading dimension with its load shape.
    LdgWidth,
    /// A warp arrangement that does not cover the threads with whole warps.
    Warps,
    /// `unroll` not dividing `tile.2`.
    Unroll,
    /// `frag_sets` not 1 or 2.
    FragSets,
    /// `interleave` without a ring, with `unroll`, or above `k` steps.
    Interleave,
    /// `c_batch` above the columns of C a thread writes.
    CBatch,
    /// A `math` this precision or architecture does not have.
    Math,
    /// An `mma` shape missing, unknown, on an architecture without it, or
    /// given without a tensor-core `math`.
    Mma,
    /// A tensor-core kernel whose threads, warp tile or stripe do not fit
    /// its `mma` fragments.
    MmaTile,
    /// `producers` above 1, or a producer warpgroup for a kernel that is
    /// not a `wgmma` one on a `cp.async` ring, tile by tile.
    Producers,
    /// `ldg = tma` for a kernel whose stripes a producer's bulk copies
    /// cannot bring as its `wgmma`s read them.
    Tma,
    /// `operands = ba` with a conjugating op, whose transpose is no op.
    Operands,
}

/// One broken rule: where, which, and what to change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The offending parameter.
    pub at: ParamPath,
    /// The rule broken.
    pub rule: Rule,
    /// Lowercase, no trailing period, saying what to change.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Violation {}
