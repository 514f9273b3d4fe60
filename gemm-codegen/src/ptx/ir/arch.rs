//! PTX target architectures and ISA versions.
//!
//! [`Arch`] is the value of a PTX `.target` directive: any `sm_XY`, with or
//! without the architecture-specific `a`, as the writer prints it or the
//! emulator reads it back (including targets gemmforge never compiles for).
//! It is one of three architecture types, each answering its own question:
//!
//! - [`crate::Target`], a spec's `arch`: which of the architectures the
//!   compiler knows a kernel is generated for (instructions, shared-memory
//!   limit). Every `Target` is exactly one `Arch` (`Arch::from(target)`, or
//!   [`crate::Target::ptx_arch`] in const code); an `Arch` need not be a
//!   `Target`.
//! - [`crate::ComputeCapability`]: a GPU, `major.minor` as the driver reports
//!   it, keying the device tables. Its portable PTX target is
//!   `Arch::new(cc.sm())`; there is no conversion back (`sm_90a` and `sm_90`
//!   are one capability), and [`crate::Target::runs_on`] /
//!   [`crate::Target::newest_for`] relate targets to capabilities.

use std::fmt;

/// A PTX target architecture: `sm_XY` as `XY`, and whether it is the
/// architecture-specific `sm_XYa`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch {
    /// `10 × major + minor`.
    pub sm: u32,
    /// `sm_90a`: the architecture-specific instructions, on that GPU only.
    pub specific: bool,
}

impl Arch {
    /// The oldest GPU gemmforge targets.
    pub const SM_70: Arch = Arch::new(70);
    /// Ampere: `cp.async`, `mma` on TF32/BF16.
    pub const SM_80: Arch = Arch::new(80);
    /// Hopper.
    pub const SM_90: Arch = Arch::new(90);
    /// Hopper with `wgmma` and `setmaxnreg`.
    pub const SM_90A: Arch = Arch { sm: 90, specific: true };

    /// `sm_XY`, portable.
    pub const fn new(sm: u32) -> Arch {
        Arch { sm, specific: false }
    }

    /// Reads `sm_XY` or `sm_XYa`.
    pub fn from_name(name: &str) -> Option<Arch> {
        let digits = name.strip_prefix("sm_")?;
        let (digits, specific) = match digits.strip_suffix('a') {
            Some(d) => (d, true),
            None => (digits, false),
        };
        let sm = digits.parse().ok().filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))?;
        Some(Arch { sm, specific })
    }

    /// The oldest PTX ISA version that can target this architecture.
    pub const fn min_ptx_version(self) -> PtxVersion {
        match self.sm {
            0..=70 => PtxVersion(6, 0),
            71..=75 => PtxVersion(6, 3),
            76..=80 => PtxVersion(7, 0),
            81..=86 => PtxVersion(7, 1),
            87..=89 => PtxVersion(7, 8),
            _ if self.specific => PtxVersion(8, 0),
            _ => PtxVersion(7, 8),
        }
    }
}

impl Default for Arch {
    fn default() -> Arch {
        Arch::SM_70
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.sm, if self.specific { "a" } else { "" })
    }
}

/// A PTX ISA version, `.version major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion(pub u32, pub u32);

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

impl From<crate::Target> for Arch {
    /// The `.target` of a kernel compiled for `target` (`sm_90a` stays
    /// architecture-specific).
    fn from(target: crate::Target) -> Arch {
        target.ptx_arch()
    }
}

#[cfg(test)]
mod tests {
    use super::Arch;
    use crate::Target;

    /// The three spellings of a target agree: its `gemm_kernel!` token is
    /// its PTX `.target`, which reads back as the same `Arch`.
    #[test]
    fn every_target_is_one_ptx_arch() {
        for target in Target::ALL {
            let arch = Arch::from(target);
            assert_eq!(arch.to_string(), target.token());
            assert_eq!(Arch::from_name(target.token()), Some(arch));
            assert_eq!((arch.sm, arch.specific), (target.sm(), target.is_arch_specific()));
        }
    }
}
