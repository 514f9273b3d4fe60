//! Tests of the tuner's arguments: sizes, space, budget, seeds.

use super::*;

#[test]
fn default_sizes_hold_about_a_gibibyte() {
    for p in Precision::ALL {
        let n = default_size(p) as f64;
        let bytes = 3.0 * n * n * f64::from(p.element_bytes());
        assert!(bytes <= f64::from(1u32 << 30) && bytes > 0.85 * f64::from(1u32 << 30), "{p}: {n}");
    }
    assert_eq!(default_size(Precision::F32), 9216);
}

#[test]
fn the_tuner_space_on_an_h100_has_rings_and_its_limits() {
    let args = <Args as clap::FromArgMatches>::from_arg_matches(
        &<Args as clap::Args>::augment_args(clap::Command::new("tune")).get_matches_from(["tune"]),
    )
    .unwrap();
    let kt = KernelType { precision: Precision::F32, op_a: Op::N, op_b: Op::N };
    let space = space(&args, kt, &DeviceLimits::for_arch("sm_90").unwrap());
    assert_eq!(space.limits().max_shared_per_block, 227 * 1024);
    assert_eq!(space.guidelines, Guidelines::pipelined(Precision::F32));
    assert_eq!(args.type_budget_s(16), 25.0 * 60.0 / 16.0);
    let shipped = gemm_kernels::tuned_kernels(90, Precision::F32, Op::N, Op::N).len();
    assert_eq!(seeds(kt, 90, &[]).len(), 1 + shipped, "Table 2 and the shipped sm_90 kernels");
    let table2 = gemm_kernels::table2(Precision::F32, Op::N, Op::N).spec;
    assert_eq!(seeds(kt, 75, &[]), [table2]);
    // Given seeds of this type join once; others are left to their type.
    let mine = KernelSpec { raster: 8, ..table2 };
    let other = KernelSpec { op_b: Op::T, ..table2 };
    assert_eq!(seeds(kt, 75, &[mine, other, mine, table2]), [table2, mine]);
}
