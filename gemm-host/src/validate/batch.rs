//! The rules a batch adds to a GEMM call: rules 7 to 9 of
//! [`crate::validate`] for a strided batch (cuBLAS's
//! `cublasGemmStridedBatchedEx`, MKL's `gemm_batch_strided`: problem `i`'s
//! A, B and C start `i` strides past the buffers' first), and the checks of
//! a pointer-array batch.

use gemm_codegen::{Element, KernelImage, LaunchShape};

use super::{Arg, ArgError, Buffers, Checked, Launch, QuickReturn, argument_rules, launch_of};
use crate::config::{GemmConfig, Matrix};

/// The problems of a strided-batched call beyond the first: how many, and
/// how far apart their matrices lie, in elements of the call's own A, B and
/// C (before any row-major swap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StridedBatch {
    /// Problems in the batch.
    pub count: i64,
    /// Elements from one problem's A to the next's.
    pub stride_a: i64,
    /// Elements from one problem's B to the next's.
    pub stride_b: i64,
    /// Elements from one problem's C to the next's.
    pub stride_c: i64,
}

impl StridedBatch {
    /// `count` problems stored one after another, each matrix its extent
    /// ([`GemmConfig::required_len`]) past the previous: the common layout,
    /// whose buffers are `count` times one problem's.
    pub fn packed<T: Element>(cfg: &GemmConfig<T>, count: i64) -> StridedBatch {
        let len = |x: Matrix| i64::try_from(cfg.required_len(x)).unwrap_or(i64::MAX);
        StridedBatch { count, stride_a: len(Matrix::A), stride_b: len(Matrix::B), stride_c: len(Matrix::C) }
    }

    /// The stride of `matrix`.
    pub const fn stride(&self, matrix: Matrix) -> i64 {
        match matrix {
            Matrix::A => self.stride_a,
            Matrix::B => self.stride_b,
            Matrix::C => self.stride_c,
        }
    }
}

/// A checked strided batch, ready to launch: the problem's [`Launch`], the
/// problem count, and the strides of the operands in the order the
/// column-major kernel takes them (swapped with A and B for a row-major
/// call).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchLaunch<T> {
    /// One problem, as [`super::check`] gives it; its grid is that of one
    /// launch's problems (at most `LaunchShape::MAX_GRID_Z`).
    pub launch: Launch<T>,
    /// Problems in the batch (at least 1).
    pub count: u64,
    /// Strides of the kernel's `a`, `b` and `c`, in elements.
    pub strides: [u64; 3],
}

/// The outcome of [`check_batch`] for a valid call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CheckedBatch<T> {
    /// Nothing to do.
    Skip(QuickReturn),
    /// Launch this.
    Launch(BatchLaunch<T>),
}

/// Checks every rule of a strided-batched call (rules 7 to 9 of
/// [`crate::validate`] after its single-problem rules) and says what to launch.
pub fn check_batch<T: Element>(
    cfg: &GemmConfig<T>,
    batch: &StridedBatch,
    buffers: &Buffers,
    kernel: Option<&KernelImage>,
) -> Result<CheckedBatch<T>, ArgError> {
    argument_rules(cfg, buffers, kernel)?;

    // 7. Signs.
    if batch.count < 0 {
        return Err(ArgError::Negative { arg: Arg::BatchCount, value: batch.count });
    }
    for matrix in [Matrix::A, Matrix::B, Matrix::C] {
        let value = batch.stride(matrix);
        if value < 0 {
            return Err(ArgError::Negative { arg: Arg::stride(matrix), value });
        }
    }
    let count = batch.count as u64;
    let stride = |x: Matrix| batch.stride(x) as u64;

    // 8. Disjoint Cs.
    let c = cfg.stored(Matrix::C);
    let (inner, outer) = (cfg.dim(c.inner), cfg.dim(c.outer));
    let ldc = cfg.ld(Matrix::C);
    if let Some(problem) = first_overlap(inner as u64, outer as u64, ldc as u64, stride(Matrix::C), count) {
        return Err(ArgError::BatchOverlap {
            arg: Arg::StrideC,
            value: batch.stride_c,
            problem,
            dims: (inner, outer),
            ld: ldc,
        });
    }

    // 9. Buffers hold every problem.
    if count > 0 {
        for matrix in [Matrix::A, Matrix::B, Matrix::C] {
            let Some(len) = buffers.get(matrix).len else { continue };
            let span = cfg.required_len(matrix);
            let needed = (count - 1).saturating_mul(stride(matrix)).saturating_add(span);
            if (len as u64) < needed {
                return Err(ArgError::BatchBufferTooShort {
                    arg: Arg::buffer(matrix),
                    len,
                    count: batch.count,
                    stride: batch.stride(matrix),
                    span,
                    needed,
                });
            }
        }
    }

    if count == 0 {
        return Ok(CheckedBatch::Skip(QuickReturn::EmptyBatch));
    }
    let per_launch = count.min(LaunchShape::MAX_GRID_Z) as u32;
    Ok(match launch_of(cfg, kernel, per_launch)? {
        Checked::Skip(why) => CheckedBatch::Skip(why),
        Checked::Launch(launch) => {
            let (a, b) = launch.operands(stride(Matrix::A), stride(Matrix::B));
            CheckedBatch::Launch(BatchLaunch { launch, count, strides: [a, b, stride(Matrix::C)] })
        }
    })
}

