//! An upper bound on a kernel's throughput from its own instruction mix, in
//! the spirit of Lai and Seznec ("Performance Upper Bound Analysis and
//! Optimization of SGEMM on Fermi and Kepler GPUs", §2.2.1 and §4), adapted
//! to sm_70 and newer.
//!
//! Lai and Seznec bound SGEMM by the share of FMAs among the instructions of
//! its main loop: an SM issues a fixed number of instructions per clock, so
//! every load, address computation and barrier in the loop takes an issue
//! slot from an FMA. We count the loop of the kernel itself (its PTX IR,
//! [`LoopMix`]) and take, per SM and clock, in thread-level FMAs:
//!
//! 1. **FMA units**: the FP32 or FP64 lanes ([`GpuThroughput::lanes`]);
//! 2. **issue**: `issue_per_clock × warp_size × FMAs / instructions`: four
//!    schedulers each issue one warp instruction per clock, and only the FMA
//!    share of them does arithmetic. With FP64 on sm_80/sm_90 this rarely
//!    binds: the 64 FP64 lanes take a warp `fma.f64` every other clock per
//!    scheduler, leaving every other issue slot free for the rest of the
//!    loop, which is what taking the least of (1) and (2) models;
//! 3. **shared memory**: `threads × FMAs / shared cycles` of one block's
//!    trip: 32 banks each deliver one 4-byte word per clock, lanes reading
//!    one word share it, so a warp-level access takes at least the largest
//!    number of distinct words it touches in one bank ([`SharedCycles`],
//!    from the lanes' addresses, which the IR determines: see the `lanes`
//!    module). This is the shared bytes per FMA of Lai and Seznec with
//!    broadcasts and bank conflicts counted: a wider `lds_width` moves the
//!    same bytes in fewer, fuller cycles when lanes share addresses.
//!
//! The bound is the least of the three, times `2 flops × SMs × clock`. A
//! complex kernel needs no special case: its multiply-adds are four real
//! `fma` instructions in the IR, and the flops of a complex GEMM (8 per
//! complex FMA) are twice its real FMAs as well.
//!
//! What the model cannot turn into a number is reported as a [`Caveat`]:
//! one block per SM (every barrier of the loop drains the SM), too few
//! independent FMAs in flight to cover the FMA latency (Lai and Seznec's
//! equation 1 with instruction-level parallelism), shared accesses whose
//! lane addresses the IR does not determine (charged one cycle per warp, a
//! loose term), and DRAM (the loop's global bytes per FMA at
//! the DRAM bandwidth, as Lai and Seznec's `P_MemBound`; not part of the
//! bound because the L2 cache serves most of a GEMM's global loads).
//!
//! ```
//! use gemm_codegen::bound::{AnalyticBound, GpuThroughput, Pipe};
//! use gemm_codegen::{ComputeCapability, KernelSpec};
//!
//! let spec: KernelSpec = "precision = f32, op = (N, N), tile = (96, 96, 16), threads = (16, 16), \
//!                         load_a = (32, 8), load_b = (8, 32)".parse().unwrap();
//! let plan = gemm_codegen::validate(&spec).unwrap();
//! let h100 = GpuThroughput::datasheet(ComputeCapability::new(9, 0))?;
//! let bound = AnalyticBound::of_plan(&plan, &h100, None)?;
//! assert!(bound.tflops < h100.peak_tflops(Pipe::Fp32));
//! # Ok::<(), gemm_codegen::bound::BoundError>(())
//! ```

mod gpu;
mod lanes;
mod mix;
#[cfg(test)]
mod tests;

use std::fmt;

use crate::constraints::Plan;
use crate::device::ComputeCapability;
use crate::ptx::MmaKind;
use crate::spec::Precision;

pub use gpu::{GpuThroughput, PeakSource};
pub use lanes::SharedCycles;
pub use mix::{InstrMix, LoopMix, Region, main_loop};

/// The floating-point FMA pipe a kernel's arithmetic runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// `fma.f32`: sgemm and cgemm.
    Fp32,
    /// `fma.f64`: dgemm and zgemm.
    Fp64,
}

impl Pipe {
    /// The pipe of a GEMM of `precision`.
    pub const fn of(precision: Precision) -> Pipe {
        match precision {
            // The 16-bit types have no FMA kernel; they accumulate in f32.
            Precision::F32 | Precision::C32 | Precision::F16 | Precision::Bf16 => Pipe::Fp32,
            Precision::F64 | Precision::C64 => Pipe::Fp64,
        }
    }

    /// `fp32` or `fp64`.
    pub const fn name(self) -> &'static str {
        match self {
            Pipe::Fp32 => "fp32",
            Pipe::Fp64 => "fp64",
        }
    }
}

