//! GEMMs on the CPU, through `gemm-codegen`'s PTX emulator, with exactly the
//! argument checking of the GPU path.
//!
//! For debugging a `gemm_kernel!` instance on a machine without a GPU: the
//! call is checked by [`validate::check`] like
//! [`Gemm::gemm`](crate::Gemm::gemm) (same errors, same quick returns,
//! the same row-major swap and `k = 0` for `alpha = 0`), and the kernel's
//! PTX text then runs in the emulator, which also reports what a GPU would
//! not: out-of-bounds or misaligned accesses, reads of unwritten registers,
//! races between threads, divergent uniform branches.
//!
//! ```
//! use gemm_codegen::GemmKernel;
//! use gemm_host::{GemmConfig, Op, emulate::Emulator};
//! use gemm_kernels::SgemmNT;
//!
//! let (m, n, k) = (5, 3, 4);
//! let a: Vec<f32> = (0..m * k).map(|i| i as f32).collect();
//! let b: Vec<f32> = (0..n * k).map(|i| 1.0 - i as f32).collect();
//! let mut c = vec![f32::NAN; m * n];
//! let cfg = GemmConfig::new(Op::N, Op::T, m as i64, n as i64, k as i64);
//! Emulator::new().gemm::<SgemmNT>(&cfg, &a, &b, &mut c).unwrap();
//! // c[i + j m] = sum_l a[i + l m] b[j + l n]
//! let expect: f32 = (0..k).map(|l| a[1 + l * m] * b[2 + l * n]).sum();
//! assert_eq!(c[1 + 2 * m], expect);
//! ```

use std::sync::Arc;

use gemm_codegen::{Element, GemmKernel, KernelImage};
use gemm_emu::{self as emu, GemmArgs, Options, Stats};

use crate::GemmConfig;
use crate::error::GemmError;
use crate::gemm::check_precision;
use crate::kernel::KernelCache;
use crate::pass::{Pass, Place, split_k};
use crate::validate::{self, BufferInfo, Buffers, Checked, CheckedBatch, Launch, StridedBatch};

/// Runs GEMM kernels in the PTX emulator; parses each kernel once (and
/// generates each single-element-load twin once, as the GPU path does).
#[derive(Debug, Default)]
pub struct Emulator {
    options: Options,
    programs: KernelCache<emu::Gemm>,
    /// Bespoke kernels, parsed once ([`crate::bespoke`]).
    /// (Boxed: an emulator stays small enough to live in an enum beside a GPU.)
    pub(crate) bespoke_programs: Box<KernelCache<emu::Bespoke>>,
}

impl Emulator {
    /// An emulator with every safety check on.
    pub fn new() -> Emulator {
        Emulator::default()
    }

    /// An emulator with `options` (worker threads, race checks, step limit).
    pub fn with_options(options: Options) -> Emulator {
        Emulator { options, ..Emulator::default() }
    }

    /// The options every run gets.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// `C = alpha · op(A) · op(B) + beta · C` with a `gemm_kernel!` kernel.
    pub fn gemm<K: GemmKernel>(
        &self,
        cfg: &GemmConfig<K::Elem>,
        a: &[K::Elem],
        b: &[K::Elem],
        c: &mut [K::Elem],
    ) -> Result<Stats, GemmError> {
        self.gemm_image(&K::image(), cfg, a, b, c)
    }

    /// The same with a kernel generated at run time. On any error `c` is
    /// left as it was.
    pub fn gemm_image<E: Element>(
        &self,
        image: &KernelImage,
        cfg: &GemmConfig<E>,
        a: &[E],
        b: &[E],
        c: &mut [E],
    ) -> Result<Stats, GemmError> {
        let Some(launch) = checked(image, cfg, (a, b, c))? else { return Ok(Stats::default()) };
        let (first, second) = launch.operands(a, b);
        self.run_pass(image, &Pass::single(launch, [Place::A, Place::B, Place::C]), [first, second], c)
    }

