//! [`GemmConfig`]: the arguments of one BLAS GEMM call, without the buffers.

use gemm_codegen::{Element, Op, Precision};
use gemm_kernels::Form;

/// The multiple of elements `lda` and `ldb` must be for `precision`'s
/// kernels to launch: 16 bytes for the 16-bit types, whose operands only
/// the tensor memory accelerator brings (else
/// [`crate::GemmError::TmaOperands`]); 1 for the others, whose kernels fall
/// back to their thread-copying twin.
pub const fn operand_lead(precision: Precision) -> u32 {
    if precision.is_half() { 16 / precision.element_bytes() } else { 1 }
}

/// `ld` rounded up to a multiple of [`operand_lead`]`(precision)`: a
/// leading dimension of A or B at least `ld` on which `precision`'s
/// kernels launch (saturating where no buffer could be that large).
pub const fn operand_ld(precision: Precision, ld: i64) -> i64 {
    let lead = operand_lead(precision) as i64;
    ld.saturating_add(lead - 1).div_euclid(lead) * lead
}

/// How the matrices of a call are stored, as CBLAS's `Order` argument.
///
/// gemmforge kernels are column-major. A row-major call is run as the
/// column-major product `Cᵀ = op(B)ᵀ · op(A)ᵀ`: A and B, `m` and `n`, `lda`
/// and `ldb` and the two ops change places (see
/// [`GemmConfig::to_column_major`]); no data moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// Elements of a column are contiguous; `ld` is the distance between
    /// columns (BLAS, cuBLAS). The default.
    #[default]
    ColMajor,
    /// Elements of a row are contiguous; `ld` is the distance between rows
    /// (CBLAS `CblasRowMajor`, C arrays).
    RowMajor,
}

impl Layout {
    /// `"column-major"` or `"row-major"`.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::ColMajor => "column-major",
            Layout::RowMajor => "row-major",
        }
    }
}

/// One GEMM call, `C = alpha · op(A) · op(B) + beta · C`, with `op(A)` of
/// `m × k`, `op(B)` of `k × n` and `C` of `m × n`.
///
/// The fields are BLAS's arguments in BLAS's order, with the 64-bit signed
/// integers of cuBLAS's `_64` API, so that every BLAS argument rule can be
/// checked (and a negative value reported) rather than made unrepresentable.
/// Nothing is checked on construction: [`crate::validate::check`] does that
/// before any launch, and every GEMM entry point calls it.
///
/// ```
/// use gemm_host::{GemmConfig, Op};
///
/// // C (100 × 50) = 2 · Aᵀ · B + C, with A stored 64 × 100 inside a 128-row buffer.
/// let cfg = GemmConfig::new(Op::T, Op::N, 100, 50, 64).alpha(2.0f32).beta(1.0).lda(128);
/// assert_eq!((cfg.lda, cfg.ldb, cfg.ldc), (128, 64, 100));
/// assert_eq!(cfg.a_len(), 99 * 128 + 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmConfig<T> {
    /// Storage order of A, B and C (CBLAS's `Order`; BLAS is column-major).
    pub layout: Layout,
    /// `op(A)`: `transa`.
    pub op_a: Op,
    /// `op(B)`: `transb`.
    pub op_b: Op,
    /// Rows of `op(A)` and of C.
    pub m: i64,
    /// Columns of `op(B)` and of C.
    pub n: i64,
    /// Columns of `op(A)`, rows of `op(B)`: the length of each dot product.
    pub k: i64,
    /// Scales `op(A) · op(B)`.
    pub alpha: T,
    /// Leading dimension of A, in elements.
    pub lda: i64,
    /// Leading dimension of B, in elements.
    pub ldb: i64,
    /// Scales C's input; `0` means C is not read (it may hold NaN).
    pub beta: T,
    /// Leading dimension of C, in elements.
    pub ldc: i64,
}

/// Which matrix of a GEMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Matrix {
    /// The left factor.
    A,
    /// The right factor.
    B,
    /// The output (and, for `beta ≠ 0`, an input).
    C,
}

impl Matrix {
    /// `"A"`, `"B"` or `"C"`.
    pub const fn name(self) -> &'static str {
        match self {
            Matrix::A => "A",
            Matrix::B => "B",
            Matrix::C => "C",
        }
    }
}

