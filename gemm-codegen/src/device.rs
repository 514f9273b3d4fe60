//! What a GPU allows: the limits the search space prunes with and the
//! occupancy model it ranks by.
//!
//! Kurzak, Tomov and Dongarra (Section 5.3.1) split the hardware limits in
//! two, and so do we:
//!
//! - [`DriverLimits`]: what `cuDeviceGetAttribute` reports (warp size,
//!   threads per block, registers per block and per SM, shared memory per
//!   block, opt-in and per SM, SM count, clock), plus the name and compute
//!   capability. `gemm-host` fills one in from the driver; this crate never
//!   talks to a GPU.
//! - [`ArchLimits`]: what the driver does not report, from a table keyed by
//!   compute capability ([`ArchLimits::TABLE`]): resident warps and blocks
//!   per SM, registers per thread, the shared memory the driver reserves per
//!   block, and the allocation granularities of the occupancy calculator.
//!
//! [`DeviceLimits`] joins the two. [`DeviceLimits::for_arch`] gives a complete
//! set for an architecture named on the command line (`sm_90`, `90`, `9.0`)
//! with the driver's values of a typical part of that architecture, so the
//! search space can be computed on a machine without a GPU.
//!
//! A [`ComputeCapability`] names a GPU as the driver reports it; it is not a
//! compilation target. A spec's [`crate::Target`] says what a kernel is
//! generated for ([`crate::Target::runs_on`] a capability, or the
//! [`crate::Target::newest_for`] one), and [`crate::ptx::Arch`] is the PTX
//! `.target` a target is printed as (its module says how the three relate).
//!
//! # What each limit means for our kernels
//!
//! The stencil declares its shared arrays statically (`.shared` in PTX), and
//! a static allocation is capped at 48 KiB per block on every GPU, whatever
//! the opt-in limit (which only dynamic shared memory can use). So
//! [`DeviceLimits::hard`] caps shared memory per block at
//! `min(max_shared_per_block, 48 KiB)`: on every GPU from sm_70 up the hard
//! limits equal [`Limits::PORTABLE`], what `gemm_kernel!` checks.
//!
//! Occupancy is another matter. The paper assumed, for Fermi, that the
//! shared memory of an SM equals what one block may use
//! (`MAX_SHMEM_PER_SM = MAX_SHARED_MEMORY_PER_BLOCK`). Since Volta, shared
//! memory is carved out of a unified L1/shared array per SM, and with no
//! carveout preference (our kernels set none) the driver configures the
//! carveout a kernel needs for its occupancy, up to the per-SM maximum
//! (`MAX_SHARED_MEMORY_PER_MULTIPROCESSOR`: 228 KiB on sm_90). So
//! [`DeviceLimits::occupancy`] divides the *per-SM* capacity among blocks,
//! charging each block its shared bytes plus the 1 KiB the driver reserves
//! per block on sm_80 and newer, rounded up to the allocation unit: the
//! same arithmetic as CUDA's occupancy calculator. Likewise registers are
//! allocated per warp in units of 256, and warps are granted registers in
//! groups of four.

use std::fmt;
use std::str::FromStr;

use crate::constraints::{Limits, proven_u32};

/// A compute capability `major.minor` (`sm_90` is 9.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ComputeCapability {
    /// The major version (9 for sm_90).
    pub major: u32,
    /// The minor version (0 for sm_90).
    pub minor: u32,
}

impl ComputeCapability {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability { major, minor }
    }

    /// The number in `sm_XY`: `10 × major + minor` (90, 100, 120).
    pub const fn sm(self) -> u32 {
        self.major * 10 + self.minor
    }
}

impl fmt::Display for ComputeCapability {
    /// Formats as `sm_90`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm())
    }
}

impl FromStr for ComputeCapability {
    type Err = ArchError;

    /// Parses `sm_90`, `sm90`, `compute_90`, `90`, `9.0` (any case); a
    /// trailing `a` or `f` (`sm_90a`, the architecture-specific targets) is
    /// accepted and ignored. The last digit of `sm_XY` is the minor version,
    /// so `sm_100` is 10.0 and `sm_121` is 12.1.
    fn from_str(s: &str) -> Result<ComputeCapability, ArchError> {
        let err = || ArchError::Parse(s.to_owned());
        let lower = s.trim().to_ascii_lowercase();
        if let Some((major, minor)) = lower.split_once('.') {
            let major = major.parse().map_err(|_| err())?;
            let minor: u32 = minor.parse().map_err(|_| err())?;
            if minor > 9 {
                return Err(err());
            }
            return Ok(ComputeCapability::new(major, minor));
        }
        let digits = lower
            .strip_prefix("sm_")
            .or_else(|| lower.strip_prefix("sm"))
            .or_else(|| lower.strip_prefix("compute_"))
            .unwrap_or(&lower);
        let digits = digits.strip_suffix(['a', 'f']).unwrap_or(digits);
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let number: u32 = digits.parse().map_err(|_| err())?;
        Ok(ComputeCapability::new(number / 10, number % 10))
    }
}

