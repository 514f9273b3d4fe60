//! The rules of a bespoke kernel, checked once, and the [`BespokePlan`]
//! lowering works from: which rows of B are used, which thread group owns
//! which rows of C, and where each row's last update is.

use std::fmt;

use super::operator::Operator;
use super::spec::{BespokeSpec, BetaMode, Form};
use crate::spec::{Precision, Target};

/// A field of a bespoke spec, for the error that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BespokeField {
    /// `precision`.
    Precision,
    /// `family`.
    Form,
    /// `width`.
    Width,
    /// `block`.
    Block,
    /// `msplit`.
    Msplit,
    /// `chunk`.
    Chunk,
    /// `beta`.
    Beta,
    /// `arch`.
    Arch,
    /// `ldb`.
    Ldb,
    /// `ldc`.
    Ldc,
    /// The operator (`a`).
    Operator,
}

impl BespokeField {
    /// The spec key.
    pub const fn key(self) -> &'static str {
        match self {
            BespokeField::Precision => "precision",
            BespokeField::Form => "family",
            BespokeField::Width => "width",
            BespokeField::Block => "block",
            BespokeField::Msplit => "msplit",
            BespokeField::Chunk => "chunk",
            BespokeField::Beta => "beta",
            BespokeField::Arch => "arch",
            BespokeField::Ldb => "ldb",
            BespokeField::Ldc => "ldc",
            BespokeField::Operator => "a",
        }
    }
}

/// A rule a bespoke spec breaks: the field, and what to change
/// (lowercase, no trailing period).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BespokeViolation {
    /// The offending field.
    pub field: BespokeField,
    /// What to change.
    pub message: String,
}

impl fmt::Display for BespokeViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field.key(), self.message)
    }
}

impl std::error::Error for BespokeViolation {}

/// The most 32-bit registers a thread's live values (accumulators, or the
/// rows of B a C-streaming thread holds) may take: the rest of the 255 a
/// thread may have go to addresses and the loads in flight.
pub const MAX_VALUE_REGS: u64 = 160;

/// Rows of C whose load is in flight ahead of their stores when C is read
/// (`beta ≠ 0`): each takes a vector of registers.
pub const C_READ_AHEAD: usize = 8;

/// The most 32-bit registers a thread of a `threads`-thread block may give
/// its live values: [`MAX_VALUE_REGS`], or less where the block's threads
/// share the 65536-register file more thinly (~32 go to addresses and
/// loads; over that ptxas spills the accumulators). One rule for every form.
pub(crate) fn value_regs_cap(threads: u32) -> u64 {
    MAX_VALUE_REGS.min((65536 / u64::from(threads.max(1))).saturating_sub(32))
}

/// The most non-zeros of A an unrolled kernel emits code for: beyond it
/// ptxas takes more than a second, and an operator that dense is a GEMM
/// (compute-bound, served by the dense kernels).
pub const MAX_NNZ: usize = 1 << 15;

/// The most threads a block may have.
const MAX_THREADS: u32 = 1024;

/// The most shared memory a kernel declares statically.
const MAX_STATIC_SHARED: u64 = 48 * 1024;

/// A validated bespoke kernel: the spec, the operator rounded to the
/// precision, and the walk lowering emits.
#[derive(Clone, Debug)]
pub struct BespokePlan {
    pub(crate) spec: BespokeSpec,
    pub(crate) operator: Operator,
    /// `A`'s entries in the kernel's precision, row-major (`f32` values are
    /// the operator's rounded to nearest).
    pub(crate) values: Vec<f64>,
    /// Columns of A with a non-zero: the rows of B the kernel reads, in
    /// order.
    pub(crate) used: Vec<usize>,
    /// The rows of C each thread group owns (ascending), `msplit` groups.
    pub(crate) groups: Vec<Vec<usize>>,
    /// The tensor-core tiling ([`Form::Mma`] only).
    pub(crate) mma: Option<super::mma::MmaPlan>,
}

impl BespokePlan {
    /// The spec.
    pub fn spec(&self) -> &BespokeSpec {
        &self.spec
    }

    /// The operator as given.
    pub fn operator(&self) -> &Operator {
        &self.operator
    }

    /// Entry `(i, j)` of A in the kernel's precision.
    pub(crate) fn value(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.operator.cols() + j]
    }

    /// Non-zeros of A in the kernel's precision (an `f64` entry too small
    /// for `f32` becomes zero and gets no code).
    pub fn nnz(&self) -> usize {
        self.values.iter().filter(|&&v| v != 0.0).count()
    }

    /// The columns of A with a non-zero (the rows of B read).
    pub fn used_columns(&self) -> &[usize] {
        &self.used
    }

    /// The rows of C of each thread group.
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }
}

