//! Tests of the spec types: names, printing, defaults.

use super::*;

/// Table 2's SGEMM NN configuration, every optional parameter at its
/// default.
fn sgemm_nn() -> KernelSpec {
    KernelSpec::new(Precision::F32, (Op::N, Op::N), (96, 96, 16), (16, 16), (32, 8), (8, 32))
}

#[test]
fn conjugate_means_transpose_on_reals_only() {
    assert_eq!(Op::C.effective(Precision::F32), Op::T);
    assert_eq!(Op::C.effective(Precision::F64), Op::T);
    assert_eq!(Op::C.effective(Precision::C32), Op::C);
    assert!(Op::C.conjugates(Precision::C64));
    assert!(!Op::C.conjugates(Precision::F64));
    assert!(!Op::T.conjugates(Precision::C64));
}

#[test]
fn invocation_omits_defaults_and_names_the_rest() {
    let mut spec = sgemm_nn();
    assert_eq!(
        spec.to_invocation("SgemmNN"),
        "gemm_kernel! { name = SgemmNN, precision = f32, op = (N, N), tile = (96, 96, 16), \
         threads = (16, 16), load_a = (32, 8), load_b = (8, 32) }"
    );
    spec.lds_width = 2;
    spec.ldg = GlobalLoad::Cg;
    assert!(spec.to_invocation_body().ends_with(", lds_width = 2, ldg = cg"));
}

#[test]
fn entry_names_differ_with_every_parameter() {
    // Pipeline parameters too: `_s3_…`, `_f2`, `_u4`, `_i2`, `_i4`.
    let base = sgemm_nn();
    let mut variants = vec![base];
    variants.push(KernelSpec { op_b: Op::T, ..base });
    variants.push(KernelSpec { k_blk: 8, ..base });
    variants.push(KernelSpec { lds_width: 2, ..base });
    variants.push(KernelSpec { ldg: GlobalLoad::Ca, ..base });
    variants.push(KernelSpec { load_b: LoadShape { lead: 16, cross: 16 }, ..base });
    let ring = KernelSpec { stages: 3, arch: Target::Sm80, ..base };
    variants.push(ring);
    variants.push(KernelSpec { frag_sets: 2, ..ring });
    variants.push(KernelSpec { unroll: Some(4), ..ring });
    variants.push(KernelSpec { interleave: 2, ..ring });
    variants.push(KernelSpec { interleave: 4, ..ring });
    let names: std::collections::HashSet<_> = variants.iter().map(KernelSpec::entry_name).collect();
    assert_eq!(names.len(), variants.len());
    assert!(base.entry_name().starts_with("gemmforge_sgemm_nn_96x96x16"));
}

#[test]
fn grid_covers_ragged_edges() {
    let spec = sgemm_nn();
    let launch = crate::family::Stencil::launch_shape(&spec);
    assert_eq!(launch.grid(1, 1), Ok((1, 1, 1)));
    assert_eq!(launch.grid(96, 97), Ok((1, 2, 1)));
    assert_eq!(launch.grid(1057, 993), Ok((12, 11, 1)));
    assert_eq!(spec.block(), (256, 1, 1));
}

#[test]
fn sizes_of_any_spec_are_exact_or_saturate() {
    let spec = KernelSpec {
        m_blk: 0,
        n_blk: u32::MAX,
        m_dim: u32::MAX,
        n_dim: u32::MAX,
        load_a: LoadShape { lead: u32::MAX, cross: 2 },
        ..sgemm_nn()
    };
    assert_eq!(spec.threads(), u64::from(u32::MAX) * u64::from(u32::MAX));
    assert_eq!(spec.load_a.threads(), 2 * u64::from(u32::MAX));
    assert_eq!(spec.block(), (u32::MAX, 1, 1));
    assert_eq!(crate::family::Stencil::launch_shape(&spec).grid(10, u32::MAX), Ok((0, 1, 1)));
    assert_eq!((spec.m_thr(), spec.n_thr()), (0, 1));
    let zero_threads = KernelSpec { m_dim: 0, ..sgemm_nn() };
    assert_eq!((zero_threads.threads(), zero_threads.block(), zero_threads.m_thr()), (0, (0, 1, 1), 0));
}

#[test]
fn tokens_round_trip() {
    for p in Precision::EVERY {
        assert_eq!(Precision::from_token(p.token()), Some(p));
        assert_eq!(Precision::from_blas_letter(p.blas_letter()), Some(p));
    }
    for o in Op::ALL {
        assert_eq!(Op::from_letter(o.letter()), Some(o));
    }
    for g in GlobalLoad::ALL {
        assert_eq!(GlobalLoad::from_token(g.token()), Some(g));
    }
    assert_eq!(Precision::from_token("f8"), None);
    assert_eq!(Precision::from_token("f16"), Some(Precision::F16));
    assert_eq!(Precision::from_token("bf16"), Some(Precision::Bf16));
}

#[test]
fn text_round_trips_through_the_invocation_syntax() {
    let mut spec = sgemm_nn();
    assert_eq!(spec.to_invocation_body().parse::<KernelSpec>(), Ok(spec));
    assert_eq!(spec.to_invocation("SgemmNN").parse::<KernelSpec>(), Ok(spec));
    spec.lds_width = 2;
    spec.ldg = GlobalLoad::Cg;
    spec.precision = Precision::C64;
    spec.op_a = Op::C;
    assert_eq!(spec.to_string().parse::<KernelSpec>(), Ok(spec));
    // Errors: see the grammar's tests.
    let bad = "precision = f8, op = (N, N)".parse::<KernelSpec>().unwrap_err();
    assert_eq!(bad.errors()[0].message, "`precision` must be `f32`, `f64`, `c32`, `c64`, `f16` or `bf16`");
}

#[test]
fn a_precision_index_is_its_place_in_all() {
    for (i, p) in Precision::ALL.into_iter().enumerate() {
        assert_eq!(p.index(), i, "{p}");
    }
}
