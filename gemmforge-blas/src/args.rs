//! The arguments of a call: Fortran characters and CBLAS enums read into
//! [`Op`] and [`Layout`], the reference BLAS's checks in its order, and the
//! error reports (`xerbla_`, `cblas_xerbla`).
//!
//! # Checks
//!
//! Fortran `xGEMM` (`BLAS/SRC/sgemm.f`): `info` = 1 `TRANSA` not N, T or C
//! (either case), 2 `TRANSB`, 3 `M < 0`, 4 `N < 0`, 5 `K < 0`, 8 `LDA <
//! max(1, NROWA)`, 10 `LDB < max(1, NROWB)`, 13 `LDC < max(1, M)`; the first
//! broken rule is reported with `CALL XERBLA('SGEMM ', INFO)` and nothing is
//! computed. Rules 3 to 13 are `gemm_host::validate`'s (the same rules in
//! the same order, [`gemm_host::Arg::blas_position`] giving `info`), on
//! the integers widened to `i64` ([`Dims`]); `validate`'s limit on what
//! the kernels launch (`m`, `n`, `k` ≤ `i32::MAX`) is no BLAS rule and is
//! not reported: such a call is valid, and runs where no such limit applies.
//!
//! CBLAS (`CBLAS/src/cblas_sgemm.c`): position 1 for an `Order` that is
//! neither `CblasRowMajor` nor `CblasColMajor`, 2 for `TransA`, 3 for
//! `TransB`; then the Fortran checks of the column-major call CBLAS makes,
//! the reference's `xerbla` adding 1 for the `Order` argument. A row-major
//! call is checked as the column-major `(TransB, TransA, N, M, K, …, B, ldb,
//! A, lda, …)`, so N is checked before M and `ldb` before `lda`; the
//! position names the caller's argument (4 M, 5 N, 6 K, 9 lda, 11 ldb, 14
//! ldc), as the reference's `cblas_xerbla` prints it after its row-major
//! remapping.
//!
//! The strided-batched extension's checks, the same rules and then the
//! batch's, are [`batch`]'s.
//!
//! # Reports
//!
//! [`report_fortran`] calls the process's `xerbla_` (found with `dlsym`:
//! the program's own when it defines one, as the reference test programs
//! do; else this library's, which prints the reference's message), or for
//! the ILP64 symbols its `xerbla_64_` (`info` an `int64_t`: the program's
//! own, else this library's, which prints the same message; never the
//! program's `xerbla_`, whose `info` is an `int`), and
//! [`report_cblas`] the process's `cblas_xerbla` likewise, for both
//! interfaces (its `info` is an `int` in either). Unlike the
//! reference's, this library's handlers return instead of ending the
//! program: a library preloaded into a program must not end it.

use std::ffi::{CStr, CString, c_char, c_int, c_void};

use gemm_codegen::{Element, Op};
use gemm_host::validate::{self, Arg, ArgError, BufferInfo, Buffers};
use gemm_host::{GemmConfig, Layout};

pub mod batch;

/// CBLAS's `CblasRowMajor`.
pub const CBLAS_ROW_MAJOR: c_int = 101;
/// CBLAS's `CblasColMajor`.
pub const CBLAS_COL_MAJOR: c_int = 102;
/// CBLAS's `CblasNoTrans`.
pub const CBLAS_NO_TRANS: c_int = 111;
/// CBLAS's `CblasTrans`.
pub const CBLAS_TRANS: c_int = 112;
/// CBLAS's `CblasConjTrans`.
pub const CBLAS_CONJ_TRANS: c_int = 113;

/// A Fortran `TRANS` character as the reference's `LSAME` reads it: `N`,
/// `T` or `C` in either case; anything else is `None`.
pub const fn fortran_op(c: u8) -> Option<Op> {
    match c.to_ascii_uppercase() {
        b'N' => Some(Op::N),
        b'T' => Some(Op::T),
        b'C' => Some(Op::C),
        _ => None,
    }
}

/// A CBLAS `CBLAS_TRANSPOSE` value.
pub const fn cblas_op(value: c_int) -> Option<Op> {
    match value {
        CBLAS_NO_TRANS => Some(Op::N),
        CBLAS_TRANS => Some(Op::T),
        CBLAS_CONJ_TRANS => Some(Op::C),
        _ => None,
    }
}

/// A CBLAS `CBLAS_LAYOUT` value.
pub const fn cblas_layout(value: c_int) -> Option<Layout> {
    match value {
        CBLAS_ROW_MAJOR => Some(Layout::RowMajor),
        CBLAS_COL_MAJOR => Some(Layout::ColMajor),
        _ => None,
    }
}

