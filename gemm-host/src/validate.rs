//! Every argument rule of a GEMM call, checked before anything is launched.
//!
//! Pure Rust, no CUDA types: the GPU path ([`crate::Gemm`]), the cuBLAS
//! harness ([`crate::cublas`]) and a CPU emulator of the kernels all run
//! exactly these checks, so they accept and reject the same calls.
//!
//! # Rules, in the order they are checked
//!
//! The first broken rule is reported. BLAS's own rules come first, in BLAS's
//! argument order (`xerbla`'s `info`); then what a buffer-passing API and the
//! kernels add.
//!
//! 1. With a kernel: `op_a` and `op_b` are the kernel's ops (after the
//!    row-major swap; `C` and `T` are the same op on real precisions).
//! 2. `m`, `n`, `k` ≥ 0.
//! 3. `lda` ≥ max(1, rows of the stored A): `m` for `op(A) = N`, else `k`
//!    (column-major; row-major swaps rows and columns); then `ldb` ≥ max(1,
//!    `k` for `op(B) = N`, else `n`); then `ldc` ≥ max(1, `m`).
//! 4. Each buffer whose length is known holds the matrix: `(outer − 1) · ld +
//!    inner` elements when both dimensions are positive (A, then B, then C).
//!    The shape alone decides, also when `alpha = 0` or `k = 0` leave A and B
//!    unread.
//! 5. Each buffer's device address is a multiple of the element size: the
//!    kernels load whole elements (complex ones as one `.v2` access).
//! 6. Only if something will be launched: `m`, `n`, `k` ≤ `i32::MAX` (the
//!    kernel ABI and cuBLAS's 32-bit API), and with a kernel, its grid within
//!    the hardware's limits (`grid.x` ≤ 2³¹ − 1, `grid.y` ≤ 65535).
//!
//! Then BLAS's quick returns: nothing is launched when `m = 0` or `n = 0`, or
//! when (`alpha = 0` or `k = 0`) and `beta = 1`. When `alpha = 0` or `k = 0`
//! the launch gets `k = 0` and `alpha = 0`, so A and B are never read and C
//! becomes `beta · C` exactly, as in the reference BLAS.
//!
//! # Batches
//!
//! A strided batch ([`StridedBatch`], [`check_batch`]) is checked by rules 1
//! to 5 on its first problem, then:
//!
//! 7. `count` ≥ 0, then `stride_a`, `stride_b`, `stride_c` ≥ 0 (a zero
//!    stride of A or B shares that operand among all problems).
//! 8. No two problems' C share an element (with `count` ≥ 2 and C not
//!    empty), checked exactly ([`first_overlap`]): disjoint interleaved
//!    layouts are allowed.
//! 9. Each buffer of known length holds every problem: `(count − 1) · stride
//!    + span` elements.
//!
//! then the quick returns (`count = 0` launches nothing) and rule 6. A
//! pointer-array batch ([`check_arrays`]) checks its three arrays have one
//! length and rules 1 to 5 on every problem.

use gemm_codegen::{Element, GridOverflow, KernelImage, LaunchShape, Op};

use crate::config::{Dim, GemmConfig, Matrix};

mod arg;
mod batch;
mod bespoke;

pub use arg::{Arg, ArgError};
pub use batch::{BatchLaunch, CheckedBatch, StridedBatch, check_arrays, check_batch, first_overlap};
pub use bespoke::{BespokeCall, BespokeLaunch, CheckedBespoke, check_bespoke};

/// What the checks know about one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferInfo {
    /// Elements in the buffer, if known (the raw-pointer layer does not know).
    pub len: Option<usize>,
    /// Its device address.
    pub addr: u64,
}

impl BufferInfo {
    /// A buffer of `len` elements at `addr`.
    pub const fn new(addr: u64, len: usize) -> Self {
        BufferInfo { len: Some(len), addr }
    }

    /// A buffer of unknown length at `addr`.
    pub const fn unsized_at(addr: u64) -> Self {
        BufferInfo { len: None, addr }
    }
}