/// An architecture that cannot be parsed or has no entry in
/// [`ArchLimits::TABLE`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArchError {
    /// Not an architecture name.
    #[error("cannot read `{0}` as a GPU architecture: write it as sm_90, 90 or 9.0")]
    Parse(String),
    /// A compute capability without a table entry.
    #[error("no limits are known for {0}: use one of {known}", known = ArchLimits::known_names())]
    Unknown(ComputeCapability),
}

/// The limits `cuDeviceGetAttribute` reports (the paper's queryable hardware
/// constraints), with the device's name and compute capability.
///
/// Every field names the `CU_DEVICE_ATTRIBUTE_*` it comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DriverLimits {
    /// `cuDeviceGetName`.
    pub name: String,
    /// `COMPUTE_CAPABILITY_MAJOR` and `_MINOR`.
    pub compute_capability: ComputeCapability,
    /// `WARP_SIZE`.
    pub warp_size: u32,
    /// `MAX_THREADS_PER_BLOCK`.
    pub max_threads_per_block: u32,
    /// `MAX_REGISTERS_PER_BLOCK`: 32-bit registers one block may use.
    pub max_regs_per_block: u32,
    /// `MAX_REGISTERS_PER_MULTIPROCESSOR`: the register file of an SM.
    pub max_regs_per_sm: u32,
    /// `MAX_SHARED_MEMORY_PER_BLOCK`: bytes a block may declare statically
    /// (48 KiB on every GPU so far).
    pub max_shared_per_block: u32,
    /// `MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`: bytes a block may use with
    /// dynamic shared memory after opting in. Our kernels do not (their
    /// shared memory is static); kept for the record.
    pub max_shared_per_block_optin: u32,
    /// `MAX_SHARED_MEMORY_PER_MULTIPROCESSOR`: bytes of shared memory an SM
    /// can hold at its largest carveout, the blocks' reserved bytes included.
    pub max_shared_per_sm: u32,
    /// `MULTIPROCESSOR_COUNT`.
    pub sm_count: u32,
    /// `CLOCK_RATE`, in kHz: the peak SM clock.
    pub clock_khz: u32,
}

/// The limits the driver does not report (the paper's non-queryable hardware
/// constraints), per compute capability.
///
/// Sources: the "Technical Specifications per Compute Capability" table of
/// the CUDA C++ Programming Guide (resident warps and blocks per SM,
/// registers per thread, shared memory per SM), cross-checked against
/// `cuda::arch_traits` of NVIDIA's CCCL (`cuda/__device/arch_traits.h`,
/// which also gives the 1 KiB reserved per block from sm_80 on), and the
/// allocation granularities of the CUDA Occupancy Calculator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArchLimits {
    /// The architecture this row describes.
    pub compute_capability: ComputeCapability,
    /// Resident warps per SM (`MAX_WARPS_PER_SM`).
    pub max_warps_per_sm: u32,
    /// Resident blocks per SM (`MAX_BLOCKS_PER_SM`).
    pub max_blocks_per_sm: u32,
    /// 32-bit registers one thread can address.
    pub max_regs_per_thread: u32,
    /// Shared memory the driver reserves for each resident block, in bytes.
    pub reserved_shared_per_block: u32,
    /// Registers are allocated to a warp in multiples of this many.
    pub reg_alloc_unit: u32,
    /// Warps are granted registers in groups of this many.
    pub warp_alloc_granularity: u32,
    /// Shared memory is allocated to a block in multiples of this many bytes.
    pub shared_alloc_unit: u32,
}

const fn arch(major: u32, minor: u32, warps: u32, blocks: u32) -> ArchLimits {
    let modern = major >= 8;
    ArchLimits {
        compute_capability: ComputeCapability::new(major, minor),
        max_warps_per_sm: warps,
        max_blocks_per_sm: blocks,
        max_regs_per_thread: 255,
        reserved_shared_per_block: if modern { 1024 } else { 0 },
        reg_alloc_unit: 256,
        warp_alloc_granularity: 4,
        shared_alloc_unit: if modern { 128 } else { 256 },
    }
}

