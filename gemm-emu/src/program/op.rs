//! The decoded operations: what one instruction of a [`super::Program`]
//! does, with register indices resolved and every type decision made.

use gemm_codegen::ptx::{Cmp, MmaKind, MmaShape};

/// A source operand: a value register or an immediate (bits, 32-bit values
/// zero-extended).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    R(u32),
    I(u64),
}

/// Integer operations of one source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum I1 {
    Neg32,
    Neg64,
    Not32,
    Not64,
    /// `cvt` from a signed 32-bit source to 64 bits.
    Sext32,
    /// `cvt` to 32 bits (and any other conversion keeping the low bits).
    Trunc32,
    /// `cvt` to 64 bits from an unsigned 32-bit source, or between equal
    /// widths.
    Copy,
    /// `cvt.rna.tf32.f32`: an f32 rounded to TF32, ties away from zero.
    Tf32,
    /// `cvt.f32.f16`: the f16 in the source's low 16 bits, as an f32
    /// (exact).
    F16ToF32,
}

/// Integer operations of two sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum I2 {
    Add32,
    Add64,
    Sub32,
    Sub64,
    MulLo32,
    MulLo64,
    MulWideU32,
    MulWideS32,
    And32,
    And64,
    Or32,
    Or64,
    Xor32,
    Xor64,
    Shl32,
    Shl64,
    ShrU32,
    ShrS32,
    ShrU64,
    ShrS64,
    MinU32,
    MinS32,
    MinU64,
    MinS64,
    MaxU32,
    MaxS32,
    MaxU64,
    MaxS64,
}

/// Integer division and remainder (they fault on zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IDiv {
    DivU32,
    DivS32,
    DivU64,
    DivS64,
    RemU32,
    RemS32,
    RemU64,
    RemS64,
}

/// Integer operations of three sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum I3 {
    MadLo32,
    MadLo64,
    MadWideU32,
    MadWideS32,
}

/// Floating-point operations of two sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum F2 {
    Add32,
    Sub32,
    Mul32,
    Min32,
    Max32,
    Add64,
    Sub64,
    Mul64,
    Min64,
    Max64,
    /// `cvt.rn.f16x2.f32 d, a, b`: `a` and `b` rounded to the nearest even
    /// f16, `a`'s bits in the upper half of `d`, `b`'s in the lower.
    PackF16,
    /// `cvt.rn.bf16x2.f32 d, a, b`: [`F2::PackF16`] to bf16.
    PackBf16,
}

/// How `setp` reads its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    U32,
    S32,
    U64,
    S64,
    F32,
    F64,
}

/// Where a memory operation's address comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base {
    /// A register holding an address.
    Reg(u32),
    /// A fixed address (a shared array's window address).
    Abs(u64),
}

/// The state space of a decoded memory operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mem {
    Global,
    Shared,
}

