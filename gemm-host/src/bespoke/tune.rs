//! [`BespokeGemm`]: the run-time tuner of one operator.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use gemm_codegen::bespoke::{BespokeRequirements, BespokeSpec, BetaMode, Operator, candidates, digest};
use gemm_codegen::{Element, Target};
use gemm_kernels::KernelEntry;

use super::case::{fixed_beta, narrow};
use super::record::{Choice, TuneCache, TuneKey, Winner, dense_entry};
use super::{BespokeCall, BespokeCase, BespokeKernel, CheckedBespoke, check_bespoke};
use crate::case::GUARD;
use crate::config::Matrix;
use crate::error::GemmError;
use crate::gemm::{Gemm, check_context};
use crate::reference::Random;
use crate::timing::{self, Plan, Timing};
use crate::validate::{Arg, BufferInfo, Buffers};

/// How [`BespokeGemm::tune`] measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuneOptions {
    /// Warm-up and timed runs of each candidate.
    pub plan: Plan,
    /// Bespoke candidates tried at most, in
    /// [`candidates`](gemm_codegen::bespoke::candidates)' order (the dense
    /// GEMM is always tried).
    pub max_candidates: Option<usize>,
    /// Seed of the random inputs.
    pub seed: u64,
    /// Time each bespoke candidate with the tuned call's row strides fixed
    /// in its code (`ldb = ldc = n`, packed B and C: [`BespokeSpec::ldb`]),
    /// verified at those strides; the default. The fastest of them is also
    /// timed with the strides as arguments
    /// ([`BespokeSpec::with_runtime_strides`]), which wins if it is faster.
    /// A call with other strides than a fixed winner's runs its
    /// runtime-stride form (compiled on the first such call). `false` tunes
    /// only kernels that take the strides as arguments.
    ///
    /// Fixed strides fold every row's address into an offset: on the H100
    /// the best kernel was faster on the four large operators timed both
    /// ways in one run (f64 rand-1000x1000-d0.01 1948 → 1398 µs, f32
    /// rand-512x512-d0.01 305 → 214 µs: `tuning/sm_90-classes/call12/bespoke`),
    /// and the JIT of a large operator several times quicker
    /// (`tuning/sm_90-bespoke/compile-time`); against earlier runs a few
    /// dense `mma` forms ran up to 10% slower (`tuning/sm_90-bespoke/call13`).
    pub fixed_strides: bool,
}

impl Default for TuneOptions {
    fn default() -> TuneOptions {
        TuneOptions { plan: Plan::DEFAULT, max_candidates: None, seed: 2026, fixed_strides: true }
    }
}

/// Columns a candidate is verified on for a call of `n`: `n` up to 4096,
/// else 3584 to 4095 columns, as many past a multiple of 512 as `n` is, so
/// the last block is as ragged as at `n` and the vector alignment the same
/// (every block covers a power of two of at most 512 columns). The `f64`
/// reference of `m × k × n` for a large operator and `n` would take
/// minutes.
pub fn verify_columns(n: u32) -> u32 {
    if n <= 4096 { n } else { 3584 + n % 512 }
}

/// One candidate of a tuning.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateReport {
    /// The candidate.
    pub choice: Choice,
    /// Generating its PTX.
    pub generate: Duration,
    /// Loading it (the driver's JIT; nothing for a kernel already loaded in
    /// the context, or for the dense GEMM's precompiled kernels).
    pub jit: Duration,
    /// Registers per thread after the JIT.
    pub registers: Option<u32>,
    /// Whether it passed its verification against the `f64` reference at
    /// [`TuneReport::verify_n`] columns (`None`: not run that far).
    pub verified: Option<bool>,
    /// Its componentwise relative error there, if it passed.
    pub error: Option<f64>,
    /// Its time at the tuned `n` (none if it was not timed).
    pub timing: Option<Timing>,
    /// Why it was not timed, or nothing.
    pub note: String,
}

impl CandidateReport {
    /// A candidate not yet compiled, verified or timed.
    fn new(choice: Choice) -> CandidateReport {
        CandidateReport {
            choice,
            generate: Duration::ZERO,
            jit: Duration::ZERO,
            registers: None,
            verified: None,
            error: None,
            timing: None,
            note: String::new(),
        }
    }
}