/// Why no bound could be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BoundError {
    /// No throughput row for the architecture.
    #[error("no FMA throughput is known for {0}: use one of {known}", known = GpuThroughput::known_names())]
    UnknownArch(ComputeCapability),
    /// A machine figure out of range.
    #[error("{0}")]
    Machine(String),
    /// The counted code has no floating-point FMA.
    #[error("kernel `{kernel}` has no `fma` in its main loop: nothing to bound")]
    NoFma {
        /// Its entry name.
        kernel: String,
    },
    /// The counted code has FMAs of both precisions.
    #[error(
        "kernel `{kernel}` has {fp32} `fma.f32` and {fp64} `fma.f64` in its main loop: \
         a bound needs one FMA pipe"
    )]
    MixedPipes {
        /// Its entry name.
        kernel: String,
        /// `fma.f32` count.
        fp32: u32,
        /// `fma.f64` count.
        fp64: u32,
    },
    /// `Residency` with no threads or no block.
    #[error("residency: `{0}` must be at least 1")]
    Residency(&'static str),
}

/// How many of a kernel's blocks an SM holds (the driver's occupancy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Residency {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Resident blocks per SM.
    pub blocks_per_sm: u32,
}

/// The term of the bound that binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limiter {
    /// The FMA lanes: the loop is all FMAs as far as the SM can tell.
    FmaUnits,
    /// The schedulers' issue slots: the FMA share of the loop.
    Issue,
    /// Shared-memory bandwidth: the shared bytes per FMA of the loop.
    SharedMemory,
}

impl Limiter {
    /// `fma`, `issue` or `shared`.
    pub const fn name(self) -> &'static str {
        match self {
            Limiter::FmaUnits => "fma",
            Limiter::Issue => "issue",
            Limiter::SharedMemory => "shared",
        }
    }
}

/// Something the bound does not account for that may keep a kernel below it.
#[derive(Clone, Debug, PartialEq)]
pub enum Caveat {
    /// No backward branch: the whole body was counted, prologue and epilogue
    /// included, as one trip.
    NoLoop,
    /// One block per SM: each barrier of the loop idles the SM until its
    /// slowest warp arrives, with no other block to issue from.
    OneBlockPerSm,
    /// Fewer independent FMAs in flight per scheduler than the FMA latency
    /// (Lai and Seznec's equation 1, with a thread's independent chains).
    FmaLatency {
        /// Resident warps per scheduler.
        warps_per_scheduler: f64,
        /// Independent FMA chains per thread.
        chains: u32,
        /// FMA latency, clocks.
        latency: u32,
    },
    /// Shared accesses whose lane addresses were not known, or that were
    /// guarded, were charged one cycle per warp: the shared term may be
    /// loose.
    SharedAddressesUnknown {
        /// Such warp-level accesses per block trip.
        accesses: u64,
    },
    /// Without L2 reuse, the loop's global bytes per FMA at the DRAM
    /// bandwidth would allow less than the bound.
    DramWithoutL2Reuse {
        /// That rate.
        tflops: f64,
    },
}

impl Caveat {
    /// A short kebab-case name, for CSV cells.
    pub const fn name(&self) -> &'static str {
        match self {
            Caveat::NoLoop => "no-loop",
            Caveat::OneBlockPerSm => "one-block-per-sm",
            Caveat::FmaLatency { .. } => "fma-latency",
            Caveat::SharedAddressesUnknown { .. } => "shared-addresses-unknown",
            Caveat::DramWithoutL2Reuse { .. } => "dram-without-l2-reuse",
        }
    }
}

impl fmt::Display for Caveat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Caveat::NoLoop => write!(f, "no loop: the whole kernel was counted as one trip"),
            Caveat::OneBlockPerSm => write!(f, "one block per SM: barriers drain the SM"),
            Caveat::FmaLatency { warps_per_scheduler, chains, latency } => write!(
                f,
                "{warps_per_scheduler:.1} warps per scheduler × {chains} independent FMAs cover less than \
                 the {latency}-clock FMA latency"
            ),
            Caveat::SharedAddressesUnknown { accesses } => write!(
                f,
                "{accesses} warp-level shared accesses per block trip have unknown addresses (one cycle each)"
            ),
            Caveat::DramWithoutL2Reuse { tflops } => {
                write!(f, "without L2 reuse DRAM would allow only {tflops:.1} TFLOP/s")
            }
        }
    }
}

/// A kernel's throughput bound on one GPU, and its terms.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticBound {
    /// The FMA pipe of the kernel's loop.
    pub pipe: Pipe,
    /// What one trip through the loop issues.
    pub mix: InstrMix,
    /// (1) The FMA units' peak, TFLOP/s.
    pub fma_tflops: f64,
    /// (2) The issue bound, TFLOP/s.
    pub issue_tflops: f64,
    /// (3) The shared-memory bound, TFLOP/s; `None` without shared accesses.
    pub shared_tflops: Option<f64>,
    /// The least of the three: the bound, TFLOP/s.
    pub tflops: f64,
    /// Which term it is.
    pub limiter: Limiter,
    /// What it does not account for.
    pub caveats: Vec<Caveat>,
}

