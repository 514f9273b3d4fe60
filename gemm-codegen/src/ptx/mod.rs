//! PTX: the typed IR every kernel family builds, and the one writer that
//! prints it.
//!
//! ```text
//! lowering ──KernelBuilder──▶ ir::Module ──Writer──▶ PTX text
//! ```

mod builder;
pub mod ir;
mod write;

pub use builder::{KernelBuilder, is_identifier, is_reserved};
pub use ir::*;
pub use write::{Writer, binop_mnemonic, write_string};
