//! Loading a kernel's PTX into a context, once, and what the JIT made of it.

use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use std::borrow::Cow;

use cudarc::driver::sys::{self, CUjit_option};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::Ptx;
use gemm_codegen::bespoke::{BespokeImage, BespokeSpec};
use gemm_codegen::{KernelImage, KernelSpec, LaunchShape, Target};

use crate::device::DeviceInfo;
use crate::error::GemmError;

/// What the driver's JIT made of a kernel: the real resource use that the
/// tuner records and prunes on (`cuFuncGetAttribute`), and the occupancy it
/// allows (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelInfo {
    /// Registers per thread.
    pub registers: u32,
    /// Local memory per thread, in bytes: register spills (the stencil
    /// itself uses none).
    pub local_bytes: u32,
    /// Shared memory per block, in bytes: static, plus the dynamic bytes
    /// every launch passes.
    pub shared_bytes: u32,
    /// Of those, the dynamic bytes each launch passes.
    pub dynamic_shared_bytes: u32,
    /// Constant memory, in bytes.
    pub const_bytes: u32,
    /// The most threads per block this function can be launched with, given
    /// its registers.
    pub max_threads_per_block: u32,
    /// PTX ISA version the function was compiled from, `10 · major + minor`.
    pub ptx_version: u32,
    /// SASS architecture it was compiled to, e.g. 90.
    pub binary_version: u32,
    /// Threads per block of the kernel's launches.
    pub block_threads: u32,
    /// Blocks of that size resident per SM (0: cannot launch).
    pub blocks_per_sm: u32,
    /// Warps resident per SM.
    pub warps_per_sm: u32,
    /// `warps_per_sm` over the SM's warp capacity, in `[0, 1]`.
    pub occupancy: f64,
    /// Wall-clock time of the module load (the PTX JIT, or loading a cubin).
    pub load_time: Duration,
}

/// What the loader needs of a kernel image: its entry, PTX, architecture
/// and launch shape. GEMM kernels ([`KernelImage`]) and bespoke constant-A
/// kernels ([`BespokeImage`]) load, and are cached, through the same code.
#[derive(Clone, Copy, Debug)]
pub struct CodeView<'a> {
    /// The `.entry` name.
    pub entry: &'a Cow<'static, str>,
    /// The PTX module text.
    pub ptx: &'a Cow<'static, str>,
    /// The oldest architecture it runs on.
    pub arch: Target,
    /// How it is launched (block, dynamic shared memory).
    pub launch: LaunchShape,
}

/// A kernel image the loader takes ([`CodeView`]): [`KernelImage`] or
/// [`BespokeImage`]. Sealed.
pub trait KernelCode: Clone + fmt::Debug + sealed::Sealed {
    /// The parts the loader reads.
    fn code(&self) -> CodeView<'_>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for gemm_codegen::KernelImage {}
    impl Sealed for gemm_codegen::bespoke::BespokeImage {}
}

impl KernelCode for KernelImage {
    fn code(&self) -> CodeView<'_> {
        CodeView { entry: &self.entry, ptx: &self.ptx, arch: self.requires().arch, launch: self.launch() }
    }
}

impl KernelCode for BespokeImage {
    fn code(&self) -> CodeView<'_> {
        CodeView { entry: &self.entry, ptx: &self.ptx, arch: self.requires().arch, launch: self.launch() }
    }
}

/// A kernel loaded into a context, ready to launch: a GEMM kernel (the
/// default, `I` = [`KernelImage`]) or a bespoke one ([`LoadedBespoke`]).
#[derive(Debug)]
pub struct LoadedKernel<I: KernelCode = KernelImage> {
    pub(crate) function: CudaFunction,
    /// What it was loaded from: its ABI, launch shape and requirements
    /// drive every launch.
    pub(crate) image: I,
    info: KernelInfo,
    /// The `CUcontext` it was loaded into.
    context: usize,
}

/// A bespoke constant-A kernel loaded into a context
/// ([`crate::Gemm::load_bespoke`]).
pub type LoadedBespoke = LoadedKernel<BespokeImage>;

impl LoadedKernel {
    /// The spec it was generated from.
    pub fn spec(&self) -> &KernelSpec {
        &self.image.spec
    }
}

impl LoadedBespoke {
    /// The spec it was generated from.
    pub fn spec(&self) -> &BespokeSpec {
        &self.image.spec
    }
}

impl<I: KernelCode> LoadedKernel<I> {
    /// The image it was loaded from.
    pub fn image(&self) -> &I {
        &self.image
    }

