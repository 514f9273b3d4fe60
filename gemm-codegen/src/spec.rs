//! The kernel specification: every parameter of the universal GEMM stencil.
//!
//! A [`KernelSpec`] is plain data. It is what `gemm_kernel!` parses, what the
//! search space enumerates and what the tuner writes back. It is not known to
//! be legal until [`crate::validate`] has turned it into a [`crate::Plan`].
//!
//! Its `arch` is a [`Target`]: what the kernel is compiled for, not a GPU
//! ([`crate::ComputeCapability`]) nor a PTX `.target` ([`crate::ptx::Arch`],
//! which every `Target` converts into); the `ptx::Arch` module says how the
//! three relate.

use std::fmt;

mod order;
mod target;

pub use order::{Operands, Schedule};
pub use target::Target;

/// Element type of A, B and C: the BLAS precision letter S, D, C or Z, or
/// one of the 16-bit types `f16` and `bf16`, multiplied on the tensor cores
/// and accumulated in f32 (C stored in the same 16-bit type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Precision {
    /// `f32`: SGEMM.
    F32,
    /// `f64`: DGEMM.
    F64,
    /// `c32`, `Complex<f32>`: CGEMM.
    C32,
    /// `c64`, `Complex<f64>`: ZGEMM.
    C64,
    /// `f16`, IEEE half (`half::f16`): HGEMM, products and sums in f32.
    F16,
    /// `bf16`, bfloat16 (`half::bf16`): products and sums in f32.
    Bf16,
}

impl Precision {
    /// The four BLAS precisions, in BLAS order S, D, C, Z: what tables by
    /// precision ([`Precision::index`]) and the tuner cover.
    pub const ALL: [Precision; 4] = [Precision::F32, Precision::F64, Precision::C32, Precision::C64];

    /// The 16-bit precisions.
    pub const HALF: [Precision; 2] = [Precision::F16, Precision::Bf16];

    /// Every precision: the BLAS four, then the 16-bit two.
    pub const EVERY: [Precision; 6] =
        [Precision::F32, Precision::F64, Precision::C32, Precision::C64, Precision::F16, Precision::Bf16];

    /// Its position in [`Precision::EVERY`] (BLAS order: S 0, D 1, C 2, Z
    /// 3, then f16 4, bf16 5), for tables indexed by precision.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The token used in `gemm_kernel!` (`f32`, `f64`, `c32`, `c64`, `f16`,
    /// `bf16`).
    pub const fn token(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::C32 => "c32",
            Precision::C64 => "c64",
            Precision::F16 => "f16",
            Precision::Bf16 => "bf16",
        }
    }

    /// Parses a `gemm_kernel!` token.
    pub fn from_token(token: &str) -> Option<Precision> {
        Precision::EVERY.into_iter().find(|p| p.token() == token)
    }

    /// The routine letter: BLAS's `s`, `d`, `c` or `z`; `h` for `f16`
    /// (HGEMM), `b` for `bf16`.
    pub const fn blas_letter(self) -> char {
        match self {
            Precision::F32 => 's',
            Precision::F64 => 'd',
            Precision::C32 => 'c',
            Precision::C64 => 'z',
            Precision::F16 => 'h',
            Precision::Bf16 => 'b',
        }
    }

    /// Parses a routine letter ([`Precision::blas_letter`], either case).
    pub fn from_blas_letter(letter: char) -> Option<Precision> {
        Precision::EVERY.into_iter().find(|p| p.blas_letter() == letter.to_ascii_lowercase())
    }

    /// Whether elements are complex (two scalars: real, then imaginary).
    pub const fn is_complex(self) -> bool {
        matches!(self, Precision::C32 | Precision::C64)
    }

    /// Whether elements are 16-bit (`f16`, `bf16`).
    pub const fn is_half(self) -> bool {
        matches!(self, Precision::F16 | Precision::Bf16)
    }

    /// Bytes of one real scalar as stored (2, 4 or 8).
    pub const fn scalar_bytes(self) -> u32 {
        match self {
            Precision::F16 | Precision::Bf16 => 2,
            Precision::F32 | Precision::C32 => 4,
            Precision::F64 | Precision::C64 => 8,
        }
    }

    /// Bytes of the real scalar the kernel computes in: its accumulators,
    /// `alpha` and `beta` (4 for the 16-bit types, which accumulate in f32;
    /// else [`Precision::scalar_bytes`]).
    pub const fn compute_bytes(self) -> u32 {
        if self.is_half() { 4 } else { self.scalar_bytes() }
    }

    /// Scalars per element: 1 for real, 2 for complex.
    pub const fn lanes(self) -> u32 {
        if self.is_complex() { 2 } else { 1 }
    }

    /// Bytes of one element as stored.
    pub const fn element_bytes(self) -> u32 {
        self.scalar_bytes() * self.lanes()
    }

    /// 32-bit registers that hold one element as the kernel computes it
    /// ([`Precision::compute_bytes`] a scalar).
    pub const fn element_regs(self) -> u32 {
        self.compute_bytes() * self.lanes() / 4
    }

    /// Floating-point operations of one multiply-add of elements:
    /// 2 for real, 8 for complex (the convention cuBLAS and the paper use).
    pub const fn flops_per_fma(self) -> u64 {
        if self.is_complex() { 8 } else { 2 }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// How an operand enters the product: `op(X)` in BLAS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Op {
    /// `N`: X as stored.
    N,
    /// `T`: the transpose of X.
    T,
    /// `C`: the conjugate transpose of X (means `T` for real precisions).
    C,
}

