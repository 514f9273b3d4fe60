//! The PTX reader against the writer: every kernel the stencil emits reads
//! back into the same IR and prints to the same text.

use gemm_codegen::Target;
use gemm_codegen::ptx::{self, write_string};
use gemm_codegen::{GlobalLoad, KernelSpec, LoadShape, Op, Precision, validate};
use gemm_emu::{parse, parse_with_source_map};

fn spec(
    p: Precision,
    ops: (Op, Op),
    tile: (u32, u32, u32),
    thr: (u32, u32),
    la: (u32, u32),
    lb: (u32, u32),
) -> KernelSpec {
    KernelSpec {
        precision: p,
        op_a: ops.0,
        op_b: ops.1,
        m_blk: tile.0,
        n_blk: tile.1,
        k_blk: tile.2,
        m_dim: thr.0,
        n_dim: thr.1,
        load_a: LoadShape { lead: la.0, cross: la.1 },
        load_b: LoadShape { lead: lb.0, cross: lb.1 },
        lds_width: 1,
        ldg: GlobalLoad::Nc,
        arch: Target::Sm70,
        stages: 1,
        ldg_width: 1,
        warps: None,
        raster: 1,
    }
}

/// Specs covering every precision, op, shared-load width and cache path.
fn specs() -> Vec<KernelSpec> {
    let mut out = Vec::new();
    for p in Precision::ALL {
        for op_a in Op::ALL {
            for op_b in Op::ALL {
                for w in [1, 2, 4] {
                    for ldg in GlobalLoad::ALL {
                        // 64 x 64 x 16 with 16 x 16 threads reads every stripe
                        // with a 16 x 16 reshape, whatever the op.
                        let mut s = spec(p, (op_a, op_b), (64, 64, 16), (16, 16), (16, 16), (16, 16));
                        s.lds_width = w;
                        s.ldg = ldg;
                        if validate(&s).is_ok() {
                            out.push(s);
                        }
                    }
                }
                // A non-power-of-two thread arrangement (div/rem indexing).
                let s = spec(p, (op_a, op_b), (24, 32, 4), (12, 8), (24, 4), (4, 24));
                if validate(&s).is_ok() {
                    out.push(s);
                }
            }
        }
    }
    out
}

#[test]
fn every_stencil_output_round_trips() {
    let specs = specs();
    assert!(specs.len() > 150, "only {} specs", specs.len());
    for s in specs {
        let module = gemm_codegen::lower(&validate(&s).unwrap());
        let text = write_string(&module);
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", s.entry_name()));
        assert_eq!(write_string(&parsed), text, "{}", s.entry_name());
        assert_eq!(parsed, module, "{}", s.entry_name());
    }
}

#[test]
fn source_map_points_at_each_statement() {
    let s = spec(Precision::C64, (Op::C, Op::T), (16, 24, 8), (8, 8), (4, 16), (8, 8));
    let module = gemm_codegen::lower(&validate(&s).unwrap());
    let text = write_string(&module);
    let lines: Vec<&str> = text.lines().collect();
    let (parsed, map) = parse_with_source_map(&text).unwrap();
    let kernel = &parsed.kernels[0];
    for (i, stmt) in kernel.body.iter().enumerate() {
        let line = lines[map.line(0, i) as usize - 1];
        match stmt {
            ptx::Stmt::Instr { instr, .. } => {
                let mut w = ptx::Writer::new(String::new());
                w.put_instr(kernel, instr).unwrap();
                assert!(line.contains(&w.into_inner()), "{line}");
            }
            ptx::Stmt::Label(l) => assert_eq!(line, format!("${}:", kernel.labels[l.index()])),
            ptx::Stmt::Comment(c) => assert_eq!(line, format!("\t// {c}")),
            ptx::Stmt::Blank => assert!(line.is_empty()),
        }
    }
}

#[test]
fn whitespace_is_free_but_mnemonics_are_exact() {
    let s = spec(Precision::F32, (Op::N, Op::N), (96, 96, 16), (16, 16), (32, 8), (8, 32));
    let text = gemm_codegen::compile(&s).unwrap().ptx.into_owned();
    // Spaces instead of tabs, statements spread over lines.
    let loose: String = text
        .lines()
        .map(|l| {
            if l.contains("//") {
                format!("{l}\n")
            } else {
                format!("{}\n", l.replace('\t', "   ").replace(", ", " ,\n  "))
            }
        })
        .collect();
    let module = parse(&loose).unwrap();
    assert_eq!(write_string(&module), text);
    // An instruction the IR does not have is named with its line.
    let bad = text.replacen("bar.sync\t0;", "bar.arrive\t0;", 1);
    let line = bad.lines().position(|l| l.contains("bar.arrive")).unwrap() + 1;
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.line as usize, line);
    assert!(e.message.contains("`bar.arrive`"), "{e}");
    // A mnemonic the writer never prints (no rounding on a float add).
    let bad = text.replacen("fma.rn.f32", "fma.f32", 1);
    assert!(parse(&bad).unwrap_err().message.contains("`fma.f32`"));
}