    /// Its entry name.
    pub fn entry(&self) -> &str {
        self.image.code().entry
    }

    /// Resource use and occupancy as the driver reports them.
    pub fn info(&self) -> &KernelInfo {
        &self.info
    }

    /// The driver function, for callers that launch it themselves.
    pub fn function(&self) -> &CudaFunction {
        &self.function
    }

    /// Whether it was loaded into `ctx` (and so can run on its streams).
    pub fn belongs_to(&self, ctx: &CudaContext) -> bool {
        self.context == ctx.cu_ctx() as usize
    }

    /// Whether its block can run on the device: no more threads than its
    /// registers allow, and at least one block per SM. Every GEMM launch
    /// checks this first. (Its shared memory was checked when it was loaded:
    /// a kernel needing more than the device allows one block never loads.)
    pub fn launchable(&self) -> Result<(), GemmError> {
        let info = &self.info;
        let reason = if info.block_threads > info.max_threads_per_block {
            format!(
                "its {} registers per thread allow at most {} threads per block",
                info.registers, info.max_threads_per_block
            )
        } else if info.blocks_per_sm == 0 {
            "no block fits on a multiprocessor".to_owned()
        } else {
            return Ok(());
        };
        Err(GemmError::Unlaunchable {
            kernel: self.entry().to_owned(),
            reason,
            threads: info.block_threads,
            registers: info.registers,
            shared_bytes: info.shared_bytes,
        })
    }
}

/// The machine code a kernel is loaded from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Code<'a> {
    /// The image's PTX, assembled by the driver's JIT (the normal path).
    Jit,
    /// The image's PTX already assembled by `ptxas` for the device's
    /// architecture (a cubin), which the caller vouches for.
    Cubin(&'a [u8]),
}

/// Loads `image` into `ctx` and reads back what the JIT made of it.
pub(crate) fn load<I: KernelCode>(
    ctx: &Arc<CudaContext>,
    device: &DeviceInfo,
    image: &I,
) -> Result<LoadedKernel<I>, GemmError> {
    load_code(ctx, device, image, Code::Jit)
}

/// [`load`], from `code`.
pub(crate) fn load_code<I: KernelCode>(
    ctx: &Arc<CudaContext>,
    device: &DeviceInfo,
    image: &I,
    code: Code<'_>,
) -> Result<LoadedKernel<I>, GemmError> {
    let view = image.code();
    let kernel = view.entry.to_string();
    let (arch, device_sm) = (view.arch, device.compute_capability.sm());
    if !arch.runs_on(device_sm) {
        return Err(GemmError::ArchMismatch { kernel, arch, device: device.compute_capability });
    }
    if let Some(offset) = view.ptx.find('\0') {
        return Err(GemmError::PtxNul { kernel, offset });
    }
    let start = Instant::now();
    let module = match code {
        Code::Jit => ctx.load_module(Ptx::from_src(view.ptx.as_ref())).map_err(|source| {
            if source.0 == sys::cudaError_enum::CUDA_ERROR_UNSUPPORTED_PTX_VERSION {
                let ptx = ptx_version(view.ptx).unwrap_or("?").to_owned();
                return GemmError::PtxTooNew {
                    kernel: kernel.clone(),
                    ptx,
                    driver: device.driver_version_pair(),
                };
            }
            GemmError::Load { log: jit_error_log(ctx, view.ptx), kernel: kernel.clone(), source }
        })?,
        Code::Cubin(cubin) => {
            ctx.load_module(Ptx::from_binary(cubin.to_vec())).map_err(|source| GemmError::Load {
                log: format!("the driver rejected the {}-byte cubin given for it", cubin.len()),
                kernel: kernel.clone(),
                source,
            })?
        }
    };
    let load_time = start.elapsed();
    let function = module.load_function(view.entry).map_err(|source| GemmError::Load {
        log: format!("the module has no entry `{}`", view.entry),
        kernel: kernel.clone(),
        source,
    })?;

    let attr = |what: &str, r: Result<i32, DriverError>| {
        r.map(|v| v.max(0) as u32).map_err(GemmError::driver(format!("reading {what} of kernel `{kernel}`")))
    };
    let registers = attr("the register count", function.num_regs())?;
    let static_shared = attr("the shared memory size", function.shared_size_bytes())?;
    let launch = view.launch;
    let dynamic = launch.dynamic_shared_bytes;
    let (bx, by, bz) = launch.block;
    let block_threads = bx * by * bz;
    check_shared(&kernel, static_shared.saturating_add(dynamic), block_threads, registers, device)?;
    if dynamic > 0 {
        // Fits an i32: with the static bytes, within the limit checked above.
        function
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            )
            .map_err(GemmError::driver(format!(
                "raising the dynamic shared memory limit of kernel `{kernel}`"
            )))?;
    }
    let blocks_per_sm = function
        .occupancy_max_active_blocks_per_multiprocessor(block_threads, dynamic as usize, None)
        .map_err(GemmError::driver(format!("computing the occupancy of kernel `{kernel}`")))?;
    let warps_per_block = block_threads.div_ceil(device.warp_size.max(1));
    let warps_per_sm = blocks_per_sm * warps_per_block;
    let max_warps = device.max_warps_per_sm();
    let info = KernelInfo {
        registers,
        local_bytes: attr("the local memory size", function.local_size_bytes())?,
        shared_bytes: static_shared + dynamic,
        dynamic_shared_bytes: dynamic,
        const_bytes: attr("the constant memory size", function.const_size_bytes())?,
        max_threads_per_block: attr("the thread limit", function.max_threads_per_block())?,
        ptx_version: attr("the PTX version", function.ptx_version())?,
        binary_version: attr("the binary version", function.binary_version())?,
        block_threads,
        blocks_per_sm,
        warps_per_sm,
        occupancy: if max_warps == 0 { 0.0 } else { f64::from(warps_per_sm) / f64::from(max_warps) },
        load_time,
    };
    Ok(LoadedKernel { function, image: image.clone(), info, context: ctx.cu_ctx() as usize })
}

