//! The kernels that sum a split K's partial products: one per precision.
//!
//! A call split into `s` slices leaves `s` partial products of C in the
//! runner's workspace, each `m × n` and packed, one after another; their
//! sum `C = alpha · Σ P_z + beta · C` is the GEMM `C = alpha · P · 1 + beta ·
//! C` of `P` (the partials as an `m·n × s` column-major matrix, or `n`
//! problems of `m × s` where C is strided) with a column of `s` ones: a
//! GEMM whose N is 1 and whose K is `s` (`gemm_host::pass::split_k` builds
//! that launch). The sum runs in slice order, so it is the same bits on
//! every run.
//!
//! Its cost is what the kernel's tile computes beside the one useful column:
//! a thread multiplies its rows of A by every column of its tile and every
//! row of the stripe, zeros included, so each element of C costs `tile_n ·
//! tile_k` fused multiply-adds. Table 2's SGEMM tile (96 × 96 × 16), which
//! summed the slices until now, spends 1536 an element: on the H100 the sum
//! took ~100 µs of a 1024² DGEMM split in two (`tuning/sm_90-classes/call12/
//! slices`), more than the partial products themselves. These tiles are
//! eight columns by four rows of K with 32 threads (the least a block's
//! loads allow: each of B's stripes is split over all its threads, so
//! `tile_n · tile_k` is at least the thread count), 32 an element, and
//! their loads of A run down its columns, coalesced. The emulator checks
//! them as it checks every kernel of [`crate::all`].

use gemm_codegen::Precision;
use gemm_macros::gemm_kernel;

use crate::KernelEntry;

gemm_kernel! {
    // The sum of a split K's partials in f32: N = 1, K = the slices.
    name = SgemmSplitSum,
    precision = f32,
    op = (N, N),
    tile = (64, 8, 4),
    threads = (32, 1),
    load_a = (32, 1),
    load_b = (4, 8),
}

gemm_kernel! {
    // The sum of a split K's partials in f64.
    name = DgemmSplitSum,
    precision = f64,
    op = (N, N),
    tile = (64, 8, 4),
    threads = (32, 1),
    load_a = (32, 1),
    load_b = (4, 8),
}

gemm_kernel! {
    // The sum of a split K's partials in c32.
    name = CgemmSplitSum,
    precision = c32,
    op = (N, N),
    tile = (64, 8, 4),
    threads = (32, 1),
    load_a = (32, 1),
    load_b = (4, 8),
}

gemm_kernel! {
    // The sum of a split K's partials in c64: 32 rows, so a thread holds
    // 104 registers (166 with 64 rows) and more blocks fit an SM.
    name = ZgemmSplitSum,
    precision = c64,
    op = (N, N),
    tile = (32, 8, 4),
    threads = (32, 1),
    load_a = (32, 1),
    load_b = (4, 8),
}

/// The four split-sum kernels, in BLAS order S, D, C, Z.
pub static SPLIT_SUM: [KernelEntry; 4] = [
    KernelEntry::of::<SgemmSplitSum>("SgemmSplitSum"),
    KernelEntry::of::<DgemmSplitSum>("DgemmSplitSum"),
    KernelEntry::of::<CgemmSplitSum>("CgemmSplitSum"),
    KernelEntry::of::<ZgemmSplitSum>("ZgemmSplitSum"),
];

/// The kernel that sums a split K's partial products in `precision`.
pub fn split_sum(precision: Precision) -> &'static KernelEntry {
    &SPLIT_SUM[precision.index()]
}