/// The integer arguments of a call, widened to `i64` from the interface's
/// integer (Fortran `INTEGER` and CBLAS `int` of the LP64 symbols, `int64_t`
/// of the ILP64 ones): losslessly, so every rule sees the caller's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// `M`.
    pub m: i64,
    /// `N`.
    pub n: i64,
    /// `K`.
    pub k: i64,
    /// `LDA`.
    pub lda: i64,
    /// `LDB`.
    pub ldb: i64,
    /// `LDC`.
    pub ldc: i64,
}

impl Dims {
    /// The dimensions as the interface's integers passed them.
    pub fn new<I: Into<i64>>(m: I, n: I, k: I, lda: I, ldb: I, ldc: I) -> Dims {
        Dims { m: m.into(), n: n.into(), k: k.into(), lda: lda.into(), ldb: ldb.into(), ldc: ldc.into() }
    }

    fn config<E: Element>(self, layout: Layout, (op_a, op_b): (Op, Op), alpha: E, beta: E) -> GemmConfig<E> {
        GemmConfig::with_layout(layout, op_a, op_b, self.m, self.n, self.k)
            .alpha(alpha)
            .beta(beta)
            .lda(self.lda)
            .ldb(self.ldb)
            .ldc(self.ldc)
    }
}

/// The reference `xGEMM`'s checks of a column-major call: the call as a
/// [`GemmConfig`], or the `info` of the first broken rule.
pub fn check_fortran<E: Element>(
    transa: u8,
    transb: u8,
    dims: Dims,
    alpha: E,
    beta: E,
) -> Result<GemmConfig<E>, c_int> {
    let op_a = fortran_op(transa).ok_or(1)?;
    let op_b = fortran_op(transb).ok_or(2)?;
    let cfg = dims.config(Layout::ColMajor, (op_a, op_b), alpha, beta);
    fortran_rules(&cfg)?;
    Ok(cfg)
}

/// Rules 3 to 13 of the reference `xGEMM` on a column-major call.
fn fortran_rules<E: Element>(cfg: &GemmConfig<E>) -> Result<(), c_int> {
    match validate::check(cfg, &UNKNOWN_BUFFERS, None).map_err(blas_rule) {
        Ok(_) | Err(None) => Ok(()),
        Err(Some(arg)) => Err(c_int::from(arg.blas_position())),
    }
}

/// Buffers of unknown length at address 0: only the rules on the arguments
/// themselves apply (`m`, `n`, `k`, then `lda`, `ldb`, `ldc`), as in xGEMM.
const UNKNOWN_BUFFERS: Buffers =
    Buffers { a: BufferInfo::unsized_at(0), b: BufferInfo::unsized_at(0), c: BufferInfo::unsized_at(0) };

/// The argument of a `gemm_host::validate` error that the reference BLAS
/// also rejects; `None` for a limit of the kernels' launches (`m`, `n`, `k`
/// above `i32::MAX`, reachable through the ILP64 symbols), which BLAS does
/// not have: such a call is valid, and runs where no such limit applies.
fn blas_rule(error: ArgError) -> Option<Arg> {
    match error {
        ArgError::TooLarge { .. } | ArgError::GridTooLarge { .. } => None,
        other => Some(other.arg()),
    }
}

/// A CBLAS argument error: the position `cblas_xerbla` gets and the
/// detail line the reference prints after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CblasError {
    /// 1 `Order`, 2 `TransA`, 3 `TransB`, 4 `M`, 5 `N`, 6 `K`, 9 `lda`,
    /// 11 `ldb`, 14 `ldc`.
    pub position: c_int,
    /// `"Illegal TransA setting, 7\n"`, or empty for the Fortran checks'.
    pub detail: String,
}

/// The reference CBLAS's checks: the column-major call it makes (swapped
/// for a row-major one), or the first error in its order.
pub fn check_cblas<E: Element>(
    layout: c_int,
    transa: c_int,
    transb: c_int,
    dims: Dims,
    alpha: E,
    beta: E,
) -> Result<GemmConfig<E>, CblasError> {
    let (layout, ops) = cblas_enums(layout, transa, transb)?;
    let cfg = dims.config(layout, ops, alpha, beta).to_column_major();
    fortran_rules(&cfg).map_err(|info| {
        // The reference's xerbla adds 1 for the Order argument; its
        // cblas_xerbla names the caller's M, N, lda, ldb in a row-major call.
        let position = match (layout, info + 1) {
            (Layout::RowMajor, 4) => 5,
            (Layout::RowMajor, 5) => 4,
            (Layout::RowMajor, 9) => 11,
            (Layout::RowMajor, 11) => 9,
            (_, p) => p,
        };
        CblasError { position, detail: String::new() }
    })?;
    Ok(cfg)
}

