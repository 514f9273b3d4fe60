//! The rules of a bespoke constant-A call, `C = alpha · A · B + beta · C`
//! with the operator A compiled into the kernel
//! ([`gemm_codegen::bespoke`]): rules 10 and 11 of [`crate::validate`]
//! after the rules of the row-major GEMM the call is.
//!
//! A bespoke call is the row-major GEMM `GemmConfig::row_major(N, N, m,
//! n, k).ldb(ldb).ldc(ldc)` with A the operator (`lda = k`): its `n`,
//! `ldb`, `ldc`, buffer and alignment rules are that GEMM's (rules 2 to 5),
//! its quick returns and limits too (rule 6: `n ≤ i32::MAX`). The kernel
//! adds two:
//!
//! 10. `beta` is one the kernel computes
//!     ([`BetaMode::computes`](gemm_codegen::bespoke::BetaMode::computes)): a kernel
//!     generated for `beta = 0` or `beta = 1` takes no other value.
//! 11. B's and C's extents (from their first to their last element, in
//!     bytes) do not overlap: the kernel reads B while it writes C, so the
//!     result would depend on the order of the two. (Conservative: two
//!     interleaved matrices that share no element are refused too.)
//! 12. `ldb` and `ldc` are the kernel's where its spec fixes them
//!     ([`BespokeSpec::ldb`](gemm_codegen::bespoke::BespokeSpec::ldb)): its
//!     row addresses are compiled in.
//!
//! Then what to run ([`CheckedBespoke`]): nothing for BLAS's quick returns;
//! for `alpha = 0`, `C = beta · C` without reading B (BLAS: B is not
//! referenced, so a NaN in B does not reach C), as the GEMM of `k = 0`;
//! else the kernel, or its unaligned twin when B, C, `ldb`, `ldc` or `n`
//! miss the kernel's vector alignment
//! ([`BespokeRequirements::aligned`]).

use gemm_codegen::bespoke::BespokeRequirements;
use gemm_codegen::{Element, Op};

use super::{Arg, ArgError, BufferInfo, Buffers, Checked, QuickReturn, argument_rules, launch_of};
use crate::config::{GemmConfig, Matrix};

/// The arguments of a bespoke call besides the buffers: `n` columns of B
/// (`k × n`) and C (`m × n`), both row-major with row strides `ldb` and
/// `ldc`, and the scalars. Like [`GemmConfig`], nothing is checked on
/// construction.
///
/// ```
/// use gemm_host::bespoke::BespokeCall;
///
/// // C = 2 · A · B + C on 1000 columns, B's rows 1024 elements apart.
/// let call = BespokeCall::new(1000).alpha(2.0f64).beta(1.0).ldb(1024);
/// assert_eq!((call.ldb, call.ldc), (1024, 1000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BespokeCall<T> {
    /// Columns of B and C.
    pub n: i64,
    /// Scales `A · B`.
    pub alpha: T,
    /// Elements from one row of B to the next.
    pub ldb: i64,
    /// Scales C's input; 0: C is not read.
    pub beta: T,
    /// Elements from one row of C to the next.
    pub ldc: i64,
}

impl<T: Element> BespokeCall<T> {
    /// `C = A · B` on `n` columns, with tight rows (`ldb = ldc = max(1, n)`).
    pub fn new(n: i64) -> BespokeCall<T> {
        BespokeCall { n, alpha: T::ONE, ldb: n.max(1), beta: T::ZERO, ldc: n.max(1) }
    }

    /// Sets `alpha`.
    pub fn alpha(mut self, alpha: T) -> Self {
        self.alpha = alpha;
        self
    }

    /// Sets `beta`.
    pub fn beta(mut self, beta: T) -> Self {
        self.beta = beta;
        self
    }

    /// Sets `ldb`.
    pub fn ldb(mut self, ldb: i64) -> Self {
        self.ldb = ldb;
        self
    }

    /// Sets `ldc`.
    pub fn ldc(mut self, ldc: i64) -> Self {
        self.ldc = ldc;
        self
    }

