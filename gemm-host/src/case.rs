//! One checked GEMM call, whoever runs it (a gemmforge kernel on the GPU,
//! cuBLAS, the PTX emulator): the inputs, and every check the run must pass.
//!
//! Inputs are random (never zeros). Each buffer is exactly as long as its
//! `ld` and shape require, with [`GUARD`] sentinel elements before and after
//! it and sentinels in every gap between its columns (`ld` > rows), and C is
//! poisoned with NaN when `beta = 0` (it must not be read). After the run,
//! [`Case::check`] asserts that A and B are unchanged bit for bit, that
//! nothing outside C's `m × n` part was written, and that C is within the
//! precision's tolerance of the `f64` reference, element by element, relative
//! to what the element sums ([`reference::componentwise_error`]).

use std::sync::OnceLock;

use gemm_codegen::{Element, Math, Precision};
use num_complex::Complex;

use crate::config::{GemmConfig, Matrix};
use crate::reference::{self, Dist, Random};

/// Sentinel elements before and after each buffer: 67 of the BLAS types,
/// so that the matrices start misaligned beyond one element.
pub const GUARD: usize = 67;

/// Sentinel elements before and after a buffer of `precision`: [`GUARD`],
/// but 72 for the 16-bit types, whose kernels take A and B only 16-byte
/// aligned (`gemm_host::GemmError::TmaOperands`).
pub const fn guard_of(precision: Precision) -> usize {
    if precision.is_half() { 72 } else { GUARD }
}

/// [`guard_of`] `T`'s precision.
pub const fn guard<T: Element>() -> usize {
    guard_of(T::PRECISION)
}

/// Whether index `idx` of `matrix`'s buffer holds an element of the matrix,
/// rather than a gap between its columns (rows, for row-major).
pub fn in_matrix<T: Element>(cfg: &GemmConfig<T>, matrix: Matrix, idx: usize) -> bool {
    let stored = cfg.stored(matrix);
    let (inner, outer, ld) =
        (cfg.dim(stored.inner) as usize, cfg.dim(stored.outer) as usize, cfg.ld(matrix) as usize);
    idx % ld < inner && idx / ld < outer
}

/// A buffer for `matrix`, exactly as long as required: `fill()` for its
/// elements, sentinels in its gaps.
pub fn matrix_buffer<T: Element>(cfg: &GemmConfig<T>, matrix: Matrix, mut fill: impl FnMut() -> T) -> Vec<T> {
    let len = cfg.required_len(matrix) as usize;
    (0..len).map(|i| if in_matrix(cfg, matrix, i) { fill() } else { reference::sentinel() }).collect()
}

/// `inner` with [`GUARD`] sentinel elements before and after it.
pub fn guarded<T: Element>(inner: &[T]) -> Vec<T> {
    let s = reference::sentinel::<T>();
    let mut full = vec![s; guard::<T>()];
    full.extend_from_slice(inner);
    full.extend(std::iter::repeat_n(s, guard::<T>()));
    full
}

/// A NaN that is not the sentinel: C's input when `beta = 0`.
pub fn poison<T: Element>() -> T {
    reference::narrow(Complex::new(f64::NAN, f64::NAN))
}

/// Describes a call for messages.
pub fn describe<T: Element>(cfg: &GemmConfig<T>) -> String {
    format!(
        "{} {} op=({}, {}) m={} n={} k={} lda={} ldb={} ldc={} alpha={:?} beta={:?}",
        T::PRECISION,
        cfg.layout.name(),
        cfg.op_a,
        cfg.op_b,
        cfg.m,
        cfg.n,
        cfg.k,
        cfg.lda,
        cfg.ldb,
        cfg.ldc,
        cfg.alpha,
        cfg.beta
    )
}

/// One call and its inputs, guards included.
#[derive(Debug)]
pub struct Case<T: Element> {
    cfg: GemmConfig<T>,
    /// A, B and C with [`GUARD`] sentinels on both sides.
    buffers: [Vec<T>; 3],
    /// The reference and each element's error bound ([`reference::gemm_bound`]).
    expected: OnceLock<(Vec<Complex<f64>>, Vec<f64>)>,
}

