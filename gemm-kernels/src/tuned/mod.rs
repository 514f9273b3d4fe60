//! Kernels tuned for particular GPUs by `cargo xtask tune`, and how
//! [`crate::default_kernel`] chooses among them.
//!
//! The tuner writes one file per device family, `tuned/sm_XY.rs`, holding
//! its winners as `gemm_kernel!` invocations, and regenerates
//! [`families`](mod@families), which lists those files; both carry the
//! generated-file header and are not edited by hand. A spec in them that
//! breaks a constraint is a compile error of this crate, like any other
//! `gemm_kernel!`.

// Generated: the generator's layout is the file's, rustfmt leaves it alone.
#[rustfmt::skip]
pub mod families;

use gemm_codegen::{Op, Precision};

use crate::KernelEntry;

/// The tuned kernels of one device family.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// Compute capability the kernels were tuned on, e.g. 90.
    pub arch: u32,
    /// Its kernels, at most one per precision and op pair.
    pub kernels: &'static [KernelEntry],
}

/// The tuned kernel for `precision` and the ops on a GPU of compute
/// capability `arch`: one tuned on exactly `arch` if any, else one tuned on
/// the same major architecture (sm_80's for an sm_86 GPU), else `None`.
pub(crate) fn find(
    families: &'static [Family],
    arch: u32,
    precision: Precision,
    op_a: Op,
    op_b: Op,
) -> Option<&'static KernelEntry> {
    let in_family = |f: &'static Family| {
        f.kernels.iter().find(|k| k.spec.precision == precision && k.spec.op_a == op_a && k.spec.op_b == op_b)
    };
    let exact = families.iter().filter(|f| f.arch == arch).find_map(in_family);
    exact.or_else(|| families.iter().filter(|f| f.arch / 10 == arch / 10).find_map(in_family))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TABLE2, table2};

    /// Pretends SgemmNN's and SgemmNT's configurations were tuned on sm_80
    /// and sm_86.
    static SM80: [KernelEntry; 2] = [TABLE2[0], TABLE2[1]];
    static SM86: [KernelEntry; 1] = [TABLE2[1]];
    static FAKE: [Family; 2] = [Family { arch: 80, kernels: &SM80 }, Family { arch: 86, kernels: &SM86 }];

    #[test]
    fn exact_arch_first_then_family_then_none() {
        let (s, n, t) = (Precision::F32, Op::N, Op::T);
        // SgemmNT: tuned on 86 and 80; each asks for its own.
        assert!(std::ptr::eq(find(&FAKE, 86, s, n, t).unwrap(), &SM86[0]));
        assert!(std::ptr::eq(find(&FAKE, 80, s, n, t).unwrap(), &SM80[1]));
        // sm_89 has no exact kernel: the first of its family.
        assert!(std::ptr::eq(find(&FAKE, 89, s, n, t).unwrap(), &SM80[1]));
        // SgemmNN on sm_86: the family's (sm_80) kernel.
        assert!(std::ptr::eq(find(&FAKE, 86, s, n, n).unwrap(), &SM80[0]));
        // Another family, another precision, another op: nothing tuned.
        assert!(find(&FAKE, 90, s, n, n).is_none());
        assert!(find(&FAKE, 80, Precision::F64, n, n).is_none());
        assert!(find(&FAKE, 80, s, t, n).is_none());
    }

    #[test]
    fn default_is_the_tuned_kernel_where_there_is_one_else_table2() {
        for arch in [70, 75, 80, 86, 89, 90, 100, 120] {
            for p in Precision::ALL {
                for a in Op::ALL {
                    for b in Op::ALL {
                        let expect = find(&families::FAMILIES, arch, p, a, b).unwrap_or(table2(p, a, b));
                        assert!(std::ptr::eq(crate::default_kernel(arch, p, a, b), expect));
                    }
                }
            }
        }
    }

    #[test]
    fn each_family_has_at_most_one_kernel_per_type() {
        for f in &families::FAMILIES {
            for (i, k) in f.kernels.iter().enumerate() {
                let s = &k.spec;
                assert!(
                    f.kernels[..i].iter().all(
                        |o| (o.spec.precision, o.spec.op_a, o.spec.op_b) != (s.precision, s.op_a, s.op_b)
                    ),
                    "sm_{}: two kernels for {}",
                    f.arch,
                    k.name
                );
            }
        }
    }
}
