//! The PTX intermediate representation: modules, kernels, registers and
//! instructions, as typed data.
//!
//! Every kernel family builds this IR through [`crate::ptx::KernelBuilder`]
//! and prints it with [`crate::ptx::Writer`]; nothing else produces PTX text.
//! The IR covers the subset of PTX that gemmforge emits, so it can be parsed
//! back and executed by an emulator without a GPU.
//!
//! Invariants, upheld by the builder:
//! - every [`Reg`] names a declaration of the kernel it is used in, with the
//!   same type;
//! - register names are valid PTX identifiers, unique within the kernel, and
//!   never a PTX special register (`%tid`, `%ctaid`, ...);
//! - every [`Label`] used by a branch is placed exactly once;
//! - a kernel has at most one dynamic shared array ([`SharedDecl::bytes`]
//!   `None`), and `cp.async` copies 4, 8 or 16 bytes (16 with `.cg`) from a
//!   register-based global address to a shared one, reading at most that
//!   many (the constructors of [`Instr::CpAsync`] check these).

mod arch;
mod instr;
mod kernel;
mod operand;
mod tma;
mod wgmma;

pub use arch::{Arch, PtxVersion};
pub use instr::{BinOp, Cmp, CpAsyncCache, Guard, HalfCvt, Instr, MmaKind, MmaShape, Stmt, UnOp, round_tf32};
pub use kernel::{GlobalDecl, Kernel, Module, ParamDecl, ParamType, RegDecl, SharedDecl};
pub use operand::{
    AddrBase, Address, CacheQual, GlobalId, Label, Operand, ParamId, Reg, SharedId, Space, Special, Type,
};
pub use tma::Tma;
pub use wgmma::{
    BLOCK_REGISTERS, DescSwizzle, Major, SETMAXNREG_MAX, SETMAXNREG_MIN, SmemDesc, WARPGROUP, WgmmaInput,
    WgmmaShape, register_share,
};
