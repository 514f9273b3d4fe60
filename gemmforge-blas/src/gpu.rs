//! The GPU path (host buffers copied to the device, `gemm-host`'s tuned
//! kernel, C copied back) and the emulated one (the same checks, Table 2's
//! kernels in the PTX emulator).

use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, OnceLock};

use gemm_host::emulate::Emulator;
use gemm_host::{Gemm, GemmConfig, GemmError};

use crate::backend::{self, host_slices};
use crate::scalar::Scalar;

/// Runs the checked column-major `cfg` in the PTX emulator with the Table 2
/// kernel of its ops (small tiles: quick to emulate). Thread-safe: the
/// emulator is shared and parses each kernel once. On an error C is as it
/// was.
pub(crate) fn emulate<E: Scalar>(
    cfg: &GemmConfig<E>,
    (a, b, c): (&[E], &[E], &mut [E]),
) -> Result<(), GemmError> {
    static EMULATOR: OnceLock<Emulator> = OnceLock::new();
    let p = E::PRECISION;
    let image = gemm_kernels::table2(p, cfg.op_a.effective(p), cfg.op_b.effective(p)).image();
    EMULATOR.get_or_init(Emulator::new).gemm_image(&image, cfg, a, b, c).map(|_| ())
}

/// The GPU runner of device `ordinal`, opened on first use; `None` (said
/// once) when there is no driver or no such device.
fn device(ordinal: usize) -> Option<&'static Mutex<Gemm>> {
    static GPU: OnceLock<Option<Mutex<Gemm>>> = OnceLock::new();
    GPU.get_or_init(|| match Gemm::open(ordinal) {
        Ok(gemm) => Some(Mutex::new(gemm)),
        Err(e) => {
            backend::warn(&format!("no GPU ({e}); GEMMs run on the CPU"));
            None
        }
    })
    .as_ref()
}

/// Runs the checked column-major `cfg` on GPU `ordinal`; `false` (after one
/// warning per process) when there is no GPU or the GPU fails, with C as
/// it was.
///
/// # Safety
/// As for [`backend::run`], with `cfg` through [`backend::unread_product`].
pub(crate) unsafe fn run<E: Scalar>(
    ordinal: usize,
    cfg: &GemmConfig<E>,
    a: *const E,
    b: *const E,
    c: *mut E,
) -> bool {
    let Some(gpu) = device(ordinal) else { return false };
    // A poisoned lock only means another thread panicked mid-call (caught
    // at its entry point); the runner holds no state that call broke.
    let gemm = gpu.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: the caller's contract.
    let (a, b, c) = unsafe { host_slices(cfg, a, b, c) };
    match on_device(&gemm, cfg, a, b, c) {
        Ok(()) => true,
        Err(e) => {
            static SAID: AtomicBool = AtomicBool::new(false);
            backend::warn_once(&SAID, &format!("the GPU failed ({e}); running on the CPU"));
            false
        }
    }
}

fn on_device<E: Scalar>(
    gemm: &Gemm,
    cfg: &GemmConfig<E>,
    a: &[E],
    b: &[E],
    c: &mut [E],
) -> Result<(), GemmError> {
    // Empty A and B (k = 0) still get a buffer: nothing reads it.
    let upload = |x: &[E]| if x.is_empty() { gemm.alloc_zeros::<E>(1) } else { gemm.upload(x) };
    let (da, db) = (upload(a)?, upload(b)?);
    // C is uploaded unless beta = 0 and it has no gaps between columns:
    // the copy back must leave rows m..ldc as they were.
    let mut dc =
        if cfg.beta == E::ZERO && cfg.ldc == cfg.m { gemm.alloc_zeros::<E>(c.len())? } else { upload(c)? };
    gemm.gemm_default(cfg, &da, &db, &mut dc)?;
    let out = gemm.download(&dc)?;
    if out.len() == c.len() {
        c.copy_from_slice(&out);
    }
    Ok(())
}
