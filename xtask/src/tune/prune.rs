//! Pruning before timing, without a GPU: from the space of one kernel
//! type to a short list of candidates in rank order.
//!
//! 1. **Pool**: the seeds (the Table 2 configuration and the kernel
//!    gemm-host ships for this GPU), a spread sample of the space
//!    ([`Space::sample`]), then the preferred variants of the tile
//!    configurations whose first variant bounds highest
//!    ([`Space::tile_variants`]): the sample finds the tiles, the variants
//!    try their pipelines.
//! 2. **Rank** by the analytic bound of each kernel's own loop
//!    ([`AnalyticBound`]) scaled by how well its grid fills the GPU on the
//!    problem tuned ([`grid_fill`]: ragged tiles, a last wave of blocks
//!    that leaves multiprocessors idle), in steps of 1% of the best (bounds that close are
//!    a tie: FP64 kernels mostly bound at the FMA peak), then by register
//!    reuse (FMAs per shared load: larger per-thread tiles, which measured
//!    faster on the H100 when the bound tied), then by resident threads per
//!    SM, keeping at most
//!    `per_tile` variants of one tile configuration so that the timed
//!    candidates are not all one tile. The bound sees neither the cache
//!    path (`ldg`) nor the rasterization, so of variants that differ only
//!    there the preferred one ([`Space::tile_variants`]: `raster` 8, `nc`)
//!    stands for them all. The bound does not see `interleave` either (the
//!    same instructions in another order), but the order is what `ptxas`
//!    schedules, and no value wins everywhere (`tuning/sm_90-copies`): each
//!    ring among the `interleaved` best-ranked candidates is followed by its
//!    siblings with the space's other `interleave` values, for the timed
//!    rounds to choose. Nor does it see the epilogue's `c_batch` (how many
//!    columns of old C a thread reads before it writes any): each of the
//!    `c_batched` best-ranked candidates is followed by its siblings with
//!    `c_batch` 2, 4, 8 … up to the thread's columns, and ptxas drops
//!    those whose registers spill. Siblings come on top of `keep`.
//! 3. **Registers**: `ptxas` assembles candidates in rank order; a kernel
//!    that spills, or whose real registers leave no block resident, is
//!    dropped, until `keep` remain. Without `ptxas` (not installed on the
//!    GPU machine) this step is skipped: the driver's JIT reports spills
//!    when the kernel is loaded.
//!
//! The seeds are always kept, after the `keep` best: the Table 2
//! configuration, the shipped kernel, and any given with `--seed` (measured
//! winners the sample may miss). A cached list made with other seeds is
//! reused with this run's ([`Pruning::reseed`]).
//!
//! The result depends on the architecture, the generator and the
//! configuration only, so it is cached in `<out>/candidates/<type>.json`
//! and `--prune-only --arch sm_90` can compute it on a machine without a
//! GPU before the timed calls.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gemm_codegen::bound::{AnalyticBound, GpuThroughput};
use gemm_codegen::space::Space;
use gemm_codegen::{KernelImage, KernelSpec, Schedule, legal_with};
use serde::{Deserialize, Serialize};

use super::record::{KernelType, Shape};
use crate::ptxas;

/// How much pruning does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Specs of the spread sample.
    pub sample: usize,
    /// Tile configurations whose variants join the pool.
    pub top_tiles: usize,
    /// Most variants of one tile configuration, in the pool and the result.
    pub per_tile: usize,
    /// The rings among this many best-ranked candidates are followed by
    /// their `interleave` siblings.
    #[serde(default)]
    pub interleaved: usize,
    /// This many best-ranked candidates are followed by their `c_batch`
    /// siblings.
    #[serde(default)]
    pub c_batched: usize,
    /// Candidates returned, besides the siblings and the seeds.
    pub keep: usize,
    /// `(m, n, k)` of the problem tuned: bounds are scaled by how well a
    /// kernel's grid fills the GPU there ([`grid_fill`]).
    pub shape: Shape,
    /// Problems of that shape per launch: 1, or a batch's count (`--batch`).
    #[serde(default = "one_problem")]
    pub problems: u64,
}

const fn one_problem() -> u64 {
    1
}

/// The share of the GPU's FMA time a kernel's grid spends on useful work on
/// `problems` `m × n × k` problems (a batch fills the waves with its
/// problems' tiles), with `blocks_per_sm` of its blocks resident on
/// each of `sms` multiprocessors: the useful part of its tiles (ragged tiles
/// compute padding, in M, N and K) times the filled part of its waves of
/// blocks (the last wave may leave multiprocessors idle). 1 for a problem
/// of whole tiles and whole waves; small for large tiles on a small
/// problem, or a deep stripe on a short K, which the bound alone does not
/// see.
pub fn grid_fill(spec: &KernelSpec, (m, n, k): Shape, problems: u64, sms: u32, blocks_per_sm: u32) -> f64 {
    if m == 0 || n == 0 || k == 0 || problems == 0 {
        return 0.0;
    }
    let useful = |d: u64, tile: u32| {
        let tile = u64::from(tile.max(1));
        d as f64 / (d.div_ceil(tile) * tile) as f64
    };
    let tiles = m.div_ceil(u64::from(spec.m_blk.max(1))) * n.div_ceil(u64::from(spec.n_blk.max(1)));
    let blocks = tiles.saturating_mul(problems);
    let capacity = (u64::from(sms) * u64::from(blocks_per_sm)).max(1);
    let filled = blocks as f64 / (blocks.div_ceil(capacity) * capacity) as f64;
    useful(m, spec.m_blk) * useful(n, spec.n_blk) * useful(k, spec.k_blk) * filled
}

