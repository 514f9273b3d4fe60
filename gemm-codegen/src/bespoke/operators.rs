//! Test operators for bespoke constant-A kernels.
//!
//! High-order element solvers (PyFR and kin) multiply small constant
//! operators `A` (`m × k`, `m` and `k` from 4 to ~1100, often sparse) by very
//! wide `B`. This module builds such operators as plain [`Operator`]s:
//!
//! - quadrature point sets on `[-1, 1]` ([`gauss_legendre`],
//!   [`gauss_lobatto`], [`equispaced`]);
//! - 1-D Lagrange [`interpolation`] and [`differentiation`] between point
//!   sets (barycentric formulas);
//! - their tensor products on quads and hexes ([`kron`],
//!   [`element_interpolation`], [`element_gradient`]);
//! - seeded random sparse operators ([`random_sparse`]) and a named set over
//!   the whole range of shapes and densities ([`test_set`]).

use std::f64::consts::PI;

use thiserror::Error;

use super::{Operator, OperatorError};

/// Why an operator of this module cannot be built.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum OperatorsError {
    /// A point rule was asked for a count of points it does not have.
    #[error("{rule} needs {min} to {max} points, not {n}")]
    PointCount { rule: &'static str, n: usize, min: usize, max: usize },
    /// A point set given to a Lagrange operator is empty (`which` is `from` or `to`).
    #[error("the `{which}` point set is empty")]
    NoPoints { which: &'static str },
    /// A point is NaN or infinite.
    #[error("point {index} of `{which}` is {value}: points must be finite")]
    NonFinitePoint { which: &'static str, index: usize, value: f64 },
    /// Two interpolation nodes coincide: no Lagrange basis exists.
    #[error("the `from` points repeat {value}: Lagrange nodes must be distinct")]
    DuplicatePoint { value: f64 },
    /// The density of a random operator is outside `(0, 1]`.
    #[error("a density is in (0, 1], not {density}")]
    Density { density: f64 },
    /// An element order is zero (order `p` has `p + 1` points per direction).
    #[error("an element order is at least 1, not {order}")]
    Order { order: usize },
    /// The operator itself is invalid (empty, over [`Operator::MAX_DIM`], non-finite).
    #[error(transparent)]
    Operator(#[from] OperatorError),
}

/// The most points a rule produces: one per row or column of an operator.
const MAX_POINTS: usize = Operator::MAX_DIM;

/// `(P_n(x), P_{n-1}(x))` by the three-term recurrence
/// `(k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}` (`P_{-1} = 0`).
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p, mut prev) = (1.0, 0.0);
    for k in 0..n {
        let k = k as f64;
        let next = ((2.0 * k + 1.0) * x * p - k * prev) / (k + 1.0);
        prev = p;
        p = next;
    }
    (p, prev)
}

/// `P_n'(x) = n (x P_n - P_{n-1}) / (x² - 1)`, for `|x| < 1`.
fn legendre_derivative(n: usize, x: f64) -> f64 {
    let (p, prev) = legendre(n, x);
    n as f64 * (x * p - prev) / (x * x - 1.0)
}

/// Newton's method from `x`: steps `x -= step(x)` until they are at rounding level.
fn newton(mut x: f64, step: impl Fn(f64) -> f64) -> f64 {
    for _ in 0..100 {
        let dx = step(x);
        x -= dx;
        if dx.abs() <= 2.0 * f64::EPSILON {
            break;
        }
    }
    x
}

/// Ascending, exactly symmetric points from the positive ones in descending
/// order (`positive`), with `0` in the middle when `zero`.
fn mirror(positive: &[f64], zero: bool) -> Vec<f64> {
    let mut out: Vec<f64> = positive.iter().map(|x| -x).collect();
    if zero {
        out.push(0.0);
    }
    out.extend(positive.iter().rev());
    out
}

/// Checks `n` against a rule's `min..=MAX_POINTS`.
fn check_count(rule: &'static str, n: usize, min: usize) -> Result<(), OperatorsError> {
    if n < min || n > MAX_POINTS {
        return Err(OperatorsError::PointCount { rule, n, min, max: MAX_POINTS });
    }
    Ok(())
}

/// The `n` Gauss–Legendre points: the roots of the Legendre polynomial
/// `P_n`, ascending, in `(-1, 1)`. The `n`-point rule on them (weights
/// `2 / ((1 - x²) P_n'(x)²)`) integrates polynomials of degree `2n - 1`
/// exactly.
///
/// Each positive root comes from Newton's method on `P_n` started at the
/// Chebyshev-like guess `cos(π (i + 3/4) / (n + 1/2))`; the negative ones are
/// their mirror images, so the set is exactly symmetric. `n` is `1` to
/// [`Operator::MAX_DIM`].
pub fn gauss_legendre(n: usize) -> Result<Vec<f64>, OperatorsError> {
    check_count("Gauss-Legendre", n, 1)?;
    let positive: Vec<f64> = (0..n / 2)
        .map(|i| {
            let guess = (PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            newton(guess, |x| legendre(n, x).0 / legendre_derivative(n, x))
        })
        .collect();
    Ok(mirror(&positive, n % 2 == 1))
}

/// The `n` Gauss–Lobatto(–Legendre) points: `-1`, the `n - 2` roots of
/// `P_{n-1}'`, and `1`, ascending. The rule on them (weights
/// `2 / (n (n - 1) P_{n-1}(x)²)`) integrates polynomials of degree `2n - 3`
/// exactly.
///
/// The interior roots come from Newton's method on `P_N'` (`N = n - 1`,
/// `P_N'' = (2x P_N' - N (N + 1) P_N) / (1 - x²)`) started at the
/// Chebyshev–Lobatto points `cos(π i / N)`, mirrored for exact symmetry.
/// `n` is `2` to [`Operator::MAX_DIM`].
pub fn gauss_lobatto(n: usize) -> Result<Vec<f64>, OperatorsError> {
    check_count("Gauss-Lobatto", n, 2)?;
    let big_n = n - 1;
    let nf = big_n as f64;
    let positive: Vec<f64> = (1..=(n - 2) / 2)
        .map(|i| {
            let guess = (PI * i as f64 / nf).cos();
            newton(guess, |x| {
                let (p, prev) = legendre(big_n, x);
                let dp = nf * (x * p - prev) / (x * x - 1.0);
                let ddp = (2.0 * x * dp - nf * (nf + 1.0) * p) / (1.0 - x * x);
                dp / ddp
            })
        })
        .collect();
    let mut points = vec![-1.0];
    points.extend(mirror(&positive, n % 2 == 1));
    points.push(1.0);
    Ok(points)
}

/// `n` equally spaced points from `-1` to `1` (`x_i = (2i - (n - 1)) / (n - 1)`,
/// exactly symmetric); a single point is `0`. `n` is `1` to
/// [`Operator::MAX_DIM`].
pub fn equispaced(n: usize) -> Result<Vec<f64>, OperatorsError> {
    check_count("equispaced", n, 1)?;
    if n == 1 {
        return Ok(vec![0.0]);
    }
    let d = (n - 1) as f64;
    Ok((0..n).map(|i| (2.0 * i as f64 - d) / d).collect())
}

/// Checks a point set: non-empty, finite, at most [`Operator::MAX_DIM`] points.
fn check_points(which: &'static str, points: &[f64]) -> Result<(), OperatorsError> {
    if points.is_empty() {
        return Err(OperatorsError::NoPoints { which });
    }
    Operator::check_shape(points.len(), points.len())?;
    if let Some(index) = points.iter().position(|x| !x.is_finite()) {
        return Err(OperatorsError::NonFinitePoint { which, index, value: points[index] });
    }
    Ok(())
}

/// The barycentric weights `w_j ∝ 1 / ∏_{k≠j} (x_j - x_k)` of distinct
/// nodes, scaled so that the largest is 1. Each factor is multiplied by
/// `4 / (max - min)` (which keeps the products near 1 for nodes that cluster
/// like Chebyshev points), and the products are kept in range by exact
/// rescaling with powers of two, so thousands of nodes neither overflow nor
/// underflow; weights below `2^-1022` of the largest flush to 0.
fn barycentric_weights(nodes: &[f64]) -> Result<Vec<f64>, OperatorsError> {
    const BIG: f64 = 1.329_227_995_784_916e36; // 2^120
    let mut sorted = nodes.to_vec();
    sorted.sort_by(f64::total_cmp);
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(OperatorsError::DuplicatePoint { value: w[0] });
    }
    let span = sorted[sorted.len() - 1] - sorted[0];
    let scale = if span > 0.0 { 4.0 / span } else { 1.0 };
    // The product of node j is mantissa[j] · BIG^exponent[j].
    let (mut mantissa, mut exponent) = (vec![1.0f64; nodes.len()], vec![0i64; nodes.len()]);
    for (j, &xj) in nodes.iter().enumerate() {
        for (k, &xk) in nodes.iter().enumerate() {
            if k != j {
                mantissa[j] *= (xj - xk) * scale;
                if mantissa[j].abs() > BIG {
                    (mantissa[j], exponent[j]) = (mantissa[j] / BIG, exponent[j] + 1);
                } else if mantissa[j].abs() < 1.0 / BIG {
                    (mantissa[j], exponent[j]) = (mantissa[j] * BIG, exponent[j] - 1);
                }
            }
        }
    }
    // w_j = BIG^(e_min - e_j) / mantissa[j], relative to the smallest product.
    let e_min = exponent.iter().copied().min().unwrap_or(0);
    let mut w: Vec<f64> = mantissa
        .iter()
        .zip(&exponent)
        .map(|(m, &e)| (0..(e - e_min).min(10)).fold(1.0 / m, |v, _| v / BIG))
        .collect();
    let max = w.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if max.is_finite() && max > 0.0 {
        w.iter_mut().for_each(|v| *v /= max);
    }
    Ok(w)
}

/// The Lagrange interpolation operator from the nodes `from` to the points
/// `to`: entry `(i, j)` is `l_j(to[i])`, where `l_j` is the degree
/// `from.len() - 1` polynomial that is 1 at `from[j]` and 0 at the other
/// nodes. So `A · f(from)` is the interpolant of `f` evaluated at `to`.
///
/// Uses the second barycentric form `l_j(t) = (w_j / (t - x_j)) / Σ_k w_k /
/// (t - x_k)`; a target equal to a node gets the unit row. The nodes must
/// be finite and distinct.
pub fn interpolation(from: &[f64], to: &[f64]) -> Result<Operator, OperatorsError> {
    check_points("from", from)?;
    check_points("to", to)?;
    let w = barycentric_weights(from)?;
    let mut values = Vec::with_capacity(to.len() * from.len());
    let mut c = vec![0.0; from.len()];
    for &t in to {
        let start = values.len();
        values.resize(start + from.len(), 0.0);
        let row = &mut values[start..];
        for (k, (&xk, &wk)) in from.iter().zip(&w).enumerate() {
            c[k] = wk / (t - xk);
        }
        if let Some(m) = from.iter().position(|&xk| xk == t).or_else(|| c.iter().position(|v| !v.is_finite()))
        {
            row[m] = 1.0;
            continue;
        }
        let denominator: f64 = c.iter().sum();
        for (r, ck) in row.iter_mut().zip(&c) {
            *r = ck / denominator;
        }
    }
    Ok(Operator::from_row_major(to.len(), from.len(), values)?)
}

/// The Lagrange differentiation operator from the nodes `from` to the points
/// `to`: entry `(i, j)` is `l_j'(to[i])`, so `A · f(from)` is the derivative
/// of the interpolant of `f` evaluated at `to`.
///
/// At a node `x_m`: `l_j'(x_m) = (w_j / w_m) / (x_m - x_j)` for `j ≠ m`, and
/// the diagonal is minus the row's other entries (the derivative of a
/// constant is 0). Elsewhere: `l_j'(t) = l_j(t) Σ_{k≠j} 1 / (t - x_k)`, the
/// sum taken from prefix and suffix sums so that no large term cancels.
/// The nodes must be finite and distinct.
pub fn differentiation(from: &[f64], to: &[f64]) -> Result<Operator, OperatorsError> {
    check_points("from", from)?;
    check_points("to", to)?;
    let w = barycentric_weights(from)?;
    let n = from.len();
    let mut values = Vec::with_capacity(to.len() * n);
    let (mut r, mut prefix) = (vec![0.0; n], vec![0.0; n + 1]);
    for &t in to {
        let start = values.len();
        values.resize(start + n, 0.0);
        let row = &mut values[start..];
        if let Some(m) = from.iter().position(|&xk| xk == t) {
            let mut diagonal = 0.0;
            for j in (0..n).filter(|&j| j != m) {
                row[j] = (w[j] / w[m]) / (t - from[j]);
                diagonal -= row[j];
            }
            row[m] = diagonal;
            continue;
        }
        for k in 0..n {
            r[k] = 1.0 / (t - from[k]);
            prefix[k + 1] = prefix[k] + r[k];
        }
        let denominator: f64 = w.iter().zip(&r).map(|(wk, rk)| wk * rk).sum();
        let mut suffix = 0.0;
        for j in (0..n).rev() {
            let lj = w[j] * r[j] / denominator;
            row[j] = lj * (prefix[j] + suffix);
            suffix += r[j];
        }
    }
    Ok(Operator::from_row_major(to.len(), n, values)?)
}

/// The Kronecker product `A ⊗ B`: `(A ⊗ B)[i_a · m_b + i_b, j_a · k_b + j_b]
/// = A[i_a, j_a] · B[i_b, j_b]`, so `B`'s index runs fastest. It is
/// `(m_a m_b) × (k_a k_b)`, which must be within [`Operator::MAX_DIM`].
pub fn kron(a: &Operator, b: &Operator) -> Result<Operator, OperatorsError> {
    let (mb, kb) = (b.rows(), b.cols());
    Ok(Operator::from_fn(a.rows() * mb, a.cols() * kb, |i, j| a.get(i / mb, j / kb) * b.get(i % mb, j % kb))?)
}

/// The reference element: the line, quadrilateral or hexahedron `[-1, 1]^d`
/// with tensor-product points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `[-1, 1]`.
    Line,
    /// `[-1, 1]²`.
    Quad,
    /// `[-1, 1]³`.
    Hex,
}

