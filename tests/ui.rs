//! `gemm_kernel!`'s compile errors and accepted inputs, as trybuild snapshots.
//!
//! Every rule has a file in `tests/ui/` named after the mistake, with the
//! compiler's output in the matching `.stderr`; `tests/ui/pass/` holds
//! invocations that must compile and run. After changing a message:
//! `TRYBUILD=overwrite cargo test -p gemmforge --test ui`, then read the diff
//! of every `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
