//! Kernels tuned for particular GPUs, and how [`crate::default_kernel`]
//! chooses among them.
//!
//! Empty until the tuner writes its results here (a later issue); until then
//! every lookup falls back to Table 2.

use gemm_codegen::{Op, Precision};

use crate::KernelEntry;

/// A kernel and the GPU it was tuned on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuned {
    /// Compute capability of the GPU it was tuned on, e.g. 90.
    pub(crate) arch: u32,
    /// The kernel.
    pub(crate) entry: KernelEntry,
}

/// Every tuned kernel compiled into the crate.
pub(crate) static TUNED: [Tuned; 0] = [];

/// The kernel of `tuned` for `precision` and the ops on a GPU of compute
/// capability `arch`: one tuned on exactly `arch` if any, else one tuned on
/// the same major architecture, else `None`.
pub(crate) fn find(
    tuned: &'static [Tuned],
    arch: u32,
    precision: Precision,
    op_a: Op,
    op_b: Op,
) -> Option<&'static KernelEntry> {
    let fits = |t: &&Tuned| {
        let spec = &t.entry.spec;
        spec.precision == precision && spec.op_a == op_a && spec.op_b == op_b
    };
    let exact = tuned.iter().filter(fits).find(|t| t.arch == arch);
    let family = || tuned.iter().filter(fits).find(|t| t.arch / 10 == arch / 10);
    exact.or_else(family).map(|t| &t.entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TABLE2, table2};

    /// Pretends SgemmNN's and SgemmNT's configurations were tuned on sm_80
    /// and sm_86.
    static FAKE: [Tuned; 3] = [
        Tuned { arch: 80, entry: TABLE2[0] },
        Tuned { arch: 86, entry: TABLE2[1] },
        Tuned { arch: 80, entry: TABLE2[1] },
    ];

    #[test]
    fn exact_arch_first_then_family_then_none() {
        let (s, n, t) = (Precision::F32, Op::N, Op::T);
        // SgemmNT: tuned on 86 and 80; 86 asks for its own.
        assert!(std::ptr::eq(find(&FAKE, 86, s, n, t).unwrap(), &FAKE[1].entry));
        assert!(std::ptr::eq(find(&FAKE, 80, s, n, t).unwrap(), &FAKE[2].entry));
        // sm_89 has no exact kernel: the first of its family.
        assert!(std::ptr::eq(find(&FAKE, 89, s, n, t).unwrap(), &FAKE[1].entry));
        // SgemmNN on sm_86: the family's (sm_80) kernel.
        assert!(std::ptr::eq(find(&FAKE, 86, s, n, n).unwrap(), &FAKE[0].entry));
        // Another family, another precision, another op: nothing tuned.
        assert!(find(&FAKE, 90, s, n, n).is_none());
        assert!(find(&FAKE, 80, Precision::F64, n, n).is_none());
        assert!(find(&FAKE, 80, s, t, n).is_none());
    }

    #[test]
    fn default_is_table2_while_nothing_is_tuned() {
        for arch in [70, 75, 80, 86, 89, 90, 100, 120] {
            for p in Precision::ALL {
                for a in Op::ALL {
                    for b in Op::ALL {
                        assert!(std::ptr::eq(crate::default_kernel(arch, p, a, b), table2(p, a, b)));
                    }
                }
            }
        }
    }
}
