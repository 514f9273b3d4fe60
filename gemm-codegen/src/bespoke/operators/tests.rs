//! Tests of the test operators: quadrature exactness, polynomial
//! reproduction, element shapes, random sparsity and the named set.

use super::*;

/// `A · x`.
fn apply(a: &Operator, x: &[f64]) -> Vec<f64> {
    (0..a.rows()).map(|i| a.row(i).iter().zip(x).map(|(aij, xj)| aij * xj).sum()).collect()
}

/// `x^q` (`0^0 = 1`) and its derivative.
fn pow(x: f64, q: usize) -> f64 {
    x.powi(q as i32)
}
fn dpow(x: f64, q: usize) -> f64 {
    if q == 0 { 0.0 } else { q as f64 * x.powi(q as i32 - 1) }
}

/// `|Σ w_i x_i^q - ∫_{-1}^{1} x^q dx|`, relative to the integral (absolute below 0.1).
fn quadrature_error(x: &[f64], w: &[f64], q: usize) -> f64 {
    let exact = if q % 2 == 1 { 0.0 } else { 2.0 / (q + 1) as f64 };
    let sum: f64 = x.iter().zip(w).map(|(&xi, wi)| wi * pow(xi, q)).sum();
    (sum - exact).abs() / exact.max(0.1)
}

fn assert_ascending_symmetric(x: &[f64]) {
    assert!(x.windows(2).all(|w| w[0] < w[1]), "not strictly increasing: {x:?}");
    assert!(x.iter().zip(x.iter().rev()).all(|(a, b)| *a == -*b), "not symmetric: {x:?}");
}

fn too_large(r: Result<Operator, OperatorsError>) -> bool {
    matches!(r, Err(OperatorsError::Operator(OperatorError::TooLarge { .. })))
}

#[test]
fn gauss_legendre_points_are_roots_and_their_rule_is_exact_to_degree_2n_minus_1() {
    for n in 1..=20 {
        let x = gauss_legendre(n).unwrap();
        assert_eq!(x.len(), n);
        assert_ascending_symmetric(&x);
        assert!(x.iter().all(|&xi| -1.0 < xi && xi < 1.0), "{x:?}");
        // Newton's next step is below rounding: each root is within ~1 ulp.
        for &xi in &x {
            let step = legendre(n, xi).0 / legendre_derivative(n, xi);
            assert!(step.abs() <= 2.0 * f64::EPSILON, "n = {n}: {xi} is {step} off a root");
        }
        let w: Vec<f64> =
            x.iter().map(|&xi| 2.0 / ((1.0 - xi * xi) * legendre_derivative(n, xi).powi(2))).collect();
        for q in 0..2 * n {
            assert!(quadrature_error(&x, &w, q) <= 1e-13, "n = {n}, q = {q}");
        }
        // Not exact one degree further (x^2n, whose error is visible up to n = 12).
        assert!(n > 12 || quadrature_error(&x, &w, 2 * n) > 1e-9, "n = {n}");
    }
    let x = gauss_legendre(200).unwrap();
    assert_ascending_symmetric(&x);
    assert!(x.iter().all(|&xi| (legendre(200, xi).0 / legendre_derivative(200, xi)).abs() < 1e-14));
}

#[test]
fn gauss_lobatto_points_include_the_ends_and_their_rule_is_exact_to_degree_2n_minus_3() {
    for n in 2..=20 {
        let x = gauss_lobatto(n).unwrap();
        assert_eq!((x.len(), x[0], x[n - 1]), (n, -1.0, 1.0));
        assert_ascending_symmetric(&x);
        for &xi in &x[1..n - 1] {
            assert!(legendre_derivative(n - 1, xi).abs() < 1e-12 * (n * n) as f64, "n = {n}: {xi}");
        }
        let scale = 2.0 / (n * (n - 1)) as f64;
        let w: Vec<f64> = x.iter().map(|&xi| scale / legendre(n - 1, xi).0.powi(2)).collect();
        for q in 0..=2 * n - 3 {
            assert!(quadrature_error(&x, &w, q) <= 1e-13, "n = {n}, q = {q}");
        }
        assert!(n > 12 || quadrature_error(&x, &w, 2 * n - 2) > 1e-9, "n = {n}");
    }
    assert_ascending_symmetric(&gauss_lobatto(200).unwrap());
}

