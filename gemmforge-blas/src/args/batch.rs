//! The checks of the strided-batched extension (`sgemm_batch_strided_`,
//! `cblas_sgemm_batch_strided` and their `d`, `c`, `z` twins: MKL's,
//! OpenBLAS's and NVPL's shared prototypes) and the positions their errors
//! report.
//!
//! # Positions
//!
//! Fortran: 1 `transa`, 2 `transb`, 3 `m`, 4 `n`, 5 `k`, 6 `alpha`, 7 `a`,
//! 8 `lda`, 9 `stridea`, 10 `b`, 11 `ldb`, 12 `strideb`, 13 `beta`, 14 `c`,
//! 15 `ldc`, 16 `stridec`, 17 `batch_size` ([`fortran_position`]). CBLAS
//! puts `Layout` first and every other argument one later
//! ([`cblas_position`]).
//!
//! # Checks, in their order
//!
//! 1. The single GEMM's, in [`super::check_fortran`]'s and
//!    [`super::check_cblas`]'s order, reported at this prototype's positions
//!    (a row-major CBLAS call is checked as the swapped column-major call,
//!    its errors naming the caller's argument, as for the single call).
//! 2. `stridea`, `strideb`, `stridec` ≥ 0 (those of the column-major call:
//!    a row-major call's `strideb` is checked before its `stridea`), then
//!    `batch_size` ≥ 0: the arguments' order. `gemm_host::validate`
//!    checks the count before the strides; `batch_rules` restores the
//!    arguments' order.
//! 3. No two problems' C share an element (`stridec`), exactly as
//!    [`gemm_host::validate::first_overlap`] decides: a zero `stridec` is
//!    allowed only for a batch of one, interleaved Cs are allowed.
//!
//! Rules 2 and 3 are `gemm_host::validate::check_batch`'s, on buffers of
//! unknown length (the raw pointers' lengths are the caller's contract).
//! A zero `stridea` or `strideb` shares that operand among all problems.

use std::ffi::c_int;

use gemm_codegen::Element;
use gemm_host::validate::{self, Arg, StridedBatch};
use gemm_host::{GemmConfig, Layout};

use super::{CblasError, Dims, UNKNOWN_BUFFERS, blas_rule, cblas_enums, fortran_op};

/// The batch arguments of a strided-batched call, widened to `i64` like
/// [`Dims`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchDims {
    /// `stridea`: elements from one problem's A to the next's.
    pub stride_a: i64,
    /// `strideb`.
    pub stride_b: i64,
    /// `stridec`.
    pub stride_c: i64,
    /// `batch_size`.
    pub count: i64,
}

impl BatchDims {
    /// The batch arguments as the interface's integers passed them.
    pub fn new<I: Into<i64>>(stride_a: I, stride_b: I, stride_c: I, count: I) -> BatchDims {
        BatchDims {
            stride_a: stride_a.into(),
            stride_b: stride_b.into(),
            stride_c: stride_c.into(),
            count: count.into(),
        }
    }

    /// The batch of the column-major call of a call in `layout`: a
    /// row-major call's A is the column-major call's B.
    fn column_major(self, layout: Layout) -> StridedBatch {
        let (stride_a, stride_b) = match layout {
            Layout::ColMajor => (self.stride_a, self.stride_b),
            Layout::RowMajor => (self.stride_b, self.stride_a),
        };
        StridedBatch { count: self.count, stride_a, stride_b, stride_c: self.stride_c }
    }
}

/// The 1-based position of `arg` in the Fortran `xGEMM_BATCH_STRIDED`
/// prototype, the `info` its `xerbla_` gets.
pub const fn fortran_position(arg: Arg) -> c_int {
    match arg {
        Arg::OpA => 1,
        Arg::OpB => 2,
        Arg::M => 3,
        Arg::N => 4,
        Arg::K => 5,
        Arg::Alpha => 6,
        Arg::A => 7,
        Arg::Lda => 8,
        Arg::StrideA => 9,
        Arg::B => 10,
        Arg::Ldb => 11,
        Arg::StrideB => 12,
        Arg::Beta => 13,
        Arg::C => 14,
        Arg::Ldc => 15,
        Arg::StrideC => 16,
        Arg::BatchCount => 17,
    }
}

