//! [`Gemm`]: launching generated kernels on a stream.

use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig};
use gemm_codegen::{Element, GemmKernel, KernelImage, Precision};
use gemm_kernels::{Dispatch, KernelEntry};
use num_complex::Complex;

use crate::config::GemmConfig;
use crate::device::{self, DeviceInfo};
use crate::error::GemmError;
use crate::kernel::{self, KernelCache, LoadedBespoke, LoadedKernel};
use crate::memory;
use crate::pass::{Pass, Place, SplitRule};
use crate::validate::{Arg, BufferInfo, Buffers};

mod args;
mod batched;
mod stream_k;

use args::launch_args;
pub(crate) use args::{launch_abi, maps_describe};

/// Runs gemmforge GEMMs on one CUDA stream: the BLAS-faithful, safe entry
/// point of the crate.
///
/// Create one per stream with [`Gemm::new`] (or [`Gemm::open`] for the
/// default stream of a device). It knows its device ([`Gemm::device`]) and
/// loads each kernel's PTX into the context once, on first use: every
/// `Gemm` on the same context shares the loaded kernels. Every GEMM method checks
/// all of [`crate::validate`]'s rules and launches nothing on error, leaving
/// the caller's buffers untouched. Launches are asynchronous on the stream,
/// ordered with cudarc's buffer events like any cudarc operation.
///
/// ```no_run
/// use gemm_host::{Gemm, GemmConfig, Op};
///
/// # fn main() -> Result<(), gemm_host::GemmError> {
/// let gemm = Gemm::open(0)?;
/// let (m, n, k) = (1000, 500, 300);
/// let cfg = GemmConfig::new(Op::N, Op::T, m, n, k).alpha(2.0f32);
/// let a = gemm.upload(&vec![1.0f32; cfg.a_len()])?;
/// let b = gemm.upload(&vec![1.0f32; cfg.b_len()])?;
/// let mut c = gemm.alloc_zeros::<f32>(cfg.c_len())?;
/// gemm.sgemm(&cfg, &a, &b, &mut c)?;
/// assert!(gemm.download(&c)?.iter().all(|&x| x == 600.0));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Gemm {
    pub(crate) stream: Arc<CudaStream>,
    device: Arc<DeviceInfo>,
    cache: Arc<KernelCache>,
    /// The bespoke kernels loaded into the context.
    pub(crate) bespoke: Arc<KernelCache<LoadedBespoke>>,
    /// Split K's partial products, this runner's (its stream's) alone.
    workspace: Arc<std::sync::Mutex<batched::Workspace>>,
    /// Which kernel a default call runs ([`Gemm::with_dispatch`]).
    dispatch: Dispatch,
    /// How a default call splits K ([`Gemm::with_split`]).
    split: SplitRule,
}

impl Gemm {
    /// A GEMM runner on `stream`; reads the device's attributes.
    pub fn new(stream: Arc<CudaStream>) -> Result<Gemm, GemmError> {
        let device = DeviceInfo::query(stream.context())?;
        let cache = KernelCache::for_context(stream.context());
        let bespoke = KernelCache::for_context(stream.context());
        Ok(Gemm {
            stream,
            device: Arc::new(device),
            cache,
            bespoke,
            workspace: Arc::default(),
            dispatch: Dispatch::TUNED,
            split: SplitRule::Auto,
        })
    }

    /// A GEMM runner on the default stream of device `ordinal`, or
    /// [`GemmError::NoGpu`] saying why there is none (never a panic, also
    /// without a CUDA driver).
    pub fn open(ordinal: usize) -> Result<Gemm, GemmError> {
        Gemm::new(device::open(ordinal)?.default_stream())
    }

    /// The same runner on another stream (without querying the device again
    /// when the stream is of the same context).
    /// The runner's dispatch and split rule come along.
    pub fn with_stream(&self, stream: Arc<CudaStream>) -> Result<Gemm, GemmError> {
        if stream.context() != self.stream.context() {
            return Ok(Gemm::new(stream)?.with_dispatch(self.dispatch).with_split(self.split));
        }
        // A workspace of its own: work on another stream is not ordered
        // with this one's.
        Ok(Gemm {
            stream,
            device: Arc::clone(&self.device),
            cache: Arc::clone(&self.cache),
            bespoke: Arc::clone(&self.bespoke),
            workspace: Arc::default(),
            dispatch: self.dispatch,
            split: self.split,
        })
    }

