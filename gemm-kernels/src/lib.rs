//! GEMM kernel instances compiled into the library by `gemm_kernel!`, and
//! bespoke constant-A kernels by `gemm_bespoke!`.
//!
//! Each instance is a zero-sized type implementing [`GemmKernel`] (its PTX,
//! entry name and spec as associated constants, checked and generated when
//! this crate compiles), and a [`KernelEntry`]: the same facts as a value,
//! for code that picks a kernel at run time.
//!
//! - [`TABLE2`]: the 16 configurations of Table 2 of Kurzak, Tomov and
//!   Dongarra, extended to all 9 op combinations of each precision (36
//!   kernels; see [`table2`](mod@table2) for where each comes from). Always
//!   available, on every GPU.
//! - [`HALF`]: the default kernels of the 16-bit precisions `f16` and
//!   `bf16` (sm_90a only; see [`half`](mod@half)), which [`table2()`]
//!   returns for them.
//! - [`tuned`]: kernels `cargo xtask tune` wrote for particular GPU
//!   families, possibly several per type (one per shape class it was tuned
//!   at). [`Dispatch::TUNED`] picks among them: [`Dispatch::kernel_for`] by
//!   the call's shape and [`Form`], [`Dispatch::default_kernel`] the largest,
//!   [`Dispatch::batch_kernel_for`] by the shape of a batch's problems, with
//!   the classes tuned on batches ([`KernelEntry::batch`]) taking part; a
//!   [`Dispatch`] of the caller's own classes (beside the tuned ones or
//!   instead of them) is how a user overrides them
//!   (`gemm_host::Gemm::with_dispatch`).
//! - [`bespoke`](mod@bespoke): bespoke constant-A kernels compiled by
//!   `gemm_bespoke!` from the element operators in `data/bespoke/`, each a
//!   type implementing `gemm_codegen::bespoke::BespokeKernel` and a
//!   [`bespoke::BespokeEntry`] of [`bespoke::ALL`].
//!
//! ```
//! use gemm_codegen::{GemmKernel, Op, Precision};
//! use gemm_kernels::{SgemmNT, table2};
//!
//! let entry = table2(Precision::F32, Op::N, Op::T);
//! assert_eq!(entry.name, "SgemmNT");
//! assert_eq!(entry.ptx, SgemmNT::PTX);
//! assert_eq!(entry.spec.m_blk, 96);
//! ```

pub mod bespoke;
mod dispatch;
pub mod half;
pub mod split_sum;
pub mod table2;
pub mod tuned;

use std::borrow::Cow;

use gemm_codegen::{GemmKernel, KernelImage, KernelSpec, Op, Precision};

pub use dispatch::Dispatch;
pub use half::HALF;
pub use split_sum::{SPLIT_SUM, split_sum};
pub use table2::*;

/// One kernel instance compiled into this crate.
#[derive(Clone, Copy, Debug)]
pub struct KernelEntry {
    /// The name of its type, e.g. `"SgemmNN"`.
    pub name: &'static str,
    /// The validated spec.
    pub spec: KernelSpec,
    /// The PTX module text.
    pub ptx: &'static str,
    /// The `.entry` name in [`KernelEntry::ptx`].
    pub entry: &'static str,
    /// Bytes of static shared memory per block.
    pub shared_bytes: u32,
    /// For a tuned kernel, the `(m, n, k)` it won at: a family may hold
    /// several kernels of one type, each for the calls nearest its shape
    /// ([`Dispatch::kernel_for`]). Zeros for Table 2.
    pub tuned_for: [u32; 3],
    /// Tuned on packed batches of `tuned_for` problems (`xtask tune
    /// --batch`): a class for batched calls only ([`Dispatch::batch_kernel_for`]), not
    /// for one problem of that shape, which wants more blocks of its own.
    pub batch: bool,
    /// For a tuned kernel, the slices its class splits K into (`xtask tune`
    /// timed the winner split 2, 3 and 4 ways where its tiles leave the GPU
    /// idle, and keeps the fastest): gemm-host's default split for calls of
    /// the class with no more tiles than the class shape had. 1: not split
    /// (the runner's rule decides, as for long K).
    pub slices: u32,
    /// The call form its class was timed in (`xtask tune --update`:
    /// [`Form::Update`]): the dispatch prefers classes of the call's own
    /// form ([`Dispatch::kernel_for`]). [`Form::Product`] for Table 2.
    pub form: Form,
}

/// How a call uses C, which decides what its kernel's epilogue costs: a
/// kernel tuned for one form is not the best for the other where writing
/// C dominates (skinny K), so classes carry the form they were timed in
/// ([`KernelEntry::form`]) and a call asks for its own
/// ([`Dispatch::kernel_for`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    /// `C = alpha · op(A) · op(B)`: beta = 0, C is only written (the
    /// tuner's default timing, `C = A·B`).
    Product,
    /// `C = alpha · op(A) · op(B) + beta · C` with beta ≠ 0: the old C is
    /// read (the tuner's `--update`, `C = C − A·B`: the trailing update of
    /// a right-looking LU factorization).
    Update,
}

