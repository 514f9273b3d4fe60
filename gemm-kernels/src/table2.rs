//! The 16 kernel configurations of Table 2 of Kurzak, Tomov and Dongarra,
//! *Autotuning GEMMs for Fermi* (the fastest kernel of each precision and
//! transpose pattern on a Fermi GPU), as 36 kernel instances.
//!
//! The paper's table, as printed (thread arrangements as `M_dim × N_dim` for
//! computing C, and as `lead × cross` for reading A's and B's stored stripes):
//!
//! ```text
//! kernel          tiling          compute C   load A    load B    Gflop/s
//! SGEMM  A×B      96 × 96 × 16    16 × 16     32 × 8     8 × 32    654
//!        A×Bᵀ     96 × 96 × 16    16 × 16     32 × 8    32 × 8     662
//!        Aᵀ×Bᵀ    96 × 96 × 16    16 × 16     16 × 16   32 × 8     657
//!        Aᵀ×B     96 × 96 × 16    16 × 16     16 × 16   16 × 16    650
//! CGEMM  A×B      64 × 64 × 16    16 × 16     32 × 8    16 × 16    804
//!        A×Bᵀ     64 × 64 × 16    16 × 16     16 × 16   16 × 16    804
//!        Aᵀ×Bᵀ    64 × 64 × 16    16 × 16     16 × 16   32 × 8     805
//!        Aᵀ×B     64 × 64 × 16    16 × 16     16 × 16   16 × 16    804
//! DGEMM  A×B      64 × 64 × 16    16 × 16     16 × 16   16 × 16    300
//!        A×Bᵀ     64 × 64 × 16    16 × 16     16 × 16   16 × 16    301
//!        Aᵀ×Bᵀ    64 × 64 × 16    16 × 16     16 × 16   16 × 16    300
//!        Aᵀ×B     64 × 64 × 16    16 × 16     16 × 16   16 × 16    300
//! ZGEMM  A×B      24 × 16 × 8      8 × 8       8 × 8     8 × 8     340
//!        A×Bᵀ     16 × 24 × 8      8 × 8       8 × 8     8 × 8     340
//!        Aᵀ×Bᵀ    16 × 24 × 8      8 × 8       4 × 16    8 × 8     341
//!        Aᵀ×B     24 × 16 × 8      8 × 8       8 × 8     8 × 8     340
//! ```
//!
//! (`shared/papers/kurzak-tomov-dongarra-autotuning-gemms-for-fermi.md`,
//! Table 2: "Autotuning summary: parameters and performance of the fastest
//! kernels".)
//!
//! The paper tunes the four transpose patterns of each precision. Every
//! precision here has all nine BLAS op combinations `(N | T | C)²`; a `C`
//! uses the configuration of the pattern with `T` in its place (so `SgemmCN`
//! is the SGEMM Aᵀ×B row), since the conjugate transpose reads memory exactly
//! as the transpose does and conjugates while loading. On real precisions `C`
//! simply means `T`.
//!
//! Kernel names are `{S,D,C,Z}gemm{op(A)}{op(B)}`. Each invocation's comment
//! names the row it comes from.

use gemm_macros::gemm_kernel;

use crate::KernelEntry;

// SGEMM

gemm_kernel! {
    // Table 2, SGEMM A × B
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
}