impl ArchLimits {
    /// Every architecture with known limits, oldest first.
    ///
    /// | arch   | warps/SM | blocks/SM | regs/thread | reserved/block | shared/SM (driver) |
    /// |--------|---------:|----------:|------------:|---------------:|-------------------:|
    /// | sm_70  | 64 | 32 | 255 | 0     | 96 KiB  |
    /// | sm_72  | 64 | 32 | 255 | 0     | 96 KiB  |
    /// | sm_75  | 32 | 16 | 255 | 0     | 64 KiB  |
    /// | sm_80  | 64 | 32 | 255 | 1 KiB | 164 KiB |
    /// | sm_86  | 48 | 16 | 255 | 1 KiB | 100 KiB |
    /// | sm_87  | 48 | 16 | 255 | 1 KiB | 164 KiB |
    /// | sm_89  | 48 | 24 | 255 | 1 KiB | 100 KiB |
    /// | sm_90  | 64 | 32 | 255 | 1 KiB | 228 KiB |
    /// | sm_100 | 64 | 32 | 255 | 1 KiB | 228 KiB |
    /// | sm_120 | 48 | 24 | 255 | 1 KiB | 100 KiB |
    ///
    /// sm_120's 24 blocks per SM is CCCL's value; NVIDIA's Blackwell tuning
    /// guide says 32. The driver reports it as `MAX_BLOCKS_PER_MULTIPROCESSOR`
    /// on CUDA 11 and newer, which `gemm-host` may prefer.
    pub const TABLE: &'static [ArchLimits] = &[
        arch(7, 0, 64, 32),
        arch(7, 2, 64, 32),
        arch(7, 5, 32, 16),
        arch(8, 0, 64, 32),
        arch(8, 6, 48, 16),
        arch(8, 7, 48, 16),
        arch(8, 9, 48, 24),
        arch(9, 0, 64, 32),
        arch(10, 0, 64, 32),
        arch(12, 0, 48, 24),
    ];

    /// The row for exactly `cc`, if the table has one.
    pub fn exact(cc: ComputeCapability) -> Option<ArchLimits> {
        ArchLimits::TABLE.iter().copied().find(|a| a.compute_capability == cc)
    }

    /// The row for `cc`; for a compute capability the table lacks, the newest
    /// older row of the same major version, else the newest older row (its
    /// [`ArchLimits::compute_capability`] says which was taken: an
    /// approximation, to be replaced by a row of its own). `None` before
    /// sm_70.
    pub fn nearest(cc: ComputeCapability) -> Option<ArchLimits> {
        let older = || ArchLimits::TABLE.iter().rev().filter(move |a| a.compute_capability <= cc);
        older().find(|a| a.compute_capability.major == cc.major).or_else(|| older().next()).copied()
    }

    /// `sm_70, sm_72, …`: the architectures of the table.
    pub fn known_names() -> String {
        ArchLimits::TABLE.iter().map(|a| a.compute_capability.to_string()).collect::<Vec<_>>().join(", ")
    }
}

/// Everything the search space needs to know about a GPU.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DeviceLimits {
    /// What the driver reports.
    pub driver: DriverLimits,
    /// What the table says for its compute capability.
    pub arch: ArchLimits,
}

/// A typical GPU of an architecture: the driver values
/// [`DeviceLimits::for_arch`] assumes.
struct Part {
    name: &'static str,
    cc: ComputeCapability,
    sm_count: u32,
    /// Boost clock, MHz.
    clock_mhz: u32,
    shared_per_sm_kib: u32,
    optin_per_block_kib: u32,
}

const fn part(
    name: &'static str,
    cc: (u32, u32),
    sm_count: u32,
    clock_mhz: u32,
    shared_kib: (u32, u32),
) -> Part {
    Part {
        name,
        cc: ComputeCapability::new(cc.0, cc.1),
        sm_count,
        clock_mhz,
        shared_per_sm_kib: shared_kib.0,
        optin_per_block_kib: shared_kib.1,
    }
}

