//! Prints the PTX of a bespoke kernel of a test-set operator, to read or to
//! assemble with `ptxas` (registers, spills, the size of the text):
//!
//! ```text
//! cargo run --release -p gemm-codegen --example bespoke-ptx -- rand-512x512-d0.01 \
//!     "precision = f64, family = bstream, width = 1, block = 32, msplit = 8, chunk = 48, beta = 0, arch = sm_90" > k.ptx
//! ```

use gemm_codegen::bespoke::{self, BespokeSpec, operators};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, spec] = args.as_slice() else {
        eprintln!(
            "usage: bespoke-ptx OPERATOR SPEC (an operator of bespoke::operators::test_set, a spec in the gemm_bespoke! grammar)"
        );
        std::process::exit(2);
    };
    let Some((_, a)) = operators::test_set().into_iter().find(|(n, _)| n == name) else {
        eprintln!("no operator {name} in the test set");
        std::process::exit(2);
    };
    let spec: BespokeSpec = spec.parse().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    match bespoke::compile(&a, &spec) {
        Ok(image) => print!("{}", image.ptx),
        Err(violations) => {
            for v in violations {
                eprintln!("{v}");
            }
            std::process::exit(1);
        }
    }
}