/// The buffers of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Buffers {
    /// A.
    pub a: BufferInfo,
    /// B.
    pub b: BufferInfo,
    /// C.
    pub c: BufferInfo,
}

impl Buffers {
    const fn get(&self, matrix: Matrix) -> BufferInfo {
        match matrix {
            Matrix::A => self.a,
            Matrix::B => self.b,
            Matrix::C => self.c,
        }
    }
}

/// Why a valid call launches nothing (BLAS's quick returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuickReturn {
    /// `m = 0` or `n = 0`: C is empty.
    EmptyC,
    /// (`alpha = 0` or `k = 0`) and `beta = 1`: C stays as it is.
    NoUpdate,
    /// A batch of no problems.
    EmptyBatch,
}

/// A checked call, ready to launch: column-major, sizes converted to the
/// kernel ABI's types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Launch<T> {
    /// `op(A)` of the column-major call.
    pub op_a: Op,
    /// `op(B)` of the column-major call.
    pub op_b: Op,
    /// Rows of C (column-major).
    pub m: u32,
    /// Columns of C (column-major).
    pub n: u32,
    /// Reduction length; 0 when `alpha = 0` (A and B are not read).
    pub k: u32,
    /// `lda` of the first operand passed.
    pub lda: u64,
    /// `ldb` of the second operand passed.
    pub ldb: u64,
    /// `ldc`.
    pub ldc: u64,
    /// `alpha`; 0 when `k = 0`.
    pub alpha: T,
    /// `beta`.
    pub beta: T,
    /// Whether the caller's B buffer is passed as `a` and A as `b` (row-major).
    pub swap_ab: bool,
    /// The grid of the kernel [`check`] was given, within the hardware's
    /// limits (`None` without one: cuBLAS).
    pub grid: Option<(u32, u32, u32)>,
}

impl<T> Launch<T> {
    /// The caller's A and B (buffers, pointers, ...) in the order the
    /// column-major kernel takes them: swapped for a row-major call.
    pub fn operands<P>(&self, a: P, b: P) -> (P, P) {
        if self.swap_ab { (b, a) } else { (a, b) }
    }
}

/// The outcome of [`check`] for a valid call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Checked<T> {
    /// Nothing to do.
    Skip(QuickReturn),
    /// Launch this.
    Launch(Launch<T>),
}

/// Largest `m`, `n`, `k` the kernels accept.
pub const MAX_DIM: i64 = i32::MAX as i64;
/// Checks every rule (see the [module docs](self)) for `cfg` on `buffers`,
/// run by `kernel` (or by cuBLAS, for `None`), and says what to launch.
pub fn check<T: Element>(
    cfg: &GemmConfig<T>,
    buffers: &Buffers,
    kernel: Option<&KernelImage>,
) -> Result<Checked<T>, ArgError> {
    argument_rules(cfg, buffers, kernel)?;
    launch_of(cfg, kernel, 1)
}