impl Shape {
    /// Every shape, by dimension.
    pub const ALL: [Shape; 3] = [Shape::Line, Shape::Quad, Shape::Hex];

    /// The dimension `d`: 1, 2 or 3.
    pub fn dims(self) -> usize {
        match self {
            Shape::Line => 1,
            Shape::Quad => 2,
            Shape::Hex => 3,
        }
    }

    /// The short name used in [`test_set`]: `line`, `quad` or `hex`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Line => "line",
            Shape::Quad => "quad",
            Shape::Hex => "hex",
        }
    }
}

/// A 1-D point family on `[-1, 1]`, used in every direction of an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Points {
    /// [`gauss_legendre`]: interior quadrature points.
    GaussLegendre,
    /// [`gauss_lobatto`]: quadrature points including `±1`.
    GaussLobatto,
    /// [`equispaced`]: equally spaced, including `±1`.
    Equispaced,
}

impl Points {
    /// The family's `n` points, ascending.
    pub fn points(self, n: usize) -> Result<Vec<f64>, OperatorsError> {
        match self {
            Points::GaussLegendre => gauss_legendre(n),
            Points::GaussLobatto => gauss_lobatto(n),
            Points::Equispaced => equispaced(n),
        }
    }

    /// The short name used in [`test_set`]: `gl`, `gll` or `eq`.
    pub fn name(self) -> &'static str {
        match self {
            Points::GaussLegendre => "gl",
            Points::GaussLobatto => "gll",
            Points::Equispaced => "eq",
        }
    }
}

