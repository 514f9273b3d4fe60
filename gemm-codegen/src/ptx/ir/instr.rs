//! Instructions and the lines of a kernel body.

use super::tma::Tma;
use super::wgmma::{Major, WgmmaShape};
use super::{Address, Arch, CacheQual, Label, Operand, ParamId, Reg, Space, Type};

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

/// The shape `m × n × k` of a warp-level `mma.sync`: the warp multiplies
/// an `m × k` fragment of A by a `k × n` fragment of B into an `m × n`
/// accumulator, each spread over its 32 lanes as the PTX ISA lays it out
/// (section 9.7.14.5, "Matrix Fragments for mma").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MmaShape {
    /// Rows of A and of the accumulator.
    pub m: u32,
    /// Columns of B and of the accumulator.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
}

impl MmaShape {
    /// The `.f64` shapes: `m8n8k4` (sm_80 and newer) and Hopper's
    /// `m16n8k4`, `m16n8k8`, `m16n8k16` (sm_90 and newer).
    pub const F64: [MmaShape; 4] = [
        MmaShape { m: 8, n: 8, k: 4 },
        MmaShape { m: 16, n: 8, k: 4 },
        MmaShape { m: 16, n: 8, k: 8 },
        MmaShape { m: 16, n: 8, k: 16 },
    ];

    /// The `.tf32` shapes (f32 accumulators): `m16n8k4` and `m16n8k8`, sm_80
    /// and newer.
    pub const TF32: [MmaShape; 2] = [MmaShape { m: 16, n: 8, k: 4 }, MmaShape { m: 16, n: 8, k: 8 }];

    /// Elements of A each lane holds.
    pub const fn a_per_lane(self) -> u32 {
        self.m * self.k / 32
    }

    /// Elements of B each lane holds.
    pub const fn b_per_lane(self) -> u32 {
        self.k * self.n / 32
    }

    /// Accumulator elements each lane holds.
    pub const fn c_per_lane(self) -> u32 {
        self.m * self.n / 32
    }

    /// Where lane `lane`'s `i`-th element of A sits, `(row, col)`, for the
    /// `.f64` and `.tf32` shapes (32 or 64 bits an element, one register
    /// each): rows `g` and `g + 8` alternate (`m16`), columns step by 4, with
    /// `g = lane / 4` and `t = lane mod 4`.
    pub const fn a_at(self, lane: u32, i: u32) -> (u32, u32) {
        let (g, t) = (lane / 4, lane % 4);
        let halves = self.m / 8;
        (g + 8 * (i % halves), t + 4 * (i / halves))
    }

    /// Where lane `lane`'s `i`-th element of B sits, `(row, col)`, for the
    /// `.f64` and `.tf32` shapes: row `t + 4i`, column `g`.
    pub const fn b_at(self, lane: u32, i: u32) -> (u32, u32) {
        (lane % 4 + 4 * i, lane / 4)
    }

    /// Where lane `lane`'s `i`-th accumulator sits, `(row, col)`, for the
    /// `.f64` and `.tf32` shapes: row `g` (then `g + 8`), columns `2t` and
    /// `2t + 1`.
    pub const fn c_at(self, lane: u32, i: u32) -> (u32, u32) {
        (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2)
    }

    /// `m16n8k4`, as PTX writes it.
    pub fn name(self) -> String {
        format!("m{}n{}k{}", self.m, self.n, self.k)
    }
}

/// Conversions between `.f32` and the 16-bit floats of the `f16` and
/// `bf16` precisions, the 16 bits in a `.b32` register's low half (how
/// `ld.b16` leaves them and `st.b16` takes them). bf16 to f32 needs none:
/// its bits shifted up 16 are the f32 (`shl.b32`, then `mov.b32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfCvt {
    /// `cvt.f32.f16 dst, src`: the f16 in `src`'s low 16 bits, exactly.
    F16ToF32 {
        /// Destination (`.f32`).
        dst: Reg,
        /// Source (`.b32`, the f16 in its low half).
        src: Reg,
    },
    /// `cvt.rn.f16x2.f32 dst, hi, lo` (or `.bf16x2`): both rounded to the
    /// nearest even 16-bit value, `hi`'s in the upper half of `dst`, `lo`'s
    /// in the lower.
    Pack {
        /// Destination (`.b32`).
        dst: Reg,
        /// The upper half's source (`.f32`).
        hi: Reg,
        /// The lower half's source (`.f32`).
        lo: Reg,
        /// `.bf16x2` instead of `.f16x2`.
        bf16: bool,
    },
}

