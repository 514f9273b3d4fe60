//! What an SM can do per clock, and how many SMs at what clock: the
//! machine side of the bound.

use std::fmt;

use crate::device::{ComputeCapability, DeviceLimits};

use super::{BoundError, Pipe};

/// Where a [`GpuThroughput`]'s FMA rates come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeakSource {
    /// The datasheet's lanes per SM at the boost clock.
    Datasheet,
    /// Measured on the GPU (`cargo xtask peak`): the clock and FP64 rate
    /// calibrated from it (see [`GpuThroughput::with_measured`]).
    Measured,
}

impl PeakSource {
    /// `datasheet` or `measured`.
    pub const fn name(self) -> &'static str {
        match self {
            PeakSource::Datasheet => "datasheet",
            PeakSource::Measured => "measured",
        }
    }
}

/// The throughput a GPU offers a kernel's instruction mix.
///
/// Per-SM rates are per clock; every `*_tflops` figure is
/// `2 flops × FMAs per clock per SM × SMs × clock`. Every architecture
/// here has 32-lane warps and shared memory of 32 four-byte banks
/// (128 bytes per SM per clock), which the bound takes as given.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuThroughput {
    /// The part, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Its compute capability.
    pub compute_capability: ComputeCapability,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// SM clock the rates are taken at, GHz.
    pub clock_ghz: f64,
    /// FP32 FMA lanes per SM: thread-level `fma.f32` per clock.
    pub fp32_lanes: f64,
    /// FP64 FMA lanes per SM: thread-level `fma.f64` per clock (half the
    /// FP32 lanes on sm_80 and sm_90, 1/64 on the gaming parts).
    pub fp64_lanes: f64,
    /// FP64 tensor-core multiply-adds per SM per clock, thread-level (what
    /// `mma.sync` on `.f64` sustains: twice the FP64 lanes on sm_80 and
    /// sm_90, the FP64 lanes on the gaming parts, none before sm_80).
    pub dmma_lanes: f64,
    /// TF32 tensor-core multiply-adds per SM per clock, thread-level, at the
    /// datasheet's dense TF32 rate (A100 156, H100 SXM5 495 TFLOP/s: 512 and
    /// 1024 a clock; sm_86/sm_89 256, none before sm_80). `mma.sync` may not
    /// reach it on sm_90, whose full rate is `wgmma`'s.
    pub tf32_lanes: f64,
    /// Warp instructions an SM issues per clock: one per scheduler, four
    /// schedulers from sm_70 on.
    pub issue_per_clock: f64,
    /// Schedulers (SM sub-partitions) per SM.
    pub schedulers: u32,
    /// DRAM bandwidth, GB/s: the datasheet's, or the copy bandwidth
    /// measured by `cargo xtask peak`.
    pub dram_gbps: f64,
    /// Clocks from an FMA's issue until a dependent FMA can use its result,
    /// FP32 then FP64: for the latency caveat only.
    pub fma_latency: (u32, u32),
    /// Datasheet or measured.
    pub source: PeakSource,
}

/// Per-SM rates of one architecture; SM count and clock come from
/// [`DeviceLimits::for_arch`]'s typical part, or from the driver.
struct Row {
    cc: ComputeCapability,
    fp32_lanes: u32,
    fp64_lanes: u32,
    dmma_lanes: u32,
    tf32_lanes: u32,
    /// DRAM of the typical part, GB/s.
    dram_gbps: u32,
    /// FP64 FMA latency, clocks.
    dfma_latency: u32,
}

const fn row(cc: (u32, u32), lanes: (u32, u32, u32, u32), dram_gbps: u32, dfma_latency: u32) -> Row {
    let (fp32_lanes, fp64_lanes, dmma_lanes, tf32_lanes) = lanes;
    Row {
        cc: ComputeCapability::new(cc.0, cc.1),
        fp32_lanes,
        fp64_lanes,
        dmma_lanes,
        tf32_lanes,
        dram_gbps,
        dfma_latency,
    }
}

