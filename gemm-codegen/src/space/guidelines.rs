//! The performance guidelines (Algorithm 3, second to fourth sections) and
//! the stats they look at.
//!
//! [`Guidelines`] says why ring kernels have minimums of their own.

use crate::constraints::{Plan, proven_u32, register_reuse, regs_lower_bound, shared_bytes};
use crate::device::{DeviceLimits, Occupancy};
use crate::spec::{KernelSpec, Precision};

/// The performance guidelines of Section 5.3.2: soft limits that prune specs
/// which would build and run, but slowly.
///
/// # Ring kernels are judged by other minimums
///
/// Table 1 asks for 512 resident threads and 2 blocks per SM. Those
/// minimums exist to hide latency across warps: Algorithm 1 stages one
/// stripe through registers, so while a block waits for global memory at
/// its barrier only other warps and blocks keep the SM busy. A `cp.async`
/// ring of `s` stages keeps `s − 1` stripes in flight within the block, so
/// the block hides the load latency itself, and its registers go to
/// accumulators instead of staged stripes: the fastest ring kernels hold
/// 150 to 255 registers per thread and one block of 256 threads per SM
/// (cuBLAS's SGEMM on the H100: 256 × 128 × 8 tiles, 3 stages, 254
/// registers, 1 block per SM). What remains for the SM to hide is the FMA
/// latency, which two warps per scheduler with that many independent
/// accumulators cover. So specs with `stages ≥ 2` are held to their own
/// minimums ([`Guidelines::min_threads_per_sm_ring`],
/// [`Guidelines::min_blocks_per_sm_ring`]); [`Guidelines::pipelined`] sets
/// them to 256 threads (8 warps) and 1 block. Table 1's register reuse
/// applies to both: it is a property of the inner product, not of the
/// pipeline.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Guidelines {
    /// Resident threads per SM the spec must allow (the paper's "minimum
    /// occupancy"), by shared memory and by registers alike.
    pub min_threads_per_sm: u32,
    /// Resident blocks per SM the spec must allow.
    pub min_blocks_per_sm: u32,
    /// FMAs per shared-memory load in the innermost loop ([`register_reuse`]).
    pub min_reuse: f64,
    /// [`Guidelines::min_threads_per_sm`] for specs with a `cp.async` ring
    /// (`stages ≥ 2`; see above).
    #[cfg_attr(feature = "serde", serde(default))]
    pub min_threads_per_sm_ring: u32,
    /// [`Guidelines::min_blocks_per_sm`] for specs with a `cp.async` ring.
    #[cfg_attr(feature = "serde", serde(default))]
    pub min_blocks_per_sm_ring: u32,
}

impl Guidelines {
    /// No guidelines: the hard constraints alone.
    pub const NONE: Guidelines = Guidelines {
        min_threads_per_sm: 0,
        min_blocks_per_sm: 0,
        min_reuse: 0.0,
        min_threads_per_sm_ring: 0,
        min_blocks_per_sm_ring: 0,
    };

    /// Table 1 of the paper: 512 threads and 2 blocks per SM, and a register
    /// reuse of 3 (S), 2 (D), 5 (C) or 2 (Z); ring kernels held to the same
    /// occupancy.
    pub const fn table1(precision: Precision) -> Guidelines {
        let min_reuse = match precision {
            // The 16-bit types are not in the tuner's space: f32's.
            Precision::F32 | Precision::F16 | Precision::Bf16 => 3.0,
            Precision::F64 => 2.0,
            Precision::C32 => 5.0,
            Precision::C64 => 2.0,
        };
        Guidelines {
            min_threads_per_sm: 512,
            min_blocks_per_sm: 2,
            min_reuse,
            min_threads_per_sm_ring: 512,
            min_blocks_per_sm_ring: 2,
        }
    }

    /// Table 1 for register-staged kernels, and 256 threads and 1 block per
    /// SM for ring kernels (the type's documentation says why): the
    /// tuner's default.
    pub const fn pipelined(precision: Precision) -> Guidelines {
        Guidelines {
            min_threads_per_sm_ring: 256,
            min_blocks_per_sm_ring: 1,
            ..Guidelines::table1(precision)
        }
    }

    /// The minimum threads and blocks per SM that apply to a spec with
    /// these stats.
    pub const fn occupancy_minimums(&self, stats: &Stats) -> (u32, u32) {
        if stats.ring {
            (self.min_threads_per_sm_ring, self.min_blocks_per_sm_ring)
        } else {
            (self.min_threads_per_sm, self.min_blocks_per_sm)
        }
    }