/// What an `mma.sync` multiplies and accumulates: the types of its
/// fragments, as PTX writes them after the shape (`.f64.f64.f64.f64`,
/// `.f32.tf32.tf32.f32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    /// A, B, C and D in `.f64` (the FP64 tensor cores, IEEE products and
    /// sums).
    F64,
    /// A and B in `.tf32` (1 sign, 8 exponent and 10 mantissa bits, held in
    /// `.b32` registers with their 13 low bits zero, as `cvt.rna.tf32.f32`
    /// writes them), C and D in `.f32`.
    Tf32,
}

impl MmaKind {
    /// The shapes PTX has for this kind.
    pub const fn shapes(self) -> &'static [MmaShape] {
        match self {
            MmaKind::F64 => &MmaShape::F64,
            MmaKind::Tf32 => &MmaShape::TF32,
        }
    }

    /// The shape `m × n × k` of this kind, if PTX has one.
    pub fn shape(self, m: u32, n: u32, k: u32) -> Option<MmaShape> {
        self.shapes().iter().copied().find(|s| (s.m, s.n, s.k) == (m, n, k))
    }

    /// The oldest architecture with `shape` of this kind: sm_80, but sm_90
    /// for the `.f64` `m16` shapes.
    pub const fn min_arch(self, shape: MmaShape) -> Arch {
        match self {
            MmaKind::F64 if shape.m == 16 => Arch::SM_90,
            _ => Arch::SM_80,
        }
    }

    /// The register type of A's and B's fragments.
    pub const fn ab_type(self) -> Type {
        match self {
            MmaKind::F64 => Type::F64,
            MmaKind::Tf32 => Type::B32,
        }
    }

    /// The register type of C's and D's fragments.
    pub const fn cd_type(self) -> Type {
        match self {
            MmaKind::F64 => Type::F64,
            MmaKind::Tf32 => Type::F32,
        }
    }

    /// The type suffixes of the instruction, D's, A's, B's and C's.
    pub const fn suffixes(self) -> &'static str {
        match self {
            MmaKind::F64 => ".f64.f64.f64.f64",
            MmaKind::Tf32 => ".f32.tf32.tf32.f32",
        }
    }
}

