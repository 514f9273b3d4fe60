//! A compiled bespoke kernel: its PTX and what the host and the emulator
//! launch it from ([`BespokeImage::abi`], [`BespokeImage::launch`],
//! [`BespokeImage::requires`]).

use std::borrow::Cow;

use super::operator::Operator;
use super::plan::{self, BespokeViolation};
use super::spec::{BespokeSpec, BetaMode, Form};
use crate::abi::Abi;
use crate::family::{BlockOrder, GridOverflow, LaunchShape};
use crate::spec::{Precision, Target};

/// A bespoke kernel compiled for one operator.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BespokeImage {
    /// The spec it was generated from.
    pub spec: BespokeSpec,
    /// Rows of A (and C).
    pub m: u32,
    /// Columns of A (rows of B).
    pub k: u32,
    /// [`digest`] of the operator.
    pub digest: u64,
    /// The PTX module text.
    pub ptx: Cow<'static, str>,
    /// The `.entry` name.
    pub entry: Cow<'static, str>,
}

/// What a bespoke kernel requires of its arguments and the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BespokeRequirements {
    /// `f32` or `f64`.
    pub precision: Precision,
    /// The oldest architecture it runs on.
    pub arch: Target,
    /// B's and C's addresses, `ldb`, `ldc` and `n` must be multiples of
    /// this many elements (the kernel's `width`).
    pub alignment: u32,
    /// The `beta`s it computes.
    pub beta: BetaMode,
    /// The `ldb` it was generated for, if fixed ([`BespokeSpec::ldb`]).
    pub ldb: Option<u32>,
    /// The `ldc` it was generated for, if fixed.
    pub ldc: Option<u32>,
}

impl BespokeRequirements {
    /// Whether B at `b`, C at `c` (byte addresses) with leading dimensions
    /// `ldb`, `ldc` and `n` columns meet [`BespokeRequirements::alignment`].
    pub const fn aligned(&self, b: u64, c: u64, ldb: u64, ldc: u64, n: u64) -> bool {
        let w = self.alignment as u64;
        let bytes = w * self.precision.element_bytes() as u64;
        w <= 1
            || (b.is_multiple_of(bytes)
                && c.is_multiple_of(bytes)
                && ldb.is_multiple_of(w)
                && ldc.is_multiple_of(w)
                && n.is_multiple_of(w))
    }
}

impl BespokeImage {
    /// The kernel's parameter list.
    pub fn abi(&self) -> Abi {
        Abi::bespoke(self.spec.precision, self.spec.beta == BetaMode::Runtime)
    }

    /// How it is launched: a one-dimensional grid along `n`.
    pub const fn launch(&self) -> LaunchShape {
        LaunchShape {
            block: (self.spec.threads(), 1, 1),
            tile: (self.m, self.spec.columns_per_block()),
            order: match self.spec.form {
                Form::Split => BlockOrder::ColumnGroups { groups: self.spec.msplit },
                _ => BlockOrder::Columns,
            },
            dynamic_shared_bytes: 0,
            swapped: false,
        }
    }

    /// The grid for `n` columns, or the axis it overflows.
    pub const fn grid(&self, n: u32) -> Result<(u32, u32, u32), GridOverflow> {
        self.launch().grid(self.m, n)
    }

    /// What it requires.
    pub const fn requires(&self) -> BespokeRequirements {
        BespokeRequirements {
            precision: self.spec.precision,
            arch: self.spec.arch,
            alignment: self.spec.alignment(),
            beta: self.spec.beta,
            ldb: self.spec.ldb,
            ldc: self.spec.ldc,
        }
    }

    /// Shared memory per block, in bytes (static).
    pub const fn shared_bytes(&self) -> u64 {
        self.spec.shared_bytes()
    }
}

/// A stable 64-bit digest of an operator (FNV-1a over its shape and the
/// bits of its values): the same operator gives the same entry names and
/// tuning keys on every machine and in every run.
pub fn digest(a: &Operator) -> u64 {
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let words = [a.rows() as u64, a.cols() as u64].into_iter().chain(a.values().iter().map(|v| v.to_bits()));
    for word in words {
        for byte in word.to_le_bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    }
    h
}

/// The entry name of `spec` for an operator of `digest`: stable and unique
/// per operator and spec.
pub fn entry_name(spec: &BespokeSpec, m: usize, k: usize, digest: u64) -> String {
    let beta = match spec.beta {
        BetaMode::Zero => "0",
        BetaMode::One => "1",
        BetaMode::Runtime => "r",
    };
    let form = match spec.form {
        Form::BStream => "bs",
        Form::CStream => "cs",
        Form::Mma => "mma",
        Form::Split => "bsp",
    };
    let fixed = |key: &str, ld: Option<u32>| ld.map_or(String::new(), |ld| format!("_{key}{ld}"));
    format!(
        "gf_bespoke_{}_{m}x{k}_{digest:016x}_{form}_w{}_b{}_s{}_c{}_beta{beta}{}{}_{}",
        spec.precision.blas_letter(),
        spec.width,
        spec.block,
        spec.msplit,
        spec.chunk,
        fixed("ldb", spec.ldb),
        fixed("ldc", spec.ldc),
        spec.arch.token()
    )
}

/// Validates `spec` for `a` and compiles it.
pub fn compile(a: &Operator, spec: &BespokeSpec) -> Result<BespokeImage, Vec<BespokeViolation>> {
    let plan = plan::validate(a, spec)?;
    Ok(emit(&plan))
}

/// Lowers and prints a validated plan.
pub fn emit(plan: &plan::BespokePlan) -> BespokeImage {
    let a = plan.operator();
    let digest = digest(a);
    let entry = entry_name(plan.spec(), a.rows(), a.cols(), digest);
    let module = super::lower::lower(plan, &entry);
    BespokeImage {
        spec: *plan.spec(),
        m: a.rows() as u32,
        k: a.cols() as u32,
        digest,
        ptx: crate::ptx::write_string(&module).into(),
        entry: entry.into(),
    }
}
