//! Timing work on a stream with CUDA events: one span ([`time`]), or a
//! measurement of repeated runs after a warm-up, reported by its median
//! ([`repeat`], [`Plan`], [`Timing`]).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use cudarc::driver::sys::CUevent_flags;

use crate::error::GemmError;

/// Runs `work`, which queues GPU work on `stream`, between two timing events
/// and returns its result with the GPU time between them in milliseconds.
///
/// Waits for the stream. The events are created with `CU_EVENT_DEFAULT`:
/// cudarc's `new_event(None)` disables timing, and `cuEventElapsedTime`
/// then fails.
pub fn time<R>(
    stream: &Arc<CudaStream>,
    work: impl FnOnce() -> Result<R, GemmError>,
) -> Result<(R, f32), GemmError> {
    let ctx = stream.context();
    let event = || {
        ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(GemmError::driver("creating an event"))
    };
    let (start, stop) = (event()?, event()?);
    start.record(stream).map_err(GemmError::driver("recording the start event"))?;
    let result = work()?;
    stop.record(stream).map_err(GemmError::driver("recording the stop event"))?;
    stop.synchronize().map_err(GemmError::driver("waiting for the timed work"))?;
    let ms = start.elapsed_ms(&stop).map_err(GemmError::driver("reading the elapsed time"))?;
    Ok((result, ms))
}

/// Repetitions of a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Untimed runs first (module load, clocks, caches).
    pub warmup: usize,
    /// Timed runs; the median is reported.
    pub reps: usize,
}

impl Plan {
    /// Enough to make the median stable for launches of milliseconds.
    pub const DEFAULT: Plan = Plan { warmup: 2, reps: 7 };
}

/// What a measurement found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Median of the timed runs, milliseconds.
    pub median_ms: f64,
    /// Fastest timed run.
    pub min_ms: f64,
    /// Slowest timed run.
    pub max_ms: f64,
}

impl Timing {
    /// TFLOP/s of a GEMM of `flops` operations at the median.
    pub fn tflops(&self, flops: f64) -> f64 {
        flops / (self.median_ms * 1e-3) / 1e12
    }

    /// GB/s of `bytes` moved at the median.
    pub fn gbps(&self, bytes: f64) -> f64 {
        bytes / (self.median_ms * 1e-3) / 1e9
    }
}

/// Times `plan.reps` runs of `run` on `stream` after `plan.warmup` untimed
/// ones, each between its own pair of events ([`time`]), and returns their
/// median, fastest and slowest. `run(i)` queues run `i` (warm-ups first,
/// from 0), so that callers can rotate inputs.
pub fn repeat(
    stream: &Arc<CudaStream>,
    plan: Plan,
    mut run: impl FnMut(usize) -> Result<(), GemmError>,
) -> Result<Timing, GemmError> {
    for i in 0..plan.warmup {
        run(i)?;
    }
    let mut samples = Vec::with_capacity(plan.reps.max(1));
    for i in 0..plan.reps.max(1) {
        let ((), ms) = time(stream, || run(plan.warmup + i))?;
        samples.push(f64::from(ms));
    }
    Ok(summarize(&mut samples))
}

/// Median, fastest and slowest of `samples` (sorted in place).
///
/// # Panics
/// If `samples` is empty.
pub fn summarize(samples: &mut [f64]) -> Timing {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let median = if n % 2 == 1 { samples[n / 2] } else { (samples[n / 2 - 1] + samples[n / 2]) / 2.0 };
    Timing { median_ms: median, min_ms: samples[0], max_ms: samples[n - 1] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(summarize(&mut [3.0, 1.0, 2.0]), Timing { median_ms: 2.0, min_ms: 1.0, max_ms: 3.0 });
        assert_eq!(summarize(&mut [4.0, 1.0, 2.0, 3.0]).median_ms, 2.5);
        let t = Timing { median_ms: 2.0, min_ms: 1.0, max_ms: 3.0 };
        assert!((t.tflops(4e12) - 2000.0).abs() < 1e-9);
        assert!((t.gbps(4e9) - 2000.0).abs() < 1e-9);
    }
}