gemm_kernel! {
    // Table 2, SGEMM A × Bᵀ
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, SGEMM A × Bᵀ (C in place of T)
    name = SgemmNC,
    precision = f32,
    op = (N, C),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, SGEMM Aᵀ × B
    name = SgemmTN,
    precision = f32,
    op = (T, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, SGEMM Aᵀ × Bᵀ
    name = SgemmTT,
    precision = f32,
    op = (T, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, SGEMM Aᵀ × Bᵀ (C in place of T)
    name = SgemmTC,
    precision = f32,
    op = (T, C),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, SGEMM Aᵀ × B (C in place of T)
    name = SgemmCN,
    precision = f32,
    op = (C, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, SGEMM Aᵀ × Bᵀ (C in place of T)
    name = SgemmCT,
    precision = f32,
    op = (C, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, SGEMM Aᵀ × Bᵀ (C in place of T)
    name = SgemmCC,
    precision = f32,
    op = (C, C),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

// DGEMM

gemm_kernel! {
    // Table 2, DGEMM A × B
    name = DgemmNN,
    precision = f64,
    op = (N, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM A × Bᵀ
    name = DgemmNT,
    precision = f64,
    op = (N, T),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM A × Bᵀ (C in place of T)
    name = DgemmNC,
    precision = f64,
    op = (N, C),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM Aᵀ × B
    name = DgemmTN,
    precision = f64,
    op = (T, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM Aᵀ × Bᵀ
    name = DgemmTT,
    precision = f64,
    op = (T, T),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM Aᵀ × Bᵀ (C in place of T)
    name = DgemmTC,
    precision = f64,
    op = (T, C),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM Aᵀ × B (C in place of T)
    name = DgemmCN,
    precision = f64,
    op = (C, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM Aᵀ × Bᵀ (C in place of T)
    name = DgemmCT,
    precision = f64,
    op = (C, T),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, DGEMM Aᵀ × Bᵀ (C in place of T)
    name = DgemmCC,
    precision = f64,
    op = (C, C),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

// CGEMM

gemm_kernel! {
    // Table 2, CGEMM A × B
    name = CgemmNN,
    precision = c32,
    op = (N, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, CGEMM A × Bᵀ
    name = CgemmNT,
    precision = c32,
    op = (N, T),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, CGEMM A × Bᵀ (C in place of T)
    name = CgemmNC,
    precision = c32,
    op = (N, C),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, CGEMM Aᵀ × B
    name = CgemmTN,
    precision = c32,
    op = (T, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, CGEMM Aᵀ × Bᵀ
    name = CgemmTT,
    precision = c32,
    op = (T, T),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, CGEMM Aᵀ × Bᵀ (C in place of T)
    name = CgemmTC,
    precision = c32,
    op = (T, C),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, CGEMM Aᵀ × B (C in place of T)
    name = CgemmCN,
    precision = c32,
    op = (C, N),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

gemm_kernel! {
    // Table 2, CGEMM Aᵀ × Bᵀ (C in place of T)
    name = CgemmCT,
    precision = c32,
    op = (C, T),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

gemm_kernel! {
    // Table 2, CGEMM Aᵀ × Bᵀ (C in place of T)
    name = CgemmCC,
    precision = c32,
    op = (C, C),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

// ZGEMM: the one precision whose tiles are not square

gemm_kernel! {
    // Table 2, ZGEMM A × B
    name = ZgemmNN,
    precision = c64,
    op = (N, N),
    tile = (24, 16, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM A × Bᵀ
    name = ZgemmNT,
    precision = c64,
    op = (N, T),
    tile = (16, 24, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM A × Bᵀ (C in place of T)
    name = ZgemmNC,
    precision = c64,
    op = (N, C),
    tile = (16, 24, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM Aᵀ × B
    name = ZgemmTN,
    precision = c64,
    op = (T, N),
    tile = (24, 16, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM Aᵀ × Bᵀ
    name = ZgemmTT,
    precision = c64,
    op = (T, T),
    tile = (16, 24, 8),
    threads = (8, 8),
    load_a = (4, 16),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM Aᵀ × Bᵀ (C in place of T)
    name = ZgemmTC,
    precision = c64,
    op = (T, C),
    tile = (16, 24, 8),
    threads = (8, 8),
    load_a = (4, 16),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM Aᵀ × B (C in place of T)
    name = ZgemmCN,
    precision = c64,
    op = (C, N),
    tile = (24, 16, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM Aᵀ × Bᵀ (C in place of T)
    name = ZgemmCT,
    precision = c64,
    op = (C, T),
    tile = (16, 24, 8),
    threads = (8, 8),
    load_a = (4, 16),
    load_b = (8, 8),
}

gemm_kernel! {
    // Table 2, ZGEMM Aᵀ × Bᵀ (C in place of T)
    name = ZgemmCC,
    precision = c64,
    op = (C, C),
    tile = (16, 24, 8),
    threads = (8, 8),
    load_a = (4, 16),
    load_b = (8, 8),
}

/// Every kernel of this module, in BLAS order (S, D, C, Z; ops NN NT NC TN TT TC CN CT CC).
///
/// [`crate::table2()`] indexes it by precision and ops.
pub static TABLE2: [KernelEntry; 36] = [
    KernelEntry::of::<SgemmNN>("SgemmNN"),
    KernelEntry::of::<SgemmNT>("SgemmNT"),
    KernelEntry::of::<SgemmNC>("SgemmNC"),
    KernelEntry::of::<SgemmTN>("SgemmTN"),
    KernelEntry::of::<SgemmTT>("SgemmTT"),
    KernelEntry::of::<SgemmTC>("SgemmTC"),
    KernelEntry::of::<SgemmCN>("SgemmCN"),
    KernelEntry::of::<SgemmCT>("SgemmCT"),
    KernelEntry::of::<SgemmCC>("SgemmCC"),
    KernelEntry::of::<DgemmNN>("DgemmNN"),
    KernelEntry::of::<DgemmNT>("DgemmNT"),
    KernelEntry::of::<DgemmNC>("DgemmNC"),
    KernelEntry::of::<DgemmTN>("DgemmTN"),
    KernelEntry::of::<DgemmTT>("DgemmTT"),
    KernelEntry::of::<DgemmTC>("DgemmTC"),
    KernelEntry::of::<DgemmCN>("DgemmCN"),
    KernelEntry::of::<DgemmCT>("DgemmCT"),
    KernelEntry::of::<DgemmCC>("DgemmCC"),
    KernelEntry::of::<CgemmNN>("CgemmNN"),
    KernelEntry::of::<CgemmNT>("CgemmNT"),
    KernelEntry::of::<CgemmNC>("CgemmNC"),
    KernelEntry::of::<CgemmTN>("CgemmTN"),
    KernelEntry::of::<CgemmTT>("CgemmTT"),
    KernelEntry::of::<CgemmTC>("CgemmTC"),
    KernelEntry::of::<CgemmCN>("CgemmCN"),
    KernelEntry::of::<CgemmCT>("CgemmCT"),
    KernelEntry::of::<CgemmCC>("CgemmCC"),
    KernelEntry::of::<ZgemmNN>("ZgemmNN"),
    KernelEntry::of::<ZgemmNT>("ZgemmNT"),
    KernelEntry::of::<ZgemmNC>("ZgemmNC"),
    KernelEntry::of::<ZgemmTN>("ZgemmTN"),
    KernelEntry::of::<ZgemmTT>("ZgemmTT"),
    KernelEntry::of::<ZgemmTC>("ZgemmTC"),
    KernelEntry::of::<ZgemmCN>("ZgemmCN"),
    KernelEntry::of::<ZgemmCT>("ZgemmCT"),
    KernelEntry::of::<ZgemmCC>("ZgemmCC"),
];