impl AnalyticBound {
    /// The bound of the counted loop `mix` on `gpu`; with `residency`, the
    /// occupancy caveats too.
    pub fn new(
        mix: &LoopMix,
        gpu: &GpuThroughput,
        residency: Option<Residency>,
    ) -> Result<AnalyticBound, BoundError> {
        let m = mix.mix;
        // A tensor-core loop multiplies on the FP64 or the TF32 tensor
        // cores, each `mma` `m·n·k / 32` multiply-adds a lane.
        let tensor = m.mma > 0;
        // A TF32 loop's f32 FMAs round its operands (`stencil/mma.rs`): issue
        // slots like any instruction, not multiply-adds of the product.
        let pipe = match (m.fma_f32, m.fma_f64) {
            (0, 0) if !tensor => return Err(BoundError::NoFma { kernel: mix.kernel.clone() }),
            (_, 0) if m.mma_kind == Some(MmaKind::Tf32) => Pipe::Fp32,
            (0, 0) => Pipe::Fp64,
            (fp32, fp64) if tensor => {
                return Err(BoundError::MixedPipes { kernel: mix.kernel.clone(), fp32, fp64 });
            }
            (_, 0) => Pipe::Fp32,
            (0, _) => Pipe::Fp64,
            (fp32, fp64) => return Err(BoundError::MixedPipes { kernel: mix.kernel.clone(), fp32, fp64 }),
        };
        let fmas = f64::from(if tensor { m.mma_fmas } else { m.fmas() });
        // Thread-level FMAs per SM per clock under each term.
        let fma_units = match m.mma_kind {
            Some(MmaKind::F64) => gpu.dmma_lanes,
            Some(MmaKind::Tf32) => gpu.tf32_lanes,
            None => gpu.lanes(pipe),
        };
        if fma_units <= 0.0 {
            return Err(BoundError::Machine(format!("{} has no tensor cores of this kind", gpu.name)));
        }
        // The rates below count the multiply-adds executed; a tf32x3 loop
        // executes three for each of the GEMM's.
        let useful = 1.0 / f64::from(mix.passes.max(1));
        let per_instruction = fmas / f64::from(m.issued().max(1));
        let issue = gpu.issue_per_clock * f64::from(lanes::WARP) * per_instruction;
        let shared =
            (mix.shared.cycles > 0).then(|| f64::from(mix.shared.threads) * fmas / mix.shared.cycles as f64);
        let (limiter, rate) = [(Limiter::FmaUnits, Some(fma_units)), (Limiter::Issue, Some(issue))]
            .into_iter()
            .chain([(Limiter::SharedMemory, shared)])
            .filter_map(|(l, r)| Some((l, r?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("the FMA term is always there");
        let tflops = gpu.tflops(rate) * useful;

        let mut caveats = Vec::new();
        if mix.region == Region::WholeBody {
            caveats.push(Caveat::NoLoop);
        }
        if let Some(r) = residency {
            if r.threads_per_block == 0 {
                return Err(BoundError::Residency("threads_per_block"));
            }
            if r.blocks_per_sm == 0 {
                return Err(BoundError::Residency("blocks_per_sm"));
            }
            if r.blocks_per_sm == 1 {
                caveats.push(Caveat::OneBlockPerSm);
            }
            let warps = f64::from(r.blocks_per_sm * r.threads_per_block.div_ceil(lanes::WARP));
            let warps_per_scheduler = warps / f64::from(gpu.schedulers.max(1));
            let latency = match pipe {
                Pipe::Fp32 => gpu.fma_latency.0,
                Pipe::Fp64 => gpu.fma_latency.1,
            };
            // A scheduler issues an FMA per clock at most; to keep doing so
            // it needs `latency` independent FMAs among its warps.
            if !tensor && warps_per_scheduler * f64::from(mix.fma_chains) < f64::from(latency) {
                caveats.push(Caveat::FmaLatency { warps_per_scheduler, chains: mix.fma_chains, latency });
            }
        }
        if mix.shared.unknown > 0 {
            caveats.push(Caveat::SharedAddressesUnknown { accesses: mix.shared.unknown });
        }
        if m.global_bytes() > 0 {
            let fmas_per_second = gpu.dram_gbps * 1e9 * fmas / f64::from(m.global_bytes());
            let dram = 2.0 * fmas_per_second * useful * 1e-12;
            if dram < tflops {
                caveats.push(Caveat::DramWithoutL2Reuse { tflops: dram });
            }
        }
        Ok(AnalyticBound {
            pipe,
            mix: m,
            fma_tflops: gpu.tflops(fma_units) * useful,
            issue_tflops: gpu.tflops(issue) * useful,
            shared_tflops: shared.map(|s| gpu.tflops(s) * useful),
            tflops,
            limiter,
            caveats,
        })
    }

    /// The bound of the stencil kernel of `plan` on `gpu`.
    pub fn of_plan(
        plan: &Plan,
        gpu: &GpuThroughput,
        residency: Option<Residency>,
    ) -> Result<AnalyticBound, BoundError> {
        AnalyticBound::new(&LoopMix::of_plan(plan), gpu, residency)
    }

    /// The caveats' names joined by `;` (empty for none), for a CSV cell.
    pub fn caveat_names(&self) -> String {
        self.caveats.iter().map(Caveat::name).collect::<Vec<_>>().join(";")
    }
}