/// The reference CBLAS's first checks: `Order` (position 1), `TransA` (2),
/// `TransB` (3), each with its detail line.
fn cblas_enums(layout: c_int, transa: c_int, transb: c_int) -> Result<(Layout, (Op, Op)), CblasError> {
    let illegal = |position, what: &str, value: c_int| CblasError {
        position,
        detail: format!("Illegal {what} setting, {value}\n"),
    };
    let layout = cblas_layout(layout).ok_or_else(|| illegal(1, "layout", layout))?;
    let op_a = cblas_op(transa).ok_or_else(|| illegal(2, "TransA", transa))?;
    let op_b = cblas_op(transb).ok_or_else(|| illegal(3, "TransB", transb))?;
    Ok((layout, (op_a, op_b)))
}

/// The integer of a BLAS interface: `c_int` for the LP64 symbols (`sgemm_`,
/// `cblas_sgemm`), `i64` (`int64_t`) for the ILP64 ones (`sgemm_64_`,
/// `cblas_sgemm64_`), widened losslessly into [`Dims`].
pub trait BlasInt: Copy + Into<i64> + 'static {
    /// The interface's Fortran error handler: `xerbla_`, or `xerbla_64_`
    /// (with an `int64_t` `info`), the name ILP64 builds of the reference
    /// BLAS and OpenBLAS give it.
    const XERBLA: &'static CStr;
    /// `info` as this integer.
    fn info(info: c_int) -> Self;
}

impl BlasInt for c_int {
    const XERBLA: &'static CStr = c"xerbla_";
    fn info(info: c_int) -> Self {
        info
    }
}

impl BlasInt for i64 {
    const XERBLA: &'static CStr = c"xerbla_64_";
    fn info(info: c_int) -> Self {
        i64::from(info)
    }
}

/// `void xerbla_(const char *srname, const int *info, size_t srname_len)`,
/// or `xerbla_64_` with an `int64_t` `info`.
type Xerbla<I> = unsafe extern "C" fn(*const c_char, *const I, usize);
/// `void cblas_xerbla(int info, const char *rout, const char *form, ...)`.
type CblasXerbla = unsafe extern "C" fn(c_int, *const c_char, *const c_char, ...);

/// The first definition of `symbol` in the process's global scope (the
/// program's own before any library's), if any.
fn global_symbol(symbol: &CStr) -> Option<*mut c_void> {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only reads.
    let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, symbol.as_ptr()) };
    (!found.is_null()).then_some(found)
}

/// Reports a Fortran argument error of an interface of integer `I`:
/// `xerbla_(routine, &info, len)` (LP64) or `xerbla_64_` (ILP64), with
/// `routine` blank-padded as the reference passes it (`"SGEMM "`).
pub fn report_fortran<I: BlasInt>(routine: &str, info: c_int) {
    #[cfg(test)]
    if tests::recorded(routine, info) {
        return;
    }
    match global_symbol(I::XERBLA) {
        Some(f) => {
            // SAFETY: `xerbla_` has the reference's signature, `xerbla_64_`
            // the same with an `int64_t` `info`; the name is passed with its
            // length (no NUL needed, one is there anyway).
            let xerbla = unsafe { std::mem::transmute::<*mut c_void, Xerbla<I>>(f) };
            let name = CString::new(routine).unwrap_or_default();
            // SAFETY: valid pointers for the call's duration.
            unsafe { xerbla(name.as_ptr(), &I::info(info), routine.len()) };
        }
        None => print_fortran_error(routine, info.into()),
    }
}

/// Reports a CBLAS argument error: `cblas_xerbla(position, routine, detail)`.
pub fn report_cblas(routine: &str, error: &CblasError) {
    #[cfg(test)]
    if tests::recorded(routine, error.position) {
        return;
    }
    let name = CString::new(routine).unwrap_or_default();
    // The detail is passed formatted, with no `%` left for a printf-style
    // handler to expand.
    let detail = CString::new(error.detail.replace('%', "")).unwrap_or_default();
    match global_symbol(c"cblas_xerbla") {
        Some(f) => {
            // SAFETY: `cblas_xerbla` has the reference's (variadic) signature.
            let xerbla: CblasXerbla = unsafe { std::mem::transmute::<*mut c_void, CblasXerbla>(f) };
            // SAFETY: valid NUL-terminated strings for the call's duration.
            unsafe { xerbla(error.position, name.as_ptr(), detail.as_ptr()) };
        }
        None => print_cblas_error(error.position, routine, &error.detail),
    }
}

