//! The PTX reader against the writer: every kernel the stencil emits reads
//! back into the same IR and prints to the same text.

use gemm_codegen::ptx::{self, write_string};
use gemm_codegen::{GlobalLoad, KernelSpec, Op, Precision, validate};
use gemm_emu::{parse, parse_with_source_map};

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
                        let mut s =
                            KernelSpec::new(p, (op_a, op_b), (64, 64, 16), (16, 16), (16, 16), (16, 16));
                        s.lds_width = w;
                        s.ldg = ldg;
                        if validate(&s).is_ok() {
                            out.push(s);
                        }
                    }
                }
                // A non-power-of-two thread arrangement (div/rem indexing).
                let s = KernelSpec::new(p, (op_a, op_b), (24, 32, 4), (12, 8), (24, 4), (4, 24));
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
    let s = KernelSpec::new(Precision::C64, (Op::C, Op::T), (16, 24, 8), (8, 8), (4, 16), (8, 8));
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
    let s = KernelSpec::new(Precision::F32, (Op::N, Op::N), (96, 96, 16), (16, 16), (32, 8), (8, 32));
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

/// A kernel with every `cp.async` form, guards on them, and a dynamic
/// shared array next to a static one.
fn cp_async_module() -> ptx::Module {
    use ptx::{Address, CpAsyncCache, Instr, KernelBuilder, Operand, Type};
    let mut b = KernelBuilder::new("pipeline");
    let inp = b.param("inp", Type::U64);
    b.reg_group("addresses");
    let src = b.reg("src", Type::U64);
    let dst = b.reg("dst", Type::U32);
    let size = b.reg("size", Type::U32);
    let edge = b.reg("edge", Type::Pred);
    let stage = b.shared("stage", 1024, 16);
    let dynamic = b.dynamic_shared("dyn", 128);
    b.push(Instr::ld_param(src, inp));
    b.push(Instr::cvta_to_global(src, src));
    b.push(Instr::mov(dst, dynamic));
    b.push(Instr::mov(size, Operand::imm(12)));
    b.push(Instr::setp(ptx::Cmp::Lt, Type::U32, edge, size, Operand::imm(16)));
    b.section("copies");
    b.push(Instr::cp_async(CpAsyncCache::Ca, Address::shared(stage, 64), Address::reg(src, 4), 4));
    b.push(Instr::cp_async(CpAsyncCache::Ca, Address::reg(dst, 8), Address::reg(src, -8), 8));
    b.push(Instr::cp_async(CpAsyncCache::Cg, Address::reg(dst, 16), Address::reg(src, 0), 16));
    b.push(Instr::cp_async_commit());
    b.push_if(
        edge,
        Instr::cp_async_zfill(CpAsyncCache::Cg, Address::reg(dst, 32), Address::reg(src, 32), 16, size),
    );
    b.push_unless(
        edge,
        Instr::cp_async_zfill(
            CpAsyncCache::Ca,
            Address::shared(stage, 0),
            Address::reg(src, 48),
            16,
            Operand::imm(0),
        ),
    );
    b.push(Instr::cp_async_commit());
    b.push(Instr::cp_async_wait(1));
    b.push(Instr::cp_async_wait(0));
    b.push(Instr::cp_async_wait_all());
    b.push(Instr::bar_sync(0));
    b.push(Instr::ret());
    ptx::Module { header: vec!["cp.async forms".into()], floor: ptx::Arch::SM_80, kernels: vec![b.finish()] }
}

#[test]
fn cp_async_and_dynamic_shared_memory_round_trip() {
    let module = cp_async_module();
    let kernel = &module.kernels[0];
    assert_eq!(kernel.shared_bytes(), 1024, "the dynamic array is sized at launch");
    assert_eq!(kernel.dynamic_shared().map(|s| s.index()), Some(1));
    let text = write_string(&module);
    for line in [
        ".version 7.0",
        ".target sm_80",
        "\t.shared .align 16 .b8 stage[1024];",
        ".extern .shared .align 128 .b8 dyn[];",
        "\tcp.async.ca.shared.global\t[stage+64], [%src+4], 4;",
        "\tcp.async.ca.shared.global\t[%dst+8], [%src+-8], 8;",
        "\tcp.async.cg.shared.global\t[%dst+16], [%src], 16;",
        "\t@%edge cp.async.cg.shared.global\t[%dst+32], [%src+32], 16, %size;",
        "\t@!%edge cp.async.ca.shared.global\t[stage], [%src+48], 16, 0;",
        "\tcp.async.commit_group;",
        "\tcp.async.wait_group\t1;",
        "\tcp.async.wait_all;",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed, module);
    assert_eq!(write_string(&parsed), text);
    // Without the copies, the module is sm_70's again; the dynamic array
    // alone does not need sm_80.
    let mut plain = ptx::Module { floor: ptx::Arch::SM_70, ..module.clone() };
    plain.kernels[0].body.retain(|s| {
        !matches!(
            s,
            ptx::Stmt::Instr {
                instr: ptx::Instr::CpAsync { .. }
                    | ptx::Instr::CpAsyncCommit
                    | ptx::Instr::CpAsyncWait { .. }
                    | ptx::Instr::CpAsyncWaitAll,
                ..
            }
        )
    });
    let plain_text = write_string(&plain);
    assert!(plain_text.contains(".target sm_70") && plain_text.contains("dyn[];"));
    assert_eq!(parse(&plain_text).unwrap(), plain);
}