/// One decoded operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op {
    Mov {
        d: u32,
        a: Src,
    },
    PMov {
        d: u32,
        a: u32,
    },
    /// Load `n` values of `size` bytes from the parameter image.
    LdParam {
        d: [u32; 4],
        n: u8,
        size: u8,
        off: u32,
    },
    I1 {
        f: I1,
        d: u32,
        a: Src,
    },
    I2 {
        f: I2,
        d: u32,
        a: Src,
        b: Src,
    },
    IDiv {
        f: IDiv,
        d: u32,
        a: Src,
        b: Src,
    },
    I3 {
        f: I3,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    FNeg32 {
        d: u32,
        a: Src,
    },
    FNeg64 {
        d: u32,
        a: Src,
    },
    F2 {
        f: F2,
        d: u32,
        a: Src,
        b: Src,
    },
    Fma32 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Fma64 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Setp {
        cmp: Cmp,
        class: Class,
        d: u32,
        a: Src,
        b: Src,
    },
    Selp {
        d: u32,
        a: Src,
        b: Src,
        p: u32,
    },
    PAnd {
        d: u32,
        a: u32,
        b: u32,
    },
    POr {
        d: u32,
        a: u32,
        b: u32,
    },
    PNot {
        d: u32,
        a: u32,
    },
    Ld {
        mem: Mem,
        d: [u32; 4],
        n: u8,
        size: u8,
        base: Base,
        off: i64,
    },
    St {
        mem: Mem,
        s: [Src; 4],
        n: u8,
        size: u8,
        base: Base,
        off: i64,
    },
    /// `ld.global.b16 d, [base + off]`: two bytes, zero-extended into a
    /// 32-bit register.
    LdB16 {
        d: u32,
        base: Base,
        off: i64,
    },
    /// `st.global.b16 [base + off], s`: the low 16 bits of `s`.
    StB16 {
        s: Src,
        base: Base,
        off: i64,
    },
    CpAsync(CpAsync),
    /// `mma.sync` (`.f64` or `.tf32`): the index of its [`Mma`] in
    /// [`super::Program::mmas`].
    Mma(u32),
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group keep`, or `cp.async.wait_all` (`keep: None`:
    /// commit, then wait for everything).
    CpAsyncWait {
        keep: Option<u32>,
    },
    /// `wgmma.mma_async`: the index of its [`super::Wgmma`] in
    /// [`super::Program::wgmmas`].
    Wgmma(u32),
    /// `wgmma.fence.sync.aligned`.
    WgmmaFence,
    /// `wgmma.commit_group.sync.aligned`.
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned keep`.
    WgmmaWait {
        keep: u32,
    },
    /// `fence.proxy.async.shared::cta`.
    FenceProxyAsync,
    /// `atom.relaxed.gpu.global.inc.u32 d, [base + off], bound`, lane by
    /// lane: `d = old = *addr; *addr = old >= bound ? 0 : old + 1`.
    AtomInc {
        d: u32,
        base: Base,
        off: i64,
        bound: Src,
    },
    /// `fence.acq_rel.gpu`.
    FenceAcqRel,
    /// `mbarrier.init.shared::cta.b64 [base + off], count`.
    MbarInit {
        base: Base,
        off: i64,
        count: u32,
    },
    /// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [base + off], bytes`.
    MbarExpectTx {
        base: Base,
        off: i64,
        bytes: u32,
    },
    /// `mbarrier.try_wait.parity.shared::cta.b64 p, [base + off], parity`.
    MbarTryWait {
        p: u32,
        base: Base,
        off: i64,
        parity: Src,
    },
    /// `cp.async.bulk.tensor.3d…`: the index of its [`TensorLoad`] in
    /// [`super::Program::tensor_loads`].
    TensorLoad(u32),
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 count` (`exec/registers.rs`).
    SetMaxNReg {
        inc: bool,
        count: u32,
    },
    /// `bar.sync id{, threads}` and `bar.arrive id, threads` (`arrive`).
    Bar {
        id: u32,
        /// `None`: every thread of the block.
        threads: Option<u32>,
        arrive: bool,
    },
    Bra {
        target: u32,
        uni: bool,
    },
    Ret,
}

/// `cp.async`: copy `bytes` bytes to shared `[dst + dst_off]`, of which the
/// first `src_bytes` are read from global `[src + src_off]` and the rest are
/// zeros, landing at a later wait.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CpAsync {
    pub dst: Base,
    pub dst_off: i64,
    pub src: Base,
    pub src_off: i64,
    pub bytes: u8,
    pub src_bytes: Src,
}

/// `cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
/// [dst + dst_off], [map, {coords}], [bar + bar_off]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TensorLoad {
    pub dst: Base,
    pub dst_off: i64,
    /// The value register holding the tensor map's generic address.
    pub map: u32,
    pub coords: [Src; 3],
    pub bar: Base,
    pub bar_off: i64,
}

/// `mma.sync.aligned.{shape}.row.col.f64.f64.f64.f64`: the warp's `D = A ·
/// B + C`, each fragment a list of value registers in the order of the PTX
/// ISA's layout ([`MmaShape`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mma {
    pub shape: MmaShape,
    pub kind: MmaKind,
    pub d: Vec<u32>,
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub c: Vec<u32>,
}

/// A decoded instruction: the operation and its guard.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Inst {
    pub op: Op,
    /// Predicate register and whether the guard is negated.
    pub guard: Option<(u32, bool)>,
}
