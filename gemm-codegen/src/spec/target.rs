//! The architecture a kernel is compiled for (`arch`).

use std::fmt;

/// The GPU architecture a kernel is compiled for (`arch = sm_80`, default
/// `sm_70`): it decides which instructions the stencil may use, how much
/// shared memory a block may have, and the PTX `.target`.
///
/// A kernel for `sm_XY` runs on every GPU of compute capability X.Y or
/// newer, except `sm_90a`, whose architecture-specific instructions
/// (`wgmma`, `setmaxnreg`) exist on compute capability 9.0 alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Target {
    /// Volta: the oldest GPU gemmforge builds for. The default.
    #[default]
    Sm70,
    /// Turing.
    Sm75,
    /// Ampere (A100): `cp.async`.
    Sm80,
    /// Ampere (A10, RTX 30).
    Sm86,
    /// Ada.
    Sm89,
    /// Hopper (H100, H200).
    Sm90,
    /// Hopper, with its architecture-specific instructions.
    Sm90a,
}

impl Target {
    /// Every target, oldest first.
    pub const ALL: [Target; 7] =
        [Target::Sm70, Target::Sm75, Target::Sm80, Target::Sm86, Target::Sm89, Target::Sm90, Target::Sm90a];

    /// The `gemm_kernel!` token and PTX `.target` name (`sm_90a`).
    pub const fn token(self) -> &'static str {
        match self {
            Target::Sm70 => "sm_70",
            Target::Sm75 => "sm_75",
            Target::Sm80 => "sm_80",
            Target::Sm86 => "sm_86",
            Target::Sm89 => "sm_89",
            Target::Sm90 => "sm_90",
            Target::Sm90a => "sm_90a",
        }
    }

    /// Parses a `gemm_kernel!` token.
    pub fn from_token(token: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.token() == token)
    }

    /// The compute capability as `10 × major + minor` (90 for `sm_90a`).
    pub const fn sm(self) -> u32 {
        match self {
            Target::Sm70 => 70,
            Target::Sm75 => 75,
            Target::Sm80 => 80,
            Target::Sm86 => 86,
            Target::Sm89 => 89,
            Target::Sm90 | Target::Sm90a => 90,
        }
    }

    /// Whether this is an architecture-specific target (`sm_90a`).
    pub const fn is_arch_specific(self) -> bool {
        matches!(self, Target::Sm90a)
    }

    /// Whether `cp.async` (global → shared copies that bypass registers)
    /// exists: sm_80 and newer.
    pub const fn has_cp_async(self) -> bool {
        self.sm() >= 80
    }

    /// The most shared memory one block may use on this architecture, in
    /// bytes: the opt-in limit of dynamic shared memory of the
    /// architecture's typical part ([`crate::device::DeviceLimits::for_arch`]'s
    /// table; 48 KiB of it may be static).
    pub const fn max_shared_per_block(self) -> u32 {
        crate::device::optin_shared_per_block(self.sm())
    }

    /// The PTX `.target` of this architecture.
    pub const fn ptx_arch(self) -> crate::ptx::Arch {
        if self.is_arch_specific() { crate::ptx::Arch::SM_90A } else { crate::ptx::Arch::new(self.sm()) }
    }

    /// Whether a kernel for this target runs on a GPU of compute capability
    /// `sm` (`10 × major + minor`).
    pub const fn runs_on(self, sm: u32) -> bool {
        if self.is_arch_specific() { sm == self.sm() } else { sm >= self.sm() }
    }

    /// The newest portable target that runs on a GPU of compute capability
    /// `sm`, if any: what the tuner compiles for on that GPU.
    pub fn newest_for(sm: u32) -> Option<Target> {
        Target::ALL.into_iter().rev().find(|t| !t.is_arch_specific() && t.runs_on(sm))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}
