//! The spec of a bespoke kernel: how it walks the operator, with the operator
//! itself kept beside it ([`super::Bespoke`]).
//!
//! Every kernel computes `C = alpha · A · B + beta · C` for the constant
//! `m × k` operator `A`, a `k × n` `B` and an `m × n` `C`, both row-major
//! with `n` contiguous (row strides `ldb`, `ldc`, run-time values unless the
//! spec fixes them). A thread owns `width` adjacent columns of B and C, so
//! every global access is one vector of `width` elements and the kernel
//! streams B and C once.

use std::fmt;

use crate::spec::{Math, Precision, Target};

/// The order a thread walks the operator in (GiMMiK's two forms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// B-streaming: for each used row of B (a column of A), load it once
    /// and update the accumulator of every row of C whose entry of A there
    /// is not zero; a row of C is stored right after its last update. The
    /// accumulators of the thread's rows live in registers, so `msplit`
    /// splits the rows of A across groups of threads that share each row of
    /// B through shared memory.
    BStream,
    /// C-streaming: load every used row of B into registers first, then
    /// compute and store the rows of C one by one. One accumulator at a
    /// time, but every used row of B in registers: for operators with few
    /// columns.
    CStream,
    /// Tensor cores (`f64`: DMMA): each warp computes `8 · width` columns
    /// of C with `mma.sync`, A's non-zero tiles in fragment order in the
    /// kernel's read-only data, B's fragments loaded `chunk` k-tiles ahead.
    /// For small dense operators, where the FMA forms run out of
    /// arithmetic before memory.
    Mma,
    /// B-streaming with A's rows split into `msplit` groups, each group a
    /// block of its own: B straight into registers as with `msplit = 1`,
    /// the blocks of one column tile consecutive in the grid (block x:
    /// group x mod msplit, columns of tile x / msplit), so they run at
    /// once on different SMs — B read once from DRAM, from L2 for the other
    /// groups — and an SM holds the code of one or two groups, not of all.
    /// For large operators, whose unrolled code overflows the instruction
    /// cache when every warp of a block runs different rows.
    Split,
}

impl Form {
    /// Every form.
    pub const ALL: [Form; 4] = [Form::BStream, Form::CStream, Form::Mma, Form::Split];

    /// The spec token: `bstream`, `cstream`, `mma` or `bsplit`.
    pub const fn token(self) -> &'static str {
        match self {
            Form::BStream => "bstream",
            Form::CStream => "cstream",
            Form::Mma => "mma",
            Form::Split => "bsplit",
        }
    }

    /// Parses a spec token.
    pub fn from_token(token: &str) -> Option<Form> {
        Form::ALL.into_iter().find(|f| f.token() == token)
    }
}

/// How a kernel treats `beta`: fixed when it is generated (no C read for
/// 0, no multiply for 1), or a kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BetaMode {
    /// `C = alpha · A · B`: C is written, never read (a NaN in C does not
    /// propagate, as BLAS promises for `beta = 0`).
    Zero,
    /// `C = alpha · A · B + C`.
    One,
    /// `beta` is an argument; where it is 0 at run time C is not read.
    Runtime,
}

impl BetaMode {
    /// Every mode.
    pub const ALL: [BetaMode; 3] = [BetaMode::Zero, BetaMode::One, BetaMode::Runtime];

    /// The spec token: `0`, `1` or `runtime`.
    pub const fn token(self) -> &'static str {
        match self {
            BetaMode::Zero => "0",
            BetaMode::One => "1",
            BetaMode::Runtime => "runtime",
        }
    }

    /// Parses a spec token.
    pub fn from_token(token: &str) -> Option<BetaMode> {
        BetaMode::ALL.into_iter().find(|b| b.token() == token)
    }

    /// The mode that computes a call with `beta`: the fixed one when
    /// `beta` is 0 or 1, else [`BetaMode::Runtime`].
    pub fn for_value(beta: f64) -> BetaMode {
        if beta == 0.0 {
            BetaMode::Zero
        } else if beta == 1.0 {
            BetaMode::One
        } else {
            BetaMode::Runtime
        }
    }

    /// Whether a kernel of this mode computes a call with `beta`.
    pub fn computes(self, beta: f64) -> bool {
        match self {
            BetaMode::Zero => beta == 0.0,
            BetaMode::One => beta == 1.0,
            BetaMode::Runtime => true,
        }
    }
}

/// How a bespoke kernel is generated, apart from the operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BespokeSpec {
    /// `f32` or `f64` (A's values are rounded to it).
    pub precision: Precision,
    /// The walk.
    pub form: Form,
    /// Adjacent columns of B and C per thread: 1, 2 or 4, at most 16 bytes
    /// (for [`Form::Mma`]: the 8-column tiles of C a warp computes, 1, 2 or
    /// 4).
    pub width: u32,
    /// Threads per block along `n` (a multiple of 32).
    pub block: u32,
    /// Groups of `block` threads that split the rows of A (B-streaming):
    /// 1 loads B straight into registers; more stage it in shared memory
    /// with `cp.async`, once per block. For [`Form::Mma`]: groups of the
    /// block's warps splitting A's row tiles over the same columns (B's
    /// fragments then come from L1 for all but the first).
    pub msplit: u32,
    /// Rows of B loaded together: the prefetch depth with `msplit = 1`, a
    /// shared-memory stage with more (for [`Form::Mma`]: k-tiles of B
    /// loaded ahead of their products).
    pub chunk: u32,
    /// How `beta` is treated.
    pub beta: BetaMode,
    /// The oldest architecture the kernel is for.
    pub arch: Target,
    /// B's row stride in elements, fixed when the kernel is generated
    /// (`None`: the `ldb` argument). A fixed stride makes every row's
    /// address an immediate offset: no multiply at run time, and less
    /// work for the assembler (5.5× less time on a large sparse f32
    /// operator, 19% less on a denser f64 one whose FMAs dominate:
    /// `tuning/sm_90-bespoke/compile-time/`). The kernel then computes
    /// only calls with that `ldb`.
    pub ldb: Option<u32>,
    /// C's row stride in elements, fixed as [`BespokeSpec::ldb`] is.
    pub ldc: Option<u32>,
}

