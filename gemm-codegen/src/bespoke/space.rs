//! The candidates a bespoke tuner times for one operator, and the default
//! spec `gemm_bespoke!` picks without timing.

use super::operator::Operator;
use super::plan::validate;
use super::spec::{BespokeSpec, BetaMode, Form};
use crate::spec::{Precision, Target};

/// Widths (columns per thread) worth trying for `precision`: every vector
/// up to 16 bytes.
fn widths(precision: Precision) -> &'static [u32] {
    if precision.element_bytes() == 4 { &[1, 2, 4] } else { &[1, 2] }
}

/// Every candidate for `a` in `precision` computing `beta`s of `beta`, for
/// `arch`, each legal ([`validate`]):
///
/// - B-streaming from registers (`msplit = 1`, 128 threads, 16 rows
///   ahead), where A's rows fit the registers;
/// - C-streaming (`msplit = 1`, 128 threads), where A's used columns do;
/// - B-streaming through shared stages for the two smallest powers of two
///   `msplit ≥ 2` that fit (at most 32, at most A's rows), with 32 threads
///   per group and stages of 16 or 48 rows, or 64 threads and 16 rows (at
///   most 512 threads in all; half the rows where a stage does not fit);
///
/// each at every width up to 16 bytes; where one thread cannot hold every
/// row, rows split over blocks ([`Form::Split`]) for the two smallest
/// powers of two `msplit ≥ 2` that fit, 128 threads, 16 rows ahead, one
/// column per thread; and on sm_80 and newer the
/// tensor-core form (DMMA, or 3xTF32 for `f32`) with 1, 2 or 4 column tiles
/// per warp and 4 k-tiles of B ahead, split over the fewest warp groups
/// (1, 2, 4 or 8) whose registers fit. At most 30 specs, most
/// operators far fewer.
pub fn candidates(a: &Operator, precision: Precision, beta: BetaMode, arch: Target) -> Vec<BespokeSpec> {
    let base = BespokeSpec { beta, arch, ..BespokeSpec::new(precision) };
    let legal = |s: &BespokeSpec| validate(a, s).is_ok();
    let mut out = Vec::new();
    for &width in widths(precision) {
        for form in [Form::BStream, Form::CStream] {
            let s = BespokeSpec { form, width, block: 128, msplit: 1, chunk: 16, ..base };
            if legal(&s) {
                out.push(s);
            }
        }
    }
    if arch.has_cp_async() {
        for width in [1, 2, 4] {
            // The fewest warp groups whose accumulators fit.
            let fits = [1, 2, 4, 8].into_iter().find_map(|msplit| {
                let block = (32 * msplit).max(128);
                Some(BespokeSpec { form: Form::Mma, width, block, msplit, chunk: 4, ..base }).filter(legal)
            });
            out.extend(fits);
        }
    }
    let mut splits = Vec::new();
    let mut msplit = 2;
    while msplit <= 32 && splits.len() < 2 {
        let probe = BespokeSpec { msplit, block: 32, chunk: 8, width: 1, ..base };
        if legal(&probe) {
            splits.push(msplit);
        }
        msplit *= 2;
    }
    // Rows split over blocks, where one thread cannot hold them all: 128
    // threads of one column, 16 rows of B ahead, the smallest msplit (a
    // power of two up to 32) that fits and the next.
    // (The register form at width 1 is the first candidate above when legal.)
    let whole = BespokeSpec { block: 128, chunk: 16, width: 1, ..base };
    let (mut msplit, mut split) = (2, Vec::new());
    while msplit <= 32 && split.len() < 2 && !out.contains(&whole) {
        let s = BespokeSpec { form: Form::Split, msplit, block: 128, chunk: 16, width: 1, ..base };
        if legal(&s) {
            split.push(s);
        }
        msplit *= 2;
    }
    out.extend(split);
    for &msplit in &splits {
        for &width in widths(precision) {
            // Stages of 16 rows, and of 48 for 32 columns: a block holding
            // few columns needs deep stages to keep enough bytes in flight.
            for (block, chunk) in [(32, 16), (32, 48), (64, 16)] {
                if block * msplit > 512 {
                    continue;
                }
                let s = BespokeSpec { msplit, width, block, chunk, ..base };
                let smaller = [s, BespokeSpec { chunk: chunk / 2, ..s }];
                if let Some(s) = smaller.into_iter().find(legal).filter(|s| !out.contains(s)) {
                    out.push(s);
                }
            }
        }
    }
    out
}

/// The spec `gemm_bespoke!` takes when none is given: the first candidate
/// with one column per thread (no alignment asked of B and C), in
/// [`candidates`]' order: B-streaming from registers, C-streaming, the
/// tensor-core form, rows split over blocks with the smallest `msplit` that
/// fits (the fastest bespoke form for each of the 12 operator-precision
/// pairs of 512 rows and more in `tuning/sm_90-bespoke/run11-*` to
/// `run13-*`), B-streaming through shared stages.
/// `None` when no family takes `a` (too many non-zeros for an unrolled
/// kernel).
///
/// Provisional: it does not look at which of them is fastest. The
/// measurements of `cargo xtask bespoke` and the run-time tuner
/// (`gemm_host::bespoke`) choose better.
pub fn default_spec(a: &Operator, precision: Precision, beta: BetaMode, arch: Target) -> Option<BespokeSpec> {
    candidates(a, precision, beta, arch).into_iter().find(|s| s.width == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bespoke::operators;

    #[test]
    fn candidates_are_legal_distinct_and_cover_every_operator_of_the_test_set() {
        let mut uncovered = Vec::new();
        for (name, a) in operators::test_set() {
            for precision in [Precision::F32, Precision::F64] {
                let c = candidates(&a, precision, BetaMode::Runtime, Target::Sm90);
                assert!(c.len() <= 30, "{name}: {}", c.len());
                for (i, s) in c.iter().enumerate() {
                    assert!(validate(&a, s).is_ok(), "{name}: {s}");
                    assert!(!c[..i].contains(s), "{name}: {s} twice");
                }
                if c.is_empty() {
                    uncovered.push(format!("{name} {precision}"));
                }
                assert_eq!(
                    default_spec(&a, precision, BetaMode::Zero, Target::Sm90).is_some(),
                    !c.is_empty()
                );
            }
        }
        // Only operators over the unrolled code-size limit, or too tall for
        // the registers, have none (the dense GEMM takes them).
        for case in &uncovered {
            let name = case.split(' ').next().unwrap();
            let (_, a) = operators::test_set().into_iter().find(|(n, _)| n == name).unwrap();
            // Too much code, or more rows than any thread group's registers
            // hold with 512 threads sharing the register file.
            assert!(a.nnz() > crate::bespoke::MAX_NNZ || a.rows() > 500, "{case} has no candidate");
        }
    }
}