/// A candidate that survived pruning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    pub spec: KernelSpec,
    /// Its analytic bound on the GPU at the shape tuned ([`Config::shape`]:
    /// the loop's bound times [`grid_fill`]), TFLOP/s.
    pub bound_tflops: f64,
    /// ptxas's registers per thread (`None` without ptxas).
    pub registers: Option<u32>,
    /// Resident blocks per SM with those registers (else the estimate's).
    pub blocks_per_sm: u32,
    /// A seed (Table 2, the shipped kernel) rather than a sample.
    pub seed: bool,
}

/// The cached result of [`candidates`] for one kernel type.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct File {
    /// Compute capability as `10 × major + minor`.
    pub arch: u32,
    /// `gemm_codegen::VERSION`.
    pub generator: String,
    /// Whether ptxas checked the registers.
    pub ptxas: bool,
    pub config: Config,
    /// The seeds pruning was given.
    #[serde(default)]
    pub seeds: Vec<KernelSpec>,
    pub candidates: Vec<Ranked>,
}

/// Where the candidates of `kt` are cached.
pub fn path(out: &Path, kt: KernelType) -> PathBuf {
    out.join("candidates").join(format!("{}.json", kt.name()))
}

/// The cached pruning of `kt` if it was computed for `arch` by this
/// generator with `config` (with whatever seeds: [`Pruning::reseed`]).
pub fn load(out: &Path, kt: KernelType, arch: u32, config: &Config) -> Option<File> {
    let text = std::fs::read_to_string(path(out, kt)).ok()?;
    let file: File = serde_json::from_str(&text).ok()?;
    (file.arch == arch && file.generator == gemm_codegen::VERSION && file.config == *config).then_some(file)
}

/// The folder of the cubins pruning assembled for `kt` ([`cubin_path`]).
pub fn cubin_dir(out: &Path, kt: KernelType) -> PathBuf {
    out.join("candidates").join(kt.name())
}

/// Where pruning keeps the cubin of `image` in `dir`: named by its entry
/// and a hash of its PTX, so that the cubin of other PTX (another
/// generator) is never taken for it. The hash is the standard library's
/// default one, fixed within one build of xtask: a cubin assembled by a
/// different build is not found, and its kernel is JIT-compiled instead.
pub fn cubin_path(dir: &Path, image: &KernelImage) -> PathBuf {
    let mut hash = DefaultHasher::new();
    image.ptx.hash(&mut hash);
    dir.join(format!("{}-{:016x}.cubin", image.entry, hash.finish()))
}

/// Caches `file` for `kt`.
pub fn save(out: &Path, kt: KernelType, file: &File) -> Result<()> {
    let path = path(out, kt);
    std::fs::create_dir_all(path.parent().expect("a folder"))?;
    std::fs::write(&path, serde_json::to_string_pretty(file)?).with_context(|| format!("{}", path.display()))
}

/// `f` of every item, on every core, in order.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = items.len().div_ceil(workers).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("pruning does not panic")).collect()
    })
}

type TileKey = (u32, u32, u32, u32, u32);

fn tile_key(s: &KernelSpec) -> TileKey {
    (s.m_blk, s.n_blk, s.k_blk, s.m_dim, s.n_dim)
}

/// A pool entry: the spec, its bound, the threads per SM its estimate
/// allows, whether it is a seed.
#[derive(Clone, Copy)]
struct Entry {
    spec: KernelSpec,
    bound: f64,
    /// FMAs per shared-memory load ([`gemm_codegen::register_reuse`]).
    reuse: f64,
    threads_per_sm: u32,
    blocks_per_sm: u32,
    seed: bool,
    /// Another `interleave` or `c_batch` of the entry before it.
    sibling: bool,
}

/// One pruning: the space of a type, ranked by the bound on `gpu` at the
/// configuration's shape and checked by `ptxas` (if any), which assembles
/// into `cubins` ([`Pruning::candidates`], or [`Pruning::reseed`] of a
/// cached list).
pub struct Pruning<'a> {
    space: &'a Space,
    gpu: &'a GpuThroughput,
    config: &'a Config,
    ptxas: Option<&'a Path>,
    cubins: &'a Path,
    scratch: Option<PathBuf>,
}

