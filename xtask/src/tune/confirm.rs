//! The end of a kernel type's tuning: the confirmation of its winner
//! (timed again beside Table 2's configuration and cuBLAS) and the split
//! phase (the winner timed with K split, the class's split where faster),
//! and `--split-only`, the split phase of every confirmed class alone.

use std::collections::BTreeSet;
use std::time::Instant;

use anyhow::Result;
use gemm_codegen::{Element, KernelSpec};
use gemm_host::num_complex::Complex;
use gemm_host::timing::Plan;
use gemm_host::{GemmConfig, reference::Random};

use super::Tuner;
use super::record::{Journal, KernelType, Phase, Record, Shape, Subject};
use super::winners::{confirmed_rates, fastest};
use crate::measure::Bench;

impl Tuner<'_> {
    /// `--split-only`: the split phase ([`Tuner::split`]) of every class of
    /// `types` the journal confirmed on this device (one problem a call,
    /// `--update` as given; at `--shape` only, if given), without the search;
    /// `false` when the call's budget ran out.
    pub(super) fn split_classes<T: Element>(
        &mut self,
        types: &[KernelType],
        journal: &mut Journal,
        rng: &mut Random,
    ) -> Result<bool> {
        let classes: BTreeSet<(KernelType, Shape)> = journal
            .records()
            .iter()
            .filter(|r| &r.device == self.device && types.contains(&r.kernel_type))
            .filter(|r| r.update == self.args.update && r.batch.is_none())
            .filter(|r| matches!(r.phase, Phase::Confirm { .. }))
            .filter(|r| self.args.shape.is_none_or(|s| s == r.size))
            .map(|r| (r.kernel_type, r.size))
            .collect();
        let minus_one = gemm_host::reference::narrow::<T>(Complex::new(-1.0, 0.0));
        let (alpha, beta) = if self.args.update { (minus_one, T::ONE) } else { (T::ONE, T::ZERO) };
        let costs = self.args.costs();
        for (kt, size @ (m, n, k)) in classes {
            let cfg =
                GemmConfig::<T>::new(kt.op_a, kt.op_b, m as i64, n as i64, k as i64).alpha(alpha).beta(beta);
            let mut bench = Bench::new_batch(self.gemm, cfg, 1, rng)?;
            let table2 = gemm_kernels::table2(kt.precision, kt.op_a, kt.op_b).spec;
            // Three timings at twice the reps, at a conservative 1 TFLOP/s.
            let flops = kt.precision.flops_per_fma() as f64 * (m * n * k) as f64;
            if !self.split(journal, &mut bench, (kt, table2), size, 3.0 * 2.0 * costs.seconds(flops, 1.0))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Times the confirmed winner at `size` unsplit and with K split into 2,
    /// 3 and 4 slices, back to back with twice the repetitions, as
    /// [`Phase::Split`] records (`slices = 1` the unsplit one): the class's
    /// split if one is faster than the same run's unsplit timing
    /// ([`winners::select`]). Only where the winner's tiles fill less than
    /// one wave of the GPU's resident blocks, the dispatch would not split
    /// the call anyway and K can be cut; not for batches. Timings already
    /// journaled (any run) are not repeated. `false` when the call's budget
    /// cannot hold them (`estimate_s`).
    pub(super) fn split<T: Element>(
        &mut self,
        journal: &mut Journal,
        bench: &mut Bench<T>,
        (kt, table2): (KernelType, KernelSpec),
        size: Shape,
        estimate_s: f64,
    ) -> Result<bool> {
        let class = self.record_base(kt, size, Subject::Cublas).class();
        let Some(&winner) = fastest(journal.records(), &class, 1).first() else {
            return Ok(true);
        };
        if self.args.batch.is_some() {
            return Ok(true);
        }
        let image = gemm_codegen::compile(&winner).map_err(|v| anyhow::anyhow!("{}", v[0]))?;
        let loaded = self.load(kt, &image)?;
        let (m, n, k) = size;
        let dim = |d: u64| u32::try_from(d).unwrap_or(u32::MAX);
        let (tm, tn) = image.launch().tiles(dim(m), dim(n));
        let resident = u64::from(self.gemm.device().sm_count) * u64::from(loaded.info().blocks_per_sm.max(1));
        if tm * tn >= resident || self.gemm.default_slices(&loaded, bench.cfg()) > 1 {
            return Ok(true);
        }
        let base = self.record_base(kt, size, Subject::Variant { spec: winner, table2: winner == table2 });
        // The same measurement, journaled by this run or an earlier one.
        let timed = |slices: u32| {
            journal.records().iter().any(|r| {
                matches!(r.phase, Phase::Split { slices: s, .. } if s == slices)
                    && r.class() == class
                    && r.subject == base.subject
            })
        };
        // Each count K can be cut into (slices at least SLICE_GRAIN deep).
        let todo: Vec<u32> = (2..=4)
            .filter(|&s| gemm_host::pass::slicing(dim(k), s).is_some_and(|(made, _)| made == s))
            .filter(|&s| !timed(s))
            .collect();
        if todo.is_empty() {
            return Ok(true);
        }
        self.call.used_s = self.started.elapsed().as_secs_f64();
        if !self.call.allows(estimate_s) {
            return Ok(false);
        }
        let plan = Plan { warmup: 1, reps: 2 * self.args.reps.max(1) };
        // Unsplit first, in the same run: what the splits are compared with.
        for slices in std::iter::once(1).chain(todo) {
            let started = Instant::now();
            let timing = bench.time_ours(self.gemm, plan, &loaded, slices)?;
            journal.append(Record {
                phase: Phase::Split { run: self.run, slices },
                median_ms: Some(timing.median_ms),
                gpu_s: Some(started.elapsed().as_secs_f64()),
                ..base.clone()
            })?;
        }
        Ok(true)
    }

    /// Times `kernel` on the bench's call as a default call runs it: K
    /// split as the dispatch splits it for this kernel (one slice for all
    /// but long K with few tiles), so a class's winner is the fastest
    /// kernel with its split.
    pub(super) fn time_ours<T: Element>(
        &self,
        bench: &mut Bench<T>,
        plan: Plan,
        kernel: &gemm_host::LoadedKernel,
    ) -> Result<gemm_host::timing::Timing> {
        // (A batch's problems are never split: `Bench::time_ours`.)
        bench.time_ours(self.gemm, plan, kernel, self.gemm.default_slices(kernel, bench.cfg()))
    }

    /// Times the search's winner, the Table 2 configuration and cuBLAS back
    /// to back, with twice the repetitions, and journals them as this run's
    /// confirmation. Returns their TFLOP/s, or `None` if nothing verified.
    ///
    /// A winner already confirmed in the journal (by an earlier call) is
    /// not timed again; `None` when the call's budget cannot hold the
    /// confirmation's `estimate_s`.
    pub(super) fn confirm<T: Element>(
        &mut self,
        journal: &mut Journal,
        bench: &mut Bench<T>,
        kt: KernelType,
        size: (u64, u64, u64),
        table2: KernelSpec,
        estimate_s: f64,
    ) -> Result<Option<Option<[f64; 3]>>> {
        let class = self.record_base(kt, size, Subject::Cublas).class();
        let Some(&winner) = fastest(journal.records(), &class, 1).first() else {
            return Ok(Some(None));
        };
        if let Some(rates) = confirmed_rates(journal.records(), &class, winner) {
            return Ok(Some(Some(rates)));
        }
        self.call.used_s = self.started.elapsed().as_secs_f64();
        if !self.call.allows(estimate_s) {
            return Ok(None);
        }
        let plan = Plan { warmup: 1, reps: 2 * self.args.reps.max(1) };
        let mut rates = [0.0; 3];
        let subjects = [
            Subject::Variant { spec: winner, table2: winner == table2 },
            Subject::Variant { spec: table2, table2: true },
            Subject::Cublas,
        ];
        for (rate, subject) in rates.iter_mut().zip(subjects) {
            let started = Instant::now();
            let timing = match &subject {
                Subject::Variant { spec, .. } => {
                    let image = gemm_codegen::compile(spec).map_err(|v| anyhow::anyhow!("{}", v[0]))?;
                    let loaded = self.load(kt, &image)?;
                    self.time_ours(bench, plan, &loaded)?
                }
                Subject::Cublas => bench.time_cublas(self.gemm, plan, self.cublas)?,
            };
            let record = Record {
                phase: Phase::Confirm { run: self.run },
                median_ms: Some(timing.median_ms),
                gpu_s: Some(started.elapsed().as_secs_f64()),
                ..self.record_base(kt, size, subject)
            };
            *rate = record.tflops().unwrap_or(0.0);
            journal.append(record)?;
        }
        Ok(Some(Some(rates)))
    }
}
