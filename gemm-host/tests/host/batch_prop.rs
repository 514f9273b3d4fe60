//! Property: the batch checkers (`validate::check_batch`,
//! `validate::check_arrays`) never panic on any arguments, and what they
//! accept is safe to launch: every problem's matrices lie inside their
//! buffers, no two problems' C share an element (checked here by listing
//! the elements), the launch covers the batch. Draws favour the edges:
//! negative and zero counts and strides, strides one short of disjoint,
//! interleaved layouts, buffers one element short, huge values.

use std::collections::HashSet;

use gemm_host::validate::{BufferInfo, Buffers, CheckedBatch, StridedBatch, check_arrays, check_batch};
use gemm_host::{ArgError, GemmConfig, Layout, Matrix, Op};
use proptest::prelude::*;

fn small() -> impl Strategy<Value = i64> {
    prop_oneof![6 => 0i64..6, 1 => -3i64..0, 1 => Just(i64::MAX)]
}

fn stride() -> impl Strategy<Value = i64> {
    prop_oneof![4 => 0i64..40, 1 => -5i64..0, 1 => Just(i64::MAX), 1 => (1i64 << 40)..(1i64 << 62)]
}

/// A small call, its batch, and each buffer's length relative to what the
/// batch needs (`None`: unknown).
#[allow(clippy::type_complexity)]
fn case() -> impl Strategy<Value = (GemmConfig<f32>, StridedBatch, [Option<i64>; 3])> {
    let ops = prop_oneof![Just(Op::N), Just(Op::T)];
    let layout = prop_oneof![Just(Layout::ColMajor), Just(Layout::RowMajor)];
    (ops.clone(), ops, layout, small(), small(), small(), 0i64..3, 0i64..3, 0i64..6)
        .prop_flat_map(|(oa, ob, layout, m, n, k, pa, pb, pc)| {
            let cfg = GemmConfig::<f32>::with_layout(layout, oa, ob, m, n, k);
            let min = |x: Matrix| cfg.min_ld(x);
            let cfg = cfg.lda(min(Matrix::A).saturating_add(pa)).ldb(min(Matrix::B).saturating_add(pb)).ldc(
                min(Matrix::C).saturating_add(pc),
            );
            let count = prop_oneof![4 => 0i64..6, 1 => -2i64..0, 1 => Just(1i64 << 40)];
            let len = prop_oneof![4 => Just(Some(0i64)), 1 => Just(Some(-1i64)), 1 => (1i64..50).prop_map(Some), 1 => Just(None)];
            (Just(cfg), count, stride(), stride(), stride(), [len.clone(), len.clone(), len])
        })
        .prop_map(|(cfg, count, sa, sb, sc, lens)| {
            (cfg, StridedBatch { count, stride_a: sa, stride_b: sb, stride_c: sc }, lens)
        })
}

/// The elements problem `i`'s matrix `x` spans (column-major storage of
/// `inner × outer` with leading dimension `ld`).
fn cells(cfg: &GemmConfig<f32>, x: Matrix, base: u64) -> Vec<u64> {
    let s = cfg.stored(x);
    let (inner, outer, ld) = (cfg.dim(s.inner) as u64, cfg.dim(s.outer) as u64, cfg.ld(x) as u64);
    (0..outer).flat_map(|j| (0..inner).map(move |i| base + i + j * ld)).collect()
}

/// The buffer length matrix `x` needs for the whole batch.
fn need(cfg: &GemmConfig<f32>, batch: &StridedBatch, x: Matrix) -> u64 {
    let span = cfg.required_len(x);
    let count = batch.count.max(0) as u64;
    count.saturating_sub(1).saturating_mul(batch.stride(x).max(0) as u64).saturating_add(span)
}

/// Buffers of what the batch needs plus `lens`' adjustment (or unsized).
fn buffers_for(cfg: &GemmConfig<f32>, batch: &StridedBatch, lens: [Option<i64>; 3]) -> Buffers {
    let info = |x: Matrix, i: usize| match lens[i] {
        None => BufferInfo::unsized_at(0),
        Some(delta) => {
            let len = (need(cfg, batch, x) as i128 + i128::from(delta)).clamp(0, 1 << 20) as usize;
            BufferInfo::new(0, len)
        }
    };
    Buffers { a: info(Matrix::A, 0), b: info(Matrix::B, 1), c: info(Matrix::C, 2) }
}