/// Rules 1 to 5: every rule on the arguments themselves.
fn argument_rules<T: Element>(
    cfg: &GemmConfig<T>,
    buffers: &Buffers,
    kernel: Option<&KernelImage>,
) -> Result<(), ArgError> {
    let precision = T::PRECISION;
    let col = cfg.to_column_major();

    // 1. The kernel's ops.
    if let Some(image) = kernel {
        let needed = (col.op_a.effective(precision), col.op_b.effective(precision));
        let have = image.requires().ops;
        if needed != have {
            // Name the caller's argument: after a row-major swap, the kernel's
            // op(A) is the caller's op(B).
            let a_wrong = needed.0 != have.0;
            let arg = match (a_wrong, cfg.swaps_operands()) {
                (true, false) | (false, true) => Arg::OpA,
                (true, true) | (false, false) => Arg::OpB,
            };
            let value = if arg == Arg::OpA { cfg.op_a } else { cfg.op_b };
            return Err(ArgError::OpMismatch {
                arg,
                value,
                kernel: image.entry.to_string(),
                kernel_ops: have,
                needed_ops: needed,
                layout: cfg.layout,
            });
        }
    }

    // 2. Sizes.
    for dim in [Dim::M, Dim::N, Dim::K] {
        let value = cfg.dim(dim);
        if value < 0 {
            return Err(ArgError::Negative { arg: Arg::of_dim(dim), value });
        }
    }

    // 3. Leading dimensions.
    for matrix in [Matrix::A, Matrix::B, Matrix::C] {
        let (value, min) = (cfg.ld(matrix), cfg.min_ld(matrix));
        if value < min {
            return Err(ArgError::LeadingDimension {
                arg: Arg::ld(matrix),
                value,
                matrix,
                op: cfg.op(matrix),
                layout: cfg.layout,
                inner: cfg.stored(matrix).inner,
                min,
            });
        }
    }

    // 4. Buffer lengths.
    for matrix in [Matrix::A, Matrix::B, Matrix::C] {
        let Some(len) = buffers.get(matrix).len else { continue };
        let needed = cfg.required_len(matrix);
        if (len as u64) < needed {
            let stored = cfg.stored(matrix);
            return Err(ArgError::BufferTooShort {
                arg: Arg::buffer(matrix),
                len,
                matrix,
                op: cfg.op(matrix),
                stored,
                dims: (cfg.dim(stored.inner), cfg.dim(stored.outer)),
                ld: cfg.ld(matrix),
                needed,
            });
        }
    }

    // 5. Alignment.
    for matrix in [Matrix::A, Matrix::B, Matrix::C] {
        let addr = buffers.get(matrix).addr;
        if !addr.is_multiple_of(u64::from(precision.element_bytes())) {
            return Err(ArgError::Misaligned { arg: Arg::buffer(matrix), addr, precision });
        }
    }

    Ok(())
}

/// BLAS's quick returns and rule 6, for a launch of `problems` problems
/// (the grid's depth) of `cfg`'s shape.
fn launch_of<T: Element>(
    cfg: &GemmConfig<T>,
    kernel: Option<&KernelImage>,
    problems: u32,
) -> Result<Checked<T>, ArgError> {
    let col = cfg.to_column_major();
    // Quick returns.
    let alpha_zero = cfg.alpha == T::ZERO;
    if cfg.m == 0 || cfg.n == 0 {
        return Ok(Checked::Skip(QuickReturn::EmptyC));
    }
    if (alpha_zero || cfg.k == 0) && cfg.beta == T::ONE {
        return Ok(Checked::Skip(QuickReturn::NoUpdate));
    }

    // 6. Limits of a launch.
    for dim in [Dim::M, Dim::N, Dim::K] {
        let value = cfg.dim(dim);
        if value > MAX_DIM {
            return Err(ArgError::TooLarge { arg: Arg::of_dim(dim), value, max: MAX_DIM });
        }
    }
    let mut grid = None;
    if let Some(image) = kernel {
        let shape = image.launch();
        // Both extents fit a u32 (MAX_DIM).
        match shape.batch_grid(col.m as u32, col.n as u32, problems) {
            Ok(g) => grid = Some(g),
            Err(o) => {
                let extents = (col.m as u32, col.n as u32);
                return Err(grid_too_large(o, &shape, cfg.swaps_operands(), extents, problems));
            }
        }
    }

    let skip_product = alpha_zero || col.k == 0;
    // Every value below was checked to be in range above.
    let to_u32 = |v: i64| u32::try_from(v).expect("checked against MAX_DIM");
    let to_u64 = |v: i64| u64::try_from(v).expect("checked to be at least 1");
    Ok(Checked::Launch(Launch {
        op_a: col.op_a,
        op_b: col.op_b,
        m: to_u32(col.m),
        n: to_u32(col.n),
        k: if skip_product { 0 } else { to_u32(col.k) },
        lda: to_u64(col.lda),
        ldb: to_u64(col.ldb),
        ldc: to_u64(col.ldc),
        alpha: if skip_product { T::ZERO } else { cfg.alpha },
        beta: cfg.beta,
        swap_ab: cfg.swaps_operands(),
        grid,
    }))
}

