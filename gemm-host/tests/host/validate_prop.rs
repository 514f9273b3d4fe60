//! Property: the BLAS argument checker (`validate::check`) never panics,
//! accepts exactly the calls that break no rule, and names the first broken
//! argument in its documented order — the kernel's ops, the sizes (m, n, k),
//! the leading dimensions (lda, ldb, ldc), each buffer's length (a, b, c),
//! their alignment, then the launch limits — each group in BLAS's order. A
//! valid call is the quick return BLAS takes or a column-major launch whose
//! sizes fit the kernel ABI.
//!
//! The oracle restates the rules from BLAS's definitions (which dimension a
//! stored matrix's rows run along, `(outer − 1) · ld + inner` elements),
//! without `GemmConfig`'s helpers; the draws favour the edges: negative and
//! zero sizes, leading dimensions one below their minimum, buffers one
//! element short, misaligned addresses, sizes past `i32::MAX` and products
//! that overflow 64 bits. Cases: 10,000 per element size (4, 8, 16 bytes).

use gemm_host::num_complex::Complex;
use gemm_host::validate::{BufferInfo, Buffers, Checked, MAX_DIM, QuickReturn, check};
use gemm_host::{Arg, Element, GemmConfig, KernelImage, Layout, Op};
use proptest::prelude::*;

/// A size: mostly small, often at an edge.
fn size() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => 0i64..40,
        1 => -5i64..0,
        1 => prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(MAX_DIM), Just(MAX_DIM + 1)],
        1 => (1i64 << 20)..(1i64 << 40),
    ]
}

/// A leading dimension relative to its minimum (computed once the sizes are
/// known), or an absolute bad or huge value.
#[derive(Clone, Copy, Debug)]
enum Ld {
    AtLeast(i64),
    OneBelow,
    Absolute(i64),
}

fn ld() -> impl Strategy<Value = Ld> {
    prop_oneof![
        6 => (0i64..8).prop_map(Ld::AtLeast),
        1 => Just(Ld::OneBelow),
        1 => prop_oneof![Just(0i64), -3i64..0, Just(i64::MIN), Just(i64::MAX), (1i64 << 32)..(1i64 << 62)]
            .prop_map(Ld::Absolute),
    ]
}

/// A buffer relative to what its matrix needs.
#[derive(Clone, Copy, Debug)]
enum Buf {
    Exact,
    Longer(usize),
    OneShort,
    Empty,
    Unsized,
}

fn buf() -> impl Strategy<Value = (Buf, bool)> {
    let len = prop_oneof![
        5 => Just(Buf::Exact),
        2 => (1usize..64).prop_map(Buf::Longer),
        1 => Just(Buf::OneShort),
        1 => Just(Buf::Empty),
        1 => Just(Buf::Unsized),
    ];
    // Misaligned one time in twelve.
    (len, prop::bool::weighted(1.0 / 12.0))
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![Just(Op::N), Just(Op::T), Just(Op::C)]
}

/// A scalar among 0, 1 and another value (quick returns depend on them).
fn scalar() -> impl Strategy<Value = u8> {
    0u8..3
}

#[derive(Clone, Debug)]
struct Call {
    row_major: bool,
    op_a: Op,
    op_b: Op,
    m: i64,
    n: i64,
    k: i64,
    alpha: u8,
    beta: u8,
    ld: [Ld; 3],
    bufs: [(Buf, bool); 3],
    kernel: Kernel,
}

/// What runs the call.
#[derive(Clone, Copy, Debug)]
enum Kernel {
    /// cuBLAS: no kernel to check against.
    None,
    /// The Table 2 kernel of the call's column-major ops.
    Matching,
    /// The Table 2 kernel of these ops (mostly the wrong ones).
    Of(Op, Op),
}

fn calls() -> impl Strategy<Value = Call> {
    (
        any::<bool>(),
        (op(), op()),
        (size(), size(), size()),
        (scalar(), scalar()),
        [ld(), ld(), ld()],
        [buf(), buf(), buf()],
        prop_oneof![4 => Just(Kernel::None), 5 => Just(Kernel::Matching), 1 => (op(), op()).prop_map(|(a, b)| Kernel::Of(a, b))],
    )
        .prop_map(|(row_major, (op_a, op_b), (m, n, k), (alpha, beta), ld, bufs, kernel)| Call {
            row_major,
            op_a,
            op_b,
            m,
            n,
            k,
            alpha,
            beta,
            ld,
            bufs,
            kernel,
        })
}

