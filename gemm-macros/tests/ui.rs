//! `gemm_kernel!`'s and `gemm_bespoke!`'s compile errors and accepted
//! inputs, as trybuild snapshots.
//!
//! Every rule has a file in `tests/ui/` named after the mistake (the
//! bespoke ones `bespoke-*.rs`), with the compiler's output in the matching
//! `.stderr`; `tests/ui/pass/` holds invocations that must compile and run.
//! After changing a message: `TRYBUILD=overwrite cargo test -p gemm-macros
//! --test ui`, then read the diff of every `.stderr`.
//!
//! The files name the macros and gemm-codegen's items directly, not through
//! the `gemmforge` facade (whose re-exports the root crate's examples and
//! doc tests use): trybuild builds every dependency of the crate whose test
//! it runs, twice (checked and built), and the facade's — the runtime with
//! cudarc, every shipped kernel, criterion — took most of CI's ui test.
//!
//! `gemm_bespoke!` reads its operator file relative to the invoking crate's
//! `CARGO_MANIFEST_DIR`. trybuild compiles the ui files as a crate of its
//! own, in `<target>/tests/trybuild/gemm-macros`, so [`mirror_data`] first
//! copies `tests/ui/data/` (the operator files, right and wrong) there: a ui
//! file names `tests/ui/data/x.mtx` as it would in this crate.

use std::path::{Path, PathBuf};

#[test]
fn ui() {
    mirror_data();
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}

/// The crate trybuild builds the ui files in, as trybuild finds it: under
/// the target directory `cargo metadata` reports.
fn trybuild_crate() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let target = metadata["target_directory"].as_str().expect("cargo metadata names the target directory");
    Path::new(target).join("tests/trybuild").join(env!("CARGO_PKG_NAME"))
}

/// Replaces `tests/ui/data/` of trybuild's crate with a copy of ours.
fn mirror_data() {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/data");
    let to = trybuild_crate().join("tests/ui/data");
    if to.exists() {
        std::fs::remove_dir_all(&to).expect("the old copy can be removed");
    }
    std::fs::create_dir_all(&to).expect("trybuild's crate folder can be created");
    for file in std::fs::read_dir(&from).expect("tests/ui/data exists") {
        let file = file.expect("tests/ui/data can be listed");
        std::fs::copy(file.path(), to.join(file.file_name())).expect("an operator file can be copied");
    }
}