/// A dimension of the product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Rows of `op(A)` and C.
    M,
    /// Columns of `op(B)` and C.
    N,
    /// The reduction dimension.
    K,
}

impl Dim {
    /// `"m"`, `"n"` or `"k"`.
    pub const fn name(self) -> &'static str {
        match self {
            Dim::M => "m",
            Dim::N => "n",
            Dim::K => "k",
        }
    }
}

/// How one matrix lies in its buffer: `outer` runs of `inner` contiguous
/// elements, `ld` apart.
///
/// A column-major matrix has `inner` = its rows and `outer` = its columns; a
/// row-major one the other way round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stored {
    /// The dimension along which elements are contiguous.
    pub inner: Dim,
    /// The dimension along which runs are `ld` apart.
    pub outer: Dim,
}

impl<T: Element> GemmConfig<T> {
    /// A column-major call with tight leading dimensions (each the smallest
    /// legal value: `max(1, rows)` of the stored matrix), `alpha = 1` and
    /// `beta = 0`: `C = op(A) · op(B)`.
    pub fn new(op_a: Op, op_b: Op, m: i64, n: i64, k: i64) -> Self {
        Self::with_layout(Layout::ColMajor, op_a, op_b, m, n, k)
    }

    /// A row-major call with tight leading dimensions (each `max(1, columns)`
    /// of the stored matrix), `alpha = 1` and `beta = 0`.
    pub fn row_major(op_a: Op, op_b: Op, m: i64, n: i64, k: i64) -> Self {
        Self::with_layout(Layout::RowMajor, op_a, op_b, m, n, k)
    }

    /// A call in `layout` with tight leading dimensions, `alpha = 1`, `beta = 0`.
    pub fn with_layout(layout: Layout, op_a: Op, op_b: Op, m: i64, n: i64, k: i64) -> Self {
        let mut cfg =
            GemmConfig { layout, op_a, op_b, m, n, k, alpha: T::ONE, lda: 1, ldb: 1, beta: T::ZERO, ldc: 1 };
        cfg.lda = cfg.min_ld(Matrix::A);
        cfg.ldb = cfg.min_ld(Matrix::B);
        cfg.ldc = cfg.min_ld(Matrix::C);
        cfg
    }

    /// Sets `alpha`.
    #[must_use]
    pub fn alpha(mut self, alpha: T) -> Self {
        self.alpha = alpha;
        self
    }

    /// Sets `beta`.
    #[must_use]
    pub fn beta(mut self, beta: T) -> Self {
        self.beta = beta;
        self
    }

    /// Sets `lda`.
    #[must_use]
    pub fn lda(mut self, lda: i64) -> Self {
        self.lda = lda;
        self
    }

    /// Sets `ldb`.
    #[must_use]
    pub fn ldb(mut self, ldb: i64) -> Self {
        self.ldb = ldb;
        self
    }

    /// Sets `ldc`.
    #[must_use]
    pub fn ldc(mut self, ldc: i64) -> Self {
        self.ldc = ldc;
        self
    }

    /// The op applied to `matrix` (`N` for C).
    pub const fn op(&self, matrix: Matrix) -> Op {
        match matrix {
            Matrix::A => self.op_a,
            Matrix::B => self.op_b,
            Matrix::C => Op::N,
        }
    }

    /// The leading dimension of `matrix`.
    pub const fn ld(&self, matrix: Matrix) -> i64 {
        match matrix {
            Matrix::A => self.lda,
            Matrix::B => self.ldb,
            Matrix::C => self.ldc,
        }
    }

    /// The value of a dimension.
    pub const fn dim(&self, dim: Dim) -> i64 {
        match dim {
            Dim::M => self.m,
            Dim::N => self.n,
            Dim::K => self.k,
        }
    }

