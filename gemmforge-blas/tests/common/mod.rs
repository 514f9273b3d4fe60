//! What the tests that run programs against the built library share.

use std::path::{Path, PathBuf};

/// Where cargo put `libgemmforge_blas.so`: `target/<profile>/deps` beside
/// this test executable (where `cargo test` leaves it), else
/// `target/<profile>` (where `cargo build` copies it).
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    // target/<profile>/deps/c_program-<hash>
    let deps = exe.parent().expect("target/<profile>/deps").to_path_buf();
    let candidates = [deps.clone(), deps.parent().map(Path::to_path_buf).unwrap_or_default()];
    let found = candidates.iter().find(|d| d.join("libgemmforge_blas.so").is_file());
    found.cloned().unwrap_or_else(|| {
        panic!(
            "neither {} nor its parent has libgemmforge_blas.so: build the crate's cdylib \
             (cargo test -p gemmforge-blas builds it)",
            deps.display()
        )
    })
}

/// Prints a line on the test's standard error past libtest's capture, so
/// that a SKIP is visible in `cargo test`'s output also when the test
/// passes (as the GPU tests' `skipping:` lines are).
#[macro_export]
macro_rules! skip {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}