/// Checks `spec` for `operator`: the plan, or every rule broken.
pub fn validate(operator: &Operator, spec: &BespokeSpec) -> Result<BespokePlan, Vec<BespokeViolation>> {
    let mut errors = Vec::new();
    let fail = |errors: &mut Vec<BespokeViolation>, field, message: String| {
        errors.push(BespokeViolation { field, message })
    };
    let s = *spec;
    if s.precision.is_complex() {
        fail(
            &mut errors,
            BespokeField::Precision,
            format!("bespoke kernels are real: use f32 or f64, not {}", s.precision.token()),
        );
    }
    if !matches!(s.width, 1 | 2 | 4) {
        fail(
            &mut errors,
            BespokeField::Width,
            format!("width is 1, 2 or 4 columns per thread, not {}", s.width),
        );
    } else if s.form != Form::Mma && s.vector_bytes() > 16 {
        fail(
            &mut errors,
            BespokeField::Width,
            format!(
                "{} columns of {} are {} bytes: a vector access is at most 16; use width = {}",
                s.width,
                s.precision.token(),
                s.vector_bytes(),
                16 / s.precision.element_bytes()
            ),
        );
    }
    if s.block == 0 || !s.block.is_multiple_of(32) || s.block > MAX_THREADS {
        fail(
            &mut errors,
            BespokeField::Block,
            format!("block is a multiple of 32 threads up to {MAX_THREADS}, not {}", s.block),
        );
    }
    let m = operator.rows();
    if s.msplit == 0 || s.msplit > 32 {
        fail(
            &mut errors,
            BespokeField::Msplit,
            format!("msplit is 1 to 32 groups of threads, not {}", s.msplit),
        );
    } else if s.msplit as usize > m {
        fail(
            &mut errors,
            BespokeField::Msplit,
            format!("msplit = {} is more groups than A has rows ({m}): lower it", s.msplit),
        );
    } else if s.block.is_multiple_of(32) && s.block <= MAX_THREADS && s.threads() > MAX_THREADS {
        fail(
            &mut errors,
            BespokeField::Msplit,
            format!(
                "block × msplit = {} threads, more than a block may have ({MAX_THREADS}): lower msplit or block",
                s.threads()
            ),
        );
    }
    if s.form == Form::CStream && s.msplit > 1 {
        fail(
            &mut errors,
            BespokeField::Msplit,
            "c-streaming holds every row of B per thread: use msplit = 1 or family = bstream".to_owned(),
        );
    }
    if s.chunk == 0 || s.chunk > 64 {
        fail(&mut errors, BespokeField::Chunk, format!("chunk is 1 to 64 rows of B, not {}", s.chunk));
    } else if s.shared_bytes() > MAX_STATIC_SHARED {
        fail(
            &mut errors,
            BespokeField::Chunk,
            format!(
                "two stages of {} rows take {} bytes of shared memory, over {MAX_STATIC_SHARED}: lower chunk, block or width",
                s.chunk,
                s.shared_bytes()
            ),
        );
    }
    if s.msplit > 1 && s.form == Form::BStream && !s.arch.has_cp_async() {
        fail(
            &mut errors,
            BespokeField::Arch,
            format!("msplit > 1 stages B with cp.async: use arch = sm_80 or newer, not {}", s.arch.token()),
        );
    }
    for (field, ld) in [(BespokeField::Ldb, s.ldb), (BespokeField::Ldc, s.ldc)] {
        let key = field.key();
        match ld {
            Some(0) => {
                fail(&mut errors, field, format!("{key} is a row stride of at least 1 element, not 0"))
            }
            // (A width out of range has its own error.)
            Some(ld) if matches!(s.width, 1 | 2 | 4) && !ld.is_multiple_of(s.alignment()) => fail(
                &mut errors,
                field,
                format!(
                    "{key} = {ld} breaks the {}-column vectors of width = {}: use a multiple of {}, or width = 1",
                    s.alignment(),
                    s.width,
                    s.alignment()
                ),
            ),
            _ => {}
        }
    }
    if s.arch == Target::Sm90a {
        fail(
            &mut errors,
            BespokeField::Arch,
            "bespoke kernels use no sm_90a instruction: use arch = sm_90".into(),
        );
    }
    let values: Vec<f64> = match s.precision {
        Precision::F32 => operator.values().iter().map(|&v| f64::from(v as f32)).collect(),
        _ => operator.values().to_vec(),
    };
    let k = operator.cols();
    let nnz = values.iter().filter(|&&v| v != 0.0).count();
    let mut mma = None;
    if s.form == Form::Mma {
        match super::mma::plan(&values, m, k, &s) {
            Ok(p) => mma = Some(p),
            Err(v) => errors.extend(v),
        }
    } else if nnz > MAX_NNZ {
        fail(
            &mut errors,
            BespokeField::Operator,
            format!(
                "A has {nnz} non-zeros, over the {MAX_NNZ} an unrolled kernel takes: multiply it with a dense gemm"
            ),
        );
    }
    let used: Vec<usize> = (0..k).filter(|&j| (0..m).any(|i| values[i * k + j] != 0.0)).collect();
    let groups = partition(&values, m, k, s.msplit.clamp(1, 32) as usize);
    if errors.is_empty() && s.form != Form::Mma {
        let regs_per_value = u64::from(s.width) * u64::from(s.precision.element_bytes() / 4);
        let ahead = if s.beta == BetaMode::Zero { 0 } else { C_READ_AHEAD as u64 };
        let (live, what) = match s.form {
            Form::BStream | Form::Split => {
                let rows = groups.iter().map(|g| nonzero_rows(&values, k, g)).max().unwrap_or(0);
                (rows as u64, "rows of C per thread group")
            }
            Form::CStream => (used.len() as u64, "rows of B"),
            Form::Mma => unreachable!("checked by mma::plan"),
        };
        let cap = value_regs_cap(s.threads());
        if (live + ahead) * regs_per_value > cap {
            let (field, change) = match s.form {
                Form::BStream | Form::Split => (BespokeField::Msplit, "raise msplit or lower width"),
                Form::CStream => (BespokeField::Form, "use family = bstream or lower width"),
                Form::Mma => unreachable!("checked by mma::plan"),
            };
            fail(
                &mut errors,
                field,
                format!(
                    "{live} {what} (and {ahead} rows of C read ahead) × width {} take {} registers per thread, over the {cap} a block of {} threads leaves: {change}",
                    s.width,
                    (live + ahead) * regs_per_value,
                    s.threads()
                ),
            );
        }
    }
    if errors.is_empty() {
        Ok(BespokePlan { spec: s, operator: operator.clone(), values, used, groups, mma })
    } else {
        Err(errors)
    }
}

