//! Successive halving under a GPU-time budget: which of the ranked
//! candidates are timed on the small problem, and how many of them, the
//! fastest there, go on to the full-size problem.
//!
//! Pure functions of estimates, never of measured times: so a `--resume`
//! call plans exactly what the interrupted call planned, and the journal
//! alone says what is left.

/// What one measurement is expected to cost, in seconds of GPU time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// Per variant, whatever the size: PTX generation, the driver's JIT,
    /// the verification problem.
    pub overhead_s: f64,
    /// Launches per measurement (warm-up and timed).
    pub launches: usize,
    /// The share of its analytic bound a variant is assumed to reach
    /// (below the measured ones, so the plan errs on the safe side).
    pub efficiency: f64,
}

impl Costs {
    /// The estimated seconds to measure a variant whose bound is
    /// `bound_tflops` on a problem of `flops`.
    pub fn seconds(&self, flops: f64, bound_tflops: f64) -> f64 {
        let rate = (self.efficiency * bound_tflops).max(1e-3) * 1e12;
        self.overhead_s + self.launches as f64 * flops / rate
    }
}

/// The two rounds of one kernel type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Halving {
    /// The first this many candidates (in rank order) are timed on the
    /// small problem.
    pub small: usize,
    /// The fastest this many of those go on to the full size.
    pub full: usize,
}

/// What the planner is given for one kernel type.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem<'a> {
    /// The candidates' bounds, TFLOP/s, in rank order.
    pub bounds: &'a [f64],
    /// Flops of the small and of the full-size problem.
    pub flops: (f64, f64),
    /// GPU seconds the type may spend.
    pub budget_s: f64,
    /// GPU seconds spent whatever the plan (cuBLAS, the confirmation).
    pub fixed_s: f64,
    /// One in `eta` survives the small round (rounded up).
    pub eta: usize,
    /// At most this many on the small problem.
    pub max_small: usize,
}

/// The largest first round whose two rounds fit the budget, with
/// `ceil(small / eta)` survivors; at least one candidate each when there
/// are any (a type always gets a winner, over budget if it must).
///
/// The full round's cost is taken as that many of the slowest-estimated
/// candidates of the first round: which ones survive is not known yet.
pub fn plan(p: &Problem, costs: &Costs) -> Halving {
    let eta = p.eta.max(1);
    let (small_flops, full_flops) = p.flops;
    let most = p.max_small.min(p.bounds.len());
    let fits = |small: usize| {
        let first: f64 = p.bounds[..small].iter().map(|&b| costs.seconds(small_flops, b)).sum();
        let slowest = p.bounds[..small].iter().map(|&b| costs.seconds(full_flops, b)).fold(0.0, f64::max);
        p.fixed_s + first + small.div_ceil(eta) as f64 * slowest <= p.budget_s
    };
    let small = (1..=most).rev().find(|&k| fits(k)).unwrap_or(most.min(1));
    Halving { small, full: small.div_ceil(eta) }
}

/// The `n` fastest of the first round: `(index, TFLOP/s)` of every
/// candidate measured (`None`: it failed), best first, ties by index.
pub fn survivors(results: &[(usize, Option<f64>)], n: usize) -> Vec<usize> {
    let mut ok: Vec<(usize, f64)> = results.iter().filter_map(|&(i, r)| Some((i, r?))).collect();
    ok.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ok.into_iter().take(n).map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const COSTS: Costs = Costs { overhead_s: 0.5, launches: 6, efficiency: 0.5 };

    fn problem(bounds: &[f64], budget_s: f64) -> Problem<'_> {
        // 4096³ and 16384³ SGEMM.
        let f = |n: f64| 2.0 * n * n * n;
        Problem { bounds, flops: (f(4096.0), f(16384.0)), budget_s, fixed_s: 5.0, eta: 4, max_small: 64 }
    }

    #[test]
    fn cost_of_one_measurement() {
        // 2·4096³ flops at half of 40 TFLOP/s, six launches: 41 ms, plus 0.5 s.
        let s = COSTS.seconds(2.0 * 4096f64.powi(3), 40.0);
        assert!((s - (0.5 + 6.0 * 2.0 * 4096f64.powi(3) / 20e12)).abs() < 1e-12);
        // A zero bound does not divide by zero.
        assert!(COSTS.seconds(1e9, 0.0).is_finite());
    }

    #[test]
    fn the_plan_fits_the_budget_and_grows_with_it() {
        let bounds = vec![50.0; 100];
        let mut last = 0;
        for budget in [20.0, 40.0, 80.0, 160.0] {
            let h = plan(&problem(&bounds, budget), &COSTS);
            assert_eq!(h.full, h.small.div_ceil(4));
            let p = problem(&bounds, budget);
            let spent = p.fixed_s
                + h.small as f64 * COSTS.seconds(p.flops.0, 50.0)
                + h.full as f64 * COSTS.seconds(p.flops.1, 50.0);
            assert!(spent <= budget, "{budget}: {h:?} spends {spent}");
            // One more would not fit (unless capped).
            let more = spent + COSTS.seconds(p.flops.0, 50.0) + COSTS.seconds(p.flops.1, 50.0);
            assert!(h.small == 64 || more > budget, "{budget}: {h:?}");
            assert!(h.small >= last);
            last = h.small;
        }
        assert_eq!(plan(&problem(&bounds, 1e9), &COSTS).small, 64, "capped by max_small");
    }

    #[test]
    fn slow_candidates_cost_more_and_small_spaces_are_taken_whole() {
        let fast = plan(&problem(&[60.0; 50], 40.0), &COSTS);
        let slow = plan(&problem(&[5.0; 50], 40.0), &COSTS);
        assert!(slow.small < fast.small, "{slow:?} {fast:?}");
        assert_eq!(plan(&problem(&[60.0; 3], 1e6), &COSTS), Halving { small: 3, full: 1 });
        // Over budget: still one of each, so the type gets a winner.
        assert_eq!(plan(&problem(&[60.0; 3], 1.0), &COSTS), Halving { small: 1, full: 1 });
        assert_eq!(plan(&problem(&[], 100.0), &COSTS), Halving { small: 0, full: 0 });
    }

    #[test]
    fn survivors_are_the_fastest_measured() {
        let results = [(0, Some(10.0)), (1, None), (2, Some(30.0)), (3, Some(20.0)), (4, Some(30.0))];
        assert_eq!(survivors(&results, 2), [2, 4]);
        assert_eq!(survivors(&results, 10), [2, 4, 3, 0]);
        assert!(survivors(&[(0, None)], 1).is_empty());
    }
}
