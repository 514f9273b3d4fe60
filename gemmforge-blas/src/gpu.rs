//! The GPU path: one [`Runner`] per device — `gemm-host`'s tuned kernels on
//! a compute stream, an upload and a download stream, device buffers and
//! pinned host slots kept between calls — as the [`Device`] of the staging
//! pipeline ([`crate::staging`]).
//!
//! Buffers and slots grow when a call needs more and are never shrunk, so
//! a program's repeated calls allocate nothing. The three streams are
//! non-blocking (they do not wait for the legacy default stream), ordered
//! among themselves by events: an upload into a buffer waits for the last
//! product or download that read it, a product for the uploads of its
//! operands, a download for the product that wrote its C, and the host
//! for the last copy through a slot before it packs into it again.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUstream};
use cudarc::driver::{CudaContext, CudaStream, DriverError, result};
use gemm_host::{Gemm, GemmConfig, GemmError};

use crate::backend;
use crate::scalar::Scalar;
use crate::staging::{self, Device, Failure, Operand, Place, Plan, Slot, Tuning};

/// Devices with a runner (ordinals past it run on the CPU).
const MAX_DEVICES: usize = 16;

/// Device memory of `bytes` bytes (at least 256), freed on drop.
#[derive(Debug, Default)]
struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
}

/// Pinned (page-locked) host memory, freed on drop.
#[derive(Debug)]
struct PinnedBuffer {
    ptr: *mut c_void,
    bytes: usize,
}

impl Default for PinnedBuffer {
    fn default() -> PinnedBuffer {
        PinnedBuffer { ptr: std::ptr::null_mut(), bytes: 0 }
    }
}

/// A buffer's index in [`Runner`]'s arrays: the resident operand, the two
/// streamed ones, the two Cs.
fn buffer_index(place: Place) -> Option<usize> {
    match place {
        Place::Resident(_) => Some(0),
        Place::Streamed(s) => Some(1 + s),
        Place::C(s) => Some(3 + s),
        Place::User(_) => None,
    }
}

/// One device's GPU state. Lives behind a `Mutex`: one call at a time.
struct Runner {
    ctx: Arc<CudaContext>,
    /// The kernels, launched on the compute stream.
    gemm: Gemm,
    upload: Arc<CudaStream>,
    download: Arc<CudaStream>,
    buffers: [DeviceBuffer; 5],
    slots: [PinnedBuffer; 4],
    /// Per buffer: its last upload has finished.
    ready: [CUevent; 5],
    /// Per buffer: the last product or download that read it has finished.
    used: [CUevent; 5],
    /// Per slot: the last copy through it has finished.
    slot_free: [CUevent; 4],
}

// SAFETY: the raw pointers and handles are owned by the runner and used
// only under its `Mutex`, with its context bound to the calling thread.
unsafe impl Send for Runner {}

impl Runner {
    fn open(ordinal: usize) -> Result<Runner, GemmError> {
        let gemm = Gemm::open(ordinal)?;
        let ctx = Arc::clone(gemm.context());
        let driver = |what: &'static str| GemmError::driver(what);
        let stream = || ctx.new_stream().map_err(driver("creating a stream"));
        let gemm = gemm.with_stream(stream()?)?;
        let (upload, download) = (stream()?, stream()?);
        // The context is bound (by `new_stream` above).
        let event = || {
            result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(driver("creating an event"))
        };
        let events = |n: usize| (0..n).map(|_| event()).collect::<Result<Vec<_>, _>>();
        let array5 = |v: Vec<CUevent>| <[CUevent; 5]>::try_from(v).unwrap_or([std::ptr::null_mut(); 5]);
        let (ready, used) = (array5(events(5)?), array5(events(5)?));
        let slot_free = <[CUevent; 4]>::try_from(events(4)?).unwrap_or([std::ptr::null_mut(); 4]);
        Ok(Runner {
            ctx,
            gemm,
            upload,
            download,
            buffers: Default::default(),
            slots: Default::default(),
            ready,
            used,
            slot_free,
        })
    }

    fn compute(&self) -> CUstream {
        self.gemm.stream().cu_stream()
    }

    /// The device address of `place` (bytes of `E` elements).
    fn address<E>(&self, place: Place) -> CUdeviceptr {
        match place {
            Place::Resident(at) => self.buffers[0].ptr + (at * size_of::<E>()) as u64,
            Place::Streamed(s) => self.buffers[1 + s].ptr,
            Place::C(s) => self.buffers[3 + s].ptr,
            Place::User(addr) => addr,
        }
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        // Errors cannot be reported from here; the process is ending or
        // the device already failed.
        let _ = self.ctx.bind_to_thread();
        for s in [self.compute(), self.upload.cu_stream(), self.download.cu_stream()] {
            // SAFETY: a stream of this context.
            let _ = unsafe { result::stream::synchronize(s) };
        }
        for b in &self.buffers {
            if b.ptr != 0 {
                // SAFETY: allocated by `reserve`, no work left on it.
                let _ = unsafe { result::free_sync(b.ptr) };
            }
        }
        for s in &self.slots {
            if !s.ptr.is_null() {
                // SAFETY: allocated by `reserve`, no copy left through it.
                let _ = unsafe { result::free_host(s.ptr) };
            }
        }
        for e in self.ready.iter().chain(&self.used).chain(&self.slot_free) {
            // SAFETY: created in `open`, destroyed once.
            let _ = unsafe { result::event::destroy(*e) };
        }
    }
}