impl<T: Element> Case<T> {
    /// Random inputs for `cfg`, each part uniform in `[-1, 1)`.
    pub fn random(cfg: GemmConfig<T>, rng: &mut Random) -> Case<T> {
        Case::random_of(cfg, Dist::Uniform, rng)
    }

    /// Random inputs for `cfg`, each part drawn from `dist` (C NaN-poisoned
    /// where `beta = 0`).
    pub fn random_of(cfg: GemmConfig<T>, dist: Dist, rng: &mut Random) -> Case<T> {
        let poisoned = cfg.beta == T::ZERO;
        let a = guarded(&matrix_buffer(&cfg, Matrix::A, || rng.element_of(dist)));
        let b = guarded(&matrix_buffer(&cfg, Matrix::B, || rng.element_of(dist)));
        let c =
            guarded(&matrix_buffer(
                &cfg,
                Matrix::C,
                || if poisoned { poison() } else { rng.element_of(dist) },
            ));
        Case { cfg, buffers: [a, b, c], expected: OnceLock::new() }
    }

    /// Random B and C for `cfg`, with A's buffer `a` (a bespoke kernel's
    /// operator, exactly as long as `cfg` requires of A).
    ///
    /// # Panics
    /// If `a` is not that long.
    pub fn with_a(cfg: GemmConfig<T>, a: &[T], rng: &mut Random) -> Case<T> {
        assert_eq!(a.len() as u64, cfg.required_len(Matrix::A), "A's buffer for {}", describe(&cfg));
        let mut case = Case::random(cfg, rng);
        case.buffers[index(Matrix::A)] = guarded(a);
        case
    }

    /// The call.
    pub fn cfg(&self) -> &GemmConfig<T> {
        &self.cfg
    }

    /// The whole buffer of `matrix`, guards included.
    pub fn guarded(&self, matrix: Matrix) -> &[T] {
        &self.buffers[index(matrix)]
    }

    /// The part of `matrix`'s buffer handed to the GEMM.
    pub fn input(&self, matrix: Matrix) -> &[T] {
        inner(self.guarded(matrix))
    }

    /// The `f64` reference of C's `m × n` part, computed once.
    pub fn expected(&self) -> &[Complex<f64>] {
        &self.reference().0
    }

    fn reference(&self) -> &(Vec<Complex<f64>>, Vec<f64>) {
        self.expected.get_or_init(|| {
            let (a, b, c) = (self.input(Matrix::A), self.input(Matrix::B), self.input(Matrix::C));
            let valid = "a case is built from a valid call";
            (
                reference::gemm(&self.cfg, a, b, c).expect(valid),
                reference::gemm_bound(&self.cfg, a, b, c).expect(valid),
            )
        })
    }

    /// Checks a run of a kernel multiplying by `math`, given the whole
    /// buffers (guards included) after it: A and B untouched, nothing
    /// outside C's `m × n` part written, C within
    /// [`reference::tolerance`]. Returns C's error against the reference
    /// ([`Case::error`]).
    pub fn check(&self, a: &[T], b: &[T], c: &[T], math: Math) -> Result<f64, String> {
        self.check_split(a, b, c, math, (self.cfg.k.max(0) as u64, 1))
    }

    /// [`Case::check`] of a run that split K into `slices` slices none
    /// deeper than `depth` (`crate::pass::slicing`; summed by an FMA
    /// kernel), against [`reference::split_tolerance`]: the same checks
    /// with the bound of that order of summation, much tighter at large k
    /// (and finite where the unsplit one is not).
    pub fn check_split(
        &self,
        a: &[T],
        b: &[T],
        c: &[T],
        math: Math,
        (depth, slices): (u64, u64),
    ) -> Result<f64, String> {
        self.check_buffers(a, b, c)?;
        let err = self.error(inner(c));
        let tol = reference::split_tolerance(T::PRECISION, math, depth, slices);
        if err < tol || (err == 0.0 && self.expected().is_empty()) {
            Ok(err)
        } else {
            Err(format!("{}: relative error {err:e} (tolerance {tol:e})", describe(&self.cfg)))
        }
    }