    /// How `matrix` lies in memory under this call's layout and ops.
    ///
    /// Column-major A is stored `m × k` for `op(A) = N` and `k × m` otherwise,
    /// with its rows contiguous; row-major storage makes the columns contiguous.
    pub const fn stored(&self, matrix: Matrix) -> Stored {
        // (rows, cols) of the stored matrix.
        let (rows, cols) = match matrix {
            Matrix::A if self.op_a.is_transposed() => (Dim::K, Dim::M),
            Matrix::A => (Dim::M, Dim::K),
            Matrix::B if self.op_b.is_transposed() => (Dim::N, Dim::K),
            Matrix::B => (Dim::K, Dim::N),
            Matrix::C => (Dim::M, Dim::N),
        };
        match self.layout {
            Layout::ColMajor => Stored { inner: rows, outer: cols },
            Layout::RowMajor => Stored { inner: cols, outer: rows },
        }
    }

    /// The smallest legal leading dimension of `matrix`: `max(1, inner)`
    /// (1 also when the dimensions are negative).
    pub const fn min_ld(&self, matrix: Matrix) -> i64 {
        let inner = self.dim(self.stored(matrix).inner);
        if inner > 1 { inner } else { 1 }
    }

    /// Elements a buffer must hold for `matrix`: `(outer − 1) · ld + inner`,
    /// or 0 when the matrix is empty. Saturates at `u64::MAX` (for sizes no
    /// buffer can have) and treats negative sizes as empty.
    pub fn required_len(&self, matrix: Matrix) -> u64 {
        let stored = self.stored(matrix);
        let (inner, outer, ld) = (self.dim(stored.inner), self.dim(stored.outer), self.ld(matrix));
        if inner <= 0 || outer <= 0 {
            return 0;
        }
        // All three are positive here (ld ≥ 1 is checked separately; a
        // smaller ld is treated as 1 so that the count stays meaningful).
        let needed = (outer as u128 - 1) * ld.max(1) as u128 + inner as u128;
        u64::try_from(needed).unwrap_or(u64::MAX)
    }

    /// [`GemmConfig::required_len`] of A, as a `usize` for allocation.
    ///
    /// # Panics
    /// If the count does not fit a `usize`.
    pub fn a_len(&self) -> usize {
        usize::try_from(self.required_len(Matrix::A)).expect("A does not fit the address space")
    }

    /// [`GemmConfig::required_len`] of B, as a `usize` for allocation.
    ///
    /// # Panics
    /// If the count does not fit a `usize`.
    pub fn b_len(&self) -> usize {
        usize::try_from(self.required_len(Matrix::B)).expect("B does not fit the address space")
    }

    /// [`GemmConfig::required_len`] of C, as a `usize` for allocation.
    ///
    /// # Panics
    /// If the count does not fit a `usize`.
    pub fn c_len(&self) -> usize {
        usize::try_from(self.required_len(Matrix::C)).expect("C does not fit the address space")
    }

    /// Whether the call reads C (beta ≠ 0, [`Form::Update`]) or only
    /// writes it: what the dispatch matches against the form a class was
    /// tuned in.
    pub fn form(&self) -> Form {
        Form::of_beta(self.beta == T::ZERO)
    }

    /// The column-major call that computes the same thing.
    ///
    /// Column-major calls are returned unchanged. A row-major call becomes
    /// `Cᵀ = op(B)ᵀ · op(A)ᵀ` on the same buffers: a row-major matrix is the
    /// column-major storage of its transpose, and `op(X)ᵀ` of the transpose is
    /// `op(X)` with the same op letter (conjugation included), so the call is
    /// `(op_b, op_a, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc)`.
    /// [`GemmConfig::swaps_operands`] says whether the buffers must be swapped.
    pub fn to_column_major(&self) -> GemmConfig<T> {
        match self.layout {
            Layout::ColMajor => *self,
            Layout::RowMajor => GemmConfig {
                layout: Layout::ColMajor,
                op_a: self.op_b,
                op_b: self.op_a,
                m: self.n,
                n: self.m,
                k: self.k,
                alpha: self.alpha,
                lda: self.ldb,
                ldb: self.lda,
                beta: self.beta,
                ldc: self.ldc,
            },
        }
    }

    /// Whether [`GemmConfig::to_column_major`] exchanges A and B.
    pub const fn swaps_operands(&self) -> bool {
        matches!(self.layout, Layout::RowMajor)
    }
}

#[cfg(test)]
mod tests {
    use num_complex::Complex;