impl<'a> Pruning<'a> {
    pub fn new(
        space: &'a Space,
        gpu: &'a GpuThroughput,
        config: &'a Config,
        ptxas: Option<&'a Path>,
        cubins: &'a Path,
    ) -> Result<Pruning<'a>> {
        let scratch = match ptxas {
            Some(_) => {
                std::fs::create_dir_all(cubins).with_context(|| format!("{}", cubins.display()))?;
                Some(ptxas::tempdir()?)
            }
            None => None,
        };
        Ok(Pruning { space, gpu, config, ptxas, cubins, scratch })
    }

    /// `spec`'s pool entry, if it is legal on the device.
    fn entry(&self, spec: &KernelSpec, seed: bool) -> Option<Entry> {
        let plan = legal_with(spec, &self.space.limits()).ok()?;
        let stats = gemm_codegen::Stats::of(&plan, &self.space.device);
        let o = stats.occupancy;
        let (config, gpu) = (self.config, self.gpu);
        let fill = grid_fill(spec, config.shape, config.problems, gpu.sm_count, o.blocks_per_sm);
        let bound = AnalyticBound::of_plan(&plan, gpu, None).ok()?.tflops * fill;
        Some(Entry {
            spec: *spec,
            bound,
            reuse: gemm_codegen::register_reuse(spec),
            threads_per_sm: o.threads_per_sm(),
            blocks_per_sm: o.blocks_per_sm,
            seed,
            sibling: false,
        })
    }

    /// `e` assembled by ptxas: its ranked form if it neither spills nor
    /// leaves no block resident (the cubin kept for the timed rounds,
    /// `Gemm::load_assembled`: no JIT on the GPU machine); unchecked
    /// without ptxas. Each for its own architecture: a `wgmma` point is
    /// sm_90a in a space of sm_90, and ptxas refuses sm_90a PTX for sm_90.
    fn check(&self, e: &Entry) -> Option<Ranked> {
        let (Some(ptxas), Some(scratch)) = (self.ptxas, &self.scratch) else {
            return Some(ranked_of(e, None, e.blocks_per_sm));
        };
        let file = scratch.join(format!("k{}", e.spec.entry_name()));
        let image = gemm_codegen::compile(&e.spec).ok()?;
        let cubin = cubin_path(self.cubins, &image);
        let r = ptxas::assemble_to(ptxas, &image.ptx, e.spec.arch.token(), &file, &cubin).ok()?;
        let spills = r.spill_stores + r.spill_loads;
        let blocks =
            self.space.device.occupancy(e.spec.block().0, image.shared_bytes, r.registers).blocks_per_sm;
        let pass = spills == 0 && blocks > 0;
        if !pass {
            let _ = std::fs::remove_file(&cubin);
        }
        pass.then(|| ranked_of(e, Some(r.registers), blocks))
    }

    /// The seeds' entries, checked: a seed is kept even if ptxas rejects
    /// it (it is what ships).
    fn seeds(&self, seeds: &[Entry]) -> Vec<Ranked> {
        seeds.iter().map(|e| self.check(e).unwrap_or_else(|| ranked_of(e, None, e.blocks_per_sm))).collect()
    }

    /// The candidates of the space with `seeds` (see the module
    /// documentation), best first.
    pub fn candidates(&self, seeds: &[KernelSpec]) -> Vec<Ranked> {
        let (space, config) = (self.space, self.config);
        let mut pool: Vec<Entry> = par_map(seeds, |s| self.entry(s, true)).into_iter().flatten().collect();
        let mut sample: Vec<KernelSpec> = space.sample(config.sample).into_iter().map(|c| c.spec).collect();
        // Warpgroup points are a sliver of the space (29,994 of the 223 million
        // f32 specs admitted on sm_90: `space_pipeline.rs`'s pinned counts) that
        // a spread sample almost never meets: they get a sample of their own,
        // an eighth as large.
        if space.pipeline.has_wgmma() {
            let wgmma = space.sample_where(config.sample.div_ceil(8), |s| s.wgmma().is_some());
            let new: Vec<KernelSpec> =
                wgmma.into_iter().map(|c| c.spec).filter(|s| !sample.contains(s)).collect();
            sample.extend(new);
        }
        pool.extend(par_map(&sample, |s| self.entry(s, false)).into_iter().flatten());
        // The best tiles' pipelines.
        let mut by_tile: Vec<Entry> = pool.iter().filter(|e| !e.seed).copied().collect();
        by_tile.sort_by(|a, b| b.bound.total_cmp(&a.bound));
        let mut tiles: Vec<KernelSpec> = Vec::new();
        for e in by_tile {
            if tiles.len() < config.top_tiles && !tiles.iter().any(|t| tile_key(t) == tile_key(&e.spec)) {
                tiles.push(e.spec);
            }
        }
        let variants: Vec<KernelSpec> =
            tiles.iter().flat_map(|t| space.tile_variants(t, config.per_tile * 4)).map(|c| c.spec).collect();
        pool.extend(par_map(&variants, |s| self.entry(s, false)).into_iter().flatten());

        // Rank by bound (in steps of 1% of the best), reuse and occupancy (a
        // stable sort: the pool's order among equals), one variant per
        // signature, `per_tile` per tile.
        let (seeds, mut pool): (Vec<Entry>, Vec<Entry>) = pool.into_iter().partition(|e| e.seed);
        let best = pool.iter().map(|e| e.bound).fold(0.0, f64::max);
        let step = |e: &Entry| if best > 0.0 { (e.bound / best * 100.0).floor() as i64 } else { 0 };
        pool.sort_by(|a, b| {
            step(b)
                .cmp(&step(a))
                .then(b.reuse.total_cmp(&a.reuse))
                .then(b.threads_per_sm.cmp(&a.threads_per_sm))
        });
        let mut signatures = HashSet::new();
        let mut per_tile: HashMap<TileKey, usize> = HashMap::new();
        // At most half of those kept are `wgmma` points: their bound is loose
        // (on the H100 the best `wgmma` kernel of each SGEMM type runs at 44–45%
        // of it, the best FMA one at 73–81% of its own: `python3
        // tuning/sm_90-wgmma/bound-ratio.py`), so ranked by bound alone they
        // would leave no room for the FMA kernels that win at many shapes.
        let mut wgmma = 0;
        let ranked: Vec<Entry> = pool
            .into_iter()
            .filter(|e| !seeds.iter().any(|s| s.spec == e.spec) && signatures.insert(signature(&e.spec)))
            .filter(|e| {
                let n = per_tile.entry(tile_key(&e.spec)).or_default();
                *n += 1;
                *n <= config.per_tile
            })
            .filter(|e| {
                wgmma += usize::from(e.spec.wgmma().is_some());
                e.spec.wgmma().is_none() || wgmma <= config.keep.div_ceil(2)
            })
            .collect();
        let ranked = with_siblings(space, ranked, config);

        let mut out: Vec<(bool, Ranked)> = Vec::new();
        if self.ptxas.is_none() {
            out.extend(ranked.iter().map(|e| (e.sibling, ranked_of(e, None, e.blocks_per_sm))));
        } else {
            // In batches of a few per core, until `keep` pass besides the siblings.
            for batch in ranked.chunks(16) {
                out.extend(par_map(batch, |e| self.check(e).map(|r| (e.sibling, r))).into_iter().flatten());
                if out.iter().filter(|(sibling, _)| !sibling).count() > config.keep {
                    break;
                }
            }
        }
        out.truncate(keep_cut(&out, |(sibling, _)| *sibling, config.keep));
        let mut out: Vec<Ranked> = out.into_iter().map(|(_, r)| r).collect();
        out.extend(self.seeds(&seeds));
        out
    }

    /// The candidates of a pruning made with other seeds (`cached`, of the same
    /// space, GPU and configuration), for `seeds`: its ranked candidates but
    /// those now among the seeds, then the seeds, checked. The seeds take part
    /// in pruning only as seeds (a sampled spec equal to one is left to it), so
    /// this is what pruning anew finds, in its order, but for the candidates
    /// that would take the place of one a seed displaced (the next of its
    /// signature or tile, one more at the end): the list is that much shorter.
    /// The shipped kernels are seeds, so each regenerated table would otherwise
    /// make every cached list stale.
    pub fn reseed(&self, cached: Vec<Ranked>, seeds: &[KernelSpec]) -> Vec<Ranked> {
        let mut out: Vec<Ranked> =
            cached.into_iter().filter(|r| !r.seed && !seeds.contains(&r.spec)).collect();
        let entries: Vec<Entry> = seeds.iter().filter_map(|s| self.entry(s, true)).collect();
        out.extend(self.seeds(&entries));
        out
    }
}

