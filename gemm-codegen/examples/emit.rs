//! Prints the PTX of a spec given as `gemm_kernel!` parameters on the
//! command line, e.g.
//! `cargo run -p gemm-codegen --example emit -- f32 NN 96 96 16 16 16 32 8 8 32 [lds_width] [ldg]`.

use gemm_codegen::Target;
use gemm_codegen::{GlobalLoad, KernelSpec, LoadShape, Op, Precision};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 11 {
        eprintln!("usage: emit PRECISION OPS M_BLK N_BLK K_BLK M_DIM N_DIM A0 A1 B0 B1 [LDS_WIDTH] [LDG]");
        std::process::exit(2);
    }
    let num = |i: usize| args[i].parse::<u32>().expect("a number");
    let ops: Vec<Op> = args[1].chars().map(|c| Op::from_letter(c).expect("N, T or C")).collect();
    let spec = KernelSpec {
        precision: Precision::from_token(&args[0]).expect("f32, f64, c32 or c64"),
        op_a: ops[0],
        op_b: ops[1],
        m_blk: num(2),
        n_blk: num(3),
        k_blk: num(4),
        m_dim: num(5),
        n_dim: num(6),
        load_a: LoadShape { lead: num(7), cross: num(8) },
        load_b: LoadShape { lead: num(9), cross: num(10) },
        lds_width: args.get(11).map_or(1, |_| num(11)),
        ldg: args.get(12).map_or(GlobalLoad::Nc, |s| GlobalLoad::from_token(s).expect("nc, ca or cg")),
        arch: Target::Sm70,
        stages: 1,
        ldg_width: 1,
        warps: None,
        raster: 1,
    };
    match gemm_codegen::compile(&spec) {
        Ok(image) => print!("{}", image.ptx),
        Err(violations) => {
            for v in violations {
                eprintln!("error: {v}");
            }
            std::process::exit(1);
        }
    }
}
