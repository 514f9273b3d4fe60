//! The CPU path: the BLAS the program would have used without this
//! library, else the reference algorithm in Rust.
//!
//! The CPU BLAS's entry points are looked up once per type, NVBLAS's way:
//! the next definition after this library (`dlsym(RTLD_NEXT, "sgemm_")`:
//! the system BLAS when this library is preloaded or linked first), else
//! the library named by `GEMMFORGE_BLAS_CPU_LIB` (`dlopen`ed privately),
//! else none, and [`reference_gemm`] (netlib's loops, in the element type)
//! runs the call, which is said once on stderr. A symbol of this library
//! itself is never taken (the call would come back here forever).
//!
//! A call whose integers do not all fit an `int` (from the ILP64 symbols)
//! runs on the CPU BLAS's ILP64 `xgemm_64_` (or the `scipy_xgemm_64_` of
//! NumPy's bundled OpenBLAS) when it has one, else on the reference loops:
//! never cut to 32 bits. The ILP64 names, whose ABI no other library
//! shares, are also looked for in every object the process has loaded
//! ([`find_loaded`]): a pip-installed NumPy loads its OpenBLAS privately,
//! out of `RTLD_NEXT`'s reach, so with this library preloaded its small
//! calls (below the threshold) run on that OpenBLAS, as they would
//! without it. (The 32-bit names are not: a library loaded privately may
//! export them with other integers, as that OpenBLAS does its
//! `sgemm_batch_strided_`.)
//!
//! A strided batch runs on the CPU BLAS's `xgemm_batch_strided_` (MKL's,
//! OpenBLAS's, NVPL's extension) when it has one, else as one [`gemm`] per
//! problem.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use gemm_codegen::Op;
use gemm_host::GemmConfig;
use gemm_host::validate::StridedBatch;

use crate::backend;
use crate::scalar::{CpuSymbols, FortranGemm, FortranGemmBatch, Scalar};

/// Which CPU implementation ran a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuBlas {
    /// The system BLAS found by `dlsym` (RTLD_NEXT or `GEMMFORGE_BLAS_CPU_LIB`).
    System,
    /// [`reference_gemm`].
    Builtin,
}

/// This type's CPU `xGEMM`, looked up on first use.
pub fn lookup<E: Scalar>() -> Option<FortranGemm<E>> {
    symbols::<E>().gemm
}

/// This type's CPU `xGEMM_BATCH_STRIDED`, looked up on first use.
pub fn lookup_batch<E: Scalar>() -> Option<FortranGemmBatch<E>> {
    symbols::<E>().batch
}

fn symbols<E: Scalar>() -> &'static CpuSymbols<E> {
    E::cpu_symbols().get_or_init(|| {
        let gemm = find(E::SYMBOL);
        let gemm_64 = E::SYMBOLS_64.into_iter().find_map(|name| find(name).or_else(|| find_loaded(name)));
        if gemm.is_none() && gemm_64.is_none() {
            if let Some((path, _)) = cpu_lib() {
                let names = format!("{:?} or {:?}", E::SYMBOL, E::SYMBOLS_64);
                backend::warn(&format!("GEMMFORGE_BLAS_CPU_LIB={}: no usable {names}", path.display()));
            }
            static SAID: AtomicBool = AtomicBool::new(false);
            if !SAID.swap(true, Ordering::Relaxed) {
                backend::warn(
                    "no CPU BLAS found (neither after this library nor in GEMMFORGE_BLAS_CPU_LIB): \
                     CPU calls run the built-in reference loops (correct, not fast)",
                );
            }
        }
        // SAFETY: a BLAS's `xgemm_`, `xgemm_64_` and `xgemm_batch_strided_`
        // have these signatures; function pointers are pointer-sized.
        unsafe {
            CpuSymbols {
                gemm: gemm.map(|f| std::mem::transmute::<*mut c_void, FortranGemm<E>>(f)),
                gemm_64: gemm_64.map(|f| std::mem::transmute::<*mut c_void, FortranGemm<E, i64>>(f)),
                batch: find(E::BATCH_SYMBOL)
                    .map(|f| std::mem::transmute::<*mut c_void, FortranGemmBatch<E>>(f)),
            }
        }
    })
}

/// `name` defined after this library, else in `GEMMFORGE_BLAS_CPU_LIB`,
/// unless it is this library's own.
fn find(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: dlsym with RTLD_NEXT and a NUL-terminated name only reads.
    let next = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    if let Some(f) = not_ours(next) {
        return Some(f);
    }
    let (_, handle) = cpu_lib()?;
    // SAFETY: a live handle and a NUL-terminated name.
    not_ours(unsafe { libc::dlsym(handle.0, name.as_ptr()) })
}