/// What [`BespokeGemm::tune`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneReport {
    /// What was tuned.
    pub key: TuneKey,
    /// Columns each candidate was verified on ([`verify_columns`]).
    pub verify_n: u32,
    /// Every candidate, bespoke ones first, the dense GEMM last.
    pub candidates: Vec<CandidateReport>,
    /// The fastest candidate that passed its verification.
    pub winner: Winner,
    /// Time spent generating and loading kernels.
    pub compile: Duration,
    /// Time spent verifying and timing them (and drawing their inputs).
    pub benchmark: Duration,
}

impl TuneReport {
    /// The fastest bespoke candidate, if one was timed.
    pub fn best_bespoke(&self) -> Option<&CandidateReport> {
        self.candidates
            .iter()
            .filter(|c| matches!(c.choice, Choice::Bespoke(_)))
            .filter(|c| c.timing.is_some())
            .min_by(|a, b| median(a).total_cmp(&median(b)))
    }

    /// The fastest dense GEMM's report.
    pub fn dense(&self) -> Option<&CandidateReport> {
        self.candidates
            .iter()
            .filter(|c| matches!(c.choice, Choice::Dense(_)))
            .min_by(|a, b| median(a).total_cmp(&median(b)))
    }
}

fn median(c: &CandidateReport) -> f64 {
    c.timing.map_or(f64::INFINITY, |t| t.median_ms)
}

/// The tuned `C = alpha · A · B + beta · C` of one operator: on the first
/// call of each `n` (or ahead of it, [`BespokeGemm::tune`]) every legal
/// bespoke kernel of the operator and the dense GEMM on it are compiled,
/// verified once against the `f64` reference and timed on the GPU; the
/// fastest runs that call and every later one of that `n`.
///
/// Winners are kept in a [`TuneCache`] keyed by device, operator digest,
/// `n`, precision and beta mode, which can be shared between operators and
/// saved to JSON, so that a later run loads them instead of tuning. An
/// operator no bespoke kernel takes (too many non-zeros) runs the dense
/// GEMM. Tuning allocates B and C of the tuned `n` (on top of the caller's)
/// and costs the compile times and the timings that [`TuneReport`] lists:
/// seconds for large operators.
///
/// ```no_run
/// use std::sync::Arc;
/// use gemm_host::Gemm;
/// use gemm_host::bespoke::{BespokeCall, BespokeGemm, BetaMode, Operator, TuneCache};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let gemm = Gemm::open(0)?;
/// // An operator assembled at start-up: here a 2-point difference.
/// let a = Operator::from_fn(64, 65, |i, j| if j == i + 1 { 1.0 } else if j == i { -1.0 } else { 0.0 })?;
/// let cache = Arc::new(TuneCache::load("bespoke.json".as_ref()).unwrap_or_default());
/// let op = BespokeGemm::<f64>::new(&gemm, Arc::new(a), BetaMode::Zero)?.with_cache(Arc::clone(&cache));
///
/// let n = 1 << 17;
/// let report = op.tune(n)?; // or let the first call of this n tune
/// println!("{}: {:.1} µs; tuning took {:.2?} compiling, {:.2?} timing",
///          report.winner.choice, report.winner.median_us, report.compile, report.benchmark);
///
/// let b = gemm.upload(&vec![1.0f64; 65 * n as usize])?;
/// let mut c = gemm.alloc_zeros::<f64>(64 * n as usize)?;
/// op.run(&BespokeCall::new(i64::from(n)), &b, &mut c)?;
/// cache.save("bespoke.json".as_ref())?;
/// # Ok(())
/// # }
/// ```
pub struct BespokeGemm<E: Element> {
    gemm: Gemm,
    operator: Arc<Operator>,
    /// A in `E`, row-major: the reference's A and the dense GEMM's.
    values: Vec<E>,
    beta: BetaMode,
    arch: Target,
    /// The device's name and compute capability.
    device: String,
    digest: u64,
    /// The name argument errors give it.
    name: String,
    options: TuneOptions,
    cache: Arc<TuneCache>,
    /// A in device memory, uploaded on first need.
    dense: OnceLock<CudaSlice<E>>,
    kernels: Mutex<HashMap<BespokeSpec, Arc<BespokeKernel>>>,
    /// What runs each `n` already decided.
    ready: Mutex<HashMap<u32, Ready>>,
}