/// A call's view of a runner, typed by its element.
struct Call<'a, E> {
    runner: &'a mut Runner,
    _element: PhantomData<E>,
}

fn driver(action: &'static str) -> impl FnOnce(DriverError) -> GemmError {
    GemmError::driver(action)
}

impl<E: Scalar> Device<E> for Call<'_, E> {
    fn reserve(&mut self, resident: usize, streamed: usize, c: usize, piece: usize) -> Result<(), GemmError> {
        let r = &mut *self.runner;
        let bytes = |len: usize| (len * size_of::<E>()).max(256);
        let wanted = [bytes(resident), bytes(streamed), bytes(streamed), bytes(c), bytes(c)];
        for (i, want) in wanted.into_iter().enumerate() {
            if r.buffers[i].bytes < want {
                // Earlier work on the old buffer (a previous call's) is finished:
                // every call ends with `finish`.
                if r.buffers[i].ptr != 0 {
                    // SAFETY: allocated here, no work queued on it.
                    unsafe { result::free_sync(r.buffers[i].ptr) }.map_err(driver("freeing a buffer"))?;
                    r.buffers[i] = DeviceBuffer::default();
                }
                // SAFETY: the context is bound (by `run`).
                let ptr = unsafe { result::malloc_sync(want) }.map_err(driver("allocating device memory"))?;
                r.buffers[i] = DeviceBuffer { ptr, bytes: want };
            }
        }
        let slot = bytes(streamed.max(c).max(piece));
        for s in &mut r.slots {
            if s.bytes < slot {
                if !s.ptr.is_null() {
                    // SAFETY: allocated here; no copy through it is queued (see above).
                    unsafe { result::free_host(s.ptr) }.map_err(driver("freeing pinned memory"))?;
                    *s = PinnedBuffer::default();
                }
                // SAFETY: plain page-locked memory (not write-combined: C is read back from it).
                let ptr =
                    unsafe { result::malloc_host(slot, 0) }.map_err(driver("allocating pinned memory"))?;
                *s = PinnedBuffer { ptr, bytes: slot };
            }
        }
        Ok(())
    }

    fn slot(&mut self, slot: Slot, len: usize) -> Result<&mut [E], GemmError> {
        let r = &mut *self.runner;
        // SAFETY: an event of this context.
        unsafe { result::event::synchronize(r.slot_free[slot]) }.map_err(driver("waiting for a copy"))?;
        let s = &r.slots[slot];
        assert!(len * size_of::<E>() <= s.bytes, "slot {slot} holds {} bytes, not {len} elements", s.bytes);
        // SAFETY: pinned memory of at least `len` elements (page-aligned),
        // no copy through it in flight, borrowed mutably with the runner.
        Ok(unsafe { std::slice::from_raw_parts_mut(s.ptr.cast::<E>(), len) })
    }

    fn upload(&mut self, slot: Slot, len: usize, place: Place) -> Result<(), GemmError> {
        let r = &mut *self.runner;
        let up = r.upload.cu_stream();
        let i = buffer_index(place).expect("uploads go to the runner's buffers");
        let dst = r.address::<E>(place);
        // SAFETY: the slot holds `len` elements; the buffer has room for them
        // at `place` (`reserve`); the event orders the copy after the last
        // reader of the buffer.
        unsafe {
            result::stream::wait_event(up, r.used[i], sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
                .map_err(driver("ordering an upload"))?;
            let src = std::slice::from_raw_parts(r.slots[slot].ptr.cast::<E>(), len);
            result::memcpy_htod_async(dst, src, up).map_err(driver("uploading"))?;
            result::event::record(r.ready[i], up).map_err(driver("recording an upload"))?;
            result::event::record(r.slot_free[slot], up).map_err(driver("recording an upload"))?;
        }
        Ok(())
    }

    fn gemm(&mut self, cfg: &GemmConfig<E>, a: Place, b: Place, c: Place) -> Result<(), GemmError> {
        let r = &mut *self.runner;
        let compute = r.compute();
        let staged: Vec<usize> = [a, b, c].into_iter().filter_map(buffer_index).collect();
        for &i in &staged {
            // SAFETY: events and stream of this context.
            unsafe {
                let wait = sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT;
                result::stream::wait_event(compute, r.ready[i], wait)
                    .map_err(driver("ordering a product"))?;
                result::stream::wait_event(compute, r.used[i], wait).map_err(driver("ordering a product"))?;
            }
        }
        let (pa, pb, pc) = (r.address::<E>(a), r.address::<E>(b), r.address::<E>(c));
        // SAFETY: each place holds its block at the chunk's leading
        // dimensions (`reserve`, or the caller's device memory); the events
        // above order the product after their uploads and earlier readers.
        unsafe { r.gemm.gemm_raw(cfg, pa, pb, pc) }?;
        for &i in &staged {
            // SAFETY: as above.
            unsafe { result::event::record(r.used[i], compute) }.map_err(driver("recording a product"))?;
        }
        Ok(())
    }

    fn download(&mut self, place: Place, len: usize, slot: Slot) -> Result<(), GemmError> {
        let r = &mut *self.runner;
        let down = r.download.cu_stream();
        let i = buffer_index(place).expect("downloads come from the runner's buffers");
        let src = r.address::<E>(place);
        // SAFETY: the slot has room for `len` elements (`reserve`), no copy
        // through it in flight after `slot_free`; the product that wrote
        // the buffer is ordered before the copy by `used`.
        unsafe {
            let wait = sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT;
            result::stream::wait_event(down, r.used[i], wait).map_err(driver("ordering a download"))?;
            result::stream::wait_event(down, r.slot_free[slot], wait)
                .map_err(driver("ordering a download"))?;
            let dst = std::slice::from_raw_parts_mut(r.slots[slot].ptr.cast::<E>(), len);
            result::memcpy_dtoh_async(dst, src, down).map_err(driver("downloading"))?;
            result::event::record(r.used[i], down).map_err(driver("recording a download"))?;
            result::event::record(r.slot_free[slot], down).map_err(driver("recording a download"))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), GemmError> {
        let r = &*self.runner;
        for s in [r.compute(), r.upload.cu_stream(), r.download.cu_stream()] {
            // SAFETY: a stream of this context.
            unsafe { result::stream::synchronize(s) }.map_err(driver("finishing the call"))?;
        }
        Ok(())
    }
}

/// The runner of device `ordinal`, opened on first use; `None` (said once)
/// when there is no driver or no such device.
fn runner(ordinal: usize) -> Option<&'static Mutex<Runner>> {
    static RUNNERS: [OnceLock<Option<Mutex<Runner>>>; MAX_DEVICES] = [const { OnceLock::new() }; MAX_DEVICES];
    RUNNERS
        .get(ordinal)?
        .get_or_init(|| match Runner::open(ordinal) {
            Ok(runner) => Some(Mutex::new(runner)),
            Err(e) => {
                backend::warn(&format!("no GPU {ordinal} ({e}); GEMMs run on the CPU"));
                None
            }
        })
        .as_ref()
}