    /// Whether a spec with these stats follows the guidelines.
    pub fn admits(&self, stats: &Stats) -> bool {
        let o = &stats.occupancy;
        let (min_threads, min_blocks) = self.occupancy_minimums(stats);
        o.blocks_by_shared >= min_blocks
            && o.blocks_by_regs >= min_blocks
            && o.threads_by_shared() >= min_threads
            && o.threads_by_regs() >= min_threads
            && stats.reuse >= self.min_reuse
    }

    /// Whether every spec these guidelines admit, `other` admits too.
    pub fn at_least_as_strict_as(&self, other: &Guidelines) -> bool {
        self.min_threads_per_sm >= other.min_threads_per_sm
            && self.min_blocks_per_sm >= other.min_blocks_per_sm
            && self.min_reuse >= other.min_reuse
            && self.min_threads_per_sm_ring >= other.min_threads_per_sm_ring
            && self.min_blocks_per_sm_ring >= other.min_blocks_per_sm_ring
    }
}

impl Default for Guidelines {
    fn default() -> Self {
        Guidelines::NONE
    }
}

/// What the guidelines look at, for one legal spec.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stats {
    /// Shared memory per block, in bytes (exact: the plan fixes it).
    pub shared_bytes: u32,
    /// Estimated registers per thread (the space's documentation says how).
    pub regs_estimate: u32,
    /// Resident blocks and threads per SM by each resource.
    pub occupancy: Occupancy,
    /// FMAs per shared-memory load in the innermost loop.
    pub reuse: f64,
    /// Whether the spec fills shared memory through a `cp.async` ring
    /// (`stages ≥ 2`), which decides the occupancy minimums that apply.
    #[cfg_attr(feature = "serde", serde(default))]
    pub ring: bool,
}

impl Stats {
    /// The stats of a validated spec on `device`.
    pub fn of(plan: &Plan, device: &DeviceLimits) -> Stats {
        Stats::compute(plan.spec(), device)
    }

    /// As [`Stats::of`], for a spec known to pass the hard constraints,
    /// which bound its threads, shared bytes and registers by `u32` limits.
    pub(super) fn compute(spec: &KernelSpec, device: &DeviceLimits) -> Stats {
        let shared = proven_u32(shared_bytes(spec));
        let regs = proven_u32(regs_lower_bound(spec));
        let threads = proven_u32(u128::from(spec.threads()));
        Stats {
            shared_bytes: shared,
            regs_estimate: regs,
            occupancy: device.occupancy(threads, shared, regs),
            reuse: register_reuse(spec),
            ring: spec.stages > 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_guidelines() {
        assert_eq!(Guidelines::table1(Precision::C32).min_reuse, 5.0);
        assert_eq!(Guidelines::table1(Precision::F32).min_threads_per_sm, 512);
        assert_eq!(Guidelines::table1(Precision::C64).min_blocks_per_sm, 2);
        assert!(Guidelines::table1(Precision::F32).at_least_as_strict_as(&Guidelines::NONE));
        let pipelined = Guidelines::pipelined(Precision::F32);
        assert!(Guidelines::table1(Precision::F32).at_least_as_strict_as(&pipelined));
        assert!(!pipelined.at_least_as_strict_as(&Guidelines::table1(Precision::F32)));
    }

    /// The H100's best SGEMM (256 × 128 × 32 tiles, 16 × 16 threads, 3
    /// stages) fits one block per SM: Table 1 prunes it, the ring minimums
    /// keep it, and a register-staged spec of the same tile is still held
    /// to Table 1.
    #[test]
    fn ring_minimums_keep_one_block_per_sm() {
        let spec: KernelSpec = "precision = f32, op = (N, N), tile = (256, 128, 32), threads = (16, 16), \
                                load_a = (64, 4), load_b = (8, 32), lds_width = 4, ldg_width = 4, \
                                stages = 3, warps = (4, 2), raster = 8, arch = sm_90"
            .parse()
            .unwrap();
        let h100 = DeviceLimits::for_arch("sm_90").unwrap();
        let plan = crate::validate(&spec).unwrap();
        let stats = Stats::of(&plan, &h100);
        assert!(stats.ring);
        assert_eq!(stats.occupancy.blocks_per_sm, 1);
        assert!(!Guidelines::table1(Precision::F32).admits(&stats));
        assert!(Guidelines::pipelined(Precision::F32).admits(&stats));
        let staged = Stats { ring: false, ..stats };
        assert!(!Guidelines::pipelined(Precision::F32).admits(&staged));
    }
}