#[derive(Clone, Debug)]
enum Ready {
    Bespoke(Arc<BespokeKernel>),
    /// A shipped GEMM kernel on the operator in device memory.
    Dense(&'static KernelEntry),
}

impl<E: Element> fmt::Debug for BespokeGemm<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BespokeGemm")
            .field("operator", &self.operator)
            .field("precision", &E::PRECISION)
            .field("beta", &self.beta)
            .field("device", &self.device)
            .field("digest", &format_args!("{:016x}", self.digest))
            .finish_non_exhaustive()
    }
}

impl<E: Element> BespokeGemm<E> {
    /// The tuner of `operator` on `gemm`'s device and stream, for calls
    /// whose `beta`s `beta` says, with an empty cache of its own. `E` is
    /// `f32` or `f64`.
    pub fn new(gemm: &Gemm, operator: Arc<Operator>, beta: BetaMode) -> Result<BespokeGemm<E>, GemmError> {
        let name = format!("bespoke {} operator {:016x}", E::PRECISION, digest(&operator));
        if E::PRECISION.is_complex() {
            return Err(GemmError::IllegalSpec {
                kernel: name,
                reason: format!("bespoke kernels are real: use f32 or f64, not {}", E::PRECISION),
            });
        }
        let device = gemm.device();
        let arch = Target::newest_for(device.arch()).ok_or_else(|| GemmError::IllegalSpec {
            kernel: name.clone(),
            reason: format!("no code generation target runs on {}", device.compute_capability),
        })?;
        let values = operator.values().iter().map(|&v| narrow(v)).collect();
        Ok(BespokeGemm {
            gemm: gemm.clone(),
            digest: digest(&operator),
            operator,
            values,
            beta,
            arch,
            device: format!("{} ({})", device.name, device.compute_capability),
            name,
            options: TuneOptions::default(),
            cache: Arc::new(TuneCache::new()),
            dense: OnceLock::new(),
            kernels: Mutex::default(),
            ready: Mutex::default(),
        })
    }

    /// The same tuner recording its winners in (and taking them from)
    /// `cache`.
    pub fn with_cache(mut self, cache: Arc<TuneCache>) -> BespokeGemm<E> {
        self.cache = cache;
        self.ready = Mutex::default();
        self
    }

    /// The same tuner measuring with `options`.
    pub fn with_options(mut self, options: TuneOptions) -> BespokeGemm<E> {
        self.options = options;
        self
    }

    /// The cache of winners.
    pub fn cache(&self) -> &Arc<TuneCache> {
        &self.cache
    }

    /// The operator.
    pub fn operator(&self) -> &Arc<Operator> {
        &self.operator
    }

    /// What a tuning of `n` columns is recorded under.
    pub fn key(&self, n: u32) -> TuneKey {
        TuneKey {
            device: self.device.clone(),
            digest: self.digest,
            n,
            precision: E::PRECISION,
            beta: self.beta,
        }
    }

    /// How calls of `n` columns run: the cached winner, or the winner of a
    /// tuning run now.
    pub fn choice(&self, n: u32) -> Result<Choice, GemmError> {
        Ok(match self.ready(n)? {
            Ready::Bespoke(kernel) => Choice::Bespoke(*kernel.spec()),
            Ready::Dense(entry) => Choice::Dense(entry.name),
        })
    }

