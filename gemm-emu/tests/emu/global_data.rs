//! Initialized `.global` arrays (the IR's module data, which bespoke kernels
//! keep their operator in): built, printed, read back equal, and run —
//! each thread reads its own word, the data is read-only, and a read past
//! its end is a fault naming the array.

use gemm_codegen::ptx::{
    Address, CacheQual, Instr, KernelBuilder, Module, Operand, Space, Special, Type, write_string,
};
use gemm_emu::{Buffer, FaultKind, Launch, ParamValue, Program, parse};

/// `out[t] = table[t + skew]` for 32 threads; `store_back` also writes the
/// value into the table (which must fault).
fn kernel(words: Vec<u64>, skew: i64, store_back: bool) -> Module {
    let mut b = KernelBuilder::new("lookup");
    b.reqntid((32, 1, 1));
    let out = b.param("out", Type::U64);
    let table = b.global_data("table", 16, words);
    let (p, q, t, off, v) = (
        b.reg("p", Type::U64),
        b.reg("q", Type::U64),
        b.reg("t", Type::U32),
        b.reg("off", Type::U64),
        b.reg("v", Type::B64),
    );
    b.push(Instr::ld_param(p, out));
    b.push(Instr::cvta_to_global(p, p));
    b.push(Instr::mov(q, Operand::Global(table)));
    b.push(Instr::cvta_to_global(q, q));
    b.push(Instr::mov(t, Special::TidX));
    b.push(Instr::mul_wide(off, t, Operand::imm(8)));
    b.push(Instr::add(q, q, off));
    b.push(Instr::add(p, p, off));
    b.push(Instr::ld(Space::Global, CacheQual::Nc, &[v], Address::reg(q, skew * 8)));
    b.push(Instr::st(Space::Global, Address::reg(p, 0), &[v]));
    if store_back {
        b.push(Instr::st(Space::Global, Address::reg(q, 0), &[v]));
    }
    b.push(Instr::ret());
    Module { header: vec!["table lookup".into()], kernels: vec![b.finish()], ..Module::default() }
}

fn run(module: &Module) -> Result<Vec<u64>, gemm_emu::EmuError> {
    let text = write_string(module);
    let program = Program::from_ptx(&text, Some("lookup"))?;
    let launch =
        Launch { grid: (1, 1, 1), block: (32, 1, 1), params: vec![ParamValue::ptr(0)], ..Launch::default() };
    let mut out = [Buffer::zeroed("out", 32 * 8)];
    program.run(&launch, &mut out)?;
    Ok(out[0].bytes.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect())
}

#[test]
fn a_global_array_prints_reads_back_and_runs() {
    let words: Vec<u64> = (0..40).map(|i| 0x0123_4567_89ab_cdef ^ (i * 0x1111)).collect();
    let module = kernel(words.clone(), 3, false);
    let text = write_string(&module);
    assert!(text.contains(".global .align 16 .b64 table[40] = {"), "{text}");
    let back = parse(&text).expect("reads back");
    assert_eq!(back.kernels[0].globals, module.kernels[0].globals);
    assert_eq!(write_string(&back), text);
    assert_eq!(run(&module).unwrap(), words[3..35]);
}

#[test]
fn global_arrays_are_read_only_and_bounded() {
    let words: Vec<u64> = (0..40).collect();
    let e = run(&kernel(words.clone(), 0, true)).unwrap_err();
    let f = e.fault().expect("a fault");
    assert!(matches!(f.kind, FaultKind::ReadOnlyWrite { .. }), "{e}");
    let e = run(&kernel(words, 9, false)).unwrap_err();
    let f = e.fault().expect("a fault");
    assert!(matches!(f.kind, FaultKind::GlobalOutOfBounds { .. }), "{e}");
    assert!(e.to_string().contains("table"), "{e}");
}

#[test]
fn malformed_global_arrays_are_refused_with_their_line() {
    let good = write_string(&kernel(vec![1, 2, 3], 0, false));
    for (from, to, says) in [
        ("table[3] = {", "table[4] = {", "has 3 of its 4 words"),
        ("table[3] = {", "table[2] = {", "more than its 2 words"),
        (".global .align 16 .b64", ".global .align 16 .b32", "`.b64`"),
        (".global .align 16", ".global .align 12", "alignment 12"),
    ] {
        let bad = good.replacen(from, to, 1);
        let e = parse(&bad).expect_err(to);
        assert!(e.to_string().contains(says), "{to}: {e}");
    }
    let orphan = format!("{}\n.global .align 8 .b64 stray[1] = {{ 7 }};\n", good);
    assert!(parse(&orphan).unwrap_err().to_string().contains("not followed by a kernel"));
}