/// Lanes per SM from NVIDIA's architecture whitepapers (V100, T4/Turing,
/// A100, GA102, AD102, H100); DRAM bandwidth of the part
/// [`DeviceLimits::for_arch`] assumes (V100 SXM2, T4, A100 SXM4 80 GB, A10,
/// L4, H100 SXM5). FMA latency: 4 clocks for FP32 and 8 for FP64 from
/// sm_70 on (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
/// Microbenchmarking"), 2 FP64 lanes parts excepted (their DFMA is a
/// shared, slow unit; 16 clocks is a floor).
/// FP64 tensor cores: A100 19.5 and H100 SXM5 67 TFLOP/s, twice their FP64
/// FMA rate.
const TABLE: &[Row] = &[
    row((7, 0), (64, 32, 0, 0), 900, 8),
    row((7, 5), (64, 2, 0, 0), 320, 16),
    row((8, 0), (64, 32, 64, 512), 2039, 8),
    row((8, 6), (128, 2, 2, 256), 600, 16),
    row((8, 9), (128, 2, 2, 256), 300, 16),
    row((9, 0), (128, 64, 128, 1024), 3350, 8),
];

impl GpuThroughput {
    /// The architectures with a row: `sm_70, sm_75, …`.
    pub fn known_names() -> String {
        TABLE.iter().map(|r| r.cc.to_string()).collect::<Vec<_>>().join(", ")
    }

    /// The typical part of `cc` at its boost clock, by its datasheet:
    ///
    /// | arch  | part | SMs | clock | FP32 / FP64 lanes per SM | FP32 / FP64 TFLOP/s | DRAM GB/s |
    /// |-------|------|----:|------:|------:|------:|-----:|
    /// | sm_70 | V100 SXM2 | 80 | 1.53 GHz | 64 / 32 | 15.7 / 7.8 | 900 |
    /// | sm_75 | T4 | 40 | 1.59 GHz | 64 / 2 | 8.1 / 0.25 | 320 |
    /// | sm_80 | A100 SXM4 | 108 | 1.41 GHz | 64 / 32 | 19.5 / 9.7 | 2039 |
    /// | sm_86 | A10 | 72 | 1.695 GHz | 128 / 2 | 31.2 / 0.49 | 600 |
    /// | sm_89 | L4 | 58 | 2.04 GHz | 128 / 2 | 30.3 / 0.47 | 300 |
    /// | sm_90 | H100 SXM5 (H200: same chip) | 132 | 1.98 GHz | 128 / 64 | 66.9 / 33.5 | 3350 |
    ///
    /// Every one issues 4 warp instructions per SM per clock (one per
    /// scheduler) and serves 128 bytes of shared memory per SM per clock.
    pub fn datasheet(cc: ComputeCapability) -> Result<GpuThroughput, BoundError> {
        let part = DeviceLimits::for_arch(&cc.to_string()).map_err(|_| BoundError::UnknownArch(cc))?;
        let d = &part.driver;
        GpuThroughput::for_device(cc, &d.name, d.sm_count, f64::from(d.clock_khz) / 1e6, None)
    }