/// The stored shape of each matrix, `(inner, outer)`: the length of the
/// contiguous runs `ld` separates, and their count. Column-major A of
/// op N is m × k stored by columns (runs of m); row-major, by rows (runs of
/// k); a transposed op swaps the two.
fn stored(c: &Call) -> [(i64, i64); 3] {
    let (a_rows, a_cols) = if c.op_a == Op::N { (c.m, c.k) } else { (c.k, c.m) };
    let (b_rows, b_cols) = if c.op_b == Op::N { (c.k, c.n) } else { (c.n, c.k) };
    let col = [(a_rows, a_cols), (b_rows, b_cols), (c.m, c.n)];
    if c.row_major { col.map(|(rows, cols)| (cols, rows)) } else { col }
}

/// `(outer − 1) · ld + inner` elements, 0 for an empty matrix; saturated.
fn needed(inner: i64, outer: i64, ld: i64) -> u64 {
    if inner <= 0 || outer <= 0 {
        return 0;
    }
    let n = (outer as u128 - 1) * ld.max(1) as u128 + inner as u128;
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// What the checker must answer.
#[derive(Debug, PartialEq)]
enum Expect {
    Error(Arg),
    Skip(QuickReturn),
    /// Column-major m, n, k, lda, ldb, ldc and whether A and B swap.
    Launch([u64; 6], bool),
}

struct Built<T> {
    cfg: GemmConfig<T>,
    buffers: Buffers,
    kernel: Option<KernelImage>,
}

fn build<T: Element>(c: &Call) -> Built<T> {
    let shapes = stored(c);
    let lds: Vec<i64> = (0..3)
        .map(|i| {
            let min = shapes[i].0.max(1);
            match c.ld[i] {
                Ld::AtLeast(extra) => min.saturating_add(extra),
                Ld::OneBelow => min - 1,
                Ld::Absolute(v) => v,
            }
        })
        .collect();
    let value = |s: u8| match s {
        0 => T::ZERO,
        1 => T::ONE,
        _ => gemm_host::reference::narrow::<T>(Complex::new(2.5, -0.5)),
    };
    let layout = if c.row_major { Layout::RowMajor } else { Layout::ColMajor };
    let cfg = GemmConfig::<T>::with_layout(layout, c.op_a, c.op_b, c.m, c.n, c.k)
        .alpha(value(c.alpha))
        .beta(value(c.beta))
        .lda(lds[0])
        .ldb(lds[1])
        .ldc(lds[2]);
    let bytes = u64::from(T::PRECISION.element_bytes());
    let info = |i: usize| {
        let (len, misaligned) = c.bufs[i];
        let addr = 0x10_0000 * (i as u64 + 1) + if misaligned { bytes / 2 + 1 } else { 0 };
        let need = needed(shapes[i].0, shapes[i].1, lds[i]);
        let len = match len {
            Buf::Exact => need,
            Buf::Longer(extra) => need.saturating_add(extra as u64),
            Buf::OneShort => need.saturating_sub(1),
            Buf::Empty => 0,
            Buf::Unsized => return BufferInfo::unsized_at(addr),
        };
        BufferInfo::new(addr, usize::try_from(len).unwrap_or(usize::MAX))
    };
    let buffers = Buffers { a: info(0), b: info(1), c: info(2) };
    let (first, second) = column_major_ops(c);
    let kernel = match c.kernel {
        Kernel::None => None,
        Kernel::Matching => Some(gemm_kernels::table2(T::PRECISION, first, second).image()),
        Kernel::Of(a, b) => Some(gemm_kernels::table2(T::PRECISION, a, b).image()),
    };
    Built { cfg, buffers, kernel }
}

/// The ops of the column-major call: a row-major call runs as
/// `Cᵀ = op(B)ᵀ op(A)ᵀ`, whose first operand is the caller's B.
fn column_major_ops(c: &Call) -> (Op, Op) {
    if c.row_major { (c.op_b, c.op_a) } else { (c.op_a, c.op_b) }
}

/// The oracle.
fn expect<T: Element>(c: &Call, b: &Built<T>) -> Expect {
    let p = T::PRECISION;
    let lds = [b.cfg.lda, b.cfg.ldb, b.cfg.ldc];
    let (first, second) = column_major_ops(c);
    if let Some(image) = &b.kernel {
        let have = image.requires().ops;
        let needed = (first.effective(p), second.effective(p));
        if needed != have {
            let first_wrong = needed.0 != have.0;
            return Expect::Error(match (first_wrong, c.row_major) {
                (true, false) | (false, true) => Arg::OpA,
                _ => Arg::OpB,
            });
        }
    }
    for (arg, v) in [(Arg::M, c.m), (Arg::N, c.n), (Arg::K, c.k)] {
        if v < 0 {
            return Expect::Error(arg);
        }
    }
    let shapes = stored(c);
    for (i, arg) in [Arg::Lda, Arg::Ldb, Arg::Ldc].into_iter().enumerate() {
        if lds[i] < shapes[i].0.max(1) {
            return Expect::Error(arg);
        }
    }
    let infos = [b.buffers.a, b.buffers.b, b.buffers.c];
    for (i, arg) in [Arg::A, Arg::B, Arg::C].into_iter().enumerate() {
        if let Some(len) = infos[i].len
            && (len as u64) < needed(shapes[i].0, shapes[i].1, lds[i])
        {
            return Expect::Error(arg);
        }
    }
    for (i, arg) in [Arg::A, Arg::B, Arg::C].into_iter().enumerate() {
        if !infos[i].addr.is_multiple_of(u64::from(p.element_bytes())) {
            return Expect::Error(arg);
        }
    }
    if c.m == 0 || c.n == 0 {
        return Expect::Skip(QuickReturn::EmptyC);
    }
    let no_product = c.alpha == 0 || c.k == 0;
    if no_product && c.beta == 1 {
        return Expect::Skip(QuickReturn::NoUpdate);
    }
    for (arg, v) in [(Arg::M, c.m), (Arg::N, c.n), (Arg::K, c.k)] {
        if v > i64::from(i32::MAX) {
            return Expect::Error(arg);
        }
    }
    let (m, n) = if c.row_major { (c.n, c.m) } else { (c.m, c.n) };
    if let Some(image) = &b.kernel
        && let Err(o) = image.launch().grid(m as u32, n as u32)
    {
        // Grid x runs along the kernel's m: the caller's n when swapped.
        let along_m = o.axis == 'x';
        return Expect::Error(if along_m != c.row_major { Arg::M } else { Arg::N });
    }
    let (lda, ldb) = if c.row_major { (lds[1], lds[0]) } else { (lds[0], lds[1]) };
    let k = if no_product { 0 } else { c.k };
    Expect::Launch([m, n, k, lda, ldb, lds[2]].map(|v| v as u64), c.row_major)
}

fn holds<T: Element>(c: &Call) -> Result<(), TestCaseError> {
    let b = build::<T>(c);
    let want = expect(c, &b);
    let got = match check(&b.cfg, &b.buffers, b.kernel.as_ref()) {
        Err(e) => {
            // The message names the argument it blames.
            prop_assert!(e.to_string().contains(&format!("`{}`", e.arg().name())), "{e}");
            Expect::Error(e.arg())
        }
        Ok(Checked::Skip(q)) => Expect::Skip(q),
        Ok(Checked::Launch(l)) => {
            prop_assert_eq!((l.op_a, l.op_b), column_major_ops(c));
            prop_assert_eq!(l.grid.is_some(), b.kernel.is_some());
            if l.k == 0 {
                prop_assert!(l.alpha == T::ZERO, "no product: alpha is 0");
            }
            let (m, n, k) = (u64::from(l.m), u64::from(l.n), u64::from(l.k));
            Expect::Launch([m, n, k, l.lda, l.ldb, l.ldc], l.swap_ab)
        }
    };
    prop_assert_eq!(got, want, "{:?}", c);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn sgemm_arguments_are_checked_in_blas_order(c in calls()) {
        holds::<f32>(&c)?;
    }

    #[test]
    fn cgemm_arguments_are_checked_in_blas_order(c in calls()) {
        holds::<Complex<f32>>(&c)?;
    }

    #[test]
    fn zgemm_arguments_are_checked_in_blas_order(c in calls()) {
        holds::<Complex<f64>>(&c)?;
    }
}

/// The draws reach every outcome the oracle knows: each argument blamed,
/// both quick returns, and launches.
#[test]
fn the_draws_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let label = |e: &Expect| match e {
        Expect::Error(arg) => arg.name().to_owned(),
        Expect::Skip(q) => format!("{q:?}"),
        Expect::Launch(..) => "launch".to_owned(),
    };
    let mut runner = TestRunner::deterministic();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..20_000 {
        let c = calls().new_tree(&mut runner).expect("a draw").current();
        *seen.entry(label(&expect(&c, &build::<f32>(&c)))).or_default() += 1;
    }
    let args =
        [Arg::OpA, Arg::OpB, Arg::M, Arg::N, Arg::K, Arg::Lda, Arg::Ldb, Arg::Ldc, Arg::A, Arg::B, Arg::C];
    let mut want: Vec<String> = args.iter().map(|a| a.name().to_owned()).collect();
    want.extend(["EmptyC", "NoUpdate", "launch"].map(str::to_owned));
    for w in want {
        assert!(seen.get(&w).is_some_and(|&n| n >= 20), "{w} drawn fewer than 20 times: {seen:?}");
    }
}