    /// `C = alpha · A · B + beta · C` on B (`k × n`) and C (`m × n`),
    /// row-major, with the winner for `call.n` (tuned now on the first call
    /// of that `n`). The arguments are checked first, as by
    /// [`Gemm::bespoke`], whichever candidate runs; nothing is launched on
    /// error.
    pub fn run(
        &self,
        call: &BespokeCall<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        let stream = self.gemm.stream();
        check_context(Arg::B, stream, b.stream())?;
        check_context(Arg::C, stream, c.stream())?;
        let (b_len, c_len) = (b.len(), c.len());
        let (b_ptr, _b_use) = b.device_ptr(stream);
        let (c_ptr, _c_use) = c.device_ptr_mut(stream);
        let (b, c) = (BufferInfo::new(b_ptr, b_len), BufferInfo::new(c_ptr, c_len));
        // The rules every candidate shares (a kernel adds its alignment,
        // which its twin relieves).
        let requires = BespokeRequirements {
            precision: E::PRECISION,
            arch: self.arch,
            alignment: 1,
            beta: self.beta,
            ldb: None,
            ldc: None,
        };
        let mk = (self.operator.rows() as u32, self.operator.cols() as u32);
        match check_bespoke(mk, &requires, &self.name, call, b, c)? {
            CheckedBespoke::Skip(_) => return Ok(()),
            // alpha = 0: whatever would win, C = beta · C without reading B.
            CheckedBespoke::ScaleC(cfg) => {
                let buffers =
                    Buffers { a: BufferInfo::unsized_at(b.addr), b: BufferInfo::unsized_at(b.addr), c };
                // SAFETY: C as below; A and B (k = 0) have no element.
                return unsafe { self.gemm.launch_default(&cfg, &buffers) };
            }
            CheckedBespoke::Launch(_) => {}
        }
        // Checked: 1 ≤ n ≤ i32::MAX.
        match self.ready(call.n as u32)? {
            Ready::Bespoke(kernel) => {
                // Checked: ldb, ldc ≥ n ≥ 1.
                let kernel = if kernel.spec().takes_strides(call.ldb as u64, call.ldc as u64) {
                    kernel
                } else {
                    self.kernel(&kernel.spec().with_runtime_strides())?
                };
                // SAFETY: live buffers of these lengths in this context,
                // borrowed for the call (C exclusively).
                unsafe { self.gemm.bespoke_at(&kernel, call, b, c) }
            }
            Ready::Dense(entry) => {
                let a = self.dense()?;
                let (a_ptr, _a_use) = a.device_ptr(stream);
                let buffers = Buffers { a: BufferInfo::new(a_ptr, a.len()), b, c };
                let cfg = call.gemm_config(self.operator.rows(), self.operator.cols());
                // SAFETY: as above; A is this tuner's own buffer, never written.
                unsafe { self.gemm.launch_entry(entry, &cfg, &buffers) }
            }
        }
    }

    /// What runs calls of `n` columns: decided before, taken from the cache,
    /// or tuned now.
    fn ready(&self, n: u32) -> Result<Ready, GemmError> {
        if let Some(r) = self.ready.lock().unwrap_or_else(PoisonError::into_inner).get(&n) {
            return Ok(r.clone());
        }
        let cached = match self.cache.get(&self.key(n)) {
            Some(Winner { choice: Choice::Bespoke(spec), .. }) => self.kernel(&spec).ok().map(Ready::Bespoke),
            Some(Winner { choice: Choice::Dense(name), .. }) => dense_entry(name).map(Ready::Dense),
            None => None,
        };
        let ready = match cached {
            Some(r) => r,
            // Not tuned, or tuned by a generator that no longer takes the spec.
            None => match self.tune(n)?.winner.choice {
                Choice::Bespoke(spec) => Ready::Bespoke(self.kernel(&spec)?),
                Choice::Dense(name) => {
                    Ready::Dense(dense_entry(name).ok_or_else(|| GemmError::IllegalSpec {
                        kernel: name.to_owned(),
                        reason: "not a shipped kernel".to_owned(),
                    })?)
                }
            },
        };
        self.ready.lock().unwrap_or_else(PoisonError::into_inner).insert(n, ready.clone());
        Ok(ready)
    }

    /// The kernel of `spec`, compiled once.
    fn kernel(&self, spec: &BespokeSpec) -> Result<Arc<BespokeKernel>, GemmError> {
        if let Some(k) = self.kernels.lock().unwrap_or_else(PoisonError::into_inner).get(spec) {
            return Ok(Arc::clone(k));
        }
        let kernel = Arc::new(BespokeKernel::compile(Arc::clone(&self.operator), spec)?);
        let mut kernels = self.kernels.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(Arc::clone(kernels.entry(*spec).or_insert(kernel)))
    }

    /// A in device memory.
    fn dense(&self) -> Result<&CudaSlice<E>, GemmError> {
        if let Some(a) = self.dense.get() {
            return Ok(a);
        }
        let a = self.gemm.upload(&self.values)?;
        Ok(self.dense.get_or_init(|| a))
    }

    /// The `beta` a tuning times with: the mode's, or 0.5 for a run-time
    /// `beta` (C read and scaled, the general case).
    fn timed_beta(&self) -> E {
        match self.beta {
            BetaMode::Runtime => narrow(0.5),
            fixed => fixed_beta(fixed),
        }
    }

