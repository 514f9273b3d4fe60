//! Stream-K kernels (`schedule = stream_k`) on the GPU: one launch whose
//! blocks — as many as the device holds at once — share the problem's
//! stripes out evenly (`gemm_codegen::stream_k`), with the runner's slots
//! for partial tiles and its arrival counters.

use cudarc::driver::{CudaSlice, DevicePtrMut, LaunchConfig};
use gemm_codegen::Element;
use gemm_codegen::abi::StreamK;
use gemm_codegen::stream_k::StreamKGrid;

use super::batched::address;
use super::{Gemm, launch_abi, launch_args};
use crate::error::GemmError;
use crate::kernel::LoadedKernel;
use crate::pass::{Pass, Place};
use crate::validate::{Buffers, Launch};

/// A runner's stream-K memory: slots (any contents) and counters (zeroed
/// when allocated; every launch leaves them zero, so a grown or reused
/// buffer needs no clearing). Grown when a call needs more, never shrunk.
#[derive(Debug, Default)]
pub(crate) struct Space {
    slots: Option<CudaSlice<u8>>,
    counters: Option<CudaSlice<u8>>,
}

impl Gemm {
    /// How this runner shares `launch` out with the stream-K `kernel`: over
    /// the blocks of it the device holds at once. `None` when there is
    /// nothing to compute or the problem has more stripes than the kernel
    /// counts (the caller then runs the kernel a tile a block).
    pub fn stream_k_grid<E: Element>(
        &self,
        kernel: &LoadedKernel,
        m: u32,
        n: u32,
        k: u32,
    ) -> Option<StreamKGrid> {
        let resident = self.device.sm_count.saturating_mul(kernel.info().blocks_per_sm.max(1));
        kernel.image().launch().stream_k(m, n, k, E::PRECISION.element_bytes(), resident)
    }

    /// Runs the checked `launch` with the stream-K `kernel` (or its twin
    /// for misaligned operands) on [`Gemm::stream_k_grid`]'s grid; a tile
    /// a block when that has none.
    ///
    /// # Safety
    /// As for `launch_split`: `launch` was checked against `buffers`, each
    /// valid for its matrix's extent, C overlapping neither A nor B, with no
    /// conflicting access until the kernel finishes.
    pub(crate) unsafe fn launch_stream_k<E: Element>(
        &self,
        kernel: &LoadedKernel,
        launch: Launch<E>,
        buffers: &Buffers,
    ) -> Result<(), GemmError> {
        let pass = Pass::single(launch, [Place::A, Place::B, Place::C]).with_operands(launch);
        let addr = |place| address(buffers, place);
        let aligned = pass.strided_operands_aligned(&kernel.image().requires(), &addr);
        let Some(grid) = self.stream_k_grid::<E>(kernel, launch.m, launch.n, launch.k) else {
            // SAFETY: this function's contract (`share = 0`: a tile a block).
            return unsafe { self.run_pass(kernel, &pass, &addr, aligned) };
        };
        let twin = if aligned { None } else { Some(self.unaligned_twin(kernel)?) };
        let kernel = twin.as_deref().unwrap_or(kernel);
        kernel.launchable()?;
        let mut workspace = self.workspace_lock();
        let space = &mut workspace.stream_k;
        self.grow_stream_k_space(space, &grid, E::PRECISION)?;
        let (slots, _slots_use) = space.slots.as_mut().expect("grown above").device_ptr_mut(&self.stream);
        let (counters, _counters_use) =
            space.counters.as_mut().expect("grown above").device_ptr_mut(&self.stream);
        let image = kernel.image();
        let sk = StreamK { slots, counters, share: grid.share };
        let args = launch_args(&pass.launch, &image.abi(), pass.places.map(addr), pass.batch, Some(sk));
        let config = LaunchConfig {
            grid_dim: (grid.blocks, 1, 1),
            block_dim: image.launch().block,
            shared_mem_bytes: image.launch().dynamic_shared_bytes,
        };
        // SAFETY: the arguments are the kernel's ABI (`Abi::gemm_stream_k`
        // of its precision, checked equal to `E`'s) in order and type; the
        // grid is the one `share` was computed for, so every block's stripes
        // lie in the problem and its slots (2 a block) and the tiles'
        // counters in the runner's space, sized for this grid and used in
        // stream order; the matrices by this function's contract.
        unsafe { launch_abi(&self.stream, kernel, config, &args) }
    }

    /// Grows `space`'s slots and counters (these zeroed) to what `grid`
    /// needs.
    fn grow_stream_k_space(
        &self,
        space: &mut Space,
        grid: &StreamKGrid,
        precision: gemm_codegen::Precision,
    ) -> Result<(), GemmError> {
        let too_large = || GemmError::AllocTooLarge { len: usize::MAX, precision };
        let need = |n: u64| usize::try_from(n).map_err(|_| too_large());
        let (slots_len, counters_len) =
            (need(grid.slots_bytes())?.max(1), need(grid.counters_bytes())?.max(1));
        for (buf, len, what) in [
            (&mut space.slots, slots_len, "stream-K slots"),
            (&mut space.counters, counters_len, "stream-K counters"),
        ] {
            if buf.as_ref().is_none_or(|b| b.len() < len) {
                let alloc = self.stream.alloc_zeros::<u8>(len);
                *buf = Some(alloc.map_err(GemmError::driver(format!("allocating {len} bytes of {what}")))?);
            }
        }
        Ok(())
    }
}
