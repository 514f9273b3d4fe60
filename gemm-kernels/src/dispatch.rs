//! [`Dispatch`]: which kernel a call of a given type and shape runs.

use gemm_codegen::{Op, Precision};

use crate::tuned::{self, Family};
use crate::{Form, KernelEntry, table2};

/// The rule that picks a kernel for a call: of the shape classes of the
/// tuned families for the GPU (each class a kernel, the `(m, n, k)` it won
/// at, [`KernelEntry::tuned_for`], and the call [`Form`] it was timed in),
/// the one nearest the call's shape on a log scale, a class of the other
/// form counting as 3× further (`tuned`'s rule: see
/// [`tuned`](mod@crate::tuned)); Table 2's kernel of the type where no class
/// exists. Plain data, `Copy`, and cheap to consult
/// on every call (it allocates nothing).
///
/// [`Dispatch::TUNED`] is the generated tables `cargo xtask tune` wrote
/// (`tuned/sm_XY.rs`). A user overrides it with classes of their own — a
/// `gemm_kernel!` of theirs, or a shipped kernel at another shape — either
/// beside the tuned ones ([`Dispatch::with`]: their classes take part in
/// the nearest-shape choice and win ties) or instead of them
/// ([`Dispatch::only`]: only their classes, then Table 2), and gives it to a
/// runner (`gemm_host::Gemm::with_dispatch`).
///
/// ```
/// use gemm_codegen::{Op, Precision};
/// use gemm_kernels::tuned::Family;
/// use gemm_kernels::{Dispatch, Form, KernelEntry};
/// use gemm_macros::gemm_kernel;
///
/// // A kernel of one's own for 768³ DGEMM calls on sm_90 …
/// gemm_kernel! {
///     name = Dgemm768, precision = f64, op = (N, N), tile = (64, 64, 16), threads = (16, 16),
///     load_a = (64, 4), load_b = (16, 16)
/// }
/// static MINE: [KernelEntry; 1] = [KernelEntry::tuned::<Dgemm768>("mine::Dgemm768", [768, 768, 768])];
/// static FAMILIES: [Family; 1] = [Family { arch: 90, kernels: &MINE }];
///
/// // … beside the tuned classes: it serves the calls nearest 768³.
/// let dispatch = Dispatch::TUNED.with(&FAMILIES);
/// let pick = |d: Dispatch, op_b, n| d.kernel_for(90, Precision::F64, Op::N, op_b, (n, n, n), Form::Product).name;
/// assert_eq!(pick(dispatch, Op::N, 768), "mine::Dgemm768");
/// assert_ne!(pick(dispatch, Op::N, 8192), "mine::Dgemm768");
/// // Instead of them: every NN DGEMM on sm_90 runs it; other types, Table 2.
/// let only = Dispatch::only(&FAMILIES);
/// assert_eq!(pick(only, Op::N, 8192), "mine::Dgemm768");
/// assert_eq!(pick(only, Op::T, 768), "DgemmNT");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Dispatch {
    /// The caller's families, consulted first (winning ties).
    own: &'static [Family],
    /// The generated families (or none).
    tuned: &'static [Family],
}

impl Dispatch {
    /// The tables `cargo xtask tune` generated (`tuned::families::FAMILIES`):
    /// what every runner uses unless told otherwise.
    pub const TUNED: Dispatch = Dispatch { own: &[], tuned: &tuned::families::FAMILIES };

    /// No tuned class: Table 2's kernel of each type, for every shape.
    pub const TABLE2: Dispatch = Dispatch { own: &[], tuned: &[] };

    /// Only the classes of `families`, then Table 2's kernels.
    pub const fn only(families: &'static [Family]) -> Dispatch {
        Dispatch { own: families, tuned: &[] }
    }

    /// This rule with the classes of `families` beside its tuned ones: for
    /// each type, the family of `families` for the GPU (as for the tuned
    /// ones: the exact architecture first, then its major one) joins the
    /// nearest-shape choice, winning ties. Replaces the classes an earlier
    /// `with` or [`Dispatch::only`] gave.
    pub const fn with(self, families: &'static [Family]) -> Dispatch {
        Dispatch { own: families, tuned: self.tuned }
    }

    /// The kernel for an `m × n × k` call of the type and `form` (whether
    /// it reads C, [`Form::of_beta`]) on a GPU of compute capability `arch`
    /// (e.g. 90): the class nearest `shape` (on a log scale of each of m, n
    /// and k; a class of the other form counts as 3× further), else Table 2.
    /// Classes tuned on exactly `arch` are preferred, then those of its major
    /// architecture (`arch / 10`: sm_80's for an sm_86 GPU).
    pub fn kernel_for(
        &self,
        arch: u32,
        precision: Precision,
        op_a: Op,
        op_b: Op,
        shape: (u64, u64, u64),
        form: Form,
    ) -> &'static KernelEntry {
        self.find(arch, precision, op_a, op_b, Some(shape), form, false)
    }

    /// [`Dispatch::kernel_for`] for a batch of `m × n × k` problems: the
    /// batch classes ([`KernelEntry::batch`]) take part.
    pub fn batch_kernel_for(
        &self,
        arch: u32,
        precision: Precision,
        op_a: Op,
        op_b: Op,
        shape: (u64, u64, u64),
        form: Form,
    ) -> &'static KernelEntry {
        self.find(arch, precision, op_a, op_b, Some(shape), form, true)
    }

    /// The kernel for a call of unknown shape: the class of the largest
    /// tuning volume (`m·n·k`), else Table 2.
    pub fn default_kernel(
        &self,
        arch: u32,
        precision: Precision,
        op_a: Op,
        op_b: Op,
    ) -> &'static KernelEntry {
        self.find(arch, precision, op_a, op_b, None, Form::Product, false)
    }

    #[allow(clippy::too_many_arguments)] // the call's description, field by field
    fn find(
        &self,
        arch: u32,
        precision: Precision,
        op_a: Op,
        op_b: Op,
        shape: Option<(u64, u64, u64)>,
        form: Form,
        batched: bool,
    ) -> &'static KernelEntry {
        tuned::find(&[self.own, self.tuned], arch, precision, op_a, op_b, shape, form, batched)
            .unwrap_or_else(|| table2(precision, op_a, op_b))
    }
}