impl Op {
    /// All three ops, in BLAS order.
    pub const ALL: [Op; 3] = [Op::N, Op::T, Op::C];

    /// The `gemm_kernel!` token and BLAS character.
    pub const fn letter(self) -> char {
        match self {
            Op::N => 'N',
            Op::T => 'T',
            Op::C => 'C',
        }
    }

    /// Parses `N`, `T` or `C` (either case).
    pub fn from_letter(letter: char) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.letter() == letter.to_ascii_uppercase())
    }

    /// Whether the stored matrix is read across its leading dimension.
    pub const fn is_transposed(self) -> bool {
        !matches!(self, Op::N)
    }

    /// The op a kernel of `precision` really performs: `C` means `T` on reals.
    pub const fn effective(self, precision: Precision) -> Op {
        match self {
            Op::C if !precision.is_complex() => Op::T,
            op => op,
        }
    }

    /// Whether elements are conjugated on their way in.
    pub const fn conjugates(self, precision: Precision) -> bool {
        matches!(self.effective(precision), Op::C)
    }

    /// The op of the transposed operand, `op(X)ᵀ` read from X's storage:
    /// `N` and `T` trade places; `C` (whose transpose, X conjugated, is no
    /// op) stays `C`.
    pub const fn transposed(self) -> Op {
        match self {
            Op::N => Op::T,
            Op::T => Op::N,
            Op::C => Op::C,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Which cache path the stripes of A and B take from global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GlobalLoad {
    /// `ld.global.nc`: the read-only (texture) data path. A and B are never
    /// written during a GEMM, so this is always legal. The default.
    #[default]
    Nc,
    /// `ld.global.ca`: cache in L1 and L2.
    Ca,
    /// `ld.global.cg`: cache in L2 only, bypassing L1.
    Cg,
    /// The Tensor Memory Accelerator: one thread of a `wgmma` kernel's
    /// producer warpgroup copies each stripe of A and B with
    /// `cp.async.bulk.tensor`, through tensor maps the launch passes,
    /// completing on an `mbarrier` the consumers wait on
    /// (`stencil/specialized.rs`).
    Tma,
}

impl GlobalLoad {
    /// Every path, default first.
    pub const ALL: [GlobalLoad; 4] = [GlobalLoad::Nc, GlobalLoad::Ca, GlobalLoad::Cg, GlobalLoad::Tma];

    /// The paths of a thread's own loads (every one but [`GlobalLoad::Tma`]),
    /// default first: the tuner's space of them.
    pub const INSTRUCTIONS: [GlobalLoad; 3] = [GlobalLoad::Nc, GlobalLoad::Ca, GlobalLoad::Cg];

    /// The `gemm_kernel!` token (`nc`, `ca`, `cg`, `tma`).
    pub const fn token(self) -> &'static str {
        match self {
            GlobalLoad::Nc => "nc",
            GlobalLoad::Ca => "ca",
            GlobalLoad::Cg => "cg",
            GlobalLoad::Tma => "tma",
        }
    }

    /// Parses a `gemm_kernel!` token.
    pub fn from_token(token: &str) -> Option<GlobalLoad> {
        GlobalLoad::ALL.into_iter().find(|g| g.token() == token)
    }
}

impl fmt::Display for GlobalLoad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// How the inner product multiplies (`math = fma | dmma | tf32 | tf32x3 |
/// f16 | bf16`, default `fma`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Math {
    /// Register-blocked fused multiply-adds on the FMA units: every
    /// precision, every architecture. The default.
    #[default]
    Fma,
    /// The FP64 tensor cores (`mma.sync` on `.f64`, sm_80 and newer), for
    /// `f64` and `c64` (four real products per complex one): each warp
    /// multiplies `mma`-shaped fragments, IEEE double products and sums as
    /// the FMA kernels, in another order.
    Dmma,
    /// The TF32 tensor cores (`mma.sync` on `.tf32`, sm_80 and newer), for
    /// `f32` and `c32`: each element rounded to TF32 (10 mantissa bits), sums
    /// in f32. Faster than `tf32x3` and far less accurate (about 1e-3
    /// relative): only when asked for. A warp-specialized `wgmma` SGEMM
    /// feeds an operand whose K leads in global memory to the tensor cores
    /// as it is copied, and they truncate it to TF32 instead
    /// ([`crate::constraints::wgmma_direct`]): the same 10 bits, about twice
    /// the error of rounding (`tuning/sm_90-wgmma/run29`).
    Tf32,
    /// Three TF32 products per product, FP32-accurate: each element `x`
    /// split into `big = tf32(x)` and `small = tf32(x − big)`, and `a·b` taken
    /// as `big_a·small_b + small_a·big_b + big_a·big_b` (the `small·small`
    /// term lies below f32's precision).
    Tf32x3,
    /// The FP16 tensor cores on `f16` operands (Hopper `wgmma`, sm_90a):
    /// exact products, sums in f32.
    F16,
    /// The BF16 tensor cores on `bf16` operands (Hopper `wgmma`, sm_90a):
    /// exact products, sums in f32.
    Bf16,
}