    /// Runs `image` on this case in `emulator` (C with its guards) and
    /// [`Case::check`]s the result: the one emulated run every test of a
    /// generated kernel makes.
    pub fn emulate(
        &self,
        emulator: &crate::emulate::Emulator,
        image: &gemm_codegen::KernelImage,
    ) -> Result<f64, String> {
        let mut c = self.guarded(Matrix::C).to_vec();
        let len = c.len();
        emulator
            .gemm_image(
                image,
                &self.cfg,
                self.input(Matrix::A),
                self.input(Matrix::B),
                &mut c[guard::<T>()..len - guard::<T>()],
            )
            .map_err(|e| format!("{}: {e}", describe(&self.cfg)))?;
        self.check(self.guarded(Matrix::A), self.guarded(Matrix::B), &c, image.spec.math)
    }

    /// [`Case::emulate`] with a stream-K kernel whose grid has at most
    /// `max_blocks` blocks ([`crate::emulate::Emulator::gemm_stream_k`]);
    /// also fails unless the run left the workspace's counters zero.
    pub fn emulate_stream_k(
        &self,
        emulator: &crate::emulate::Emulator,
        image: &gemm_codegen::KernelImage,
        max_blocks: u32,
    ) -> Result<f64, String> {
        let mut c = self.guarded(Matrix::C).to_vec();
        let len = c.len();
        let what = describe(&self.cfg);
        let run = emulator
            .gemm_stream_k(
                image,
                &self.cfg,
                max_blocks,
                self.input(Matrix::A),
                self.input(Matrix::B),
                &mut c[guard::<T>()..len - guard::<T>()],
            )
            .map_err(|e| format!("{what}: {e}"))?;
        if run.counters.iter().any(|&n| n != 0) {
            return Err(format!("{what}: the stream-K counters are not back at zero"));
        }
        self.check(self.guarded(Matrix::A), self.guarded(Matrix::B), &c, image.spec.math)
    }

    /// The checks of [`Case::check`] that need no reference: A and B
    /// untouched, nothing outside C's `m × n` part written. For a call too
    /// large for the `f64` reference, whose C is compared otherwise (with
    /// cuBLAS's, on a sample of columns).
    pub fn check_buffers(&self, a: &[T], b: &[T], c: &[T]) -> Result<(), String> {
        let what = describe(&self.cfg);
        for (matrix, now) in [(Matrix::A, a), (Matrix::B, b)] {
            let changed = changed(self.guarded(matrix), now);
            if let Some(&first) = changed.first() {
                return Err(format!(
                    "{what}: the GEMM wrote {} element(s) of {}, first at buffer index {first} (guard {})",
                    changed.len(),
                    name(matrix),
                    guard::<T>(),
                ));
            }
        }
        let c0 = self.guarded(Matrix::C);
        let g = guard::<T>();
        let len = c0.len() - 2 * g;
        let stray: Vec<usize> = changed(c0, c)
            .into_iter()
            .filter(|&i| i < g || i >= g + len || !in_matrix(&self.cfg, Matrix::C, i - g))
            .collect();
        if let Some(&first) = stray.first() {
            return Err(format!(
                "{what}: {} write(s) outside C's m x n part, first at buffer index {first} (the part spans {g}..{})",
                stray.len(),
                g + len
            ));
        }
        Ok(())
    }

    /// C's componentwise relative error against the reference
    /// ([`reference::componentwise_error`]: each element's error over
    /// `|alpha|·|op(A)|·|op(B)| + |beta|·|C|`), given the part of C's buffer
    /// handed to the GEMM (NaN counts as infinitely wrong).
    pub fn error(&self, c: &[T]) -> f64 {
        let got = reference::logical_c(&self.cfg, c);
        let (expected, bound) = self.reference();
        let err = reference::componentwise_error(&got, expected, bound);
        if err.is_nan() { f64::INFINITY } else { err }
    }
}

const fn index(matrix: Matrix) -> usize {
    match matrix {
        Matrix::A => 0,
        Matrix::B => 1,
        Matrix::C => 2,
    }
}

const fn name(matrix: Matrix) -> &'static str {
    match matrix {
        Matrix::A => "A",
        Matrix::B => "B",
        Matrix::C => "C",
    }
}

/// The part of a guarded buffer handed to the GEMM.
pub fn inner<T: Element>(guarded: &[T]) -> &[T] {
    let g = guard::<T>();
    &guarded[g..guarded.len() - g]
}