    /// `count` GEMMs of one shape, problem `i`'s matrices `i` strides into
    /// `a`, `b` and `c`, with the GPU path's rules
    /// ([`validate::check_batch`]) and launches (chunks of 65535 problems).
    /// On any error `c` is left as it was.
    pub fn gemm_strided_batched<E: Element>(
        &self,
        image: &KernelImage,
        cfg: &GemmConfig<E>,
        batch: &StridedBatch,
        a: &[E],
        b: &[E],
        c: &mut [E],
    ) -> Result<Stats, GemmError> {
        check_precision::<E>(image.requires().precision, &image.entry)?;
        let checked = validate::check_batch(cfg, batch, &host_buffers(a, b, c), Some(image))?;
        let CheckedBatch::Launch(batch) = checked else { return Ok(Stats::default()) };
        let pass = Pass::of_batch(batch);
        let (first, second) = batch.launch.operands(a, b);
        self.run_pass(image, &pass, [first, second], c)
    }

    /// One GEMM per element of `a`, `b` and `c` (separate matrices of one
    /// shape: `cublasGemmBatchedEx`'s pointer arrays), with the GPU path's
    /// rules ([`validate::check_arrays`]) and launches: the kernel reads
    /// each problem's matrices through arrays of pointers, 65535 problems a
    /// launch. On any error every `c` is left as it was.
    pub fn gemm_batched<E: Element>(
        &self,
        image: &KernelImage,
        cfg: &GemmConfig<E>,
        a: &[&[E]],
        b: &[&[E]],
        c: &mut [&mut [E]],
    ) -> Result<Stats, GemmError> {
        check_precision::<E>(image.requires().precision, &image.entry)?;
        let buffers: Vec<Buffers> =
            a.iter().zip(b).zip(c.iter()).map(|((a, b), c)| host_buffers(a, b, c)).collect();
        let lens = [a.len(), b.len(), c.len()];
        let CheckedBatch::Launch(batch) = validate::check_arrays(cfg, lens, &buffers, Some(image))? else {
            return Ok(Stats::default());
        };
        let launch = batch.launch;
        let (first, second) = launch.operands(a, b);
        // Every problem's slices start aligned: only the leading dimensions
        // can call for the twin, or tensor maps, which no pointer array is.
        let aligned =
            image.requires().operands_aligned(0, 0, launch.lda, launch.ldb) && !image.abi().has_tensor_maps();
        let (kernel, entry) = self.variant(image, aligned)?;
        let args = gemm_args(&launch);
        let before: Vec<Vec<E>> = c.iter().map(|x| x.to_vec()).collect();
        let mut stats = Stats::default();
        let step = gemm_codegen::LaunchShape::MAX_GRID_Z as usize;
        for at in (0..a.len()).step_by(step) {
            let end = (at + step).min(a.len());
            let run = kernel.run_arrays(
                &args,
                launch.k,
                &first[at..end],
                &second[at..end],
                &mut c[at..end],
                &self.options,
            );
            match run {
                Ok(s) => stats += s,
                Err(source) => {
                    for (x, old) in c.iter_mut().zip(&before) {
                        x.copy_from_slice(old);
                    }
                    return Err(GemmError::Emulator { kernel: entry, source: Box::new(source) });
                }
            }
        }
        Ok(stats)
    }