impl Math {
    /// Every math, default first.
    pub const ALL: [Math; 6] = [Math::Fma, Math::Dmma, Math::Tf32, Math::Tf32x3, Math::F16, Math::Bf16];

    /// The `gemm_kernel!` token.
    pub const fn token(self) -> &'static str {
        match self {
            Math::Fma => "fma",
            Math::Dmma => "dmma",
            Math::Tf32 => "tf32",
            Math::Tf32x3 => "tf32x3",
            Math::F16 => "f16",
            Math::Bf16 => "bf16",
        }
    }

    /// Whether the product runs on tensor cores (`mma.sync` fragments or
    /// `wgmma`).
    pub const fn is_mma(self) -> bool {
        !matches!(self, Math::Fma)
    }

    /// The kind of `mma.sync` a tensor-core math issues; `None` for `fma`
    /// and for the maths that only have `wgmma` (`f16`, `bf16`).
    pub const fn mma_kind(self) -> Option<crate::ptx::MmaKind> {
        match self {
            Math::Fma | Math::F16 | Math::Bf16 => None,
            Math::Dmma => Some(crate::ptx::MmaKind::F64),
            Math::Tf32 | Math::Tf32x3 => Some(crate::ptx::MmaKind::Tf32),
        }
    }

    /// The type a `wgmma` of this math multiplies, if it has one.
    pub const fn wgmma_input(self) -> Option<crate::ptx::WgmmaInput> {
        match self {
            Math::Tf32 | Math::Tf32x3 => Some(crate::ptx::WgmmaInput::Tf32),
            Math::F16 => Some(crate::ptx::WgmmaInput::F16),
            Math::Bf16 => Some(crate::ptx::WgmmaInput::Bf16),
            Math::Fma | Math::Dmma => None,
        }
    }

    /// Tensor-core products per product of the GEMM: 3 for `tf32x3`, else 1.
    pub const fn passes(self) -> u32 {
        match self {
            Math::Tf32x3 => 3,
            _ => 1,
        }
    }
}

impl fmt::Display for Math {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

pub use crate::ptx::MmaShape;

/// How the warps of a block are laid over its grid of `threads.0 ×
/// threads.1` C positions (`warps = (wm, wn)`): `wm × wn` warps, each
/// owning a contiguous `threads.0 / wm × threads.1 / wn` sub-grid of 32
/// positions, lanes running along M first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WarpShape {
    /// Warps along M (`warps.0`).
    pub m: u32,
    /// Warps along N (`warps.1`).
    pub n: u32,
}