    /// A GPU as the driver describes it (`sm_count` SMs at `clock_ghz`),
    /// with the per-SM rates of its architecture's row; `dram_gbps` replaces
    /// the typical part's when given.
    pub fn for_device(
        cc: ComputeCapability,
        name: &str,
        sm_count: u32,
        clock_ghz: f64,
        dram_gbps: Option<f64>,
    ) -> Result<GpuThroughput, BoundError> {
        let row = TABLE.iter().find(|r| r.cc == cc).ok_or(BoundError::UnknownArch(cc))?;
        if sm_count == 0 {
            return Err(BoundError::Machine("`sm_count` must be at least 1".into()));
        }
        positive("clock_ghz", clock_ghz)?;
        if let Some(bw) = dram_gbps {
            positive("dram_gbps", bw)?;
        }
        Ok(GpuThroughput {
            name: name.to_owned(),
            compute_capability: cc,
            sm_count,
            clock_ghz,
            fp32_lanes: f64::from(row.fp32_lanes),
            fp64_lanes: f64::from(row.fp64_lanes),
            dmma_lanes: f64::from(row.dmma_lanes),
            tf32_lanes: f64::from(row.tf32_lanes),
            issue_per_clock: 4.0,
            schedulers: 4,
            dram_gbps: dram_gbps.unwrap_or(f64::from(row.dram_gbps)),
            fma_latency: (4, row.dfma_latency),
            source: PeakSource::Datasheet,
        })
    }

    /// The same GPU with the peaks `cargo xtask peak` measured: FP32 and
    /// FP64 FMA TFLOP/s and copy bandwidth (bytes read plus written), GB/s.
    ///
    /// The FP32 peak calibrates the clock (`fp32_tflops / (2 · SMs · FP32
    /// lanes)`): a GPU that holds a lower clock under load holds it for the
    /// issue and shared-memory terms too. The FP64 peak then gives the FP64
    /// lanes at that clock (and the FP64 tensor cores' in proportion), and
    /// the copy bandwidth replaces the DRAM figure.
    pub fn with_measured(
        &self,
        fp32_tflops: f64,
        fp64_tflops: f64,
        copy_gbps: f64,
    ) -> Result<GpuThroughput, BoundError> {
        positive("fp32_tflops", fp32_tflops)?;
        positive("fp64_tflops", fp64_tflops)?;
        positive("copy_gbps", copy_gbps)?;
        let sms = f64::from(self.sm_count);
        let clock_ghz = fp32_tflops * 1e3 / (2.0 * sms * self.fp32_lanes);
        let fp64_lanes = fp64_tflops * 1e3 / (2.0 * sms * clock_ghz);
        Ok(GpuThroughput {
            clock_ghz,
            fp64_lanes,
            dmma_lanes: self.dmma_lanes * fp64_lanes / self.fp64_lanes,
            dram_gbps: copy_gbps,
            source: PeakSource::Measured,
            ..self.clone()
        })
    }

    /// Thread-level FMAs of `pipe` per SM per clock.
    pub fn lanes(&self, pipe: Pipe) -> f64 {
        match pipe {
            Pipe::Fp32 => self.fp32_lanes,
            Pipe::Fp64 => self.fp64_lanes,
        }
    }

    /// TFLOP/s of `per_sm_clock` thread-level FMAs per SM per clock.
    pub fn tflops(&self, per_sm_clock: f64) -> f64 {
        2.0 * per_sm_clock * f64::from(self.sm_count) * self.clock_ghz * 1e-3
    }

    /// The FMA peak of `pipe`, TFLOP/s.
    pub fn peak_tflops(&self, pipe: Pipe) -> f64 {
        self.tflops(self.lanes(pipe))
    }
}

fn positive(what: &str, x: f64) -> Result<(), BoundError> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(BoundError::Machine(format!("`{what}` must be a positive number, got {x}")))
    }
}

impl fmt::Display for GpuThroughput {
    /// `NVIDIA H100 80GB HBM3 (sm_90): 132 SMs at 1.980 GHz, FP32 66.9 / FP64 33.5 TFLOP/s, 3350 GB/s (datasheet)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {} SMs at {:.3} GHz, FP32 {:.1} / FP64 {:.1} TFLOP/s, {:.0} GB/s ({})",
            self.name,
            self.compute_capability,
            self.sm_count,
            self.clock_ghz,
            self.peak_tflops(Pipe::Fp32),
            self.peak_tflops(Pipe::Fp64),
            self.dram_gbps,
            self.source.name()
        )
    }
}