    /// `C = alpha · op(A) · op(B) + beta · C` with K split into at most
    /// `slices` slices, as [`crate::Gemm::gemm_split_k_loaded`] computes it:
    /// the slices' products by `image` into a workspace, their sum in slice
    /// order by the Table 2 FMA kernel. On any error `c` is left as it was.
    pub fn gemm_split_k<E: Element>(
        &self,
        image: &KernelImage,
        cfg: &GemmConfig<E>,
        slices: u32,
        a: &[E],
        b: &[E],
        c: &mut [E],
    ) -> Result<Stats, GemmError> {
        let Some(launch) = checked(image, cfg, (a, b, c))? else { return Ok(Stats::default()) };
        let (first, second) = launch.operands(a, b);
        let Some(split) = split_k(&launch, slices) else {
            return self.run_pass(
                image,
                &Pass::single(launch, [Place::A, Place::B, Place::C]),
                [first, second],
                c,
            );
        };
        let len = usize::try_from(split.partials_len())
            .map_err(|_| GemmError::AllocTooLarge { len: usize::MAX, precision: E::PRECISION })?;
        let mut partials = vec![E::ZERO; len];
        let ones = vec![E::ONE; split.slices as usize];
        let mut stats = self.run_pass(image, &split.partial, [first, second], &mut partials)?;
        let reduce = gemm_kernels::split_sum(E::PRECISION).image();
        stats += self.run_pass(&reduce, &split.reduce, [&partials, &ones], c)?;
        Ok(stats)
    }

    /// `C = alpha · op(A) · op(B) + beta · C` with a stream-K kernel
    /// (`schedule = stream_k`) whose grid has at most `max_blocks` blocks
    /// (on a GPU, the blocks it holds at once), as the GPU path runs it:
    /// zeroed counters, and slots filled with NaN, so that a sum reading a
    /// slot no block wrote shows in C. Returns the run (the counters after
    /// it: a correct kernel leaves them zero; none for a quick return). On
    /// any error `c` is left as it was.
    pub fn gemm_stream_k<E: Element>(
        &self,
        image: &KernelImage,
        cfg: &GemmConfig<E>,
        max_blocks: u32,
        a: &[E],
        b: &[E],
        c: &mut [E],
    ) -> Result<StreamKRun, GemmError> {
        let Some(launch) = checked(image, cfg, (a, b, c))? else { return Ok(StreamKRun::default()) };
        let shape = image.launch();
        let esz = E::PRECISION.element_bytes();
        let not_stream_k = || GemmError::Emulator {
            kernel: image.entry.to_string(),
            source: Box::new(emu::EmuError::Launch(format!(
                "kernel `{}` is not a stream-K kernel, or {} x {} x {} has more stripes than it counts",
                image.entry, launch.m, launch.n, launch.k
            ))),
        };
        let grid = shape.stream_k(launch.m, launch.n, launch.k, esz, max_blocks).ok_or_else(not_stream_k)?;
        let (first, second) = launch.operands(a, b);
        let aligned = image.requires().operands_aligned(0, 0, launch.lda, launch.ldb);
        let (kernel, entry) = self.variant(image, aligned)?;
        let too_large = || GemmError::AllocTooLarge { len: usize::MAX, precision: E::PRECISION };
        let slots_len = usize::try_from(grid.slots_bytes() / u64::from(esz)).map_err(|_| too_large())?;
        let mut slots = vec![crate::case::poison::<E>(); slots_len];
        let mut counters = vec![0u32; grid.tiles as usize];
        let before = c.to_vec();
        let args = gemm_args(&launch);
        match kernel.run_stream_k(&args, &grid, first, second, c, (&mut slots, &mut counters), &self.options)
        {
            Ok(stats) => Ok(StreamKRun { stats, counters }),
            Err(source) => {
                c.copy_from_slice(&before);
                Err(GemmError::Emulator { kernel: entry, source: Box::new(source) })
            }
        }
    }