/// Points per element of `shape` at `order` (`(order + 1)^d`), checked
/// against [`Operator::MAX_DIM`] before anything is computed.
fn element_points(shape: Shape, order: usize) -> Result<usize, OperatorsError> {
    if order == 0 {
        return Err(OperatorsError::Order { order });
    }
    let total = order
        .checked_add(1)
        .and_then(|n| n.checked_pow(shape.dims() as u32))
        .filter(|&t| t <= Operator::MAX_DIM)
        .ok_or(OperatorError::TooLarge { rows: usize::MAX, cols: usize::MAX, max: Operator::MAX_DIM })?;
    Ok(total)
}

/// `factors[d-1] ⊗ … ⊗ factors[0]`: factor `c` acts along coordinate `c`,
/// and the first coordinate runs fastest.
fn tensor(factors: &[Operator]) -> Result<Operator, OperatorsError> {
    let (last, rest) = factors.split_last().ok_or(OperatorsError::Order { order: 0 })?;
    rest.iter().rev().try_fold(last.clone(), |acc, f| kron(&acc, f))
}

/// The interpolation operator of an element of `shape` and `order`
/// (`p + 1` points per direction) from the points `from` to the points `to`:
/// the `d`-fold Kronecker product of the 1-D [`interpolation`], on points
/// numbered with the first coordinate fastest (`i_x + n i_y + n² i_z`). It is
/// `(p + 1)^d × (p + 1)^d`.
pub fn element_interpolation(
    shape: Shape,
    order: usize,
    from: Points,
    to: Points,
) -> Result<Operator, OperatorsError> {
    element_points(shape, order)?;
    let n = order + 1;
    let line = interpolation(&from.points(n)?, &to.points(n)?)?;
    tensor(&vec![line; shape.dims()])
}

