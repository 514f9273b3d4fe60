//! Kernels with swapped operands (`operands = ba`: the kernel computes
//! `Cᵀ = op(B)ᵀ · op(A)ᵀ`, B as its first operand, and stores its tile
//! transposed) run without a GPU, through the public [`Emulator`] and the
//! ABI every caller uses: each is the kernel of the transposed product
//! (its tile, threads and loads that product's) given the call's `op`.
//! Register-staged and ring FMA kernels (runs of one and two rows: the
//! element path and the transposed vector path of the epilogue), DMMA, and
//! the TF32 `wgmma` kernels that read the kernel's A from registers with
//! TMA copies, on ragged shapes checked by [`Case`] against the f64
//! reference; then batches, split K and stream-K, exactly; then the
//! transposed store's typical mistakes, each caught.

use gemm_codegen::abi::{Matrix as AbiMatrix, Role};
use gemm_codegen::{KernelSpec, Op, Operands};
use gemm_host::case::Case;
use gemm_host::emulate::Emulator;
use gemm_host::reference::Random;
use gemm_host::validate::StridedBatch;
use gemm_host::{Element, GemmConfig, Matrix};

use crate::emulated_wgmma::{OPS, image, shapes};

/// The kernel with swapped operands that runs `kernel` (a spec of the
/// transposed product, its ops that product's) for the call `op(A)·op(B)`:
/// `op = (op_bᵀ, op_aᵀ)` of the kernel's, `operands = ba`.
fn swapped(kernel: KernelSpec) -> KernelSpec {
    KernelSpec {
        op_a: kernel.op_b.transposed(),
        op_b: kernel.op_a.transposed(),
        operands: Operands::Ba,
        ..kernel
    }
}