impl Drop for Pruning<'_> {
    fn drop(&mut self) {
        if let Some(scratch) = &self.scratch {
            let _ = std::fs::remove_dir_all(scratch);
        }
    }
}

/// What the bound sees of a spec: all but the cache path, the
/// rasterization, the placement of a ring's copies and the epilogue's
/// grouping of C's columns.
fn signature(spec: &KernelSpec) -> KernelSpec {
    KernelSpec {
        ldg: KernelSpec::DEFAULT_LDG,
        raster: KernelSpec::DEFAULT_RASTER,
        interleave: KernelSpec::DEFAULT_INTERLEAVE,
        c_batch: KernelSpec::DEFAULT_C_BATCH,
        ..*spec
    }
}

/// `ranked` (entries of `space`) with each of its first
/// `config.interleaved` entries followed by its `interleave` siblings, the
/// space's other values of it
/// ([`gemm_codegen::space::Pipeline::interleave_values`]), and each of its
/// first `config.c_batched` by its [`c_batch_values`] siblings, all sharing
/// its rank.
fn with_siblings(space: &Space, ranked: Vec<Entry>, config: &Config) -> Vec<Entry> {
    let mut out = Vec::with_capacity(ranked.len());
    for (i, e) in ranked.into_iter().enumerate() {
        out.push(e);
        if i < config.interleaved {
            // `e` is in the space, so are its other interleaves.
            let siblings = space.pipeline.interleave_values(&e.spec).filter(|&g| g != e.spec.interleave);
            out.extend(siblings.map(|interleave| Entry {
                spec: KernelSpec { interleave, ..e.spec },
                sibling: true,
                ..e
            }));
        }
        if i < config.c_batched {
            out.extend(c_batch_siblings(&e.spec).map(|spec| Entry { spec, sibling: true, ..e }));
        }
    }
    out
}

