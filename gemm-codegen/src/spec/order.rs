//! The order of a kernel's work: how its blocks share it out (`schedule`)
//! and which operand it reads first (`operands`).

use std::fmt;

/// How a kernel's blocks share out the work (`schedule = tiles |
/// stream_k`, default `tiles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Schedule {
    /// One block per C tile (per problem of a batch): the grid covers C.
    /// The default.
    #[default]
    Tiles,
    /// Stream-K: a grid of as many blocks as the GPU holds at once, each
    /// computing an equal share of the whole problem's stripe products
    /// (every tile's `⌈k / tile.2⌉` stripes, tile after tile), so that no
    /// wave of tiles leaves SMs idle. A tile whose stripes two or more
    /// blocks share is summed, in stripe order, by the last of them to
    /// finish: bitwise the same C on every run. See `stencil/stream_k.rs`.
    StreamK,
}

impl Schedule {
    /// Every schedule, default first.
    pub const ALL: [Schedule; 2] = [Schedule::Tiles, Schedule::StreamK];

    /// The `gemm_kernel!` token (`tiles`, `stream_k`).
    pub const fn token(self) -> &'static str {
        match self {
            Schedule::Tiles => "tiles",
            Schedule::StreamK => "stream_k",
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// Which operand the kernel reads as its first (`operands = ab | ba`,
/// default `ab`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Operands {
    /// The kernel computes `C = op(A) · op(B)` as written. The default.
    #[default]
    Ab,
    /// The kernel computes the transposed product, `Cᵀ = op(B)ᵀ · op(A)ᵀ`:
    /// B is its first operand and A its second, and it stores its result
    /// transposed, so that C is the caller's as with [`Operands::Ab`].
    /// `op` stays the call's; every other parameter describes the kernel's
    /// own product — `tile.0` and `threads.0` run along C's columns,
    /// `load_a` reads B's stripe and `load_b` A's. What it is for: a
    /// `wgmma` reads a TF32 operand from shared memory only K-major, and A
    /// can come from registers where B cannot, so `op = (T, T)` runs as the
    /// kernel `op = (N, N)` does, with B's columns as its rows (CUTLASS's
    /// "swap AB"). Not for a conjugating op, whose transpose is no op.
    Ba,
}

impl Operands {
    /// Both orders, default first.
    pub const ALL: [Operands; 2] = [Operands::Ab, Operands::Ba];

    /// The `gemm_kernel!` token (`ab`, `ba`).
    pub const fn token(self) -> &'static str {
        match self {
            Operands::Ab => "ab",
            Operands::Ba => "ba",
        }
    }
}

impl fmt::Display for Operands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}
