//! Kernels tuned for particular GPUs by `cargo xtask tune`, and how
//! [`crate::Dispatch::TUNED`] chooses among them.
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

use std::cmp::Ordering;

use gemm_codegen::{Op, Precision};

use crate::{Form, KernelEntry};

/// What a class of the other call form adds to its distance from a call
/// ([`find`]): as much as a factor of 3 in one dimension (ln 3). A class
/// timed in the call's form serves it unless one of the other form is more
/// than 3× nearer. Above 2, so that an update call at K = 64 takes an update
/// class at K = 32 before a product class at K = 64 (where K is small,
/// reading C is most of the work); below 4, so that a class of the other
/// form at the call's shape serves it before one of its own 4× away.
pub(crate) const OTHER_FORM: f64 = 1.098_612_288_668_109_8;

/// The tuned kernels of one device family.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// Compute capability the kernels were tuned on, e.g. 90.
    pub arch: u32,
    /// Its kernels: per precision and op pair, at most one per shape it was
    /// tuned at ([`KernelEntry::tuned_for`]).
    pub kernels: &'static [KernelEntry],
}

/// The kernels of a type in `f`.
fn of_type_in(
    f: &'static Family,
    precision: Precision,
    op_a: Op,
    op_b: Op,
) -> impl Iterator<Item = &'static KernelEntry> {
    f.kernels.iter().filter(move |k| (k.spec.precision, k.spec.op_a, k.spec.op_b) == (precision, op_a, op_b))
}

/// The family whose kernels of the type a GPU of compute capability `arch`
/// uses: the first tuned on exactly `arch` that has some, else the first
/// tuned on the same major architecture (sm_80's for an sm_86 GPU).
fn family_for(
    families: &'static [Family],
    arch: u32,
    precision: Precision,
    op_a: Op,
    op_b: Op,
) -> Option<&'static Family> {
    let has = |f: &&'static Family| of_type_in(f, precision, op_a, op_b).next().is_some();
    let exact = families.iter().filter(|f| f.arch == arch).find(has);
    exact.or_else(|| families.iter().filter(|f| f.arch / 10 == arch / 10).find(has))
}

/// The tuned kernels of a type on a GPU of compute capability `arch`,
/// largest tuning volume first ([`family_for`]).
pub(crate) fn of_type(
    families: &'static [Family],
    arch: u32,
    precision: Precision,
    op_a: Op,
    op_b: Op,
) -> Vec<&'static KernelEntry> {
    let Some(f) = family_for(families, arch, precision, op_a, op_b) else { return Vec::new() };
    let mut found: Vec<&'static KernelEntry> = of_type_in(f, precision, op_a, op_b).collect();
    found.sort_by(|a, b| larger(a, b).reverse());
    found
}

/// Orders tuning shapes by volume, then by `[m, n, k]`: the order of "the
/// largest" and of ties.
fn larger(a: &KernelEntry, b: &KernelEntry) -> Ordering {
    a.tuned_volume().cmp(&b.tuned_volume()).then_with(|| a.tuned_for.cmp(&b.tuned_for))
}