/// A thread arrangement reshaped to read one stored stripe of A or B.
///
/// The stripe is read as it lies in memory: `lead` threads along its leading
/// (contiguous) dimension, so that consecutive threads read consecutive
/// addresses, and `cross` threads across it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LoadShape {
    /// Threads along the stripe's leading dimension (`load_a.0`).
    pub lead: u32,
    /// Threads across the stripe's leading dimension (`load_a.1`).
    pub cross: u32,
}

impl LoadShape {
    /// Threads in the arrangement, exactly: the product of two `u32`s can
    /// exceed `u32`, so it is a `u64` (see [`KernelSpec::threads`]).
    pub const fn threads(self) -> u64 {
        self.lead as u64 * self.cross as u64
    }
}

/// Every parameter of one kernel of the universal GEMM stencil.
///
/// Field names follow Kurzak, Tomov and Dongarra, *Autotuning GEMMs for Fermi*:
/// a block of `m_dim × n_dim` threads computes an `m_blk × n_blk` tile of C,
/// walking K in steps of `k_blk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelSpec {
    /// Element type (`precision = f32 | f64 | c32 | c64`).
    pub precision: Precision,
    /// `op(A)` (`op = (N, _)`).
    pub op_a: Op,
    /// `op(B)` (`op = (_, N)`).
    pub op_b: Op,
    /// `M_blk`: rows of the C tile a block computes (`tile.0`).
    pub m_blk: u32,
    /// `N_blk`: columns of the C tile a block computes (`tile.1`).
    pub n_blk: u32,
    /// `K_blk`: depth of the A and B stripes held in shared memory per
    /// iteration of the pipelined loop (`tile.2`).
    pub k_blk: u32,
    /// `M_dim`: threads of the block along M when computing C (`threads.0`).
    pub m_dim: u32,
    /// `N_dim`: threads of the block along N when computing C (`threads.1`).
    pub n_dim: u32,
    /// The block reshaped to read A's stored stripe (`load_a`).
    pub load_a: LoadShape,
    /// The block reshaped to read B's stored stripe (`load_b`).
    pub load_b: LoadShape,
    /// Elements each shared-memory load of the inner product moves
    /// (`lds_width = 1 | 2 | 4`, default 1): 2 and 4 emit 64- and 128-bit
    /// `ld.shared.v2`/`.v4`, with each thread's C elements grouped in runs of
    /// this many consecutive rows and columns.
    pub lds_width: u32,
    /// How A and B come from global memory (`ldg = nc | ca | cg | tma`,
    /// default `nc`): a thread's loads through a cache path, or the tensor
    /// memory accelerator ([`GlobalLoad::Tma`]).
    pub ldg: GlobalLoad,
    /// The architecture compiled for (`arch = sm_70 | … | sm_90a`, default
    /// `sm_70`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub arch: Target,
    /// Shared-memory stripes in flight (`stages = 1..=8`, default 1). With
    /// 1, Algorithm 1's pipeline: the next stripe is staged through
    /// registers while the current one is consumed. With `s ≥ 2` (sm_80 and
    /// newer), a ring of `s` stripes filled by `cp.async`, so the product of
    /// stripe `t` overlaps the loads of stripes `t + 1 … t + s − 1`.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub stages: u32,
    /// Elements each global load of A and B moves along the stored
    /// stripe's leading dimension (`ldg_width = 1 | 2 | 4`, default 1; at
    /// most 16 bytes). Above 1 the kernel requires A's and B's base
    /// addresses and leading dimensions to be multiples of it: the host
    /// checks, and runs the same kernel with `ldg_width = 1` otherwise.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub ldg_width: u32,
    /// The warp arrangement over the C tile (`warps = (wm, wn)`); `None`,
    /// the default, numbers threads along M first across the whole block
    /// (`tx = thread mod threads.0`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub warps: Option<WarpShape>,
    /// Block rasterization (`raster = 1..`, default 1): with `g ≥ 2` the
    /// grid is one-dimensional and consecutive blocks walk groups of `g`
    /// tile rows column by column, so that blocks running together share
    /// stripes of A and B in L2. 1 is the plain two-dimensional grid.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub raster: u32,
    /// K steps of the inner product per iteration of its loop over the
    /// stripe (`unroll = u`, a divisor of `tile.2` below it); `None`, the default,
    /// unrolls the whole stripe. A smaller body keeps the loop in the
    /// instruction cache when `tile.2` times the thread's FMAs is large.
    #[cfg_attr(feature = "serde", serde(default))]
    pub unroll: Option<u32>,
    /// Register sets of the inner product's fragments (`frag_sets = 1 | 2`,
    /// default 1). With 2, the shared-memory loads of k step `s + 1` go into
    /// one set while the FMAs of step `s` read the other (register double
    /// buffering), at the cost of `M_thr + N_thr` more registers.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub frag_sets: u32,
    /// How a `cp.async` ring issues the copies of a stripe (`interleave =
    /// g`, default 0). With 0 they go out together before the stripe's
    /// product, branched around past the last stripe. With `g ≥ 1` they
    /// are predicated instead and split into `g` equal groups, group `i`
    /// issued beside k step `⌊i · tile.2 / g⌋` of the product, between
    /// that step's fragment loads and its multiply-adds: the loop is one
    /// basic block, and the copies' address registers are read long
    /// before they are needed again. Needs `stages ≥ 2`, the whole stripe
    /// unrolled (no `unroll`) and `g ≤ tile.2`. Which placement wins
    /// depends on how `ptxas` schedules the kernel (from −13% to +13% on
    /// the H100, `tuning/sm_90-copies`), so it is tuned.
    #[cfg_attr(feature = "serde", serde(default))]
    pub interleave: u32,
    /// Columns of a thread's C elements whose old values the epilogue reads
    /// together, before it writes any of them (`c_batch = 1..=N_thr`,
    /// default 1). The kernel cannot tell `ptxas` that a column's stores do
    /// not alias the next column's loads, so with 1 every column's loads
    /// wait for the previous column's stores: `N_thr` round trips to memory
    /// in a row, which dominate when K is short (skinny and small shapes).
    /// With `b`, `⌈N_thr / b⌉` round trips, for `b · M_thr` more registers
    /// in the epilogue (where the fragments' registers are free). Only a
    /// call with `beta ≠ 0` reads C.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub c_batch: u32,
    /// How the inner product multiplies (`math = fma | dmma`, default
    /// `fma`). With `dmma` each warp computes its `tile.0 / warps.0 ×
    /// tile.1 / warps.1` part of the C tile with `mma.sync` of shape `mma`,
    /// its 32 lanes the 8 × 4 lane grid of the fragments, so `threads` is
    /// `(8 · warps.0, 4 · warps.1)`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub math: Math,
    /// The `mma.sync` shape of a tensor-core `math` (`mma = (m, n, k)`):
    /// for `dmma`, `(8, 8, 4)` (sm_80) or `(16, 8, 4)`, `(16, 8, 8)`,
    /// `(16, 8, 16)` (sm_90). Absent for `fma`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub mma: Option<MmaShape>,
    /// How the blocks share out the work (`schedule = tiles | stream_k`,
    /// default `tiles`): see [`Schedule`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub schedule: Schedule,
    /// Warpgroups of 128 threads that only move the stripes (`producers =
    /// 0 | 1`, default 0): with 1, a `wgmma` kernel is warp-specialized — a
    /// producer warpgroup beside the `threads` issues every `cp.async` and
    /// converts each landed stripe into its TF32 parts, handing them to the
    /// consumer warpgroups (which only issue `wgmma`s and write C) through
    /// named barriers (`stencil/specialized.rs`). The load shapes then
    /// rearrange the producers' threads, and the block has `threads.0 ·
    /// threads.1 + 128` of them.
    #[cfg_attr(feature = "serde", serde(default))]
    pub producers: u32,
    /// Which operand the kernel reads first (`operands = ab | ba`, default
    /// `ab`): see [`Operands`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub operands: Operands,
}

