//! `gemm_kernel!` and `gemm_bespoke!`: define a kernel type, validated and
//! compiled to PTX while your crate compiles.
//!
//! - [`gemm_kernel!`]: a GEMM kernel of the universal stencil, from its
//!   tile, threads and loads.
//! - [`gemm_bespoke!`]: a bespoke constant-A kernel, `C = alpha·A·B +
//!   beta·C` with the operator A read from a Matrix Market file at compile
//!   time and its values compiled into the code.
//!
//! Use them through the `gemmforge` facade (`gemmforge::gemm_kernel`,
//! `gemmforge::gemm_bespoke`); this crate is a thin front end over
//! `gemm-codegen`. `gemm_kernel!`'s phases:
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
//!
//! `gemm_bespoke!` runs the same phases (`bespoke::parse`,
//! `bespoke::validate`, `bespoke::expand`) over `gemm_codegen::grammar::bespoke`
//! and `gemm_codegen::bespoke`, reading the operator's file in between.

mod bespoke;
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
/// | `c_batch` | `1` to `tile.1 / threads.1`, default `1` | columns of a thread's C elements whose old values the epilogue reads before it writes any: fewer round trips to memory when `beta ≠ 0`, for registers |
/// | `interleave` | `0` to the product's steps, default `0` | a ring's copies of a stripe in that many groups beside the product's k steps (needs `stages ≥ 2`, no `unroll`); 0 issues them together before it |
/// | `unroll`    | a divisor of `tile.2`, default the whole stripe | K steps per iteration of the inner product's loop |
/// | `math`      | `fma` \| `dmma` \| `tf32x3` \| `tf32`, default `fma` | how the inner product multiplies: FMA units, the FP64 tensor cores (`f64`, `c64`), or the TF32 tensor cores (`f32`, `c32`; `tf32x3` f32-accurate, `tf32` TF32-accurate), sm_80+ |
/// | `mma`       | `(m, n, k)`, absent for `fma` | the `mma.sync` shape: `dmma` `(8, 8, 4)`, or on sm_90 `(16, 8, 4)`, `(16, 8, 8)`, `(16, 8, 16)`; `tf32`/`tf32x3` `(16, 8, 4)`, `(16, 8, 8)` |
/// | `schedule`  | `tiles` \| `stream_k`, default `tiles` | how blocks share out the work: a block per C tile, or stream-K (as many blocks as the GPU holds, each an equal share of every tile's stripes; shared tiles summed in stripe order by the last block to finish them) |
/// | `producers` | `0` \| `1`, default `0` | producer warpgroups of a `wgmma` kernel (`stages ≥ 2`, `schedule = tiles`, no `interleave`): 128 more threads that issue every copy and convert each stripe into its TF32 parts, handing them to the `threads` (which only issue `wgmma`s and write C) through named barriers; the load shapes then rearrange those 128 threads |
/// | `operands` | `ab` \| `ba`, default `ab` | which operand the kernel reads first: `ba` computes Cᵀ = op(B)ᵀ·op(A)ᵀ and stores it transposed (CUTLASS's "swap AB": TF32 `wgmma` reads A from registers, B only K-major), every parameter but `op` then describing that product — `tile.0`, `threads.0` along C's columns, `load_a` reading B; not with a conjugating op |
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

