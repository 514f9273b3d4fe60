//! GPU-time budgets and the resumable measurement loop.
//!
//! Every measurement journals the GPU seconds it took ([`Record::gpu_s`]),
//! so what a kernel type has spent is the sum over the journal, across
//! calls. A call stops *before* a measurement whose estimate would take it
//! past `--budget-minutes`, leaving the journal complete up to there; the
//! next call with `--resume` plans the same measurements and skips those
//! journaled ([`run_jobs`]).

use anyhow::Result;

use super::record::{Journal, Record, RecordKey};

/// Seconds allowed and spent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// The most seconds; `None`: no limit.
    pub limit_s: Option<f64>,
    /// Seconds spent so far.
    pub used_s: f64,
}

impl Budget {
    /// `limit_s` seconds, `used_s` of them already spent.
    pub fn new(limit_s: Option<f64>, used_s: f64) -> Budget {
        Budget { limit_s, used_s }
    }

    /// Whether a step estimated at `estimate_s` still fits.
    pub fn allows(&self, estimate_s: f64) -> bool {
        self.limit_s.is_none_or(|limit| self.used_s + estimate_s <= limit)
    }

    /// Records `seconds` spent.
    pub fn charge(&mut self, seconds: f64) {
        self.used_s += seconds;
    }
}

/// How a batch of measurements ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every job is in the journal.
    Done,
    /// The kernel type's budget ran out; `left` jobs were not run.
    TypeBudget { left: usize },
    /// The call's budget ran out; `left` jobs were not run. Rerun with
    /// `--resume`.
    CallBudget { left: usize },
}

/// One planned measurement.
pub struct Job<T> {
    /// Its journal key: a job whose key is journaled is done.
    pub key: RecordKey,
    /// Estimated GPU seconds.
    pub estimate_s: f64,
    /// What `measure` needs.
    pub what: T,
}

/// Runs `jobs` in order: skips the journaled ones (`resume`), stops before
/// the first whose estimate fits the call's or the type's budget no more,
/// and journals the others' records, charging their [`Record::gpu_s`] (the
/// estimate if they have none) to both budgets. `after` sees each record
/// once it is journaled; its error (a GPU left unusable) ends the run.
pub fn run_jobs<T>(
    jobs: &[Job<T>],
    resume: bool,
    journal: &mut Journal,
    (call, kind): (&mut Budget, &mut Budget),
    mut measure: impl FnMut(&T) -> Result<Record>,
    mut after: impl FnMut(&Record) -> Result<()>,
) -> Result<Outcome> {
    for (i, job) in jobs.iter().enumerate() {
        if resume && journal.contains(&job.key) {
            continue;
        }
        let left = jobs[i..].iter().filter(|j| !(resume && journal.contains(&j.key))).count();
        if !call.allows(job.estimate_s) {
            return Ok(Outcome::CallBudget { left });
        }
        if !kind.allows(job.estimate_s) {
            return Ok(Outcome::TypeBudget { left });
        }
        let record = measure(&job.what)?;
        let spent = record.gpu_s.unwrap_or(job.estimate_s);
        call.charge(spent);
        kind.charge(spent);
        journal.append(record.clone())?;
        after(&record)?;
    }
    Ok(Outcome::Done)
}

#[cfg(test)]
mod tests {
    use super::super::record::tests::{record, scratch, spec};
    use super::*;

    fn jobs(n: u32) -> Vec<Job<u32>> {
        (0..n)
            .map(|i| {
                let r = record(spec(16 * (i + 1)), 1.0);
                Job { key: r.key(), estimate_s: 10.0, what: i }
            })
            .collect()
    }

    fn ok(_: &Record) -> Result<()> {
        Ok(())
    }

    fn measure(i: &u32) -> Result<Record> {
        Ok(Record { gpu_s: Some(9.0), ..record(spec(16 * (i + 1)), 1.0) })
    }

    #[test]
    fn budgets_allow_until_spent() {
        let mut b = Budget::new(Some(30.0), 0.0);
        assert!(b.allows(30.0) && !b.allows(30.5));
        b.charge(25.0);
        assert!(b.allows(5.0) && !b.allows(6.0));
        assert!(Budget::new(None, 0.0).allows(1e12));
    }

    /// A call stops before the job that would overrun it, and the next
    /// call with `--resume` does exactly the rest.
    #[test]
    fn a_call_stops_at_its_budget_and_the_next_resumes() {
        let path = scratch("budget-resume");
        let jobs = jobs(5);
        let mut journal = Journal::open(&path).unwrap();
        let mut kind = Budget::new(None, 0.0);
        // 10 s estimates, 9 s real: 25 s allow two jobs (9 + 9 + 10 > 25).
        let mut call = Budget::new(Some(25.0), 0.0);
        // One call with --resume: what it returned and which jobs it ran.
        let resume = |journal: &mut Journal, call: &mut Budget, kind: &mut Budget| {
            let mut ran = Vec::new();
            let out = run_jobs(
                &jobs,
                true,
                journal,
                (call, kind),
                |&i| {
                    ran.push(i);
                    measure(&i)
                },
                ok,
            )
            .unwrap();
            (out, ran)
        };
        let (out, ran) = resume(&mut journal, &mut call, &mut kind);
        assert_eq!(out, Outcome::CallBudget { left: 3 });
        assert_eq!(ran, [0, 1]);
        assert_eq!(call.used_s, 18.0);
        // The next call: a fresh journal handle, as a new process has.
        let mut journal = Journal::open(&path).unwrap();
        let mut call = Budget::new(Some(100.0), 0.0);
        assert_eq!(resume(&mut journal, &mut call, &mut kind), (Outcome::Done, vec![2, 3, 4]));
        assert_eq!(kind.used_s, 45.0);
        assert_eq!(Journal::open(&path).unwrap().records().len(), 5);
        // Once more: nothing left, nothing run, nothing charged.
        let mut call = Budget::new(Some(0.0), 0.0);
        let out =
            run_jobs(&jobs, true, &mut journal, (&mut call, &mut kind), |_| panic!("all done"), ok).unwrap();
        assert_eq!(out, Outcome::Done);
    }

    #[test]
    fn the_type_budget_stops_its_jobs_only() {
        let path = scratch("budget-type");
        let mut journal = Journal::open(&path).unwrap();
        let (mut call, mut kind) = (Budget::new(None, 0.0), Budget::new(Some(20.0), 5.0));
        let out = run_jobs(&jobs(4), true, &mut journal, (&mut call, &mut kind), measure, ok).unwrap();
        assert_eq!(out, Outcome::TypeBudget { left: 3 });
        assert_eq!((call.used_s, kind.used_s), (9.0, 14.0));
        // Without --resume journaled jobs are measured again.
        let mut kind = Budget::new(None, 0.0);
        let mut n = 0;
        run_jobs(
            &jobs(2),
            false,
            &mut journal,
            (&mut call, &mut kind),
            |i| {
                n += 1;
                measure(i)
            },
            ok,
        )
        .unwrap();
        assert_eq!(n, 2);
        // A failing `after` ends the run once the record is journaled.
        let before = Journal::open(&path).unwrap().records().len();
        let stop = |_: &Record| -> Result<()> { anyhow::bail!("the GPU is gone") };
        let err = run_jobs(&jobs(3), false, &mut journal, (&mut call, &mut kind), measure, stop);
        assert!(err.is_err());
        assert_eq!(Journal::open(&path).unwrap().records().len(), before + 1);
    }
}