/// The seeds of pruning: the Table 2 configuration, the kernels gemm-host
/// ships for `arch` (the bar to beat, one per size they were tuned at), and
/// those of `extra` (`--seed`) of `kt`'s precision and ops, each once; with
/// `siblings_of` (the class tuned, `--c-batched`), the `c_batch` siblings
/// ([`c_batch_values`]) of the shipped kernel of that class and of
/// the given ones: the class's winner, or the kernels of a nearby class,
/// reading C in groups.
pub fn seeds(
    kt: KernelType,
    arch: u32,
    extra: &[KernelSpec],
    siblings_of: Option<(Shape, bool)>,
) -> Vec<KernelSpec> {
    let table2 = gemm_kernels::table2(kt.precision, kt.op_a, kt.op_b).spec;
    let shipped = gemm_kernels::tuned_kernels(arch, kt.precision, kt.op_a, kt.op_b);
    let given = extra.iter().filter(|s| (s.precision, s.op_a, s.op_b) == (kt.precision, kt.op_a, kt.op_b));
    let given: Vec<&KernelSpec> = given.collect();
    let class: Vec<KernelSpec> = match siblings_of {
        Some(((m, n, k), batch)) => shipped
            .iter()
            .filter(|e| e.batch == batch && e.tuned_for.map(u64::from) == [m, n, k])
            .map(|e| &e.spec)
            .chain(given.iter().copied())
            .flat_map(c_batch_siblings)
            .collect(),
        None => Vec::new(),
    };
    let mut out: Vec<KernelSpec> = Vec::new();
    for s in [table2].iter().chain(shipped.iter().map(|k| &k.spec)).chain(given.iter().copied()).chain(&class)
    {
        if !out.contains(s) {
            out.push(*s);
        }
    }
    out
}

/// `seeds`, each followed by its stream-K twin (`schedule = stream_k`)
/// where it has none in the list; legal whenever the seed is (the schedule
/// adds no rule).
pub fn with_stream_k_twins(seeds: Vec<KernelSpec>) -> Vec<KernelSpec> {
    let mut out: Vec<KernelSpec> = Vec::with_capacity(2 * seeds.len());
    for s in seeds {
        for spec in [s, KernelSpec { schedule: Schedule::StreamK, ..s }] {
            if !out.contains(&spec) {
                out.push(spec);
            }
        }
    }
    out
}

/// `spec` with each other value of [`c_batch_values`]: its siblings.
fn c_batch_siblings(spec: &KernelSpec) -> impl Iterator<Item = KernelSpec> {
    let spec = *spec;
    c_batch_values(&spec)
        .filter(move |&b| b != spec.c_batch)
        .map(move |c_batch| KernelSpec { c_batch, ..spec })
}

/// The `c_batch` values a candidate's siblings take: the powers of two from
/// 2 up to the thread's columns of C, and that count itself (every one is
/// legal: [`gemm_codegen::constraints::c_batch_allowed`]).
pub fn c_batch_values(spec: &KernelSpec) -> impl Iterator<Item = u32> + use<> {
    let columns = spec.n_thr();
    let powers = std::iter::successors(Some(2u32), |&b| b.checked_mul(2)).take_while(move |&b| b < columns);
    powers.chain((columns >= 2).then_some(columns))
}

/// The length of the prefix of `list` that holds its first `keep` entries
/// that are not siblings, with the siblings that follow the last of them.
fn keep_cut<T>(list: &[T], sibling: impl Fn(&T) -> bool, keep: usize) -> usize {
    let mut primaries = 0;
    list.iter()
        .position(|e| {
            primaries += usize::from(!sibling(e));
            primaries > keep
        })
        .unwrap_or(list.len())
}