    /// Compiles, verifies and times every candidate for `n` columns and the
    /// dense GEMM, records the fastest in the cache (and for this tuner's
    /// calls of `n`), and reports all of them with the cost of the tuning.
    pub fn tune(&self, n: u32) -> Result<TuneReport, GemmError> {
        let started = Instant::now();
        let mut compile = Duration::ZERO;
        let (m, k) = (self.operator.rows(), self.operator.cols());
        let mut specs = candidates(&self.operator, E::PRECISION, self.beta, self.arch);
        specs.truncate(self.options.max_candidates.unwrap_or(usize::MAX));
        let mut rng = Random::new(self.options.seed);
        let verify_n = verify_columns(n);
        let verification = if self.options.fixed_strides {
            // The strides compiled in: verified at the tuned call's, on
            // fewer columns.
            for spec in &mut specs {
                *spec = spec.packed_at(n);
            }
            let packed = u64::from(n);
            BespokeCase::random_strided(&self.operator, verify_n, (packed, packed), self.beta, &mut rng)
        } else {
            BespokeCase::random(&self.operator, verify_n, self.beta, &mut rng)
        };
        let call = BespokeCall::new(i64::from(n)).beta(self.timed_beta());
        let cfg = call.gemm_config(m, k);
        let b = self.gemm.upload(&rng.matrix::<E>(cfg.required_len(Matrix::B) as usize))?;
        let mut c = self.gemm.upload(&rng.matrix::<E>(cfg.required_len(Matrix::C) as usize))?;
        let mut reports = Vec::new();
        for spec in specs {
            let report = self.candidate(spec, n, &verification, &call, (&b, &mut c))?;
            compile += report.generate + report.jit;
            reports.push(report);
        }
        // Fixed strides fold the row addresses into offsets, which most
        // kernels gain from but a few lose a little to (an operator's
        // largest mma forms): the fastest fixed candidate's runtime-stride
        // form runs too, one compile more, and wins if it is faster.
        let fastest = reports
            .iter()
            .filter(|r| r.timing.is_some())
            .min_by(|a, b| median(a).total_cmp(&median(b)))
            .map(|r| r.choice);
        if let Some(Choice::Bespoke(spec)) = fastest
            && spec.ldb.is_some()
        {
            let runtime = spec.with_runtime_strides();
            let report = self.candidate(runtime, n, &verification, &call, (&b, &mut c))?;
            compile += report.generate + report.jit;
            reports.push(report);
        }
        // The dense GEMM with every shipped kernel of the type (the default
        // dispatch's choice among them): the shape, M = n wide and N = m, K
        // = k small, is no class they were tuned at.
        let default = self.gemm.default_kernel(&cfg);
        let col = cfg.to_column_major();
        let mut entries = vec![default];
        for e in gemm_kernels::tuned_kernels(self.gemm.device().arch(), E::PRECISION, col.op_a, col.op_b) {
            if !entries.iter().any(|d| d.name == e.name) {
                entries.push(e);
            }
        }
        for entry in entries {
            let mut dense = CandidateReport::new(Choice::Dense(entry.name));
            let t = Instant::now();
            let loaded = self.gemm.load(&entry.image());
            dense.jit = t.elapsed();
            compile += dense.jit;
            match loaded {
                Ok(loaded) => {
                    dense.registers = Some(loaded.info().registers);
                    self.measure(&Ready::Dense(entry), &verification, &call, (&b, &mut c), &mut dense)?;
                }
                Err(e) => dense.note = e.to_string(),
            }
            reports.push(dense);
        }
        let best = reports
            .iter()
            .filter(|r| r.timing.is_some())
            .min_by(|a, b| median(a).total_cmp(&median(b)))
            .ok_or_else(|| GemmError::IllegalSpec {
                kernel: self.name.clone(),
                reason: format!(
                    "no candidate passed its verification: {}",
                    reports
                        .iter()
                        .map(|r| format!("{}: {}", r.choice, r.note))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            })?;
        let winner = Winner { choice: best.choice, median_us: median(best) * 1e3 };
        let key = self.key(n);
        self.cache.insert(key.clone(), winner);
        self.ready.lock().unwrap_or_else(PoisonError::into_inner).remove(&n);
        let benchmark = started.elapsed().saturating_sub(compile);
        Ok(TuneReport { key, verify_n, candidates: reports, winner, compile, benchmark })
    }

    /// Compiles, loads, verifies and times one bespoke candidate for `n`
    /// columns. The outer error is fatal (the context is unusable); the
    /// candidate's own go into its report's note.
    fn candidate(
        &self,
        spec: BespokeSpec,
        n: u32,
        verification: &BespokeCase<E>,
        call: &BespokeCall<E>,
        (b, c): (&CudaSlice<E>, &mut CudaSlice<E>),
    ) -> Result<CandidateReport, GemmError> {
        let mut report = CandidateReport::new(Choice::Bespoke(spec));
        if !n.is_multiple_of(spec.alignment()) {
            report.note =
                format!("n = {n} is not a multiple of width {}: it would run its twin", spec.alignment());
            return Ok(report);
        }
        let t = Instant::now();
        let kernel = match self.kernel(&spec) {
            Ok(kernel) => kernel,
            Err(e) => {
                report.note = e.to_string();
                return Ok(report);
            }
        };
        report.generate = t.elapsed();
        let t = Instant::now();
        let loaded = self.gemm.loaded_bespoke(&kernel, true);
        report.jit = t.elapsed();
        match loaded {
            Ok(loaded) => report.registers = Some(loaded.info().registers),
            Err(e) => {
                report.note = e.to_string();
                return Ok(report);
            }
        }
        self.measure(&Ready::Bespoke(kernel), verification, call, (b, c), &mut report)?;
        Ok(report)
    }

    /// Verifies `ready` on `verification` and, if it passes, times it
    /// on `call` with the full-size `b` and `c`, into `report`. The outer
    /// error is fatal (the context is unusable), the candidate's own go
    /// into `report.note`.
    fn measure(
        &self,
        ready: &Ready,
        verification: &BespokeCase<E>,
        call: &BespokeCall<E>,
        (b, c): (&CudaSlice<E>, &mut CudaSlice<E>),
        report: &mut CandidateReport,
    ) -> Result<(), GemmError> {
        let verified = self.verify(ready, verification);
        report.verified = Some(verified.is_ok());
        match verified {
            Ok(error) => report.error = Some(error),
            Err(e) => {
                report.note = format!("failed its verification at n = {}: {e}", verification.call.n);
                return self.gemm.synchronize();
            }
        }
        let timing =
            timing::repeat(self.gemm.stream(), self.options.plan, |_| self.launch(ready, call, b, c));
        match timing {
            Ok(t) => report.timing = Some(t),
            Err(e) => {
                report.note = format!("timing: {e}");
                self.gemm.synchronize()?;
            }
        }
        Ok(())
    }

    /// One call with `ready`, bypassing the choice.
    fn launch(
        &self,
        ready: &Ready,
        call: &BespokeCall<E>,
        b: &impl DevicePtr<E>,
        c: &mut impl DevicePtrMut<E>,
    ) -> Result<(), GemmError> {
        match ready {
            Ready::Bespoke(kernel) => self.gemm.bespoke(kernel, call, b, c),
            Ready::Dense(entry) => {
                let cfg = call.gemm_config(self.operator.rows(), self.operator.cols());
                // SAFETY: live buffers of these lengths, borrowed for the call
                // (C exclusively); A is this tuner's own, never written.
                crate::gemm::with_buffers(self.gemm.stream(), self.dense()?, b, c, |buffers| unsafe {
                    self.gemm.launch_entry(entry, &cfg, buffers)
                })
            }
        }
    }

    /// Runs `ready` on the verification's inputs and checks the result
    /// ([`Case::check`]; the `f64` reference is computed once for all
    /// candidates): its error, or what went wrong.
    fn verify(&self, ready: &Ready, v: &BespokeCase<E>) -> Result<f64, String> {
        let err = |e: GemmError| e.to_string();
        let b = self.gemm.upload(v.case.guarded(Matrix::B)).map_err(err)?;
        let mut c = self.gemm.upload(v.case.guarded(Matrix::C)).map_err(err)?;
        let (b_len, c_len) = (b.len() - 2 * GUARD, c.len() - 2 * GUARD);
        self.launch(ready, &v.call, &b.slice(GUARD..GUARD + b_len), &mut c.slice_mut(GUARD..GUARD + c_len))
            .map_err(err)?;
        let (b, c) = (self.gemm.download(&b).map_err(err)?, self.gemm.download(&c).map_err(err)?);
        let math = match ready {
            Ready::Bespoke(kernel) => kernel.image().spec.math(),
            Ready::Dense(entry) => entry.spec.math,
        };
        v.check(&b, &c, math)
    }
}