#[test]
fn point_rules_reject_bad_counts() {
    let max = Operator::MAX_DIM;
    let err = Err(OperatorsError::PointCount { rule: "Gauss-Legendre", n: 0, min: 1, max });
    assert_eq!(gauss_legendre(0), err);
    assert!(matches!(gauss_lobatto(1), Err(OperatorsError::PointCount { n: 1, min: 2, .. })));
    assert!(matches!(equispaced(0), Err(OperatorsError::PointCount { n: 0, .. })));
    assert!(matches!(gauss_legendre(max + 1), Err(OperatorsError::PointCount { .. })));
    assert!(matches!(gauss_lobatto(usize::MAX), Err(OperatorsError::PointCount { .. })));
    assert_eq!((equispaced(1).unwrap(), gauss_legendre(1).unwrap()), (vec![0.0], vec![0.0]));
    assert_eq!(equispaced(5).unwrap(), [-1.0, -0.5, 0.0, 0.5, 1.0]);
    assert_eq!(gauss_lobatto(2).unwrap(), [-1.0, 1.0]);
    let e = gauss_lobatto(1).unwrap_err().to_string();
    assert_eq!(e, format!("Gauss-Lobatto needs 2 to {max} points, not 1"));
}

/// Point sets to interpolate between: every family at 2 to 12 points.
fn node_sets() -> Vec<Vec<f64>> {
    let families = [Points::GaussLegendre, Points::GaussLobatto, Points::Equispaced];
    (2..=12).flat_map(|n| families.iter().map(move |f| f.points(n).unwrap())).collect()
}

/// Targets: Gauss–Legendre points, the ends, and points off every grid.
fn targets(n: usize) -> Vec<f64> {
    let mut t = gauss_legendre(n + 3).unwrap();
    t.extend([-1.0, 1.0, 0.123_456_789, -0.987_654_321, 0.999_999]);
    t
}

#[test]
fn interpolation_reproduces_polynomials_up_to_its_degree() {
    for from in node_sets() {
        let to = targets(from.len());
        let a = interpolation(&from, &to).unwrap();
        assert_eq!((a.rows(), a.cols()), (to.len(), from.len()));
        for i in 0..a.rows() {
            let sum: f64 = a.row(i).iter().sum();
            assert!((sum - 1.0).abs() < 1e-13, "row {i} sums to {sum}");
        }
        let worst = |q: usize| {
            let f: Vec<f64> = from.iter().map(|&x| pow(x, q)).collect();
            apply(&a, &f).iter().zip(&to).map(|(g, &t)| (g - pow(t, q)).abs()).fold(0.0, f64::max)
        };
        for q in 0..from.len() {
            assert!(worst(q) < 1e-12, "{from:?}, q = {q}: {}", worst(q));
        }
        // One degree more is not reproduced (the operator is not trivially exact).
        assert!(worst(from.len()) > 1e-6, "{from:?}");
    }
}

#[test]
fn interpolation_from_a_set_to_itself_is_the_identity() {
    for x in node_sets() {
        let a = interpolation(&x, &x).unwrap();
        for (idx, v) in a.values().iter().enumerate() {
            let want = if idx / x.len() == idx % x.len() { 1.0 } else { 0.0 };
            assert!((v - want).abs() <= 1e-14, "{x:?} at {idx}");
        }
    }
    // Unsorted nodes are fine too: the basis follows the given order.
    assert_eq!(interpolation(&[1.0, -1.0], &[0.5]).unwrap().values(), [0.75, 0.25]);
}

