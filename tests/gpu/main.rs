//! The GPU integration tests, one binary: each module checks one part of
//! the library on the device against the `f64` CPU reference (or against
//! cuBLAS on the same inputs).
//!
//! Without a GPU every test prints `skipping: no CUDA GPU (<reason>)` and
//! passes; with `GEMMFORGE_REQUIRE_GPU=1` it fails instead. One binary, not
//! seven: each links all of `gemm-kernels`' PTX (about 65 MB), so CI links
//! and stores it once. Run one part with e.g. `cargo test --test gpu gemm::`.

mod batch;
mod bespoke;
mod common;
mod cublas;
mod errors;
mod gemm;
mod half;
mod runtime;
mod stream_k;