impl Default for Dispatch {
    fn default() -> Dispatch {
        Dispatch::TUNED
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TABLE2;

    const fn at(e: KernelEntry, name: &'static str, shape: [u32; 3]) -> KernelEntry {
        KernelEntry { name, tuned_for: shape, ..e }
    }

    /// SgemmNN's configuration as "tuned" classes at 1024³ and 8192³, and
    /// a user's at 2048³ and (a tie) 8192³.
    static TUNED: [KernelEntry; 2] = [at(TABLE2[0], "t1024", [1024; 3]), at(TABLE2[0], "t8192", [8192; 3])];
    static TUNED_FAMILIES: [Family; 1] = [Family { arch: 90, kernels: &TUNED }];
    static OWN: [KernelEntry; 2] = [at(TABLE2[0], "u2048", [2048; 3]), at(TABLE2[0], "u8192", [8192; 3])];
    static OWN_FAMILIES: [Family; 1] = [Family { arch: 90, kernels: &OWN }];
    const BASE: Dispatch = Dispatch { own: &[], tuned: &TUNED_FAMILIES };

    fn pick(d: Dispatch, n: u64) -> &'static str {
        d.kernel_for(90, Precision::F32, Op::N, Op::N, (n, n, n), Form::Product).name
    }

    #[test]
    fn own_classes_join_the_nearest_shape_choice_and_win_ties() {
        let d = BASE.with(&OWN_FAMILIES);
        assert_eq!([pick(BASE, 1500), pick(BASE, 3000), pick(BASE, 8192)], ["t1024", "t8192", "t8192"]);
        assert_eq!(pick(d, 1024), "t1024");
        assert_eq!([pick(d, 1500), pick(d, 3000)], ["u2048", "u2048"]);
        assert_eq!(pick(d, 8192), "u8192", "a tie goes to the caller's class");
        assert_eq!(d.default_kernel(90, Precision::F32, Op::N, Op::N).name, "u8192");
        // Another type, another GPU family: neither has classes, so Table 2.
        for form in [Form::Product, Form::Update] {
            assert_eq!(d.kernel_for(90, Precision::F32, Op::T, Op::N, (64, 64, 64), form).name, "SgemmTN");
            assert_eq!(d.kernel_for(80, Precision::F32, Op::N, Op::N, (64, 64, 64), form).name, "SgemmNN");
        }
    }

    #[test]
    fn only_and_table2_leave_the_tuned_classes_out() {
        let only = Dispatch::only(&OWN_FAMILIES);
        assert_eq!([pick(only, 64), pick(only, 1024), pick(only, 1 << 20)], ["u2048", "u2048", "u8192"]);
        assert_eq!(
            only.kernel_for(90, Precision::F64, Op::N, Op::N, (64, 64, 64), Form::Update).name,
            "DgemmNN"
        );
        assert_eq!([pick(Dispatch::TABLE2, 64), pick(Dispatch::TABLE2, 8192)], ["SgemmNN", "SgemmNN"]);
        // `with` replaces the caller's classes; the tuned ones stay.
        assert_eq!(pick(only.with(&[]), 2048), "SgemmNN");
        assert_eq!(pick(BASE.with(&OWN_FAMILIES).with(&[]), 2048), "t1024");
    }

    /// The default rule is `Dispatch::TUNED`: the generated families.
    #[test]
    fn the_default_is_the_tuned_tables() {
        for p in Precision::ALL {
            for (shape, form) in [(256, 256, 256), (8192, 8192, 64), (16, 16, 16)]
                .into_iter()
                .flat_map(|shape| [(shape, Form::Product), (shape, Form::Update)])
            {
                let (a, b) = (Op::N, Op::T);
                let families = [&tuned::families::FAMILIES[..]];
                let expect = |batched| {
                    tuned::find(&families, 90, p, a, b, Some(shape), form, batched).unwrap_or(table2(p, a, b))
                };
                assert!(std::ptr::eq(
                    Dispatch::default().kernel_for(90, p, a, b, shape, form),
                    expect(false)
                ));
                assert!(std::ptr::eq(
                    Dispatch::TUNED.batch_kernel_for(90, p, a, b, shape, form),
                    expect(true)
                ));
            }
        }
    }
}
