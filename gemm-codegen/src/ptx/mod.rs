//! PTX: the typed IR every kernel family builds, and the one writer that
//! prints it.
//!
//! ```text
//! lowering ──KernelBuilder──▶ ir::Module ──Writer──▶ PTX text
//! ```

mod builder;
pub mod ir;
mod parse;
mod write;

pub use builder::KernelBuilder;
pub use ir::*;
pub use parse::{ParseError, SourceMap, parse, parse_with_source_map};
pub use write::{Writer, write_string};