#[test]
fn cp_async_mistakes_are_named_with_their_line() {
    let text = write_string(&cp_async_module());
    // Replaces `from` by `to` and returns the error, which must name the
    // line of the last line of `to`.
    let error = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        let bad = text.replacen(from, to, 1);
        let last = to.lines().last().unwrap().trim_start_matches('\t');
        let line = bad.lines().position(|l| l.contains(last)).unwrap() as u32 + 1;
        let e = parse(&bad).unwrap_err();
        assert_eq!(e.line, line, "{e}");
        e.message
    };
    let m = error("[%dst+16], [%src], 16;", "[%dst+16], [%src], 8;");
    assert!(m.contains("cp-size 8") && m.contains("`.cg` 16"), "{m}");
    let m = error("[stage], [%src+48], 16, 0;", "[stage], [%src+48], 16, 17;");
    assert!(m.contains("src-size 17 is not in 0..=16"), "{m}");
    let m = error("[stage], [%src+48], 16, 0;", "[%src], [stage], 16, 0;");
    assert!(m.contains("the source is a global address, not shared array `stage`"), "{m}");
    let m = error("cp.async.wait_group\t1;", "cp.async.wait_group\t%size;");
    assert!(m.contains("immediate group count"), "{m}");
    let m = error("cp.async.wait_all;", "cp.async.wait_all\t1;");
    assert!(m.contains("expected 0 operands"), "{m}");
    let m = error(".b8 stage[1024];", ".b8 stage[];");
    assert!(m.contains("`stage[]` has no size"), "{m}");
    let m = error(".b8 dyn[];", ".b8 dyn[];\n\t.extern .shared .align 16 .b8 more[];");
    assert!(m.contains("a second dynamic shared array `more`"), "{m}");
    let m = error(".target sm_80", ".target sm_70");
    assert!(m.contains("differs from sm_80"), "{m}");
}

