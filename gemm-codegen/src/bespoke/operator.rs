//! The constant operator `A` of a bespoke kernel: a small dense `m × k`
//! matrix of finite `f64` values, zeros included (a bespoke kernel emits no
//! code for them; keeping them makes the operator's shape and density
//! explicit).

use std::fmt;

use thiserror::Error;

/// A constant operator `A` (`rows × cols`, row-major).
#[derive(Clone, PartialEq)]
pub struct Operator {
    rows: usize,
    cols: usize,
    values: Vec<f64>,
}

/// Why values do not make an [`Operator`].
#[derive(Clone, Debug, PartialEq, Error)]
pub enum OperatorError {
    /// A dimension is zero.
    #[error("an operator needs at least one row and one column, not {rows} x {cols}")]
    Empty { rows: usize, cols: usize },
    /// A dimension is over [`Operator::MAX_DIM`].
    #[error("an operator is at most {max} x {max}, not {rows} x {cols}")]
    TooLarge { rows: usize, cols: usize, max: usize },
    /// The value count is not `rows · cols`.
    #[error("{rows} x {cols} needs {} values, not {got}", rows * cols)]
    Length { rows: usize, cols: usize, got: usize },
    /// A value is NaN or infinite (0-based position).
    #[error("entry ({row}, {col}) is {value}: operator values must be finite")]
    NonFinite { row: usize, col: usize, value: f64 },
}

impl Operator {
    /// The largest `m` and `k` accepted: four times the ~1100 of the largest
    /// operators high-order solvers use; a bespoke kernel's code grows with
    /// the non-zeros, so larger operators belong to a dense GEMM.
    pub const MAX_DIM: usize = 4096;

    /// The operator of `values` in row-major order.
    pub fn from_row_major(rows: usize, cols: usize, values: Vec<f64>) -> Result<Operator, OperatorError> {
        Self::check_shape(rows, cols)?;
        if values.len() != rows * cols {
            return Err(OperatorError::Length { rows, cols, got: values.len() });
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(OperatorError::NonFinite { row: i / cols, col: i % cols, value: values[i] });
        }
        Ok(Operator { rows, cols, values })
    }

    /// The operator whose entry `(i, j)` is `f(i, j)`.
    pub fn from_fn(
        rows: usize,
        cols: usize,
        mut f: impl FnMut(usize, usize) -> f64,
    ) -> Result<Operator, OperatorError> {
        Self::check_shape(rows, cols)?;
        Self::from_row_major(rows, cols, (0..rows * cols).map(|i| f(i / cols, i % cols)).collect())
    }

    /// The dimension rules of an operator: at least one row and one column,
    /// at most [`Operator::MAX_DIM`] of each. For builders to check before
    /// they compute or allocate anything of that size.
    pub fn check_shape(rows: usize, cols: usize) -> Result<(), OperatorError> {
        if rows == 0 || cols == 0 {
            return Err(OperatorError::Empty { rows, cols });
        }
        if rows > Self::MAX_DIM || cols > Self::MAX_DIM {
            return Err(OperatorError::TooLarge { rows, cols, max: Self::MAX_DIM });
        }
        Ok(())
    }

    /// `m`: rows of A (and of C).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `k`: columns of A (rows of B).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Entry `(i, j)`.
    ///
    /// # Panics
    /// If `i` or `j` is out of range.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(i < self.rows && j < self.cols, "({i}, {j}) outside {} x {}", self.rows, self.cols);
        self.values[i * self.cols + j]
    }

    /// Row `i`.
    ///
    /// # Panics
    /// If `i` is out of range.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.cols..(i + 1) * self.cols]
    }

    /// Every entry, row-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Entries that are not zero (a `-0.0` is zero).
    pub fn nnz(&self) -> usize {
        self.values.iter().filter(|&&v| v != 0.0).count()
    }

    /// `nnz / (m · k)`.
    pub fn density(&self) -> f64 {
        self.nnz() as f64 / self.values.len() as f64
    }
}

impl fmt::Debug for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Operator({} x {}, {} non-zeros)", self.rows, self.cols, self.nnz())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operator_is_finite_non_empty_and_bounded() {
        let a = Operator::from_row_major(2, 3, vec![1.0, 0.0, -0.0, 0.0, 2.5, 0.0]).unwrap();
        assert_eq!((a.rows(), a.cols(), a.nnz()), (2, 3, 2));
        assert_eq!((a.get(1, 1), a.row(0)), (2.5, &[1.0, 0.0, -0.0][..]));
        assert!((a.density() - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(format!("{a:?}"), "Operator(2 x 3, 2 non-zeros)");
        assert_eq!(Operator::from_row_major(0, 3, vec![]), Err(OperatorError::Empty { rows: 0, cols: 3 }));
        let big = Operator::MAX_DIM + 1;
        assert_eq!(
            Operator::from_fn(big, 1, |_, _| 1.0),
            Err(OperatorError::TooLarge { rows: big, cols: 1, max: Operator::MAX_DIM })
        );
        assert_eq!(
            Operator::from_row_major(2, 2, vec![1.0; 3]),
            Err(OperatorError::Length { rows: 2, cols: 2, got: 3 })
        );
        let e = Operator::from_row_major(2, 2, vec![1.0, 2.0, f64::NAN, 4.0]).unwrap_err();
        assert!(matches!(e, OperatorError::NonFinite { row: 1, col: 0, .. }), "{e:?}");
        assert_eq!(e.to_string(), "entry (1, 0) is NaN: operator values must be finite");
        let a = Operator::from_fn(3, 2, |i, j| (10 * i + j) as f64).unwrap();
        assert_eq!(a.values(), [0.0, 1.0, 10.0, 11.0, 20.0, 21.0]);
    }
}
