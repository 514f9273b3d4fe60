//! gemm-codegen's integration tests, one test binary (a module a concern:
//! one link instead of one a file).

mod bespoke_grammar_prop;
mod grammar_prop;
mod mtx_prop;
mod space_counts;
mod space_device;
mod space_equivalence;
mod space_pipeline;
mod validate_never_panics;
