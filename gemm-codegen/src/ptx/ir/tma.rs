//! The Tensor Memory Accelerator's instructions, and the `mbarrier`s its
//! copies complete on (sm_90).
//!
//! A kernel hands `cp.async.bulk.tensor` the generic address of a tensor
//! map it was given by value ([`Tma::ParamAddr`], then [`Tma::CvtaParam`]),
//! the coordinates of a box and an `mbarrier` in shared memory. The copy
//! runs in the async proxy; its bytes land some time later and, as they
//! do, count down the barrier's *transaction count*. An `mbarrier` is a
//! 64-bit shared object: [`Tma::MbarrierInit`] sets how many arrivals each
//! of its phases waits for; [`Tma::MbarrierArriveExpectTx`] raises the
//! current phase's transaction count by the bytes to come and arrives; the
//! phase completes once every arrival is in and its transaction count is
//! back to zero, and [`Tma::MbarrierTryWait`] tells a thread whether the
//! phase of a given parity has completed — after which the bytes of every
//! copy that completed on it are visible to that thread (and to the async
//! proxy of its `wgmma`s).

use super::{Address, Operand, ParamId, Reg};

/// One instruction of the TMA family.
#[derive(Clone, Debug, PartialEq)]
pub enum Tma {
    /// `mov.u64 dst, param`: the address of kernel parameter `param` in
    /// the parameter space.
    ParamAddr {
        /// Destination (`.u64`).
        dst: Reg,
        /// The parameter.
        param: ParamId,
    },
    /// `cvta.param.u64 dst, src`: a parameter-space address to generic.
    CvtaParam {
        /// Destination (`.u64`).
        dst: Reg,
        /// Source (`.u64`).
        src: Reg,
    },
    /// `mbarrier.init.shared::cta.b64 [bar], count`: a barrier whose phases
    /// each wait for `count` arrivals, now in phase 0 with no transactions.
    MbarrierInit {
        /// The barrier (8-byte aligned shared address).
        bar: Address,
        /// Arrivals a phase waits for (1 ..= 2²⁰ − 1).
        count: u32,
    },
    /// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes`: raises
    /// the current phase's transaction count by `bytes`, then arrives.
    MbarrierArriveExpectTx {
        /// The barrier.
        bar: Address,
        /// Bytes the phase now also waits for.
        bytes: u32,
    },
    /// `mbarrier.try_wait.parity.shared::cta.b64 done, [bar], parity`:
    /// `done` is whether the phase with `parity` (0 or 1: even or odd
    /// phases) has completed; the thread may be suspended a while first.
    MbarrierTryWait {
        /// The answer (`.pred`).
        done: Reg,
        /// The barrier.
        bar: Address,
        /// The parity of the phase waited for (`.u32`, 0 or 1).
        parity: Operand,
    },
    /// `cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    /// [dst], [map, {c0, c1, c2}], [bar]`: copies the box of the tensor
    /// `map` describes whose first element is at coordinates `coords`
    /// (elements along each dimension, signed) to shared memory at `dst`,
    /// laid out as the map says; elements outside the tensor land as
    /// zeros. The bytes complete on `bar` as they land.
    TensorLoad {
        /// The shared destination (128-byte aligned; 1024 for the 128-byte
        /// swizzle).
        dst: Address,
        /// The generic address of the tensor map (`.u64`).
        map: Reg,
        /// The box's first element (`.s32` or `.b32` operands).
        coords: [Operand; 3],
        /// The barrier its bytes complete on.
        bar: Address,
    },
}

impl Tma {
    /// The registers it reads.
    pub fn reads(&self) -> Vec<Reg> {
        let base = |a: &Address| match a.base {
            super::AddrBase::Reg(r) => Some(r),
            super::AddrBase::Shared(_) | super::AddrBase::Param(_) => None,
        };
        match self {
            Tma::ParamAddr { .. } => Vec::new(),
            Tma::CvtaParam { src, .. } => vec![*src],
            Tma::MbarrierInit { bar, .. } | Tma::MbarrierArriveExpectTx { bar, .. } => {
                base(bar).into_iter().collect()
            }
            Tma::MbarrierTryWait { bar, parity, .. } => base(bar).into_iter().chain(parity.reg()).collect(),
            Tma::TensorLoad { dst, map, coords, bar } => base(dst)
                .into_iter()
                .chain([*map])
                .chain(coords.iter().filter_map(|c| c.reg()))
                .chain(base(bar))
                .collect(),
        }
    }

    /// The register it writes, if any.
    pub const fn writes(&self) -> Option<Reg> {
        match self {
            Tma::ParamAddr { dst, .. } | Tma::CvtaParam { dst, .. } => Some(*dst),
            Tma::MbarrierTryWait { done, .. } => Some(*done),
            Tma::MbarrierInit { .. } | Tma::MbarrierArriveExpectTx { .. } | Tma::TensorLoad { .. } => None,
        }
    }

    /// The PTX opcode with its qualifiers.
    pub const fn opcode(&self) -> &'static str {
        match self {
            Tma::ParamAddr { .. } => "mov.u64",
            Tma::CvtaParam { .. } => "cvta.param.u64",
            Tma::MbarrierInit { .. } => "mbarrier.init.shared::cta.b64",
            Tma::MbarrierArriveExpectTx { .. } => "mbarrier.arrive.expect_tx.shared::cta.b64",
            Tma::MbarrierTryWait { .. } => "mbarrier.try_wait.parity.shared::cta.b64",
            Tma::TensorLoad { .. } => {
                "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            }
        }
    }
}