    /// Runs every chunk of `pass` with `image` on `a` and `b` (the kernel's
    /// operands, already in its order) and `c`; restores `c` on a fault.
    fn run_pass<E: Element>(
        &self,
        image: &KernelImage,
        pass: &Pass<E>,
        [a, b]: [&[E]; 2],
        c: &mut [E],
    ) -> Result<Stats, GemmError> {
        let launch = &pass.launch;
        let batch = pass.batch;
        // As on the GPU: a misaligned leading dimension or stride gets the
        // same kernel with single-element loads (the slices start aligned).
        let aligned = pass.strided_operands_aligned(&image.requires(), &|_| 0)
            && crate::gemm::maps_describe(&image.abi(), pass);
        let (kernel, entry) = self.variant(image, aligned)?;
        let args = gemm_args(launch);
        let before = c.to_vec();
        let mut stats = Stats::default();
        for chunk in pass.chunks() {
            // Checked to lie within the slices; a slice past its end is empty.
            let from = |xs: &[E], stride: u64| {
                usize::try_from(chunk.first * stride).unwrap_or(usize::MAX).min(xs.len())
            };
            let (ia, ib, ic) = (from(a, batch.stride_a), from(b, batch.stride_b), from(c, batch.stride_c));
            let run = kernel.run_batch(
                &args,
                chunk.count,
                chunk.batch,
                &a[ia..],
                &b[ib..],
                &mut c[ic..],
                &self.options,
            );
            match run {
                Ok(s) => stats += s,
                Err(source) => {
                    c.copy_from_slice(&before);
                    return Err(GemmError::Emulator { kernel: entry, source: Box::new(source) });
                }
            }
        }
        Ok(stats)
    }

    /// `image`'s program, or unless `aligned` its twin that assumes no
    /// alignment of A and B (generated once), with its entry name.
    fn variant(&self, image: &KernelImage, aligned: bool) -> Result<(Arc<emu::Gemm>, String), GemmError> {
        if aligned {
            return Ok((self.program(image)?, image.entry.to_string()));
        }
        let twin = self.programs.get_or_load_twin(image, parse)?;
        let entry = twin.entry().to_owned();
        Ok((twin, entry))
    }

    fn program(&self, image: &KernelImage) -> Result<Arc<emu::Gemm>, GemmError> {
        self.programs.get_or_load(image, || parse(image))
    }
}

/// What [`Emulator::gemm_stream_k`] ran.
#[derive(Clone, Debug, Default)]
pub struct StreamKRun {
    /// The run's statistics.
    pub stats: Stats,
    /// The counters after the run, one a tile (a correct kernel leaves
    /// them zero).
    pub counters: Vec<u32>,
}

/// The launch `image` makes of `cfg` on these slices (`None`: a quick
/// return), after every check the GPU path runs.
fn checked<E: Element>(
    image: &KernelImage,
    cfg: &GemmConfig<E>,
    (a, b, c): (&[E], &[E], &[E]),
) -> Result<Option<Launch<E>>, GemmError> {
    check_precision::<E>(image.requires().precision, &image.entry)?;
    Ok(match validate::check(cfg, &host_buffers(a, b, c), Some(image))? {
        Checked::Skip(_) => None,
        Checked::Launch(launch) => Some(launch),
    })
}

/// One problem of `launch` as the emulator's arguments.
fn gemm_args<E: Element>(launch: &Launch<E>) -> GemmArgs<E> {
    GemmArgs {
        m: launch.m,
        n: launch.n,
        k: launch.k,
        lda: launch.lda,
        ldb: launch.ldb,
        ldc: launch.ldc,
        alpha: launch.alpha,
        beta: launch.beta,
    }
}

/// Host slices as emulated buffers at aligned fake addresses.
fn host_buffers<E>(a: &[E], b: &[E], c: &[E]) -> Buffers {
    Buffers { a: BufferInfo::new(0, a.len()), b: BufferInfo::new(0, b.len()), c: BufferInfo::new(0, c.len()) }
}

/// Reads `image`'s PTX into an emulator program.
fn parse(image: &KernelImage) -> Result<emu::Gemm, GemmError> {
    emu::Gemm::new(image)
        .map_err(|source| GemmError::Emulator { kernel: image.entry.to_string(), source: Box::new(source) })
}

#[cfg(test)]
mod tests {
    use gemm_codegen::{Op, Precision};

    use super::*;
    use crate::validate::{Arg, ArgError};

    fn sgemm_nn() -> KernelImage {
        gemm_kernels::table2(Precision::F32, Op::N, Op::N).image()
    }