/// Checks a pointer-array batch (`cublasGemmBatchedEx`'s form): one
/// problem per element of `buffers`, whose arrays of A, B and C had the
/// lengths `lens` (B's and C's must be A's). Every single-problem rule
/// holds for each problem, a buffer's rule reported with its problem
/// ([`ArgError::Problem`]); an empty batch is a quick return. The caller
/// answers for C's problems being disjoint from each other and from every
/// A and B (the safe APIs' borrows prove it).
pub fn check_arrays<T: Element>(
    cfg: &GemmConfig<T>,
    lens: [usize; 3],
    buffers: &[Buffers],
    kernel: Option<&KernelImage>,
) -> Result<CheckedBatch<T>, ArgError> {
    let count = lens[0];
    for (arg, len) in [(Arg::B, lens[1]), (Arg::C, lens[2])] {
        if len != count {
            return Err(ArgError::BatchArrays { arg, len, count });
        }
    }
    let unsized_buffers = Buffers {
        a: super::BufferInfo::unsized_at(0),
        b: super::BufferInfo::unsized_at(0),
        c: super::BufferInfo::unsized_at(0),
    };
    // The rules on the arguments themselves, then each problem's buffers.
    argument_rules(cfg, &unsized_buffers, kernel)?;
    for (problem, b) in buffers.iter().enumerate() {
        argument_rules(cfg, b, kernel).map_err(|e| ArgError::Problem { problem, error: Box::new(e) })?;
    }
    if count == 0 {
        return Ok(CheckedBatch::Skip(QuickReturn::EmptyBatch));
    }
    let per_launch = (count as u64).min(LaunchShape::MAX_GRID_Z) as u32;
    Ok(match launch_of(cfg, kernel, per_launch)? {
        Checked::Skip(why) => CheckedBatch::Skip(why),
        Checked::Launch(launch) => {
            CheckedBatch::Launch(BatchLaunch { launch, count: count as u64, strides: [0; 3] })
        }
    })
}

/// The first problem `t ≥ 1` of a batch of `count` whose C shares an element
/// with problem 0's, each C `inner × outer` with leading dimension `ld ≥
/// inner` and consecutive ones `stride` elements apart; `None` when all are
/// disjoint. (Problems `i` and `j` overlap exactly when 0 and `|i − j|` do.)
///
/// Problem `t` meets problem 0 when `t · stride = Δi + Δj · ld` with `|Δi| <
/// inner` and `|Δj| < outer`; only `t · stride` below one matrix's span can.
/// The loop stops at the first meeting, or at that span: at most `span /
/// stride + 1` steps.
pub fn first_overlap(inner: u64, outer: u64, ld: u64, stride: u64, count: u64) -> Option<u64> {
    if count < 2 || inner == 0 || outer == 0 {
        return None;
    }
    let ld = ld.max(1);
    let span = (outer - 1).saturating_mul(ld).saturating_add(inner);
    for t in 1..count {
        let d = t.checked_mul(stride)?;
        if d >= span {
            return None;
        }
        let (q, r) = (d / ld, d % ld);
        // Δj = q with Δi = r, or Δj = q + 1 with Δi = r − ld.
        if (r < inner && q < outer) || (ld - r < inner && q + 1 < outer) {
            return Some(t);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether problems 0 and `t` share an element, by listing them.
    fn brute(inner: u64, outer: u64, ld: u64, stride: u64, count: u64) -> Option<u64> {
        let cells = |base: u64| -> std::collections::HashSet<u64> {
            (0..outer).flat_map(|j| (0..inner).map(move |i| base + i + j * ld)).collect()
        };
        let first = cells(0);
        (1..count).find(|&t| !cells(t * stride).is_disjoint(&first))
    }

    #[test]
    fn overlap_is_exact_on_every_small_layout() {
        for inner in 0..4 {
            for outer in 0..4 {
                for ld in inner.max(1)..inner + 4 {
                    for stride in 0..14 {
                        for count in 0..6 {
                            assert_eq!(
                                first_overlap(inner, outer, ld, stride, count),
                                brute(inner, outer, ld, stride, count),
                                "inner {inner} outer {outer} ld {ld} stride {stride} count {count}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn interleaved_columns_are_disjoint_and_huge_strides_do_not_overflow() {
        // Four 3 x 5 matrices side by side in one 12-row array.
        assert_eq!(first_overlap(3, 5, 12, 3, 4), None);
        assert_eq!(first_overlap(3, 5, 12, 3, 5), Some(4));
        assert_eq!(first_overlap(3, 5, 12, 2, 2), Some(1));
        assert_eq!(first_overlap(1, 1, 1, u64::MAX, 3), None);
        assert_eq!(first_overlap(2, 2, 2, 0, 2), Some(1));
    }
}