fn changed<T: Element>(before: &[T], now: &[T]) -> Vec<usize> {
    assert_eq!(before.len(), now.len(), "buffer lengths differ");
    (0..now.len()).filter(|&i| !reference::same_bits(now[i], before[i])).collect()
}

#[cfg(test)]
mod tests {
    use gemm_codegen::{Op, Precision};

    use super::*;

    fn case() -> Case<f32> {
        let cfg = GemmConfig::new(Op::N, Op::T, 3, 2, 4).lda(5).beta(0.0);
        Case::random(cfg, &mut Random::new(7))
    }

    /// What a correct GEMM writes: the reference in C's m × n part.
    fn correct(case: &Case<f32>) -> Vec<f32> {
        let mut c = case.guarded(Matrix::C).to_vec();
        let cfg = case.cfg();
        for (j, col) in case.expected().chunks(cfg.m as usize).enumerate() {
            for (i, z) in col.iter().enumerate() {
                c[GUARD + i + j * cfg.ldc as usize] = z.re as f32;
            }
        }
        c
    }

    #[test]
    fn inputs_have_guards_gaps_and_poison() {
        let case = case();
        let a = case.guarded(Matrix::A);
        assert_eq!(a.len(), 2 * GUARD + 5 * 3 + 3);
        assert!(reference::same_bits(a[0], reference::sentinel()));
        assert!(reference::same_bits(a[GUARD + 3], reference::sentinel()), "gap between columns");
        assert!(a[GUARD..GUARD + 3].iter().all(|x| x.is_finite() && *x != 0.0));
        assert!(case.input(Matrix::C).iter().all(|x| x.is_nan()));
    }

    #[test]
    fn check_accepts_a_correct_run_and_names_each_kind_of_damage() {
        let case = case();
        let (a, b) = (case.guarded(Matrix::A).to_vec(), case.guarded(Matrix::B).to_vec());
        let good = correct(&case);
        assert!(case.check(&a, &b, &good, Math::Fma).unwrap() < 1e-6);

        let mut a_written = a.clone();
        a_written[GUARD] = 0.0;
        assert!(
            case.check(&a_written, &b, &good, Math::Fma).unwrap_err().contains("wrote 1 element(s) of A")
        );
        let mut guard_hit = good.clone();
        guard_hit[GUARD - 1] = 1.0;
        assert!(case.check(&a, &b, &guard_hit, Math::Fma).unwrap_err().contains("outside C's m x n part"));
        let mut wrong = good.clone();
        wrong[GUARD] += 1.0;
        assert!(case.check(&a, &b, &wrong, Math::Fma).unwrap_err().contains("relative error"));
        // Without the reference: the buffers only, so a wrong value passes.
        assert!(case.check_buffers(&a, &b, &wrong).is_ok());
        assert!(case.check_buffers(&a, &b, &guard_hit).unwrap_err().contains("outside C's m x n part"));
        let untouched = case.guarded(Matrix::C).to_vec();
        assert!(case.check(&a, &b, &untouched, Math::Fma).unwrap_err().contains("relative error inf"));
    }

    /// The bound is sharp to the ulp: C's first element moved to the last
    /// f32 below `reference + tolerance · bound` passes, one ulp further
    /// fails (k = 4: the bound is about 7u).
    #[test]
    fn check_fails_one_ulp_past_the_bound() {
        let case = case();
        let (a, b) = (case.guarded(Matrix::A).to_vec(), case.guarded(Matrix::B).to_vec());
        let tol = reference::tolerance(Precision::F32, Math::Fma, 4);
        assert!(tol < 5e-7, "{tol:e}");
        let exact = case.expected()[0].re;
        let (_, bound) = case.reference();
        let limit = exact + tol * bound[0];
        // The largest f32 whose error is below the bound, and the next one.
        let mut x = limit as f32;
        while f64::from(x) - exact >= tol * bound[0] {
            x = x.next_down();
        }
        let next = x.next_up();
        assert!(f64::from(next) - exact >= tol * bound[0]);
        let mut c = correct(&case);
        c[GUARD] = x;
        assert!(case.check(&a, &b, &c, Math::Fma).is_ok(), "{x:e} within the bound");
        c[GUARD] = next;
        let e = case.check(&a, &b, &c, Math::Fma).unwrap_err();
        assert!(e.contains("relative error"), "{e}");
    }
}
