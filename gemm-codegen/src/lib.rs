//! The gemmforge kernel compiler: from a [`KernelSpec`] to PTX, with no GPU.
//!
//! # Pipeline
//!
//! ```text
//! KernelSpec ──validate──▶ Plan ──stencil::lower──▶ ptx::Module ──ptx::Writer──▶ PTX text
//!                │
//!                └──▶ Vec<Violation>   (the macro's compile errors, the tuner's pruning)
//! ```
//!
//! - [`KernelSpec`] is plain data: every parameter of the universal GEMM
//!   stencil of Kurzak, Tomov and Dongarra (tile, thread arrangement, the two
//!   load reshapes, shared-load width, global cache path), for one precision
//!   and one pair of ops.
//! - [`grammar`] reads a `gemm_kernel!` body into a [`KernelSpec`], for the
//!   macro and for `KernelSpec: FromStr` alike: one set of rules and
//!   messages, each error at the token it is about.
//! - [`validate`] checks the hard constraints (Algorithm 3, first section;
//!   one implementation shared by `gemm_kernel!` and the search space) and
//!   returns a [`Plan`]: the spec plus everything derived from it. A `Plan`
//!   exists only for legal specs, and lowering takes nothing else, so no
//!   stage downstream can be handed an unchecked spec.
//! - The stencil lowering builds the [`ptx`] IR through typed instruction
//!   constructors; its stages (global → shared movement, inner product,
//!   epilogue) sit behind small traits so that later kernel families can
//!   replace one without touching the others.
//! - [`family`] is the contract every kind of kernel meets ([`Family`]):
//!   the stencil is the first ([`Stencil`]). A compiled [`KernelImage`]
//!   carries what its family derives from the spec — the [`Abi`], the
//!   [`LaunchShape`] and the [`Requirements`] — and the host and the
//!   emulator launch it from those alone.
//! - [`ptx::Writer`] is the only code that produces PTX text, for every
//!   kernel family. The IR it prints is a closed set of instructions, so the
//!   text can be parsed back and executed without a GPU (the `gemm-emu`
//!   crate: the PTX reader and the emulator).
//!
//! # Invariants of emitted PTX
//!
//! - `.target` is the oldest architecture the kernel's instructions need
//!   (sm_70 for this stencil), `.version` the oldest PTX ISA for it.
//! - All address arithmetic is 64-bit: matrices beyond 2³¹ elements work.
//! - Out-of-range elements of A, B and C are never accessed, for any `m`, `n`,
//!   `k` ≥ 0 and any legal `lda`, `ldb`, `ldc`.
//! - The text starts with a header naming the spec and the generator
//!   version; registers and stencil phases are named and commented.
//!
//! Set `GEMMFORGE_DUMP_DIR` to a folder to have every [`emit`] write the
//! PTX and the IR it was printed from there (`<entry>.ptx`, `<entry>.ir`).

pub mod abi;
pub mod bespoke;
pub mod bound;
pub mod constraints;
pub mod device;
pub mod family;
pub mod grammar;
mod kernel;
pub mod ptx;
pub mod space;
pub mod spec;
pub mod stencil;
pub mod stream_k;

pub use abi::Abi;
pub use constraints::{
    Field, Limits, Operand, ParamPath, Plan, Rule, StripeLayout, StripePlan, Swizzle, Violation, legal_with,
    register_reuse, validate, validate_with,
};
pub use device::{ArchLimits, ComputeCapability, DeviceLimits, DriverLimits, Occupancy};
pub use family::{BlockOrder, Family, GridOverflow, LaunchShape, Requirements, Stencil};
pub use kernel::{Element, GemmKernel, KernelImage};
pub use space::{Bounds, Candidate, Guidelines, Pipeline, Space, Stats};
pub use spec::{
    GlobalLoad, KernelSpec, LoadShape, Math, MmaShape, Op, Operands, Precision, Schedule, SpecParseError,
    Target, WarpShape,
};

/// Re-exported so that `gemm_kernel!` expansions can name `Complex` without
/// the invoking crate depending on `num-complex` itself.
pub use half;
pub use num_complex;

/// The generator version named in every PTX header.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Lowers a validated plan to the PTX IR.
pub fn lower(plan: &Plan) -> ptx::Module {
    Stencil::lower(plan)
}

/// Lowers and prints a validated plan.
pub fn emit(plan: &Plan) -> KernelImage {
    let module = lower(plan);
    let text = ptx::write_string(&module);
    let entry = Stencil::entry_name(plan.spec());
    if let Some(dir) = std::env::var_os("GEMMFORGE_DUMP_DIR") {
        let dir = std::path::PathBuf::from(dir);
        // A debugging aid: failing to dump must not fail the compilation.
        let _ = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join(format!("{entry}.ptx")), &text))
            .and_then(|()| std::fs::write(dir.join(format!("{entry}.ir")), format!("{module:#?}")));
    }
    KernelImage {
        spec: *plan.spec(),
        ptx: text.into(),
        entry: entry.into(),
        shared_bytes: plan.shared_bytes(),
    }
}

/// Validates `spec` under [`Limits::PORTABLE`] and compiles it.
pub fn compile(spec: &KernelSpec) -> Result<KernelImage, Vec<Violation>> {
    validate(spec).map(|plan| emit(&plan))
}