impl Form {
    /// The form of a call whose beta is zero (`true`) or not.
    pub const fn of_beta(beta_is_zero: bool) -> Form {
        if beta_is_zero { Form::Product } else { Form::Update }
    }
}

impl KernelEntry {
    /// The entry for kernel type `K`, called `name`.
    pub const fn of<K: GemmKernel>(name: &'static str) -> KernelEntry {
        KernelEntry {
            name,
            spec: K::SPEC,
            ptx: K::PTX,
            entry: K::ENTRY,
            shared_bytes: K::SHARED_BYTES,
            tuned_for: [0; 3],
            batch: false,
            slices: 1,
            form: Form::Product,
        }
    }

    /// The entry for kernel type `K`, called `name`, tuned at the problem
    /// `shape` (`[m, n, k]`).
    pub const fn tuned<K: GemmKernel>(name: &'static str, shape: [u32; 3]) -> KernelEntry {
        KernelEntry { tuned_for: shape, ..KernelEntry::of::<K>(name) }
    }

    /// The entry for kernel type `K`, called `name`, tuned on packed
    /// batches of `shape` problems ([`KernelEntry::batch`]).
    pub const fn tuned_batch<K: GemmKernel>(name: &'static str, shape: [u32; 3]) -> KernelEntry {
        KernelEntry { batch: true, ..KernelEntry::tuned::<K>(name, shape) }
    }

    /// The same class with K split into `slices` slices
    /// ([`KernelEntry::slices`]).
    pub const fn split(self, slices: u32) -> KernelEntry {
        KernelEntry { slices, ..self }
    }

    /// The same class timed as the update ([`Form::Update`]).
    pub const fn update(self) -> KernelEntry {
        KernelEntry { form: Form::Update, ..self }
    }

    /// `m · n · k` of the shape it was tuned at (0 for Table 2).
    pub fn tuned_volume(&self) -> u64 {
        self.tuned_for.iter().map(|&d| u64::from(d)).product()
    }

    /// The same facts as a [`KernelImage`], borrowing the text.
    pub fn image(&self) -> KernelImage {
        KernelImage {
            spec: self.spec,
            ptx: Cow::Borrowed(self.ptx),
            entry: Cow::Borrowed(self.entry),
            shared_bytes: self.shared_bytes,
        }
    }
}

/// The Table 2 kernel for `precision` and the ops: `SgemmNN` for
/// `(F32, N, N)`, ... On real precisions a `C` op finds the kernel named with
/// `C` (e.g. `SgemmCN`), which has the configuration of the `T` one and
/// computes the same product.
///
/// For the 16-bit precisions, which Table 2 does not have, their default
/// kernel of [`HALF`] (`HgemmNN`, `BgemmNN`, ...).
pub fn table2(precision: Precision, op_a: Op, op_b: Op) -> &'static KernelEntry {
    let index = table2_index(precision, op_a, op_b);
    match precision {
        Precision::F16 | Precision::Bf16 => &HALF[index - TABLE2.len()],
        _ => &TABLE2[index],
    }
}

/// Position in [`TABLE2`] (then [`HALF`]): BLAS order S, D, C, Z, f16,
/// bf16, then ops NN NT NC TN ...
fn table2_index(precision: Precision, op_a: Op, op_b: Op) -> usize {
    let op = |op: Op| match op {
        Op::N => 0,
        Op::T => 1,
        Op::C => 2,
    };
    precision.index() * 9 + op(op_a) * 3 + op(op_b)
}

/// Every tuned kernel gemm-host may use for the type on a GPU of compute
/// capability `arch`, each once (a kernel serving several shape classes
/// appears at its largest), largest tuning volume first; empty when only
/// Table 2 applies.
pub fn tuned_kernels(arch: u32, precision: Precision, op_a: Op, op_b: Op) -> Vec<&'static KernelEntry> {
    first_of_each(tuned::of_type(&tuned::families::FAMILIES, arch, precision, op_a, op_b))
}

/// Every kernel instance of the crate, once: Table 2, the 16-bit defaults
/// ([`HALF`]), the split-sum kernels
/// ([`split_sum`]), then every tuned family's.
pub fn all() -> impl Iterator<Item = &'static KernelEntry> {
    TABLE2
        .iter()
        .chain(&HALF)
        .chain(&SPLIT_SUM)
        .chain(tuned::families::FAMILIES.iter().flat_map(|f| first_of_each(f.kernels)))
}

/// The first entry of each kernel instance among `entries`, in order: a
/// kernel tuned at several shapes has an entry (of the same name) per shape.
fn first_of_each(entries: impl IntoIterator<Item = &'static KernelEntry>) -> Vec<&'static KernelEntry> {
    let mut out: Vec<&'static KernelEntry> = Vec::new();
    for k in entries {
        if out.iter().all(|o| o.name != k.name) {
            out.push(k);
        }
    }
    out
}