/// The default of the pipeline parameters that count (`stages`,
/// `ldg_width`, `raster`, `frag_sets`, `c_batch`) in records written before they existed.
#[cfg(feature = "serde")]
const fn one() -> u32 {
    1
}

impl KernelSpec {
    /// Default of [`KernelSpec::lds_width`].
    pub const DEFAULT_LDS_WIDTH: u32 = 1;
    /// Default of [`KernelSpec::ldg`].
    pub const DEFAULT_LDG: GlobalLoad = GlobalLoad::Nc;
    /// Default of [`KernelSpec::arch`].
    pub const DEFAULT_ARCH: Target = Target::Sm70;
    /// Default of [`KernelSpec::stages`].
    pub const DEFAULT_STAGES: u32 = 1;
    /// Default of [`KernelSpec::ldg_width`].
    pub const DEFAULT_LDG_WIDTH: u32 = 1;
    /// Default of [`KernelSpec::warps`].
    pub const DEFAULT_WARPS: Option<WarpShape> = None;
    /// Default of [`KernelSpec::raster`].
    pub const DEFAULT_RASTER: u32 = 1;
    /// Default of [`KernelSpec::unroll`].
    pub const DEFAULT_UNROLL: Option<u32> = None;
    /// Default of [`KernelSpec::frag_sets`].
    pub const DEFAULT_FRAG_SETS: u32 = 1;
    /// Default of [`KernelSpec::interleave`].
    pub const DEFAULT_INTERLEAVE: u32 = 0;
    /// Default of [`KernelSpec::c_batch`].
    pub const DEFAULT_C_BATCH: u32 = 1;
    /// Default of [`KernelSpec::math`].
    pub const DEFAULT_MATH: Math = Math::Fma;
    /// Default of [`KernelSpec::schedule`].
    pub const DEFAULT_SCHEDULE: Schedule = Schedule::Tiles;
    /// Default of [`KernelSpec::producers`].
    pub const DEFAULT_PRODUCERS: u32 = 0;
    /// Default of [`KernelSpec::operands`].
    pub const DEFAULT_OPERANDS: Operands = Operands::Ab;
    /// Threads of a producer warpgroup ([`KernelSpec::producers`]).
    pub const PRODUCER_THREADS: u32 = 128;