    /// This runner choosing its default calls' kernels by `dispatch`
    /// instead of [`Dispatch::TUNED`] (the generated tables): the way to
    /// give some shapes a kernel of one's own, beside the tuned classes or
    /// instead of them (see [`Dispatch`]). It applies to everything that
    /// picks a kernel itself — [`Gemm::sgemm`] … [`Gemm::zgemm`],
    /// [`Gemm::gemm_default`], the raw-pointer and batched entry points —
    /// not to calls given a kernel.
    pub fn with_dispatch(mut self, dispatch: Dispatch) -> Gemm {
        self.dispatch = dispatch;
        self
    }

    /// This runner splitting its default calls' K by `split` instead of
    /// [`SplitRule::Auto`] (e.g. [`SplitRule::Never`], for one kernel per
    /// call and no workspace).
    pub fn with_split(mut self, split: SplitRule) -> Gemm {
        self.split = split;
        self
    }

    /// The rule picking this runner's default kernels.
    pub fn dispatch(&self) -> Dispatch {
        self.dispatch
    }

    /// The rule splitting this runner's default calls' K.
    pub fn split(&self) -> SplitRule {
        self.split
    }

    /// The stream launches go to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The stream's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        self.stream.context()
    }

    /// The device and its limits.
    pub fn device(&self) -> &DeviceInfo {
        &self.device
    }

    /// Waits for everything queued on the stream.
    pub fn synchronize(&self) -> Result<(), GemmError> {
        self.stream.synchronize().map_err(GemmError::driver("synchronizing the stream"))
    }

    /// Loads `image` into the context (once; later calls return the cached
    /// kernel) and reports what the JIT made of it. The kernel may still be
    /// unable to launch: see [`LoadedKernel::launchable`].
    pub fn load(&self, image: &KernelImage) -> Result<Arc<LoadedKernel>, GemmError> {
        self.cache.get_or_load(image, || kernel::load(self.context(), &self.device, image))
    }

    /// [`Gemm::load`] from `cubin`, `image`'s PTX already assembled by
    /// `ptxas` for this device's architecture, which skips the driver's
    /// JIT (seconds for a large kernel): how `cargo xtask tune` loads the
    /// candidates its pruning assembled. The caller vouches that `cubin` is
    /// that PTX's; the kernel is cached under `image` like a JIT-loaded one.
    pub fn load_assembled(&self, image: &KernelImage, cubin: &[u8]) -> Result<Arc<LoadedKernel>, GemmError> {
        self.cache.get_or_load(image, || {
            kernel::load_code(self.context(), &self.device, image, kernel::Code::Cubin(cubin))
        })
    }

    /// Number of kernels loaded into this runner's context (by any `Gemm`).
    pub fn loaded_kernels(&self) -> usize {
        self.cache.len()
    }

    /// `C = alpha · op(A) · op(B) + beta · C` with the `gemm_kernel!` kernel
    /// `K`, whose element type the buffers must have.
    ///
    /// `cfg`'s ops must be `K`'s (for a row-major call, swapped: see
    /// [`GemmConfig::to_column_major`]).
    pub fn gemm<K: GemmKernel>(
        &self,
        cfg: &GemmConfig<K::Elem>,
        a: &impl DevicePtr<K::Elem>,
        b: &impl DevicePtr<K::Elem>,
        c: &mut impl DevicePtrMut<K::Elem>,
    ) -> Result<(), GemmError> {
        let kernel = self.load(&K::image())?;
        self.gemm_loaded(&kernel, cfg, a, b, c)
    }

    /// Like [`Gemm::gemm`], for a kernel generated at run time. Its
    /// precision is checked against `E` ([`GemmError::PrecisionMismatch`]).
    pub fn gemm_image<E: Element>(
        &self,
        image: &KernelImage,
        cfg: &GemmConfig<E>,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        check_precision::<E>(image.requires().precision, &image.entry)?;
        let kernel = self.load(image)?;
        self.gemm_loaded(&kernel, cfg, a, b, c)
    }

    /// Like [`Gemm::gemm_image`], for a kernel already loaded with
    /// [`Gemm::load`] (the tuner's loop).
    pub fn gemm_loaded<E: Element>(
        &self,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        self.check_kernel::<E>(kernel)?;
        // SAFETY: the addresses and lengths come from live buffers of this
        // context, borrowed for the whole call (C exclusively, so it overlaps
        // neither A nor B), and `validate::check` (inside) proves each long
        // enough for its matrix.
        with_buffers(&self.stream, a, b, c, |buffers| unsafe { self.launch_split(kernel, cfg, 1, buffers) })
    }

    /// The raw-pointer layer of [`Gemm::gemm_loaded`], for code ported from
    /// cuBLAS: the same argument checks except buffer lengths, which are
    /// unknown.
    ///
    /// # Safety
    /// - `a`, `b` and `c` are device addresses in this runner's context, each
    ///   valid for the whole extent its matrix spans
    ///   ([`GemmConfig::required_len`] elements of `E`) until the kernel has
    ///   finished;
    /// - C's extent overlaps neither A's nor B's;
    /// - nothing else accesses C, or writes A or B, until the kernel has
    ///   finished (the launch is asynchronous on [`Gemm::stream`] and does
    ///   not take part in cudarc's event tracking).
    pub unsafe fn gemm_loaded_raw<E: Element>(
        &self,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
        a: CUdeviceptr,
        b: CUdeviceptr,
        c: CUdeviceptr,
    ) -> Result<(), GemmError> {
        self.check_kernel::<E>(kernel)?;
        let buffers = Buffers {
            a: BufferInfo::unsized_at(a),
            b: BufferInfo::unsized_at(b),
            c: BufferInfo::unsized_at(c),
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_split(kernel, cfg, 1, &buffers) }
    }

    /// Launches every chunk of `pass` with `kernel` — or, unless `aligned`
    /// (every problem's A and B meet the kernel's alignment), with its
    /// family's twin that assumes none — its matrices at the device
    /// addresses `addr` gives for their places.
    ///
    /// # Safety
    /// `pass` was checked (its shape by [`validate`], its problems within
    /// the buffers at `addr`, C's problems disjoint from each other and from
    /// A's and B's), `aligned` is true only if every problem's operands are,
    /// and the buffers stay valid and unconflicted until the kernels finish.
    pub(crate) unsafe fn run_pass<E: Element>(
        &self,
        kernel: &LoadedKernel,
        pass: &Pass<E>,
        addr: &dyn Fn(Place) -> u64,
        aligned: bool,
    ) -> Result<(), GemmError> {
        let launch = &pass.launch;
        let [a, b, c] = pass.places.map(addr);
        let batch = pass.batch;
        let esz = u64::from(E::PRECISION.element_bytes());
        // A chunk starts `first` problems in: strides of elements, or 8-byte
        // slots of pointer arrays.
        let at = |chunk: &crate::pass::Chunk, base: u64, stride: u64| {
            base + chunk.first * if batch.arrays { 8 } else { stride * esz }
        };
        let abc = |chunk: &crate::pass::Chunk| {
            [at(chunk, a, batch.stride_a), at(chunk, b, batch.stride_b), at(chunk, c, batch.stride_c)]
        };
        // A kernel may assume A and B aligned beyond one element (runs of
        // `ldg_width` elements), and one that copies by tensor maps that
        // they describe every chunk: where not, its family's twin that
        // assumes nothing runs instead.
        let described = maps_describe(&kernel.image().abi(), pass);
        let twin = if aligned && described { None } else { Some(self.unaligned_twin(kernel)?) };
        let kernel = twin.as_deref().unwrap_or(kernel);
        kernel.launchable()?;
        let image = kernel.image();
        let (abi, shape) = (image.abi(), image.launch());
        for chunk in pass.chunks() {
            let grid_dim = shape.batch_grid(launch.m, launch.n, chunk.count).map_err(|o| {
                crate::validate::grid_too_large(o, &shape, launch.swap_ab, (launch.m, launch.n), chunk.count)
            })?;
            let args = launch_args(launch, &abi, abc(&chunk), chunk.batch, None);
            let config = LaunchConfig {
                grid_dim,
                block_dim: shape.block,
                shared_mem_bytes: shape.dynamic_shared_bytes,
            };
            // SAFETY: the arguments are the kernel's ABI (`Abi::gemm` of its
            // precision, checked equal to `E`'s) in order and type, with a
            // grid within the hardware's limits, the spec's block and the
            // dynamic shared memory the image declares (its limit raised at
            // load). The pass was checked to keep each problem within its
            // buffer; the generated kernel never accesses elements outside
            // its problems' matrices (`gemm_codegen` invariant), reads A and
            // B only for k > 0 and C only for beta ≠ 0. Buffer validity and
            // exclusivity are this function's contract.
            unsafe { launch_abi(&self.stream, kernel, config, &args)? };
        }
        Ok(())
    }

    /// `kernel`'s twin for operands it cannot assume aligned, generated and
    /// loaded once per spec.
    fn unaligned_twin(&self, kernel: &LoadedKernel) -> Result<Arc<LoadedKernel>, GemmError> {
        self.cache.get_or_load_twin(kernel.image(), |image| kernel::load(self.context(), &self.device, image))
    }

    fn check_kernel<E: Element>(&self, kernel: &LoadedKernel) -> Result<(), GemmError> {
        check_precision::<E>(kernel.image().requires().precision, kernel.entry())?;
        if kernel.belongs_to(self.context()) {
            Ok(())
        } else {
            Err(GemmError::ForeignKernel { kernel: kernel.entry().to_owned() })
        }
    }

    /// The kernel [`Gemm::sgemm`] and its siblings run `cfg` with: the
    /// runner's [`Dispatch`] ([`Gemm::with_dispatch`]; by default the tuned
    /// tables, [`Dispatch::TUNED`]) for this device's architecture,
    /// the precision, the call's column-major ops (after the row-major
    /// swap), its shape and its form (whether beta ≠ 0 makes it read C).
    /// Of the kernels tuned for the device family, the one tuned nearest the
    /// call's shape, in its form where one is near; else the Table 2 kernel
    /// of the op pair.
    pub fn default_kernel<E: Element>(&self, cfg: &GemmConfig<E>) -> &'static KernelEntry {
        let (col, shape) = column_shape(cfg);
        self.dispatch.kernel_for(self.device.arch(), E::PRECISION, col.op_a, col.op_b, shape, cfg.form())
    }

    /// `C = alpha · op(A) · op(B) + beta · C` with the default kernel for the
    /// precision and ops ([`Gemm::default_kernel`]): the generic form of
    /// [`Gemm::sgemm`], [`Gemm::dgemm`], [`Gemm::cgemm`], [`Gemm::zgemm`].
    pub fn gemm_default<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        a: &impl DevicePtr<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        // SAFETY: live buffers of these lengths, borrowed for the call (C
        // exclusively, so it overlaps neither A nor B).
        with_buffers(&self.stream, a, b, c, |buffers| unsafe { self.launch_default(cfg, buffers) })
    }

    /// [`Gemm::gemm_default`] on buffers given by address: the default
    /// kernel for the call, K split as [`Gemm::default_slices`] says.
    ///
    /// # Safety
    /// As for `launch_split`: each buffer in `buffers` is valid for its
    /// `len` elements (or, unsized, for its matrix's extent), C overlapping
    /// neither A nor B, with no conflicting access until the kernels finish.
    pub(crate) unsafe fn launch_default<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        buffers: &Buffers,
    ) -> Result<(), GemmError> {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_entry(self.default_kernel(cfg), cfg, buffers) }
    }

    /// [`Gemm::launch_default`] with `entry` instead of the default kernel
    /// (K split as [`Gemm::slices_for`] says for it).
    ///
    /// # Safety
    /// As for [`Gemm::launch_default`].
    pub(crate) unsafe fn launch_entry<E: Element>(
        &self,
        entry: &KernelEntry,
        cfg: &GemmConfig<E>,
        buffers: &Buffers,
    ) -> Result<(), GemmError> {
        let kernel = self.load(&entry.image())?;
        self.check_kernel::<E>(&kernel)?;
        let slices = self.slices_for(entry, &kernel, cfg);
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_split(&kernel, cfg, slices, buffers) }
    }

    /// The kernel a batch of `cfg` problems runs with
    /// ([`Gemm::gemm_strided_batched`], [`Gemm::gemm_batched`]): the
    /// runner's [`Dispatch::batch_kernel_for`], where the classes tuned on
    /// batches of small problems join [`Gemm::default_kernel`]'s choice.
    pub fn default_batch_kernel<E: Element>(&self, cfg: &GemmConfig<E>) -> &'static KernelEntry {
        let (col, shape) = column_shape(cfg);
        self.dispatch.batch_kernel_for(
            self.device.arch(),
            E::PRECISION,
            col.op_a,
            col.op_b,
            shape,
            cfg.form(),
        )
    }

    /// The slices [`Gemm::gemm_default`] splits `cfg`'s K into when it runs
    /// the class `entry` (loaded as `kernel`): the class's tuned split
    /// ([`KernelEntry::slices`], [`crate::pass::tuned_slices`]) where the
    /// runner's rule is [`SplitRule::Auto`] and the call has no more tiles
    /// than the class's shape; else [`Gemm::default_slices`].
    pub fn slices_for<E: Element>(
        &self,
        entry: &KernelEntry,
        kernel: &LoadedKernel,
        cfg: &GemmConfig<E>,
    ) -> u32 {
        let launch = kernel.image().launch();
        let tiles = |m: u32, n: u32| {
            let (tm, tn) = launch.tiles(m, n);
            tm * tn
        };
        let col = cfg.to_column_major();
        let dim = |d: i64| u32::try_from(d).unwrap_or(u32::MAX);
        let [cm, cn, _] = entry.tuned_for;
        crate::pass::tuned_slices(self.split, entry.slices, tiles(dim(col.m), dim(col.n)), tiles(cm, cn))
            .unwrap_or_else(|| self.default_slices(kernel, cfg))
    }

    /// The slices [`Gemm::gemm_default`] splits `cfg`'s K into with
    /// `kernel` where no tuned split applies ([`Gemm::slices_for`]): the
    /// runner's [`SplitRule`] ([`Gemm::with_split`]; by default
    /// [`crate::pass::default_slices`] of the kernel's tiles for the call
    /// and the blocks of it this device holds at once); 1 for no split, and
    /// for a stream-K kernel, which shares K out itself.
    pub fn default_slices<E: Element>(&self, kernel: &LoadedKernel, cfg: &GemmConfig<E>) -> u32 {
        if matches!(kernel.image().launch().order, gemm_codegen::BlockOrder::StreamK { .. }) {
            return 1;
        }
        let col = cfg.to_column_major();
        let dim = |d: i64| u32::try_from(d).unwrap_or(0);
        let (tm, tn) = kernel.image().launch().tiles(dim(col.m), dim(col.n));
        let resident = u64::from(self.device.sm_count) * u64::from(kernel.info().blocks_per_sm.max(1));
        self.split.slices(tm * tn, u64::try_from(col.k).unwrap_or(0), resident)
    }

    /// SGEMM: `C = alpha · op(A) · op(B) + beta · C` on `f32`, any ops and layout.
    pub fn sgemm(
        &self,
        cfg: &GemmConfig<f32>,
        a: &impl DevicePtr<f32>,
        b: &impl DevicePtr<f32>,
        c: &mut impl DevicePtrMut<f32>,
    ) -> Result<(), GemmError> {
        self.gemm_default(cfg, a, b, c)
    }

    /// DGEMM: `C = alpha · op(A) · op(B) + beta · C` on `f64`, any ops and layout.
    pub fn dgemm(
        &self,
        cfg: &GemmConfig<f64>,
        a: &impl DevicePtr<f64>,
        b: &impl DevicePtr<f64>,
        c: &mut impl DevicePtrMut<f64>,
    ) -> Result<(), GemmError> {
        self.gemm_default(cfg, a, b, c)
    }

    /// CGEMM: `C = alpha · op(A) · op(B) + beta · C` on `Complex<f32>`, any
    /// ops (`C` conjugates) and layout.
    pub fn cgemm(
        &self,
        cfg: &GemmConfig<Complex<f32>>,
        a: &impl DevicePtr<Complex<f32>>,
        b: &impl DevicePtr<Complex<f32>>,
        c: &mut impl DevicePtrMut<Complex<f32>>,
    ) -> Result<(), GemmError> {
        self.gemm_default(cfg, a, b, c)
    }

    /// ZGEMM: `C = alpha · op(A) · op(B) + beta · C` on `Complex<f64>`, any
    /// ops (`C` conjugates) and layout.
    pub fn zgemm(
        &self,
        cfg: &GemmConfig<Complex<f64>>,
        a: &impl DevicePtr<Complex<f64>>,
        b: &impl DevicePtr<Complex<f64>>,
        c: &mut impl DevicePtrMut<Complex<f64>>,
    ) -> Result<(), GemmError> {
        self.gemm_default(cfg, a, b, c)
    }

    /// HGEMM: `C = alpha · op(A) · op(B) + beta · C` on `half::f16`, any ops
    /// and layout, products and sums in f32 (`cublasGemmEx` with
    /// `CUBLAS_COMPUTE_32F`). Hopper only (sm_90a): elsewhere
    /// [`GemmError::ArchMismatch`]. A and B are copied by the tensor memory
    /// accelerator: 16-byte aligned, `lda` and `ldb` multiples of 8, else
    /// [`GemmError::TmaOperands`].
    pub fn hgemm(
        &self,
        cfg: &GemmConfig<half::f16>,
        a: &impl DevicePtr<half::f16>,
        b: &impl DevicePtr<half::f16>,
        c: &mut impl DevicePtrMut<half::f16>,
    ) -> Result<(), GemmError> {
        self.gemm_default(cfg, a, b, c)
    }

    /// [`Gemm::hgemm`] on `half::bf16`.
    pub fn bgemm(
        &self,
        cfg: &GemmConfig<half::bf16>,
        a: &impl DevicePtr<half::bf16>,
        b: &impl DevicePtr<half::bf16>,
        c: &mut impl DevicePtrMut<half::bf16>,
    ) -> Result<(), GemmError> {
        self.gemm_default(cfg, a, b, c)
    }

    /// The raw-pointer form of [`Gemm::gemm_default`], for code ported from
    /// cuBLAS: `cublasSgemm(h, ta, tb, m, n, k, &alpha, A, lda, B, ldb,
    /// &beta, C, ldc)` becomes `gemm.gemm_raw(&GemmConfig::new(ta, tb, m, n,
    /// k).alpha(alpha).lda(lda).ldb(ldb).beta(beta).ldc(ldc), a, b, c)`,
    /// with the same kernel and the same split of K. Every argument rule is
    /// checked except buffer lengths, which are unknown.
    ///
    /// # Safety
    /// As for [`Gemm::gemm_loaded_raw`]: `a`, `b`, `c` are device addresses
    /// in this runner's context valid for their matrices' extents
    /// ([`GemmConfig::required_len`] elements), C overlapping neither A nor
    /// B, with no conflicting access until the kernel has finished.
    pub unsafe fn gemm_raw<E: Element>(
        &self,
        cfg: &GemmConfig<E>,
        a: CUdeviceptr,
        b: CUdeviceptr,
        c: CUdeviceptr,
    ) -> Result<(), GemmError> {
        let buffers = Buffers {
            a: BufferInfo::unsized_at(a),
            b: BufferInfo::unsized_at(b),
            c: BufferInfo::unsized_at(c),
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_default(cfg, &buffers) }
    }

    /// Allocates `len` zeroed elements on this runner's stream
    /// ([`memory::alloc_zeros`]).
    pub fn alloc_zeros<E: Element>(&self, len: usize) -> Result<CudaSlice<E>, GemmError> {
        memory::alloc_zeros(&self.stream, len)
    }

    /// Copies `host` to a new device buffer ([`memory::upload`]).
    pub fn upload<E: Element>(&self, host: &[E]) -> Result<CudaSlice<E>, GemmError> {
        memory::upload(&self.stream, host)
    }

    /// Copies `host` into `dst` ([`memory::upload_into`]).
    pub fn upload_into<E: Element>(
        &self,
        host: &[E],
        dst: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        memory::upload_into(&self.stream, host, dst)
    }

    /// Copies a device buffer to the host, waiting for it ([`memory::download`]).
    pub fn download<E: Element>(&self, src: &impl DevicePtr<E>) -> Result<Vec<E>, GemmError> {
        memory::download(&self.stream, src)
    }

    /// Times what `work` queues on this runner's stream, in milliseconds,
    /// with CUDA events (see [`crate::timing::time`]).
    pub fn time<R>(&self, work: impl FnOnce() -> Result<R, GemmError>) -> Result<(R, f32), GemmError> {
        crate::timing::time(&self.stream, work)
    }
}

