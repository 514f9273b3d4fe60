//! Strided batches and split K, run without a GPU: the emulator path of
//! [`Emulator::gemm_strided_batched`] and [`Emulator::gemm_split_k`], which
//! lays out launches exactly as the GPU path does (one grid of problems per
//! chunk, the kernel ABI's batch strides and `k_last`), checked like any
//! case by [`Case::check`]: each problem's guarded buffers are laid end to
//! end, so a problem that writes past its C, or reads the wrong problem's
//! A, fails its own check.

use gemm_codegen::{Element, KernelImage, Op, Precision};
use gemm_host::case::{Case, GUARD};
use gemm_host::emulate::Emulator;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::validate::{Arg, ArgError, StridedBatch};
use gemm_host::{GemmConfig, GemmError, Layout, Matrix};

/// `count` random problems of `cfg` run as one strided batch by `image`;
/// each checked against its own reference.
fn batch<T: Element>(
    image: &KernelImage,
    cfg: GemmConfig<T>,
    count: usize,
    rng: &mut Random,
) -> Result<(), String> {
    let cases: Vec<Case<T>> = (0..count).map(|_| Case::random(cfg, rng)).collect();
    let joined = |x: Matrix| -> Vec<T> { cases.iter().flat_map(|c| c.guarded(x).to_vec()).collect() };
    let (a, b, mut c) = (joined(Matrix::A), joined(Matrix::B), joined(Matrix::C));
    let stride = |x: Matrix| cases[0].guarded(x).len();
    let strides = StridedBatch {
        count: count as i64,
        stride_a: stride(Matrix::A) as i64,
        stride_b: stride(Matrix::B) as i64,
        stride_c: stride(Matrix::C) as i64,
    };
    let inner = |v: &[T]| GUARD..v.len() - GUARD;
    let c_part = inner(&c);
    Emulator::new()
        .gemm_strided_batched(image, &cfg, &strides, &a[inner(&a)], &b[inner(&b)], &mut c[c_part])
        .map_err(|e| format!("{}: {e}", gemm_host::case::describe(&cfg)))?;
    for (i, case) in cases.iter().enumerate() {
        let part = |x: Matrix, v: &[T]| v[i * stride(x)..(i + 1) * stride(x)].to_vec();
        case.check(&part(Matrix::A, &a), &part(Matrix::B, &b), &part(Matrix::C, &c), image.spec.math)
            .map_err(|e| format!("problem {i} of {count}: {e}"))?;
    }
    Ok(())
}

/// A random problem of `cfg` split into `slices`; checked, and run twice
/// for bitwise equality.
fn split<T: Element>(
    image: &KernelImage,
    cfg: GemmConfig<T>,
    slices: u32,
    rng: &mut Random,
) -> Result<(), String> {
    let case = Case::random(cfg, rng);
    let run = || {
        let mut c = case.guarded(Matrix::C).to_vec();
        let len = c.len();
        Emulator::new()
            .gemm_split_k(
                image,
                &cfg,
                slices,
                case.input(Matrix::A),
                case.input(Matrix::B),
                &mut c[GUARD..len - GUARD],
            )
            .map(|_| c)
            .map_err(|e| format!("{} in {slices} slices: {e}", gemm_host::case::describe(&cfg)))
    };
    let (first, second) = (run()?, run()?);
    let bits = |v: &[T]| v.iter().map(|&x| gemm_host::reference::to_bits(x)).collect::<Vec<_>>();
    if bits(&first) != bits(&second) {
        return Err(format!("{}: two runs differ", gemm_host::case::describe(&cfg)));
    }
    case.check(case.guarded(Matrix::A), case.guarded(Matrix::B), &first, image.spec.math)
        .map(|_| ())
        .map_err(|e| format!("{slices} slices: {e}"))
}

fn table2<T: Element>(op_a: Op, op_b: Op) -> KernelImage {
    gemm_kernels::table2(T::PRECISION, op_a, op_b).image()
}

