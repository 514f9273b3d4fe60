//! Bespoke kernels on the GPU: loaded through the loader and per-context
//! cache of the GEMM kernels, launched with their ABI's arguments.

use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{DevicePtr, DevicePtrMut, LaunchConfig};
use gemm_codegen::Element;
use gemm_codegen::abi::{Batch, GemmValues};
use gemm_codegen::bespoke::BespokeImage;

use super::{BespokeCall, BespokeKernel, BespokeLaunch, CheckedBespoke, check};
use crate::error::GemmError;
use crate::gemm::{Gemm, check_context, launch_abi};
use crate::kernel::{self, LoadedBespoke};
use crate::validate::{Arg, ArgError, BufferInfo, Buffers};

impl Gemm {
    /// Loads a bespoke kernel's image into the context (once per context,
    /// like [`Gemm::load`]) and reports what the JIT made of it.
    pub fn load_bespoke(&self, image: &BespokeImage) -> Result<Arc<LoadedBespoke>, GemmError> {
        self.bespoke.get_or_load(image, || kernel::load(self.context(), self.device(), image))
    }

    /// `C = alpha · A · B + beta · C` with the bespoke kernel `kernel`, whose
    /// element type the buffers must have: B (`k × n`) and C (`m × n`)
    /// row-major, `call`'s `n`, `ldb`, `ldc` and scalars.
    ///
    /// Every rule of [`check`](super::check) is checked first, and nothing
    /// is launched on error. Arguments that miss the kernel's vector
    /// alignment run its unaligned twin; `alpha = 0` runs the GEMM of
    /// `k = 0` (C = `beta · C`, B not read). Asynchronous on the stream,
    /// like every GEMM.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use gemm_host::bespoke::{BespokeCall, BespokeKernel, BespokeSpec, Operator};
    /// use gemm_host::{Gemm, Precision};
    ///
    /// # fn main() -> Result<(), gemm_host::GemmError> {
    /// let gemm = Gemm::open(0)?;
    /// let a = Arc::new(Operator::from_fn(8, 4, |i, j| if (i + j) % 3 == 0 { 0.5 } else { 0.0 }).unwrap());
    /// let kernel = BespokeKernel::compile(a, &BespokeSpec::new(Precision::F64))?;
    /// let n = 100_000;
    /// let b = gemm.upload(&vec![1.0f64; 4 * n])?;
    /// let mut c = gemm.alloc_zeros::<f64>(8 * n)?;
    /// gemm.bespoke(&kernel, &BespokeCall::new(n as i64), &b, &mut c)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn bespoke<E: Element>(
        &self,
        kernel: &BespokeKernel,
        call: &BespokeCall<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        check_context(Arg::B, &self.stream, b.stream())?;
        check_context(Arg::C, &self.stream, c.stream())?;
        let (b_len, c_len) = (b.len(), c.len());
        let (b_ptr, _b_use) = b.device_ptr(&self.stream);
        let (c_ptr, _c_use) = c.device_ptr_mut(&self.stream);
        // SAFETY: live buffers of these lengths in this context, borrowed
        // for the call (C exclusively).
        unsafe { self.bespoke_at(kernel, call, BufferInfo::new(b_ptr, b_len), BufferInfo::new(c_ptr, c_len)) }
    }

    /// The raw-pointer layer of [`Gemm::bespoke`], for code that holds
    /// device addresses: the same checks except buffer lengths, which are
    /// unknown.
    ///
    /// # Safety
    /// - `b` and `c` are device addresses in this runner's context, valid
    ///   for B's and C's extents (`(k − 1) · ldb + n` and `(m − 1) · ldc +
    ///   n` elements of `E`) until the kernel has finished;
    /// - nothing else accesses C, or writes B, until then (the launch is
    ///   asynchronous on [`Gemm::stream`] and takes no part in cudarc's
    ///   event tracking).
    pub unsafe fn bespoke_raw<E: Element>(
        &self,
        kernel: &BespokeKernel,
        call: &BespokeCall<E>,
        b: CUdeviceptr,
        c: CUdeviceptr,
    ) -> Result<(), GemmError> {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.bespoke_at(kernel, call, BufferInfo::unsized_at(b), BufferInfo::unsized_at(c)) }
    }

    /// Checks `call` on buffers `b` and `c` and runs it.
    ///
    /// # Safety
    /// `b` and `c` are device addresses in this context valid for their
    /// `len` elements of `E` (or, unsized, for their matrices' extents),
    /// with no conflicting access until the kernels finish.
    pub(crate) unsafe fn bespoke_at<E: Element>(
        &self,
        kernel: &BespokeKernel,
        call: &BespokeCall<E>,
        b: BufferInfo,
        c: BufferInfo,
    ) -> Result<(), GemmError> {
        match check(kernel.image(), call, b, c)? {
            CheckedBespoke::Skip(_) => Ok(()),
            CheckedBespoke::ScaleC(cfg) => {
                // k = 0: the GEMM reads neither A nor B (neither has an
                // element), and C only for beta ≠ 0.
                let buffers =
                    Buffers { a: BufferInfo::unsized_at(b.addr), b: BufferInfo::unsized_at(b.addr), c };
                // SAFETY: C as this function's contract says; A and B empty.
                unsafe { self.launch_default(&cfg, &buffers) }
            }
            CheckedBespoke::Launch(launch) => {
                let loaded = self.loaded_bespoke(kernel, launch.aligned)?;
                // SAFETY: `check` proved B and C within their buffers,
                // apart, and aligned as `loaded` assumes.
                unsafe { self.launch_bespoke(&loaded, &launch, b.addr, c.addr) }
            }
        }
    }

    /// `kernel`'s image (or, unless `aligned`, its twin) loaded into this
    /// context: looked up in the kernel's own list, so that a call hashes
    /// no PTX text.
    pub(crate) fn loaded_bespoke(
        &self,
        kernel: &BespokeKernel,
        aligned: bool,
    ) -> Result<Arc<LoadedBespoke>, GemmError> {
        let ctx = self.context().cu_ctx() as usize;
        let slot = |s: &mut super::kernel::Slots| if aligned { s.main.clone() } else { s.twin.clone() };
        if let Some(k) = kernel.slots(ctx, slot) {
            return Ok(k);
        }
        let loaded = self.load_bespoke(kernel.variant(aligned)?)?;
        kernel.slots(ctx, |s| {
            let place = if aligned { &mut s.main } else { &mut s.twin };
            *place = Some(Arc::clone(&loaded));
        });
        Ok(loaded)
    }

    /// Launches a checked call of `kernel` with B at `b` and C at `c`.
    ///
    /// # Safety
    /// `launch` was checked for `kernel` on buffers at `b` and `c` that stay
    /// valid and unconflicted until the kernel finishes.
    unsafe fn launch_bespoke<E: Element>(
        &self,
        kernel: &LoadedBespoke,
        launch: &BespokeLaunch<E>,
        b: u64,
        c: u64,
    ) -> Result<(), GemmError> {
        kernel.launchable()?;
        let image = kernel.image();
        let shape = image.launch();
        let grid_dim = image.grid(launch.n).map_err(|o| ArgError::GridTooLarge {
            arg: Arg::N,
            value: i64::from(launch.n),
            axis: o.axis,
            blocks: o.blocks,
            tile: shape.tile.1,
            max: o.max,
        })?;
        let wide = |x: E| x.parts().map(Into::<f64>::into);
        let values = GemmValues {
            a: 0, // A is in the code: the bespoke ABI has no pointer to it
            b,
            c,
            m: image.m,
            n: launch.n,
            k: image.k,
            lda: 0,
            ldb: launch.ldb,
            ldc: launch.ldc,
            alpha: wide(launch.alpha),
            beta: wide(launch.beta),
            batch: Batch::single(image.k),
            stream_k: None,
        };
        let args = image.abi().args(&values);
        let config =
            LaunchConfig { grid_dim, block_dim: shape.block, shared_mem_bytes: shape.dynamic_shared_bytes };
        // SAFETY: the arguments are the kernel's ABI (`Abi::bespoke` of its
        // precision, checked equal to `E`'s) in order and type; the grid is
        // the image's for `n`, the block and shared memory its own. The
        // generated kernel touches only B's `k × n` and C's `m × n` elements
        // at the given strides (`gemm_codegen::bespoke` invariant), with
        // vectors of its width, which `check` proved aligned (else this is
        // the twin), and reads C only for beta ≠ 0. Validity and
        // exclusivity of the buffers are this function's contract.
        unsafe { launch_abi(&self.stream, kernel, config, &args) }
    }
}
