//! [`BespokeKernel`]: what every `gemm_bespoke!` item implements, the
//! bespoke counterpart of [`crate::GemmKernel`].

use std::borrow::Cow;

use super::image::BespokeImage;
use super::spec::BespokeSpec;
use crate::kernel::Element;

/// A bespoke kernel compiled by `gemm_bespoke!`: a zero-sized type whose
/// associated constants carry the validated spec, the operator's shape and
/// digest, and the PTX generated with the operator's values in its code.
///
/// Typed by its element, as [`crate::GemmKernel`] is: a launch API generic
/// over `K: BespokeKernel` takes B and C of `K::Elem`, so an `f32` kernel
/// cannot be launched on `f64` data.
pub trait BespokeKernel: Send + Sync + 'static {
    /// Element type of B and C: `f32` or `f64`.
    type Elem: Element;
    /// The validated spec: chosen by the invocation, or the operator's
    /// default when it left out `family`.
    const SPEC: BespokeSpec;
    /// The PTX module text.
    const PTX: &'static str;
    /// The `.entry` name in [`BespokeKernel::PTX`].
    const ENTRY: &'static str;
    /// Rows of the operator A (and of C).
    const M: u32;
    /// Columns of the operator A (rows of B).
    const K: u32;
    /// [`super::digest`] of the operator.
    const DIGEST: u64;

    /// The same facts as a value, borrowing the text: what the host and the
    /// emulator launch it from.
    fn image() -> BespokeImage {
        BespokeImage {
            spec: Self::SPEC,
            m: Self::M,
            k: Self::K,
            digest: Self::DIGEST,
            ptx: Cow::Borrowed(Self::PTX),
            entry: Cow::Borrowed(Self::ENTRY),
        }
    }
}