/// The argument a grid of `shape` that overflows (`o`) is about. grid.x
/// runs along the kernel's M — the column-major call's `m`, or its `n` for a
/// kernel with swapped operands ([`LaunchShape::swapped`]) — and grid.y
/// along the other (a rasterized grid puts every block along x); a
/// row-major call's column-major `m` is the caller's `n`. A batch is
/// launched at most `MAX_GRID_Z` problems at a time, so only a caller
/// passing more reaches z.
pub(crate) fn grid_too_large(
    o: GridOverflow,
    shape: &LaunchShape,
    row_major: bool,
    (m, n): (u32, u32),
    problems: u32,
) -> ArgError {
    let (along_m, tile) = match o.axis {
        'x' => (!shape.swapped, shape.tile.0),
        'y' => (shape.swapped, shape.tile.1),
        _ => (false, 1),
    };
    let value = if along_m { m } else { n };
    let (arg, value) = match (o.axis, along_m != row_major) {
        ('z', _) => (Arg::BatchCount, problems),
        (_, true) => (Arg::M, value),
        (_, false) => (Arg::N, value),
    };
    ArgError::GridTooLarge { arg, value: i64::from(value), axis: o.axis, blocks: o.blocks, tile, max: o.max }
}

#[cfg(test)]
mod tests {
    use gemm_codegen::{KernelSpec, LaunchShape, Precision};
    use num_complex::Complex;

    use super::*;
    use crate::config::Stored;

    type C32 = Complex<f32>;

    /// A kernel image of the ops and tile to check against (its PTX is not
    /// needed).
    fn spec(precision: Precision, op_a: Op, op_b: Op) -> KernelImage {
        let spec = KernelSpec::new(precision, (op_a, op_b), (64, 32, 16), (16, 16), (16, 16), (16, 16));
        KernelImage { entry: spec.entry_name().into(), spec, ptx: "".into(), shared_bytes: 0 }
    }

    /// Buffers exactly as long as `cfg` needs, at aligned addresses.
    fn tight<T: Element>(cfg: &GemmConfig<T>) -> Buffers {
        let at = |addr, m| BufferInfo::new(addr, cfg.required_len(m).min(1 << 40) as usize);
        Buffers { a: at(0x1000, Matrix::A), b: at(0x2000, Matrix::B), c: at(0x3000, Matrix::C) }
    }

    fn err<T: Element>(cfg: &GemmConfig<T>) -> ArgError {
        check(cfg, &tight(cfg), None).expect_err("the call should be rejected")
    }

    fn launch<T: Element>(cfg: &GemmConfig<T>) -> Launch<T> {
        match check(cfg, &tight(cfg), None) {
            Ok(Checked::Launch(l)) => l,
            other => panic!("expected a launch, got {other:?}"),
        }
    }