/// Fails with [`GemmError::Unlaunchable`] unless `shared_bytes`, a block's
/// shared memory (static and dynamic), fits what `device` allows one block
/// once the kernel opts in, as [`load`] does for its dynamic bytes. The one
/// shared-memory check: every [`LoadedKernel`] has passed it.
fn check_shared(
    kernel: &str,
    shared_bytes: u32,
    threads: u32,
    registers: u32,
    device: &DeviceInfo,
) -> Result<(), GemmError> {
    let limit = device.shared_per_block_optin.max(device.shared_per_block);
    if shared_bytes <= limit {
        return Ok(());
    }
    Err(GemmError::Unlaunchable {
        kernel: kernel.to_owned(),
        reason: format!("the device allows {limit} bytes of shared memory per block"),
        threads,
        registers,
        shared_bytes,
    })
}

/// `image`'s kernel assuming only element alignment of A and B
/// ([`KernelImage::unaligned_twin`]), for operands that miss its
/// [`Requirements::operand_alignment`](gemm_codegen::Requirements). The
/// family makes it legal whenever the image's spec is, so the error is for a
/// spec that was never validated, or for a kernel that has no twin because
/// it assumes nothing beyond element alignment already.
fn unaligned_twin(image: &KernelImage) -> Result<KernelImage, GemmError> {
    let precision = image.spec.precision;
    if precision.is_half() {
        return Err(GemmError::TmaOperands {
            kernel: image.entry.to_string(),
            precision,
            lead: crate::config::operand_lead(precision),
        });
    }
    match image.unaligned_twin() {
        Some(Ok(twin)) => Ok(twin),
        Some(Err(violations)) => Err(GemmError::IllegalSpec {
            kernel: image.entry.to_string(),
            reason: violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
        }),
        None => Err(GemmError::IllegalSpec {
            kernel: image.entry.to_string(),
            reason: "it has no unaligned twin: it assumes only element alignment already".to_owned(),
        }),
    }
}

/// The PTX ISA version a module declares (`.version 8.0` → `"8.0"`).
fn ptx_version(ptx: &str) -> Option<&str> {
    ptx.lines().find_map(|l| l.trim().strip_prefix(".version")).map(str::trim).filter(|v| !v.is_empty())
}