fn shapes_and_ops<T: Element>(
    seed: u64,
    run: impl Fn(&KernelImage, GemmConfig<T>, &mut Random) -> Result<(), String>,
) {
    let mut rng = Random::new(seed);
    let mut failures = Vec::new();
    let ops = if T::PRECISION.is_complex() { [Op::N, Op::T, Op::C] } else { [Op::N, Op::T, Op::T] };
    for (i, &(op_a, op_b)) in
        [(ops[0], ops[0]), (ops[0], ops[1]), (ops[1], ops[0]), (ops[2], ops[2])].iter().enumerate()
    {
        let image = table2::<T>(op_a, op_b);
        let (m, n, k) = [(37, 29, 300), (1, 70, 129), (65, 3, 64), (20, 20, 1000)][i];
        let extra = i as i64 % 2;
        let cfg = GemmConfig::new(op_a, op_b, m, n, k).alpha(rng.scalar()).beta(if i == 2 {
            T::ZERO
        } else {
            rng.scalar()
        });
        let cfg = cfg.lda(cfg.min_ld(Matrix::A) + extra).ldc(cfg.min_ld(Matrix::C) + 3 * extra);
        if let Err(e) = run(&image, cfg, &mut rng) {
            failures.push(e);
        }
        // Row-major: the kernel of the swapped ops, A and B swapped.
        let row = GemmConfig::<T>::with_layout(Layout::RowMajor, op_b, op_a, n, m, k)
            .alpha(rng.scalar())
            .beta(rng.scalar());
        if let Err(e) = run(&image, row, &mut rng) {
            failures.push(format!("row-major: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn strided_batches_of_every_precision() {
    shapes_and_ops::<f32>(11, |image, cfg, rng| batch(image, cfg, 3, rng));
    shapes_and_ops::<f64>(12, |image, cfg, rng| batch(image, cfg, 2, rng));
    shapes_and_ops::<Complex<f32>>(13, |image, cfg, rng| batch(image, cfg, 2, rng));
    shapes_and_ops::<Complex<f64>>(14, |image, cfg, rng| batch(image, cfg, 2, rng));
}

#[test]
fn split_k_of_every_precision_is_correct_and_deterministic() {
    for slices in [2, 5] {
        shapes_and_ops::<f32>(21, |image, cfg, rng| split(image, cfg, slices, rng));
        shapes_and_ops::<Complex<f64>>(22, |image, cfg, rng| split(image, cfg, slices, rng));
    }
    shapes_and_ops::<f64>(23, |image, cfg, rng| split(image, cfg, 3, rng));
    shapes_and_ops::<Complex<f32>>(24, |image, cfg, rng| split(image, cfg, 3, rng));
}

/// The tensor-core families take the batch the same way: a shipped sm_90
/// DMMA kernel and a tf32x3 one, batched and split.
#[test]
fn tensor_core_kernels_batch_and_split() {
    let mut rng = Random::new(31);
    for precision in [Precision::F64, Precision::F32] {
        let entry = gemm_kernels::tuned_kernels(90, precision, Op::N, Op::N)
            .into_iter()
            .min_by_key(|e| e.spec.m_blk * e.spec.n_blk)
            .expect("sm_90 has tuned NN kernels");
        let image = entry.image();
        let (m, n) = (i64::from(entry.spec.m_blk) + 3, 5);
        let k = 4 * i64::from(entry.spec.k_blk) + 33;
        let outcome = if precision == Precision::F64 {
            let cfg = GemmConfig::<f64>::new(Op::N, Op::N, m, n, k).alpha(rng.scalar()).beta(rng.scalar());
            batch(&image, cfg, 2, &mut rng).and_then(|()| split(&image, cfg, 3, &mut rng))
        } else {
            let cfg = GemmConfig::<f32>::new(Op::N, Op::N, m, n, k).alpha(rng.scalar()).beta(0.0);
            batch(&image, cfg, 2, &mut rng).and_then(|()| split(&image, cfg, 3, &mut rng))
        };
        outcome.unwrap_or_else(|e| panic!("{}: {e}", entry.name));
    }
}

/// Mutations of the batch prologue: the emulator's run of the resulting
/// kernel fails the checks. Without `k_last` the last slice of a split K
/// reads past K; without C's batch offset every problem writes problem 0's C.
#[test]
fn a_kernel_that_ignores_the_batch_is_caught() {
    let mut rng = Random::new(41);
    let image = table2::<f32>(Op::N, Op::N);
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 19, 11, 200).alpha(1.5).beta(0.5);
    for (what, from, to) in [
        ("k_last", "selp.u32\t%k, %k_last, %k, %p_last_problem;", ""),
        ("C's offset", "mad.lo.u64\t%c_ptr, %c_problem_idx, %c_stride, %c_ptr;", ""),
    ] {
        let mut broken = image.clone();
        let ptx = broken.ptx.replacen(from, to, 1);
        assert!(ptx != broken.ptx, "the kernel has `{from}`");
        broken.ptx = ptx.into();
        let split_err = split(&broken, cfg, 3, &mut rng);
        let batch_err = batch(&broken, cfg, 3, &mut rng);
        assert!(split_err.is_err() || batch_err.is_err(), "without {what} both passed");
        assert!(split(&image, cfg, 3, &mut rng).is_ok() && batch(&image, cfg, 3, &mut rng).is_ok());
    }
}

#[test]
fn bad_batches_are_typed_errors_and_leave_c_alone() {
    let image = table2::<f32>(Op::N, Op::N);
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 4, 3, 2);
    let e = Emulator::new();
    let (a, b) = (vec![1f32; 64], vec![1f32; 64]);
    let mut c = vec![7f32; 64];
    let packed = StridedBatch::packed(&cfg, 4);
    let cases = [
        (StridedBatch { count: -1, ..packed }, Arg::BatchCount),
        (StridedBatch { stride_b: -6, ..packed }, Arg::StrideB),
        (StridedBatch { stride_c: 11, ..packed }, Arg::StrideC),
        (StridedBatch { count: 9, ..packed }, Arg::A),
        (StridedBatch { stride_c: 20, ..packed }, Arg::C),
    ];
    for (batch, arg) in cases {
        let err = e.gemm_strided_batched(&image, &cfg, &batch, &a, &b, &mut c).unwrap_err();
        let GemmError::Arg(got) = &err else { panic!("{batch:?}: {err}") };
        assert_eq!(got.arg(), arg, "{batch:?}: {err}");
        assert!(c.iter().all(|&x| x == 7.0), "{batch:?}");
    }
    let overlap = StridedBatch { stride_c: 11, ..packed };
    let err = e.gemm_strided_batched(&image, &cfg, &overlap, &a, &b, &mut c).unwrap_err();
    assert!(matches!(err.as_arg(), Some(ArgError::BatchOverlap { problem: 1, .. })), "{err}");
    // Interleaved Cs whose columns alternate are disjoint: allowed.
    let interleaved = StridedBatch { stride_c: 4, ..packed };
    let cfg = cfg.ldc(16);
    e.gemm_strided_batched(&image, &cfg, &interleaved, &a, &b, &mut c).unwrap();
    assert!(c[..44].iter().all(|&x| x == 2.0), "{c:?}");
    // An empty batch launches nothing.
    let mut untouched = vec![7f32; 64];
    e.gemm_strided_batched(&image, &cfg, &StridedBatch { count: 0, ..packed }, &a, &b, &mut untouched)
        .unwrap();
    assert!(untouched.iter().all(|&x| x == 7.0));
}

/// `count` random problems of `cfg`, each in its own buffers, run as one
/// pointer-array batch by `image`; each checked against its own reference
/// with its guards.
fn arrays<T: Element>(
    image: &KernelImage,
    cfg: GemmConfig<T>,
    count: usize,
    rng: &mut Random,
) -> Result<(), String> {
    let cases: Vec<Case<T>> = (0..count).map(|_| Case::random(cfg, rng)).collect();
    let a: Vec<&[T]> = cases.iter().map(|c| c.input(Matrix::A)).collect();
    let b: Vec<&[T]> = cases.iter().map(|c| c.input(Matrix::B)).collect();
    let mut guarded: Vec<Vec<T>> = cases.iter().map(|c| c.guarded(Matrix::C).to_vec()).collect();
    let mut c: Vec<&mut [T]> = guarded
        .iter_mut()
        .map(|v| {
            let len = v.len();
            &mut v[GUARD..len - GUARD]
        })
        .collect();
    Emulator::new()
        .gemm_batched(image, &cfg, &a, &b, &mut c)
        .map_err(|e| format!("{}: {e}", gemm_host::case::describe(&cfg)))?;
    for (i, (case, out)) in cases.iter().zip(&guarded).enumerate() {
        case.check(case.guarded(Matrix::A), case.guarded(Matrix::B), out, image.spec.math)
            .map_err(|e| format!("problem {i} of {count}: {e}"))?;
    }
    Ok(())
}

#[test]
fn pointer_array_batches_of_every_precision() {
    shapes_and_ops::<f32>(51, |image, cfg, rng| arrays(image, cfg, 3, rng));
    shapes_and_ops::<f64>(52, |image, cfg, rng| arrays(image, cfg, 2, rng));
    shapes_and_ops::<Complex<f32>>(53, |image, cfg, rng| arrays(image, cfg, 2, rng));
    shapes_and_ops::<Complex<f64>>(54, |image, cfg, rng| arrays(image, cfg, 2, rng));
}

/// The kernel's pointer slots are 8 bytes apart: read 4 apart, a problem
/// takes half of one pointer and half of the next (a fault), or problem 0's.
#[test]
fn a_kernel_that_misreads_the_pointer_arrays_is_caught() {
    let mut rng = Random::new(55);
    let image = table2::<f64>(Op::N, Op::N);
    let cfg = GemmConfig::<f64>::new(Op::N, Op::N, 9, 7, 13).alpha(1.5).beta(0.5);
    assert!(arrays(&image, cfg, 3, &mut rng).is_ok());
    let mut broken = image.clone();
    let ptx = broken.ptx.replace("%problem_idx, 8, %a_ptr;", "%problem_idx, 4, %a_ptr;");
    assert!(ptx != broken.ptx, "the kernel reads A's pointer slot");
    broken.ptx = ptx.into();
    assert!(arrays(&broken, cfg, 3, &mut rng).is_err(), "a misread pointer array passed");
}

#[test]
fn bad_pointer_arrays_are_typed_errors_and_leave_c_alone() {
    let image = table2::<f32>(Op::N, Op::N);
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 4, 3, 2);
    let e = Emulator::new();
    let (a, b, short) = (vec![1f32; 8], vec![1f32; 6], vec![1f32; 5]);
    let mut c0 = vec![7f32; 12];
    let mut c1 = vec![7f32; 12];
    let err = e.gemm_batched(&image, &cfg, &[&a, &a], &[&b], &mut [&mut c0[..], &mut c1[..]]).unwrap_err();
    assert!(matches!(err.as_arg(), Some(ArgError::BatchArrays { arg: Arg::B, len: 1, count: 2 })), "{err}");
    let err =
        e.gemm_batched(&image, &cfg, &[&a, &a], &[&b, &short], &mut [&mut c0[..], &mut c1[..]]).unwrap_err();
    let Some(ArgError::Problem { problem: 1, error }) = err.as_arg() else { panic!("{err}") };
    assert!(matches!(**error, ArgError::BufferTooShort { arg: Arg::B, .. }), "{err}");
    assert!(err.to_string().starts_with("problem 1 of the batch: argument `b`"), "{err}");
    assert!(c0.iter().chain(&c1).all(|&x| x == 7.0));
    e.gemm_batched(&image, &cfg, &[&a, &a], &[&b, &b], &mut [&mut c0[..], &mut c1[..]]).unwrap();
    assert!(c0.iter().chain(&c1).all(|&x| x == 2.0), "{c0:?} {c1:?}");
}
