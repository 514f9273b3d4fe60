//! gemm-host's integration tests, one test binary (a module a concern: one
//! link instead of one a file).

mod batch_prop;
mod bespoke_prop;
mod emulated;
mod emulated_batch;
mod emulated_bespoke;
mod emulated_bespoke_calls;
mod emulated_half;
mod emulated_specialized;
mod emulated_stream_k;
mod emulated_swapped;
mod emulated_tma;
mod emulated_wgmma;
mod validate_prop;