/// One typical part per row of [`ArchLimits::TABLE`]; shared memory per SM
/// and opt-in per block as the CUDA C++ Programming Guide gives them.
const PARTS: &[Part] = &[
    part("Tesla V100-SXM2-32GB", (7, 0), 80, 1530, (96, 96)),
    part("Jetson AGX Xavier", (7, 2), 8, 1377, (96, 96)),
    part("Tesla T4", (7, 5), 40, 1590, (64, 64)),
    part("NVIDIA A100-SXM4-80GB", (8, 0), 108, 1410, (164, 163)),
    part("NVIDIA A10", (8, 6), 72, 1695, (100, 99)),
    part("Jetson AGX Orin", (8, 7), 16, 1300, (164, 163)),
    part("NVIDIA L4", (8, 9), 58, 2040, (100, 99)),
    part("NVIDIA H100 80GB HBM3", (9, 0), 132, 1980, (228, 227)),
    part("NVIDIA B200", (10, 0), 148, 1965, (228, 227)),
    part("NVIDIA GeForce RTX 5090", (12, 0), 170, 2407, (100, 99)),
];

/// The opt-in shared memory per block of the typical part of compute
/// capability `sm` (`10 × major + minor`), in bytes; 48 KiB for one the
/// table lacks.
pub(crate) const fn optin_shared_per_block(sm: u32) -> u32 {
    let mut i = 0;
    while i < PARTS.len() {
        if PARTS[i].cc.sm() == sm {
            return PARTS[i].optin_per_block_kib * 1024;
        }
        i += 1;
    }
    48 * 1024
}

impl DeviceLimits {
    /// Joins the driver's values with the table's row for their compute
    /// capability ([`ArchLimits::nearest`] for a GPU newer than the table).
    pub fn new(driver: DriverLimits) -> Result<DeviceLimits, ArchError> {
        let cc = driver.compute_capability;
        let arch = ArchLimits::nearest(cc).ok_or(ArchError::Unknown(cc))?;
        Ok(DeviceLimits { driver, arch })
    }

    /// The limits of a typical GPU of `arch` (`sm_90`, `90`, `9.0`), for
    /// computing the search space without one. The driver values are the
    /// defaults of these parts:
    ///
    /// | arch   | part | SMs | clock |
    /// |--------|------|----:|------:|
    /// | sm_70  | Tesla V100-SXM2 | 80 | 1530 MHz |
    /// | sm_72  | Jetson AGX Xavier | 8 | 1377 MHz |
    /// | sm_75  | Tesla T4 | 40 | 1590 MHz |
    /// | sm_80  | A100-SXM4 | 108 | 1410 MHz |
    /// | sm_86  | A10 | 72 | 1695 MHz |
    /// | sm_87  | Jetson AGX Orin | 16 | 1300 MHz |
    /// | sm_89  | L4 | 58 | 2040 MHz |
    /// | sm_90  | H100 SXM5 | 132 | 1980 MHz |
    /// | sm_100 | B200 | 148 | 1965 MHz |
    /// | sm_120 | GeForce RTX 5090 | 170 | 2407 MHz |
    ///
    /// Every one has 32-thread warps, 1024 threads and 64 Ki registers per
    /// block, 64 Ki registers per SM and 48 KiB of static shared memory per
    /// block; shared memory per SM and opt-in per block are the table's.
    pub fn for_arch(arch: &str) -> Result<DeviceLimits, ArchError> {
        let cc: ComputeCapability = arch.parse()?;
        let part = PARTS.iter().find(|p| p.cc == cc).ok_or(ArchError::Unknown(cc))?;
        DeviceLimits::new(DriverLimits {
            name: part.name.to_owned(),
            compute_capability: cc,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_regs_per_block: 64 * 1024,
            max_regs_per_sm: 64 * 1024,
            max_shared_per_block: 48 * 1024,
            max_shared_per_block_optin: part.optin_per_block_kib * 1024,
            max_shared_per_sm: part.shared_per_sm_kib * 1024,
            sm_count: part.sm_count,
            clock_khz: part.clock_mhz * 1000,
        })
    }

    /// The compute capability.
    pub const fn compute_capability(&self) -> ComputeCapability {
        self.driver.compute_capability
    }

    /// Resident threads per SM: `MAX_WARPS_PER_SM × WARP_SIZE` (the paper's
    /// assumption, which still holds).
    pub const fn max_threads_per_sm(&self) -> u32 {
        self.arch.max_warps_per_sm.saturating_mul(self.driver.warp_size)
    }