/// `name` in any object already loaded into the process (in load order),
/// unless it is this library's own. The object found keeps the reference
/// `dlopen` took (it is never unloaded under the returned pointer).
fn find_loaded(name: &CStr) -> Option<*mut c_void> {
    unsafe extern "C" fn collect(info: *mut libc::dl_phdr_info, _: usize, paths: *mut c_void) -> libc::c_int {
        // SAFETY: the loader passes a valid `info`; `paths` is the vector below.
        let (info, paths) = unsafe { (&*info, &mut *paths.cast::<Vec<CString>>()) };
        if !info.dlpi_name.is_null() {
            // SAFETY: a NUL-terminated path owned by the loader.
            let path = unsafe { CStr::from_ptr(info.dlpi_name) };
            if !path.is_empty() {
                paths.push(path.to_owned());
            }
        }
        0
    }
    let mut paths: Vec<CString> = Vec::new();
    // SAFETY: `collect` only reads each object's entry and appends to `paths`.
    unsafe { libc::dl_iterate_phdr(Some(collect), (&raw mut paths).cast()) };
    paths.into_iter().find_map(|path| {
        // SAFETY: a loaded object's path; RTLD_NOLOAD loads nothing new.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
        if handle.is_null() {
            return None;
        }
        // SAFETY: a live handle and a NUL-terminated name.
        let found = not_ours(unsafe { libc::dlsym(handle, name.as_ptr()) });
        if found.is_none() {
            // SAFETY: the reference taken just above.
            unsafe { libc::dlclose(handle) };
        }
        found
    })
}

/// A `dlopen` handle, kept for the process's life (never closed).
#[derive(Clone, Copy, Debug)]
struct Handle(*mut c_void);

// SAFETY: a dlopen handle may be used from any thread.
unsafe impl Send for Handle {}
// SAFETY: as above; `dlsym` on it is thread-safe.
unsafe impl Sync for Handle {}

/// The library `GEMMFORGE_BLAS_CPU_LIB` names, loaded once with
/// `RTLD_LOCAL` (said once when it cannot be).
fn cpu_lib() -> Option<(&'static Path, Handle)> {
    static LIB: OnceLock<Option<Handle>> = OnceLock::new();
    let path = backend::config().cpu_lib.as_deref()?;
    let handle = LIB.get_or_init(|| {
        let name = CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
        // SAFETY: a NUL-terminated path; the library stays loaded for the
        // process's life (the handle is never closed).
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            backend::warn(&format!("GEMMFORGE_BLAS_CPU_LIB={}: cannot be loaded", path.display()));
            return None;
        }
        Some(Handle(handle))
    });
    Some((path, (*handle)?))
}

/// `f`, unless it is null or lies in this library (found through a
/// `GEMMFORGE_BLAS_CPU_LIB` naming this library itself).
fn not_ours(f: *mut c_void) -> Option<*mut c_void> {
    let object = |p: *const c_void| {
        // SAFETY: dladdr only reads the loader's tables; `info` is written.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let found = unsafe { libc::dladdr(p, &mut info) } != 0;
        found.then_some(info.dli_fbase)
    };
    let ours = object(not_ours as *const c_void);
    (!f.is_null() && (ours.is_none() || object(f) != ours)).then_some(f)
}

/// `cfg`'s ops as Fortran `TRANS` characters.
fn op_chars<E>(cfg: &GemmConfig<E>) -> (c_char, c_char) {
    let op = |op: Op| match op {
        Op::N => b'N' as c_char,
        Op::T => b'T' as c_char,
        Op::C => b'C' as c_char,
    };
    (op(cfg.op_a), op(cfg.op_b))
}

/// Runs the checked column-major call `cfg` on the CPU: on the CPU BLAS's
/// `xgemm_` when every integer fits its `int`, else on its ILP64
/// `xgemm_64_` when it has one, else on [`reference_gemm`] (never with an
/// integer cut to 32 bits).
///
/// # Safety
/// `a`, `b`, `c` hold the call's matrices ([`GemmConfig::required_len`]
/// elements each; A and B are not read when `alpha = 0` or `k = 0`), C
/// overlapping neither.
pub unsafe fn gemm<E: Scalar>(cfg: &GemmConfig<E>, a: *const E, b: *const E, c: *mut E) -> CpuBlas {
    let (ta, tb) = op_chars(cfg);
    let (alpha, beta) = (&cfg.alpha, &cfg.beta);
    let ints = [cfg.m, cfg.n, cfg.k, cfg.lda, cfg.ldb, cfg.ldc];
    let symbols = symbols::<E>();
    match (symbols.gemm, ints.map(|v| c_int::try_from(v).ok()), symbols.gemm_64) {
        (Some(f), [Some(m), Some(n), Some(k), Some(lda), Some(ldb), Some(ldc)], _) => {
            // SAFETY: the caller's contract; every scalar lives through the call.
            unsafe { f(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1) };
            CpuBlas::System
        }
        (_, _, Some(f)) => {
            let [m, n, k, lda, ldb, ldc] = ints;
            // SAFETY: as above, with the ILP64 `INTEGER`s.
            unsafe { f(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1) };
            CpuBlas::System
        }
        _ => {
            // SAFETY: the caller's contract.
            let (a, b, c) = unsafe { backend::host_slices(cfg, a, b, c) };
            reference_gemm(cfg, a, b, c);
            CpuBlas::Builtin
        }
    }
}