fn nonzero_rows(values: &[f64], k: usize, rows: &[usize]) -> usize {
    rows.iter().filter(|&&i| values[i * k..(i + 1) * k].iter().any(|&v| v != 0.0)).count()
}

/// Splits the rows of A into `groups` sets balancing their non-zeros.
fn partition(values: &[f64], m: usize, k: usize, groups: usize) -> Vec<Vec<usize>> {
    let nnz: Vec<usize> =
        (0..m).map(|i| values[i * k..(i + 1) * k].iter().filter(|&&v| v != 0.0).count()).collect();
    balance(&nnz, groups)
}

/// Splits items `0..weights.len()` into `groups` sets balancing their
/// weights: heaviest first, each to the least loaded set (fewest items on
/// a tie); items of no weight dealt round-robin. Each set ascending.
pub(crate) fn balance(weights: &[usize], groups: usize) -> Vec<Vec<usize>> {
    let groups = groups.min(weights.len()).max(1);
    let mut items: Vec<(usize, usize)> = weights.iter().copied().zip(0..).collect();
    items.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut sets = vec![Vec::new(); groups];
    let mut load = vec![(0usize, 0usize); groups];
    for (next_zero, &(weight, item)) in items.iter().enumerate() {
        let g = if weight == 0 {
            next_zero % groups
        } else {
            (0..groups).min_by_key(|&g| (load[g].0, load[g].1, g)).unwrap_or(0)
        };
        load[g].0 += weight;
        load[g].1 += 1;
        sets[g].push(item);
    }
    for set in &mut sets {
        set.sort_unstable();
    }
    sets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(m: usize, k: usize, f: impl FnMut(usize, usize) -> f64) -> Operator {
        Operator::from_fn(m, k, f).unwrap()
    }

    /// The hour-long fuzz run of session 16 (`tuning/fuzz/session16.log`,
    /// `bespoke_grammar_prop::any_numbers_validate_without_panic`) found
    /// this spec's shared memory overflowing u64 (2 · 10 · 3,751,494,024 ·
    /// 245,858,636 bytes): a panic in the validator. It is now a typed error.
    #[test]
    fn shared_memory_past_u64_is_an_error_not_a_panic() {
        let spec = BespokeSpec {
            width: 61_464_659,
            block: 3_751_494_024,
            msplit: 2,
            chunk: 10,
            ..BespokeSpec::new(Precision::F32)
        };
        assert_eq!(spec.shared_bytes(), u64::MAX);
        let errors = validate(&op(4, 4, |i, j| (i + j) as f64), &spec).unwrap_err();
        assert!(errors.iter().any(|e| e.field == BespokeField::Chunk), "{errors:?}");
    }

    #[test]
    fn a_legal_spec_plans_the_used_columns_and_balanced_groups() {
        let a = op(6, 5, |i, j| if j == 2 || (i + j) % 3 == 0 { 0.0 } else { (i * 5 + j) as f64 });
        let spec = BespokeSpec { msplit: 3, width: 2, chunk: 4, ..BespokeSpec::new(Precision::F64) };
        let plan = validate(&a, &spec).expect("legal");
        assert_eq!(plan.used_columns(), [0, 1, 3, 4]);
        let mut all: Vec<usize> = plan.groups().iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..6).collect::<Vec<_>>());
        let loads: Vec<usize> = plan
            .groups()
            .iter()
            .map(|g| g.iter().map(|&i| (0..5).filter(|&j| plan.value(i, j) != 0.0).count()).sum())
            .collect();
        // Longest-first greedy: the spread is at most one row's non-zeros.
        let longest = (0..6).map(|i| (0..5).filter(|&j| plan.value(i, j) != 0.0).count()).max().unwrap();
        assert!(loads.iter().max().unwrap() - loads.iter().min().unwrap() <= longest, "{loads:?}");
    }

    #[test]
    fn every_broken_rule_names_its_field() {
        let a = op(4, 4, |i, j| (i + j) as f64);
        let bad = BespokeSpec {
            precision: Precision::C64,
            width: 3,
            block: 48,
            msplit: 5,
            chunk: 0,
            beta: BetaMode::One,
            arch: Target::Sm70,
            ldb: None,
            ldc: None,
            form: Form::CStream,
        };
        let errors = validate(&a, &bad).unwrap_err();
        let fields: Vec<BespokeField> = errors.iter().map(|e| e.field).collect();
        assert_eq!(
            fields,
            [
                BespokeField::Precision,
                BespokeField::Width,
                BespokeField::Block,
                BespokeField::Msplit,
                BespokeField::Msplit,
                BespokeField::Chunk,
            ],
            "{errors:#?}"
        );
        // Staging B (B-streaming, msplit > 1) needs cp.async; split rows
        // over blocks do not.
        let staged = BespokeSpec { msplit: 2, arch: Target::Sm70, ..BespokeSpec::new(Precision::F64) };
        assert_eq!(validate(&a, &staged).unwrap_err()[0].field, BespokeField::Arch);
        assert!(validate(&a, &BespokeSpec { form: Form::Split, ..staged }).is_ok());
        assert_eq!(errors[3].to_string(), "msplit: msplit = 5 is more groups than A has rows (4): lower it");
        let wide = BespokeSpec { width: 4, ..BespokeSpec::new(Precision::F64) };
        assert!(validate(&a, &wide).unwrap_err()[0].message.contains("use width = 2"));
        let many = BespokeSpec { block: 1024, msplit: 2, ..BespokeSpec::new(Precision::F32) };
        assert_eq!(validate(&a, &many).unwrap_err()[0].field, BespokeField::Msplit);
    }

    #[test]
    fn register_and_code_size_limits() {
        // 200 dense rows: 200 f64 accumulators need msplit ≥ 3 (80 × 2 = 160).
        let a = op(200, 3, |_, _| 1.5);
        let one = BespokeSpec { block: 64, ..BespokeSpec::new(Precision::F64) };
        let e = validate(&a, &one).unwrap_err();
        assert_eq!((e.len(), e[0].field), (1, BespokeField::Msplit), "{e:#?}");
        assert!(validate(&a, &BespokeSpec { msplit: 3, ..one }).is_ok());
        assert!(validate(&a, &BespokeSpec { msplit: 2, ..one }).is_err());
        let c = validate(&op(3, 200, |_, _| 1.5), &BespokeSpec { form: Form::CStream, ..one }).unwrap_err();
        assert_eq!(c[0].field, BespokeField::Form);
        let dense = op(200, 200, |_, _| 1.0);
        let e = validate(&dense, &BespokeSpec { msplit: 8, ..one }).unwrap_err();
        assert_eq!(e[0].field, BespokeField::Operator, "{e:#?}");
        // An f64 entry that underflows f32 is a zero of the f32 kernel.
        let tiny = op(2, 2, |i, j| if i == j { 1.0 } else { 1e-60 });
        assert_eq!(validate(&tiny, &BespokeSpec::new(Precision::F32)).unwrap().nnz(), 2);
        assert_eq!(validate(&tiny, &one).unwrap().nnz(), 4);
    }
}