fn ranked_of(e: &Entry, registers: Option<u32>, blocks_per_sm: u32) -> Ranked {
    Ranked { spec: e.spec, bound_tflops: e.bound, registers, blocks_per_sm, seed: e.seed }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pruning without ptxas (nothing assembled, no cubins).
    fn pruning<'a>(space: &'a Space, gpu: &'a GpuThroughput, config: &'a Config) -> Pruning<'a> {
        Pruning::new(space, gpu, config, None, Path::new("unused")).unwrap()
    }
    use gemm_codegen::{DeviceLimits, Op, Precision};

    /// Without a GPU and without ptxas: the seeds stay, every candidate is
    /// in the space or a seed, ranked by bound, at most `per_tile` per
    /// tile, and the result is the same twice (it is cached on that).
    #[test]
    fn candidates_are_ranked_diverse_and_deterministic() {
        let h100 = DeviceLimits::for_arch("sm_90").unwrap();
        let space = Space::for_tuning(Precision::C64, Op::N, Op::T, h100);
        let gpu = crate::bound::machine_for_arch("NVIDIA H100 80GB HBM3", 90, None).unwrap();
        let table2 = gemm_kernels::table2(Precision::C64, Op::N, Op::T).spec;
        let config = Config {
            sample: 40,
            top_tiles: 2,
            per_tile: 3,
            interleaved: 0,
            c_batched: 0,
            keep: 12,
            shape: (4096, 4096, 4096),
            problems: 1,
        };
        let found = pruning(&space, &gpu, &config).candidates(&[table2]);
        assert_eq!(found.len(), 13, "the 12 best, then the seed");
        assert!(found[12].seed && found[12].spec == table2);
        let best = &found[..12];
        // Ranked by bound in steps of 1% of the best, reuse breaking ties.
        let top = best[0].bound_tflops;
        assert!(best.windows(2).all(|w| w[0].bound_tflops >= w[1].bound_tflops - 0.01 * top));
        let mut tiles: HashMap<TileKey, usize> = HashMap::new();
        let mut signatures = HashSet::new();
        for r in best {
            assert!(!r.seed && space.contains(&r.spec), "{}", r.spec);
            assert!(r.bound_tflops > 0.0 && r.blocks_per_sm > 0);
            *tiles.entry(tile_key(&r.spec)).or_default() += 1;
            assert!(
                signatures.insert(signature(&r.spec)),
                "{} differs from another in ldg or raster only",
                r.spec
            );
        }
        assert!(tiles.values().all(|&n| n <= 3), "{tiles:?}");
        assert!(found.iter().any(|r| r.spec.stages > 1));
        assert_eq!(found, pruning(&space, &gpu, &config).candidates(&[table2]));

        // Reseeded with the 3rd candidate and another spec as seeds: the
        // list pruned anew with them, in its order, but for what took the
        // 3rd's place there (the next of its signature or tile, and one
        // more at the end).
        let other = KernelSpec { c_batch: 2, ..table2 };
        let seeds = [found[2].spec, other];
        let reseeded = pruning(&space, &gpu, &config).reseed(found.clone(), &seeds);
        let anew = pruning(&space, &gpu, &config).candidates(&seeds);
        assert_eq!(reseeded.len(), 13);
        assert_eq!(reseeded[11..], anew[12..], "the seeds, after the candidates");
        assert!(reseeded[11..].iter().all(|r| r.seed) && !reseeded[..11].iter().any(|r| r.seed));
        let mut rest = anew[..12].iter();
        assert!(reseeded[..11].iter().all(|r| rest.any(|a| a == r)), "in the fresh pruning's order");
        assert!(!reseeded.iter().any(|r| r.spec == table2), "the old seed is gone");
    }

    /// With `--wgmma`, warpgroup points reach the candidates through a
    /// sample of their own (the spread sample of 40 meets none), and fill
    /// at most half of those kept (their loose bound would take them all).
    #[test]
    fn wgmma_points_are_sampled_and_capped() {
        let h100 = DeviceLimits::for_arch("sm_90").unwrap();
        let space = Space::for_tuning(Precision::F32, Op::N, Op::N, h100);
        let gpu = crate::bound::machine_for_arch("NVIDIA H100 80GB HBM3", 90, None).unwrap();
        let config = Config {
            sample: 40,
            top_tiles: 4,
            per_tile: 3,
            interleaved: 0,
            c_batched: 0,
            keep: 12,
            shape: (1024, 1024, 1024),
            problems: 1,
        };
        assert!(space.sample(40).iter().all(|c| c.spec.wgmma().is_none()));
        let plain = pruning(&space, &gpu, &config).candidates(&[]);
        assert!(plain.iter().all(|r| r.spec.wgmma().is_none()));
        let space = space.clone().with_pipeline(space.pipeline.clone().with_wgmma());
        let found = pruning(&space, &gpu, &config).candidates(&[]);
        let wgmma = found.iter().filter(|r| r.spec.wgmma().is_some()).count();
        assert!(wgmma > 0 && wgmma <= 6, "{wgmma} of {}", found.len());
        assert!(found.len() > wgmma, "FMA candidates stay");
        assert!(found.iter().all(|r| space.contains(&r.spec)));
    }

    /// The candidates of an H100 space of `kt`'s type from a small sample,
    /// keeping `keep`, without siblings and with those `siblings` asks for.
    fn with_and_without_siblings(
        (precision, op_a, op_b): (Precision, Op, Op),
        keep: usize,
        shape: Shape,
        siblings: impl Fn(Config) -> Config,
    ) -> (Space, Vec<Ranked>, Vec<Ranked>) {
        let h100 = DeviceLimits::for_arch("sm_90").unwrap();
        let space = Space::for_tuning(precision, op_a, op_b, h100);
        let gpu = crate::bound::machine_for_arch("NVIDIA H100 80GB HBM3", 90, None).unwrap();
        let config = Config {
            sample: 40,
            top_tiles: 2,
            per_tile: 3,
            interleaved: 0,
            c_batched: 0,
            keep,
            shape,
            problems: 1,
        };
        let plain = pruning(&space, &gpu, &config).candidates(&[]);
        let found = pruning(&space, &gpu, &siblings(config)).candidates(&[]);
        (space, plain, found)
    }

    /// The best-ranked rings are followed by their `interleave` siblings,
    /// which share their bound; the rest is ranked as without them.
    #[test]
    fn the_best_rings_bring_their_interleave_siblings() {
        let (space, plain, found) =
            with_and_without_siblings((Precision::F32, Op::N, Op::N), 30, (4096, 4096, 4096), |c| Config {
                interleaved: 2,
                ..c
            });
        let rings: Vec<_> =
            plain[..2].iter().filter(|r| r.spec.stages > 1 && r.spec.unroll.is_none()).collect();
        assert!(!rings.is_empty(), "the best of the sample are rings");
        let mut at = 0;
        for r in &plain[..2] {
            assert_eq!(found[at], *r);
            at += 1;
            if r.spec.stages > 1 && r.spec.unroll.is_none() {
                let mut values = vec![r.spec.interleave];
                while at < found.len() && signature(&found[at].spec) == signature(&r.spec) {
                    assert_eq!(found[at].bound_tflops, r.bound_tflops);
                    assert!(space.contains(&found[at].spec), "{}", found[at].spec);
                    values.push(found[at].spec.interleave);
                    at += 1;
                }
                values.sort_unstable();
                assert_eq!(
                    values,
                    [0, 1, 2, 4, 8].into_iter().filter(|&g| g <= r.spec.k_blk).collect::<Vec<_>>()
                );
            }
        }
        assert_eq!(found[at..], plain[2..2 + found.len() - at]);
        // The siblings come on top of the 30 kept.
        let siblings = found.iter().filter(|r| plain.iter().all(|p| p.spec != r.spec)).count();
        assert!(siblings >= 3 && found.len() == 30 + siblings, "{siblings} siblings of {}", found.len());
    }

    /// The best-ranked candidates are followed by their `c_batch` siblings
    /// (legal specs of the same bound); the rest is ranked as without them.
    #[test]
    fn the_best_candidates_bring_their_c_batch_siblings() {
        let (_, plain, found) =
            with_and_without_siblings((Precision::C64, Op::T, Op::N), 20, (8192, 8192, 64), |c| Config {
                c_batched: 2,
                ..c
            });
        let mut at = 0;
        for r in &plain[..2] {
            assert_eq!(found[at], *r);
            at += 1;
            let mut values = Vec::new();
            let sibling = |s: &KernelSpec| *s == KernelSpec { c_batch: s.c_batch, ..r.spec };
            while at < found.len() && sibling(&found[at].spec) {
                assert_eq!(found[at].bound_tflops, r.bound_tflops);
                gemm_codegen::validate(&found[at].spec).unwrap();
                values.push(found[at].spec.c_batch);
                at += 1;
            }
            assert_eq!(values, c_batch_values(&r.spec).collect::<Vec<_>>(), "{}", r.spec);
        }
        assert_eq!(found[at..], plain[2..2 + found.len() - at]);
    }

    #[test]
    fn c_batch_values_are_powers_of_two_and_the_thread_s_columns() {
        let with_columns = |n: u32| {
            KernelSpec::new(Precision::F32, (Op::N, Op::N), (64, 8 * n, 8), (16, 8), (16, 8), (8, 16))
        };
        let values = |n| c_batch_values(&with_columns(n)).collect::<Vec<_>>();
        assert_eq!(values(16), [2, 4, 8, 16]);
        assert_eq!(values(6), [2, 4, 6]);
        assert_eq!(values(2), [2]);
        assert_eq!(values(1), [] as [u32; 0]);
    }

    #[test]
    fn keep_cut_counts_only_the_primaries() {
        let sibling = |c: &char| c.is_lowercase();
        assert_eq!(keep_cut(&['A', 'a', 'a', 'B', 'C', 'c'], sibling, 2), 4);
        assert_eq!(keep_cut(&['A', 'a', 'a', 'B', 'C', 'c'], sibling, 3), 6);
        assert_eq!(keep_cut(&['A', 'B'], sibling, 5), 2);
        assert_eq!(keep_cut(&['A', 'a'], sibling, 0), 0);
    }

    #[test]
    fn grid_fill_counts_ragged_tiles_and_the_last_wave() {
        let spec = |m_blk, n_blk, k_blk| KernelSpec {
            m_blk,
            n_blk,
            k_blk,
            ..gemm_kernels::table2(Precision::F32, Op::N, Op::N).spec
        };
        // 8192 = 64 · 128: whole tiles; 64 · 64 = 4096 blocks, 132 × 2 per
        // wave: 16 waves, the last 136 of 264.
        let fill = grid_fill(&spec(128, 128, 16), (8192, 8192, 8192), 1, 132, 2);
        assert!((fill - 4096.0 / (16.0 * 264.0)).abs() < 1e-12, "{fill}");
        // 1024 on 192 × 128 tiles: 6 × 8 = 48 blocks of 1152 × 1024, one
        // wave of 132.
        let fill = grid_fill(&spec(192, 128, 16), (1024, 1024, 1024), 1, 132, 1);
        assert!((fill - (1024.0 / 1152.0) * (48.0 / 132.0)).abs() < 1e-12, "{fill}");
        // Ragged in M, N (1056 = 16.5 · 64) and K (1056 = 26.4 · 40); one SM.
        let fill = grid_fill(&spec(64, 64, 40), (1056, 1056, 1056), 1, 1, 1);
        let want = (1056.0f64 / 1088.0).powi(2) * (1056.0 / 1080.0);
        assert!((fill - want).abs() < 1e-12, "{fill}");
        assert!(grid_fill(&spec(64, 64, 16), (1 << 20, 1 << 20, 1 << 20), 1, 132, 4) > 0.99);
        assert_eq!(grid_fill(&spec(64, 64, 16), (0, 64, 64), 1, 132, 4), 0.0);
        // A skinny K: a 64-deep stripe over K = 32 computes half padding;
        // 8192 × 8192 on 128 × 128 tiles is 4096 blocks, 16 waves of 264.
        let fill = grid_fill(&spec(128, 128, 64), (8192, 8192, 32), 1, 132, 2);
        assert!((fill - 0.5 * 4096.0 / (16.0 * 264.0)).abs() < 1e-12, "{fill}");
        // A batch fills the waves with its problems: a 64 x 64 tile on one
        // 8 x 8 x 8 problem is 1/64 useful and one block of 264; on 2^20 of
        // them, the waves are full and only the tile's padding is left.
        let one = grid_fill(&spec(64, 64, 16), (8, 8, 8), 1, 132, 2);
        assert!((one - (1.0 / 64.0) * 0.5 * (1.0 / 264.0)).abs() < 1e-12, "{one}");
        let many = grid_fill(&spec(64, 64, 16), (8, 8, 8), 1 << 20, 132, 2);
        assert!(
            (many - (1.0 / 64.0) * 0.5 * (1.0 / (1.0 + 8.0 / (1u64 << 20) as f64))).abs() < 1e-6,
            "{many}"
        );
        let fitted = grid_fill(&spec(8, 8, 8), (8, 8, 8), 1 << 20, 132, 8);
        assert!(fitted > 0.99, "{fitted}");
        assert_eq!(grid_fill(&spec(8, 8, 8), (8, 8, 8), 0, 132, 8), 0.0);
    }

    #[test]
    fn the_cache_is_keyed_by_arch_generator_and_config() {
        let out = std::env::temp_dir().join(format!("gemmforge-prune-{}", std::process::id()));
        let kt = KernelType { precision: Precision::F32, op_a: Op::N, op_b: Op::N };
        let config = Config {
            sample: 1,
            top_tiles: 1,
            per_tile: 1,
            interleaved: 0,
            c_batched: 0,
            keep: 1,
            shape: (4096, 4096, 4096),
            problems: 1,
        };
        let spec = gemm_kernels::table2(Precision::F32, Op::N, Op::N).spec;
        let ranked = Ranked { spec, bound_tflops: 50.0, registers: Some(90), blocks_per_sm: 2, seed: true };
        let file = File {
            arch: 90,
            generator: gemm_codegen::VERSION.into(),
            ptxas: true,
            config,
            seeds: vec![spec],
            candidates: vec![ranked.clone()],
        };
        save(&out, kt, &file).unwrap();
        assert_eq!(load(&out, kt, 90, &config), Some(file));
        assert_eq!(load(&out, kt, 80, &config), None);
        assert_eq!(load(&out, kt, 90, &Config { keep: 2, ..config }), None);
        assert_eq!(load(&out, kt, 90, &Config { shape: (1024, 1024, 1024), ..config }), None, "another size");
        assert_eq!(load(&out, kt, 90, &Config { problems: 1000, ..config }), None, "a batch");
        let _ = std::fs::remove_dir_all(&out);
    }
}