/// `cvt.rna.tf32.f32` on bits: `x` rounded to 10 mantissa bits, ties away
/// from zero, the 13 low bits cleared. A finite value past the largest TF32
/// becomes ±infinity (no `.satfinite`), infinities stay, and a NaN becomes
/// the canonical NaN `0x7fffffff`, what the GPU writes for a NaN result.
/// The one definition: the emulator executes the instruction with it, and
/// generators that split constants at generation time use it.
pub const fn round_tf32(x: u32) -> u32 {
    if f32::from_bits(x).is_nan() {
        return 0x7fff_ffff;
    }
    // Sign and magnitude: adding half a TF32 place to the magnitude rounds
    // ties away from zero; a carry runs into the exponent (to infinity at
    // the top), and infinity itself has no low bits to round.
    x.wrapping_add(0x1000) & !0x1fff
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
    /// `xor` (bits): the XOR swizzle of a K-contiguous stripe's chunks.
    Xor,
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
    pub const ALL: [BinOp; 13] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::MulWide,
        BinOp::Div,
        BinOp::Rem,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
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
    /// `cvt.rna.tf32.f32 dst, src`: `src` rounded to the nearest `.tf32`
    /// (ties away from zero), in a `.b32` register with 13 zero low bits.
    CvtTf32 {
        /// Destination (`.b32`).
        dst: Reg,
        /// Source (`.f32`).
        src: Reg,
    },
    /// A conversion between f32 and a 16-bit float held in a `.b32`
    /// register ([`HalfCvt`]).
    CvtHalf(HalfCvt),
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
    /// `mma.sync.aligned.{shape}.row.col{kind} {d}, {a}, {b}, {c}`: the warp
    /// computes `D = A · B + C` on `shape`, every lane holding its fragments
    /// of A, B, C and D in the layout of [`MmaShape`] (in registers of
    /// [`MmaKind::ab_type`] and [`MmaKind::cd_type`]). Every lane of the warp
    /// must execute it together, unguarded and converged.
    Mma {
        /// The shape.
        shape: MmaShape,
        /// The fragments' types.
        kind: MmaKind,
        /// The lane's fragment of D.
        d: Vec<Reg>,
        /// The lane's fragment of A.
        a: Vec<Reg>,
        /// The lane's fragment of B.
        b: Vec<Reg>,
        /// The lane's fragment of C.
        c: Vec<Reg>,
    },
    /// `wgmma.mma_async.sync.aligned.{shape}{types} {d}, a_desc, b_desc,
    /// scale_d, ±1, ±1 (, trans_a, trans_b)`: the warpgroup computes `D = (±A) · (±B) +
    /// (scale_d ? D : 0)` on `shape`, A and B matrices of its input type in shared memory
    /// named by descriptors (`ptx::ir::wgmma`), D `N / 2` f32 registers a
    /// thread in the layout of [`WgmmaShape::d_at`]. Asynchronous: D may be
    /// touched only after the [`Instr::WgmmaWait`] that retires its group.
    /// Every thread of the warpgroup executes it, unguarded and converged.
    Wgmma {
        /// The shape.
        shape: WgmmaShape,
        /// The thread's accumulators (`.f32`).
        d: Vec<Reg>,
        /// A's descriptor (64-bit).
        a_desc: Reg,
        /// B's descriptor (64-bit).
        b_desc: Reg,
        /// Whether D is accumulated into (else overwritten): a predicate.
        scale_d: Reg,
        /// `imm-scale-a = -1`: A negated.
        neg_a: bool,
        /// `imm-scale-b = -1`: B negated.
        neg_b: bool,
        /// How A and B lie in shared memory (`imm-trans-a`, `imm-trans-b`
        /// = 1 for [`Major::Mn`], written only for the 16-bit inputs,
        /// which have them; TF32 is always [`Major::K`]).
        major: (Major, Major),
    },
    /// `wgmma.mma_async.sync.aligned.{shape}.f32.tf32.tf32 {d}, {a0, a1,
    /// a2, a3}, b_desc, scale_d, ±1, ±1`: [`Instr::Wgmma`] with A from
    /// registers: each warp `q` of the warpgroup holds its 16 rows `16q …
    /// 16q + 15` of the `64 × 8` A, four TF32 values a lane in the layout of
    /// [`super::WgmmaShape::a_at`] (`mma.sync`'s m16n8k8 A fragment). The
    /// registers, like D's, must not be written until the group retires.
    WgmmaRs {
        /// The shape.
        shape: WgmmaShape,
        /// The thread's accumulators (`.f32`).
        d: Vec<Reg>,
        /// The thread's four elements of A (`.b32`, TF32 values).
        a: [Reg; 4],
        /// B's descriptor (64-bit).
        b_desc: Reg,
        /// Whether D is accumulated into (else overwritten): a predicate.
        scale_d: Reg,
        /// `imm-scale-a = -1`: A negated.
        neg_a: bool,
        /// `imm-scale-b = -1`: B negated.
        neg_b: bool,
    },
    /// `wgmma.fence.sync.aligned`: orders the warpgroup's earlier accesses
    /// of registers (and shared memory) before its next `wgmma`s.
    WgmmaFence,
    /// `wgmma.commit_group.sync.aligned`: closes the warpgroup's open
    /// wgmma-group of `wgmma`s.
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned n`: waits until at most the `n` most
    /// recently committed wgmma-groups are pending.
    WgmmaWait {
        /// Committed groups that may stay pending.
        n: u32,
    },
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 count`: the executing warp's
    /// per-thread register limit raised (`inc`, waiting until the block's
    /// pool holds enough) or lowered (`dec`, returning the rest to the pool)
    /// to `count` (24 … 256, a multiple of 8). Executed by every warp of a
    /// warpgroup alike.
    SetMaxNReg {
        /// Whether the limit is raised (`.inc`) or lowered (`.dec`).
        inc: bool,
        /// The new per-thread limit.
        count: u32,
    },
    /// `fence.proxy.async.shared::cta`: orders this thread's earlier
    /// generic-proxy accesses of shared memory before later async-proxy
    /// accesses (`wgmma` operand reads).
    FenceProxyAsync,
    /// `atom.relaxed.gpu.global.inc.u32 dst, [addr], bound`: atomically
    /// `old = *addr; *addr = old >= bound ? 0 : old + 1`, `dst = old`. A
    /// counter that wraps to 0 at `bound` resets itself: the stream-K
    /// fix-up's arrival count (see `stencil/stream_k.rs`).
    AtomInc {
        /// The old value (`.u32`).
        dst: Reg,
        /// The counter's global address (4-byte aligned).
        addr: Address,
        /// The value after which the counter wraps to 0 (`.u32`).
        bound: Operand,
    },
    /// `fence.acq_rel.gpu`: a release and acquire fence at GPU scope. With
    /// a relaxed atomic after it, it releases the thread's earlier writes
    /// (and, through `bar.sync`, its block's) to the block that observes
    /// the atomic; after an atomic, it acquires what that atomic observed.
    FenceAcqRelGpu,
    /// `bar.sync id{, threads}`: arrive at barrier `id` and wait until
    /// `threads` threads (whole warps; every thread of the block without a
    /// count) have arrived. Orders every access of the arrived threads
    /// before the barrier before every access of the waiting ones after it.
    BarSync {
        /// Barrier number (0..16).
        id: u32,
        /// Threads taking part, a multiple of 32; `None`: the whole block.
        threads: Option<u32>,
    },
    /// `bar.arrive id, threads`: arrive at barrier `id` without waiting
    /// (a producer's signal to the consumers that `bar.sync` on it).
    BarArrive {
        /// Barrier number (0..16).
        id: u32,
        /// Threads taking part, a multiple of 32.
        threads: u32,
    },
    /// An instruction of the TMA family: tensor maps, `mbarrier`s and
    /// bulk tensor copies ([`Tma`]).
    Tma(Tma),
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

impl Instr {
    /// The oldest architecture that has this instruction in this form.
    ///
    /// `cp.async` and its group instructions, `cvt.rna.tf32` and the packs
    /// to `f16x2`/`bf16x2` need sm_80,
    /// `mma` its kind's architecture for its shape ([`MmaKind::min_arch`]),
    /// the `wgmma` family and `setmaxnreg` sm_90a, `fence.proxy.async` and
    /// the TMA family sm_90;
    /// everything else the IR holds exists on sm_70.
    pub const fn min_arch(&self) -> Arch {
        match self {
            Instr::Mma { shape, kind, .. } => kind.min_arch(*shape),
            Instr::Wgmma { .. }
            | Instr::WgmmaFence
            | Instr::WgmmaCommit
            | Instr::WgmmaWait { .. }
            | Instr::SetMaxNReg { .. } => Arch::SM_90A,
            Instr::FenceProxyAsync | Instr::Tma(_) => Arch::SM_90,
            Instr::CvtTf32 { .. }
            | Instr::CvtHalf(HalfCvt::Pack { .. })
            | Instr::CpAsync { .. }
            | Instr::CpAsyncCommit
            | Instr::CpAsyncWait { .. }
            | Instr::CpAsyncWaitAll => Arch::SM_80,
            _ => Arch::SM_70,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MmaKind, MmaShape};

    /// Each fragment's positions cover its matrix once over the 32 lanes.
    #[test]
    fn fragments_cover_their_matrices_once() {
        for s in MmaShape::F64.into_iter().chain(MmaShape::TF32) {
            let cover = |rows: u32, cols: u32, per_lane: u32, at: &dyn Fn(u32, u32) -> (u32, u32)| {
                let mut seen = vec![0u32; (rows * cols) as usize];
                for lane in 0..32 {
                    for i in 0..per_lane {
                        let (r, c) = at(lane, i);
                        assert!(r < rows && c < cols, "{} ({r}, {c})", s.name());
                        seen[(r * cols + c) as usize] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{}", s.name());
            };
            cover(s.m, s.k, s.a_per_lane(), &|l, i| s.a_at(l, i));
            cover(s.k, s.n, s.b_per_lane(), &|l, i| s.b_at(l, i));
            cover(s.m, s.n, s.c_per_lane(), &|l, i| s.c_at(l, i));
        }
    }

    /// Entries read off the PTX ISA's fragment figures for `.f64`
    /// (section 9.7.14.5): lane 6 is `g = 1`, `t = 2`.
    #[test]
    fn fragments_sit_where_the_ptx_isa_draws_them() {
        let [k4_8, k4, k8, k16] = MmaShape::F64;
        assert_eq!((k4_8.a_at(6, 0), k4_8.b_at(6, 0), k4_8.c_at(6, 1)), ((1, 2), (2, 1), (1, 5)));
        assert_eq!((k4.a_at(6, 1), k4.b_at(6, 0), k4.c_at(6, 2)), ((9, 2), (2, 1), (9, 4)));
        let a: Vec<_> = (0..4).map(|i| k8.a_at(6, i)).collect();
        assert_eq!(a, [(1, 2), (9, 2), (1, 6), (9, 6)]);
        assert_eq!((k8.b_at(6, 1), k8.c_at(6, 3)), ((6, 1), (9, 5)));
        assert_eq!((k16.a_at(6, 5), k16.a_at(6, 6), k16.b_at(6, 3)), ((9, 10), (1, 14), (14, 1)));
    }

    /// The `.tf32` figures (section 9.7.14.5.x, "m16n8k4" and "m16n8k8" with
    /// `.tf32`) draw the same places as `.f64`'s of the same shape: lane 6,
    /// `g = 1`, `t = 2`, holds `a0..a3` at (1, 2), (9, 2), (1, 6), (9, 6),
    /// `b0, b1` at (2, 1), (6, 1) and `c0..c3` at (1, 4), (1, 5), (9, 4),
    /// (9, 5).
    #[test]
    fn tf32_fragments_sit_where_the_ptx_isa_draws_them() {
        let [k4, k8] = MmaShape::TF32;
        let a: Vec<_> = (0..4).map(|i| k8.a_at(6, i)).collect();
        assert_eq!(a, [(1, 2), (9, 2), (1, 6), (9, 6)]);
        assert_eq!((k8.b_at(6, 0), k8.b_at(6, 1)), ((2, 1), (6, 1)));
        let c: Vec<_> = (0..4).map(|i| k8.c_at(6, i)).collect();
        assert_eq!(c, [(1, 4), (1, 5), (9, 4), (9, 5)]);
        assert_eq!((k4.a_at(6, 0), k4.a_at(6, 1), k4.b_at(6, 0)), ((1, 2), (9, 2), (2, 1)));
    }

    /// The architectures: every `.tf32` shape and `.f64` `m8n8k4` from sm_80,
    /// the `.f64` `m16` shapes from sm_90.
    #[test]
    fn kinds_know_their_shapes_and_architectures() {
        let sm: Vec<u32> = MmaShape::F64.iter().map(|&s| MmaKind::F64.min_arch(s).sm).collect();
        assert_eq!(sm, [80, 90, 90, 90]);
        assert!(MmaShape::TF32.iter().all(|&s| MmaKind::Tf32.min_arch(s).sm == 80));
        assert_eq!(MmaKind::Tf32.shape(16, 8, 16), None);
        assert_eq!(MmaKind::F64.shape(16, 8, 16), Some(MmaShape::F64[3]));
    }
}