impl BespokeSpec {
    /// A B-streaming spec with one column per thread, 128 threads, no split,
    /// chunks of 16 rows, `beta` at run time, for sm_80.
    pub const fn new(precision: Precision) -> BespokeSpec {
        BespokeSpec {
            precision,
            form: Form::BStream,
            width: 1,
            block: 128,
            msplit: 1,
            chunk: 16,
            beta: BetaMode::Runtime,
            arch: Target::Sm80,
            ldb: None,
            ldc: None,
        }
    }

    /// The same kernel with `ldb = ldc = n` fixed in its code, for calls of
    /// `n` packed columns, where `n` keeps its vectors aligned (else the
    /// spec as it is: its runtime-stride twin serves such calls anyway).
    pub const fn packed_at(&self, n: u32) -> BespokeSpec {
        if n.is_multiple_of(self.alignment()) {
            BespokeSpec { ldb: Some(n), ldc: Some(n), ..*self }
        } else {
            *self
        }
    }

    /// The same kernel with `ldb` and `ldc` arguments again (for calls
    /// whose strides are not the fixed ones).
    pub const fn with_runtime_strides(&self) -> BespokeSpec {
        BespokeSpec { ldb: None, ldc: None, ..*self }
    }

    /// Whether a kernel of this spec computes a call with row strides
    /// `ldb` and `ldc`: any, or the fixed ones.
    pub fn takes_strides(&self, ldb: u64, ldc: u64) -> bool {
        self.ldb.is_none_or(|f| u64::from(f) == ldb) && self.ldc.is_none_or(|f| u64::from(f) == ldc)
    }

    /// Columns of C one block computes.
    pub const fn columns_per_block(&self) -> u32 {
        match self.form {
            Form::Mma => match self.msplit {
                0 => 0,
                groups => (self.block / 32 / groups).saturating_mul(8).saturating_mul(self.width),
            },
            _ => self.block.saturating_mul(self.width),
        }
    }

    /// Elements B's and C's addresses, `ldb`, `ldc` and `n` must be
    /// multiples of: the vector width (1 for [`Form::Mma`], whose loads
    /// and stores are of single elements).
    pub const fn alignment(&self) -> u32 {
        match self.form {
            Form::Mma => 1,
            _ => self.width,
        }
    }

    /// Threads per block: `block` along `n` times `msplit` row groups (for
    /// [`Form::Mma`], `block` in all: its warps are the groups).
    pub const fn threads(&self) -> u32 {
        match self.form {
            Form::Mma | Form::Split => self.block,
            _ => self.block.saturating_mul(self.msplit),
        }
    }

    /// The inner product's arithmetic, for its error bound: the
    /// tensor-core form runs DMMA for `f64` and three TF32 products for
    /// `f32`; the others FMA.
    pub const fn math(&self) -> Math {
        match (self.form, self.precision) {
            (Form::Mma, Precision::F64) => Math::Dmma,
            (Form::Mma, _) => Math::Tf32x3,
            _ => Math::Fma,
        }
    }

    /// Bytes of one thread's vector of B or C.
    pub const fn vector_bytes(&self) -> u32 {
        self.width.saturating_mul(self.precision.element_bytes())
    }

    /// Shared memory per block: two stages of `chunk` rows of the block's
    /// columns when `msplit > 1`, else none. Saturates at `u64::MAX` (past
    /// every limit) for field values whose product does not fit.
    pub const fn shared_bytes(&self) -> u64 {
        if self.msplit > 1 && matches!(self.form, Form::BStream) {
            (2 * self.chunk as u64)
                .saturating_mul(self.block as u64)
                .saturating_mul(self.vector_bytes() as u64)
        } else {
            0
        }
    }

    /// The same kernel with one column per thread, for arguments that miss
    /// its vector alignment; `None` when it has one already.
    pub const fn unaligned_twin(&self) -> Option<BespokeSpec> {
        if self.alignment() > 1 { Some(BespokeSpec { width: 1, ..*self }) } else { None }
    }
}

impl fmt::Display for BespokeSpec {
    /// The spec's items as `gemm_bespoke!` takes them (without name and
    /// operator).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "precision = {}, family = {}, width = {}, block = {}, msplit = {}, chunk = {}, beta = {}, arch = {}",
            self.precision.token(),
            self.form.token(),
            self.width,
            self.block,
            self.msplit,
            self.chunk,
            self.beta.token(),
            self.arch.token()
        )?;
        for (key, ld) in [("ldb", self.ldb), ("ldc", self.ldc)] {
            if let Some(ld) = ld {
                write!(f, ", {key} = {ld}")?;
            }
        }
        Ok(())
    }
}
