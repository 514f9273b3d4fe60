//! The pipeline parameters of the stencil (`ldg_width`, `warps`, `raster`,
//! `stages`, `arch`, `unroll`, `frag_sets`, `interleave`, `c_batch`) in the emulator: each spec on the ragged shapes of
//! every dimension, against the f64 reference, with every safety check on.

use crate::common as emu_common;

use emu_common::check_all;
use gemm_codegen::{KernelSpec, Op, Precision, Target, WarpShape};

/// A 64 × 64 × 8 tile on 16 × 8 threads, 4 × 8 elements of C each: small
/// enough for every ragged shape to run quickly, with runs of 4 that fit
/// both stripes (`load_b = (2, 64)` for B's K-leading stripe).
fn base(precision: Precision, ops: (Op, Op)) -> KernelSpec {
    let (a_lead_k, b_lead_k) = (ops.0 != Op::N, ops.1 == Op::N);
    let load = |lead_is_k: bool| if lead_is_k { (2, 64) } else { (16, 8) };
    KernelSpec::new(precision, ops, (64, 64, 8), (16, 8), load(a_lead_k), load(b_lead_k))
}

fn run_all(specs: &[KernelSpec]) {
    check_all(specs, 1000);
}

#[test]
fn vector_global_loads_of_every_width() {
    let mut specs = Vec::new();
    for ops in [(Op::N, Op::N), (Op::T, Op::T), (Op::N, Op::T), (Op::T, Op::N)] {
        for (precision, widths) in
            [(Precision::F32, &[2, 4][..]), (Precision::F64, &[2]), (Precision::C32, &[2])]
        {
            for &w in widths {
                specs.push(KernelSpec { ldg_width: w, ..base(precision, ops) });
            }
        }
    }
    // Conjugated complex operands.
    specs.push(KernelSpec { ldg_width: 2, ..base(Precision::C32, (Op::C, Op::C)) });
    run_all(&specs);
}

#[test]
fn warp_arrangements_and_rasterized_grids() {
    let mut specs = Vec::new();
    for (wm, wn) in [(2, 2), (1, 4), (4, 1)] {
        let warps = Some(WarpShape { m: wm, n: wn });
        specs.push(KernelSpec { warps, ..base(Precision::F32, (Op::N, Op::T)) });
    }
    for raster in [2, 3, 8] {
        specs.push(KernelSpec { raster, ..base(Precision::F64, (Op::T, Op::N)) });
        specs.push(KernelSpec { raster, lds_width: 2, ..base(Precision::C32, (Op::N, Op::C)) });
    }
    let all = KernelSpec {
        warps: Some(WarpShape { m: 2, n: 2 }),
        raster: 4,
        unroll: None,
        frag_sets: 1,
        ldg_width: 4,
        lds_width: 4,
        arch: Target::Sm80,
        ..base(Precision::F32, (Op::N, Op::N))
    };
    specs.push(all);
    run_all(&specs);
}

#[test]
fn cp_async_rings_of_every_depth() {
    let mut specs = Vec::new();
    for stages in [2, 3, 4] {
        for ops in [(Op::N, Op::N), (Op::T, Op::T), (Op::N, Op::T), (Op::T, Op::N)] {
            let s = KernelSpec { arch: Target::Sm80, stages, ..base(Precision::F32, ops) };
            specs.push(s);
            specs.push(KernelSpec { ldg_width: 4, lds_width: 4, ..s });
        }
    }
    for (precision, ldg_width) in [(Precision::F64, 2), (Precision::C32, 2), (Precision::C64, 1)] {
        for ops in [(Op::N, Op::C), (Op::C, Op::N), (Op::C, Op::C), (Op::T, Op::N)] {
            specs.push(KernelSpec { arch: Target::Sm90, stages: 3, ldg_width, ..base(precision, ops) });
        }
    }
    // Everything at once.
    specs.push(KernelSpec {
        arch: Target::Sm90,
        stages: 4,
        ldg_width: 4,
        lds_width: 4,
        warps: Some(WarpShape { m: 2, n: 2 }),
        raster: 3,
        unroll: None,
        frag_sets: 1,
        ..base(Precision::F32, (Op::T, Op::N))
    });
    run_all(&specs);
}