/// The position `cblas_xerbla` gets for `arg` of the column-major call a
/// CBLAS call in `layout` makes: the caller's argument (its twin of the
/// other operand for a row-major call: the column-major `m` is the
/// caller's `N`, `lda` its `ldb`, …), one past its Fortran position for
/// `Layout`.
pub const fn cblas_position(layout: Layout, arg: Arg) -> c_int {
    let caller = match layout {
        Layout::ColMajor => arg,
        Layout::RowMajor => match arg {
            Arg::OpA => Arg::OpB,
            Arg::OpB => Arg::OpA,
            Arg::M => Arg::N,
            Arg::N => Arg::M,
            Arg::A => Arg::B,
            Arg::B => Arg::A,
            Arg::Lda => Arg::Ldb,
            Arg::Ldb => Arg::Lda,
            Arg::StrideA => Arg::StrideB,
            Arg::StrideB => Arg::StrideA,
            other => other,
        },
    };
    fortran_position(caller) + 1
}

/// The Fortran `xGEMM_BATCH_STRIDED`'s checks: the call (column-major) and
/// its batch, or the `info` of the first broken rule.
pub fn check_fortran_batch<E: Element>(
    transa: u8,
    transb: u8,
    dims: Dims,
    batch: BatchDims,
    alpha: E,
    beta: E,
) -> Result<(GemmConfig<E>, StridedBatch), c_int> {
    let op_a = fortran_op(transa).ok_or(fortran_position(Arg::OpA))?;
    let op_b = fortran_op(transb).ok_or(fortran_position(Arg::OpB))?;
    let cfg = dims.config(Layout::ColMajor, (op_a, op_b), alpha, beta);
    let batch = batch.column_major(Layout::ColMajor);
    batch_rules(&cfg, &batch).map_err(fortran_position)?;
    Ok((cfg, batch))
}

/// `cblas_xgemm_batch_strided`'s checks: the column-major call it makes
/// (swapped for a row-major one) and that call's batch, or the first error.
pub fn check_cblas_batch<E: Element>(
    layout: c_int,
    transa: c_int,
    transb: c_int,
    dims: Dims,
    batch: BatchDims,
    alpha: E,
    beta: E,
) -> Result<(GemmConfig<E>, StridedBatch), CblasError> {
    let (layout, ops) = cblas_enums(layout, transa, transb)?;
    let cfg = dims.config(layout, ops, alpha, beta).to_column_major();
    let batch = batch.column_major(layout);
    batch_rules(&cfg, &batch)
        .map_err(|arg| CblasError { position: cblas_position(layout, arg), detail: String::new() })?;
    Ok((cfg, batch))
}