/// Runs `f` with the `gemm-host` runner of device `ordinal` (on its compute
/// stream, the context bound), locked for the call: for work outside the
/// staging pipeline (a strided batch's). `None` when there is no such GPU.
pub(crate) fn with_gemm<R>(ordinal: usize, f: impl FnOnce(&Gemm) -> R) -> Option<R> {
    let runner = runner(ordinal)?;
    // A poisoned lock only means another thread panicked mid-call (caught
    // at its entry point); every call starts by waiting on its events.
    let runner = runner.lock().unwrap_or_else(|e| e.into_inner());
    runner.ctx.bind_to_thread().ok()?;
    Some(f(&runner.gemm))
}

/// How a GPU call ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// C is final.
    Done,
    /// No GPU: nothing was done.
    NoGpu,
    /// The GPU failed after `failure.done` chunks of `plan` were final.
    Failed(Failure, Plan),
}

/// Runs the checked column-major `cfg` (after `backend::unread_product`,
/// `m, n ≥ 1`) on GPU `ordinal` through the staging pipeline, cut as
/// `tuning` says; operands in device memory are used in place.
///
/// # Safety
/// As for [`staging::run`].
pub(crate) unsafe fn run<E: Scalar>(
    ordinal: usize,
    cfg: &GemmConfig<E>,
    tuning: Tuning,
    operands: [Operand<E>; 3],
) -> Outcome {
    let Some(runner) = runner(ordinal) else { return Outcome::NoGpu };
    // A poisoned lock only means another thread panicked mid-call (caught
    // at its entry point); every call starts by waiting on its events.
    let mut runner = runner.lock().unwrap_or_else(|e| e.into_inner());
    let plan = Plan::new(cfg, size_of::<E>(), cfg.beta != E::ZERO, tuning);
    if let Err(error) = runner.ctx.bind_to_thread() {
        return Outcome::Failed(
            Failure { error: GemmError::driver("binding the context")(error), done: 0 },
            plan,
        );
    }
    let mut call = Call::<E> { runner: &mut runner, _element: PhantomData };
    // SAFETY: the caller's contract.
    match unsafe { staging::run(&mut call, cfg, &plan, operands) } {
        Ok(()) => Outcome::Done,
        Err(failure) => {
            // Leave the streams idle for the next call, if the device still works.
            let _ = call.finish();
            static SAID: AtomicBool = AtomicBool::new(false);
            backend::warn_once(&SAID, &format!("the GPU failed ({}); running on the CPU", failure.error));
            Outcome::Failed(failure, plan)
        }
    }
}