/// The inner product walks the stripe in a loop of `unroll` steps (even,
/// odd, one), with one set of fragment registers or two (double
/// buffered), after register-staged and ring stripes alike, reals and
/// conjugated complexes.
#[test]
fn inner_product_loops_and_fragment_sets() {
    let mut specs = Vec::new();
    // k_blk = 24: three iterations of an odd body (the crossing load after the FMAs).
    let deep = |precision: Precision, ops: (Op, Op)| {
        let (a_lead_k, b_lead_k) = (ops.0 != Op::N, ops.1 == Op::N);
        let load = |lead_is_k: bool| if lead_is_k { (8, 16) } else { (16, 8) };
        KernelSpec::new(precision, ops, (64, 64, 24), (16, 8), load(a_lead_k), load(b_lead_k))
    };
    for frag_sets in [1, 2] {
        for unroll in [None, Some(1), Some(2), Some(4)] {
            specs.push(KernelSpec { unroll, frag_sets, ..base(Precision::F32, (Op::N, Op::T)) });
        }
        for unroll in [Some(2), None] {
            specs.push(KernelSpec {
                unroll,
                frag_sets,
                arch: Target::Sm80,
                stages: 3,
                ..base(Precision::C32, (Op::C, Op::N))
            });
        }
        specs.push(KernelSpec { unroll: Some(3), frag_sets, ..deep(Precision::F64, (Op::T, Op::N)) });
        specs.push(KernelSpec {
            unroll: Some(3),
            frag_sets,
            arch: Target::Sm80,
            stages: 2,
            ..deep(Precision::C64, (Op::N, Op::C))
        });
    }
    run_all(&specs);
}

/// Above 48 KiB the stripes live in dynamic shared memory, sized by the
/// launch.
#[test]
fn a_ring_in_dynamic_shared_memory() {
    // 4 stripes of 64 rows × (64 + 4) floats per operand: 139,264 bytes.
    let s = KernelSpec {
        arch: Target::Sm90,
        stages: 4,
        ldg_width: 4,
        lds_width: 4,
        ..KernelSpec::new(Precision::F32, (Op::N, Op::T), (64, 64, 64), (16, 8), (16, 8), (16, 8))
    };
    let plan = gemm_codegen::validate(&s).expect("legal on sm_90");
    assert!(plan.dynamic_shared() && plan.shared_bytes() == 139_264, "{}", plan.shared_bytes());
    run_all(&[s]);
}

/// With two fragment sets in a ring, a stripe's last step loads the next
/// stripe's first fragments, after the hand-off's `wait_group` and
/// `bar.sync` (there is then no barrier at the top of the loop). Without
/// either of them those loads read copies still in flight, or another
/// thread's landed copies without a barrier: the emulator names both.
#[test]
fn the_hand_off_to_the_next_stripe_needs_its_wait_and_its_barrier() {
    let spec = KernelSpec {
        arch: Target::Sm80,
        stages: 3,
        frag_sets: 2,
        unroll: Some(4),
        ..base(Precision::F32, (Op::N, Op::N))
    };
    let image = gemm_codegen::compile(&spec).unwrap();
    let hand_off = "\tcp.async.wait_group\t1;\n\tbar.sync\t0;\n\tadd.u32\t%kt_ahead, %kt, 1;";
    assert_eq!(image.ptx.matches(hand_off).count(), 1, "one hand-off, in the loop:\n{}", image.ptx);
    assert_eq!(image.ptx.matches("bar.sync").count(), 2, "the prologue's barrier and the hand-off's");
    let run = |ptx: &str| run_64x64x40(&image, ptx);
    run(&image.ptx).expect("the generated kernel");
    let no_wait = image.ptx.replace(hand_off, "\tbar.sync\t0;\n\tadd.u32\t%kt_ahead, %kt, 1;");
    let err = run(&no_wait).expect_err("reads of copies in flight");
    assert!(err.contains("is still copying"), "{err}");
    let no_barrier = image.ptx.replace(hand_off, "\tcp.async.wait_group\t1;\n\tadd.u32\t%kt_ahead, %kt, 1;");
    let err = run(&no_barrier).expect_err("a race on a landed stripe");
    assert!(err.contains("race"), "{err}");
}

/// Runs `ptx`, a version of `image`'s kernel, on a 64 × 64 × 40 SGEMM of
/// small integers (exact in f32), and says where C is wrong, or what the
/// emulator refused.
fn run_64x64x40(image: &gemm_codegen::KernelImage, ptx: &str) -> Result<(), String> {
    use gemm_emu::{Gemm, Program};
    let (m, n, k) = (64u32, 64u32, 40u32);
    let args = emu_common::packed_args::<f32>(m, n, k);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32).collect();
    let mut c = vec![f32::NAN; (m * n) as usize];
    let program = Program::from_ptx(ptx, None).map_err(|e| e.to_string())?;
    let gemm = Gemm::from_program(program, image).map_err(|e| e.to_string())?;
    gemm.run(&args, &a, &b, &mut c, &Default::default()).map_err(|e| e.to_string())?;
    let want = |i: u32, j: u32| (0..k).map(|l| ((i + l * m) % 7 * ((l + j * k) % 5)) as f32).sum::<f32>();
    match (0..m * n).find(|&at| c[at as usize] != want(at % m, at / m)) {
        Some(at) => Err(format!("C({}, {}) = {}", at % m, at / m, c[at as usize])),
        None => Ok(()),
    }
}