/// Runs the JIT once more with an error log buffer attached, to say why
/// `ptx` was rejected (`cuModuleLoadData` only returns an error code).
fn jit_error_log(ctx: &Arc<CudaContext>, ptx: &str) -> String {
    const LOG_BYTES: usize = 1 << 16;
    let Ok(src) = CString::new(ptx) else { return String::new() };
    if ctx.bind_to_thread().is_err() {
        return String::new();
    }
    let mut log = vec![0u8; LOG_BYTES];
    let mut options =
        [CUjit_option::CU_JIT_ERROR_LOG_BUFFER, CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    // The size option's value is the integer itself, passed in the pointer.
    let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), std::ptr::without_provenance_mut(LOG_BYTES)];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `src` is a NUL-terminated PTX image that outlives the call;
    // `options` and `values` are arrays of two entries as `numOptions` says;
    // the log buffer is writable for `LOG_BYTES` bytes, the size given; the
    // context is bound to this thread.
    let status = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            src.as_ptr().cast(),
            2,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if status == sys::CUresult::CUDA_SUCCESS && !module.is_null() {
        // SAFETY: the module was just loaded by this function and nothing
        // else has seen it.
        let _ = unsafe { sys::cuModuleUnload(module) };
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    String::from_utf8_lossy(&log[..end]).into_owned()
}

/// Identifies a kernel by entry name and PTX text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    entry: String,
    ptx_hash: u64,
    ptx_len: usize,
}

impl Key {
    fn of(code: CodeView<'_>) -> Key {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        code.ptx.hash(&mut h);
        Key { entry: code.entry.to_string(), ptx_hash: h.finish(), ptx_len: code.ptx.len() }
    }
}

/// Addresses and lengths of `'static` PTX and entry texts: a key that needs
/// no hashing of the text, for `gemm_kernel!` kernels launched again and again.
type StaticKey = (usize, usize, usize, usize);

fn static_key(code: CodeView<'_>) -> Option<StaticKey> {
    match (code.ptx, code.entry) {
        (Cow::Borrowed(ptx), Cow::Borrowed(entry)) => {
            Some((ptx.as_ptr() as usize, ptx.len(), entry.as_ptr() as usize, entry.len()))
        }
        _ => None,
    }
}

type Slot<V> = Arc<Mutex<Option<Arc<V>>>>;

/// The kernels loaded into one context, by entry name and PTX hash, and the
/// single-element-load twins generated for misaligned operands, by the spec
/// they stand in for.
///
/// Thread-safe; each kernel is loaded (and each twin generated) at most once
/// even when several threads ask for it at the same time (they wait on its
/// slot while one loads it), and different kernels load in parallel. Failed
/// loads are not cached.
///
/// `V` is what a load makes: a [`LoadedKernel`] on the GPU, a parsed
/// program in the emulator ([`crate::emulate`]).
#[derive(Debug)]
pub(crate) struct KernelCache<V = LoadedKernel> {
    slots: Mutex<HashMap<Key, Slot<V>>>,
    by_static: Mutex<HashMap<StaticKey, Arc<V>>>,
    scalar_twins: Mutex<HashMap<KernelSpec, Slot<V>>>,
    /// Twins generated so far.
    generated: AtomicUsize,
}

impl<V> Default for KernelCache<V> {
    fn default() -> Self {
        KernelCache {
            slots: Mutex::default(),
            by_static: Mutex::default(),
            scalar_twins: Mutex::default(),
            generated: AtomicUsize::new(0),
        }
    }
}

/// The value in `key`'s slot of `slots`, made by `make` if the slot is empty.
/// Callers asking for the same key at the same time wait for one `make`;
/// a failed one leaves the slot empty.
fn fill<K: Hash + Eq, V, E>(
    slots: &Mutex<HashMap<K, Slot<V>>>,
    key: K,
    make: impl FnOnce() -> Result<Arc<V>, E>,
) -> Result<Arc<V>, E> {
    let slot = {
        let mut slots = slots.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(slots.entry(key).or_default())
    };
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    match &*slot {
        Some(v) => Ok(Arc::clone(v)),
        None => {
            let v = make()?;
            *slot = Some(Arc::clone(&v));
            Ok(v)
        }
    }
}

/// The caches of one kind of loaded kernel, by `CUcontext` handle.
pub(crate) type Registry<V> = Mutex<Vec<(usize, std::sync::Weak<KernelCache<V>>)>>;

/// Caches kept once per CUDA context ([`KernelCache::for_context`]): each
/// kind of loaded kernel has its registry of caches by context.
pub(crate) trait PerContext: Sized + 'static {
    /// The caches of this kind, by `CUcontext` handle.
    fn registry() -> &'static Registry<Self>;
}

impl PerContext for LoadedKernel {
    fn registry() -> &'static Registry<Self> {
        static CACHES: Registry<LoadedKernel> = Mutex::new(Vec::new());
        &CACHES
    }
}

