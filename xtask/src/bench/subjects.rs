//! The kernels a bench run times ([`choose`]) and the shapes each is timed
//! on ([`Subject::times`]).

use anyhow::{Result, anyhow};
use gemm_codegen::KernelImage;
use gemm_kernels::Form;

use super::setup::{Choice, Setup};

/// Where a benched kernel comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Source {
    /// `gemm-kernels/src/tuned/`, for this GPU's family.
    Tuned,
    /// Table 2 of the paper.
    Table2,
    /// `--spec`.
    Spec,
}

impl Source {
    pub(super) fn name(self) -> &'static str {
        match self {
            Source::Tuned => "tuned",
            Source::Table2 => "table2",
            Source::Spec => "spec",
        }
    }
}

/// A kernel to bench.
#[derive(Clone, Debug)]
pub(super) struct Subject {
    /// `SgemmNN`, or `spec`.
    pub(super) name: String,
    pub(super) source: Source,
    pub(super) image: KernelImage,
    /// The shapes it is timed on.
    pub(super) reach: Reach,
}

/// The shapes a [`Subject`] is timed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// Every shape of the sweeps.
    All,
    /// Those for which gemm-host picks it on a GPU of this compute
    /// capability (`gemm_kernels::Dispatch::kernel_for`): one of several tuned
    /// kernels of a type.
    Dispatch { arch: u32 },
}

impl Subject {
    pub(super) fn label(&self) -> String {
        label(&self.name, self.source)
    }

    /// Whether it is timed on an `m × n × k` problem of `form` (a batch of
    /// them if `batched`).
    pub(super) fn times(&self, (m, n, k): (i64, i64, i64), form: Form, batched: bool) -> bool {
        match self.reach {
            Reach::All => true,
            Reach::Dispatch { arch } => {
                let s = &self.image.spec;
                let dim = |d: i64| u64::try_from(d).unwrap_or(0);
                let shape = (dim(m), dim(n), dim(k));
                let dispatch = gemm_kernels::Dispatch::TUNED;
                let picked = if batched {
                    dispatch.batch_kernel_for(arch, s.precision, s.op_a, s.op_b, shape, form)
                } else {
                    dispatch.kernel_for(arch, s.precision, s.op_a, s.op_b, shape, form)
                };
                picked.entry == self.image.entry
            }
        }
    }
}

/// `SgemmNN/tuned`, `SgemmNN/table2`, `spec`.
pub(super) fn label(name: &str, source: Source) -> String {
    if source == Source::Spec { name.to_owned() } else { format!("{name}/{}", source.name()) }
}

/// The kernels of `setup` on a GPU of compute capability `arch`, in
/// precision then op order (tuned before Table 2 with `--both`).
pub(super) fn choose(setup: &Setup, arch: u32) -> Result<Vec<Subject>> {
    if let Choice::Spec(spec) = &setup.choice {
        let image = gemm_codegen::compile(spec).map_err(|v| {
            anyhow!(
                "--spec is not a legal kernel:\n{}",
                v.iter().map(|v| format!("  {v}")).collect::<Vec<_>>().join("\n")
            )
        })?;
        return Ok(vec![Subject { name: "spec".into(), source: Source::Spec, image, reach: Reach::All }]);
    }
    let entry = |k: &gemm_kernels::KernelEntry, source, reach| Subject {
        name: k.name.to_owned(),
        source,
        image: k.image(),
        reach,
    };
    let mut out = Vec::new();
    for &p in &setup.precisions {
        for &(op_a, op_b) in &setup.ops {
            let table2 = gemm_kernels::table2(p, op_a, op_b);
            // Each tuned kernel of the type on the shapes gemm-host gives it.
            let tuned = gemm_kernels::tuned_kernels(arch, p, op_a, op_b);
            if setup.choice == Choice::Table2 || tuned.is_empty() {
                out.push(entry(table2, Source::Table2, Reach::All));
                continue;
            }
            out.extend(tuned.iter().map(|k| entry(k, Source::Tuned, Reach::Dispatch { arch })));
            if setup.choice == Choice::Both {
                out.push(entry(table2, Source::Table2, Reach::All));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use gemm_codegen::Precision;

    use super::*;
    use crate::bench::setup::tests::parse;

    #[test]
    fn choose_finds_a_kernel_per_type() {
        let s = parse(&[]).unwrap();
        let chosen = choose(&s, 90).unwrap();
        let types = Precision::ALL.iter().flat_map(|&p| s.ops.iter().map(move |&(a, b)| (p, a, b)));
        let mut at = 0;
        for (p, a, b) in types {
            // The type's tuned kernels, each on the shapes gemm-host gives
            // it; Table 2's on every shape where there is none.
            let tuned = gemm_kernels::tuned_kernels(90, p, a, b);
            let expect: Vec<(&str, Source, Reach)> = if tuned.is_empty() {
                vec![(gemm_kernels::table2(p, a, b).entry, Source::Table2, Reach::All)]
            } else {
                tuned.iter().map(|k| (k.entry, Source::Tuned, Reach::Dispatch { arch: 90 })).collect()
            };
            for (entry, source, reach) in expect {
                let subject = &chosen[at];
                let spec = subject.image.spec;
                assert_eq!((spec.precision, spec.op_a, spec.op_b), (p, a, b));
                assert_eq!((&*subject.image.entry, subject.source, subject.reach), (entry, source, reach));
                at += 1;
            }
        }
        assert_eq!(at, chosen.len());
        // One subject per kernel, though a kernel may serve several classes.
        let names: std::collections::HashSet<&str> = chosen.iter().map(|k| &*k.image.entry).collect();
        assert_eq!(names.len(), chosen.len());
        // A dispatched kernel is timed exactly where gemm-host picks it.
        for subject in chosen.iter().filter(|k| k.reach != Reach::All) {
            let spec = subject.image.spec;
            for shape in [(256, 256, 256), (8192, 8192, 32), (8192, 8192, 64), (16384, 16384, 16384)] {
                for form in [Form::Product, Form::Update] {
                    let dim = |d: i64| d as u64;
                    let picked = gemm_kernels::Dispatch::TUNED.kernel_for(
                        90,
                        spec.precision,
                        spec.op_a,
                        spec.op_b,
                        (dim(shape.0), dim(shape.1), dim(shape.2)),
                        form,
                    );
                    assert_eq!(subject.times(shape, form, false), picked.entry == subject.image.entry);
                }
            }
        }
        let table2 = choose(&parse(&["--table2"]).unwrap(), 90).unwrap();
        assert!(table2.iter().all(|k| k.source == Source::Table2));
        assert_eq!(table2[0].label(), "SgemmNN/table2");
        // Both: each type's Table 2 kernel, after its tuned one if any.
        let both = choose(&parse(&["--both"]).unwrap(), 90).unwrap();
        assert_eq!(both.iter().filter(|k| k.source == Source::Table2).count(), 16);
        assert_eq!(both.len(), 16 + chosen.iter().filter(|k| k.source == Source::Tuned).count());
        let spec =
            choose(&parse(&["--spec", &table2[5].image.spec.to_invocation_body()]).unwrap(), 90).unwrap();
        assert_eq!(
            (spec.len(), spec[0].label(), spec[0].image.spec),
            (1, "spec".to_owned(), table2[5].image.spec)
        );
    }
}
