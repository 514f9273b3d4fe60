//! `gemm_kernel!`: define a GEMM kernel type, validated and compiled to PTX
//! while your crate compiles.
//!
//! Use it through the `gemmforge` facade (`gemmforge::gemm_kernel`); this
//! crate is a thin front end over `gemm-codegen`:
//!
//! ```text
//! tokens ──parse──▶ SpecTokens ──validate──▶ Kernel (a gemm_codegen::Plan) ──expand──▶ item
//!            │                        │
//!            └────── all errors ──────┴──▶ compile errors + `pub struct Name;`
//! ```
//!
//! - `parse` hands the tokens, each with its span, to `gemm_codegen::grammar`:
//!   the one reader of `gemm_kernel!` bodies, shared with `KernelSpec:
//!   FromStr`, so a body given as text (`cargo xtask bench --spec`) is read
//!   with exactly the same rules and messages. The only difference: text may
//!   leave out `name`, which the macro requires.
//! - `validate` runs `gemm_codegen::validate` (the one implementation of the
//!   stencil's constraints) and points each violation at the token it names.
//! - `expand` only generates; it is handed a validated plan, never a spec.
//!
//! Every error of an invocation is reported at once (unknown, duplicate and
//! missing parameters, wrong values, broken constraints). When there is any,
//! the expansion is the errors plus `pub struct Name;`, so uses of the type
//! elsewhere add no cascade of further errors.

mod ctxt;
mod expand;
mod parse;
mod validate;

/// Defines a GEMM kernel: a unit struct implementing `GemmKernel`, whose
/// associated constants hold the validated spec, the PTX generated from it,
/// the entry name and the shared memory per block.
///
/// ```
/// use gemm_codegen::{GemmKernel, Op, Precision};
///
/// gemm_macros::gemm_kernel! {
///     name = SgemmNN,
///     precision = f32,          // f32 | f64 | c32 | c64 (SGEMM, DGEMM, CGEMM, ZGEMM)
///     op = (N, N),              // op(A), op(B): each N | T | C
///     tile = (96, 96, 16),      // (M_blk, N_blk, K_blk)
///     threads = (16, 16),       // (M_dim, N_dim)
///     load_a = (32, 8),         // threads reading A's stored stripe: (along its leading dim, across)
///     load_b = (8, 32),         // likewise for B
///     lds_width = 1,            // optional: elements per shared load, 1 | 2 | 4 (default 1)
///     ldg = nc,                 // optional: global load cache path, nc | ca | cg (default nc)
/// }
///
/// assert_eq!(SgemmNN::SPEC.precision, Precision::F32);
/// assert_eq!(SgemmNN::SPEC.op_b, Op::N);
/// assert!(SgemmNN::PTX.contains(SgemmNN::ENTRY));
/// let _: <SgemmNN as GemmKernel>::Elem = 1.0f32;
/// ```
///
/// # Parameters
///
/// | parameter   | value | meaning |
/// |-------------|-------|---------|
/// | `name`      | identifier | the type to define (always `pub`) |
/// | `precision` | `f32` \| `f64` \| `c32` \| `c64` | element type; `c32`/`c64` are `num_complex::Complex<f32/f64>` |
/// | `op`        | `(op(A), op(B))`, each `N` \| `T` \| `C` | `C` is the conjugate transpose, and means `T` for real precisions |
/// | `tile`      | `(M_blk, N_blk, K_blk)` | the C tile of one block and the K depth of one stripe |
/// | `threads`   | `(M_dim, N_dim)` | the block's threads as they compute C |
/// | `load_a`    | `(lead, cross)` | the same threads reshaped to read A's stored stripe: `lead` along its leading dimension, `cross` across |
/// | `load_b`    | `(lead, cross)` | likewise for B |
/// | `lds_width` | `1` \| `2` \| `4`, default `1` | elements per shared-memory load of the inner product |
/// | `ldg`       | `nc` \| `ca` \| `cg`, default `nc` | cache path of the global loads of A and B |
/// | `arch`      | `sm_70` … `sm_90a`, default `sm_70` | the GPU architecture: its instructions, shared-memory limit and PTX target |
/// | `stages`    | `1` … `8`, default `1` | shared-memory stripes in flight; 2 and up fill a `cp.async` ring (sm_80+) |
/// | `ldg_width` | `1` \| `2` \| `4`, default `1` | elements per global load of A and B (at most 16 bytes) |
/// | `warps`     | `(wm, wn)`, default threads along M | warps over the C tile, each a sub-grid of 32 threads |
/// | `raster`    | `1` …, default `1` | tile rows per group of the block order (1: the plain 2-D grid) |
/// | `frag_sets` | `1` or `2`, default `1` | register sets of fragments; 2 double-buffers them |
/// | `interleave` | `0` to the product's steps, default `0` | a ring's copies of a stripe in that many groups beside the product's k steps (needs `stages ≥ 2`, no `unroll`); 0 issues them together before it |
/// | `unroll`    | a divisor of `tile.2`, default the whole stripe | K steps per iteration of the inner product's loop |
/// | `math`      | `fma` \| `dmma` \| `tf32x3` \| `tf32`, default `fma` | how the inner product multiplies: FMA units, the FP64 tensor cores (`f64`, `c64`), or the TF32 tensor cores (`f32`, `c32`; `tf32x3` f32-accurate, `tf32` TF32-accurate), sm_80+ |
/// | `mma`       | `(m, n, k)`, absent for `fma` | the `mma.sync` shape: `dmma` `(8, 8, 4)`, or on sm_90 `(16, 8, 4)`, `(16, 8, 8)`, `(16, 8, 16)`; `tf32`/`tf32x3` `(16, 8, 4)`, `(16, 8, 8)` |
///
/// Parameters come in any order, separated by commas, a trailing comma
/// allowed. Values are literals: the kernel is compiled while the macro
/// expands.
///
/// # Compile errors
///
/// Each error points at the smallest token at fault (a tuple element where
/// the rule is about one) and says what to change: unknown, duplicate or
/// missing parameters; wrong kinds of value; and every hard constraint of the
/// stencil as `gemm_codegen::validate` checks it (zero sizes, threads per
/// block, divisibility of the tile and of each stored stripe, shared memory
/// and registers). All errors of an invocation are reported together.
#[proc_macro]
pub fn gemm_kernel(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let mut cx = ctxt::Ctxt::default();
    let parsed = parse::parse(input.into(), &mut cx);
    let kernel = parsed.spec.and_then(|spec| validate::validate(spec, &mut cx));
    let output = match (kernel, cx.finish()) {
        (Some(kernel), Ok(())) => expand::kernel(&kernel),
        (_, Err(error)) => expand::stub(parsed.name.as_ref(), error),
        (None, Ok(())) => unreachable!("a spec that fails to parse or validate records an error"),
    };
    output.into()
}

#[cfg(test)]
mod tests;