    /// The row-major GEMM the call is, for an `m × k` operator stored
    /// row-major with `lda = k`: its arguments' rules, its reference
    /// ([`crate::reference::gemm`], [`crate::case::Case::with_a`]) and a
    /// dense GEMM or cuBLAS computing the same.
    pub fn gemm_config(&self, m: usize, k: usize) -> GemmConfig<T> {
        let dim = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
        GemmConfig::row_major(Op::N, Op::N, dim(m), self.n, dim(k))
            .ldb(self.ldb)
            .ldc(self.ldc)
            .alpha(self.alpha)
            .beta(self.beta)
    }
}

/// A checked bespoke call, ready to launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BespokeLaunch<T> {
    /// Columns.
    pub n: u32,
    /// `ldb`, at least `max(1, n)`.
    pub ldb: u64,
    /// `ldc`, at least `max(1, n)`.
    pub ldc: u64,
    /// `alpha`, not 0.
    pub alpha: T,
    /// `beta`, one the kernel computes.
    pub beta: T,
    /// Whether the arguments meet the kernel's vector alignment; if not, its
    /// unaligned twin runs.
    pub aligned: bool,
}

/// The outcome of [`check_bespoke`] for a valid call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CheckedBespoke<T> {
    /// Nothing to do: `n = 0`, or `alpha = 0` and `beta = 1`.
    Skip(QuickReturn),
    /// `alpha = 0`: `C = beta · C`, B not read; run as this GEMM of `k = 0`
    /// (its B, of no rows, needs no element).
    ScaleC(GemmConfig<T>),
    /// Run the kernel (or its twin).
    Launch(BespokeLaunch<T>),
}

