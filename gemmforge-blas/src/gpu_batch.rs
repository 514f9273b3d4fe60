//! A strided batch on the GPU (each operand's whole span copied to the
//! device, `Gemm::gemm_strided_batched`, C's span copied back) and in the
//! PTX emulator (`Emulator::gemm_strided_batched` with Table 2's kernels),
//! beside [`crate::gpu`]'s single calls, whose runner it shares.

use std::sync::atomic::AtomicBool;

use cudarc::driver::{CudaSlice, DevicePtr};
use gemm_host::validate::StridedBatch;
use gemm_host::{Gemm, GemmConfig, GemmError};

use crate::backend;
use crate::gpu;
use crate::pointers::Memory;
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
    let p = E::PRECISION;
    let image = gemm_kernels::table2(p, cfg.op_a.effective(p), cfg.op_b.effective(p)).image();
    crate::emulated::emulator().gemm_strided_batched(&image, cfg, batch, a, b, c).map(|_| ())
}

/// Runs the checked column-major batch on GPU `ordinal`, each operand in
/// `memory`: device memory used in place, host memory copied; `false`
/// (after one warning per process) when there is no GPU or the GPU fails,
/// with every host C as it was.
///
/// # Safety
/// As for [`backend::run_batch`], with `cfg` and `batch` through
/// [`backend::unread_product`] (A's and B's strides 0 when they are not
/// read); operands in device memory live on GPU `ordinal`.
pub(crate) unsafe fn run<E: Scalar>(
    ordinal: usize,
    cfg: &GemmConfig<E>,
    batch: &StridedBatch,
    (a, b, c): (*const E, *const E, *mut E),
    memory: [Memory; 3],
) -> bool {
    let ran = gpu::with_gemm(ordinal, |gemm| {
        // SAFETY: the caller's contract.
        unsafe { on_device(gemm, cfg, batch, (a, b, c), memory) }
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

/// The batch on the device: every host operand's span uploaded (C too,
/// whatever `beta`: the copy back must leave the gaps between and inside
/// its problems as they were), device operands used where they are, one
/// batched launch, a host C's span downloaded.
///
/// # Safety
/// As for [`run`].
unsafe fn on_device<E: Scalar>(
    gemm: &Gemm,
    cfg: &GemmConfig<E>,
    batch: &StridedBatch,
    (a, b, c): (*const E, *const E, *mut E),
    memory: [Memory; 3],
) -> Result<(), GemmError> {
    let spans = backend::batch_spans(cfg, batch)?;
    let pointers = [a, b, c.cast_const()];
    let mut copies: [Option<CudaSlice<E>>; 3] = [None, None, None];
    let mut addresses = [0u64; 3];
    for i in 0..3 {
        addresses[i] = match memory[i] {
            Memory::Device { .. } => pointers[i] as u64,
            Memory::Host => {
                let copy = if spans[i] == 0 || pointers[i].is_null() {
                    // Nothing is read (k = 0): any address will do.
                    gemm.alloc_zeros::<E>(1)?
                } else {
                    // SAFETY: the caller's contract: the span is the operand's.
                    gemm.upload(unsafe { std::slice::from_raw_parts(pointers[i], spans[i]) })?
                };
                let address = copy.device_ptr(gemm.stream()).0;
                copies[i] = Some(copy);
                address
            }
        };
    }
    let [da, db, dc] = addresses;
    // SAFETY: device addresses of this context holding every problem (the
    // copies alive in `copies`, the caller's device memory by contract).
    unsafe { gemm.gemm_strided_batched_raw(cfg, batch, da, db, dc) }?;
    match &copies[2] {
        Some(copy) if spans[2] > 0 => {
            let out = gemm.download(copy)?;
            // SAFETY: the caller's contract: C's span is the caller's, written by nobody else.
            let c = unsafe { std::slice::from_raw_parts_mut(c, spans[2]) };
            if out.len() >= c.len() {
                c.copy_from_slice(&out[..c.len()]);
            }
            Ok(())
        }
        _ => gemm.synchronize(),
    }
}
