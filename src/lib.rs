//! gemmforge: GEMM kernels compiled from Rust, checked while your crate
//! compiles, run on NVIDIA GPUs.
//!
//! A GEMM kernel here is one instance of the universal stencil of Kurzak,
//! Tomov and Dongarra (*Autotuning GEMMs for Fermi*): a block of threads
//! computes one tile of `C = alpha·op(A)·op(B) + beta·C`, streaming stripes
//! of A and B through shared memory while the next ones are fetched, with the
//! C tile held in registers. A handful of numbers (the tile, the thread
//! arrangement, how threads are reshaped to read A and B) decide how fast it
//! runs on a given GPU, and many combinations of them cannot work at all.
//!
//! [`gemm_kernel!`] takes those numbers, checks every hard constraint at
//! compile time (each violation a compile error on the offending token,
//! saying what to change), generates the PTX with gemmforge's own code
//! generator, and defines a zero-sized type implementing [`GemmKernel`]: its
//! spec, PTX text, entry name and shared memory are associated constants,
//! and its element type is part of the type, so it cannot be launched on the
//! wrong data.
//!
//! ```
//! use gemmforge::{GemmKernel, Op, Precision, gemm_kernel};
//!
//! gemm_kernel! {
//!     name = MySgemmNT,
//!     precision = f32,          // f32 | f64 | c32 | c64
//!     op = (N, T),              // op(A), op(B): each N | T | C
//!     tile = (64, 64, 16),      // (M_blk, N_blk, K_blk)
//!     threads = (16, 16),       // (M_dim, N_dim)
//!     load_a = (16, 16),        // threads reading A's stored stripe: (along its leading dim, across)
//!     load_b = (16, 16),        // likewise for B
//!     lds_width = 2,            // optional (default 1): elements per shared-memory load
//! }
//!
//! assert_eq!(MySgemmNT::SPEC.precision, Precision::F32);
//! assert_eq!(MySgemmNT::SPEC.op_b, Op::T);
//! assert_eq!(MySgemmNT::launch().block, (256, 1, 1));
//! assert_eq!(MySgemmNT::launch().grid(1000, 100), Ok((16, 2, 1)));
//! assert!(MySgemmNT::ENTRY.starts_with("gemmforge_sgemm_nt_64x64x16"));
//! assert!(MySgemmNT::PTX.contains(&format!(".entry {}", MySgemmNT::ENTRY)));
//! let _: <MySgemmNT as GemmKernel>::Elem = 0.5f32;
//! ```
//!
//! An illegal configuration does not compile; here `tile.0` (100) is not a
//! multiple of `threads.0` (16), and the error says so on the `100`:
//!
//! ```compile_fail
//! gemmforge::gemm_kernel! {
//!     name = Broken,
//!     precision = f32,
//!     op = (N, N),
//!     tile = (100, 96, 16),
//!     threads = (16, 16),
//!     load_a = (32, 8),
//!     load_b = (8, 32),
//! }
//! ```
//!
//! # Bespoke constant-A kernels
//!
//! High-order solvers multiply small constant operators by very wide
//! matrices. [`gemm_bespoke!`] reads such an operator A from a Matrix
//! Market file while your crate compiles (the path is relative to its
//! Cargo.toml) and generates `C = alpha·A·B + beta·C` with A's values as
//! immediates and no code for its zeros; B (`k × n`) and C (`m × n`) are
//! row-major with `n` contiguous. The type implements [`BespokeKernel`].
//! Leave out `family` and the spec is chosen for the operator; a mistake in
//! the file is a compile error on the path, naming the file's line.
//!
//! ```
//! use gemmforge::{BespokeKernel, gemm_bespoke};
//!
//! gemm_bespoke! {
//!     name = RandomSparse,
//!     a = "gemm-kernels/data/bespoke/rand-48x40-d0.10.mtx",
//!     precision = f64,   // f32 | f64
//!     beta = 0,          // optional: 0 | 1 | runtime (default runtime)
//! }
//!
//! assert_eq!((RandomSparse::M, RandomSparse::K), (48, 40));
//! assert!(RandomSparse::PTX.contains(&format!(".entry {}", RandomSparse::ENTRY)));
//! let _: <RandomSparse as BespokeKernel>::Elem = 0.5f64;
//! ```
//!
//! # Running a GEMM
//!
//! [`host::Gemm`] runs BLAS-style calls on a CUDA GPU; every argument is
//! checked before anything is launched, and an error names the argument,
//! its value and the rule it broke.
//!
//! ```no_run
//! use gemmforge::Op;
//! use gemmforge::host::{Gemm, GemmConfig, GemmError};
//!
//! # fn main() -> Result<(), GemmError> {
//! let gemm = Gemm::open(0)?; // the first CUDA GPU
//! let (m, n, k) = (1000, 800, 600);
//! let a = gemm.upload(&vec![1.0f32; m * k])?;
//! let b = gemm.upload(&vec![0.5f32; n * k])?;
//! let mut c = gemm.alloc_zeros::<f32>(m * n)?;
//! // C = 2 A Bᵀ, column-major with tight leading dimensions.
//! let cfg = GemmConfig::new(Op::N, Op::T, m as i64, n as i64, k as i64).alpha(2.0);
//! gemm.sgemm(&cfg, &a, &b, &mut c)?; // the kernel tuned for this GPU, or Table 2's
//! assert_eq!(gemm.download(&c)?[0], 600.0);
//! # Ok(())
//! # }
//! ```
//!
//! Without a GPU, [`host::emulate::Emulator`] runs the same checked call on
//! host slices in gemmforge's PTX emulator.
//!
//! Which kernel `sgemm` and friends run is the runner's
//! [`kernels::Dispatch`] (by default the tuner's tables: of the shape
//! classes tuned for the GPU's family, the one nearest the call's shape),
//! and how they split K its [`host::SplitRule`]. Both can be replaced, e.g.
//! by a kernel of one's own for one class:
//!
//! ```no_run
//! use gemmforge::host::{Dispatch, Gemm, GemmError, KernelEntry, SplitRule};
//! use gemmforge::kernels::tuned::Family;
//!
//! gemmforge::gemm_kernel! {
//!     name = Dgemm768, precision = f64, op = (N, N), tile = (64, 64, 16), threads = (16, 16),
//!     load_a = (64, 4), load_b = (16, 16)
//! }
//! static MINE: [KernelEntry; 1] = [KernelEntry::tuned::<Dgemm768>("mine::Dgemm768", [768, 768, 768])];
//! static FAMILIES: [Family; 1] = [Family { arch: 90, kernels: &MINE }];
//!
//! # fn main() -> Result<(), GemmError> {
//! // Beside the tuned classes (the nearest shape wins, ties go to ours);
//! // `Dispatch::only(&FAMILIES)` would use ours instead of them.
//! let gemm = Gemm::open(0)?.with_dispatch(Dispatch::TUNED.with(&FAMILIES)).with_split(SplitRule::Never);
//! # let _ = gemm;
//! # Ok(())
//! # }
//! ```
//!
//! # The crates
//!
//! - [`codegen`] (`gemm-codegen`): the kernel compiler, plain Rust with no
//!   GPU: [`KernelSpec`], the constraints, the stencil lowering and the PTX
//!   writer. The macro and the tuner both use it; it also compiles kernels
//!   chosen at run time ([`codegen::compile`] → [`KernelImage`]).
//! - [`emu`] (`gemm-emu`): the PTX reader and the emulator that runs the
//!   emitted PTX on the CPU, reporting out-of-bounds accesses, races and
//!   reads of unwritten state; [`host::emulate`] puts the BLAS API on it.
//! - [`kernels`] (`gemm-kernels`): ready-made kernel instances: the Table 2
//!   configurations of the paper for all four precisions and nine op
//!   combinations, the winners `cargo xtask tune` wrote for each GPU family
//!   it ran on, the choice of a default kernel for a GPU, and bespoke
//!   kernels of a few element operators.
//! - [`host`] (`gemm-host`): the runtime on `cudarc`: loads a kernel's PTX
//!   onto a CUDA device and launches it with BLAS semantics, checking every
//!   argument first and returning a typed error instead of reading or
//!   writing out of bounds. It runs any [`GemmKernel`] (or [`KernelImage`]),
//!   and the default kernels of [`kernels`] when you just want a GEMM.

// Lets `gemm_kernel!` expansions name `::gemmforge::codegen` inside this
// crate too, as they do in every crate that depends on it.
extern crate self as gemmforge;

/// Defines a GEMM kernel type from its parameters, checked and compiled to
/// PTX at compile time. See the [crate documentation](crate) and
/// `examples/sgemm-expanded.rs` for what it expands to.
pub use gemm_macros::gemm_kernel;

/// Defines a bespoke constant-A kernel type from a Matrix Market operator
/// file, read, checked and compiled to PTX at compile time. See the
/// [crate documentation](crate#bespoke-constant-a-kernels).
pub use gemm_macros::gemm_bespoke;

pub use gemm_codegen as codegen;
pub use gemm_emu as emu;
pub use gemm_host as host;
pub use gemm_kernels as kernels;

pub use gemm_codegen::bespoke::BespokeKernel;
pub use gemm_codegen::{
    Element, GemmKernel, GlobalLoad, KernelImage, KernelSpec, LoadShape, Math, Op, Precision,
};
pub use num_complex::Complex;
