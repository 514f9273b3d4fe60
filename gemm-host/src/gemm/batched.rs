//! Strided-batched GEMMs and split K on the GPU: [`Pass`]es of
//! [`crate::pass`] given device addresses.

use std::sync::MutexGuard;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use gemm_codegen::{Element, Precision};

use super::{Gemm, check_context, with_buffers};
use crate::GemmConfig;
use crate::error::GemmError;
use crate::kernel::LoadedKernel;
use crate::pass::{MAX_SLICES, Pass, Place, SplitK, split_k};
use crate::validate::{self, Arg, BufferInfo, Buffers, Checked, CheckedBatch, StridedBatch};
use gemm_codegen::abi::Batch;

/// The device memory split K works in — a column of ones (for the
/// reduction's product) then the slices' partial products — and where a
/// pointer-array batch's arrays are uploaded (after the ones). Grown when a
/// call needs more, never shrunk, reused by every later call on the
/// runner's stream, which orders its uses.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    bytes: Option<CudaSlice<u8>>,
    /// The precision whose ones the first [`ONES_BYTES`] hold.
    ones: Option<Precision>,
    /// Stream-K's slots and counters ([`super::stream_k`]).
    pub(super) stream_k: super::stream_k::Space,
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
        // SAFETY: the buffers are live, borrowed for the call (C
        // exclusively, so it overlaps neither A nor B).
        with_buffers(&self.stream, a, b, c, |buffers| unsafe {
            self.launch_strided_batch(kernel, cfg, batch, buffers)
        })
    }

    /// [`Gemm::gemm_strided_batched`] on buffers given by address, for code
    /// ported from cuBLAS (`cublasGemmStridedBatchedEx`): every rule of
    /// [`validate::check_batch`] is checked but the buffers' lengths, which
    /// are unknown.
    ///
    /// # Safety
    /// `a`, `b`, `c` are device addresses in this runner's context, each
    /// valid for every problem's matrix (`(count − 1) · stride` elements
    /// and one problem's extent), C's span overlapping neither A's nor B's,
    /// with no conflicting access until the kernels finish.
    pub unsafe fn gemm_strided_batched_raw<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        batch: &StridedBatch,
        a: CUdeviceptr,
        b: CUdeviceptr,
        c: CUdeviceptr,
    ) -> Result<(), GemmError> {
        let kernel = self.load(&self.default_batch_kernel(cfg).image())?;
        self.check_kernel::<E>(&kernel)?;
        let buffers = Buffers {
            a: BufferInfo::unsized_at(a),
            b: BufferInfo::unsized_at(b),
            c: BufferInfo::unsized_at(c),
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_strided_batch(&kernel, cfg, batch, &buffers) }
    }

    /// The launches of a strided batch on `buffers`, after its checks.
    ///
    /// # Safety
    /// Each buffer in `buffers` is valid for its `len` elements (or, unsized,
    /// for every problem's matrix), C's span overlapping neither A's nor
    /// B's, with no conflicting access until the kernels finish.
    unsafe fn launch_strided_batch<E: Element>(
        &self,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
        batch: &StridedBatch,
        buffers: &Buffers,
    ) -> Result<(), GemmError> {
        let checked = validate::check_batch(cfg, batch, buffers, Some(kernel.image()))?;
        let CheckedBatch::Launch(batch) = checked else { return Ok(()) };
        let pass = Pass::of_batch(batch);
        let addr = |place| address(buffers, place);
        let aligned = pass.strided_operands_aligned(&kernel.image().requires(), &addr);
        // SAFETY: the caller's contract; `check_batch` proved every problem
        // within its buffer (where lengths are known) and the Cs disjoint.
        unsafe { self.run_pass(kernel, &pass, &addr, aligned) }
    }

    /// [`Gemm::gemm_strided_batched_loaded`] with the kernel
    /// [`Gemm::default_batch_kernel`] picks for the batch.
    pub fn gemm_strided_batched<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        batch: &StridedBatch,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        let kernel = self.load(&self.default_batch_kernel(cfg).image())?;
        self.gemm_strided_batched_loaded(&kernel, cfg, batch, a, b, c)
    }

    /// `C = alpha · op(A) · op(B) + beta · C` with K split into at most
    /// `slices` slices ([`split_k`]): `kernel` computes every slice's
    /// product in one launch into the runner's workspace, and the split-sum
    /// kernel of the precision (`gemm_kernels::split_sum`, FMA) adds them in
    /// slice order into C. The
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
        // SAFETY: live buffers of these lengths, borrowed for the call (C
        // exclusively, so it overlaps neither A nor B).
        with_buffers(&self.stream, a, b, c, |buffers| unsafe {
            self.launch_split(kernel, cfg, slices, buffers)
        })
    }

    /// Checks `cfg` on `buffers` and launches it with `kernel`, K split
    /// into at most `slices` slices ([`split_k`]; one pass when it does not
    /// split).
    ///
    /// # Safety
    /// Each buffer in `buffers` is a device address in this context valid
    /// for its `len` elements of `E` (or, when `len` is `None`, for the
    /// extent its matrix spans), C overlapping neither A nor B, with no
    /// conflicting access until the kernels finish.
    pub(crate) unsafe fn launch_split<E: Element>(
        &self,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
        slices: u32,
        buffers: &Buffers,
    ) -> Result<(), GemmError> {
        let launch = match validate::check(cfg, buffers, Some(kernel.image()))? {
            Checked::Skip(_) => return Ok(()),
            Checked::Launch(launch) => launch,
        };
        let stream_k = matches!(kernel.image().launch().order, gemm_codegen::BlockOrder::StreamK { .. });
        if stream_k && slices <= 1 {
            // SAFETY: this function's contract, `launch` checked above.
            return unsafe { self.launch_stream_k(kernel, launch, buffers) };
        }
        let Some(split) = split_k(&launch, slices) else {
            let pass = Pass::single(launch, [Place::A, Place::B, Place::C]).with_operands(launch);
            let addr = |place| address(buffers, place);
            let aligned = pass.strided_operands_aligned(&kernel.image().requires(), &addr);
            // SAFETY: this function's contract; `check` proved each matrix
            // within its buffer.
            return unsafe { self.run_pass(kernel, &pass, &addr, aligned) };
        };
        let reduce = self.load(&gemm_kernels::split_sum(E::PRECISION).image())?;
        let mut workspace = self.workspace_for::<E>(&split)?;
        let ws = workspace.bytes.as_mut().expect("sized by workspace_for");
        let (base, _use) = ws.device_ptr_mut(&self.stream);
        let at = |place: Place| match place {
            Place::Ones => base,
            Place::Partials => base + ONES_BYTES as u64,
            _ => address(buffers, place),
        };
        // SAFETY: the workspace holds the ones and `partials_len` elements
        // (`workspace_for`), is this runner's alone and used in stream
        // order; the caller's buffers by this function's contract, each
        // slice's A and B within the call's (the slices tile K).
        unsafe {
            let aligned = split.partial.strided_operands_aligned(&kernel.image().requires(), &at);
            self.run_pass(kernel, &split.partial, &at, aligned)?;
            let aligned = split.reduce.strided_operands_aligned(&reduce.image().requires(), &at);
            self.run_pass(&reduce, &split.reduce, &at, aligned)
        }
    }

    /// `C_i = alpha · op(A_i) · op(B_i) + beta · C_i` for every `i`, the
    /// matrices separate buffers of one shape (`cublasGemmBatchedEx`'s
    /// arrays of pointers), in one launch per 65535 problems with `kernel`,
    /// which reads each problem's matrices through arrays of device
    /// pointers the runner uploads into its workspace. Every problem passes
    /// all of [`validate`]'s rules first ([`validate::check_arrays`]: the
    /// three slices of one length, each buffer holding its matrix); the
    /// borrows make every C distinct from the others and from every A and B.
    pub fn gemm_batched_loaded<E, A, B, C>(
        &self,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
        a: &[A],
        b: &[B],
        c: &mut [C],
    ) -> Result<(), GemmError>
    where
        E: Element,
        A: DevicePtr<E>,
        B: DevicePtr<E>,
        C: DevicePtrMut<E>,
    {
        self.check_kernel::<E>(kernel)?;
        for x in a {
            check_context(Arg::A, &self.stream, x.stream())?;
        }
        for x in b {
            check_context(Arg::B, &self.stream, x.stream())?;
        }
        for x in c.iter() {
            check_context(Arg::C, &self.stream, x.stream())?;
        }
        let lens = [a.len(), b.len(), c.len()];
        // The guards order the launches after earlier work on the buffers
        // and record them as this call's when dropped.
        let pa: Vec<_> = a.iter().map(|x| (x.device_ptr(&self.stream), x.len())).collect();
        let pb: Vec<_> = b.iter().map(|x| (x.device_ptr(&self.stream), x.len())).collect();
        let pc: Vec<_> = c
            .iter_mut()
            .map(|x| {
                let len = x.len();
                (x.device_ptr_mut(&self.stream), len)
            })
            .collect();
        let buffers: Vec<Buffers> = pa
            .iter()
            .zip(&pb)
            .zip(&pc)
            .map(|((((a, _), la), ((b, _), lb)), ((c, _), lc))| Buffers {
                a: BufferInfo::new(*a, *la),
                b: BufferInfo::new(*b, *lb),
                c: BufferInfo::new(*c, *lc),
            })
            .collect();
        let CheckedBatch::Launch(batch) = validate::check_arrays(cfg, lens, &buffers, Some(kernel.image()))?
        else {
            return Ok(());
        };
        let launch = batch.launch;
        let (first, second) = launch.operands(&pa, &pb);
        let ptrs = |xs: &[((u64, _), usize)]| xs.iter().map(|((p, _), _)| *p).collect::<Vec<u64>>();
        let (first, second, third) = (ptrs(first), ptrs(second), ptrs(&pc));
        // The kernel assuming aligned operands runs only if every problem's are.
        let requires = kernel.image().requires();
        let aligned =
            first.iter().zip(&second).all(|(&x, &y)| requires.operands_aligned(x, y, launch.lda, launch.ldb));
        // The kernel's three arrays (a, b, c) one after another.
        let count = batch.count;
        let table: Vec<u8> =
            first.iter().chain(&second).chain(&third).flat_map(|p| p.to_le_bytes()).collect();
        let mut workspace = self.workspace(ONES_BYTES + table.len())?;
        let ws = workspace.bytes.as_mut().expect("sized by workspace");
        self.stream
            .memcpy_htod(&table, &mut ws.slice_mut(ONES_BYTES..ONES_BYTES + table.len()))
            .map_err(GemmError::driver("uploading the pointer arrays"))?;
        let (base, _use) = ws.device_ptr_mut(&self.stream);
        let at = |place: Place| {
            let array = |i: u64| base + ONES_BYTES as u64 + i * 8 * count;
            match place {
                Place::A => array(0),
                Place::B => array(1),
                _ => array(2),
            }
        };
        let pass = Pass {
            launch,
            places: [Place::A, Place::B, Place::C],
            batch: Batch {
                stride_a: 0,
                stride_b: 0,
                stride_c: 0,
                k_last: launch.k,
                arrays: true,
                problems: 1,
            },
            problems: count,
        };
        // SAFETY: the arrays hold, in the kernel's operand order, the
        // addresses of live buffers of this context borrowed for the call
        // (every C exclusively), each checked to hold its matrix; the table
        // lies in this runner's workspace, written on this stream before the
        // launch.
        unsafe { self.run_pass(kernel, &pass, &at, aligned) }
    }

    /// [`Gemm::gemm_batched_loaded`] with the kernel
    /// [`Gemm::default_batch_kernel`] picks for the batch.
    pub fn gemm_batched<E, A, B, C>(
        &self,
        cfg: &GemmConfig<E>,
        a: &[A],
        b: &[B],
        c: &mut [C],
    ) -> Result<(), GemmError>
    where
        E: Element,
        A: DevicePtr<E>,
        B: DevicePtr<E>,
        C: DevicePtrMut<E>,
    {
        let kernel = self.load(&self.default_batch_kernel(cfg).image())?;
        self.gemm_batched_loaded(&kernel, cfg, a, b, c)
    }

    /// The workspace, at least `need` bytes.
    /// The runner's workspace, locked (a poisoned lock is taken over: the
    /// workspace holds no invariant a panic can break).
    pub(super) fn workspace_lock(&self) -> MutexGuard<'_, Workspace> {
        self.workspace.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn workspace(&self, need: usize) -> Result<MutexGuard<'_, Workspace>, GemmError> {
        let mut ws = self.workspace_lock();
        if ws.bytes.as_ref().is_none_or(|b| b.len() < need) {
            let what = || format!("allocating a workspace of {need} bytes");
            ws.bytes = Some(self.stream.alloc_zeros::<u8>(need).map_err(GemmError::driver(what()))?);
            ws.ones = None;
        }
        Ok(ws)
    }

    /// The workspace, holding `E`'s ones and room for `split`'s partials.
    fn workspace_for<E: Element>(&self, split: &SplitK<E>) -> Result<MutexGuard<'_, Workspace>, GemmError> {
        let esz = E::PRECISION.element_bytes() as usize;
        let need = usize::try_from(split.partials_len())
            .ok()
            .and_then(|n| n.checked_mul(esz))
            .and_then(|n| n.checked_add(ONES_BYTES))
            .ok_or(GemmError::AllocTooLarge { len: usize::MAX, precision: E::PRECISION })?;
        let mut ws = self.workspace(need)?;
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
