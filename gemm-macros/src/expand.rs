//! Generation only: a validated [`Kernel`] becomes a zero-sized type and its
//! `GemmKernel` impl; a failed invocation becomes its errors and a stub.
//!
//! Every item the expansion uses is named by an absolute path under
//! [`Kernel::runtime`], and primitives through `::core::primitive`, so that
//! nothing in the invoking crate's scope can change what the output means.
//! `examples/sgemm-expanded.rs` at the workspace root shows an annotated
//! expansion.

use gemm_codegen::{GlobalLoad, KernelImage, KernelSpec, Op, Precision};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::validate::Kernel;

/// The item for a validated kernel.
pub(crate) fn kernel(kernel: &Kernel) -> TokenStream {
    let Kernel { name, plan, runtime: rt } = kernel;
    let image = gemm_codegen::emit(plan);
    let spec = plan.spec();
    // One `#[doc]` per line, as `///` comments would give.
    let doc = doc(&name.to_string(), &image);
    let doc = doc.lines().map(|line| if line.is_empty() { String::new() } else { format!(" {line}") });
    let elem = elem(rt, spec.precision);
    let spec_expr = spec_expr(rt, spec);
    let ptx = Literal::string(&image.ptx);
    let entry = Literal::string(&image.entry);
    let shared = Literal::u32_unsuffixed(image.shared_bytes);
    quote! {
        #(#[doc = #doc])*
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::default::Default,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::hash::Hash,
        )]
        pub struct #name;

        impl #rt::GemmKernel for #name {
            type Elem = #elem;
            const SPEC: #rt::KernelSpec = #spec_expr;
            const PTX: &'static ::core::primitive::str = #ptx;
            const ENTRY: &'static ::core::primitive::str = #entry;
            const SHARED_BYTES: ::core::primitive::u32 = #shared;
        }
    }
}

/// The output for a failed invocation: every error, and `pub struct Name;`
/// if the name could be read, so uses of the type elsewhere do not add a
/// cascade of "cannot find type" errors.
pub(crate) fn stub(name: Option<&Ident>, error: syn::Error) -> TokenStream {
    let error = error.to_compile_error();
    match name {
        Some(name) => quote! {
            #error
            pub struct #name;
        },
        None => error,
    }
}