/// Checks that A, B and C live in `stream`'s context and runs `f` with
/// their device addresses and lengths. The pointer guards make the stream
/// wait for earlier writes (and, for C, reads) on other streams, and record
/// this use when dropped after `f` has queued its work.
pub(crate) fn with_buffers<E, R>(
    stream: &Arc<CudaStream>,
    a: &impl DevicePtr<E>,
    b: &impl DevicePtr<E>,
    c: &mut impl DevicePtrMut<E>,
    f: impl FnOnce(&Buffers) -> Result<R, GemmError>,
) -> Result<R, GemmError> {
    check_context(Arg::A, stream, a.stream())?;
    check_context(Arg::B, stream, b.stream())?;
    check_context(Arg::C, stream, c.stream())?;
    let (a_len, b_len, c_len) = (a.len(), b.len(), c.len());
    let (a_ptr, _a_use) = a.device_ptr(stream);
    let (b_ptr, _b_use) = b.device_ptr(stream);
    let (c_ptr, _c_use) = c.device_ptr_mut(stream);
    f(&Buffers {
        a: BufferInfo::new(a_ptr, a_len),
        b: BufferInfo::new(b_ptr, b_len),
        c: BufferInfo::new(c_ptr, c_len),
    })
}

/// Fails unless the buffer of `arg`, used with `stream`, lives in `ours`'s context.
pub(crate) fn check_context(arg: Arg, ours: &CudaStream, theirs: &Arc<CudaStream>) -> Result<(), GemmError> {
    if theirs.context() == ours.context() {
        Ok(())
    } else {
        Err(GemmError::WrongContext {
            arg,
            buffer_device: theirs.context().ordinal(),
            stream_device: ours.context().ordinal(),
        })
    }
}

