//! gemm-emu's integration tests, one test binary (a module a concern: one
//! link instead of one a file).

mod common;

mod atomics;
mod cp_async;
mod gemm;
mod global_data;
mod half;
mod half_wgmma;
mod kcontig;
mod mma;
mod named_barriers;
mod parse;
mod pipeline;
mod prop;
mod safety;
mod setmaxnreg;
mod speed;
mod tf32;
mod wgmma;
mod wgmma_rs;
