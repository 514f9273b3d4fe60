//! Bespoke constant-A kernels compiled into the library by `gemm_bespoke!`:
//! `C = alpha·A·B + beta·C` for an operator A of a high-order element
//! solver (or a random sparse one), read from `data/bespoke/*.mtx` while
//! this crate compiles, its values immediates in the PTX.
//!
//! Each instance is a zero-sized type implementing [`BespokeKernel`], and a
//! [`BespokeEntry`] in [`ALL`]: the same facts as a value. Some give their
//! walk (`family` and its parameters); the others leave it out and take the
//! operator's default spec ([`gemm_codegen::bespoke::default_spec`]).
//!
//! The operator files are generated (`tests/bespoke_data.rs` fails when
//! one differs from what `gemm_codegen::bespoke::operators` builds), and
//! every instance runs in the PTX emulator against an `f64` reference
//! (`tests/bespoke.rs`).
//!
//! ```
//! use gemm_codegen::bespoke::{BespokeKernel, Form};
//! use gemm_kernels::bespoke::{ALL, HexP3Grad};
//!
//! assert_eq!((HexP3Grad::M, HexP3Grad::K), (192, 64));
//! let entry = ALL.iter().find(|e| e.name == "HexP3Grad").unwrap();
//! assert_eq!(entry.image(), HexP3Grad::image());
//! // `family` left out: C-streaming holds the 64 used rows of B.
//! assert_eq!(HexP3Grad::SPEC.form, Form::CStream);
//! ```

use std::borrow::Cow;

use gemm_codegen::bespoke::{BespokeImage, BespokeKernel, BespokeSpec};
use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = HexP3Grad,
    a = "data/bespoke/hex-p3-gl-grad.mtx",
    precision = f64,
}

gemm_bespoke! {
    name = HexP3GradStaged,
    a = "data/bespoke/hex-p3-gl-grad.mtx",
    precision = f32,
    family = bstream,
    width = 2,
    block = 64,
    msplit = 4,
    chunk = 8,
    beta = 0,
}

gemm_bespoke! {
    name = QuadP4Interp,
    a = "data/bespoke/quad-p4-gl-gll-interp.mtx",
    precision = f32,
    family = cstream,
    width = 4,
    beta = 1,
    arch = sm_90,
}

gemm_bespoke! {
    name = QuadP4Grad,
    a = "data/bespoke/quad-p4-gll-gl-grad.mtx",
    precision = f64,
    beta = 0,
}

gemm_bespoke! {
    name = Rand48x40,
    a = "data/bespoke/rand-48x40-d0.10.mtx",
    precision = f64,
    family = bstream,
    width = 2,
    block = 32,
    msplit = 3,
    chunk = 4,
}

/// One bespoke instance compiled into this crate.
#[derive(Clone, Copy, Debug)]
pub struct BespokeEntry {
    /// The name of its type, e.g. `"HexP3Grad"`.
    pub name: &'static str,
    /// The operator's Matrix Market file, relative to this crate's root,
    /// as the invocation names it.
    pub file: &'static str,
    /// The validated spec.
    pub spec: BespokeSpec,
    /// The PTX module text.
    pub ptx: &'static str,
    /// The `.entry` name in [`BespokeEntry::ptx`].
    pub entry: &'static str,
    /// Rows of the operator (and of C).
    pub m: u32,
    /// Columns of the operator (rows of B).
    pub k: u32,
    /// The operator's digest.
    pub digest: u64,
}

impl BespokeEntry {
    /// The entry for kernel type `K`, called `name`, compiled from `file`.
    pub const fn of<K: BespokeKernel>(name: &'static str, file: &'static str) -> BespokeEntry {
        BespokeEntry {
            name,
            file,
            spec: K::SPEC,
            ptx: K::PTX,
            entry: K::ENTRY,
            m: K::M,
            k: K::K,
            digest: K::DIGEST,
        }
    }

    /// The same facts as a [`BespokeImage`], borrowing the text.
    pub fn image(&self) -> BespokeImage {
        BespokeImage {
            spec: self.spec,
            m: self.m,
            k: self.k,
            digest: self.digest,
            ptx: Cow::Borrowed(self.ptx),
            entry: Cow::Borrowed(self.entry),
        }
    }
}

/// Every instance of this module.
pub static ALL: [BespokeEntry; 5] = [
    BespokeEntry::of::<HexP3Grad>("HexP3Grad", "data/bespoke/hex-p3-gl-grad.mtx"),
    BespokeEntry::of::<HexP3GradStaged>("HexP3GradStaged", "data/bespoke/hex-p3-gl-grad.mtx"),
    BespokeEntry::of::<QuadP4Interp>("QuadP4Interp", "data/bespoke/quad-p4-gl-gll-interp.mtx"),
    BespokeEntry::of::<QuadP4Grad>("QuadP4Grad", "data/bespoke/quad-p4-gll-gl-grad.mtx"),
    BespokeEntry::of::<Rand48x40>("Rand48x40", "data/bespoke/rand-48x40-d0.10.mtx"),
];