    use super::*;

    /// The 16-bit types' A and B take leading dimensions of whole 16
    /// bytes; the others any.
    #[test]
    fn operand_leading_dimensions_round_up_to_16_bytes_for_the_16_bit_types() {
        assert_eq!(Precision::EVERY.map(operand_lead), [1, 1, 1, 1, 8, 8]);
        for (p, ld, want) in [
            (Precision::F16, 61, 64),
            (Precision::Bf16, 64, 64),
            (Precision::F16, 1, 8),
            (Precision::F32, 61, 61),
            (Precision::C64, 3, 3),
        ] {
            assert_eq!(operand_ld(p, ld), want, "{p} {ld}");
        }
        assert_eq!(operand_ld(Precision::F16, i64::MAX), i64::MAX - 7);
    }

    #[test]
    fn tight_leading_dimensions_follow_the_stored_shape() {
        let c = GemmConfig::<f32>::new(Op::N, Op::N, 7, 5, 3);
        assert_eq!((c.lda, c.ldb, c.ldc), (7, 3, 7));
        let c = GemmConfig::<f32>::new(Op::T, Op::C, 7, 5, 3);
        assert_eq!((c.lda, c.ldb, c.ldc), (3, 5, 7));
        let r = GemmConfig::<f64>::row_major(Op::N, Op::N, 7, 5, 3);
        assert_eq!((r.lda, r.ldb, r.ldc), (3, 5, 5));
        let r = GemmConfig::<f64>::row_major(Op::T, Op::T, 7, 5, 3);
        assert_eq!((r.lda, r.ldb, r.ldc), (7, 3, 5));
        let z = GemmConfig::<Complex<f64>>::new(Op::N, Op::N, 0, 0, 0);
        assert_eq!((z.lda, z.ldb, z.ldc), (1, 1, 1));
        assert_eq!((z.alpha, z.beta), (Complex::new(1.0, 0.0), Complex::new(0.0, 0.0)));
    }

    #[test]
    fn required_lengths() {
        let c = GemmConfig::<f32>::new(Op::N, Op::T, 4, 5, 6).lda(10).ldb(7).ldc(4);
        // A: 4 × 6 stored, ld 10: 5 · 10 + 4.
        assert_eq!(c.a_len(), 54);
        // B: op T, stored 5 × 6, ld 7: 5 · 7 + 5.
        assert_eq!(c.b_len(), 40);
        assert_eq!(c.c_len(), 20);
        let empty = GemmConfig::<f32>::new(Op::N, Op::N, 0, 5, 6);
        assert_eq!((empty.a_len(), empty.b_len(), empty.c_len()), (0, 30, 0));
        let negative = GemmConfig::<f32>::new(Op::N, Op::N, -3, 5, 6);
        assert_eq!(negative.required_len(Matrix::A), 0);
        let huge = GemmConfig::<f32>::new(Op::N, Op::N, i64::MAX, i64::MAX, 1).ldc(i64::MAX);
        assert_eq!(huge.required_len(Matrix::C), u64::MAX);
    }

    #[test]
    fn row_major_swaps_operands_and_keeps_op_letters() {
        let r = GemmConfig::<Complex<f32>>::row_major(Op::C, Op::T, 7, 5, 3)
            .alpha(Complex::new(2.0, 1.0))
            .lda(11)
            .ldb(13)
            .ldc(17);
        let c = r.to_column_major();
        assert!(r.swaps_operands());
        assert_eq!(c.layout, Layout::ColMajor);
        assert_eq!((c.op_a, c.op_b, c.m, c.n, c.k), (Op::T, Op::C, 5, 7, 3));
        assert_eq!((c.lda, c.ldb, c.ldc), (13, 11, 17));
        assert_eq!(c.alpha, r.alpha);
        // The same buffers, seen either way, need the same number of elements.
        assert_eq!((r.a_len(), r.b_len(), r.c_len()), (c.b_len(), c.a_len(), c.c_len()));
        let col = GemmConfig::<f32>::new(Op::N, Op::N, 2, 3, 4);
        assert_eq!(col.to_column_major(), col);
        assert!(!col.swaps_operands());
    }
}