/// A 32 × 32 × 8 FMA spec of `precision` for the kernel ops `op`, runs of
/// `lds_width` rows, copies of `ldg_width` elements, and `extra`
/// parameters.
fn fma(precision: &str, op: (Op, Op), lds_width: u32, ldg_width: u32, extra: &str) -> KernelSpec {
    // Stripes of 32 along M or N, 8 along K, read by 64 threads.
    let load = |lead_is_free: bool| {
        let lead = if lead_is_free { 32 } else { 8 } / ldg_width;
        (lead, 64 / lead)
    };
    let (la, lb) = (load(op.0 == Op::N), load(op.1 != Op::N));
    let text = format!(
        "precision = {precision}, op = ({:?}, {:?}), tile = (32, 32, 8), threads = (8, 8), \
         load_a = ({}, {}), load_b = ({}, {}), lds_width = {lds_width}, ldg_width = {ldg_width}{extra}",
        op.0, op.1, la.0, la.1, lb.0, lb.1
    );
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Runs the swapped twin of each spec `kernel(op)` over every real op pair
/// on ragged shapes (beta 0, 1 and random; leading dimensions padded).
fn every_op_pair<T: Element>(what: &str, kernel: impl Fn((Op, Op)) -> KernelSpec) {
    let emulator = Emulator::new();
    let mut rng = Random::new(17);
    let (mut cases, mut failures) = (0, Vec::new());
    for kernel_op in OPS {
        let image = image(&swapped(kernel(kernel_op)));
        let (op_a, op_b) = (image.spec.op_a, image.spec.op_b);
        assert_eq!((image.spec.kernel_op_a(), image.spec.kernel_op_b()), kernel_op, "{}", image.spec);
        for (i, (m, n, k)) in shapes((32, 32, 8)).into_iter().chain([(45, 70, 61), (64, 32, 16)]).enumerate()
        {
            let beta = [T::ZERO, T::ONE, rng.scalar()][i % 3];
            let cfg = GemmConfig::<T>::new(op_a, op_b, m, n, k).alpha(rng.scalar()).beta(beta);
            let cfg = if i % 2 == 0 {
                cfg
            } else {
                cfg.lda(cfg.min_ld(Matrix::A) + 3)
                    .ldb(cfg.min_ld(Matrix::B) + 1)
                    .ldc(cfg.min_ld(Matrix::C) + 2)
            };
            cases += 1;
            if let Err(e) = Case::random(cfg, &mut rng).emulate(&emulator, &image) {
                failures.push(format!("{what} {op_a:?}{op_b:?}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{what}, operands swapped: {cases} emulated cases passed");
}

#[test]
fn register_staged_fma_every_op_pair() {
    every_op_pair::<f64>("f64 fma", |op| fma("f64", op, 1, 1, ""));
    every_op_pair::<f32>("f32 fma, runs of 2", |op| fma("f32", op, 2, 1, ""));
}

#[test]
fn ring_and_dmma_every_op_pair() {
    every_op_pair::<f32>("f32 ring, runs of 4", |op| fma("f32", op, 4, 4, ", arch = sm_80, stages = 3"));
    every_op_pair::<f64>("f64 dmma", |op| {
        let load = |lead_is_free: bool| if lead_is_free { (16, 8) } else { (4, 32) };
        let (la, lb) = (load(op.0 == Op::N), load(op.1 != Op::N));
        let text = format!(
            "precision = f64, op = ({:?}, {:?}), tile = (32, 32, 8), threads = (16, 8), load_a = ({}, {}), \
             load_b = ({}, {}), lds_width = 2, arch = sm_90, stages = 2, warps = (2, 2), math = dmma, \
             mma = (16, 8, 4)",
            op.0, op.1, la.0, la.1, lb.0, lb.1
        );
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    });
}

/// TT as the kernel NN with TMA: the kernel's A (the call's B, its N
/// leading) loaded from the ring into registers, its B (the call's A) read
/// by `wgmma` in place; and every other op pair the same way. Even cases
/// run the TMA kernel, odd ones its twin.
#[test]
fn tf32_wgmma_reads_the_call_s_b_from_registers() {
    let kernel = |op| crate::emulated_tma::tma_spec_of::<f32>(op, "tf32", (64, 64, 32), 64, 3);
    let tt = swapped(kernel((Op::N, Op::N)));
    assert_eq!((tt.op_a, tt.op_b), (Op::T, Op::T));
    assert!(gemm_codegen::constraints::wgmma_a_regs(&tt), "{tt}: the kernel's A from registers");
    let emulator = Emulator::new();
    let mut rng = Random::new(23);
    let (mut cases, mut failures) = (0, Vec::new());
    for op in OPS {
        let image = image(&swapped(kernel(op)));
        assert!(image.abi().has_tensor_maps(), "{}", image.spec);
        let what = format!("tf32 kernel {op:?}");
        cases += crate::emulated_tma::ragged::<f32>(
            &emulator,
            &image,
            (64, 64, 32),
            &mut rng,
            &mut failures,
            &what,
        );
    }
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

/// The ABI trades the operands' roles and the launch the grid's axes: the
/// PTX's `a` carries the call's B, its `m` the call's n.
#[test]
fn the_abi_and_the_grid_are_the_transposed_product_s() {
    let plain = image(&fma("f64", (Op::N, Op::T), 1, 1, ""));
    let image = image(&swapped(plain.spec));
    let role = |name: &str| image.abi().params().iter().find(|p| p.name == name).map(|p| p.role);
    assert_eq!(role("a"), Some(Role::Pointer(AbiMatrix::B)));
    assert_eq!(role("lda"), Some(Role::Lead(AbiMatrix::B)));
    assert_eq!(role("stride_b"), Some(Role::BatchStride(AbiMatrix::A)));
    assert_eq!(role("m"), Some(Role::Extent(gemm_codegen::abi::Dim::N)));
    assert_eq!(role("c"), Some(Role::Pointer(AbiMatrix::C)));
    assert_eq!(image.abi().signature(), plain.abi().signature(), "the same parameters");
    assert_eq!(image.launch().grid(100, 33), plain.launch().grid(33, 100));
    assert!(image.ptx.contains("Operands swapped (operands = ba)"), "the header says so");
}

/// Exact integer inputs: a strided batch, a split K and stream-K grids
/// give C bit for bit as the naive product does.
#[test]
fn batches_split_k_and_stream_k_exactly() {
    let image = image(&swapped(fma("f64", (Op::T, Op::N), 1, 1, "")));
    let (op_a, op_b) = (image.spec.op_a, image.spec.op_b);
    assert_eq!((op_a, op_b), (Op::T, Op::N));
    let emulator = Emulator::new();
    let (m, n, k, count) = (45usize, 38usize, 27usize, 3usize);
    let cfg = GemmConfig::<f64>::new(op_a, op_b, m as i64, n as i64, k as i64).alpha(2.0).beta(-1.0);
    // A is k × m (lda = k), B is k × n (ldb = k): small integers.
    let (sa, sb, sc) = (k * m, k * n, m * n);
    let a: Vec<f64> = (0..count * sa).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    let b: Vec<f64> = (0..count * sb).map(|i| ((i * 5) % 13) as f64 - 6.0).collect();
    let c0: Vec<f64> = (0..count * sc).map(|i| ((i * 3) % 7) as f64).collect();
    let expected = |z: usize| -> Vec<f64> {
        let mut c = c0[z * sc..(z + 1) * sc].to_vec();
        for j in 0..n {
            for i in 0..m {
                let dot: f64 = (0..k).map(|l| a[z * sa + l + i * k] * b[z * sb + l + j * k]).sum();
                c[i + j * m] = 2.0 * dot - c[i + j * m];
            }
        }
        c
    };
    let batch =
        StridedBatch { count: count as i64, stride_a: sa as i64, stride_b: sb as i64, stride_c: sc as i64 };
    let mut c = c0.clone();
    emulator.gemm_strided_batched(&image, &cfg, &batch, &a, &b, &mut c).unwrap();
    for z in 0..count {
        assert_eq!(c[z * sc..(z + 1) * sc], expected(z)[..], "problem {z} of the batch");
    }
    let mut c = c0[..sc].to_vec();
    emulator.gemm_split_k(&image, &cfg, 3, &a[..sa], &b[..sb], &mut c).unwrap();
    assert_eq!(c, expected(0), "split K in 3");

    let stream_k =
        gemm_codegen::compile(&KernelSpec { schedule: gemm_codegen::Schedule::StreamK, ..image.spec })
            .unwrap_or_else(|v| panic!("{v:?}"));
    for blocks in [1, 3, 13, 1000] {
        let mut c = c0[..sc].to_vec();
        emulator.gemm_stream_k(&stream_k, &cfg, blocks, &a[..sa], &b[..sb], &mut c).unwrap();
        assert_eq!(c, expected(0), "stream-K over {blocks} blocks");
    }
}

/// The one order that would need an op no kernel has: a conjugated operand
/// of the transposed product. Named on `operands`.
#[test]
fn a_conjugating_op_cannot_be_swapped() {
    let spec = |op| KernelSpec {
        operands: Operands::Ba,
        ..KernelSpec::new(gemm_codegen::Precision::C64, op, (32, 32, 8), (8, 8), (8, 8), (8, 8))
    };
    let err = gemm_codegen::validate(&spec((Op::C, Op::T))).unwrap_err();
    assert!(
        err.iter()
            .any(|v| v.rule == gemm_codegen::constraints::Rule::Operands && v.at.field.name() == "operands"),
        "{err:?}"
    );
    assert!(gemm_codegen::validate(&spec((Op::T, Op::N))).is_ok(), "T and N swap on complex types too");
}

/// The transposed store's typical mistakes, made in the PTX of a correct
/// TT kernel with swapped operands: each must fail in the emulator (a
/// wrong C, or a store outside C's guards), never pass.
#[test]
fn mistakes_in_the_transposed_store_are_caught() {
    let good = image(&swapped(fma("f64", (Op::N, Op::N), 1, 1, "")));
    let cfg = GemmConfig::<f64>::new(Op::T, Op::T, 45, 70, 61).alpha(1.5).beta(0.5);
    crate::emulated_specialized::caught_edits(
        &good,
        cfg.ldc(47),
        &[
            (
                "the product's tile stored as it is: its rows taken for C's rows",
                &[
                    ("mad.lo.u32\t%c_col0, %tx, 1, %blk_m0;", "mad.lo.u32\t%c_row0, %tx, 1, %blk_m0;"),
                    ("mad.lo.u32\t%c_row0, %ty, 1, %blk_n0;", "mad.lo.u32\t%c_col0, %ty, 1, %blk_n0;"),
                ],
            ),
            (
                "C's rows bounded by the kernel's m: the call's n",
                &[("sub.s32\t%c_row_lim, %n, %c_row0;", "sub.s32\t%c_row_lim, %m, %c_row0;")],
            ),
        ],
    );
}