/// Checks a call of a bespoke kernel for an `m × k` operator with
/// `requires` (named `kernel` in errors) on buffers `b` and `c` (their
/// device addresses and, if known, lengths), and says what to run: every
/// rule of [`crate::validate`] for bespoke calls (the GEMM's rules 2 to 6,
/// then 10 and 11), the first broken one reported.
///
/// The element type's precision is not checked here (it is a kernel's
/// property, not an argument's): callers check it first
/// ([`crate::bespoke::check`]).
pub fn check_bespoke<T: Element>(
    (m, k): (u32, u32),
    requires: &BespokeRequirements,
    kernel: &str,
    call: &BespokeCall<T>,
    b: BufferInfo,
    c: BufferInfo,
) -> Result<CheckedBespoke<T>, ArgError> {
    let cfg = call.gemm_config(m as usize, k as usize);
    // The operator is not an argument: a buffer exactly its size.
    let a = BufferInfo::new(0, cfg.required_len(Matrix::A) as usize);
    argument_rules(&cfg, &Buffers { a, b, c }, None)?;

    // 10. A beta the kernel computes.
    let beta = call.beta.parts().map(Into::<f64>::into);
    if beta[1] != 0.0 || !requires.beta.computes(beta[0]) {
        return Err(ArgError::BetaMode {
            arg: Arg::Beta,
            value: format!("{:?}", call.beta),
            kernel: kernel.to_owned(),
            mode: requires.beta,
        });
    }

    // 12. (Checked before 11: a fixed stride is the kernel's, not the
    // buffers'.) The strides the kernel was generated for.
    for (arg, value, fixed) in [(Arg::Ldb, call.ldb, requires.ldb), (Arg::Ldc, call.ldc, requires.ldc)] {
        if let Some(fixed) = fixed.filter(|&f| i64::from(f) != value) {
            return Err(ArgError::FixedStride { arg, value, kernel: kernel.to_owned(), fixed });
        }
    }

    // 11. B and C apart.
    let esz = u64::from(T::PRECISION.element_bytes());
    let extent = |x: BufferInfo, matrix| {
        let bytes = cfg.required_len(matrix).saturating_mul(esz);
        (x.addr, x.addr.saturating_add(bytes))
    };
    let (b_span, c_span) = (extent(b, Matrix::B), extent(c, Matrix::C));
    let empty = |(from, to): (u64, u64)| from == to;
    if !empty(b_span) && !empty(c_span) && b_span.0 < c_span.1 && c_span.0 < b_span.1 {
        return Err(ArgError::Overlap { arg: Arg::C, span: c_span, other: Arg::B, other_span: b_span });
    }

    Ok(match launch_of(&cfg, None, 1)? {
        Checked::Skip(q) => CheckedBespoke::Skip(q),
        Checked::Launch(launch) if launch.k == 0 => {
            // alpha = 0 (k ≥ 1: an operator has columns).
            let scale = call.gemm_config(m as usize, 0).alpha(T::ZERO);
            CheckedBespoke::ScaleC(scale)
        }
        Checked::Launch(_) => {
            // Rules 2, 3 and 6 passed: 0 < n ≤ i32::MAX, ld ≥ n ≥ 1.
            let (n, ldb, ldc) = (call.n as u64, call.ldb as u64, call.ldc as u64);
            CheckedBespoke::Launch(BespokeLaunch {
                n: n as u32,
                ldb,
                ldc,
                alpha: call.alpha,
                beta: call.beta,
                aligned: requires.aligned(b.addr, c.addr, ldb, ldc, n),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use gemm_codegen::bespoke::BetaMode;
    use gemm_codegen::{Precision, Target};

    use super::*;
    use crate::config::Dim;

    const M: u32 = 5;
    const K: u32 = 3;

    fn requires(alignment: u32, beta: BetaMode) -> BespokeRequirements {
        BespokeRequirements {
            precision: Precision::F64,
            arch: Target::Sm80,
            alignment,
            beta,
            ldb: None,
            ldc: None,
        }
    }

    /// Buffers exactly as long as `call` needs, far apart and aligned.
    fn tight(call: &BespokeCall<f64>) -> (BufferInfo, BufferInfo) {
        let cfg = call.gemm_config(M as usize, K as usize);
        let len = |x| cfg.required_len(x).min(1 << 40) as usize;
        (BufferInfo::new(0x10_0000, len(Matrix::B)), BufferInfo::new(1 << 50, len(Matrix::C)))
    }

    fn check(call: &BespokeCall<f64>, req: &BespokeRequirements) -> Result<CheckedBespoke<f64>, ArgError> {
        let (b, c) = tight(call);
        check_bespoke((M, K), req, "k", call, b, c)
    }

    fn err(call: BespokeCall<f64>) -> ArgError {
        check(&call, &requires(2, BetaMode::Runtime)).expect_err("refused")
    }

    #[test]
    fn sizes_and_leading_dimensions_are_the_row_major_gemms() {
        assert_eq!(err(BespokeCall::new(-1)), ArgError::Negative { arg: Arg::N, value: -1 });
        let e = err(BespokeCall::new(8).ldb(7));
        assert_eq!(
            e.to_string(),
            "argument `ldb` = 7: must be at least max(1, n) = 8 for row-major B with op(B) = N"
        );
        assert_eq!(err(BespokeCall::new(8).ldc(7)).arg(), Arg::Ldc);
        assert_eq!(err(BespokeCall::new(0).ldb(0)).arg(), Arg::Ldb);
        let big = i64::from(i32::MAX) + 1;
        let e = err(BespokeCall::new(big));
        assert_eq!(e, ArgError::TooLarge { arg: Arg::N, value: big, max: super::super::MAX_DIM });
    }

    #[test]
    fn buffers_must_hold_every_row() {
        let call = BespokeCall::new(8).ldb(10).ldc(9);
        let (b, c) = tight(&call);
        assert_eq!((b.len, c.len), (Some(2 * 10 + 8), Some(4 * 9 + 8)));
        let short = BufferInfo { len: Some(27), ..b };
        let e = check_bespoke((M, K), &requires(1, BetaMode::Runtime), "k", &call, short, c).unwrap_err();
        assert!(matches!(e, ArgError::BufferTooShort { arg: Arg::B, needed: 28, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "argument `b`: buffer holds 27 elements, but op(B) = N spans (k - 1) * ldb + n = (3 - 1) * 10 + 8 = 28"
        );
        let short = BufferInfo { len: Some(43), ..c };
        let e = check_bespoke((M, K), &requires(1, BetaMode::Runtime), "k", &call, b, short).unwrap_err();
        assert!(matches!(e, ArgError::BufferTooShort { arg: Arg::C, .. }), "{e:?}");
        let odd = BufferInfo { addr: 0x10_0004, ..b };
        let e = check_bespoke((M, K), &requires(1, BetaMode::Runtime), "k", &call, odd, c).unwrap_err();
        assert!(matches!(e, ArgError::Misaligned { arg: Arg::B, .. }), "{e:?}");
    }

    #[test]
    fn beta_must_be_the_kernels() {
        let call = BespokeCall::new(4).beta(0.5);
        let e = check(&call, &requires(1, BetaMode::Zero)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "argument `beta` = 0.5: kernel `k` is generated for beta = 0 alone: \
             call it with that beta, or compile the operator with beta = runtime"
        );
        assert_eq!(e.arg(), Arg::Beta);
        assert!(check(&call.beta(-0.0), &requires(1, BetaMode::Zero)).is_ok());
        assert_eq!(check(&call, &requires(1, BetaMode::One)).unwrap_err().arg(), Arg::Beta);
        assert!(check(&call.beta(1.0), &requires(1, BetaMode::One)).is_ok());
        // Checked before the quick returns: n = 0 with a wrong beta is an error.
        assert_eq!(
            check(&BespokeCall::new(0).beta(2.0), &requires(1, BetaMode::Zero)).unwrap_err().arg(),
            Arg::Beta
        );
    }

    #[test]
    fn b_and_c_must_not_overlap() {
        let call = BespokeCall::new(4);
        let (b, c) = tight(&call);
        // C's 5 rows of 4 f64 start inside B's last row.
        let inside = BufferInfo { addr: b.addr + 8 * 8, ..c };
        let req = requires(1, BetaMode::Runtime);
        let e = check_bespoke((M, K), &req, "k", &call, b, inside).unwrap_err();
        assert_eq!(e.arg(), Arg::C);
        assert!(e.to_string().contains("overlaps that of `b`"), "{e}");
        // Touching is not overlapping.
        let after = BufferInfo { addr: b.addr + 12 * 8, ..c };
        assert!(check_bespoke((M, K), &req, "k", &call, b, after).is_ok());
        let before = BufferInfo { addr: b.addr - 20 * 8, ..c };
        assert!(check_bespoke((M, K), &req, "k", &call, b, before).is_ok());
        // Empty matrices share nothing.
        let none = BespokeCall::<f64>::new(0);
        assert!(check_bespoke((M, K), &req, "k", &none, b, BufferInfo { addr: b.addr, ..c }).is_ok());
    }

    #[test]
    fn what_to_run() {
        let req = requires(2, BetaMode::Runtime);
        assert_eq!(check(&BespokeCall::new(0), &req), Ok(CheckedBespoke::Skip(QuickReturn::EmptyC)));
        let keep = BespokeCall::new(4).alpha(0.0).beta(1.0);
        assert_eq!(check(&keep, &req), Ok(CheckedBespoke::Skip(QuickReturn::NoUpdate)));
        match check(&BespokeCall::new(4).alpha(-0.0).beta(3.0).ldb(6), &req) {
            Ok(CheckedBespoke::ScaleC(cfg)) => {
                assert_eq!((cfg.m, cfg.n, cfg.k, cfg.ldb, cfg.ldc), (5, 4, 0, 6, 4));
                assert_eq!((cfg.alpha, cfg.beta, cfg.dim(Dim::K)), (0.0, 3.0, 0));
            }
            other => panic!("{other:?}"),
        }
        let l = |call: BespokeCall<f64>| match check(&call, &req) {
            Ok(CheckedBespoke::Launch(l)) => l,
            other => panic!("{other:?}"),
        };
        let launch = l(BespokeCall::new(6).alpha(2.0).beta(0.5).ldb(8));
        assert_eq!((launch.n, launch.ldb, launch.ldc, launch.alpha, launch.beta), (6, 8, 6, 2.0, 0.5));
        assert!(launch.aligned);
        assert!(!l(BespokeCall::new(7)).aligned, "odd n");
        assert!(!l(BespokeCall::new(6).ldc(9)).aligned, "odd ldc");
        let (b, c) = tight(&BespokeCall::new(6));
        let odd = BufferInfo { addr: b.addr + 8, ..b };
        match check_bespoke((M, K), &req, "k", &BespokeCall::<f64>::new(6), odd, c) {
            Ok(CheckedBespoke::Launch(l)) => assert!(!l.aligned, "B one element off"),
            other => panic!("{other:?}"),
        }
    }
}