/// The first argument of the column-major `cfg` and `batch` that breaks a
/// rule, in the [module docs](self)' order.
fn batch_rules<E: Element>(cfg: &GemmConfig<E>, batch: &StridedBatch) -> Result<(), Arg> {
    let first = |batch: &StridedBatch| match validate::check_batch(cfg, batch, &UNKNOWN_BUFFERS, None) {
        Ok(_) => Ok(()),
        Err(e) => blas_rule(e).map_or(Ok(()), Err),
    };
    match first(batch) {
        // `check_batch` checks the count before the strides, which come
        // first in the prototype: a negative stride is reported before it.
        Err(Arg::BatchCount) => first(&StridedBatch { count: 0, ..*batch }).and(Err(Arg::BatchCount)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use gemm_codegen::Op;
    use num_complex::Complex;

    use super::super::{CBLAS_COL_MAJOR, CBLAS_NO_TRANS, CBLAS_ROW_MAJOR, CBLAS_TRANS};
    use super::*;

    const fn dims(m: i64, n: i64, k: i64, lda: i64, ldb: i64, ldc: i64) -> Dims {
        Dims { m, n, k, lda, ldb, ldc }
    }

    const fn batch(stride_a: i64, stride_b: i64, stride_c: i64, count: i64) -> BatchDims {
        BatchDims { stride_a, stride_b, stride_c, count }
    }

    fn fortran(ta: u8, tb: u8, d: Dims, b: BatchDims) -> Result<(GemmConfig<f32>, StridedBatch), c_int> {
        check_fortran_batch(ta, tb, d, b, 1.0, 0.0)
    }

    #[test]
    fn every_argument_has_its_prototypes_position() {
        let args = [
            Arg::OpA,
            Arg::OpB,
            Arg::M,
            Arg::N,
            Arg::K,
            Arg::Alpha,
            Arg::A,
            Arg::Lda,
            Arg::StrideA,
            Arg::B,
            Arg::Ldb,
            Arg::StrideB,
            Arg::Beta,
            Arg::C,
            Arg::Ldc,
            Arg::StrideC,
            Arg::BatchCount,
        ];
        for (i, arg) in args.into_iter().enumerate() {
            assert_eq!(fortran_position(arg), i as c_int + 1, "{arg}");
            assert_eq!(cblas_position(Layout::ColMajor, arg), i as c_int + 2, "{arg}");
        }
        // Row-major: the column-major call's argument is the caller's twin.
        let row = |arg| cblas_position(Layout::RowMajor, arg);
        assert_eq!([row(Arg::M), row(Arg::N), row(Arg::K)], [5, 4, 6]);
        assert_eq!([row(Arg::Lda), row(Arg::StrideA), row(Arg::Ldb), row(Arg::StrideB)], [12, 13, 9, 10]);
        assert_eq!([row(Arg::Ldc), row(Arg::StrideC), row(Arg::BatchCount)], [16, 17, 18]);
    }

    #[test]
    fn fortran_single_rules_first_at_the_batch_positions() {
        let ok = dims(3, 4, 5, 3, 5, 3);
        let fine = batch(15, 20, 12, 2);
        let (cfg, b) = fortran(b'N', b'N', ok, fine).expect("valid");
        assert_eq!((cfg.m, cfg.n, cfg.k, cfg.layout), (3, 4, 5, Layout::ColMajor));
        assert_eq!(b, StridedBatch { count: 2, stride_a: 15, stride_b: 20, stride_c: 12 });
        let bad = batch(-1, -1, -1, -1);
        // Each case breaks its rule and every later one: the first is reported.
        let cases = [
            (b'X', b'Y', dims(-1, -1, -1, 0, 0, 0), 1),
            (b'n', b'Y', dims(-1, -1, -1, 0, 0, 0), 2),
            (b'N', b'N', dims(-1, -1, -1, 0, 0, 0), 3),
            (b'N', b'N', dims(3, -1, -1, 0, 0, 0), 4),
            (b'N', b'N', dims(3, 4, -1, 0, 0, 0), 5),
            (b'N', b'N', dims(3, 4, 5, 2, 0, 0), 8),
            (b'N', b'N', dims(3, 4, 5, 3, 4, 0), 11),
            (b'N', b'T', dims(3, 4, 5, 3, 3, 0), 11),
            (b'N', b'N', dims(3, 4, 5, 3, 5, 2), 15),
            // The batch rules come after every single-GEMM rule.
            (b'N', b'N', ok, 9),
        ];
        for (ta, tb, d, info) in cases {
            assert_eq!(fortran(ta, tb, d, bad).err(), Some(info), "{} {} {d:?}", ta as char, tb as char);
        }
    }

    #[test]
    fn fortran_batch_rules_in_the_arguments_order() {
        let ok = dims(3, 4, 5, 3, 5, 3);
        let err = |b| fortran(b'T', b'C', dims(3, 4, 5, 5, 4, 3), b).err();
        assert_eq!(err(batch(-1, -1, -1, -1)), Some(9));
        assert_eq!(err(batch(0, -1, -1, -1)), Some(12));
        assert_eq!(err(batch(0, 0, -1, -1)), Some(16));
        assert_eq!(err(batch(0, 0, 12, -1)), Some(17));
        // Cs sharing an element: C is 3 x 4 with ldc 3 (12 elements).
        let err = |b| fortran(b'N', b'N', ok, b).err();
        assert_eq!(err(batch(0, 0, 11, 2)), Some(16));
        assert_eq!(err(batch(0, 0, 0, 2)), Some(16));
        assert_eq!(err(batch(0, 0, 12, 3)), None);
        // A batch of one (or none) has no second C to share with.
        assert_eq!(err(batch(0, 0, 0, 1)), None);
        assert_eq!(err(batch(0, 0, 0, 0)), None);
        // Interleaved: two 3 x 4 Cs in the rows of one 6 x 4 array.
        assert_eq!(fortran(b'N', b'N', dims(3, 4, 5, 3, 5, 6), batch(0, 0, 3, 2)).err(), None);
        assert_eq!(fortran(b'N', b'N', dims(3, 4, 5, 3, 5, 6), batch(0, 0, 2, 2)).err(), Some(16));
        // An empty C overlaps nothing.
        assert_eq!(fortran(b'N', b'N', dims(0, 4, 5, 1, 5, 1), batch(0, 0, 0, 5)).err(), None);
    }

    #[test]
    fn cblas_column_major_positions_are_fortrans_plus_one() {
        let col = |d, b| {
            check_cblas_batch::<Complex<f64>>(
                CBLAS_COL_MAJOR,
                CBLAS_NO_TRANS,
                CBLAS_TRANS,
                d,
                b,
                Complex::new(1.0, 0.0),
                Complex::new(0.0, 0.0),
            )
        };
        let pos = |d, b| col(d, b).err().map(|e| e.position);
        let (ok, fine) = (dims(3, 4, 5, 3, 4, 3), batch(15, 20, 12, 2));
        assert_eq!(pos(dims(3, 4, 5, 3, 3, 3), fine), Some(12));
        assert_eq!(pos(dims(3, 4, 5, 3, 4, 2), fine), Some(16));
        assert_eq!(pos(ok, batch(-1, -1, -1, -1)), Some(10));
        assert_eq!(pos(ok, batch(0, -1, -1, -1)), Some(13));
        assert_eq!(pos(ok, batch(0, 0, -1, -1)), Some(17));
        assert_eq!(pos(ok, batch(0, 0, 0, -1)), Some(18));
        assert_eq!(pos(ok, batch(0, 0, 0, 2)), Some(17));
        let (cfg, b) = col(ok, fine).expect("valid");
        assert_eq!((cfg.op_a, cfg.op_b, cfg.m, cfg.n), (Op::N, Op::T, 3, 4));
        assert_eq!(b, StridedBatch { count: 2, stride_a: 15, stride_b: 20, stride_c: 12 });
        let err = check_cblas_batch::<f32>(7, 0, 0, ok, fine, 1.0, 0.0).unwrap_err();
        assert_eq!(err, CblasError { position: 1, detail: "Illegal layout setting, 7\n".into() });
    }

    /// Row-major: the swapped column-major call is checked, so N before M,
    /// ldb before lda, strideb before stridea, each named as the caller's.
    #[test]
    fn cblas_row_major_checks_the_swapped_call() {
        let row =
            |d, b| check_cblas_batch::<f64>(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, d, b, 1.0, 0.0);
        let pos = |d, b| row(d, b).err().map(|e| e.position);
        let (ok, fine) = (dims(3, 4, 5, 5, 4, 4), batch(15, 20, 12, 2));
        assert_eq!(pos(dims(-1, -1, 5, 5, 4, 4), fine), Some(5));
        assert_eq!(pos(dims(3, 4, 5, 4, 3, 4), fine), Some(12));
        assert_eq!(pos(dims(3, 4, 5, 4, 4, 4), fine), Some(9));
        assert_eq!(pos(ok, batch(-1, -1, -1, -1)), Some(13));
        assert_eq!(pos(ok, batch(-1, 0, -1, -1)), Some(10));
        assert_eq!(pos(ok, batch(0, 0, 11, 2)), Some(17));
        // The column-major call takes the caller's B (and its stride) as A.
        let (cfg, b) = row(ok, fine).expect("valid");
        assert_eq!((cfg.layout, cfg.m, cfg.n, cfg.lda, cfg.ldb), (Layout::ColMajor, 4, 3, 4, 5));
        assert_eq!(b, StridedBatch { count: 2, stride_a: 20, stride_b: 15, stride_c: 12 });
    }
}