/// Fails unless a kernel of `precision` (entry `entry`) computes on `E`.
pub(crate) fn check_precision<E: Element>(precision: Precision, entry: &str) -> Result<(), GemmError> {
    if precision == E::PRECISION {
        Ok(())
    } else {
        Err(GemmError::PrecisionMismatch {
            kernel: entry.to_owned(),
            kernel_precision: precision,
            buffers: E::PRECISION,
        })
    }
}

/// `cfg` as the column-major call a kernel computes, and its `(m, n, k)`
/// for the dispatch (negative dimensions as 0: the launch's checks refuse
/// them later).
fn column_shape<E: Element>(cfg: &GemmConfig<E>) -> (GemmConfig<E>, (u64, u64, u64)) {
    let col = cfg.to_column_major();
    let dim = |d: i64| u64::try_from(d).unwrap_or(0);
    let shape = (dim(col.m), dim(col.n), dim(col.k));
    (col, shape)
}

#[cfg(test)]
mod tests {
    use gemm_codegen::abi::{Abi, Arg as AbiArg, Batch};
    use gemm_codegen::{Op, Precision};

    use super::*;
    use crate::validate::Launch;

    fn launch<E: Element>(alpha: E, beta: E) -> Launch<E> {
        Launch {
            op_a: Op::N,
            op_b: Op::N,
            m: 1,
            n: 1,
            k: 1,
            lda: 1,
            ldb: 1,
            ldc: 1,
            alpha,
            beta,
            swap_ab: false,
            grid: None,
        }
    }

