//! [`BespokeKernel`]: a compiled bespoke kernel and what its unaligned
//! twin is compiled from.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use gemm_codegen::bespoke::{self, BespokeImage, BespokeSpec, Operator};

use crate::error::GemmError;
use crate::kernel::LoadedBespoke;

/// A bespoke kernel compiled for one operator, ready for any arguments:
/// those that miss its vector alignment (`width` columns per thread) run
/// its unaligned twin ([`BespokeSpec::unaligned_twin`]), which is compiled
/// from the operator on first need and kept.
///
/// ```
/// use std::sync::Arc;
/// use gemm_host::bespoke::{BespokeKernel, BespokeSpec, Operator};
/// use gemm_host::Precision;
///
/// let a = Arc::new(Operator::from_fn(3, 2, |i, j| (i + j) as f64).unwrap());
/// let spec = BespokeSpec { width: 2, block: 32, ..BespokeSpec::new(Precision::F64) };
/// let kernel = BespokeKernel::compile(a, &spec).unwrap();
/// assert_eq!(kernel.variant(true).unwrap().spec.width, 2);
/// assert_eq!(kernel.variant(false).unwrap().spec.width, 1);
/// ```
#[derive(Debug)]
pub struct BespokeKernel {
    operator: Arc<Operator>,
    image: BespokeImage,
    twin: OnceLock<BespokeImage>,
    /// The kernel and its twin loaded into each context it ran in, by
    /// `CUcontext` handle (the loaded kernels keep their context alive, so
    /// a handle is never reused while listed here).
    pub(crate) loaded: Mutex<Vec<(usize, Slots)>>,
}

/// A context's loaded kernel and twin.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    pub(crate) main: Option<Arc<LoadedBespoke>>,
    pub(crate) twin: Option<Arc<LoadedBespoke>>,
}

impl BespokeKernel {
    /// Validates `spec` for `operator` and compiles it; the error lists
    /// every rule the spec breaks.
    pub fn compile(operator: Arc<Operator>, spec: &BespokeSpec) -> Result<BespokeKernel, GemmError> {
        let image = compile(&operator, spec)?;
        Ok(BespokeKernel { operator, image, twin: OnceLock::new(), loaded: Mutex::default() })
    }

    /// The kernel's image.
    pub fn image(&self) -> &BespokeImage {
        &self.image
    }

    /// Its spec.
    pub fn spec(&self) -> &BespokeSpec {
        &self.image.spec
    }

    /// The operator it was compiled from.
    pub fn operator(&self) -> &Arc<Operator> {
        &self.operator
    }

    /// The image that runs arguments that are `aligned` to the kernel's
    /// width (itself) or not (its unaligned twin, compiled on the first
    /// call that needs it; a kernel of one column per thread is its own
    /// twin).
    pub fn variant(&self, aligned: bool) -> Result<&BespokeImage, GemmError> {
        let Some(spec) = self.image.spec.unaligned_twin().filter(|_| !aligned) else {
            return Ok(&self.image);
        };
        if let Some(twin) = self.twin.get() {
            return Ok(twin);
        }
        // Two threads may both compile it; the generator is deterministic.
        let twin = compile(&self.operator, &spec)?;
        Ok(self.twin.get_or_init(|| twin))
    }

    /// The loaded kernels of the context `ctx` (a `CUcontext` handle).
    pub(crate) fn slots<R>(&self, ctx: usize, f: impl FnOnce(&mut Slots) -> R) -> R {
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        let i = match loaded.iter().position(|(c, _)| *c == ctx) {
            Some(i) => i,
            None => {
                loaded.push((ctx, Slots::default()));
                loaded.len() - 1
            }
        };
        f(&mut loaded[i].1)
    }
}

/// [`bespoke::compile`], its violations as [`GemmError::IllegalSpec`].
fn compile(operator: &Operator, spec: &BespokeSpec) -> Result<BespokeImage, GemmError> {
    bespoke::compile(operator, spec).map_err(|violations| GemmError::IllegalSpec {
        kernel: bespoke::entry_name(spec, operator.rows(), operator.cols(), bespoke::digest(operator)),
        reason: violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
    })
}

#[cfg(test)]
mod tests {
    use gemm_codegen::Precision;

    use super::*;

    #[test]
    fn an_illegal_spec_names_every_broken_rule_and_the_twin_is_compiled_once() {
        let a = Arc::new(Operator::from_fn(4, 4, |i, j| (i * j) as f64).unwrap());
        let bad = BespokeSpec { width: 3, block: 40, ..BespokeSpec::new(Precision::F32) };
        let e = BespokeKernel::compile(Arc::clone(&a), &bad).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("width:") && text.contains("block:"), "{text}");
        let spec = BespokeSpec { width: 4, block: 32, ..BespokeSpec::new(Precision::F32) };
        let k = BespokeKernel::compile(a, &spec).unwrap();
        let twin = k.variant(false).unwrap() as *const BespokeImage;
        assert_eq!(twin, k.variant(false).unwrap() as *const _);
        assert_eq!(k.variant(false).unwrap().spec, BespokeSpec { width: 1, ..spec });
        assert_eq!(k.variant(true).unwrap(), k.image());
    }
}