#[test]
fn differentiation_is_exact_on_polynomials_up_to_its_degree() {
    for from in node_sets() {
        let p = from.len() - 1;
        let scale = (p * p) as f64;
        let nearby: Vec<f64> = from.iter().map(|x| x + 1e-9).collect();
        for to in [targets(from.len()), from.clone(), nearby] {
            let d = differentiation(&from, &to).unwrap();
            assert_eq!((d.rows(), d.cols()), (to.len(), from.len()));
            for i in 0..d.rows() {
                let sum: f64 = d.row(i).iter().sum();
                assert!(sum.abs() < 1e-12 * scale, "row {i} sums to {sum}");
            }
            for q in 0..=p {
                let f: Vec<f64> = from.iter().map(|&x| pow(x, q)).collect();
                for (got, &t) in apply(&d, &f).iter().zip(&to) {
                    let want = dpow(t, q);
                    assert!((got - want).abs() < 1e-11 * scale, "{from:?}, q = {q}, t = {t}: {got}");
                }
            }
        }
    }
    // d/dx on two nodes is the slope: (f1 - f0) / 2 everywhere.
    let d = differentiation(&[-1.0, 1.0], &[-1.0, 0.3, 1.0]).unwrap();
    let slope = [-0.5, 0.5].repeat(3);
    assert!(d.values().iter().zip(slope).all(|(g, w)| (g - w).abs() < 1e-15), "{:?}", d.values());
}

#[test]
fn lagrange_operators_stay_finite_on_thousands_of_nodes() {
    let from = gauss_legendre(2000).unwrap();
    let to = [-1.0, -0.3, 0.0, 0.123_456_789, 1.0];
    let (a, d) = (interpolation(&from, &to).unwrap(), differentiation(&from, &to).unwrap());
    let f: Vec<f64> = from.iter().map(|&x| 3.0 * x * x - x).collect();
    let (fa, fd) = (apply(&a, &f), apply(&d, &f));
    for (i, t) in to.iter().enumerate() {
        assert!((a.row(i).iter().sum::<f64>() - 1.0).abs() < 1e-10, "row {i}");
        assert!((fa[i] - (3.0 * t * t - t)).abs() < 1e-9, "row {i}: {}", fa[i]);
        assert!((fd[i] - (6.0 * t - 1.0)).abs() < 1e-6, "row {i}: {}", fd[i]); // entries ~ n² = 4e6
    }
}

#[test]
fn lagrange_operators_reject_bad_point_sets() {
    let ok = [0.0, 1.0];
    for f in [interpolation, differentiation] {
        assert_eq!(f(&[0.5, -1.0, 0.5], &ok), Err(OperatorsError::DuplicatePoint { value: 0.5 }));
        assert_eq!(f(&[0.0, -0.0], &ok), Err(OperatorsError::DuplicatePoint { value: -0.0 }));
        assert_eq!(f(&[], &ok), Err(OperatorsError::NoPoints { which: "from" }));
        assert_eq!(f(&ok, &[]), Err(OperatorsError::NoPoints { which: "to" }));
        let e = f(&[0.0, f64::NAN], &ok);
        assert!(matches!(e, Err(OperatorsError::NonFinitePoint { which: "from", index: 1, .. })));
        let e = f(&ok, &[f64::INFINITY]);
        assert!(matches!(e, Err(OperatorsError::NonFinitePoint { which: "to", index: 0, .. })));
        assert!(too_large(f(&ok, &vec![0.0; Operator::MAX_DIM + 1])));
    }
    // A single node: the constant interpolant, zero derivative.
    assert_eq!(interpolation(&[0.25], &[0.0, 1.0]).unwrap().values(), [1.0, 1.0]);
    assert_eq!(differentiation(&[0.25], &[0.0, 0.25]).unwrap().values(), [0.0, 0.0]);
}

#[test]
fn kron_multiplies_every_pair_of_entries_with_b_fastest() {
    let a = Operator::from_row_major(1, 2, vec![1.0, 2.0]).unwrap();
    let b = Operator::from_row_major(2, 1, vec![3.0, 5.0]).unwrap();
    assert_eq!(kron(&a, &b).unwrap().values(), [3.0, 6.0, 5.0, 10.0]);
    assert_eq!(kron(&b, &a).unwrap().values(), [3.0, 6.0, 5.0, 10.0]);
    let k = kron(&Operator::from_fn(2, 3, |i, j| (i * 3 + j + 1) as f64).unwrap(), &a).unwrap();
    assert_eq!((k.rows(), k.cols(), k.row(1)), (2, 6, &[4.0, 8.0, 5.0, 10.0, 6.0, 12.0][..]));
    let tall = Operator::from_fn(65, 1, |_, _| 1.0).unwrap();
    assert!(too_large(kron(&tall, &tall)));
}