    /// The scalars of the arguments, as bits of their own width.
    fn scalar_bits(args: &[AbiArg<u64>]) -> Vec<u64> {
        args.iter()
            .filter_map(|a| match *a {
                AbiArg::F32(x) => Some(u64::from(x.to_bits())),
                AbiArg::F64(x) => Some(x.to_bits()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn arguments_follow_the_abi() {
        let f32s = |v: &[f32]| v.iter().map(|x| u64::from(x.to_bits())).collect::<Vec<_>>();
        let f64s = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let args = launch_args(
            &launch(2.0f32, 3.0),
            &Abi::gemm(Precision::F32),
            [10, 20, 30],
            Batch::single(1),
            None,
        );
        assert_eq!(args[..3], [AbiArg::Pointer(10), AbiArg::Pointer(20), AbiArg::Pointer(30)]);
        assert_eq!(scalar_bits(&args), f32s(&[2.0, 3.0]));
        let args =
            launch_args(&launch(2.0f64, 3.0), &Abi::gemm(Precision::F64), [0; 3], Batch::single(1), None);
        assert_eq!(scalar_bits(&args), f64s(&[2.0, 3.0]));
        let c = launch(Complex::new(1.0f32, 2.0), Complex::new(3.0, 4.0));
        assert_eq!(
            scalar_bits(&launch_args(&c, &Abi::gemm(Precision::C32), [0; 3], Batch::single(1), None)),
            f32s(&[1.0, 2.0, 3.0, 4.0])
        );
        let tiny = f32::from_bits(1);
        let odd = launch(Complex::new(tiny, -0.0f32), Complex::new(f32::NAN, 4.0));
        assert_eq!(
            scalar_bits(&launch_args(&odd, &Abi::gemm(Precision::C32), [0; 3], Batch::single(1), None)),
            f32s(&[tiny, -0.0, f32::NAN, 4.0])
        );
        let z = launch(Complex::new(1.0f64, 2.0), Complex::new(3.0, 4.0));
        assert_eq!(
            scalar_bits(&launch_args(&z, &Abi::gemm(Precision::C64), [0; 3], Batch::single(1), None)),
            f64s(&[1.0, 2.0, 3.0, 4.0])
        );
        for precision in Precision::EVERY {
            let args = match precision {
                Precision::F32 => {
                    launch_args(&launch(1.0f32, 0.0), &Abi::gemm(precision), [0; 3], Batch::single(1), None)
                }
                Precision::F64 => {
                    launch_args(&launch(1.0f64, 0.0), &Abi::gemm(precision), [0; 3], Batch::single(1), None)
                }
                Precision::C32 => launch_args(
                    &launch(Complex::<f32>::ONE, Complex::ZERO),
                    &Abi::gemm(precision),
                    [0; 3],
                    Batch::single(1),
                    None,
                ),
                Precision::C64 => launch_args(
                    &launch(Complex::<f64>::ONE, Complex::ZERO),
                    &Abi::gemm(precision),
                    [0; 3],
                    Batch::single(1),
                    None,
                ),
                Precision::F16 => launch_args(
                    &launch(half::f16::ONE, half::f16::ZERO),
                    &Abi::gemm(precision),
                    [0; 3],
                    Batch::single(1),
                    None,
                ),
                Precision::Bf16 => launch_args(
                    &launch(half::bf16::ONE, half::bf16::ZERO),
                    &Abi::gemm(precision),
                    [0; 3],
                    Batch::single(1),
                    None,
                ),
            };
            let types: Vec<_> = args.iter().map(AbiArg::ty).collect();
            let want: Vec<_> = Abi::gemm(precision).params().iter().map(|p| p.ty).collect();
            assert_eq!(types, want, "{precision}");
        }
    }
}
