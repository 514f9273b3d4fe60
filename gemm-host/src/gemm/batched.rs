//! Strided-batched GEMMs and split K on the GPU: [`Pass`]es of
//! [`crate::pass`] given device addresses.

use std::sync::MutexGuard;

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use gemm_codegen::{Element, Op, Precision};

use super::{Gemm, with_buffers};
use crate::GemmConfig;
use crate::error::GemmError;
use crate::kernel::LoadedKernel;
use crate::pass::{MAX_SLICES, Pass, Place, SplitK, split_k};
use crate::validate::{self, Buffers, Checked, CheckedBatch, StridedBatch};

/// The device memory split K works in: a column of ones (for the
/// reduction's product) then the slices' partial products. Grown when a
/// call needs more, never shrunk, reused by every later call on the
/// runner's stream, which orders its uses.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    bytes: Option<CudaSlice<u8>>,
    /// The precision whose ones the first [`ONES_BYTES`] hold.
    ones: Option<Precision>,
}

/// Room for [`MAX_SLICES`] ones of the widest element, 256-byte aligned.
const ONES_BYTES: usize = (MAX_SLICES as usize * 16).next_multiple_of(256);

impl Gemm {
    /// `count` GEMMs `C_i = alpha · op(A_i) · op(B_i) + beta · C_i` in one
    /// launch (chunks of 65535 problems) with `kernel`, problem `i`'s
    /// matrices `i` strides into `a`, `b` and `c` (see
    /// [`validate::StridedBatch`], whose rules are checked first: no two
    /// Cs may share an element, every buffer must hold every problem).
    pub fn gemm_strided_batched_loaded<E: Element>(
        &self,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
        batch: &StridedBatch,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        self.check_kernel::<E>(kernel)?;
        with_buffers(&self.stream, a, b, c, |buffers| {
            let checked = validate::check_batch(cfg, batch, buffers, Some(kernel.image()))?;
            let CheckedBatch::Launch(batch) = checked else { return Ok(()) };
            let pass = Pass::of_batch(batch);
            // SAFETY: the buffers are live, borrowed for the call (C
            // exclusively); `check_batch` proved every problem within its
            // buffer and the Cs disjoint.
            unsafe { self.run_pass(kernel, &pass, &|place| address(buffers, place)) }
        })
    }

    /// [`Gemm::gemm_strided_batched_loaded`] with the kernel
    /// [`Gemm::default_kernel`] picks for one problem of the batch.
    pub fn gemm_strided_batched<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        batch: &StridedBatch,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        let kernel = self.load(&self.default_kernel(cfg).image())?;
        self.gemm_strided_batched_loaded(&kernel, cfg, batch, a, b, c)
    }

    /// `C = alpha · op(A) · op(B) + beta · C` with K split into at most
    /// `slices` slices ([`split_k`]): `kernel` computes every slice's
    /// product in one launch into the runner's workspace, and the Table 2
    /// FMA kernel of the precision adds them in slice order into C. The
    /// same inputs give bitwise the same C on every run. With fewer than two
    /// slices (or K too short to cut) it is [`Gemm::gemm_loaded`].
    pub fn gemm_split_k_loaded<E: Element>(
        &self,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
        slices: u32,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        self.check_kernel::<E>(kernel)?;
        with_buffers(&self.stream, a, b, c, |buffers| {
            let launch = match validate::check(cfg, buffers, Some(kernel.image()))? {
                Checked::Skip(_) => return Ok(()),
                Checked::Launch(launch) => launch,
            };
            let Some(split) = split_k(&launch, slices) else {
                let pass = Pass::single(launch, [Place::A, Place::B, Place::C]).with_operands(launch);
                // SAFETY: as in `launch_checked`.
                return unsafe { self.run_pass(kernel, &pass, &|place| address(buffers, place)) };
            };
            let reduce = self.load(&gemm_kernels::table2(E::PRECISION, Op::N, Op::N).image())?;
            let mut workspace = self.workspace_for::<E>(&split)?;
            let ws = workspace.bytes.as_mut().expect("sized by workspace_for");
            let (base, _use) = ws.device_ptr_mut(&self.stream);
            let at = |place: Place| match place {
                Place::Ones => base,
                Place::Partials => base + ONES_BYTES as u64,
                _ => address(buffers, place),
            };
            // SAFETY: the workspace holds the ones and `partials_len`
            // elements (`workspace_for`), is this runner's alone and used
            // in stream order; the caller's buffers as in
            // `gemm_strided_batched_loaded`, each slice's A and B within
            // the call's (the slices tile K).
            unsafe {
                self.run_pass(kernel, &split.partial, &at)?;
                self.run_pass(&reduce, &split.reduce, &at)
            }
        })
    }

    /// The workspace, holding `E`'s ones and room for `split`'s partials.
    fn workspace_for<E: Element>(&self, split: &SplitK<E>) -> Result<MutexGuard<'_, Workspace>, GemmError> {
        let mut ws = self.workspace.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let esz = E::PRECISION.element_bytes() as usize;
        let need = usize::try_from(split.partials_len())
            .ok()
            .and_then(|n| n.checked_mul(esz))
            .and_then(|n| n.checked_add(ONES_BYTES))
            .ok_or(GemmError::AllocTooLarge { len: usize::MAX, precision: E::PRECISION })?;
        if ws.bytes.as_ref().is_none_or(|b| b.len() < need) {
            let what = || format!("allocating a split-K workspace of {need} bytes");
            ws.bytes = Some(self.stream.alloc_zeros::<u8>(need).map_err(GemmError::driver(what()))?);
            ws.ones = None;
        }
        if ws.ones != Some(E::PRECISION) {
            let ones: Vec<u8> = (0..MAX_SLICES).flat_map(|_| element_bytes(E::ONE)).collect();
            let bytes = ws.bytes.as_mut().expect("allocated above");
            let mut head = bytes.slice_mut(0..ones.len());
            self.stream
                .memcpy_htod(&ones, &mut head)
                .map_err(GemmError::driver("writing the workspace's ones"))?;
            ws.ones = Some(E::PRECISION);
        }
        Ok(ws)
    }
}

/// The little-endian bytes of one element.
fn element_bytes<E: Element>(x: E) -> Vec<u8> {
    x.parts()
        .into_iter()
        .take(E::PRECISION.lanes() as usize)
        .flat_map(|p| {
            let v: f64 = p.into();
            if E::PRECISION.scalar_bytes() == 4 {
                (v as f32).to_le_bytes().to_vec()
            } else {
                v.to_le_bytes().to_vec()
            }
        })
        .collect()
}

/// The device address of a caller's matrix (of C for the workspace's
/// places, which a pass of the caller's buffers alone never names).
pub(super) fn address(buffers: &Buffers, place: Place) -> u64 {
    match place {
        Place::A => buffers.a.addr,
        Place::B => buffers.b.addr,
        Place::C | Place::Partials | Place::Ones => buffers.c.addr,
    }
}