/// A kernel with every `wgmma` form (three shapes, every negation, a
/// guarded one; A by descriptor and from registers; f16 and bf16 with an
/// MN-major operand each) and `fence.proxy.async`.
fn wgmma_module() -> ptx::Module {
    use ptx::{Instr, KernelBuilder, Major, Operand, SmemDesc, Type, WgmmaInput, WgmmaShape};
    let mut b = KernelBuilder::new("warpgroup");
    b.reg_group("accumulators");
    let d: Vec<ptx::Reg> = (0..128).map(|i| b.reg(format!("d{i}"), Type::F32)).collect();
    b.reg_group("descriptors");
    let a_desc = b.reg("a_desc", Type::B64);
    let b_desc = b.reg("b_desc", Type::B64);
    let acc = b.reg("acc", Type::Pred);
    b.reg_group("A fragments");
    let a: Vec<ptx::Reg> = (0..8).map(|i| b.reg(format!("a{i}"), Type::B32)).collect();
    let frag = |i: usize| [a[i], a[i + 1], a[i + 2], a[i + 3]];
    b.push(Instr::mov(a_desc, Operand::imm(SmemDesc::k_major(256, 128, 256).encode() as i64)));
    b.push(Instr::mov(b_desc, Operand::imm(SmemDesc::k_major(4096, 2048, 128).encode() as i64)));
    b.push(Instr::setp(ptx::Cmp::Ne, Type::U32, acc, Operand::imm(0), Operand::imm(0)));
    b.push(Instr::fence_proxy_async());
    b.push(Instr::wgmma_fence());
    for (n, negs) in [(8, (false, false)), (64, (true, false)), (256, (false, true)), (128, (true, true))] {
        let shape = WgmmaShape::tf32(n).unwrap();
        b.push(Instr::wgmma(shape, &d[..n as usize / 2], (a_desc, b_desc), acc, negs, (Major::K, Major::K)));
    }
    let k_major = (Major::K, Major::K);
    let shape = WgmmaShape::tf32(16).unwrap();
    b.push_if(acc, Instr::wgmma(shape, &d[..8], (a_desc, b_desc), acc, (false, false), k_major));
    // The 16-bit forms, with their transpose immediates.
    for (input, n, negs, major) in [
        (WgmmaInput::F16, 64, (false, false), (Major::Mn, Major::K)),
        (WgmmaInput::Bf16, 256, (true, false), (Major::K, Major::Mn)),
    ] {
        let shape = WgmmaShape::new(input, n).unwrap();
        b.push(Instr::wgmma(shape, &d[..n as usize / 2], (a_desc, b_desc), acc, negs, major));
    }
    for (n, negs, i) in [(8, (false, false), 0), (128, (true, false), 4), (256, (false, true), 0)] {
        let shape = WgmmaShape::tf32(n).unwrap();
        b.push(Instr::wgmma_rs(shape, &d[..n as usize / 2], (frag(i), b_desc), acc, negs));
    }
    b.push_if(
        acc,
        Instr::wgmma_rs(WgmmaShape::tf32(16).unwrap(), &d[..8], (frag(4), b_desc), acc, (true, true)),
    );
    b.push(Instr::wgmma_commit());
    b.push(Instr::wgmma_wait(1));
    b.push(Instr::wgmma_wait(0));
    b.push(Instr::ret());
    ptx::Module { header: vec!["wgmma forms".into()], floor: ptx::Arch::SM_90A, kernels: vec![b.finish()] }
}