/// The gradient operator of an element of `shape` and `order`: the `d`
/// directional derivative operators `∂/∂x_r` stacked vertically, each from
/// the points `from` to the points `to` (numbered as in
/// [`element_interpolation`]). Block `r` applies the 1-D [`differentiation`]
/// along coordinate `r` and the 1-D [`interpolation`] along the others. It is
/// `d (p + 1)^d × (p + 1)^d`, which must be within [`Operator::MAX_DIM`]
/// (hex order 6 is `1029 × 343`).
pub fn element_gradient(
    shape: Shape,
    order: usize,
    from: Points,
    to: Points,
) -> Result<Operator, OperatorsError> {
    let cols = element_points(shape, order)?;
    let d = shape.dims();
    Operator::check_shape(d * cols, cols)?;
    let n = order + 1;
    let (x_from, x_to) = (from.points(n)?, to.points(n)?);
    let (interp, diff) = (interpolation(&x_from, &x_to)?, differentiation(&x_from, &x_to)?);
    let mut values = Vec::with_capacity(d * cols * cols);
    for r in 0..d {
        let factors: Vec<Operator> =
            (0..d).map(|c| if c == r { diff.clone() } else { interp.clone() }).collect();
        values.extend_from_slice(tensor(&factors)?.values());
    }
    Ok(Operator::from_row_major(d * cols, cols, values)?)
}