    /// Shared memory a block of our kernels may use: the static limit,
    /// 48 KiB, whatever the opt-in limit (see the module documentation).
    pub const fn static_shared_per_block(&self) -> u32 {
        const STATIC_MAX: u32 = 48 * 1024;
        if self.driver.max_shared_per_block < STATIC_MAX {
            self.driver.max_shared_per_block
        } else {
            STATIC_MAX
        }
    }

    /// The hard limits: what decides whether a kernel builds and launches at
    /// all. Equal to [`Limits::PORTABLE`] on every GPU in the table.
    pub const fn hard(&self) -> Limits {
        Limits {
            warp_size: self.driver.warp_size,
            max_threads_per_block: self.driver.max_threads_per_block,
            max_shared_per_block: self.static_shared_per_block(),
            max_regs_per_thread: self.arch.max_regs_per_thread,
        }
    }

    /// How many blocks of `threads` threads, each using `shared_bytes` of
    /// shared memory and `regs_per_thread` registers per thread, fit on one
    /// SM, and what limits them (Algorithm 3's second and third sections,
    /// with today's allocation rules; see the module documentation).
    ///
    /// The search space calls it with its estimates; the tuner can call it
    /// with the registers and shared memory `ptxas` reports.
    ///
    /// Exact for any arguments and limits, never panicking: sums and
    /// products of two `u32`s are taken in `u64`, and a zero warp size or
    /// allocation unit counts as 1.
    pub fn occupancy(&self, threads: u32, shared_bytes: u32, regs_per_thread: u32) -> Occupancy {
        let (d, a) = (&self.driver, &self.arch);
        let warps_per_block = threads.div_ceil(d.warp_size.max(1)).max(1);
        let blocks_by_warps = a.max_blocks_per_sm.min(a.max_warps_per_sm / warps_per_block);

        let shared_per_block = (u64::from(shared_bytes) + u64::from(a.reserved_shared_per_block))
            .next_multiple_of(u64::from(a.shared_alloc_unit.max(1)));
        // A quotient of the u32 `max_shared_per_sm`: it fits.
        let shared_blocks = u64::from(d.max_shared_per_sm)
            .checked_div(shared_per_block)
            .map_or(a.max_blocks_per_sm, |blocks| proven_u32(u128::from(blocks)));

        let regs_blocks = if regs_per_thread > a.max_regs_per_thread {
            0
        } else {
            // Below 2^64: a product of two u32s rounded up to a u32 unit.
            let regs_per_warp = (u64::from(regs_per_thread) * u64::from(d.warp_size))
                .next_multiple_of(u64::from(a.reg_alloc_unit.max(1)));
            if regs_per_warp == 0 {
                a.max_blocks_per_sm
            } else if regs_per_warp.saturating_mul(u64::from(warps_per_block))
                > u64::from(d.max_regs_per_block)
            {
                0
            } else {
                let warps = u64::from(d.max_regs_per_sm) / regs_per_warp;
                let warps = warps - warps % u64::from(a.warp_alloc_granularity.max(1));
                proven_u32(u128::from(warps / u64::from(warps_per_block)))
            }
        };

        let blocks_by_shared = shared_blocks.min(blocks_by_warps);
        let blocks_by_regs = regs_blocks.min(blocks_by_warps);
        let blocks_per_sm = blocks_by_shared.min(blocks_by_regs);
        let limited_by = if blocks_per_sm == blocks_by_warps {
            Limiter::Warps
        } else if blocks_per_sm == regs_blocks {
            Limiter::Registers
        } else {
            Limiter::SharedMemory
        };
        Occupancy {
            threads_per_block: threads,
            warps_per_block,
            max_warps_per_sm: a.max_warps_per_sm,
            blocks_by_warps,
            blocks_by_shared,
            blocks_by_regs,
            blocks_per_sm,
            limited_by,
        }
    }
}

/// What limits the blocks per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Limiter {
    /// The resident block and warp slots of the SM.
    Warps,
    /// Shared memory.
    SharedMemory,
    /// Registers.
    Registers,
}

impl Limiter {
    /// `warps`, `shared` or `registers`.
    pub const fn name(self) -> &'static str {
        match self {
            Limiter::Warps => "warps",
            Limiter::SharedMemory => "shared",
            Limiter::Registers => "registers",
        }
    }
}