impl PerContext for LoadedBespoke {
    fn registry() -> &'static Registry<Self> {
        static CACHES: Registry<LoadedBespoke> = Mutex::new(Vec::new());
        &CACHES
    }
}

impl<V: PerContext> KernelCache<V> {
    /// The cache of the CUDA context `ctx` wraps, shared by every [`crate::Gemm`]
    /// on it (also through distinct `CudaContext` handles of the same primary
    /// context), so that each kernel is loaded once per context.
    ///
    /// Contexts are told apart by their `CUcontext` handle. A handle can only
    /// be reused after its context is destroyed, and a live cache keeps its
    /// context alive (its modules hold it, and so does every `Gemm` holding
    /// the cache), so a handle never maps to a stale cache: the registry
    /// holds caches weakly and drops dead ones.
    pub(crate) fn for_context(ctx: &CudaContext) -> Arc<KernelCache<V>> {
        let key = ctx.cu_ctx() as usize;
        let mut caches = V::registry().lock().unwrap_or_else(PoisonError::into_inner);
        caches.retain(|(_, cache)| cache.strong_count() > 0);
        if let Some(cache) = caches.iter().filter(|(k, _)| *k == key).find_map(|(_, cache)| cache.upgrade()) {
            return cache;
        }
        let cache = Arc::new(KernelCache::default());
        caches.push((key, Arc::downgrade(&cache)));
        cache
    }
}

impl<V> KernelCache<V> {
    pub(crate) fn get_or_load<E>(
        &self,
        image: &impl KernelCode,
        load: impl FnOnce() -> Result<V, E>,
    ) -> Result<Arc<V>, E> {
        let fast = static_key(image.code());
        if let Some(key) = fast {
            let map = self.by_static.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(k) = map.get(&key) {
                return Ok(Arc::clone(k));
            }
        }
        let kernel = fill(&self.slots, Key::of(image.code()), || load().map(Arc::new))?;
        if let Some(key) = fast {
            self.by_static.lock().unwrap_or_else(PoisonError::into_inner).insert(key, Arc::clone(&kernel));
        }
        Ok(kernel)
    }

    /// The twin of `image`'s kernel that assumes only element alignment of
    /// its operands ([`unaligned_twin`]), for operands too misaligned for
    /// it: generated and loaded (with `load`, through
    /// [`KernelCache::get_or_load`]) on first need, then the same for every
    /// later call of that kernel.
    pub(crate) fn get_or_load_twin<E: From<GemmError>>(
        &self,
        image: &KernelImage,
        load: impl FnOnce(&KernelImage) -> Result<V, E>,
    ) -> Result<Arc<V>, E> {
        fill(&self.scalar_twins, image.spec, || {
            let twin = unaligned_twin(image)?;
            self.generated.fetch_add(1, Ordering::Relaxed);
            self.get_or_load(&twin, || load(&twin))
        })
    }

    /// Kernels loaded so far.
    pub(crate) fn len(&self) -> usize {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.values().filter(|s| s.lock().unwrap_or_else(PoisonError::into_inner).is_some()).count()
    }