/// A ring's copies interleaved with the product in `interleave` groups:
/// one, a few (not dividing the stripe), one per k step; with one
/// fragment set or two (the hand-off), reals and conjugated complexes,
/// vector copies and element copies along K.
#[test]
fn copies_interleaved_with_the_product() {
    let mut specs = Vec::new();
    for frag_sets in [1, 2] {
        for interleave in [1, 3, 8] {
            for ops in [(Op::N, Op::N), (Op::T, Op::T)] {
                let s = KernelSpec {
                    arch: Target::Sm80,
                    stages: 3,
                    frag_sets,
                    interleave,
                    ..base(Precision::F32, ops)
                };
                specs.push(s);
            }
        }
        let s = KernelSpec {
            arch: Target::Sm90,
            stages: 2,
            ldg_width: 4,
            lds_width: 4,
            frag_sets,
            interleave: 2,
            ..base(Precision::F32, (Op::N, Op::T))
        };
        specs.push(s);
        for (precision, ops) in [
            (Precision::C32, (Op::C, Op::N)),
            (Precision::C64, (Op::N, Op::C)),
            (Precision::F64, (Op::T, Op::N)),
        ] {
            specs.push(KernelSpec {
                arch: Target::Sm90,
                stages: 4,
                frag_sets,
                interleave: 5,
                ..base(precision, ops)
            });
        }
    }
    run_all(&specs);
}

/// With interleaved copies the stripe's commit closes the group after its
/// last copy. A commit moved before the last copy leaves it in the next
/// group, which the wait before their stripe does not cover: the
/// emulator names the copy still in flight when the stripe is read.
#[test]
fn interleaved_copies_are_committed_after_the_last_group() {
    for frag_sets in [1, 2] {
        let spec = KernelSpec {
            arch: Target::Sm80,
            stages: 3,
            frag_sets,
            interleave: 4,
            ..base(Precision::F32, (Op::N, Op::N))
        };
        let image = gemm_codegen::compile(&spec).unwrap();
        run_64x64x40(&image, &image.ptx).expect("the generated kernel");
        let lines: Vec<&str> = image.ptx.lines().collect();
        let copy = |l: &&str| l.contains("@%p_copy_stripe cp.async");
        let commit = lines.iter().rposition(|l| l.contains("cp.async.commit_group")).unwrap();
        let last_copy = lines[..commit].iter().rposition(copy).unwrap();
        // The copies sit beside the product: FMAs between the first and the last.
        let first_copy = lines.iter().position(copy).unwrap();
        assert!(lines[first_copy..commit].iter().any(|l| l.contains("fma.rn")), "copies not interleaved");
        assert_eq!(lines.iter().filter(|l| copy(l)).count(), 4 + 4, "A's and B's copies, once each");
        let mut moved = lines.clone();
        let line = moved.remove(commit);
        moved.insert(last_copy, line);
        let err = run_64x64x40(&image, &(moved.join("\n") + "\n")).expect_err("copies outside their group");
        assert!(err.contains("is still copying"), "frag_sets = {frag_sets}: {err}");
    }
}

/// The epilogue reading C's old values a group of columns at a time: groups
/// that divide the thread's 8 columns and one that leaves a shorter last
/// group, on both of its paths (runs of `lds_width` rows on the tiles inside
/// an aligned C, element by element on the edges), every precision.
#[test]
fn the_epilogue_reads_c_in_groups_of_columns() {
    let mut specs = Vec::new();
    for (precision, lds_width, ops) in [
        (Precision::F32, 4, (Op::N, Op::N)),
        (Precision::F64, 2, (Op::T, Op::N)),
        (Precision::C32, 2, (Op::N, Op::C)),
        (Precision::C64, 1, (Op::T, Op::T)),
    ] {
        for c_batch in [2, 3, 8] {
            specs.push(KernelSpec { c_batch, lds_width, ..base(precision, ops) });
        }
    }
    run_all(&specs);
}
