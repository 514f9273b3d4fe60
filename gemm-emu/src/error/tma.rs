//! What can go wrong with the TMA family: tensor maps, `mbarrier`s and bulk
//! tensor copies ([`FaultKind::Tma`](super::FaultKind::Tma)).

use std::fmt;

/// A fault of the TMA family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmaFault {
    /// `cp.async.bulk.tensor` names an address that is not a tensor map
    /// parameter the launch filled with a map.
    NotAMap {
        /// The address given.
        addr: u64,
    },
    /// A tensor map the emulator cannot apply: a box dimension of 0 or over
    /// 256, an element that is not 4 or 8 bytes, a 128-byte swizzle whose
    /// box rows are not 128 bytes.
    UnsupportedMap {
        /// What is wrong with it.
        what: String,
    },
    /// A bulk copy's destination is not aligned as the map's layout needs
    /// (128 bytes; 1024 for the 128-byte swizzle).
    MisalignedBox {
        /// The destination address.
        addr: u64,
        /// The alignment it needs.
        align: u64,
    },
    /// An `mbarrier` instruction on an address no `mbarrier.init` set up.
    Uninitialized {
        /// The barrier's address.
        addr: u64,
    },
    /// `mbarrier.init` of a barrier that copies still complete on.
    Reinitialized {
        /// The barrier's address.
        addr: u64,
        /// Copies in flight on it.
        copies: u32,
    },
    /// More arrivals in one phase than `mbarrier.init` said it waits for.
    OverArrived {
        /// The barrier's address.
        addr: u64,
    },
    /// The copies completing on a barrier bring more bytes than its phase
    /// expects (`mbarrier.arrive.expect_tx`): the phase would complete
    /// with bytes still to land.
    TooManyBytes {
        /// The barrier's address.
        addr: u64,
        /// Bytes the phase still expected.
        expected: i64,
        /// Bytes of the copy that overran it.
        copy_bytes: u64,
    },
    /// The lanes of one warp wait on different barriers or parities
    /// together.
    DivergentWait,
    /// Every thread still running waits on an `mbarrier` phase that cannot
    /// complete.
    Deadlock {
        /// Threads waiting.
        waiting: u32,
        /// The barrier the first of them waits on.
        addr: u64,
        /// Arrivals its phase still misses.
        arrivals: u32,
        /// Bytes its phase still expects that no copy in flight brings.
        bytes: i64,
    },
    /// The block ends with bulk copies no thread waited for.
    NeverWaited {
        /// Copies in flight.
        copies: u32,
        /// The PTX line of the oldest one's `cp.async.bulk.tensor`.
        copy_line: u32,
    },
}

impl fmt::Display for TmaFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TmaFault::NotAMap { addr } => write!(
                f,
                "`cp.async.bulk.tensor` reads a tensor map at {addr:#x}, which is no tensor map parameter \
                 of the launch: pass the parameter's address (`mov.u64`, `cvta.param.u64`)"
            ),
            TmaFault::UnsupportedMap { what } => write!(f, "tensor map not applied: {what}"),
            TmaFault::MisalignedBox { addr, align } => {
                write!(f, "bulk copy to {addr:#x}, which is not {align}-byte aligned as its layout needs")
            }
            TmaFault::Uninitialized { addr } => {
                write!(f, "`mbarrier` at {addr:#x} was never initialized (`mbarrier.init`)")
            }
            TmaFault::Reinitialized { addr, copies } => {
                write!(f, "`mbarrier.init` at {addr:#x} while {copies} bulk copies still complete on it")
            }
            TmaFault::OverArrived { addr } => write!(
                f,
                "more arrivals at the `mbarrier` at {addr:#x} in one phase than `mbarrier.init` gave it"
            ),
            TmaFault::TooManyBytes { addr, expected, copy_bytes } => write!(
                f,
                "a bulk copy of {copy_bytes} bytes completes on the `mbarrier` at {addr:#x}, whose phase \
                 expects only {expected} more: the phase would complete before the copy lands; raise \
                 `expect_tx` to the bytes the phase's copies bring"
            ),
            TmaFault::DivergentWait => {
                write!(f, "the lanes of a warp wait on different `mbarrier` phases in one `try_wait`")
            }
            TmaFault::Deadlock { waiting, addr, arrivals, bytes } => write!(
                f,
                "deadlock: {waiting} threads wait on the `mbarrier` at {addr:#x}, whose phase misses \
                 {arrivals} arrivals and {bytes} bytes no copy in flight brings"
            ),
            TmaFault::NeverWaited { copies, copy_line } => write!(
                f,
                "the block ends with {copies} bulk copies no thread waited for (the oldest at line \
                 {copy_line}): wait on their `mbarrier` before reading or exiting"
            ),
        }
    }
}