    /// The spec of the required parameters, every optional one at its
    /// default: what `gemm_kernel!` gives for `precision`, `op`, `tile`,
    /// `threads`, `load_a` and `load_b` alone. Change optional ones with
    /// struct update syntax: `KernelSpec { stages: 3, ..KernelSpec::new(…) }`.
    /// Not validated (see [`crate::validate`]).
    pub const fn new(
        precision: Precision,
        (op_a, op_b): (Op, Op),
        (m_blk, n_blk, k_blk): (u32, u32, u32),
        (m_dim, n_dim): (u32, u32),
        (a_lead, a_cross): (u32, u32),
        (b_lead, b_cross): (u32, u32),
    ) -> KernelSpec {
        KernelSpec {
            precision,
            op_a,
            op_b,
            m_blk,
            n_blk,
            k_blk,
            m_dim,
            n_dim,
            load_a: LoadShape { lead: a_lead, cross: a_cross },
            load_b: LoadShape { lead: b_lead, cross: b_cross },
            lds_width: Self::DEFAULT_LDS_WIDTH,
            ldg: Self::DEFAULT_LDG,
            arch: Self::DEFAULT_ARCH,
            stages: Self::DEFAULT_STAGES,
            ldg_width: Self::DEFAULT_LDG_WIDTH,
            warps: Self::DEFAULT_WARPS,
            raster: Self::DEFAULT_RASTER,
            unroll: Self::DEFAULT_UNROLL,
            frag_sets: Self::DEFAULT_FRAG_SETS,
            interleave: Self::DEFAULT_INTERLEAVE,
            c_batch: Self::DEFAULT_C_BATCH,
            math: Self::DEFAULT_MATH,
            mma: None,
            schedule: Self::DEFAULT_SCHEDULE,
            producers: Self::DEFAULT_PRODUCERS,
            operands: Self::DEFAULT_OPERANDS,
        }
    }

    /// K rows of a stripe one step of the inner product consumes: one for
    /// `fma`, the `mma` shape's `k` for a tensor-core math (1 if it is
    /// missing, which validation reports).
    pub const fn k_per_step(&self) -> u32 {
        match (self.math.is_mma(), self.mma) {
            (true, Some(shape)) if shape.k > 0 => shape.k,
            _ => 1,
        }
    }

    /// Steps of the inner product over one stripe: `tile.2 /`
    /// [`KernelSpec::k_per_step`] (whole once validated).
    pub const fn stripe_steps(&self) -> u32 {
        self.k_blk / self.k_per_step()
    }

