//! The arguments of a GEMM call and the typed error naming the one that
//! breaks a rule.

use std::fmt;

use gemm_codegen::bespoke::BetaMode;
use gemm_codegen::{Op, Precision};

use crate::config::{Dim, Layout, Matrix, Stored};

/// An argument of a GEMM call, as an error names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arg {
    /// `op_a` (BLAS `transa`).
    OpA,
    /// `op_b` (BLAS `transb`).
    OpB,
    /// `m`.
    M,
    /// `n`.
    N,
    /// `k`.
    K,
    /// `alpha`.
    Alpha,
    /// The buffer of A.
    A,
    /// `lda`.
    Lda,
    /// The buffer of B.
    B,
    /// `ldb`.
    Ldb,
    /// `beta`.
    Beta,
    /// The buffer of C.
    C,
    /// `ldc`.
    Ldc,
    /// A batch's `stride_a`.
    StrideA,
    /// A batch's `stride_b`.
    StrideB,
    /// A batch's `stride_c`.
    StrideC,
    /// A batch's `count`.
    BatchCount,
}

impl Arg {
    /// The argument's name in [`GemmConfig`](crate::GemmConfig) and the GEMM methods.
    pub const fn name(self) -> &'static str {
        match self {
            Arg::OpA => "op_a",
            Arg::OpB => "op_b",
            Arg::M => "m",
            Arg::N => "n",
            Arg::K => "k",
            Arg::Alpha => "alpha",
            Arg::A => "a",
            Arg::Lda => "lda",
            Arg::B => "b",
            Arg::Ldb => "ldb",
            Arg::Beta => "beta",
            Arg::C => "c",
            Arg::Ldc => "ldc",
            Arg::StrideA => "stride_a",
            Arg::StrideB => "stride_b",
            Arg::StrideC => "stride_c",
            Arg::BatchCount => "count",
        }
    }

    /// The argument's 1-based position in BLAS `xGEMM`, the `info` value its
    /// `xerbla` reports (and cuBLAS's `CUBLAS_STATUS_INVALID_VALUE` stands for).
    /// A batch's arguments, which `xGEMM` has not, follow at 14 to 17 in the
    /// order `stride_a`, `stride_b`, `stride_c`, `count`.
    pub const fn blas_position(self) -> u8 {
        match self {
            Arg::OpA => 1,
            Arg::OpB => 2,
            Arg::M => 3,
            Arg::N => 4,
            Arg::K => 5,
            Arg::Alpha => 6,
            Arg::A => 7,
            Arg::Lda => 8,
            Arg::B => 9,
            Arg::Ldb => 10,
            Arg::Beta => 11,
            Arg::C => 12,
            Arg::Ldc => 13,
            Arg::StrideA => 14,
            Arg::StrideB => 15,
            Arg::StrideC => 16,
            Arg::BatchCount => 17,
        }
    }

    /// The argument for a dimension.
    pub const fn of_dim(dim: Dim) -> Arg {
        match dim {
            Dim::M => Arg::M,
            Dim::N => Arg::N,
            Dim::K => Arg::K,
        }
    }

    /// The buffer argument of a matrix.
    pub const fn buffer(matrix: Matrix) -> Arg {
        match matrix {
            Matrix::A => Arg::A,
            Matrix::B => Arg::B,
            Matrix::C => Arg::C,
        }
    }

    /// The batch-stride argument of a matrix.
    pub const fn stride(matrix: Matrix) -> Arg {
        match matrix {
            Matrix::A => Arg::StrideA,
            Matrix::B => Arg::StrideB,
            Matrix::C => Arg::StrideC,
        }
    }

    /// The leading-dimension argument of a matrix.
    pub const fn ld(matrix: Matrix) -> Arg {
        match matrix {
            Matrix::A => Arg::Lda,
            Matrix::B => Arg::Ldb,
            Matrix::C => Arg::Ldc,
        }
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A broken argument rule: which argument, its value, and the rule.
///
/// `Display` reads `argument `lda` = 5: must be at least max(1, k) = 17 for
/// op(A) = T`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgError {
    /// `m`, `n`, `k`, a batch's count or one of its strides is negative.
    Negative {
        /// [`Arg::M`], [`Arg::N`], [`Arg::K`], [`Arg::BatchCount`] or a stride.
        arg: Arg,
        /// The value given.
        value: i64,
    },
    /// A leading dimension below `max(1, inner)` of its stored matrix.
    LeadingDimension {
        /// [`Arg::Lda`], [`Arg::Ldb`] or [`Arg::Ldc`].
        arg: Arg,
        /// The value given.
        value: i64,
        /// The matrix it belongs to.
        matrix: Matrix,
        /// Its op (`N` for C).
        op: Op,
        /// The call's layout.
        layout: Layout,
        /// The contiguous dimension of the stored matrix.
        inner: Dim,
        /// `max(1, inner)`.
        min: i64,
    },
    /// A buffer shorter than its matrix's extent.
    BufferTooShort {
        /// [`Arg::A`], [`Arg::B`] or [`Arg::C`].
        arg: Arg,
        /// Elements in the buffer.
        len: usize,
        /// The matrix.
        matrix: Matrix,
        /// Its op (`N` for C).
        op: Op,
        /// How it is stored.
        stored: Stored,
        /// The sizes of `stored.inner` and `stored.outer`.
        dims: (i64, i64),
        /// Its leading dimension.
        ld: i64,
        /// Elements needed: `(outer − 1) · ld + inner` (saturating).
        needed: u64,
    },
    /// A buffer whose device address is not a multiple of the element size.
    Misaligned {
        /// [`Arg::A`], [`Arg::B`] or [`Arg::C`].
        arg: Arg,
        /// The device address.
        addr: u64,
        /// The element type.
        precision: Precision,
    },
    /// A size beyond what the kernels (and cuBLAS's 32-bit API) index.
    TooLarge {
        /// [`Arg::M`], [`Arg::N`] or [`Arg::K`].
        arg: Arg,
        /// The value given.
        value: i64,
        /// The largest allowed value.
        max: i64,
    },
    /// A size that needs more blocks along one grid axis than the hardware allows.
    GridTooLarge {
        /// [`Arg::M`] or [`Arg::N`].
        arg: Arg,
        /// The value given.
        value: i64,
        /// `"x"` or `"y"`.
        axis: char,
        /// Blocks needed along the axis.
        blocks: u64,
        /// Elements each block covers along it (the kernel's tile).
        tile: u32,
        /// The hardware's limit.
        max: u64,
    },
    /// A batch stride that makes two problems' C share elements: the result
    /// would depend on which problem is written last.
    BatchOverlap {
        /// [`Arg::StrideC`].
        arg: Arg,
        /// The value given.
        value: i64,
        /// The first problem whose C shares elements with problem 0's.
        problem: u64,
        /// C as stored: `(inner, outer)`, its contiguous extent first (`m`
        /// and `n` for a column-major call).
        dims: (i64, i64),
        /// `ldc`.
        ld: i64,
    },
    /// A buffer too short for every problem of a batch.
    BatchBufferTooShort {
        /// [`Arg::A`], [`Arg::B`] or [`Arg::C`].
        arg: Arg,
        /// Elements in the buffer.
        len: usize,
        /// Problems in the batch.
        count: i64,
        /// The matrix's batch stride.
        stride: i64,
        /// Elements one problem's matrix spans.
        span: u64,
        /// `(count − 1) · stride + span` (saturating).
        needed: u64,
    },
    /// A pointer-array batch whose arrays differ in length.
    BatchArrays {
        /// [`Arg::B`] or [`Arg::C`]: the array not as long as A's.
        arg: Arg,
        /// Its length.
        len: usize,
        /// A's, the batch's problem count.
        count: usize,
    },
    /// A rule broken by one problem of a pointer-array batch.
    Problem {
        /// The problem's index.
        problem: usize,
        /// The rule it breaks.
        error: Box<ArgError>,
    },
    /// A `beta` a bespoke kernel generated for one fixed `beta` does not
    /// compute.
    BetaMode {
        /// [`Arg::Beta`].
        arg: Arg,
        /// The value given, as `Debug` prints it.
        value: String,
        /// The kernel's entry name.
        kernel: String,
        /// The `beta`s it computes.
        mode: BetaMode,
    },
    /// An `ldb` or `ldc` other than the one a bespoke kernel was generated
    /// for (`ldb = N` in its spec).
    FixedStride {
        /// [`Arg::Ldb`] or [`Arg::Ldc`].
        arg: Arg,
        /// The value given.
        value: i64,
        /// The kernel's entry name.
        kernel: String,
        /// The stride it was generated for.
        fixed: u32,
    },
    /// Two matrices whose extents share memory, one of them written: the
    /// result would depend on the order of the kernel's accesses.
    Overlap {
        /// The written matrix's buffer ([`Arg::C`]).
        arg: Arg,
        /// Its extent, `[first, end)` byte addresses.
        span: (u64, u64),
        /// The other buffer ([`Arg::B`]).
        other: Arg,
        /// Its extent.
        other_span: (u64, u64),
    },
    /// An op other than the kernel's.
    OpMismatch {
        /// [`Arg::OpA`] or [`Arg::OpB`].
        arg: Arg,
        /// The op given.
        value: Op,
        /// The kernel's entry name.
        kernel: String,
        /// The kernel's ops, as it performs them.
        kernel_ops: (Op, Op),
        /// The column-major ops the call needs, as performed.
        needed_ops: (Op, Op),
        /// The call's layout.
        layout: Layout,
    },
}

