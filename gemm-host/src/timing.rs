//! Timing work on a stream with CUDA events.

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
