//! Generation only: a validated bespoke [`Kernel`] becomes a zero-sized
//! type, its `BespokeKernel` impl, and the `include_bytes!` of its operator
//! file that makes cargo rebuild the crate when the file changes. A failed
//! invocation becomes its errors and a stub (`crate::expand::stub`).
//!
//! As for `gemm_kernel!`, every item is named by an absolute path under
//! [`Kernel::runtime`], primitives through `::core::primitive`.

use gemm_codegen::bespoke::{BespokeImage, BetaMode, Form};
use gemm_codegen::{Precision, Target};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::validate::Kernel;
use crate::expand::elem;

/// The items for a validated bespoke kernel.
pub(crate) fn kernel(kernel: &Kernel) -> TokenStream {
    let Kernel { name, plan, file, runtime: rt, .. } = kernel;
    let image = gemm_codegen::bespoke::emit(plan);
    // One `#[doc]` per line, as `///` comments would give.
    let doc = doc(kernel, &image, plan.nnz());
    let doc = doc.lines().map(|line| if line.is_empty() { String::new() } else { format!(" {line}") });
    let elem = elem(rt, image.spec.precision);
    let spec = spec_expr(rt, &image);
    let ptx = Literal::string(&image.ptx);
    let entry = Literal::string(&image.entry);
    let (m, k) = (Literal::u32_unsuffixed(image.m), Literal::u32_unsuffixed(image.k));
    let digest = Literal::u64_unsuffixed(image.digest);
    let file = Literal::string(file);
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

        impl #rt::bespoke::BespokeKernel for #name {
            type Elem = #elem;
            const SPEC: #rt::bespoke::BespokeSpec = #spec;
            const PTX: &'static ::core::primitive::str = #ptx;
            const ENTRY: &'static ::core::primitive::str = #entry;
            const M: ::core::primitive::u32 = #m;
            const K: ::core::primitive::u32 = #k;
            const DIGEST: ::core::primitive::u64 = #digest;
        }

        // The operator is compiled into the PTX above; including its file
        // makes it a dependency of this crate, rebuilt when the file changes.
        const _: &[::core::primitive::u8] = ::core::include_bytes!(#file);
    }
}

/// A constant expression for every field of the image's spec.
fn spec_expr(rt: &TokenStream, image: &BespokeImage) -> TokenStream {
    let spec = &image.spec;
    let precision = match spec.precision {
        Precision::F32 => quote!(F32),
        Precision::F64 => quote!(F64),
        Precision::C32 => quote!(C32),
        Precision::C64 => quote!(C64),
        Precision::F16 => quote!(F16),
        Precision::Bf16 => quote!(Bf16),
    };
    let form = match spec.form {
        Form::BStream => quote!(BStream),
        Form::CStream => quote!(CStream),
        Form::Mma => quote!(Mma),
        Form::Split => quote!(Split),
    };
    let beta = match spec.beta {
        BetaMode::Zero => quote!(Zero),
        BetaMode::One => quote!(One),
        BetaMode::Runtime => quote!(Runtime),
    };
    let arch = format_ident!("{}", format!("{:?}", spec.arch));
    let [width, block, msplit, chunk] =
        [spec.width, spec.block, spec.msplit, spec.chunk].map(Literal::u32_unsuffixed);
    let [ldb, ldc] = [spec.ldb, spec.ldc].map(|ld| match ld {
        Some(ld) => {
            let ld = Literal::u32_unsuffixed(ld);
            quote!(::core::option::Option::Some(#ld))
        }
        None => quote!(::core::option::Option::None),
    });
    quote! {
        #rt::bespoke::BespokeSpec {
            precision: #rt::Precision::#precision,
            form: #rt::bespoke::Form::#form,
            width: #width,
            block: #block,
            msplit: #msplit,
            chunk: #chunk,
            beta: #rt::bespoke::BetaMode::#beta,
            arch: #rt::Target::#arch,
            ldb: #ldb,
            ldc: #ldc,
        }
    }
}

/// The doc comment of the generated type, as Markdown lines: what it
/// computes, the invocation with the spec spelled out, and the facts a user
/// launching it needs.
pub(crate) fn doc(kernel: &Kernel, image: &BespokeImage, nnz: usize) -> String {
    let spec = &image.spec;
    let routine = spec.precision.blas_letter().to_ascii_uppercase();
    let (m, k) = (image.m, image.k);
    let beta = match spec.beta {
        BetaMode::Zero => "fixed at 0: C is written, never read",
        BetaMode::One => "fixed at 1: `alpha·A·B` is added to C",
        BetaMode::Runtime => "an argument; where it is 0, C is not read",
    };
    let chosen = if kernel.default {
        "\n\n`family` was left out: the spec is the operator's default (`bespoke::default_spec`)."
    } else {
        ""
    };
    let columns = match spec.width {
        1 => "one column".to_owned(),
        w => format!("{w} adjacent columns"),
    };
    let block = match spec.msplit {
        1 => format!("{} threads, each computing {columns} of C", spec.block),
        groups => format!(
            "{} threads, {groups} groups of {} splitting A's rows, each thread computing {columns} of C for its \
             group's rows",
            spec.threads(),
            spec.block
        ),
    };
    let aligned = match spec.width {
        1 => String::new(),
        w => format!("\n- B's and C's addresses, `ldb`, `ldc` and n must be multiples of {w} elements"),
    };
    let strides = match (spec.ldb, spec.ldc) {
        (None, None) => "`ldb`, `ldc`".to_owned(),
        (b, c) => {
            let one = |key: &str, ld: Option<u32>| {
                ld.map_or(format!("`{key}`"), |ld| {
                    format!("`{key}` = {ld}, fixed: calls with another are refused")
                })
            };
            format!("{}; {}", one("ldb", b), one("ldc", c))
        }
    };
    let shared = match spec.shared_bytes() {
        0 => "B read straight into registers, no shared memory".to_owned(),
        bytes => format!("B staged through {bytes} bytes of shared memory per block (`cp.async`)"),
    };
    format!(
        "Bespoke {routine}GEMM kernel: `C = alpha·A·B + beta·C` with the constant {m} × {k} operator A of \
         `{}` ({nnz} non-zeros) in its code.\n\
         \n\
         Generated by `gemm_bespoke!` from\n\
         \n\
         ```text\n\
         gemm_bespoke! {{ name = {}, a = {:?}, {spec} }}\n\
         ```{chosen}\n\
         \n\
         - B is {k} × n and C {m} × n, row-major with n contiguous (row strides {strides})\n\
         - beta: {beta}\n\
         - PTX entry: `{}`\n\
         - block: {block}; grid: one block per {} columns of C\n\
         - {shared}{aligned}\n\
         - runs on {} and newer",
        kernel.path,
        kernel.name,
        kernel.path,
        image.entry,
        spec.columns_per_block(),
        Target::token(spec.arch),
    )
}