    /// The warpgroup shape of a Hopper `wgmma` math: `mma = (64, n, 8)`
    /// with `math = tf32 | tf32x3`, `(64, n, 16)` with `math = f16 | bf16`
    /// (`stencil/wgmma.rs`); `None` for every
    /// `mma.sync` shape and for `fma`. The shape's legality (sm_90a, `n`)
    /// is the validator's.
    pub const fn wgmma(&self) -> Option<crate::ptx::WgmmaShape> {
        match (self.math.wgmma_input(), self.mma) {
            (Some(input), Some(s)) if s.m == crate::ptx::WgmmaShape::M => {
                Some(crate::ptx::WgmmaShape { n: s.n, input })
            }
            _ => None,
        }
    }

    /// K steps per iteration of the inner product's loop: `unroll`, or the
    /// whole stripe.
    pub const fn unroll_steps(&self) -> u32 {
        match self.unroll {
            Some(u) => u,
            None => self.k_blk,
        }
    }

    /// `M_thr`: rows of C per thread (0 if the tile is not divisible).
    pub const fn m_thr(&self) -> u32 {
        match self.m_blk.checked_div(self.m_dim) {
            Some(q) => q,
            None => 0,
        }
    }

    /// `N_thr`: columns of C per thread (0 if the tile is not divisible).
    pub const fn n_thr(&self) -> u32 {
        match self.n_blk.checked_div(self.n_dim) {
            Some(q) => q,
            None => 0,
        }
    }

    /// Threads per block, `m_dim × n_dim`, exactly for any field values: the
    /// product of two `u32`s can exceed `u32`, so it is a `u64`. The thread
    /// rule ([`crate::constraints::threads_rule`]) compares this exact count
    /// with the limit; once a spec has validated, [`crate::Plan::threads`]
    /// gives it as the `u32` a launch takes.
    pub const fn threads(&self) -> u64 {
        self.m_dim as u64 * self.n_dim as u64
    }

    /// `op(A)` as the kernel performs it (`C` is `T` on reals).
    pub const fn eff_op_a(&self) -> Op {
        self.op_a.effective(self.precision)
    }

    /// `op(B)` as the kernel performs it.
    pub const fn eff_op_b(&self) -> Op {
        self.op_b.effective(self.precision)
    }

    /// Whether the kernel computes the transposed product
    /// ([`Operands::Ba`]).
    pub const fn swaps_operands(&self) -> bool {
        matches!(self.operands, Operands::Ba)
    }

    /// The op of the kernel's first operand, as its inner product performs
    /// it: `op(A)`, or with [`Operands::Ba`] `op(B)ᵀ` (B's storage read as
    /// the transposed op's). A conjugating op, which [`Operands::Ba`] does
    /// not take, is returned as is.
    pub const fn kernel_op_a(&self) -> Op {
        if self.swaps_operands() { self.eff_op_b().transposed() } else { self.eff_op_a() }
    }

    /// The op of the kernel's second operand: `op(B)`, or with
    /// [`Operands::Ba`] `op(A)ᵀ`.
    pub const fn kernel_op_b(&self) -> Op {
        if self.swaps_operands() { self.eff_op_a().transposed() } else { self.eff_op_b() }
    }

    /// The block shape: one dimension of `m_dim × n_dim` threads. Exact for
    /// every spec that validates (its thread count is at most a `u32`
    /// limit); for one whose count exceeds `u32`, it saturates at
    /// `u32::MAX`, a block no GPU launches.
    pub const fn block(&self) -> (u32, u32, u32) {
        let threads = self.block_threads();
        (if threads > u32::MAX as u64 { u32::MAX } else { threads as u32 }, 1, 1)
    }

    /// Threads of the block, producers included (exact, as
    /// [`KernelSpec::threads`]).
    pub const fn block_threads(&self) -> u64 {
        // Saturating: any `producers` value reaches here (`block()`), and
        // `threads()` can be near `u64::MAX`; past it, no GPU launches it.
        self.threads().saturating_add(self.producers as u64 * Self::PRODUCER_THREADS as u64)
    }

    /// Threads that copy the stripes, which the load shapes rearrange: the
    /// producer warpgroups' with [`KernelSpec::producers`], else every
    /// thread of the block.
    pub const fn copy_threads(&self) -> u64 {
        if self.producers > 0 {
            self.producers as u64 * Self::PRODUCER_THREADS as u64
        } else {
            self.threads()
        }
    }
}

pub use crate::grammar::text::SpecParseError;

mod text;

#[cfg(test)]
mod tests;
