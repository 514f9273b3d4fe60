//! A strided batch on the GPU (each operand's whole span copied to the
//! device, `Gemm::gemm_strided_batched`, C's span copied back) and in the
//! PTX emulator (`Emulator::gemm_strided_batched` with Table 2's kernels),
//! beside [`crate::gpu`]'s single calls, whose runner it shares.

use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

use gemm_host::emulate::Emulator;
use gemm_host::validate::StridedBatch;
use gemm_host::{Gemm, GemmConfig, GemmError};

use crate::backend::{self, batch_slices};
use crate::gpu;
use crate::scalar::Scalar;

/// Runs the checked column-major batch in the PTX emulator with the Table 2
/// kernel of its ops, every problem in one emulated launch (chunks of 65535
/// problems). Thread-safe: the emulator is shared and parses each kernel
/// once. On an error C is as it was.
pub(crate) fn emulate<E: Scalar>(
    cfg: &GemmConfig<E>,
    batch: &StridedBatch,
    (a, b, c): (&[E], &[E], &mut [E]),
) -> Result<(), GemmError> {
    static EMULATOR: OnceLock<Emulator> = OnceLock::new();
    let p = E::PRECISION;
    let image = gemm_kernels::table2(p, cfg.op_a.effective(p), cfg.op_b.effective(p)).image();
    EMULATOR.get_or_init(Emulator::new).gemm_strided_batched(&image, cfg, batch, a, b, c).map(|_| ())
}

/// Runs the checked column-major batch on GPU `ordinal`; `false` (after one
/// warning per process) when there is no GPU or the GPU fails, with every C
/// as it was.
///
/// # Safety
/// As for [`backend::run_batch`], with `cfg` and `batch` through
/// [`backend::unread_product`] (A's and B's strides 0 when they are not read).
pub(crate) unsafe fn run<E: Scalar>(
    ordinal: usize,
    cfg: &GemmConfig<E>,
    batch: &StridedBatch,
    a: *const E,
    b: *const E,
    c: *mut E,
) -> bool {
    // SAFETY: the caller's contract.
    let ran = gpu::with_gemm(ordinal, |gemm| {
        // SAFETY: the caller's contract.
        unsafe { batch_slices(cfg, batch, a, b, c) }
            .and_then(|(a, b, c)| on_device(gemm, cfg, batch, a, b, c))
    });
    let Some(ran) = ran else { return false };
    match ran {
        Ok(()) => true,
        Err(e) => {
            static SAID: AtomicBool = AtomicBool::new(false);
            backend::warn_once(&SAID, &format!("the GPU failed on a batch ({e}); running on the CPU"));
            false
        }
    }
}

/// The batch on the device: every span uploaded (C too, whatever `beta`:
/// the copy back must leave the gaps between and inside its problems as
/// they were), one batched launch, C's span downloaded.
fn on_device<E: Scalar>(
    gemm: &Gemm,
    cfg: &GemmConfig<E>,
    batch: &StridedBatch,
    a: &[E],
    b: &[E],
    c: &mut [E],
) -> Result<(), GemmError> {
    // Empty A and B (k = 0) still get a buffer: nothing reads it.
    let upload = |x: &[E]| if x.is_empty() { gemm.alloc_zeros::<E>(1) } else { gemm.upload(x) };
    let (da, db, mut dc) = (upload(a)?, upload(b)?, upload(c)?);
    gemm.gemm_strided_batched(cfg, batch, &da, &db, &mut dc)?;
    let out = gemm.download(&dc)?;
    if out.len() == c.len() {
        c.copy_from_slice(&out);
    }
    Ok(())
}
