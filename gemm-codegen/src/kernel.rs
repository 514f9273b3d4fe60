//! What a compiled kernel is at run time: the element types, the
//! [`GemmKernel`] trait that every `gemm_kernel!` item implements, and
//! [`KernelImage`], the same facts as a value for kernels generated at run
//! time (the tuner's).

use std::borrow::Cow;

use num_complex::Complex;

use crate::abi::Abi;
use crate::constraints::Violation;
use crate::family::{Family, LaunchShape, Requirements, Stencil};
use crate::spec::{KernelSpec, Precision};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for num_complex::Complex<f32> {}
    impl Sealed for num_complex::Complex<f64> {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// A GEMM element type: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`, or
/// the 16-bit `half::f16` and `half::bf16` (accumulated in f32).
///
/// Sealed: the stencil is generated for exactly these six.
pub trait Element: sealed::Sealed + Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    /// The precision of kernels on this type.
    const PRECISION: Precision;
    /// The real scalar: `f32` or `f64`.
    type Real: Element + Into<f64>;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The scalars of this value, real part first (`[re]` or `[re, im]`).
    fn parts(self) -> [Self::Real; 2];
    /// Builds a value from its parts (`im` ignored for reals).
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
}

impl Element for f32 {
    const PRECISION: Precision = Precision::F32;
    type Real = f32;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn parts(self) -> [f32; 2] {
        [self, 0.0]
    }
    fn from_parts(re: f32, _: f32) -> f32 {
        re
    }
}

impl Element for f64 {
    const PRECISION: Precision = Precision::F64;
    type Real = f64;
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn parts(self) -> [f64; 2] {
        [self, 0.0]
    }
    fn from_parts(re: f64, _: f64) -> f64 {
        re
    }
}

impl Element for Complex<f32> {
    const PRECISION: Precision = Precision::C32;
    type Real = f32;
    const ZERO: Self = Complex::new(0.0, 0.0);
    const ONE: Self = Complex::new(1.0, 0.0);
    fn parts(self) -> [f32; 2] {
        [self.re, self.im]
    }
    fn from_parts(re: f32, im: f32) -> Self {
        Complex::new(re, im)
    }
}

impl Element for Complex<f64> {
    const PRECISION: Precision = Precision::C64;
    type Real = f64;
    const ZERO: Self = Complex::new(0.0, 0.0);
    const ONE: Self = Complex::new(1.0, 0.0);
    fn parts(self) -> [f64; 2] {
        [self.re, self.im]
    }
    fn from_parts(re: f64, im: f64) -> Self {
        Complex::new(re, im)
    }
}

impl Element for half::f16 {
    const PRECISION: Precision = Precision::F16;
    type Real = half::f16;
    const ZERO: Self = half::f16::ZERO;
    const ONE: Self = half::f16::ONE;
    fn parts(self) -> [Self; 2] {
        [self, half::f16::ZERO]
    }
    fn from_parts(re: Self, _: Self) -> Self {
        re
    }
}

impl Element for half::bf16 {
    const PRECISION: Precision = Precision::Bf16;
    type Real = half::bf16;
    const ZERO: Self = half::bf16::ZERO;
    const ONE: Self = half::bf16::ONE;
    fn parts(self) -> [Self; 2] {
        [self, half::bf16::ZERO]
    }
    fn from_parts(re: Self, _: Self) -> Self {
        re
    }
}

/// A kernel compiled by `gemm_kernel!`: a zero-sized type whose associated
/// constants carry the validated spec and the PTX generated from it.
///
/// Typed by its element: a launch API generic over `K: GemmKernel` takes
/// buffers of `K::Elem`, so a CGEMM kernel cannot be launched on `f32` data.
pub trait GemmKernel: Send + Sync + 'static {
    /// Element type of A, B and C.
    type Elem: Element;
    /// The validated spec.
    const SPEC: KernelSpec;
    /// The PTX module text.
    const PTX: &'static str;
    /// The `.entry` name in [`GemmKernel::PTX`].
    const ENTRY: &'static str;
    /// Bytes of shared memory per block: declared statically up to 48 KiB,
    /// dynamically above (see [`crate::constraints::dynamic_shared_bytes`]).
    const SHARED_BYTES: u32;

    /// How the kernel is launched: block, grid for a problem, dynamic
    /// shared memory.
    fn launch() -> LaunchShape {
        Stencil::launch_shape(&Self::SPEC)
    }

    /// The same facts as a value.
    fn image() -> KernelImage {
        KernelImage {
            spec: Self::SPEC,
            ptx: Cow::Borrowed(Self::PTX),
            entry: Cow::Borrowed(Self::ENTRY),
            shared_bytes: Self::SHARED_BYTES,
        }
    }
}

/// A compiled kernel as a value: what the host needs to load and launch it,
/// and the emulator to run it. The host and the emulator use only its
/// [`KernelImage::abi`], [`KernelImage::launch`] and
/// [`KernelImage::requires`], which its family derives from the spec.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelImage {
    /// The validated spec.
    pub spec: KernelSpec,
    /// The PTX module text.
    pub ptx: Cow<'static, str>,
    /// The `.entry` name.
    pub entry: Cow<'static, str>,
    /// Bytes of shared memory per block: declared statically up to 48 KiB,
    /// dynamically above (see [`crate::constraints::dynamic_shared_bytes`]).
    pub shared_bytes: u32,
}

impl KernelImage {
    /// The kernel's parameter list: what the emulator and the host pass,
    /// in order.
    pub fn abi(&self) -> Abi {
        Stencil::abi(&self.spec)
    }

    /// How the kernel is launched. Its dynamic shared memory is all of
    /// [`KernelImage::shared_bytes`] when that is over the 48 KiB a kernel
    /// may declare statically (the host then raises the function's
    /// `MAX_DYNAMIC_SHARED_SIZE_BYTES` to it), else 0.
    pub const fn launch(&self) -> LaunchShape {
        Stencil::launch_shape(&self.spec)
    }

    /// What the kernel requires of the GPU and of its arguments.
    pub const fn requires(&self) -> Requirements {
        Stencil::requirements_of(&self.spec)
    }

    /// The same kernel assuming only element alignment of A and B, compiled,
    /// for arguments that miss [`Requirements::operand_alignment`]; `None`
    /// when this one assumes nothing more. An error only for an image whose
    /// spec was never validated.
    pub fn unaligned_twin(&self) -> Option<Result<KernelImage, Vec<Violation>>> {
        Stencil::unaligned_twin(&self.spec).map(|twin| crate::compile(&twin))
    }
}