pub(crate) fn elem(rt: &TokenStream, precision: Precision) -> TokenStream {
    match precision {
        Precision::F32 => quote!(::core::primitive::f32),
        Precision::F64 => quote!(::core::primitive::f64),
        Precision::C32 => quote!(#rt::num_complex::Complex<::core::primitive::f32>),
        Precision::C64 => quote!(#rt::num_complex::Complex<::core::primitive::f64>),
        Precision::F16 => quote!(#rt::half::f16),
        Precision::Bf16 => quote!(#rt::half::bf16),
    }
}

/// A constant expression for every field of `spec`.
fn spec_expr(rt: &TokenStream, spec: &KernelSpec) -> TokenStream {
    let precision = match spec.precision {
        Precision::F32 => quote!(F32),
        Precision::F64 => quote!(F64),
        Precision::C32 => quote!(C32),
        Precision::C64 => quote!(C64),
        Precision::F16 => quote!(F16),
        Precision::Bf16 => quote!(Bf16),
    };
    let op = |op: Op| match op {
        Op::N => quote!(#rt::Op::N),
        Op::T => quote!(#rt::Op::T),
        Op::C => quote!(#rt::Op::C),
    };
    let (op_a, op_b) = (op(spec.op_a), op(spec.op_b));
    let ldg = match spec.ldg {
        GlobalLoad::Nc => quote!(Nc),
        GlobalLoad::Ca => quote!(Ca),
        GlobalLoad::Cg => quote!(Cg),
        GlobalLoad::Tma => quote!(Tma),
    };
    let int = Literal::u32_unsuffixed;
    let [m_blk, n_blk, k_blk] = [spec.m_blk, spec.n_blk, spec.k_blk].map(int);
    let [m_dim, n_dim] = [spec.m_dim, spec.n_dim].map(int);
    let [a_lead, a_cross] = [spec.load_a.lead, spec.load_a.cross].map(int);
    let [b_lead, b_cross] = [spec.load_b.lead, spec.load_b.cross].map(int);
    let lds_width = int(spec.lds_width);
    let arch = format_ident!("{}", format!("{:?}", spec.arch));
    let [stages, ldg_width, raster, frag_sets, interleave, c_batch, producers] = [
        spec.stages,
        spec.ldg_width,
        spec.raster,
        spec.frag_sets,
        spec.interleave,
        spec.c_batch,
        spec.producers,
    ]
    .map(int);
    let warps = match spec.warps {
        Some(w) => {
            let (wm, wn) = (int(w.m), int(w.n));
            quote!(::core::option::Option::Some(#rt::WarpShape { m: #wm, n: #wn }))
        }
        None => quote!(::core::option::Option::None),
    };
    let math = format_ident!("{}", format!("{:?}", spec.math));
    let schedule = format_ident!("{}", format!("{:?}", spec.schedule));
    let operands = format_ident!("{}", format!("{:?}", spec.operands));
    let mma = match spec.mma {
        Some(shape) => {
            let [m, n, k] = [shape.m, shape.n, shape.k].map(int);
            quote!(::core::option::Option::Some(#rt::MmaShape { m: #m, n: #n, k: #k }))
        }
        None => quote!(::core::option::Option::None),
    };
    let unroll = match spec.unroll {
        Some(u) => {
            let u = int(u);
            quote!(::core::option::Option::Some(#u))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #rt::KernelSpec {
            precision: #rt::Precision::#precision,
            op_a: #op_a,
            op_b: #op_b,
            m_blk: #m_blk,
            n_blk: #n_blk,
            k_blk: #k_blk,
            m_dim: #m_dim,
            n_dim: #n_dim,
            load_a: #rt::LoadShape { lead: #a_lead, cross: #a_cross },
            load_b: #rt::LoadShape { lead: #b_lead, cross: #b_cross },
            lds_width: #lds_width,
            ldg: #rt::GlobalLoad::#ldg,
            arch: #rt::Target::#arch,
            stages: #stages,
            ldg_width: #ldg_width,
            warps: #warps,
            raster: #raster,
            unroll: #unroll,
            frag_sets: #frag_sets,
            interleave: #interleave,
            c_batch: #c_batch,
            math: #rt::Math::#math,
            mma: #mma,
            schedule: #rt::Schedule::#schedule,
            producers: #producers,
            operands: #rt::Operands::#operands,
        }
    }
}

/// The doc comment of the generated type, as Markdown lines: what it
/// computes, the invocation that made it, and the facts a user launching it
/// needs.
pub(crate) fn doc(name: &str, image: &KernelImage) -> String {
    let spec = &image.spec;
    let routine = spec.precision.blas_letter().to_ascii_uppercase();
    let op = |op: Op| match (op, op.effective(spec.precision)) {
        (Op::N, _) => "N",
        (Op::T, _) => "T",
        (Op::C, Op::T) => "C (the same as T on real data)",
        (Op::C, _) => "C (conjugate transpose)",
    };
    format!(
        "{routine}GEMM kernel: `C = alpha·op(A)·op(B) + beta·C` with op(A) = {} and op(B) = {}.\n\
         \n\
         Generated by `gemm_kernel!` from\n\
         \n\
         ```text\n\
         {}\n\
         ```\n\
         \n\
         - PTX entry: `{}`\n\
         - block: {} threads ({} × {}), each computing {} × {} elements of a {} × {} tile of C\n\
         - K walked in stripes of {}, staged through {} bytes of shared memory per block\n\
         - grid: one block per tile of C",
        op(spec.op_a),
        op(spec.op_b),
        spec.to_invocation(name),
        image.entry,
        spec.threads(),
        spec.m_dim,
        spec.n_dim,
        spec.m_thr(),
        spec.n_thr(),
        spec.m_blk,
        spec.n_blk,
        spec.k_blk,
        image.shared_bytes,
    )
}