/// Resident blocks per SM by each resource (Algorithm 3).
///
/// `blocks_by_shared` and `blocks_by_regs` are Algorithm 3's values: the
/// blocks the resource admits, filtered through the SM's block and warp
/// slots. The `threads_by_*` methods multiply them by the block's threads,
/// which is what the minimum-threads guideline checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Occupancy {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Resident warps per SM the hardware allows.
    pub max_warps_per_sm: u32,
    /// Blocks the SM's block and warp slots admit.
    pub blocks_by_warps: u32,
    /// Blocks shared memory admits (within the slots).
    pub blocks_by_shared: u32,
    /// Blocks registers admit (within the slots).
    pub blocks_by_regs: u32,
    /// Resident blocks: the least of the above.
    pub blocks_per_sm: u32,
    /// The resource that sets `blocks_per_sm`.
    pub limited_by: Limiter,
}

impl Occupancy {
    // The products below are at most the SM's resident threads when the
    // occupancy comes from `DeviceLimits::occupancy`; they saturate rather
    // than overflow for hand-made values.

    /// Resident threads per SM.
    pub const fn threads_per_sm(&self) -> u32 {
        self.blocks_per_sm.saturating_mul(self.threads_per_block)
    }

    /// Threads per SM shared memory admits.
    pub const fn threads_by_shared(&self) -> u32 {
        self.blocks_by_shared.saturating_mul(self.threads_per_block)
    }

    /// Threads per SM registers admit.
    pub const fn threads_by_regs(&self) -> u32 {
        self.blocks_by_regs.saturating_mul(self.threads_per_block)
    }

    /// Resident warps over the most the SM can hold, in [0, 1].
    pub fn fraction(&self) -> f64 {
        f64::from(self.blocks_per_sm) * f64::from(self.warps_per_block)
            / f64::from(self.max_warps_per_sm.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h100_occupancy_of_the_table2_sgemm() {
        let d = DeviceLimits::for_arch("sm_90").unwrap();
        // 256 threads, 12416 bytes of shared memory, 60 registers.
        let o = d.occupancy(256, 12416, 60);
        // Shared: (12416 + 1024) rounded to 128 = 13440 → 233472 / 13440 = 17.
        // Registers: 60 × 32 = 1920 → 2048 per warp → 32 warps → 4 blocks.
        // Slots: 64 warps / 8 = 8 blocks.
        assert_eq!(o.blocks_by_warps, 8);
        assert_eq!(o.blocks_by_shared, 8);
        assert_eq!(o.blocks_by_regs, 4);
        assert_eq!(o.blocks_per_sm, 4);
        assert_eq!(o.limited_by, Limiter::Registers);
        assert_eq!(o.threads_per_sm(), 1024);
        assert_eq!(o.fraction(), 0.5);
    }

    #[test]
    fn too_many_registers_per_block_admit_no_block() {
        let d = DeviceLimits::for_arch("sm_80").unwrap();
        assert_eq!(d.occupancy(1024, 0, 72).blocks_by_regs, 0);
        assert_eq!(d.occupancy(1024, 0, 64).blocks_by_regs, 1);
        assert_eq!(d.occupancy(32, 0, 256).blocks_by_regs, 0);
    }

    #[test]
    fn shared_memory_limits_on_turing() {
        let d = DeviceLimits::for_arch("7.5").unwrap();
        // No reserved bytes before sm_80; 256-byte units: 48 KiB admits one block.
        let o = d.occupancy(128, 48 * 1024, 32);
        assert_eq!(o.blocks_by_shared, 1);
        assert_eq!(o.limited_by, Limiter::SharedMemory);
    }

    #[test]
    fn extreme_arguments_and_limits_admit_no_block_without_overflow() {
        let mut d = DeviceLimits::for_arch("sm_90").unwrap();
        let o = d.occupancy(u32::MAX, u32::MAX, u32::MAX);
        assert_eq!((o.blocks_by_warps, o.blocks_by_shared, o.blocks_by_regs), (0, 0, 0));
        // A 1024-thread block whose registers overflow u32 per warp.
        d.arch.max_regs_per_thread = u32::MAX;
        assert_eq!(d.occupancy(1024, 0, u32::MAX).blocks_by_regs, 0);
        // Zero units count as 1 instead of dividing by zero.
        d.driver.warp_size = 0;
        d.arch.shared_alloc_unit = 0;
        d.arch.reg_alloc_unit = 0;
        let o = d.occupancy(64, 1000, 1);
        assert_eq!((o.warps_per_block, o.blocks_by_warps), (64, 1));
        assert_eq!(o.threads_per_sm(), 64);
    }
}
