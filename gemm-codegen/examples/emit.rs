//! Prints the PTX of a spec given as the body of a `gemm_kernel!`
//! invocation, e.g.
//! `cargo run -p gemm-codegen --example emit -- "precision = f32, op = (N, N), tile = (96, 96, 16), threads = (16, 16), load_a = (32, 8), load_b = (8, 32)"`.

use gemm_codegen::KernelSpec;

fn main() {
    let Some(body) = std::env::args().nth(1) else {
        eprintln!("usage: emit 'precision = f32, op = (N, N), tile = (96, 96, 16), ...'");
        std::process::exit(2);
    };
    let spec: KernelSpec = match body.parse() {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    match gemm_codegen::compile(&spec) {
        Ok(image) => print!("{}", image.ptx),
        Err(violations) => {
            for v in violations {
                eprintln!("{}: {v}", v.at);
            }
            std::process::exit(1);
        }
    }
}