    #[test]
    fn negative_sizes_name_the_argument_in_blas_order() {
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, -1, -2, -3);
        assert_eq!(err(&cfg), ArgError::Negative { arg: Arg::M, value: -1 });
        assert_eq!(err(&cfg).to_string(), "argument `m` = -1: must be at least 0");
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 1, -2, -3);
        assert_eq!(err(&cfg), ArgError::Negative { arg: Arg::N, value: -2 });
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 1, 2, -3).lda(0);
        assert_eq!(err(&cfg).arg(), Arg::K);
    }

    #[test]
    fn lda_follows_op_a() {
        let cfg = GemmConfig::<f32>::new(Op::T, Op::N, 4, 3, 17).lda(5);
        let e = err(&cfg);
        assert_eq!(e.arg(), Arg::Lda);
        assert_eq!(e.to_string(), "argument `lda` = 5: must be at least max(1, k) = 17 for op(A) = T");
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 17, 3, 4).lda(16);
        assert_eq!(
            err(&cfg).to_string(),
            "argument `lda` = 16: must be at least max(1, m) = 17 for op(A) = N"
        );
        // max(1, ·): an empty A still needs lda ≥ 1.
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 0, 3, 4).lda(0);
        assert!(matches!(err(&cfg), ArgError::LeadingDimension { arg: Arg::Lda, value: 0, min: 1, .. }));
        let cfg = GemmConfig::<C32>::new(Op::C, Op::N, 3, 3, 4).lda(3);
        assert_eq!(err(&cfg).to_string(), "argument `lda` = 3: must be at least max(1, k) = 4 for op(A) = C");
    }

    #[test]
    fn ldb_follows_op_b() {
        let cfg = GemmConfig::<f64>::new(Op::N, Op::N, 2, 3, 9).ldb(8);
        assert_eq!(err(&cfg).to_string(), "argument `ldb` = 8: must be at least max(1, k) = 9 for op(B) = N");
        let cfg = GemmConfig::<f64>::new(Op::N, Op::T, 2, 30, 9).ldb(9);
        assert_eq!(
            err(&cfg).to_string(),
            "argument `ldb` = 9: must be at least max(1, n) = 30 for op(B) = T"
        );
    }

    #[test]
    fn ldc_is_at_least_m() {
        let cfg = GemmConfig::<f64>::new(Op::N, Op::N, 12, 3, 9).ldc(11);
        assert_eq!(err(&cfg).to_string(), "argument `ldc` = 11: must be at least max(1, m) = 12");
        let cfg = GemmConfig::<f64>::new(Op::N, Op::N, 12, 0, 9).ldc(0);
        assert_eq!(err(&cfg).arg(), Arg::Ldc);
    }

    #[test]
    fn row_major_rules_use_columns() {
        let cfg = GemmConfig::<f32>::row_major(Op::N, Op::N, 4, 6, 5).lda(4);
        assert_eq!(
            err(&cfg).to_string(),
            "argument `lda` = 4: must be at least max(1, k) = 5 for row-major A with op(A) = N"
        );
        let cfg = GemmConfig::<f32>::row_major(Op::N, Op::T, 4, 6, 5).ldb(4);
        assert_eq!(
            err(&cfg).to_string(),
            "argument `ldb` = 4: must be at least max(1, k) = 5 for row-major B with op(B) = T"
        );
        let cfg = GemmConfig::<f32>::row_major(Op::N, Op::N, 4, 6, 5).ldc(5);
        assert_eq!(
            err(&cfg).to_string(),
            "argument `ldc` = 5: must be at least max(1, n) = 6 for row-major C"
        );
    }

    #[test]
    fn leading_dimensions_are_checked_in_blas_order() {
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 4, 6, 5).lda(1).ldb(1).ldc(1);
        assert_eq!(err(&cfg).arg(), Arg::Lda);
        assert_eq!(err(&cfg.lda(4)).arg(), Arg::Ldb);
        assert_eq!(err(&cfg.lda(4).ldb(5)).arg(), Arg::Ldc);
    }

    #[test]
    fn each_buffer_must_hold_its_matrix() {
        let cfg = GemmConfig::<f32>::new(Op::N, Op::T, 17, 5, 3).lda(20).ldb(6).ldc(18);
        let good = tight(&cfg);
        assert!(check(&cfg, &good, None).is_ok());
        assert_eq!(good.a.len, Some(2 * 20 + 17));

        let mut short = good;
        short.a.len = Some(56);
        let e = check(&cfg, &short, None).unwrap_err();
        assert_eq!(
            e,
            ArgError::BufferTooShort {
                arg: Arg::A,
                len: 56,
                matrix: Matrix::A,
                op: Op::N,
                stored: Stored { inner: Dim::M, outer: Dim::K },
                dims: (17, 3),
                ld: 20,
                needed: 57,
            }
        );
        assert_eq!(
            e.to_string(),
            "argument `a`: buffer holds 56 elements, but op(A) = N spans (k - 1) * lda + m = (3 - 1) * 20 + 17 = 57"
        );

        let mut short = good;
        short.b.len = Some(good.b.len.unwrap() - 1);
        assert_eq!(check(&cfg, &short, None).unwrap_err().arg(), Arg::B);
        let mut short = good;
        short.c.len = Some(good.c.len.unwrap() - 1);
        let e = check(&cfg, &short, None).unwrap_err();
        assert_eq!(e.arg(), Arg::C);
        assert!(e.to_string().contains("C spans (n - 1) * ldc + m = (5 - 1) * 18 + 17 = 89"), "{e}");

        // Unknown lengths (raw pointers) are not checked.
        let mut unknown = good;
        unknown.a = BufferInfo::unsized_at(0x1000);
        assert!(check(&cfg, &unknown, None).is_ok());
    }

    #[test]
    fn empty_matrices_need_no_elements() {
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 0, 5, 3);
        let empty = BufferInfo::new(0x100, 0);
        let bufs = Buffers { a: empty, b: BufferInfo::new(0x200, 15), c: empty };
        assert_eq!(check(&cfg, &bufs, None), Ok(Checked::Skip(QuickReturn::EmptyC)));
    }

    #[test]
    fn buffers_are_checked_even_when_not_read() {
        // BLAS semantics: the shape defines the argument, alpha does not.
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 4, 4, 4).alpha(0.0);
        let mut bufs = tight(&cfg);
        bufs.a.len = Some(0);
        assert_eq!(check(&cfg, &bufs, None).unwrap_err().arg(), Arg::A);
    }

    #[test]
    fn complex_buffers_must_be_element_aligned() {
        let cfg = GemmConfig::<C32>::new(Op::N, Op::N, 4, 4, 4);
        let mut bufs = tight(&cfg);
        bufs.b.addr = 0x2004;
        let e = check(&cfg, &bufs, None).unwrap_err();
        assert_eq!(e, ArgError::Misaligned { arg: Arg::B, addr: 0x2004, precision: Precision::C32 });
        assert_eq!(
            e.to_string(),
            "argument `b`: device address 0x2004 must be a multiple of 8 bytes, the size of one c32 \
             element (the kernels load whole elements)"
        );
        // The same address is fine for f32.
        let real = GemmConfig::<f32>::new(Op::N, Op::N, 4, 4, 4);
        let mut bufs = tight(&real);
        bufs.b.addr = 0x2004;
        assert!(check(&real, &bufs, None).is_ok());
        let z = GemmConfig::<Complex<f64>>::new(Op::N, Op::N, 4, 4, 4);
        let mut bufs = tight(&z);
        bufs.c.addr = 0x3008;
        assert_eq!(check(&z, &bufs, None).unwrap_err().arg(), Arg::C);
    }

    #[test]
    fn quick_returns() {
        let base = GemmConfig::<f64>::new(Op::N, Op::N, 8, 8, 8);
        let skip = |cfg: GemmConfig<f64>| check(&cfg, &tight(&cfg), None).unwrap();
        assert_eq!(skip(GemmConfig::new(Op::N, Op::N, 0, 8, 8)), Checked::Skip(QuickReturn::EmptyC));
        assert_eq!(skip(GemmConfig::new(Op::N, Op::N, 8, 0, 8)), Checked::Skip(QuickReturn::EmptyC));
        assert_eq!(skip(base.alpha(0.0).beta(1.0)), Checked::Skip(QuickReturn::NoUpdate));
        assert_eq!(
            skip(GemmConfig::new(Op::N, Op::N, 8, 8, 0).beta(1.0)),
            Checked::Skip(QuickReturn::NoUpdate)
        );
        // Complex: both parts must match.
        let z =
            GemmConfig::<C32>::new(Op::N, Op::N, 8, 8, 8).alpha(C32::new(0.0, 0.0)).beta(C32::new(1.0, 0.0));
        assert_eq!(check(&z, &tight(&z), None).unwrap(), Checked::Skip(QuickReturn::NoUpdate));
        let z = z.beta(C32::new(1.0, 1e-30));
        assert!(matches!(check(&z, &tight(&z), None).unwrap(), Checked::Launch(_)));
    }

    #[test]
    fn zero_alpha_or_k_launches_without_the_product() {
        let l = launch(&GemmConfig::<f64>::new(Op::N, Op::N, 8, 8, 8).alpha(0.0).beta(2.0));
        assert_eq!((l.k, l.alpha, l.beta), (0, 0.0, 2.0));
        // k = 0 with alpha ≠ 0: alpha is dropped too, so an infinite alpha
        // cannot turn beta · C into NaN.
        let l = launch(&GemmConfig::<f64>::new(Op::N, Op::N, 8, 8, 0).alpha(f64::INFINITY).beta(0.5));
        assert_eq!((l.k, l.alpha), (0, 0.0));
        let l = launch(&GemmConfig::<f64>::new(Op::N, Op::N, 8, 8, 3).alpha(2.0));
        assert_eq!((l.k, l.alpha, l.beta), (3, 2.0, 0.0));
        // -0.0 is zero.
        assert_eq!(launch(&GemmConfig::<f32>::new(Op::N, Op::N, 2, 2, 2).alpha(-0.0)).k, 0);
    }

    #[test]
    fn a_launch_is_column_major() {
        let cfg = GemmConfig::<f32>::row_major(Op::T, Op::N, 5, 7, 3).lda(6).ldb(8).ldc(9).alpha(2.0);
        let l = launch(&cfg);
        assert!(l.swap_ab);
        assert_eq!((l.op_a, l.op_b, l.m, l.n, l.k), (Op::N, Op::T, 7, 5, 3));
        assert_eq!((l.lda, l.ldb, l.ldc), (8, 6, 9));
        assert_eq!(l.operands("A", "B"), ("B", "A"));
        let l = launch(&GemmConfig::<f32>::new(Op::N, Op::N, 2, 2, 2));
        assert_eq!(l.operands("A", "B"), ("A", "B"));
    }

    #[test]
    fn sizes_beyond_the_kernel_abi() {
        let big = i64::from(i32::MAX) + 1;
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 1, 1, big);
        let e =
            check(&cfg, &Buffers { a: unsized_at(), b: unsized_at(), c: unsized_at() }, None).unwrap_err();
        assert_eq!(e, ArgError::TooLarge { arg: Arg::K, value: big, max: MAX_DIM });
        assert_eq!(
            e.to_string(),
            "argument `k` = 2147483648: must be at most 2147483647, the largest size the kernels index"
        );
        // Not checked when nothing is launched.
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 0, big, big);
        let bufs = Buffers { a: unsized_at(), b: unsized_at(), c: unsized_at() };
        assert_eq!(check(&cfg, &bufs, None), Ok(Checked::Skip(QuickReturn::EmptyC)));
    }

    fn unsized_at() -> BufferInfo {
        BufferInfo::unsized_at(0x1000)
    }

    #[test]
    fn grid_limits() {
        let s = spec(Precision::F32, Op::N, Op::N);
        let bufs = Buffers { a: unsized_at(), b: unsized_at(), c: unsized_at() };
        // n_blk = 32: 65535 blocks cover 2097120 columns.
        let ok = GemmConfig::<f32>::new(Op::N, Op::N, 1, 65535 * 32, 1);
        assert!(matches!(check(&ok, &bufs, Some(&s)), Ok(Checked::Launch(_))));
        let bad = GemmConfig::<f32>::new(Op::N, Op::N, 1, 65535 * 32 + 1, 1);
        let e = check(&bad, &bufs, Some(&s)).unwrap_err();
        assert_eq!(
            e,
            ArgError::GridTooLarge {
                arg: Arg::N,
                value: 65535 * 32 + 1,
                axis: 'y',
                blocks: 65536,
                tile: 32,
                max: LaunchShape::MAX_GRID_Y
            }
        );
        assert_eq!(
            e.to_string(),
            "argument `n` = 2097121: needs 65536 blocks of 32 along grid.y, more than the 65535 the hardware allows"
        );
        // Row-major: the caller's m runs along grid.y.
        let bad = GemmConfig::<f32>::row_major(Op::N, Op::N, 65535 * 32 + 1, 1, 1);
        assert_eq!(check(&bad, &bufs, Some(&s)).unwrap_err().arg(), Arg::M);
        // Swapped operands: grid.y runs along the kernel's N, the caller's m
        // (whose tile.1 is 32 too); a row-major call's n.
        let ba = KernelSpec { operands: gemm_codegen::Operands::Ba, ..s.spec };
        let ba = KernelImage { spec: ba, entry: ba.entry_name().into(), ..s.clone() };
        let bad = GemmConfig::<f32>::new(Op::N, Op::N, 65535 * 32 + 1, 1, 1);
        let e = check(&bad, &bufs, Some(&ba)).unwrap_err();
        assert_eq!((e.arg(), e.to_string().contains("along grid.y")), (Arg::M, true), "{e}");
        let bad = GemmConfig::<f32>::row_major(Op::N, Op::N, 1, 65535 * 32 + 1, 1);
        assert_eq!(check(&bad, &bufs, Some(&ba)).unwrap_err().arg(), Arg::N);
        // Without a kernel (cuBLAS) there is no grid to check.
        let bad = GemmConfig::<f32>::new(Op::N, Op::N, 1, 65535 * 32 + 1, 1);
        assert!(check(&bad, &bufs, None).is_ok());
    }

    #[test]
    fn kernel_ops_must_match() {
        let s = spec(Precision::F32, Op::N, Op::T);
        let cfg = GemmConfig::<f32>::new(Op::N, Op::T, 4, 4, 4);
        assert!(check(&cfg, &tight(&cfg), Some(&s)).is_ok());
        // C is T on reals, in the kernel and in the call.
        let cfg = GemmConfig::<f32>::new(Op::N, Op::C, 4, 4, 4);
        assert!(check(&cfg, &tight(&cfg), Some(&s)).is_ok());
        let sc = spec(Precision::F32, Op::N, Op::C);
        let cfg = GemmConfig::<f32>::new(Op::N, Op::T, 4, 4, 4);
        assert!(check(&cfg, &tight(&cfg), Some(&sc)).is_ok());

        let cfg = GemmConfig::<f32>::new(Op::T, Op::T, 4, 4, 4);
        let e = check(&cfg, &tight(&cfg), Some(&s)).unwrap_err();
        assert_eq!(e.arg(), Arg::OpA);
        assert_eq!(
            e.to_string(),
            format!(
                "argument `op_a` = T: kernel `{}` computes op = (N, T), but this call needs a kernel with op = (T, T)",
                s.entry
            )
        );
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 4, 4, 4);
        assert_eq!(check(&cfg, &tight(&cfg), Some(&s)).unwrap_err().arg(), Arg::OpB);

        // Complex: C and T differ.
        let z = spec(Precision::C32, Op::N, Op::T);
        let cfg = GemmConfig::<C32>::new(Op::N, Op::C, 4, 4, 4);
        let e = check(&cfg, &tight(&cfg), Some(&z)).unwrap_err();
        assert!(matches!(e, ArgError::OpMismatch { arg: Arg::OpB, value: Op::C, .. }));

        // Row-major (T, N) runs the column-major (N, T) kernel.
        let cfg = GemmConfig::<f32>::row_major(Op::T, Op::N, 4, 4, 4);
        assert!(check(&cfg, &tight(&cfg), Some(&s)).is_ok());
        let cfg = GemmConfig::<f32>::row_major(Op::N, Op::N, 4, 4, 4);
        let e = check(&cfg, &tight(&cfg), Some(&s)).unwrap_err();
        // Column-major op(B) is the caller's op(A).
        assert_eq!(e.arg(), Arg::OpA);
        assert!(e.to_string().contains("row-major call runs column-major with A and B swapped"), "{e}");
        assert!(e.to_string().ends_with("needs a kernel with op = (N, N)"), "{e}");
    }

    #[test]
    fn ops_are_checked_first() {
        let s = spec(Precision::F32, Op::N, Op::N);
        let cfg = GemmConfig::<f32>::new(Op::T, Op::N, -1, 4, 4);
        assert_eq!(check(&cfg, &tight(&cfg), Some(&s)).unwrap_err().arg(), Arg::OpA);
    }

    #[test]
    fn blas_positions() {
        assert_eq!(Arg::OpA.blas_position(), 1);
        assert_eq!(Arg::Lda.blas_position(), 8);
        assert_eq!(Arg::Ldc.blas_position(), 13);
        assert_eq!(Arg::Ldb.to_string(), "ldb");
    }
}