impl ArgError {
    /// The offending argument.
    pub const fn arg(&self) -> Arg {
        match self {
            ArgError::Negative { arg, .. }
            | ArgError::LeadingDimension { arg, .. }
            | ArgError::BufferTooShort { arg, .. }
            | ArgError::Misaligned { arg, .. }
            | ArgError::TooLarge { arg, .. }
            | ArgError::GridTooLarge { arg, .. }
            | ArgError::BatchOverlap { arg, .. }
            | ArgError::BatchBufferTooShort { arg, .. }
            | ArgError::BatchArrays { arg, .. }
            | ArgError::BetaMode { arg, .. }
            | ArgError::FixedStride { arg, .. }
            | ArgError::Overlap { arg, .. }
            | ArgError::OpMismatch { arg, .. } => *arg,
            ArgError::Problem { error, .. } => error.arg(),
        }
    }
}

fn op_of(f: &mut fmt::Formatter<'_>, matrix: Matrix, op: Op) -> fmt::Result {
    match matrix {
        Matrix::C => f.write_str("C"),
        _ => write!(f, "op({}) = {}", matrix.name(), op),
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Negative { arg, value } => {
                write!(f, "argument `{arg}` = {value}: must be at least 0")
            }
            ArgError::LeadingDimension { arg, value, matrix, op, layout, inner, min } => {
                write!(f, "argument `{arg}` = {value}: must be at least max(1, {}) = {min}", inner.name())?;
                match (layout, matrix) {
                    (Layout::ColMajor, Matrix::C) => Ok(()),
                    (Layout::ColMajor, _) => {
                        f.write_str(" for ")?;
                        op_of(f, *matrix, *op)
                    }
                    (Layout::RowMajor, Matrix::C) => f.write_str(" for row-major C"),
                    (Layout::RowMajor, _) => {
                        write!(f, " for row-major {} with ", matrix.name())?;
                        op_of(f, *matrix, *op)
                    }
                }
            }
            ArgError::BufferTooShort { arg, len, matrix, op, stored, dims, ld, needed } => {
                write!(f, "argument `{arg}`: buffer holds {len} elements, but ")?;
                op_of(f, *matrix, *op)?;
                let (inner, outer) = dims;
                let lda = Arg::ld(*matrix);
                write!(
                    f,
                    " spans ({} - 1) * {lda} + {} = ({outer} - 1) * {ld} + {inner} = {needed}",
                    stored.outer.name(),
                    stored.inner.name(),
                )
            }
            ArgError::Misaligned { arg, addr, precision } => write!(
                f,
                "argument `{arg}`: device address {addr:#x} must be a multiple of {} bytes, the size of \
                 one {precision} element (the kernels load whole elements)",
                precision.element_bytes(),
            ),
            ArgError::TooLarge { arg, value, max } => write!(
                f,
                "argument `{arg}` = {value}: must be at most {max}, the largest size the kernels index"
            ),
            ArgError::GridTooLarge { arg, value, axis, blocks, tile, max } => write!(
                f,
                "argument `{arg}` = {value}: needs {blocks} blocks of {tile} along grid.{axis}, \
                 more than the {max} the hardware allows"
            ),
            ArgError::BatchOverlap { arg, value, problem, dims, ld } => write!(
                f,
                "argument `{arg}` = {value}: problems 0 and {problem} of the batch would write the same \
                 elements of C (each {} x {} with ldc = {ld}); use a stride of at least ({} - 1) * {ld} + {} \
                 = {}, or a layout whose C matrices are disjoint",
                dims.0,
                dims.1,
                dims.1,
                dims.0,
                (dims.1 - 1).saturating_mul(*ld).saturating_add(dims.0),
            ),
            ArgError::BatchBufferTooShort { arg, len, count, stride, span, needed } => write!(
                f,
                "argument `{arg}`: buffer holds {len} elements, but {count} problems at stride {stride} \
                 span ({count} - 1) * {stride} + {span} = {needed}"
            ),
            ArgError::BatchArrays { arg, len, count } => write!(
                f,
                "argument `{arg}`: an array of {len} matrices, but `a` has {count}: pass one A, B and C per problem"
            ),
            ArgError::Problem { problem, error } => write!(f, "problem {problem} of the batch: {error}"),
            ArgError::BetaMode { arg, value, kernel, mode } => write!(
                f,
                "argument `{arg}` = {value}: kernel `{kernel}` is generated for beta = {} alone: \
                 call it with that beta, or compile the operator with beta = runtime",
                mode.token()
            ),
            ArgError::FixedStride { arg, value, kernel, fixed } => write!(
                f,
                "argument `{arg}` = {value}: kernel `{kernel}` is generated for {arg} = {fixed} alone: \
                 call it with that {arg}, or compile the operator without a fixed {arg}"
            ),
            ArgError::Overlap { arg, span, other, other_span } => write!(
                f,
                "argument `{arg}`: its extent (bytes {:#x}..{:#x}) overlaps that of `{other}` ({:#x}..{:#x}): \
                 the kernel reads one while it writes the other, so the result would depend on their \
                 order; pass disjoint buffers",
                span.0, span.1, other_span.0, other_span.1
            ),
            ArgError::OpMismatch { arg, value, kernel, kernel_ops, needed_ops, layout } => {
                write!(
                    f,
                    "argument `{arg}` = {value}: kernel `{kernel}` computes op = ({}, {}), ",
                    kernel_ops.0, kernel_ops.1
                )?;
                if *layout == Layout::RowMajor {
                    f.write_str("and this row-major call runs column-major with A and B swapped, so it ")?;
                } else {
                    f.write_str("but this call ")?;
                }
                write!(f, "needs a kernel with op = ({}, {})", needed_ops.0, needed_ops.1)
            }
        }
    }
}

impl std::error::Error for ArgError {}