/// Runs the checked column-major strided batch on the CPU: in one call of
/// the CPU BLAS's `xgemm_batch_strided_` when it has one (and every
/// argument fits its `int`s), else as one [`gemm`] per problem.
///
/// # Safety
/// As for [`backend::run_batch`], with `cfg` and `batch` through
/// [`backend::unread_product`] (A's and B's strides 0 when they are not read).
pub unsafe fn gemm_batch<E: Scalar>(
    cfg: &GemmConfig<E>,
    batch: &StridedBatch,
    a: *const E,
    b: *const E,
    c: *mut E,
) -> CpuBlas {
    let int = |v: i64| c_int::try_from(v).ok();
    let ints = [cfg.m, cfg.n, cfg.k, cfg.lda, cfg.ldb, cfg.ldc].map(int);
    let strides = [batch.stride_a, batch.stride_b, batch.stride_c, batch.count].map(int);
    if let (
        Some(f),
        [Some(m), Some(n), Some(k), Some(lda), Some(ldb), Some(ldc)],
        [Some(sa), Some(sb), Some(sc), Some(count)],
    ) = (lookup_batch::<E>(), ints, strides)
    {
        let (ta, tb) = op_chars(cfg);
        let (alpha, beta) = (&cfg.alpha, &cfg.beta);
        // SAFETY: the caller's contract; every scalar lives through the call.
        unsafe {
            f(&ta, &tb, &m, &n, &k, alpha, a, &lda, &sa, b, &ldb, &sb, beta, c, &ldc, &sc, &count, 1, 1)
        };
        return CpuBlas::System;
    }
    let mut ran = CpuBlas::Builtin;
    for i in 0..batch.count.max(0) as usize {
        // Problem i's matrices, `i` strides (checked non-negative) in.
        let at = |stride: i64| i.wrapping_mul(stride as usize);
        let (a, b) = (a.wrapping_add(at(batch.stride_a)), b.wrapping_add(at(batch.stride_b)));
        // SAFETY: the caller's contract: problem i's matrices lie there.
        ran = unsafe { gemm(cfg, a, b, c.wrapping_add(at(batch.stride_c))) };
    }
    ran
}