/// Defines a bespoke constant-A kernel: a unit struct implementing
/// `gemm_codegen::bespoke::BespokeKernel`, computing `C = alpha·A·B +
/// beta·C` for the operator A in a Matrix Market file, read while your
/// crate compiles. A's values are immediates in the PTX and its zeros
/// emit no code; B (`k × n`) and C (`m × n`) are row-major with `n`
/// contiguous.
///
/// ```
/// use gemm_codegen::Precision;
/// use gemm_codegen::bespoke::{BespokeKernel, BetaMode, Form};
///
/// gemm_macros::gemm_bespoke! {
///     name = SecondDifference,
///     a = "doc/second-difference.mtx", // relative to this crate's Cargo.toml
///     precision = f64,                 // f32 | f64
///     family = bstream,                // optional: bstream | cstream | mma (default: chosen for A)
///     width = 2,                       // optional, with `family`: columns of B and C per thread
///     beta = 0,                        // optional: 0 | 1 | runtime (default runtime)
/// }
///
/// assert_eq!((SecondDifference::M, SecondDifference::K), (6, 6));
/// assert_eq!(SecondDifference::SPEC.form, Form::BStream);
/// assert_eq!(SecondDifference::SPEC.beta, BetaMode::Zero);
/// assert!(SecondDifference::PTX.contains(SecondDifference::ENTRY));
/// assert_eq!(SecondDifference::image().spec.precision, Precision::F64);
/// let _: <SecondDifference as BespokeKernel>::Elem = 1.0f64;
///
/// // Without `family`, the spec is the operator's default.
/// gemm_macros::gemm_bespoke! { name = Chosen, a = "doc/second-difference.mtx", precision = f32 }
/// assert_eq!(Chosen::SPEC.width, 1);
/// ```
///
/// # Parameters
///
/// | parameter   | value | meaning |
/// |-------------|-------|---------|
/// | `name`      | identifier | the type to define (always `pub`) |
/// | `a`         | string literal | the operator's Matrix Market file (`coordinate` or `array`, `real`/`integer`, `general`/`symmetric`/`skew-symmetric`), relative to the directory of the invoking crate's Cargo.toml |
/// | `precision` | `f32` \| `f64` | element type of B and C; A's values are rounded to it |
/// | `family`    | `bstream` \| `cstream` \| `mma` \| `bsplit`, default chosen for A | the walk: B-streaming (rows of B through per-row accumulators), C-streaming (B's used rows held, C written row by row), `mma` (A's non-zero tiles on the tensor cores, DMMA or 3xTF32, sm_80+) or `bsplit` (B-streaming with A's rows split over `msplit` consecutive blocks per column tile, for large operators); left out, `bespoke::default_spec` picks the spec for A, and `width`, `block`, `msplit` and `chunk` must be left out too |
/// | `width`     | `1` \| `2` \| `4`, default `1` | adjacent columns of B and C per thread (at most 16 bytes): vector loads, but B, C, `ldb`, `ldc` and n must be multiples of it (for `mma`: 8-column tiles per warp, no alignment asked) |
/// | `block`     | a multiple of 32, default `128` | threads per block along n |
/// | `msplit`    | `1` … `32`, default `1` | groups of `block` threads splitting A's rows, sharing B through `cp.async` stages in shared memory (B-streaming, sm_80+); for `bsplit`, blocks splitting A's rows |
/// | `chunk`     | `1` … `64`, default `16` | rows of B loaded together: the prefetch depth, or a shared-memory stage |
/// | `beta`      | `0` \| `1` \| `runtime`, default `runtime` | `0` never reads C, `1` adds to it, `runtime` takes beta as an argument |
/// | `arch`      | `sm_70` … `sm_90`, default `sm_80` | the oldest GPU architecture the kernel is for |
/// | `ldb`       | an integer ≥ 1 (a multiple of `width`); left out, an argument | B's row stride fixed in the code: every row address an immediate offset, no multiply at run time, and a large operator's kernel assembles several times faster; a call with another `ldb` is refused |
/// | `ldc`       | as `ldb` | C's row stride fixed in the code, as `ldb` |
///
/// Parameters come in any order, separated by commas, a trailing comma
/// allowed. `BespokeSpec`'s `Display` prints a spec in this syntax (without
/// `name` and `a`), and its `FromStr` reads it back with the same grammar.
///
/// The expansion also includes the operator's file with `include_bytes!`
/// (its bytes are not kept), so cargo rebuilds the crate when the file
/// changes.
///
/// # Compile errors
///
/// Each error points at the smallest token at fault and says what to
/// change: unknown, duplicate or missing parameters and wrong kinds of value,
/// as for `gemm_kernel!`; walk parameters given without `family`; on the
/// path literal, a file that cannot be read and every mistake of the Matrix
/// Market file, as `path:line: what is wrong` (header, sizes, indices out of
/// range, duplicate entries, non-finite values, an operator over 4096 ×
/// 4096, ...) and the operator's own limits (too many non-zeros); and on the
/// value of the field it names, every rule `gemm_codegen::bespoke::validate`
/// checks (width, block, msplit against A's rows and the registers, chunk
/// against shared memory, arch, fixed strides). All errors of an invocation are reported
/// together.
#[proc_macro]
pub fn gemm_bespoke(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let mut cx = ctxt::Ctxt::default();
    let parsed = bespoke::parse::parse(input.into(), &mut cx);
    let kernel = parsed.tokens.and_then(|tokens| bespoke::validate::validate(tokens, &mut cx));
    let output = match (kernel, cx.finish()) {
        (Some(kernel), Ok(())) => bespoke::expand::kernel(&kernel),
        (_, Err(error)) => expand::stub(parsed.name.as_ref(), error),
        // Every failing phase records an error; should one not, say so
        // rather than panic in the compiler.
        (None, Ok(())) => expand::stub(
            parsed.name.as_ref(),
            syn::Error::new(
                proc_macro2::Span::call_site(),
                "internal error: `gemm_bespoke!` failed without an error",
            ),
        ),
    };
    output.into()
}

#[cfg(test)]
mod tests;