/// SplitMix64 (Steele, Lea and Flood): a 64-bit counter through a bijective
/// mixer; small, fast and deterministic, enough for test operators.
#[derive(Clone, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, on the grid of `2^-53`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[-1, 1]` without 0: a magnitude in `(0, 1]` on the grid of
    /// `2^-53` and an independent sign bit.
    fn nonzero(&mut self) -> f64 {
        let bits = self.next_u64();
        let magnitude = ((bits >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        if bits & 1 == 1 { -magnitude } else { magnitude }
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is below `n / 2^64`).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A random `rows × cols` operator, deterministic in `seed`: each entry is
/// non-zero with probability `density` (`0 < density ≤ 1`), non-zeros uniform
/// in `[-1, 1]` and never exactly 0. A row, then a column, that the draw left
/// empty gets one non-zero at a random position, so every row and column of
/// the result has a non-zero (every row of `B` is streamed, every row of `C`
/// written); for `density < 1 / min(rows, cols)` this floor of
/// `max(rows, cols)` non-zeros raises the realised density noticeably.
pub fn random_sparse(rows: usize, cols: usize, density: f64, seed: u64) -> Result<Operator, OperatorsError> {
    if density.is_nan() || density <= 0.0 || density > 1.0 {
        return Err(OperatorsError::Density { density });
    }
    // The shape rules of `Operator`, before anything is allocated.
    Operator::check_shape(rows, cols)?;
    let mut rng = SplitMix64(seed);
    let mut values: Vec<f64> =
        (0..rows * cols).map(|_| if rng.unit() < density { rng.nonzero() } else { 0.0 }).collect();
    for i in 0..rows {
        if values[i * cols..(i + 1) * cols].iter().all(|&v| v == 0.0) {
            let j = rng.below(cols);
            values[i * cols + j] = rng.nonzero();
        }
    }
    for j in 0..cols {
        if (0..rows).all(|i| values[i * cols + j] == 0.0) {
            let i = rng.below(rows);
            values[i * cols + j] = rng.nonzero();
        }
    }
    Ok(Operator::from_row_major(rows, cols, values)?)
}

/// The `(m, k)` shapes of the random operators in [`test_set`].
pub const TEST_SHAPES: [(usize, usize); 9] =
    [(4, 4), (8, 27), (27, 8), (64, 64), (125, 343), (343, 125), (512, 512), (1000, 1000), (1100, 400)];

/// The densities of the random operators in [`test_set`].
pub const TEST_DENSITIES: [f64; 4] = [0.01, 0.1, 0.5, 1.0];

/// The named test operators of bespoke kernels:
///
/// - `rand-{m}x{k}-d{density:.2}`: [`random_sparse`] for every shape of
///   [`TEST_SHAPES`] and density of [`TEST_DENSITIES`], except where
///   `density · min(m, k) < 1`: there the expected non-zeros fall below the
///   one-per-row-and-column floor, the realised density is set by the floor
///   and the name would lie (this drops 4×4 at 0.01 and 0.1, 8×27 and 27×8 at
///   0.01 and 0.1, and 64×64 at 0.01: 29 operators remain);
/// - for each [`Shape`] and order 1 to 6: `{shape}-p{order}-gl-gll-interp`
///   and `{shape}-p{order}-gll-gl-interp` ([`element_interpolation`]) and
///   `{shape}-p{order}-gl-grad` ([`element_gradient`] from and to
///   Gauss–Legendre points).
///
/// # Panics
/// Never: every parameter is fixed and valid (the tests build the whole set).
pub fn test_set() -> Vec<(String, Operator)> {
    const VALID: &str = "test_set parameters are valid";
    let mut set = Vec::new();
    for (s, &(m, k)) in TEST_SHAPES.iter().enumerate() {
        for (t, &density) in TEST_DENSITIES.iter().enumerate() {
            if density * (m.min(k) as f64) < 1.0 {
                continue;
            }
            let seed = 0x6765_6d6d_666f_7267 ^ ((s as u64) << 8 | t as u64);
            set.push((
                format!("rand-{m}x{k}-d{density:.2}"),
                random_sparse(m, k, density, seed).expect(VALID),
            ));
        }
    }
    let (gl, gll) = (Points::GaussLegendre, Points::GaussLobatto);
    for shape in Shape::ALL {
        for p in 1..=6 {
            let name = shape.name();
            for (from, to) in [(gl, gll), (gll, gl)] {
                let op = element_interpolation(shape, p, from, to).expect(VALID);
                set.push((format!("{name}-p{p}-{}-{}-interp", from.name(), to.name()), op));
            }
            set.push((format!("{name}-p{p}-gl-grad"), element_gradient(shape, p, gl, gl).expect(VALID)));
        }
    }
    set
}

#[cfg(test)]
mod tests;