    #[test]
    fn argument_errors_are_the_gpu_paths() {
        let cfg = GemmConfig::new(Op::N, Op::N, 4, 4, 4).lda(3);
        let (a, b) = (vec![1f32; 16], vec![1f32; 16]);
        let mut c = vec![7f32; 16];
        let err = Emulator::new().gemm_image(&sgemm_nn(), &cfg, &a, &b, &mut c).unwrap_err();
        assert!(matches!(err.as_arg(), Some(ArgError::LeadingDimension { arg: Arg::Lda, .. })), "{err}");
        assert!(c.iter().all(|&x| x == 7.0));
    }

    #[test]
    fn wrong_ops_and_precision_are_refused() {
        let cfg = GemmConfig::new(Op::T, Op::N, 4, 4, 4);
        let (a, b) = (vec![1f32; 16], vec![1f32; 16]);
        let mut c = vec![0f32; 16];
        let e = Emulator::new();
        assert!(e.gemm_image(&sgemm_nn(), &cfg, &a, &b, &mut c).unwrap_err().as_arg().is_some());
        let cfg = GemmConfig::new(Op::N, Op::N, 4, 4, 4);
        let (a, b, mut c) = (vec![1f64; 16], vec![1f64; 16], vec![0f64; 16]);
        assert!(matches!(
            e.gemm_image(&sgemm_nn(), &cfg, &a, &b, &mut c),
            Err(GemmError::PrecisionMismatch { .. })
        ));
    }

    /// A kernel with 4-element global loads, given leading dimensions that
    /// are not multiples of 4, runs its single-element twin: the emulator
    /// would report the misaligned vector loads otherwise.
    #[test]
    fn misaligned_operands_get_single_element_loads() {
        let spec: gemm_codegen::KernelSpec =
            "precision = f32, op = (N, N), tile = (64, 64, 8), threads = (16, 8), \
             load_a = (16, 8), load_b = (2, 64), lds_width = 4, ldg_width = 4"
                .parse()
                .expect("a spec");
        let image = gemm_codegen::compile(&spec).expect("legal");
        let e = Emulator::new();
        for lda in [64, 66, 64, 66] {
            let (m, n, k) = (64, 64, 24);
            let cfg = GemmConfig::new(Op::N, Op::N, m, n, k).lda(lda).ldb(k);
            let a: Vec<f32> = (0..lda * k).map(|i| (i % 7) as f32).collect();
            let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32).collect();
            let mut c = vec![f32::NAN; (m * n) as usize];
            e.gemm_image(&image, &cfg, &a, &b, &mut c).unwrap();
            let want = |i: i64, j: i64| {
                (0..k).map(|p| a[(i + p * lda) as usize] * b[(p + j * k) as usize]).sum::<f32>()
            };
            assert_eq!(c[5 + 7 * 64], want(5, 7), "lda {lda}");
        }
        // The twin was generated for the first misaligned call only.
        assert_eq!((e.programs.generated(), e.programs.len()), (1, 2));
    }

    #[test]
    fn a_faulting_kernel_leaves_c_untouched() {
        // Corrupt the PTX: drop the barrier between the inner product and the
        // shared-memory refill, a race the emulator reports.
        let mut image = sgemm_nn();
        let ptx = image.ptx.replacen("\tbar.sync\t0;\n", "", 2);
        assert_ne!(ptx, image.ptx, "the kernel has barriers to remove");
        image.ptx = ptx.into();
        let (m, n, k) = (40, 40, 40);
        let cfg = GemmConfig::new(Op::N, Op::N, m, n, k).beta(1.0);
        let (a, b) = (vec![1f32; 1600], vec![2f32; 1600]);
        let mut c: Vec<f32> = (0..1600).map(|i| i as f32).collect();
        let before = c.clone();
        let err = Emulator::new().gemm_image(&image, &cfg, &a, &b, &mut c).unwrap_err();
        assert!(matches!(err, GemmError::Emulator { .. }), "{err}");
        assert!(err.to_string().contains("race"), "{err}");
        assert_eq!(c, before);
    }
}