/// The tuned kernel of a type for a call of `shape` (`m, n, k`), or of an
/// unknown shape (`None`: the largest tuning volume), on a GPU of compute
/// capability `arch`, among the classes of every layer of `layers` (in each
/// layer, the family [`family_for`] picks); `None` if none was tuned.
/// Allocates nothing: it runs on every call.
///
/// A call takes the kernel whose tuning shape is nearest its own on a log
/// scale, `|ln m − ln m'| + |ln n − ln n'| + |ln k − ln k'|`: between two
/// square sizes the boundary is their geometric mean, and a skinny call
/// (large m and n, small k) goes to a kernel tuned on a skinny shape before
/// a square one of the same volume. A class of the other [`Form`] than
/// `form` counts [`OTHER_FORM`] further. A tie goes to the larger, then to
/// the earlier layer; an empty call (a zero dimension) takes the smallest
/// whatever its form. Batch classes take part only for a `batched` call.
#[allow(clippy::too_many_arguments)] // the call's description, field by field
pub(crate) fn find(
    layers: &[&'static [Family]],
    arch: u32,
    precision: Precision,
    op_a: Op,
    op_b: Op,
    shape: Option<(u64, u64, u64)>,
    form: Form,
    batched: bool,
) -> Option<&'static KernelEntry> {
    let kernels = layers
        .iter()
        .filter_map(move |&families| family_for(families, arch, precision, op_a, op_b))
        .flat_map(move |f| of_type_in(f, precision, op_a, op_b))
        .filter(move |e| batched || !e.batch);
    // `min_by` keeps the first of equals: the earlier layer's.
    let smaller = |a: &&KernelEntry, b: &&KernelEntry| larger(a, b);
    match shape {
        None => kernels.min_by(|a, b| smaller(b, a)),
        Some((m, n, k)) if m == 0 || n == 0 || k == 0 => kernels.min_by(smaller),
        Some((m, n, k)) => {
            let distance = |e: &&KernelEntry| {
                [m, n, k]
                    .iter()
                    .zip(e.tuned_for)
                    .map(|(&d, t)| ((d as f64).ln() - f64::from(t.max(1)).ln()).abs())
                    .sum::<f64>()
                    + if e.form == form { 0.0 } else { OTHER_FORM }
            };
            kernels.min_by(|a, b| distance(a).total_cmp(&distance(b)).then_with(|| larger(b, a)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TABLE2, table2};

    /// Pretends SgemmNN's and SgemmNT's configurations were tuned on sm_80
    /// and sm_86.
    static SM80: [KernelEntry; 2] = [cube(TABLE2[0], 8192), cube(TABLE2[1], 8192)];
    static SM86: [KernelEntry; 1] = [cube(TABLE2[1], 8192)];
    /// SgemmNN tuned at three square sizes, listed out of order.
    static SM90: [KernelEntry; 3] = [cube(TABLE2[0], 1024), cube(TABLE2[0], 9216), cube(TABLE2[0], 4096)];
    static SIZED: [Family; 1] = [Family { arch: 90, kernels: &SM90 }];
    /// SgemmNN tuned at a large and a small square and a skinny K.
    static CLASSES: [KernelEntry; 3] = [
        shaped(TABLE2[0], [1024, 1024, 1024]),
        shaped(TABLE2[0], [8192, 8192, 64]),
        shaped(TABLE2[0], [9216, 9216, 9216]),
    ];
    static SHAPED: [Family; 1] = [Family { arch: 90, kernels: &CLASSES }];

    const fn shaped(e: KernelEntry, shape: [u32; 3]) -> KernelEntry {
        KernelEntry { tuned_for: shape, ..e }
    }

    const fn cube(e: KernelEntry, n: u32) -> KernelEntry {
        shaped(e, [n, n, n])
    }

    #[test]
    fn a_call_takes_the_kernel_tuned_nearest_its_size() {
        let f32nn = |shape| {
            find(&[&SIZED], 90, Precision::F32, Op::N, Op::N, shape, Form::Product, false)
                .map(|e| e.tuned_for[0])
        };
        assert_eq!(f32nn(None), Some(9216), "unknown shape: the largest");
        for (shape, size) in [
            ((16384, 16384, 16384), 9216),
            ((9216, 9216, 9216), 9216),
            ((8192, 8192, 8192), 9216),
            ((4096, 4096, 4096), 4096),
            ((2047, 2047, 2047), 1024), // the geometric mean of 1024 and 4096 is 2048
            ((2049, 2049, 2049), 4096),
            ((256, 256, 256), 1024),
            ((8192, 8192, 32), 9216), // no skinny class: the square nearest in m and n
            ((0, 5, 5), 1024),
            ((u64::MAX, u64::MAX, u64::MAX), 9216),
        ] {
            assert_eq!(f32nn(Some(shape)), Some(size), "{shape:?}");
        }
        // The boundary between 4096 and 9216 is their geometric mean.
        let mid = (4096.0f64 * 9216.0).sqrt();
        assert_eq!(f32nn(Some((mid as u64 - 1, mid as u64 - 1, mid as u64 - 1))), Some(4096));
        assert_eq!(f32nn(Some((mid as u64 + 1, mid as u64 + 1, mid as u64 + 1))), Some(9216));
        let all: Vec<u32> =
            of_type(&SIZED, 90, Precision::F32, Op::N, Op::N).iter().map(|e| e.tuned_for[0]).collect();
        assert_eq!(all, [9216, 4096, 1024]);
        assert!(of_type(&SIZED, 90, Precision::F32, Op::N, Op::T).is_empty());
    }

    /// Skinny calls go to the skinny class, squares to the square nearest
    /// them, whatever their volumes.
    #[test]
    fn a_call_takes_the_shape_class_nearest_its_shape() {
        let f32nn = |shape| {
            find(&[&SHAPED], 90, Precision::F32, Op::N, Op::N, shape, Form::Product, false)
                .map(|e| e.tuned_for)
        };
        assert_eq!(f32nn(None), Some([9216; 3]), "unknown shape: the largest volume");
        for (shape, class) in [
            ((8192, 8192, 32), [8192, 8192, 64]),
            ((16384, 16384, 128), [8192, 8192, 64]),
            ((4096, 4096, 64), [8192, 8192, 64]),
            ((16384, 16384, 16384), [9216; 3]),
            ((4096, 4096, 4096), [9216; 3]),
            ((2048, 2048, 2048), [1024; 3]),
            ((256, 256, 256), [1024; 3]),
            ((512, 512, 65536), [1024; 3]), // large K: nearer the small square
            ((0, 8192, 64), [1024; 3]),
        ] {
            assert_eq!(f32nn(Some(shape)), Some(class), "{shape:?}");
        }
        let volumes: Vec<u64> =
            of_type(&SHAPED, 90, Precision::F32, Op::N, Op::N).iter().map(|e| e.tuned_volume()).collect();
        assert_eq!(volumes, [9216u64.pow(3), 8192 * 8192 * 64, 1024u64.pow(3)]);
    }
    /// A large square and batch classes at 16³ and 128³.
    static BATCHED: [KernelEntry; 3] = [
        cube(TABLE2[0], 8192),
        KernelEntry { batch: true, ..cube(TABLE2[0], 16) },
        KernelEntry { batch: true, ..cube(TABLE2[0], 128) },
    ];
    static WITH_BATCHES: [Family; 1] = [Family { arch: 90, kernels: &BATCHED }];

    /// Batch classes serve batched calls only: one problem of 16³ or 256³
    /// still takes the large-square kernel; a batch takes the nearest class.
    #[test]
    fn batch_classes_serve_batches_only() {
        let pick = |shape, batched| {
            find(&[&WITH_BATCHES], 90, Precision::F32, Op::N, Op::N, Some(shape), Form::Product, batched)
                .map(|e| e.tuned_for[0])
        };
        for shape in [(16, 16, 16), (256, 256, 256), (8, 8, 8)] {
            assert_eq!(pick(shape, false), Some(8192), "{shape:?}");
        }
        assert_eq!(pick((8, 8, 8), true), Some(16));
        assert_eq!(pick((100, 100, 100), true), Some(128));
        assert_eq!(pick((4096, 4096, 4096), true), Some(8192));
        assert_eq!(
            find(&[&WITH_BATCHES], 90, Precision::F32, Op::N, Op::N, None, Form::Product, false)
                .map(|e| e.tuned_for[0]),
            Some(8192)
        );
    }

    static FAKE: [Family; 2] = [Family { arch: 80, kernels: &SM80 }, Family { arch: 86, kernels: &SM86 }];

    #[test]
    fn exact_arch_first_then_family_then_none() {
        let (s, n, t) = (Precision::F32, Op::N, Op::T);
        // SgemmNT: tuned on 86 and 80; each asks for its own.
        assert!(std::ptr::eq(find(&[&FAKE], 86, s, n, t, None, Form::Product, false).unwrap(), &SM86[0]));
        assert!(std::ptr::eq(find(&[&FAKE], 80, s, n, t, None, Form::Product, false).unwrap(), &SM80[1]));
        // sm_89 has no exact kernel: the first of its family.
        assert!(std::ptr::eq(find(&[&FAKE], 89, s, n, t, None, Form::Product, false).unwrap(), &SM80[1]));
        // SgemmNN on sm_86: the family's (sm_80) kernel.
        assert!(std::ptr::eq(find(&[&FAKE], 86, s, n, n, None, Form::Product, false).unwrap(), &SM80[0]));
        // Another family, another precision, another op: nothing tuned.
        assert!(find(&[&FAKE], 90, s, n, n, None, Form::Product, false).is_none());
        assert!(find(&[&FAKE], 80, Precision::F64, n, n, None, Form::Product, false).is_none());
        assert!(find(&[&FAKE], 80, s, t, n, None, Form::Product, false).is_none());
    }

    #[test]
    fn default_is_the_tuned_kernel_where_there_is_one_else_table2() {
        for arch in [70, 75, 80, 86, 89, 90, 100, 120] {
            for p in Precision::ALL {
                for a in Op::ALL {
                    for b in Op::ALL {
                        let expect = find(&[&families::FAMILIES], arch, p, a, b, None, Form::Product, false)
                            .unwrap_or(table2(p, a, b));
                        assert!(std::ptr::eq(crate::Dispatch::TUNED.default_kernel(arch, p, a, b), expect));
                        for shape in [(256, 256, 256), (8192, 8192, 32), (16384, 16384, 16384)] {
                            for form in [Form::Product, Form::Update] {
                                let expect =
                                    find(&[&families::FAMILIES], arch, p, a, b, Some(shape), form, false)
                                        .unwrap_or(table2(p, a, b));
                                let chosen = crate::Dispatch::TUNED.kernel_for(arch, p, a, b, shape, form);
                                assert!(std::ptr::eq(chosen, expect));
                            }
                        }
                    }
                }
            }
        }
    }

    /// `all` lists each instance once, though a kernel tuned at several
    /// shapes has an entry per shape; an entry's name is its instance.
    #[test]
    fn all_lists_each_kernel_instance_once() {
        let names: Vec<&str> = crate::all().map(|k| k.name).collect();
        let distinct: std::collections::HashSet<&str> = names.iter().copied().collect();
        assert_eq!(names.len(), distinct.len(), "{names:?}");
        for f in &families::FAMILIES {
            for k in f.kernels {
                assert!(crate::all().any(|o| std::ptr::eq(o.ptx, k.ptx) && o.name == k.name), "{}", k.name);
            }
        }
    }

    /// A class is a type, a shape and a form: two kernels for one would
    /// leave the choice between them to the order of the table.
    #[test]
    fn each_family_has_at_most_one_kernel_per_type_shape_and_form() {
        for f in &families::FAMILIES {
            for (i, k) in f.kernels.iter().enumerate() {
                let class = |e: &KernelEntry| {
                    (e.spec.precision, e.spec.op_a, e.spec.op_b, e.tuned_for, e.form, e.batch)
                };
                assert!(k.tuned_volume() > 0, "sm_{}: {} has no tuning shape", f.arch, k.name);
                assert!(
                    f.kernels[..i].iter().all(|o| class(o) != class(k)),
                    "sm_{}: two kernels for {} at {:?}, {:?}",
                    f.arch,
                    k.name,
                    k.tuned_for,
                    k.form
                );
            }
        }
    }

    /// SgemmNN: product classes at 8192 × 8192 × 64 and a large square, an
    /// update class at 8192 × 8192 × 32.
    static FORMS: [KernelEntry; 3] = [
        shaped(TABLE2[0], [8192, 8192, 64]),
        shaped(TABLE2[0], [9216, 9216, 9216]),
        shaped(TABLE2[0], [8192, 8192, 32]).update(),
    ];
    static WITH_FORMS: [Family; 1] = [Family { arch: 90, kernels: &FORMS }];

    /// A call takes a class of its own form unless one of the other is more
    /// than 3× nearer; an empty call and the default ignore forms.
    #[test]
    fn a_call_prefers_a_class_of_its_own_form() {
        let pick = |shape, form| {
            find(&[&WITH_FORMS], 90, Precision::F32, Op::N, Op::N, shape, form, false)
                .map(|e| (e.tuned_for, e.form))
        };
        let (product, update) = (Form::Product, Form::Update);
        for (shape, form, class) in [
            // Exact shapes of either form.
            ((8192, 8192, 64), product, ([8192, 8192, 64], product)),
            ((8192, 8192, 32), update, ([8192, 8192, 32], update)),
            // One form's class 2× away before the other's at the shape.
            ((8192, 8192, 64), update, ([8192, 8192, 32], update)),
            ((8192, 8192, 32), product, ([8192, 8192, 64], product)),
            // 4× away in K, when the other form's class is 2× away: 2 · 3 > 4.
            ((8192, 8192, 128), update, ([8192, 8192, 32], update)),
            ((8192, 8192, 16), product, ([8192, 8192, 64], product)),
            // Squares: no update class near, so the product ones serve updates.
            ((8192, 8192, 8192), update, ([9216; 3], product)),
            ((4096, 4096, 4096), update, ([9216; 3], product)),
        ] {
            assert_eq!(pick(Some(shape), form), Some(class), "{shape:?} {form:?}");
        }
        assert_eq!(pick(None, update), Some(([9216; 3], product)), "unknown shape: the largest");
        assert_eq!(
            pick(Some((0, 8192, 64)), product),
            Some(([8192, 8192, 32], update)),
            "empty: the smallest"
        );
        assert_eq!(Form::of_beta(true), product);
        assert_eq!(Form::of_beta(false), update);
    }
}
