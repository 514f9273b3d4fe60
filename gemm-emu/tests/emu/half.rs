//! The 16-bit precisions' instructions besides `wgmma` (`half_wgmma.rs`):
//! `ld.global.b16` and `st.global.b16` through 32-bit registers (zero
//! extension, the low half stored, alignment, bounds, races told apart per
//! half-word), the conversions `cvt.f32.f16`, `cvt.rn.f16x2.f32` and
//! `cvt.rn.bf16x2.f32` (exact widening; rounding ties to even, overflow,
//! NaN, subnormals), bf16's widening by `shl.b32` and a bit move, and
//! what the reader refuses of the 16-bit forms, `wgmma`'s included.

use gemm_codegen::ptx::{
    self, Address, BinOp, Instr, KernelBuilder, Major, Operand, Reg, Space, Special, Type, WgmmaInput,
    WgmmaShape, write_string,
};
use gemm_emu::{
    AccessKind, Buffer, EmuError, FaultKind, Launch, MemSpace, ParamValue, Program, Stats, parse,
};

/// The registers a test body finds ready: the global addresses `out`,
/// `out2 = out + 2 tid`, `out4 = out + 4 tid`, `cta2 = out + 2 ctaid`,
/// `inp2`, `inp4` (of `inp`, likewise), `r` = the thread's index as
/// `.b32`, and the scratch registers `s` (`.b32`), `f` and `g` (`.f32`).
struct Regs {
    out: Reg,
    out2: Reg,
    out4: Reg,
    cta2: Reg,
    inp2: Reg,
    inp4: Reg,
    r: Reg,
    s: Reg,
    f: Reg,
    g: Reg,
}

/// A kernel `k(out, inp)` with [`Regs`] set up and `body` after, as the
/// writer prints it.
fn kernel(body: impl FnOnce(&mut KernelBuilder, &Regs)) -> String {
    let mut b = KernelBuilder::new("k");
    let params = [b.param("out", Type::U64), b.param("inp", Type::U64)];
    let [out, inp, out2, out4, cta2, inp2, inp4, wide] =
        ["out", "inp", "out2", "out4", "cta2", "inp2", "inp4", "wide"].map(|x| b.reg(x, Type::U64));
    let [tid, cta] = ["thread", "cta"].map(|x| b.reg(x, Type::U32));
    let [r, s] = ["r", "s"].map(|x| b.reg(x, Type::B32));
    let [f, g] = ["f", "g"].map(|x| b.reg(x, Type::F32));
    for (reg, p) in [out, inp].into_iter().zip(params) {
        b.push(Instr::ld_param(reg, p));
        b.push(Instr::cvta_to_global(reg, reg));
    }
    b.push(Instr::mov(tid, Special::TidX));
    b.push(Instr::mov(cta, Special::CtaidX));
    b.push(Instr::mov(r, tid));
    for (dst, base, index, size) in [
        (out2, out, tid, 2),
        (out4, out, tid, 4),
        (cta2, out, cta, 2),
        (inp2, inp, tid, 2),
        (inp4, inp, tid, 4),
    ] {
        b.push(Instr::mul_wide(wide, index, Operand::imm(size)));
        b.push(Instr::add(dst, base, wide));
    }
    body(&mut b, &Regs { out, out2, out4, cta2, inp2, inp4, r, s, f, g });
    b.push(Instr::ret());
    let kernels = vec![b.finish()];
    write_string(&ptx::Module { header: vec!["16-bit".into()], floor: ptx::Arch::SM_80, kernels })
}

/// A run: its text, result and output buffer.
struct Run {
    text: String,
    result: Result<Stats, EmuError>,
    out: Vec<u8>,
}

impl Run {
    /// The 1-based line of the first line containing `needle`.
    fn line_of(&self, needle: &str) -> u32 {
        let at = self.text.lines().position(|l| l.contains(needle));
        at.unwrap_or_else(|| panic!("no line with {needle}\n{}", self.text)) as u32 + 1
    }

    fn fault(&self) -> &gemm_emu::Fault {
        match &self.result {
            Err(EmuError::Fault(f)) => f,
            other => panic!("expected a fault, got {other:?}\n{}", self.text),
        }
    }