/// The reference BLAS `xGEMM` (`BLAS/SRC/zgemm.f`'s loops, which are
/// `sgemm.f`'s for reals with conjugation the identity) on a checked
/// column-major call: the same operations in the same order.
///
/// # Panics
/// If a slice is shorter than its matrix (A and B are not read when
/// `alpha = 0`).
pub fn reference_gemm<E: Scalar>(cfg: &GemmConfig<E>, a: &[E], b: &[E], c: &mut [E]) {
    let (m, n, k) = (cfg.m.max(0) as usize, cfg.n.max(0) as usize, cfg.k.max(0) as usize);
    let (lda, ldb, ldc) = (cfg.lda as usize, cfg.ldb as usize, cfg.ldc as usize);
    let (alpha, beta) = (cfg.alpha, cfg.beta);
    if m == 0 || n == 0 || ((alpha == E::ZERO || k == 0) && beta == E::ONE) {
        return;
    }
    let ci = |i: usize, j: usize| i + j * ldc;
    if alpha == E::ZERO {
        for j in 0..n {
            for i in 0..m {
                c[ci(i, j)] = if beta == E::ZERO { E::ZERO } else { beta * c[ci(i, j)] };
            }
        }
        return;
    }
    let a_at = |i: usize, j: usize| a[i + j * lda];
    let b_at = |i: usize, j: usize| b[i + j * ldb];
    let (conj_a, conj_b) = (cfg.op_a == Op::C, cfg.op_b == Op::C);
    let ca = |x: E| if conj_a { x.conj() } else { x };
    let cb = |x: E| if conj_b { x.conj() } else { x };
    let scale_column = |c: &mut [E], j: usize| {
        for i in 0..m {
            if beta == E::ZERO {
                c[ci(i, j)] = E::ZERO;
            } else if beta != E::ONE {
                c[ci(i, j)] = beta * c[ci(i, j)];
            }
        }
    };
    match (cfg.op_a, cfg.op_b) {
        // C := alpha·A·B + beta·C and C := alpha·A·op(B) + beta·C: axpy form.
        (Op::N, op_b) => {
            for j in 0..n {
                scale_column(c, j);
                for l in 0..k {
                    let bl = if op_b == Op::N { b_at(l, j) } else { cb(b_at(j, l)) };
                    let temp = alpha * bl;
                    for i in 0..m {
                        c[ci(i, j)] = c[ci(i, j)] + temp * a_at(i, l);
                    }
                }
            }
        }
        // C := alpha·op(A)·op(B) + beta·C with A transposed: dot form.
        (_, op_b) => {
            for j in 0..n {
                for i in 0..m {
                    let mut temp = E::ZERO;
                    for l in 0..k {
                        let bl = if op_b == Op::N { b_at(l, j) } else { cb(b_at(j, l)) };
                        temp = temp + ca(a_at(l, i)) * bl;
                    }
                    c[ci(i, j)] =
                        if beta == E::ZERO { alpha * temp } else { alpha * temp + beta * c[ci(i, j)] };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use gemm_host::reference::{self, Random};
    use num_complex::Complex;

    use super::*;

    fn matches_the_f64_reference<E: Scalar>(tol: f64) {
        let mut rng = Random::new(7);
        let ops = [Op::N, Op::T, Op::C];
        for (op_a, op_b) in ops.iter().flat_map(|&a| ops.map(|b| (a, b))) {
            for (m, n, k) in [(1, 1, 1), (5, 3, 7), (8, 1, 0), (0, 4, 2), (13, 11, 17)] {
                let scalars =
                    [(E::ONE, E::ZERO), (rng.scalar::<E>(), rng.scalar::<E>()), (E::ZERO, rng.scalar())];
                for (alpha, beta) in scalars {
                    let cfg = GemmConfig::new(op_a, op_b, m, n, k)
                        .alpha(alpha)
                        .beta(beta)
                        .lda(GemmConfig::<E>::new(op_a, op_b, m, n, k).lda + 2)
                        .ldc(m + 3);
                    let (a, b) = (rng.matrix::<E>(cfg.a_len()), rng.matrix::<E>(cfg.b_len()));
                    let mut c = if beta == E::ZERO {
                        vec![reference::sentinel::<E>(); cfg.c_len()]
                    } else {
                        rng.matrix::<E>(cfg.c_len())
                    };
                    let before = c.clone();
                    let want = reference::gemm(&cfg, &a, &b, &c).expect("valid");
                    reference_gemm(&cfg, &a, &b, &mut c);
                    let got = reference::logical_c(&cfg, &c);
                    let err = reference::relative_error(&got, &want);
                    assert!(err <= tol, "{op_a:?}{op_b:?} {m}x{n}x{k}: error {err}");
                    // Outside the m × n part (ldc > m) nothing changed.
                    for j in 0..n as usize {
                        for i in m as usize..cfg.ldc as usize {
                            let idx = i + j * cfg.ldc as usize;
                            if idx < c.len() {
                                assert!(reference::same_bits(c[idx], before[idx]));
                            }
                        }
                    }
                }
            }
        }
    }

    /// A symbol of the object this code lives in is never taken as the
    /// CPU BLAS's; another library's is.
    #[test]
    fn our_own_symbols_are_refused() {
        assert_eq!(not_ours(std::ptr::null_mut()), None);
        let ours = crate::fortran::sgemm_ as *mut c_void;
        assert_eq!(not_ours(ours), None);
        let libc_malloc = libc::malloc as *mut c_void;
        assert_eq!(not_ours(libc_malloc), Some(libc_malloc));
    }

    #[test]
    fn builtin_gemm_matches_the_reference() {
        matches_the_f64_reference::<f32>(1e-5);
        matches_the_f64_reference::<f64>(1e-13);
        matches_the_f64_reference::<Complex<f32>>(1e-5);
        matches_the_f64_reference::<Complex<f64>>(1e-13);
    }

    #[test]
    fn alpha_zero_does_not_read_a_or_b_and_beta_zero_does_not_read_c() {
        let cfg = GemmConfig::new(Op::N, Op::N, 2, 2, 3).alpha(0.0f64).beta(0.0);
        let mut c = vec![f64::NAN; 4];
        reference_gemm(&cfg, &[], &[], &mut c);
        assert_eq!(c, [0.0; 4]);
        let cfg = cfg.beta(2.0);
        let mut c = vec![1.0, 2.0, 3.0, 4.0];
        reference_gemm(&cfg, &[], &[], &mut c);
        assert_eq!(c, [2.0, 4.0, 6.0, 8.0]);
    }
}
