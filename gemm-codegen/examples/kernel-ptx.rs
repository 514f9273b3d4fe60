//! Prints the PTX of a stencil kernel, to read or to assemble with `ptxas`
//! (registers, spills, `wgmma` serialization warnings):
//!
//! ```text
//! cargo run --release -p gemm-codegen --example kernel-ptx -- \
//!     "precision = f32, op = (N, N), tile = (128, 128, 32), threads = (64, 4), load_a = (32, 8), \
//!      load_b = (8, 32), lds_width = 4, ldg_width = 4, stages = 3, warps = (8, 1), math = tf32x3, \
//!      mma = (64, 128, 8), arch = sm_90a" > k.ptx
//! ```

use gemm_codegen::KernelSpec;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [spec] = args.as_slice() else {
        eprintln!("usage: kernel-ptx SPEC (a spec in the gemm_kernel! grammar, without `name`)");
        std::process::exit(2);
    };
    let spec: KernelSpec = spec.parse().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    match gemm_codegen::compile(&spec) {
        Ok(image) => print!("{}", image.ptx),
        Err(violations) => {
            for v in violations {
                eprintln!("{}: {}", v.at, v.message);
            }
            std::process::exit(1);
        }
    }
}