/// Coordinates of element point `idx` (first coordinate fastest; unused ones 0).
fn coords(idx: usize, n: usize, d: usize, x: &[f64]) -> [f64; 3] {
    let mut c = [0.0; 3];
    for (k, slot) in c.iter_mut().enumerate().take(d) {
        *slot = x[idx / n.pow(k as u32) % n];
    }
    c
}

/// All exponent triples `(a, b, c)` with each at most `p` (unused dimensions 0).
fn exponents(p: usize, d: usize) -> Vec<[usize; 3]> {
    let r = |k: usize| if k < d { p } else { 0 };
    (0..=r(2)).flat_map(|c| (0..=r(1)).flat_map(move |b| (0..=r(0)).map(move |a| [a, b, c]))).collect()
}

#[test]
fn element_operators_have_tensor_shapes_and_are_exact_on_tensor_polynomials() {
    let (gl, gll, eq) = (Points::GaussLegendre, Points::GaussLobatto, Points::Equispaced);
    for shape in Shape::ALL {
        let d = shape.dims();
        for p in 1..=6usize {
            let (n, npts) = (p + 1, (p + 1).pow(d as u32));
            for (from, to) in [(gl, gll), (gll, gl), (eq, gl)] {
                let (xf, xt) = (from.points(n).unwrap(), to.points(n).unwrap());
                let a = element_interpolation(shape, p, from, to).unwrap();
                let g = element_gradient(shape, p, from, to).unwrap();
                assert_eq!((a.rows(), a.cols(), g.rows(), g.cols()), (npts, npts, d * npts, npts));
                // Hex orders 4 to 6: every 7th monomial and the top one (debug-build time).
                let all = exponents(p, d);
                let step = if d == 3 && p > 3 { 7 } else { 1 };
                let chosen = all.iter().step_by(step).chain(all.last());
                for e in chosen {
                    let mono = |c: [f64; 3]| (0..3).map(|k| pow(c[k], e[k])).product::<f64>();
                    let f: Vec<f64> = (0..npts).map(|i| mono(coords(i, n, d, &xf))).collect();
                    let (fa, fg) = (apply(&a, &f), apply(&g, &f));
                    for i in 0..npts {
                        let c = coords(i, n, d, &xt);
                        assert!((fa[i] - mono(c)).abs() < 1e-12, "{shape:?} p{p} {e:?} at {i}");
                        for r in 0..d {
                            let part = |k: usize| if k == r { dpow(c[k], e[k]) } else { pow(c[k], e[k]) };
                            let want: f64 = (0..3).map(part).product();
                            let err = (fg[r * npts + i] - want).abs();
                            assert!(err < 1e-11 * (p * p) as f64, "{shape:?} p{p} {e:?} d{r}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn element_operators_reject_bad_orders() {
    let gl = Points::GaussLegendre;
    assert_eq!(element_interpolation(Shape::Quad, 0, gl, gl), Err(OperatorsError::Order { order: 0 }));
    assert_eq!(element_gradient(Shape::Line, 0, gl, gl), Err(OperatorsError::Order { order: 0 }));
    assert!(too_large(element_interpolation(Shape::Hex, 16, gl, gl)));
    assert!(too_large(element_interpolation(Shape::Quad, usize::MAX, gl, gl)));
    assert!(too_large(element_gradient(Shape::Hex, 15, gl, gl)));
    assert!(too_large(element_gradient(Shape::Quad, 63, gl, gl)));
    assert!(too_large(element_gradient(Shape::Line, 4096, gl, gl)));
    assert_eq!(element_interpolation(Shape::Hex, 15, gl, gl).unwrap().rows(), 4096);
}

/// Rows and columns without a non-zero.
fn empty_lines(a: &Operator) -> (usize, usize) {
    let rows = (0..a.rows()).filter(|&i| a.row(i).iter().all(|&v| v == 0.0)).count();
    let cols = (0..a.cols()).filter(|&j| (0..a.rows()).all(|i| a.get(i, j) == 0.0)).count();
    (rows, cols)
}

#[test]
fn random_sparse_is_seeded_has_its_density_and_no_empty_rows_or_columns() {
    let a = random_sparse(500, 500, 0.1, 7).unwrap();
    assert_eq!(a, random_sparse(500, 500, 0.1, 7).unwrap());
    assert_ne!(a, random_sparse(500, 500, 0.1, 8).unwrap());
    assert!((0.09..0.12).contains(&a.density()), "{}", a.density());
    assert!(a.values().iter().all(|v| (-1.0..=1.0).contains(v)));
    let negative = a.values().iter().filter(|&&v| v < 0.0).count() as f64 / a.nnz() as f64;
    assert!((0.45..0.55).contains(&negative), "{negative}");
    assert_eq!(random_sparse(40, 30, 1.0, 1).unwrap().nnz(), 1200, "an intended non-zero is zero");
    for (m, k, density) in [(1000, 3, 1e-3), (3, 1000, 1e-3), (1, 1, 1e-9), (64, 64, 0.01), (300, 200, 0.3)] {
        let a = random_sparse(m, k, density, 42).unwrap();
        assert_eq!((a.rows(), a.cols(), empty_lines(&a)), (m, k, (0, 0)), "{m} x {k} at {density}");
    }
}

#[test]
fn random_sparse_rejects_bad_densities_and_shapes() {
    for density in [0.0, -0.5, 1.0 + 1e-12, f64::NAN, f64::INFINITY] {
        let e = random_sparse(4, 4, density, 0);
        assert!(matches!(e, Err(OperatorsError::Density { .. })), "{density}");
    }
    let empty = |rows, cols| Err(OperatorsError::Operator(OperatorError::Empty { rows, cols }));
    assert_eq!((random_sparse(0, 4, 0.5, 0), random_sparse(4, 0, 0.5, 0)), (empty(0, 4), empty(4, 0)));
    let max = Operator::MAX_DIM;
    let e = Err(OperatorsError::Operator(OperatorError::TooLarge { rows: 4, cols: max + 1, max }));
    assert_eq!(random_sparse(4, max + 1, 0.5, 0), e);
    assert!(too_large(random_sparse(usize::MAX, usize::MAX, 0.5, 0)));
}

#[test]
fn the_test_set_is_named_valid_fast_and_covers_the_range() {
    let start = std::time::Instant::now();
    let set = test_set();
    let elapsed = start.elapsed();
    assert!(elapsed.as_secs_f64() < 1.0, "test_set took {elapsed:?}");
    let mut names: Vec<&str> = set.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!((names.len(), set.len()), (29 + 3 * 6 * 3, 29 + 3 * 6 * 3), "duplicate names");
    for (name, a) in &set {
        let rebuilt = Operator::from_row_major(a.rows(), a.cols(), a.values().to_vec());
        assert_eq!(rebuilt.as_ref(), Ok(a), "{name}");
        assert!(a.nnz() > 0, "{name}");
    }
    let get = |name: &str| &set.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no {name}")).1;
    for name in ["rand-125x343-d0.10", "hex-p3-gl-gll-interp", "quad-p2-gl-grad", "line-p6-gll-gl-interp"] {
        get(name);
    }
    assert_eq!((get("hex-p6-gl-grad").rows(), get("hex-p6-gl-grad").cols()), (1029, 343));
    let (m, k): (Vec<usize>, Vec<usize>) = set.iter().map(|(_, a)| (a.rows(), a.cols())).unzip();
    assert!(m.contains(&4) && k.contains(&4), "no 4 x 4");
    assert!(m.iter().max() >= Some(&1000) && k.iter().max() >= Some(&1000), "no 1000s");
    let random: Vec<_> = set.iter().filter(|(n, _)| n.starts_with("rand-")).collect();
    for (name, a) in &random {
        assert_eq!(empty_lines(a), (0, 0), "{name}");
        let requested: f64 = name.rsplit("-d").next().unwrap().parse().unwrap();
        let floor = a.rows().max(a.cols()) as f64 / (a.rows() * a.cols()) as f64;
        let density = a.density();
        assert!((0.8 * requested..=1.2 * requested + floor).contains(&density), "{name}: {density}");
    }
    assert!(random.iter().any(|(_, a)| a.density() < 0.02) && random.iter().any(|(_, a)| a.density() == 1.0));
    assert!(get("rand-1000x1000-d0.01").density() < 0.012);
}