    fn ok(&self) -> &Self {
        if let Err(e) = &self.result {
            panic!("{e}\n{}", self.text);
        }
        self
    }

    /// The output as little-endian 32-bit words.
    fn words(&self) -> Vec<u32> {
        self.out.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    }
}

/// Runs `text` on `grid` blocks of `block` threads, `out` (writable) and
/// `inp` (read-only).
fn run(text: String, (grid, block): (u32, u32), out: Vec<u8>, inp: Vec<u8>) -> Run {
    let program = Program::from_ptx(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut buffers = [Buffer::new("out", out), Buffer::read_only("inp", inp)];
    let launch = Launch {
        grid: (grid, 1, 1),
        block: (block, 1, 1),
        params: vec![ParamValue::ptr(0), ParamValue::ptr(1)],
        ..Launch::default()
    };
    let result = program.run(&launch, &mut buffers);
    let [out, _] = buffers;
    Run { text, result, out: out.bytes }
}

/// `ld.global.b16` zero-extends into its `.b32` register (high bits set
/// in the halves, so a sign extension would show); `st.global.b16` writes
/// the register's low half only, 32 threads the 64 bytes of 16 words, two
/// threads a word, without a race, the bytes past them untouched.
#[test]
fn b16_loads_zero_extend_and_stores_write_the_low_half() {
    let text = kernel(|b, x| {
        b.push(Instr::ld_b16(Space::Global, x.s, Address::reg(x.inp2, 0)));
        b.push(Instr::st(Space::Global, Address::reg(x.out4, 0), &[x.s]));
        b.push(Instr::binary(BinOp::Or, x.s, x.s, Operand::imm(0xabcd_0000u32 as i32)));
        b.push(Instr::st_b16(Space::Global, Address::reg(x.out2, 128), x.s));
    });
    assert!(text.contains("\tld.global.b16\t%s, [%inp2];"), "{text}");
    assert!(text.contains("\tst.global.b16\t[%out2+128], %s;"), "{text}");
    let halves: Vec<u16> = (0..32).map(|t| 0x8000 | (t * 0x0101)).collect();
    let inp = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
    let r = run(text, (1, 32), vec![0xee; 128 + 66], inp);
    let words = r.ok().words();
    for t in 0..32 {
        assert_eq!(words[t], u32::from(halves[t]), "thread {t}'s load, zero-extended");
    }
    let stored: Vec<u16> = r.out[128..192].chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    assert_eq!(stored, halves, "the low halves");
    assert_eq!(r.out[192..], [0xee, 0xee], "the bytes past the stores");
}

/// The race detector tells the halves of a word apart in a kernel with
/// 16-bit accesses: two blocks, or two threads of a block, storing the two
/// halves of one word (neighbouring elements of C) do not race, and each
/// half holds its store; storing the same half does race, reported at that
/// half's address.
#[test]
fn b16_stores_race_per_half_word() {
    let store = |at: fn(&Regs) -> (Reg, i64)| {
        kernel(move |b, x| {
            let (base, off) = at(x);
            b.push(Instr::st_b16(Space::Global, Address::reg(base, off), x.r));
        })
    };
    // Block c's one thread stores 0 at half c; threads t of one block t.
    let r = run(store(|x| (x.cta2, 0)), (2, 1), vec![0xff; 4], vec![]);
    assert_eq!(r.ok().words(), [0], "both halves stored");
    let r = run(store(|x| (x.out2, 0)), (1, 2), vec![0xff; 4], vec![]);
    assert_eq!(r.ok().words(), [0x0001_0000], "thread 0's half, thread 1's");
    // The same half, the high one.
    let same = run(store(|x| (x.out, 2)), (2, 1), vec![0; 4], vec![]);
    let FaultKind::CrossBlockRace { addr, access: AccessKind::Write, .. } = same.fault().kind else {
        panic!("{}", same.fault())
    };
    assert_eq!(addr % 4, 2, "{}", same.fault());
    let same = run(store(|x| (x.out, 2)), (1, 2), vec![0; 4], vec![]);
    let FaultKind::Race { space: MemSpace::Global, addr, other_thread: 0, .. } = same.fault().kind else {
        panic!("{}", same.fault())
    };
    assert_eq!((addr % 4, same.fault().thread), (2, 1), "{}", same.fault());
    // A 32-bit load of a word whose halves two threads stored races with
    // the other thread's half.
    let mixed = kernel(|b, x| {
        b.push(Instr::st_b16(Space::Global, Address::reg(x.out2, 0), x.r));
        b.push(Instr::ld(Space::Global, ptx::CacheQual::None, &[x.s], Address::reg(x.out, 0)));
    });
    let r = run(mixed, (1, 2), vec![0; 4], vec![]);
    assert!(matches!(r.fault().kind, FaultKind::Race { access: AccessKind::Read, .. }), "{}", r.fault());
}

/// Mutation: a 16-bit store at an odd address faults as misaligned (a load
/// too), one past the buffer's end as out of bounds, and a store to a
/// read-only buffer as such.
#[test]
fn a_misaligned_b16_store_faults() {
    let store = |base: fn(&Regs) -> Reg, off: i64| {
        kernel(move |b, x| b.push(Instr::st_b16(Space::Global, Address::reg(base(x), off), x.r)))
    };
    let r = run(store(|x| x.out2, 1), (1, 32), vec![0; 80], vec![]);
    let f = r.fault();
    let FaultKind::Misaligned { space: MemSpace::Global, access: AccessKind::Write, addr, bytes: 2 } = f.kind
    else {
        panic!("{f}")
    };
    assert_eq!((addr % 2, f.thread, f.line), (1, 0, r.line_of("st.global.b16")));
    let load = kernel(|b, x| b.push(Instr::ld_b16(Space::Global, x.s, Address::reg(x.inp2, 3))));
    let r = run(load, (1, 1), vec![0; 8], vec![0; 8]);
    let kind = &r.fault().kind;
    assert!(matches!(kind, FaultKind::Misaligned { access: AccessKind::Read, bytes: 2, .. }), "{kind}");
    let r = run(store(|x| x.out2, 0), (1, 32), vec![0; 62], vec![]);
    assert!(matches!(r.fault().kind, FaultKind::GlobalOutOfBounds { bytes: 2, .. }), "{}", r.fault());
    assert_eq!(r.fault().thread, 31);
    let r = run(store(|x| x.inp2, 0), (1, 1), vec![0; 8], vec![0; 8]);
    assert!(matches!(r.fault().kind, FaultKind::ReadOnlyWrite { .. }), "{}", r.fault());
}

/// Inputs and expected results of the conversions, one row a thread.
struct Conversions {
    /// `cvt.f32.f16`: an f16's bits, the f32's (`None`: a NaN).
    widen: Vec<(u16, Option<f32>)>,
    /// `cvt.rn.{f16,bf16}x2.f32`: `hi`, `lo`, the pair's bits as f16 and as
    /// bf16 (`0x7e00`/`0x7fc0` in a half: any NaN there).
    pack: Vec<(f32, f32, u32, u32)>,
}

fn conversions() -> Conversions {
    // Powers of two through f64: f32's `powi` overflows on the way to 2^-134.
    let p = |e: i32| 2f64.powi(e) as f32;
    Conversions {
        widen: vec![
            (0x3c00, Some(1.0)),
            (0xc000, Some(-2.0)),
            (0x7bff, Some(65504.0)),
            (0x0001, Some(p(-24))),
            (0x03ff, Some(1023.0 * p(-24))),
            (0x8000, Some(-0.0)),
            (0xfc00, Some(f32::NEG_INFINITY)),
            (0x7e00, None),
        ],
        pack: vec![
            // Ties to even: 1 + 2^-11 (f16) and 1 + 2^-8 (bf16) to 1, three
            // halfway steps up to the even above.
            (1.0 + p(-11), 1.0 + 3.0 * p(-11), 0x3c00_3c02, 0x3f80_3f80),
            (1.0 + p(-8), -(1.0 + 3.0 * p(-8)), 0x3c04_bc0c, 0x3f80_bf82),
            // Past the largest finite: f16's 65520 is the midpoint to
            // infinity, 65519 below it; bf16 overflows at f32::MAX.
            (65520.0, 65519.0, 0x7c00_7bff, 0x4780_4780),
            (f32::MAX, -f32::MAX, 0x7c00_fc00, 0x7f80_ff80),
            // Subnormal results, and a tie at half the least one (to 0).
            (p(-24), p(-25), 0x0001_0000, 0x3380_3300),
            (3.0 * p(-26), -p(-133), 0x0001_8000, 0x3340_8001),
            (p(-134), 3.0 * p(-135), 0x0000_0000, 0x0000_0001),
            (f32::NAN, f32::NEG_INFINITY, 0x7e00_fc00, 0x7fc0_ff80),
        ],
    }
}

/// Whether `got` is the pair `want` (a NaN half of `want`, `0x7e00` or
/// `0x7fc0`, matches any NaN of the type).
fn same_pair(got: u32, want: u32, bf16: bool) -> bool {
    let (nan, exp) = if bf16 { (0x7fc0, 0x7f80) } else { (0x7e00, 0x7c00) };
    [16, 0].iter().all(|&shift| {
        let (g, w) = ((got >> shift) & 0xffff, (want >> shift) & 0xffff);
        if w == nan { g & exp == exp && g & !(0x8000 | exp) != 0 } else { g == w }
    })
}

/// `cvt.f32.f16` widens exactly (subnormals, infinities, NaN, -0), and
/// `cvt.rn.f16x2.f32` / `cvt.rn.bf16x2.f32` round each f32 to the nearest
/// 16-bit value, ties to even, overflowing to infinity, keeping subnormal
/// results, a NaN to a NaN, `hi` in the upper half; bf16 widens by
/// `shl.b32` 16 and `mov.f32` of the `.b32` (a bit move).
#[test]
fn conversions_are_exact_and_round_to_nearest_even() {
    let c = conversions();
    let rows = c.pack.len().max(c.widen.len());
    // inp: the f16s (2 bytes a thread, at 0), hi (4 bytes a thread, at
    // 64), lo (at 128).
    let mut inp = vec![0u8; 192];
    for (t, &(h, _)) in c.widen.iter().enumerate() {
        inp[2 * t..2 * t + 2].copy_from_slice(&h.to_le_bytes());
    }
    for (t, &(hi, lo, _, _)) in c.pack.iter().enumerate() {
        inp[64 + 4 * t..68 + 4 * t].copy_from_slice(&hi.to_le_bytes());
        inp[128 + 4 * t..132 + 4 * t].copy_from_slice(&lo.to_le_bytes());
    }
    // out: a word a thread of each: the f16 widened (at 0), the f16 pair
    // (128), the bf16 pair (256), its low half widened (384).
    let text = kernel(|b, x| {
        b.push(Instr::ld_b16(Space::Global, x.s, Address::reg(x.inp2, 0)));
        b.push(Instr::cvt_f32_f16(x.f, x.s));
        b.push(Instr::st(Space::Global, Address::reg(x.out4, 0), &[x.f]));
        b.push(Instr::ld(Space::Global, ptx::CacheQual::None, &[x.f], Address::reg(x.inp4, 64)));
        b.push(Instr::ld(Space::Global, ptx::CacheQual::None, &[x.g], Address::reg(x.inp4, 128)));
        for (bf16, at) in [(false, 128), (true, 256)] {
            b.push(Instr::cvt_pack_half(x.s, x.f, x.g, bf16));
            b.push(Instr::st(Space::Global, Address::reg(x.out4, at), &[x.s]));
        }
        // bf16 to f32: the pair's low half shifted up, moved as bits.
        b.push(Instr::binary(BinOp::Shl, x.s, x.s, Operand::imm(16)));
        b.push(Instr::mov(x.f, x.s));
        b.push(Instr::st(Space::Global, Address::reg(x.out4, 384), &[x.f]));
    });
    for form in ["cvt.f32.f16\t%f, %s;", "cvt.rn.f16x2.f32\t%s, %f, %g;", "cvt.rn.bf16x2.f32\t%s, %f, %g;"] {
        assert!(text.contains(form), "no {form}\n{text}");
    }
    assert!(text.contains("\tshl.b32\t%s, %s, 16;\n\tmov.f32\t%f, %s;"), "{text}");
    let r = run(text, (1, rows as u32), vec![0; 512], inp);
    let words = r.ok().words();
    for (t, &(h, want)) in c.widen.iter().enumerate() {
        let got = f32::from_bits(words[t]);
        match want {
            Some(w) => assert_eq!(got.to_bits(), w.to_bits(), "f16 {h:#06x}"),
            None => assert!(got.is_nan(), "f16 {h:#06x}: {got}"),
        }
    }
    for (t, &(hi, lo, f16_pair, bf16_pair)) in c.pack.iter().enumerate() {
        let (f, b) = (words[32 + t], words[64 + t]);
        assert!(same_pair(f, f16_pair, false), "f16x2 of ({hi:e}, {lo:e}): {f:#010x}, not {f16_pair:#010x}");
        assert!(
            same_pair(b, bf16_pair, true),
            "bf16x2 of ({hi:e}, {lo:e}): {b:#010x}, not {bf16_pair:#010x}"
        );
        assert_eq!(words[96 + t], (b & 0xffff) << 16, "bf16 {:#06x} widened", b & 0xffff);
    }
}

/// What the reader refuses of the 16-bit forms, each with its line: a
/// `.b16` register, a `.b16` access into a float register or as a vector,
/// a conversion of the wrong registers, and of `wgmma`: a 16-bit one
/// without its transpose immediates, with a third, or with one that is
/// not 0 or 1, a 16-bit shape of the wrong depth, a 16-bit A from
/// registers.
#[test]
fn the_reader_refuses_malformed_16_bit_forms() {
    let text = kernel(|b, x| {
        b.push(Instr::ld_b16(Space::Global, x.s, Address::reg(x.inp2, 0)));
        b.push(Instr::cvt_f32_f16(x.f, x.s));
        b.push(Instr::cvt_pack_half(x.s, x.f, x.g, true));
    });
    let error = |from: &str, to: &str| {
        assert!(text.contains(from), "no {from}\n{text}");
        let bad = text.replacen(from, to, 1);
        let e = parse(&bad).expect_err(to);
        let first = to.split('\n').next().unwrap_or(to);
        let line = bad.lines().position(|l| l.contains(first)).unwrap() + 1;
        assert_eq!(e.line as usize, line, "{e}");
        e.message
    };
    let m = error(".reg .b32", ".reg .b16 %h;\n\t.reg .b32");
    assert!(m.contains("unknown type `.b16`"), "{m}");
    let m = error("ld.global.b16\t%s,", "ld.global.b16\t%f,");
    assert!(
        m.contains("a .b16 load into %f of type .f32: the 16 bits travel in a 32-bit integer register"),
        "{m}"
    );
    let m = error("ld.global.b16\t%s,", "ld.global.v2.b16\t{%s, %r},");
    assert!(m.contains(".b16 accesses move one value"), "{m}");
    let m = error("cvt.f32.f16\t%f, %s;", "cvt.f32.f16\t%f, %g;");
    assert!(m.contains("must be a `.b32` register"), "{m}");
    let m = error("cvt.rn.bf16x2.f32\t%s, %f, %g;", "cvt.rn.bf16x2.f32\t%s, %f;");
    assert!(m.contains("expected 3 operands"), "{m}");

    let wgmma = wgmma_text();
    let error = |from: &str, to: &str| {
        let bad = wgmma.replacen(from, to, 1);
        assert_ne!(bad, wgmma, "no {from}");
        parse(&bad).expect_err(to).message
    };
    let m = error(", 1, 1, 1, 0;", ", 1, 1;");
    assert!(m.contains("a .f16 wgmma takes imm-trans-a and imm-trans-b"), "{m}");
    let m = error(", 1, 1, 1, 0;", ", 1, 1, 1;");
    assert!(m.contains("expected 8 operands, found 7"), "{m}");
    let m = error(", 1, 1, 1, 0;", ", 1, 1, 1, 0, 0;");
    assert!(m.contains("expected 8 operands, found 9"), "{m}");
    let m = error(", 1, 1, 1, 0;", ", 1, 1, 2, 0;");
    assert!(m.contains("imm-trans-a must be the integer 0 (K-major) or 1 (MN-major)"), "{m}");
    let m = error(", 1, 1, 1, 0;", ", 1, 1, 1, %acc;");
    assert!(m.contains("imm-trans-b must be the integer 0"), "{m}");
    let m = error("m64n8k16.f32.f16.f16", "m64n8k8.f32.f16.f16");
    assert!(m.contains("`m64n8k8` is not a .f16 wgmma shape: m64nNk16"), "{m}");
    let m = error("m64n8k16.f32.f16.f16", "m64n8k16.f32.f16.bf16");
    assert!(m.contains("the emulator has these wgmma only"), "{m}");
    let m = error("%a_desc, %b_desc, %acc, 1, 1, 1, 0;", "{%r, %r, %r, %r}, %b_desc, %acc, 1, 1, 1, 0;");
    assert!(m.contains("A from registers: the emulator has it for .tf32 only"), "{m}");
}

/// Mutation: a TF32 `wgmma` given transpose immediates (an MN-major
/// operand, or even K-major ones spelled out) is refused by the reader:
/// TF32 operands are K-major, and the form has no such operands.
#[test]
fn a_tf32_wgmma_with_transpose_immediates_is_refused() {
    let text = wgmma_text();
    let f16 = "m64n8k16.f32.f16.f16\t{%d0, %d1, %d2, %d3}, %a_desc, %b_desc, %acc, 1, 1, 1, 0;";
    assert!(text.contains(f16), "{text}");
    for trans in ["1, 0", "0, 0", "0, 1"] {
        let tf32 =
            format!("m64n8k8.f32.tf32.tf32\t{{%d0, %d1, %d2, %d3}}, %a_desc, %b_desc, %acc, 1, 1, {trans};");
        let bad = text.replacen(f16, &tf32, 1);
        let e = parse(&bad).expect_err(&tf32);
        assert!(e.message.contains("a .tf32 wgmma has no imm-trans-a or imm-trans-b"), "{trans}: {e}");
        assert_eq!(e.line as usize, bad.lines().position(|l| l.contains(&tf32)).unwrap() + 1);
    }
    // Without them, the same line reads.
    let tf32 = "m64n8k8.f32.tf32.tf32\t{%d0, %d1, %d2, %d3}, %a_desc, %b_desc, %acc, 1, 1;";
    parse(&text.replacen(f16, tf32, 1)).unwrap_or_else(|e| panic!("{e}"));
}

/// A kernel with one `m64n8k16.f32.f16.f16`, A MN-major.
fn wgmma_text() -> String {
    let mut b = KernelBuilder::new("w");
    let d: Vec<Reg> = (0..4).map(|i| b.reg(format!("d{i}"), Type::F32)).collect();
    let [a_desc, b_desc] = ["a_desc", "b_desc"].map(|x| b.reg(x, Type::B64));
    let acc = b.reg("acc", Type::Pred);
    b.reg("r", Type::B32);
    let shape = WgmmaShape::new(WgmmaInput::F16, 8).expect("a shape");
    b.push(Instr::wgmma(shape, &d, (a_desc, b_desc), acc, (false, false), (Major::Mn, Major::K)));
    b.push(Instr::ret());
    write_string(&ptx::Module { header: vec![], floor: ptx::Arch::SM_90A, kernels: vec![b.finish()] })
}

/// A `.b16` shared access is refused as unsupported (the emulator models
/// 16-bit accesses of global memory), naming why.
#[test]
fn a_shared_b16_access_is_unsupported() {
    let mut b = KernelBuilder::new("k");
    let r = b.reg("r", Type::B32);
    let tile = b.shared("tile", 16, 16);
    b.push(Instr::mov(r, Operand::imm(1)));
    b.push(Instr::st_b16(Space::Shared, Address::shared(tile, 2), r));
    b.push(Instr::ret());
    let module = ptx::Module { header: vec![], floor: ptx::Arch::SM_80, kernels: vec![b.finish()] };
    let Err(EmuError::Unsupported { line, message }) = Program::from_module(&module, None) else {
        panic!("a shared .b16 store decoded")
    };
    assert!(message.contains("global memory only"), "{message}");
    assert!(write_string(&module).lines().nth(line as usize - 1).unwrap().contains("st.shared.b16"));
}