/// The draws reach every outcome often enough for the properties to mean
/// something: launches, quick returns, overlaps, short buffers, negatives.
#[test]
fn the_draws_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut seen = [0usize; 5];
    for _ in 0..4000 {
        let (cfg, batch, lens) = case().new_tree(&mut runner).expect("a draw").current();
        let outcome = check_batch(&cfg, &batch, &buffers_for(&cfg, &batch, lens), None);
        let slot = match outcome {
            Ok(CheckedBatch::Launch(l)) if l.count >= 2 => 0,
            Ok(_) => 1,
            Err(ArgError::BatchOverlap { .. }) => 2,
            Err(ArgError::BatchBufferTooShort { .. }) => 3,
            Err(_) => 4,
        };
        seen[slot] += 1;
    }
    assert!(
        seen.iter().all(|&n| n >= 40),
        "launches of 2+, skips, overlaps, short buffers, other errors: {seen:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn strided_batches_accepted_are_safe((cfg, batch, lens) in case()) {
        let buffers = buffers_for(&cfg, &batch, lens);
        let need = |x: Matrix| need(&cfg, &batch, x);
        let Ok(CheckedBatch::Launch(launch)) = check_batch(&cfg, &batch, &buffers, None) else { return Ok(()) };
        prop_assert!(launch.count >= 1 && launch.count == batch.count as u64);
        prop_assert!(batch.stride_a >= 0 && batch.stride_b >= 0 && batch.stride_c >= 0);
        // Every problem inside its known buffers.
        for (x, b) in [(Matrix::A, buffers.a), (Matrix::B, buffers.b), (Matrix::C, buffers.c)] {
            if let Some(len) = b.len {
                prop_assert!(need(x) <= len as u64, "{x:?} needs {} of {len}", need(x));
            }
        }
        // No element of C written twice (small batches: list them).
        let last_base = (launch.count - 1).checked_mul(batch.stride_c as u64);
        if launch.count <= 8 && cfg.required_len(Matrix::C) <= 4096 && last_base.is_some_and(|b| b < 1 << 60) {
            let mut seen = HashSet::new();
            for i in 0..launch.count {
                for e in cells(&cfg, Matrix::C, i * batch.stride_c as u64) {
                    prop_assert!(seen.insert(e), "problem {i} writes element {e} twice: {batch:?}");
                }
            }
        }
    }

    #[test]
    fn pointer_array_batches_never_panic_and_name_the_problem(
        (cfg, _batch, lens) in case(),
        count in 0usize..4,
        short in 0usize..4,
        missing in 0usize..3,
    ) {
        let len = |x: Matrix| cfg.required_len(x).min(1 << 20) as usize;
        let buffers: Vec<Buffers> = (0..count)
            .map(|i| {
                let cut = usize::from(i == short);
                Buffers {
                    a: BufferInfo::new(0, len(Matrix::A)),
                    b: BufferInfo::new(0, len(Matrix::B).saturating_sub(cut)),
                    c: BufferInfo::new(0, len(Matrix::C)),
                }
            })
            .collect();
        let mut array_lens = [count; 3];
        if lens[0].is_none() {
            array_lens[missing] = count + 1;
        }
        match check_arrays(&cfg, array_lens, &buffers, None) {
            Err(ArgError::BatchArrays { len, count: c, .. }) => prop_assert!(len != c),
            Err(ArgError::Problem { problem, error }) => {
                prop_assert!(problem < count);
                let nested = matches!(*error, ArgError::Problem { .. });
                prop_assert!(!nested, "a problem's error wraps another");
            }
            Ok(CheckedBatch::Launch(l)) => {
                prop_assert_eq!(l.count as usize, count);
                prop_assert!(array_lens.iter().all(|&n| n == count));
            }
            _ => {}
        }
    }
}