    /// Unaligned twins generated so far ([`KernelCache::get_or_load_twin`]).
    #[cfg(test)]
    pub(crate) fn generated(&self) -> usize {
        self.generated.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use gemm_codegen::{LoadShape, Op, Precision};

    use super::*;

    fn image(ptx: Cow<'static, str>, entry: Cow<'static, str>) -> KernelImage {
        let spec =
            KernelSpec::new(Precision::F32, (Op::N, Op::N), (64, 64, 16), (16, 16), (16, 16), (16, 16));
        KernelImage { spec, ptx, entry, shared_bytes: 0 }
    }

    #[test]
    fn the_declared_ptx_version_is_read() {
        assert_eq!(ptx_version("// header\n.version 8.0\n.target sm_90\n"), Some("8.0"));
        assert_eq!(ptx_version("  .version   7.8 \n"), Some("7.8"));
        assert_eq!(ptx_version(".target sm_90\n"), None);
    }

    #[test]
    fn keys_depend_on_entry_and_text() {
        let a = image("ptx one".into(), "k".into());
        let b = image(Cow::Owned("ptx one".into()), Cow::Owned("k".into()));
        let key = |i: &KernelImage| Key::of(i.code());
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&image("ptx two".into(), "k".into())));
        assert_ne!(key(&a), key(&image("ptx one".into(), "j".into())));
        assert!(static_key(a.code()).is_some());
        assert!(static_key(b.code()).is_none());
    }

    #[test]
    fn failed_loads_are_not_cached() {
        let cache = KernelCache::<u32>::default();
        let img = image("x".into(), "k".into());
        assert_eq!(cache.get_or_load(&img, || Err("no")), Err("no"));
        assert_eq!(cache.len(), 0);
        assert_eq!(*cache.get_or_load::<()>(&img, || Ok(7)).unwrap(), 7);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn each_kernel_loads_once() {
        let cache = KernelCache::<String>::default();
        let loads = std::sync::atomic::AtomicUsize::new(0);
        let owned = |text: &str| image(Cow::Owned(text.into()), Cow::Owned("k".into()));
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for text in ["one", "two", "one", "two"] {
                        let k = cache
                            .get_or_load::<()>(&owned(text), || {
                                loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                Ok(text.to_owned())
                            })
                            .unwrap();
                        assert_eq!(*k, text);
                    }
                });
            }
        });
        assert_eq!(loads.load(std::sync::atomic::Ordering::SeqCst), 2);
        // A 'static image hits the fast path after its first load.
        let st = image("one".into(), "k".into());
        let first = cache.get_or_load::<()>(&st, || unreachable!()).unwrap();
        let again = cache.get_or_load::<()>(&st, || unreachable!()).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn scalar_twins_are_generated_once_per_spec() {
        let wide: KernelSpec = "precision = f32, op = (N, N), tile = (64, 64, 8), threads = (16, 8), \
                                load_a = (16, 8), load_b = (2, 64), lds_width = 4, ldg_width = 4"
            .parse()
            .expect("a spec");
        let other = KernelSpec { op_b: Op::T, load_b: LoadShape { lead: 16, cross: 8 }, ..wide };
        let cache = KernelCache::<KernelSpec>::default();
        let loads = std::sync::atomic::AtomicUsize::new(0);
        let load = |image: &KernelImage| -> Result<KernelSpec, GemmError> {
            loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(image.spec)
        };
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for spec in [wide, other, wide] {
                        let image = gemm_codegen::compile(&spec).expect("legal");
                        let twin = cache.get_or_load_twin(&image, load).unwrap();
                        assert_eq!(*twin, KernelSpec { ldg_width: 1, ..spec });
                    }
                });
            }
        });
        assert_eq!(cache.generated(), 2);
        assert_eq!(loads.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn a_twin_that_cannot_be_generated_is_an_error_and_not_cached() {
        let base = image("x".into(), "k".into());
        let illegal =
            KernelImage { spec: KernelSpec { m_blk: 60, ldg_width: 2, ..base.spec }, ..base.clone() };
        let cache = KernelCache::<KernelSpec>::default();
        for _ in 0..2 {
            let err = cache.get_or_load_twin(&illegal, |_| Ok::<_, GemmError>(illegal.spec)).unwrap_err();
            assert!(matches!(err, GemmError::IllegalSpec { .. }), "{err}");
        }
        // A kernel that assumes only element alignment has no twin.
        let narrow = KernelImage { spec: KernelSpec { ldg_width: 1, ..base.spec }, ..base };
        let err = cache.get_or_load_twin(&narrow, |_| Ok::<_, GemmError>(narrow.spec)).unwrap_err();
        assert!(err.to_string().contains("no unaligned twin"), "{err}");
        assert_eq!((cache.generated(), cache.len()), (0, 0));
    }

    #[test]
    fn shared_memory_beyond_the_opt_in_limit_is_refused() {
        let device = crate::device::tests::h100();
        let limit = device.shared_per_block_optin;
        assert!(check_shared("k", limit, 256, 40, &device).is_ok());
        assert!(check_shared("k", 48 << 10, 256, 40, &device).is_ok());
        let err = check_shared("k", limit + 1, 256, 40, &device).unwrap_err();
        match &err {
            GemmError::Unlaunchable { kernel, reason, threads, registers, shared_bytes } => {
                assert_eq!((kernel.as_str(), *threads, *registers, *shared_bytes), ("k", 256, 40, limit + 1));
                assert!(reason.contains(&limit.to_string()), "{reason}");
            }
            other => panic!("expected Unlaunchable, got {other}"),
        }
        // A device whose opt-in limit is below its default one (never seen,
        // but the driver reports them separately) gets the larger.
        let odd = DeviceInfo { shared_per_block_optin: 0, ..crate::device::tests::h100() };
        assert!(check_shared("k", 48 << 10, 256, 40, &odd).is_ok());
    }
}
