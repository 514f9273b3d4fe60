//! What `gemmforge-blas`'s tests build and compare against, installed by
//! `cargo xtask test` when missing: a C compiler (`cc`), `gfortran` for the
//! Fortran program, Debian's netlib reference BLAS (`libblas-dev`, whose
//! `libblas.so.3` the C program compares every result with) and Debian's
//! NumPy (linked against that BLAS, for the `LD_PRELOAD` test). Installed
//! with `apt-get` (as root, or through `sudo -n`); where that is impossible
//! the tests run and print a visible SKIP for what is missing.

use std::path::Path;
use std::process::Command;

/// The netlib BLAS `tests/c_program.rs` loads (Debian's `libblas3`).
pub const NETLIB_BLAS: &str = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";

/// A tool or library the tests need, and the Debian package that has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Need {
    what: &'static str,
    package: &'static str,
}

const NEEDS: [Need; 4] = [
    Need { what: "cc (the C compiler)", package: "gcc" },
    Need { what: "gfortran", package: "gfortran" },
    Need { what: NETLIB_BLAS, package: "libblas-dev" },
    Need { what: "NumPy for /usr/bin/python3", package: "python3-numpy" },
];

/// The packages to install, given which needs are met (in [`NEEDS`]' order).
fn missing(present: [bool; 4]) -> Vec<Need> {
    NEEDS.iter().zip(present).filter(|(_, ok)| !ok).map(|(need, _)| *need).collect()
}

fn runs(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Installs whatever of [`NEEDS`] is missing; says what it does, and what
/// will be skipped if it cannot.
pub fn ensure() {
    let numpy = Command::new("/usr/bin/python3").args(["-c", "import numpy"]).output();
    let numpy = numpy.is_ok_and(|o| o.status.success());
    let todo = missing([runs("cc"), runs("gfortran"), Path::new(NETLIB_BLAS).is_file(), numpy]);
    if todo.is_empty() {
        return;
    }
    let packages: Vec<&str> = todo.iter().map(|n| n.package).collect();
    let whats: Vec<&str> = todo.iter().map(|n| n.what).collect();
    eprintln!(
        "\n==> gemmforge-blas tests need {}: apt-get install -y {}",
        whats.join(", "),
        packages.join(" ")
    );
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let apt = |args: &[&str]| {
        let mut cmd = if root { Command::new("apt-get") } else { Command::new("sudo") };
        if !root {
            cmd.args(["-n", "apt-get"]);
        }
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive").status().is_ok_and(|s| s.success())
    };
    let install = |apt: &dyn Fn(&[&str]) -> bool| {
        let mut args = vec!["install", "-y", "--no-install-recommends"];
        args.extend(&packages);
        apt(&args)
    };
    // A fresh machine may have no package lists yet: update once and retry.
    let installed = install(&apt) || (apt(&["update"]) && install(&apt));
    if !installed {
        eprintln!(
            "warning: could not install {} (needs apt-get as root or passwordless sudo); \
             the gemmforge-blas tests that need them print SKIP",
            packages.join(" ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_missing_packages_are_installed() {
        assert!(missing([true; 4]).is_empty());
        let packages = |present| missing(present).iter().map(|n| n.package).collect::<Vec<_>>();
        assert_eq!(packages([true, false, false, true]), ["gfortran", "libblas-dev"]);
        assert_eq!(packages([false, true, true, false]), ["gcc", "python3-numpy"]);
    }
}