/// The reference `xerbla.f`'s message (on stderr rather than stdout).
pub fn print_fortran_error(routine: &str, info: i64) {
    eprintln!(" ** On entry to {} parameter number {info:>2} had an illegal value", routine.trim_end());
}

/// The reference `cblas_xerbla.c`'s message.
pub fn print_cblas_error(position: c_int, routine: &str, detail: &str) {
    if position != 0 {
        eprintln!("Parameter {position} to routine {routine} was incorrect");
    }
    eprint!("{detail}");
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::RefCell;

    use num_complex::Complex;

    use super::*;

    thread_local! {
        static RECORD: RefCell<Option<Vec<(String, c_int)>>> = const { RefCell::new(None) };
    }

    /// Whether reports are being recorded on this thread (and records this one).
    pub(crate) fn recorded(routine: &str, info: c_int) -> bool {
        RECORD.with_borrow_mut(|r| r.as_mut().map(|v| v.push((routine.to_owned(), info))).is_some())
    }

    /// Runs `f` with this thread's reports recorded, and returns them.
    pub(crate) fn recording(f: impl FnOnce()) -> Vec<(String, c_int)> {
        RECORD.with_borrow_mut(|r| *r = Some(Vec::new()));
        f();
        RECORD.with_borrow_mut(|r| r.take().unwrap_or_default())
    }

    const fn dims(m: i64, n: i64, k: i64, lda: i64, ldb: i64, ldc: i64) -> Dims {
        Dims { m, n, k, lda, ldb, ldc }
    }

    #[test]
    fn characters_are_read_as_lsame_does() {
        for (c, op) in [(b'N', Op::N), (b'n', Op::N), (b't', Op::T), (b'C', Op::C), (b'c', Op::C)] {
            assert_eq!(fortran_op(c), Some(op));
        }
        for c in [b'X', b' ', 0, b'R', 0xCE] {
            assert_eq!(fortran_op(c), None);
        }
    }

    #[test]
    fn fortran_checks_in_the_references_order() {
        let ok = dims(3, 4, 5, 3, 5, 3);
        assert!(check_fortran(b'N', b'N', ok, 1f32, 0.0).is_ok());
        // Each case breaks its rule and every later one: the first is reported.
        let cases = [
            (b'X', b'Y', dims(-1, -1, -1, 0, 0, 0), 1),
            (b'N', b'Y', dims(-1, -1, -1, 0, 0, 0), 2),
            (b'N', b'N', dims(-1, -1, -1, 0, 0, 0), 3),
            (b'N', b'N', dims(3, -1, -1, 0, 0, 0), 4),
            (b'N', b'N', dims(3, 4, -1, 0, 0, 0), 5),
            (b'N', b'N', dims(3, 4, 5, 2, 0, 0), 8),
            (b'N', b'N', dims(3, 4, 5, 3, 4, 0), 10),
            (b'N', b'N', dims(3, 4, 5, 3, 5, 2), 13),
            // NROWA = K for a transposed A, NROWB = N for a transposed B.
            (b't', b'N', dims(3, 4, 5, 4, 5, 3), 8),
            (b'T', b'c', dims(3, 4, 5, 5, 3, 3), 10),
            // max(1, ·): a zero dimension still needs ld ≥ 1.
            (b'N', b'N', dims(0, 0, 0, 0, 1, 1), 8),
        ];
        for (ta, tb, d, info) in cases {
            let got =
                check_fortran::<Complex<f64>>(ta, tb, d, Complex::new(1.0, 0.0), Complex::new(0.0, 0.0));
            assert_eq!(got.err(), Some(info), "{} {} {d:?}", ta as char, tb as char);
        }
    }

    /// Sizes past the kernels' `i32::MAX` are valid BLAS arguments, read
    /// whole: `m = 2³²` is neither 0 nor rejected, but needs `lda ≥ 2³²`.
    #[test]
    fn sizes_beyond_32_bits_are_checked_whole() {
        let big = 1i64 << 32;
        let cfg = check_fortran(b'N', b'N', dims(big, 1, 2, big, 2, big), 1f32, 0.0).expect("valid");
        assert_eq!((cfg.m, cfg.lda, cfg.ldc), (big, big, big));
        assert_eq!(check_fortran(b'N', b'N', dims(big, 1, 2, 1, 2, big), 1f32, 0.0), Err(8));
        assert_eq!(check_fortran(b'N', b'N', dims(2, -big, 2, 2, 2, 2), 1f32, 0.0), Err(4));
        let ok = check_fortran(b'T', b'N', dims(1, 1, big + 1, big + 1, big + 1, 1), 1f64, 0.0);
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn cblas_column_major_positions_are_fortrans_plus_one() {
        let col = |d| check_cblas::<f32>(CBLAS_COL_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, d, 1.0, 0.0);
        let pos = |d| col(d).err().map(|e| e.position);
        assert_eq!(pos(dims(-1, -1, -1, 0, 0, 0)), Some(4));
        assert_eq!(pos(dims(3, -1, -1, 0, 0, 0)), Some(5));
        assert_eq!(pos(dims(3, 4, -1, 0, 0, 0)), Some(6));
        assert_eq!(pos(dims(3, 4, 5, 2, 0, 0)), Some(9));
        assert_eq!(pos(dims(3, 4, 5, 3, 3, 0)), Some(11));
        assert_eq!(pos(dims(3, 4, 5, 3, 4, 2)), Some(14));
        let cfg = col(dims(3, 4, 5, 3, 4, 3)).expect("valid");
        assert_eq!((cfg.op_a, cfg.op_b, cfg.m, cfg.n, cfg.k), (Op::N, Op::T, 3, 4, 5));
    }

    #[test]
    fn cblas_enums_come_first() {
        let d = dims(-1, -1, -1, 0, 0, 0);
        let err = |l, a, b| check_cblas::<f64>(l, a, b, d, 1.0, 0.0).unwrap_err();
        assert_eq!(err(0, 0, 0), CblasError { position: 1, detail: "Illegal layout setting, 0\n".into() });
        assert_eq!(err(CBLAS_ROW_MAJOR, 7, 0).position, 2);
        assert_eq!(err(CBLAS_ROW_MAJOR, CBLAS_TRANS, 7).detail, "Illegal TransB setting, 7\n");
        assert_eq!(err(CBLAS_COL_MAJOR, CBLAS_CONJ_TRANS, 114).position, 3);
        assert_eq!(err(CBLAS_COL_MAJOR, CBLAS_CONJ_TRANS, CBLAS_NO_TRANS).position, 4);
    }

    /// Row-major: the reference checks the swapped column-major call, so N
    /// before M and ldb before lda, and names the caller's argument.
    #[test]
    fn cblas_row_major_checks_in_the_swapped_order() {
        let row = |ta, tb, d| check_cblas::<f32>(CBLAS_ROW_MAJOR, ta, tb, d, 1.0, 0.0);
        let pos = |ta, tb, d| row(ta, tb, d).err().map(|e| e.position);
        let (nt, t) = (CBLAS_NO_TRANS, CBLAS_TRANS);
        // M and N both negative: N (5) first.
        assert_eq!(pos(nt, nt, dims(-1, -1, 1, 1, 1, 1)), Some(5));
        assert_eq!(pos(nt, nt, dims(-1, 2, 1, 1, 2, 2)), Some(4));
        assert_eq!(pos(nt, nt, dims(2, 2, -1, 1, 2, 2)), Some(6));
        // Row-major A (m × k, N) needs lda ≥ k; B (k × n) ldb ≥ n. Both
        // short: ldb (11) first.
        assert_eq!(pos(nt, nt, dims(3, 4, 5, 4, 3, 4)), Some(11));
        assert_eq!(pos(nt, nt, dims(3, 4, 5, 4, 4, 4)), Some(9));
        assert_eq!(pos(t, t, dims(3, 4, 5, 2, 5, 4)), Some(9));
        assert_eq!(pos(nt, nt, dims(3, 4, 5, 5, 4, 3)), Some(14));
        // The column-major call the reference makes: (TransB, TransA, N, M, K, B, ldb, A, lda).
        let cfg = row(t, CBLAS_CONJ_TRANS, dims(3, 4, 5, 3, 5, 7)).expect("valid");
        assert_eq!(cfg.layout, Layout::ColMajor);
        assert_eq!((cfg.op_a, cfg.op_b, cfg.m, cfg.n, cfg.k), (Op::C, Op::T, 4, 3, 5));
        assert_eq!((cfg.lda, cfg.ldb, cfg.ldc), (5, 3, 7));
    }

    #[test]
    fn reports_are_recorded_per_thread() {
        let got = recording(|| {
            report_fortran::<c_int>("DGEMM ", 8);
            report_cblas("cblas_dgemm", &CblasError { position: 4, detail: String::new() });
        });
        assert_eq!(got, vec![("DGEMM ".to_owned(), 8), ("cblas_dgemm".to_owned(), 4)]);
    }
}
