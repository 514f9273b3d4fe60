//! Golden PTX: the emitted text of a few representative kernels, stored in
//! `tests/out/ptx/<entry>.ptx` at the workspace root, so any change to the
//! generated code shows up as a reviewed diff.
//!
//! After an intended change: `GEMMFORGE_BLESS=1 cargo test -p gemm-kernels --test golden`,
//! then review `git diff tests/out/ptx`.

use std::path::{Path, PathBuf};

use gemm_kernels::KernelEntry;

/// One kernel per precision, covering N, T and C on both sides.
fn representatives() -> [&'static KernelEntry; 4] {
    use gemm_codegen::{Op, Precision};
    [
        gemm_kernels::table2(Precision::F32, Op::N, Op::N),
        gemm_kernels::table2(Precision::F64, Op::T, Op::N),
        gemm_kernels::table2(Precision::C32, Op::N, Op::C),
        gemm_kernels::table2(Precision::C64, Op::C, Op::T),
    ]
}

fn golden_dir() -> PathBuf {
    let workspace =
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("gemm-kernels is inside the workspace");
    workspace.join("tests/out/ptx")
}

fn blessing() -> bool {
    std::env::var_os("GEMMFORGE_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn ptx_matches_golden_files() {
    let dir = golden_dir();
    let mut failures = Vec::new();
    for entry in representatives() {
        let path = dir.join(format!("{}.ptx", entry.entry));
        if blessing() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, entry.ptx).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Err(e) => failures.push(format!("{}: cannot read {}: {e}", entry.name, path.display())),
            Ok(golden) if golden != entry.ptx => {
                let (line, (want, got)) = golden
                    .lines()
                    .chain(std::iter::repeat("<end of file>"))
                    .zip(entry.ptx.lines().chain(std::iter::repeat("<end of file>")))
                    .enumerate()
                    .find(|(_, (g, e))| g != e)
                    .expect("texts differ, so some line does");
                failures.push(format!(
                    "{}: PTX differs from {} at line {}:\n  golden:  {want}\n  emitted: {got}",
                    entry.name,
                    path.display(),
                    line + 1
                ));
            }
            Ok(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nthe emitted PTX changed: if that is intended, re-bless with \
         `GEMMFORGE_BLESS=1 cargo test -p gemm-kernels --test golden` and review `git diff tests/out/ptx`",
        failures.join("\n")
    );
}

#[test]
fn no_stale_golden_files() {
    let wanted: Vec<String> = representatives().iter().map(|e| format!("{}.ptx", e.entry)).collect();
    let Ok(dir) = std::fs::read_dir(golden_dir()) else {
        // ptx_matches_golden_files reports the missing folder.
        return;
    };
    for file in dir {
        let path = file.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if wanted.contains(&name) {
            continue;
        }
        if blessing() {
            std::fs::remove_file(&path).unwrap();
        } else {
            panic!(
                "{} is no representative kernel's golden file (renamed entry?): delete it, or re-bless \
                 with `GEMMFORGE_BLESS=1 cargo test -p gemm-kernels --test golden`",
                path.display()
            );
        }
    }
}
