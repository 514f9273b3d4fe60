//! [`BespokeCase`]: one checked bespoke call on random inputs, whoever runs
//! it (the GPU, the emulator).

use gemm_codegen::bespoke::{BetaMode, Operator};
use gemm_codegen::{Element, Math};

use super::BespokeCall;
use crate::case::Case;
use crate::config::Matrix;
use crate::reference::{self, Random};

/// A bespoke call of `n` columns on random guarded inputs, and its check:
/// the row-major GEMM [`Case`] of the call ([`BespokeCall::gemm_config`])
/// with A the operator. Rows of B and C are 4 elements longer than `n`
/// (their gaps are checked; the vector alignment is `n`'s) unless given,
/// `alpha` is
/// random, `beta` random unless the mode fixes it, and C NaN-poisoned for
/// `beta = 0` (it must not be read). The `f64` reference is computed once,
/// however many kernels are checked against it.
#[derive(Debug)]
pub struct BespokeCase<E: Element> {
    /// The call.
    pub call: BespokeCall<E>,
    /// Its inputs and checks.
    pub case: Case<E>,
}

impl<E: Element> BespokeCase<E> {
    /// Random inputs for `n` columns of `operator` with `beta`s of `beta`.
    pub fn random(operator: &Operator, n: u32, beta: BetaMode, rng: &mut Random) -> BespokeCase<E> {
        let rows = u64::from(n) + 4;
        BespokeCase::random_strided(operator, n, (rows, rows), beta, rng)
    }

    /// [`BespokeCase::random`] with rows of B and C `ldb` and `ldc`
    /// elements apart (each at least `n`): the case of a kernel whose spec
    /// fixes them.
    pub fn random_strided(
        operator: &Operator,
        n: u32,
        (ldb, ldc): (u64, u64),
        beta: BetaMode,
        rng: &mut Random,
    ) -> BespokeCase<E> {
        let n = i64::from(n);
        let ld = |x: u64| i64::try_from(x).unwrap_or(i64::MAX);
        let beta = if beta == BetaMode::Runtime { rng.scalar() } else { fixed_beta(beta) };
        let call = BespokeCall::new(n).alpha(rng.scalar()).beta(beta).ldb(ld(ldb)).ldc(ld(ldc));
        let values: Vec<E> = operator.values().iter().map(|&v| narrow(v)).collect();
        let case = Case::with_a(call.gemm_config(operator.rows(), operator.cols()), &values, rng);
        BespokeCase { call, case }
    }

    /// Checks a run given B's and C's whole buffers after it (guards
    /// included): B untouched, nothing outside C's `m × n` part written, C
    /// within the tolerance of `math`. Returns C's error.
    pub fn check(&self, b: &[E], c: &[E], math: Math) -> Result<f64, String> {
        self.case.check(self.case.guarded(Matrix::A), b, c, math)
    }
}

/// `beta` of a fixed mode (0 or 1; 0 for a run-time one).
pub(crate) fn fixed_beta<E: Element>(beta: BetaMode) -> E {
    if beta == BetaMode::One { E::ONE } else { E::ZERO }
}

/// `v` in `E`.
pub(crate) fn narrow<E: Element>(v: f64) -> E {
    reference::narrow(num_complex::Complex::new(v, 0.0))
}