#[test]
fn wgmma_and_proxy_fence_round_trip() {
    let module = wgmma_module();
    let text = write_string(&module);
    for line in [
        ".target sm_90a",
        "\tfence.proxy.async.shared::cta;",
        "\twgmma.fence.sync.aligned;",
        "\twgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32\t{%d0, %d1, %d2, %d3}, %a_desc, %b_desc, %acc, 1, 1;",
        "\twgmma.commit_group.sync.aligned;",
        "\twgmma.wait_group.sync.aligned\t1;",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let neg = |n: u32, sa: i32, sb: i32| {
        let d: Vec<String> = (0..n / 2).map(|i| format!("%d{i}")).collect();
        format!(
            "\twgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32\t{{{}}}, %a_desc, %b_desc, %acc, {sa}, {sb};",
            d.join(", ")
        )
    };
    for line in [neg(64, -1, 1), neg(256, 1, -1), neg(128, -1, -1)] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let half = |n: u32, ty: &str, tail: &str| {
        let d: Vec<String> = (0..n / 2).map(|i| format!("%d{i}")).collect();
        format!(
            "\twgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty}\t{{{}}}, %a_desc, %b_desc, %acc, {tail};",
            d.join(", ")
        )
    };
    for line in [half(64, "f16", "1, 1, 1, 0"), half(256, "bf16", "-1, 1, 0, 1")] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let rs = |n: u32, a: u32, sa: i32, sb: i32| {
        let d: Vec<String> = (0..n / 2).map(|i| format!("%d{i}")).collect();
        let a: Vec<String> = (a..a + 4).map(|i| format!("%a{i}")).collect();
        format!(
            "\twgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32\t{{{}}}, {{{}}}, %b_desc, %acc, {sa}, {sb};",
            d.join(", "),
            a.join(", ")
        )
    };
    for line in [rs(8, 0, 1, 1), rs(128, 4, -1, 1), rs(256, 0, 1, -1)] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let guarded = format!("\t@%acc {}", rs(16, 4, -1, -1).trim_start());
    assert!(text.lines().any(|l| l == guarded), "no line {guarded:?} in\n{text}");
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let forms = parsed.kernels[0].instrs().fold((0, 0), |(ss, rs), i| match i {
        ptx::Instr::Wgmma { .. } => (ss + 1, rs),
        ptx::Instr::WgmmaRs { .. } => (ss, rs + 1),
        _ => (ss, rs),
    });
    assert_eq!(forms, (7, 4), "each form reads back as itself");
    assert_eq!(parsed, module);
    assert_eq!(write_string(&parsed), text);
}

#[test]
fn wgmma_mistakes_are_named_with_their_line() {
    let text = write_string(&wgmma_module());
    let error = |from: &str, to: &str| parse_error_at(&text, from, to);
    let first = "m64n8k8.f32.tf32.tf32\t{%d0, %d1, %d2, %d3}";
    let m = error(first, "m64n12k8.f32.tf32.tf32\t{%d0, %d1, %d2, %d3, %d4, %d5}");
    assert!(m.contains("`m64n12k8` is not a .tf32 wgmma shape"), "{m}");
    let m = error(first, "m64n264k8.f32.tf32.tf32\t{%d0, %d1, %d2, %d3}");
    assert!(m.contains("`m64n264k8` is not a .tf32 wgmma shape"), "{m}");
    let m = error(first, "m64n8k16.f32.f16.f16\t{%d0, %d1, %d2, %d3}");
    assert!(m.contains("a .f16 wgmma takes imm-trans-a and imm-trans-b"), "{m}");
    let m = error(first, "m64n8k32.f32.e4m3.e4m3\t{%d0, %d1, %d2, %d3}");
    assert!(m.contains("the emulator has these wgmma only"), "{m}");
    let m = error(first, "m64n8k8.f32.tf32.tf32\t{%d0, %d1, %d2}");
    assert!(m.contains("D has 3 registers; m64n8k8 takes 4 a thread"), "{m}");
    let m = error("%d3}, %a_desc, %b_desc, %acc, 1, 1;", "%a_desc}, %a_desc, %b_desc, %acc, 1, 1;");
    assert!(m.contains("D %a_desc of type .b64 must be an `.f32` register"), "{m}");
    let m = error("%d3}, %a_desc, %b_desc, %acc, 1, 1;", "%d3}, %a_desc, %d4, %acc, 1, 1;");
    assert!(m.contains("B's descriptor %d4 of type .f32 must be a 64-bit register"), "{m}");
    let m = error("%d3}, %a_desc, %b_desc, %acc, 1, 1;", "%d3}, %a_desc, %b_desc, 1, 1, 1;");
    assert!(m.contains("scale-d must be a `.pred` register"), "{m}");
    let m = error("%d3}, %a_desc, %b_desc, %acc, 1, 1;", "%d3}, %a_desc, %b_desc, %acc, 1, 0;");
    assert!(m.contains("imm-scale-b must be the integer 1 or -1"), "{m}");
    let rs = "{%a0, %a1, %a2, %a3}, %b_desc";
    let m = error(rs, "{%a0, %a1, %d4, %a3}, %b_desc");
    assert!(m.contains("A %d4 of type .f32 must be a `.b32` register"), "{m}");
    let m = error(rs, "{%a0, %a1, %a2, %a_desc}, %b_desc");
    assert!(m.contains("A %a_desc of type .b64 must be a `.b32` register"), "{m}");
    let m = error(rs, "{%a0, %a1, %a2}, %b_desc");
    assert!(m.contains("A from registers has 3 registers, not 4 a thread"), "{m}");
    let m = error(rs, "{%a0, %a1, %a2, 0}, %b_desc");
    assert!(m.contains("A's vector must hold registers only"), "{m}");
    let m = error(rs, "%a0, %b_desc");
    assert!(m.contains("A's descriptor %a0 of type .b32 must be a 64-bit register"), "{m}");
    let m = error("wgmma.wait_group.sync.aligned\t1;", "wgmma.wait_group.sync.aligned\t%acc;");
    assert!(m.contains("immediate group count"), "{m}");
    let m = error("wgmma.fence.sync.aligned;", "wgmma.fence.sync.aligned\t0;");
    assert!(m.contains("expected 0 operands"), "{m}");
    let m = error("wgmma.commit_group.sync.aligned;", "wgmma.commit_group.sync;");
    assert!(m.contains("unknown or unsupported instruction `wgmma.commit_group.sync`"), "{m}");
    let m = error("fence.proxy.async.shared::cta;", "fence.proxy.async.shared::cluster;");
    assert!(
        m.contains("the emulator has `fence.acq_rel.gpu` and `fence.proxy.async.shared::cta` only"),
        "{m}"
    );
    let m = error(".target sm_90a", ".target sm_90");
    assert!(m.contains("differs from sm_90a"), "{m}");
}

/// A kernel with `atom.inc` (immediate and register bounds, an offset, a
/// guard) and `fence.acq_rel.gpu`.
fn atomics_module() -> ptx::Module {
    use ptx::{Address, Instr, KernelBuilder, Operand, Type};
    let mut b = KernelBuilder::new("counters");
    let counters = b.param("counters", Type::U64);
    let p = b.reg("p", Type::U64);
    let old = b.reg("old", Type::U32);
    let bound = b.reg("bound", Type::U32);
    let lead = b.reg("lead", Type::Pred);
    b.push(Instr::ld_param(p, counters));
    b.push(Instr::cvta_to_global(p, p));
    b.push(Instr::mov(bound, Operand::imm(7)));
    b.push(Instr::setp(ptx::Cmp::Eq, Type::U32, lead, bound, Operand::imm(7)));
    b.push(Instr::fence_acq_rel_gpu());
    b.push(Instr::atom_inc(old, Address::reg(p, 0), Operand::imm(3)));
    b.push(Instr::atom_inc(old, Address::reg(p, 8), bound));
    b.push_if(lead, Instr::atom_inc(old, Address::reg(p, -4), Operand::imm(0)));
    b.push(Instr::fence_acq_rel_gpu());
    b.push(Instr::ret());
    ptx::Module { header: vec!["atomics".into()], floor: ptx::Arch::SM_70, kernels: vec![b.finish()] }
}

#[test]
fn atomics_and_acq_rel_fence_round_trip() {
    let module = atomics_module();
    let text = write_string(&module);
    for line in [
        ".target sm_70",
        "\tfence.acq_rel.gpu;",
        "\tatom.relaxed.gpu.global.inc.u32\t%old, [%p], 3;",
        "\tatom.relaxed.gpu.global.inc.u32\t%old, [%p+8], %bound;",
        "\t@%lead atom.relaxed.gpu.global.inc.u32\t%old, [%p+-4], 0;",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let count = parsed.kernels[0].instrs().fold((0, 0), |(atoms, fences), i| match i {
        ptx::Instr::AtomInc { .. } => (atoms + 1, fences),
        ptx::Instr::FenceAcqRelGpu => (atoms, fences + 1),
        _ => (atoms, fences),
    });
    assert_eq!(count, (3, 2));
    assert_eq!(parsed, module);
    assert_eq!(write_string(&parsed), text);
}

#[test]
fn atomic_mistakes_are_named_with_their_line() {
    let text = write_string(&atomics_module());
    let error = |from: &str, to: &str| parse_error_at(&text, from, to);
    let atom = "atom.relaxed.gpu.global.inc.u32\t%old, [%p], 3;";
    let m = error(atom, "atom.relaxed.gpu.global.add.u32\t%old, [%p], 3;");
    assert!(m.contains("the emulator has `atom.relaxed.gpu.global.inc.u32` only"), "{m}");
    let m = error(atom, "atom.global.inc.u32\t%old, [%p], 3;");
    assert!(m.contains("`atom.relaxed.gpu.global.inc.u32` only"), "{m}");
    let m = error(atom, "atom.relaxed.gpu.global.inc.u32\t%p, [%p], 3;");
    assert!(m.contains("%p of type .u64 cannot be used as .u32"), "{m}");
    let m = error(atom, "atom.relaxed.gpu.global.inc.u32\t%old, %p, 3;");
    assert!(m.contains("expected an address"), "{m}");
    let m = error(atom, "atom.relaxed.gpu.global.inc.u32\t%old, [%p], 4294967296;");
    assert!(m.contains("bound 4294967296 is not a 32-bit unsigned integer"), "{m}");
    let m = error(atom, "atom.relaxed.gpu.global.inc.u32\t%old, [%p], %lead;");
    assert!(m.contains("%lead of type .pred cannot be used as .u32"), "{m}");
    let m = error(atom, "atom.relaxed.gpu.global.inc.u32\t%old, [counters], 3;");
    assert!(m.contains("parameter `counters` is not an address in global"), "{m}");
    let m = error(atom, "atom.relaxed.gpu.global.inc.u32\t%old, [%p];");
    assert!(m.contains("expected 3 operands"), "{m}");
    let m = error("fence.acq_rel.gpu;", "fence.acq_rel.sys;");
    assert!(m.contains("the emulator has `fence.acq_rel.gpu` and"), "{m}");
    let m = error("fence.acq_rel.gpu;", "fence.acq_rel.gpu\t0;");
    assert!(m.contains("expected 0 operands"), "{m}");
}

/// The message of the parse error that `text` with its first `from` made
/// `to` gives, asserting that it names the edited line.
fn parse_error_at(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from}");
    let bad = text.replacen(from, to, 1);
    let line = bad.lines().position(|l| l.contains(to.trim_start_matches('\t'))).unwrap() as u32 + 1;
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.line, line, "{e}");
    e.message
}
