//! `wgmma.mma_async` in the emulator: a hand-built kernel (operands copied
//! from global into shared memory in the K-major core-matrix layout,
//! `fence.proxy.async`, `bar.sync`, descriptors, `wgmma.fence`, two chained
//! `wgmma`s over K = 16, commit, wait, D stored) computes `A · B` exactly
//! for several N and one or two warpgroups; and each mistake a `wgmma`
//! kernel can make is refused with its own fault, or (a layout mistake)
//! gives a result that differs from the reference. The kernel also takes
//! A from registers (`Shape::rs`; its tests are `wgmma_rs.rs`).

use gemm_codegen::ptx::{
    self, Address, CacheQual, Cmp, CpAsyncCache, Instr, KernelBuilder, Major, Operand, Reg, SmemDesc, Space,
    Special, Type, WARPGROUP, WgmmaInput, WgmmaShape,
};
use gemm_emu::{Buffer, EmuError, Fault, FaultKind, Launch, ParamValue, Program, Stats, WarpgroupMismatch};

/// The layout the kernel stores A and B in: core matrices adjacent along
/// K are 128 bytes apart (contiguous), those adjacent along M or N 512
/// (the four core matrices of K = 16 in between).
const LBO: u32 = 128;
/// See [`LBO`].
const SBO: u32 = 512;
/// The depth of the product: two `m64nNk8`.
pub(super) const K: u32 = 16;

/// A version of the test kernel.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    /// Warpgroups in the block: each multiplies its own 64 rows of A by B.
    pub(super) warpgroups: u32,
    /// Columns of B and D.
    pub(super) n: u32,
    /// LBO and SBO as the descriptors give them.
    pub(super) desc: (u32, u32),
    /// Bits or'ed into A's first descriptor.
    pub(super) a_desc_bits: u64,
    /// `imm-scale-a`, `imm-scale-b` = -1.
    pub(super) neg: (bool, bool),
    /// Whether A is copied by `cp.async` (else `ld.global` and `st.shared`).
    pub(super) cp_async: bool,
    /// Whether the odd warps add 256 bytes to A's first descriptor.
    pub(super) odd_warps_shift_a: bool,
    /// Whether D is zeroed by `mov` and both `wgmma`s accumulate.
    pub(super) zero_init: bool,
    /// Whether the second `wgmma` is skipped by warp 1 (a guard uniform in
    /// each warp).
    pub(super) warp1_skips: bool,
    /// Whether D is stored to global after the wait.
    pub(super) epilogue: bool,
    /// Whether A comes from registers (`%a0 … %a3` for the first `wgmma`,
    /// `%a4 … %a7` for the second), not shared memory.
    pub(super) a_regs: bool,
}

impl Shape {
    /// The correct kernel of `warpgroups` warpgroups and N = `n`.
    fn new(warpgroups: u32, n: u32) -> Shape {
        Shape {
            warpgroups,
            n,
            desc: (LBO, SBO),
            a_desc_bits: 0,
            neg: (false, false),
            cp_async: false,
            odd_warps_shift_a: false,
            zero_init: false,
            warp1_skips: false,
            epilogue: true,
            a_regs: false,
        }
    }

    /// [`Shape::new`] with A from registers.
    pub(super) fn rs(warpgroups: u32, n: u32) -> Shape {
        Shape { a_regs: true, ..Shape::new(warpgroups, n) }
    }

    /// Threads in the block.
    pub(super) fn threads(&self) -> u32 {
        WARPGROUP * self.warpgroups
    }

    /// The shape of its `wgmma`s.
    fn wgmma(&self) -> WgmmaShape {
        WgmmaShape::tf32(self.n).expect("a TF32 wgmma shape")
    }
}

/// Registers of the copy loops.
struct Copy {
    e: Reg,
    row: Reg,
    k: Reg,
    off: Reg,
    tmp: Reg,
    saddr: Reg,
    gaddr: Reg,
    wide: Reg,
    v: Reg,
    p: Reg,
}

impl Copy {
    /// `off` = the byte offset of element `e` (row `e / 16`, k `e mod 16`)
    /// in the layout of [`LBO`] and [`SBO`].
    fn offset(&self, b: &mut KernelBuilder) {
        let (e, row, k, off, tmp) = (self.e, self.row, self.k, self.off, self.tmp);
        b.push(Instr::binary(ptx::BinOp::Shr, row, e, Operand::imm(4)));
        b.push(Instr::binary(ptx::BinOp::And, k, e, Operand::imm(15)));
        b.push(Instr::binary(ptx::BinOp::Shr, tmp, row, Operand::imm(3)));
        b.push(Instr::mul(off, tmp, Operand::imm(SBO)));
        b.push(Instr::binary(ptx::BinOp::Shr, tmp, k, Operand::imm(2)));
        b.push(Instr::mad(off, tmp, Operand::imm(LBO), off));
        b.push(Instr::binary(ptx::BinOp::And, tmp, row, Operand::imm(7)));
        b.push(Instr::mad(off, tmp, Operand::imm(16), off));
        b.push(Instr::binary(ptx::BinOp::And, tmp, k, Operand::imm(3)));
        b.push(Instr::mad(off, tmp, Operand::imm(4), off));
    }

    /// `gaddr` = `base + 4 e`.
    fn global(&self, b: &mut KernelBuilder, base: Reg) {
        b.push(Instr::mul_wide(self.wide, self.e, Operand::imm(4)));
        b.push(Instr::add(self.gaddr, base, self.wide));
    }
}

/// The test kernel `wgmma_tf32(a, b, d)` for `s`: A is `64·warpgroups × 16`
/// and B `n × 16` (row-major, K contiguous), D gets each thread's `n / 2`
/// accumulators in order, thread after thread.
pub(super) fn kernel(s: &Shape) -> String {
    let mut b = KernelBuilder::new("wgmma_tf32");
    let params = [b.param("a", Type::U64), b.param("b", Type::U64), b.param("d", Type::U64)];
    let [ga, gb, gd] = ["ga", "gb", "gd"].map(|name| b.reg(name, Type::U64));
    let [tid, wg, t] = ["thread", "wg", "t"].map(|name| b.reg(name, Type::U32));
    let c = Copy {
        e: b.reg("e", Type::U32),
        row: b.reg("row", Type::U32),
        k: b.reg("k", Type::U32),
        off: b.reg("off", Type::U32),
        tmp: b.reg("tmp", Type::U32),
        saddr: b.reg("saddr", Type::U32),
        gaddr: b.reg("gaddr", Type::U64),
        wide: b.reg("wide", Type::U64),
        v: b.reg("v", Type::F32),
        p: b.reg("p", Type::Pred),
    };
    b.reg_group("wgmma");
    let d: Vec<Reg> = (0..s.n / 2).map(|i| b.reg(format!("d{i}"), Type::F32)).collect();
    let descs = ["adesc0", "adesc1", "bdesc0", "bdesc1"].map(|name| b.reg(name, Type::B64));
    let a_frag: Vec<Reg> = (0..8).map(|i| b.reg(format!("a{i}"), Type::B32)).collect();
    let base = b.reg("base", Type::U64);
    let [first, then, odd, warp1, late] =
        ["first", "then", "odd", "warp1", "late"].map(|name| b.reg(name, Type::Pred));
    let a_tile = b.shared("a_tile", s.warpgroups * 64 * K * 4, 128);
    let b_tile = b.shared("b_tile", s.n * K * 4, 128);

    for (r, p) in [ga, gb, gd].into_iter().zip(params) {
        b.push(Instr::ld_param(r, p));
        b.push(Instr::cvta_to_global(r, r));
    }
    b.push(Instr::mov(tid, Special::TidX));
    b.push(Instr::binary(ptx::BinOp::Shr, wg, tid, Operand::imm(7)));
    b.push(Instr::binary(ptx::BinOp::And, t, tid, Operand::imm(127)));
    b.push(Instr::binary(ptx::BinOp::And, c.tmp, tid, Operand::imm(1)));
    b.push(Instr::setp(Cmp::Ne, Type::U32, odd, c.tmp, Operand::imm(0)));
    b.push(Instr::binary(ptx::BinOp::Shr, c.tmp, tid, Operand::imm(5)));
    b.push(Instr::setp(Cmp::Eq, Type::U32, warp1, c.tmp, Operand::imm(1)));
    b.push(Instr::setp(Cmp::Ne, Type::U32, late, wg, Operand::imm(0)));

    if s.a_regs {
        b.section("A into registers: thread t's i-th of each k8 step at a_at(t, i)");
        // `e`: A's index of row 64·wg + 16q + g, k t4 (q = t / 32, g = t mod
        // 32 / 4, t4 = t mod 4); element i of k8 step `step` lies 8·(i mod 2)
        // rows and 8·step + 4·(i / 2) columns further.
        b.push(Instr::binary(ptx::BinOp::Shr, c.row, t, Operand::imm(5)));
        b.push(Instr::mul(c.row, c.row, Operand::imm(16)));
        b.push(Instr::binary(ptx::BinOp::And, c.tmp, t, Operand::imm(31)));
        b.push(Instr::binary(ptx::BinOp::Shr, c.tmp, c.tmp, Operand::imm(2)));
        b.push(Instr::add(c.row, c.row, c.tmp));
        b.push(Instr::mad(c.row, wg, Operand::imm(64), c.row));
        b.push(Instr::mul(c.e, c.row, Operand::imm(K)));
        b.push(Instr::binary(ptx::BinOp::And, c.tmp, t, Operand::imm(3)));
        b.push(Instr::add(c.e, c.e, c.tmp));
        c.global(&mut b, ga);
        for (j, &r) in a_frag.iter().enumerate() {
            let (step, i) = (j as u32 / 4, j as u32 % 4);
            let off = 8 * (i % 2) * K + 8 * step + 4 * (i / 2);
            b.push(Instr::ld(
                Space::Global,
                CacheQual::None,
                &[r],
                Address::reg(c.gaddr, 4 * i64::from(off)),
            ));
        }
    } else {
        b.section("A: each warpgroup its 64 rows, 8 elements a thread");
        for it in 0..64 * K / WARPGROUP {
            b.push(Instr::add(c.e, t, Operand::imm(WARPGROUP * it)));
            c.offset(&mut b);
            b.push(Instr::mov(c.saddr, a_tile));
            b.push(Instr::mad(c.off, wg, Operand::imm(64 * K * 4), c.off));
            b.push(Instr::add(c.saddr, c.saddr, c.off));
            b.push(Instr::mad(c.e, wg, Operand::imm(64 * K), c.e));
            c.global(&mut b, ga);
            if s.cp_async {
                b.push(Instr::cp_async(
                    CpAsyncCache::Ca,
                    Address::reg(c.saddr, 0),
                    Address::reg(c.gaddr, 0),
                    4,
                ));
            } else {
                b.push(Instr::ld(Space::Global, CacheQual::None, &[c.v], Address::reg(c.gaddr, 0)));
                b.push(Instr::st(Space::Shared, Address::reg(c.saddr, 0), &[c.v]));
            }
        }
        if s.cp_async {
            b.push(Instr::cp_async_wait_all());
        }
    }
    b.section("B: shared by the warpgroups");
    let total = s.n * K;
    for it in 0..total.div_ceil(s.threads()) {
        b.push(Instr::add(c.e, tid, Operand::imm(s.threads() * it)));
        c.offset(&mut b);
        b.push(Instr::mov(c.saddr, b_tile));
        b.push(Instr::add(c.saddr, c.saddr, c.off));
        c.global(&mut b, gb);
        let guard = (!total.is_multiple_of(s.threads())).then_some(c.p);
        b.push(Instr::setp(Cmp::Lt, Type::U32, c.p, c.e, Operand::imm(total)));
        let load = Instr::ld(Space::Global, CacheQual::None, &[c.v], Address::reg(c.gaddr, 0));
        b.push_guarded(guard.map(|pred| ptx::Guard { pred, negated: false }), load);
        let store = Instr::st(Space::Shared, Address::reg(c.saddr, 0), &[c.v]);
        b.push_guarded(guard.map(|pred| ptx::Guard { pred, negated: false }), store);
    }
    b.push(Instr::fence_proxy_async());
    b.push(Instr::bar_sync(0));

    b.section("descriptors: the second wgmma starts two core matrices later along K");
    let (lbo, sbo) = s.desc;
    for (i, &desc) in descs.iter().enumerate().skip(if s.a_regs { 2 } else { 0 }) {
        let (tile, chunk) = if i < 2 { (a_tile, i) } else { (b_tile, i - 2) };
        let mut bits = SmemDesc::k_major(2 * LBO * chunk as u32, lbo, sbo).encode();
        if i == 0 {
            bits |= s.a_desc_bits;
        }
        b.push(Instr::mov(desc, Operand::imm(bits as i64)));
        b.push(Instr::mov(c.saddr, tile));
        if i < 2 {
            b.push(Instr::mad(c.saddr, wg, Operand::imm(64 * K * 4), c.saddr));
        }
        if i == 0 && s.odd_warps_shift_a {
            b.push(Instr::binary(ptx::BinOp::Shr, c.tmp, tid, Operand::imm(5)));
            b.push(Instr::binary(ptx::BinOp::And, c.tmp, c.tmp, Operand::imm(1)));
            b.push(Instr::mad(c.saddr, c.tmp, Operand::imm(256), c.saddr));
        }
        b.push(Instr::cvt(base, c.saddr));
        b.push(Instr::binary(ptx::BinOp::Shr, base, base, Operand::imm(4)));
        b.push(Instr::binary_as(ptx::BinOp::Add, Type::U64, desc, desc, base));
    }
    b.push(Instr::setp(Cmp::Ne, Type::U32, first, Operand::imm(0), Operand::imm(0)));
    b.push(Instr::setp(Cmp::Eq, Type::U32, then, Operand::imm(0), Operand::imm(0)));
    if s.zero_init {
        for &r in &d {
            b.push(Instr::mov(r, Operand::f32(0.0)));
        }
    }

    b.section("the product");
    let shape = s.wgmma();
    let start = if s.zero_init { then } else { first };
    b.push(Instr::wgmma_fence());
    let wgmma = |step: usize, scale_d: Reg| {
        if s.a_regs {
            let a = std::array::from_fn(|i| a_frag[4 * step + i]);
            Instr::wgmma_rs(shape, &d, (a, descs[2 + step]), scale_d, s.neg)
        } else {
            Instr::wgmma(shape, &d, (descs[step], descs[2 + step]), scale_d, s.neg, (Major::K, Major::K))
        }
    };
    b.push(wgmma(0, start));
    let second = wgmma(1, then);
    if s.warp1_skips {
        b.push_unless(warp1, second);
    } else {
        b.push(second);
    }
    b.push(Instr::wgmma_commit());
    b.push(Instr::wgmma_wait(0));
    if s.epilogue {
        b.section("D, thread after thread");
        b.push(Instr::mul_wide(c.wide, tid, Operand::imm(s.n / 2 * 4)));
        b.push(Instr::add(c.gaddr, gd, c.wide));
        for (i, &r) in d.iter().enumerate() {
            b.push(Instr::st(Space::Global, Address::reg(c.gaddr, 4 * i as i64), &[r]));
        }
    }
    b.push(Instr::ret());
    let module = ptx::Module {
        header: vec!["wgmma test".into()],
        floor: ptx::Arch::SM_90A,
        kernels: vec![b.finish()],
    };
    ptx::write_string(&module)
}

/// The inputs: small integers (TF32 values whose products and sums are
/// exact in f32), A `64·warpgroups × 16` and B `n × 16`, row-major.
pub(super) fn inputs(s: &Shape) -> (Vec<f32>, Vec<f32>) {
    let a = (0..64 * s.warpgroups * K).map(|i| ((i / K * 3 + i % K * 5) % 7) as f32 - 3.0).collect();
    let b = (0..s.n * K).map(|i| ((i / K * 2 + i % K * 3) % 5) as f32 - 2.0).collect();
    (a, b)
}

/// `A · Bᵀ` in f64 (B is `n × 16`), row-major `64·warpgroups × n`.
pub(super) fn reference(s: &Shape, a: &[f32], b: &[f32]) -> Vec<f64> {
    let (rows, n, k) = ((64 * s.warpgroups) as usize, s.n as usize, K as usize);
    (0..rows * n)
        .map(|at| (0..k).map(|l| f64::from(a[at / n * k + l]) * f64::from(b[at % n * k + l])).sum())
        .collect()
}

/// A run of the kernel: its text, result, and D (row-major, NaN where no
/// thread stored).
pub(super) struct Run {
    pub(super) text: String,
    pub(super) result: Result<Stats, EmuError>,
    pub(super) d: Vec<f32>,
}

impl Run {
    /// The 1-based line of the `nth` line containing `needle`.
    pub(super) fn line_of(&self, needle: &str, nth: usize) -> u32 {
        let at = self.text.lines().enumerate().filter(|(_, l)| l.contains(needle)).nth(nth);
        at.unwrap_or_else(|| panic!("no line {nth} with {needle}\n{}", self.text)).0 as u32 + 1
    }

    /// The fault the run ended with.
    pub(super) fn fault(&self) -> &Fault {
        match &self.result {
            Err(EmuError::Fault(f)) => f,
            other => panic!("expected a fault, got {other:?}\n{}", self.text),
        }
    }
}

/// Runs `text` (a version of [`kernel`]`(s)`) on `threads` threads with
/// the inputs `a` and `b`.
pub(super) fn emulate_text(s: &Shape, text: String, threads: u32, a: &[f32], b: &[f32]) -> Run {
    let program = Program::from_ptx(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let out_words = (s.threads() * s.n / 2) as usize;
    let mut buffers = [
        Buffer::read_only("a", bytes(a)),
        Buffer::read_only("b", bytes(b)),
        Buffer::new("d", bytes(&vec![f32::NAN; out_words])),
    ];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (threads, 1, 1),
        params: (0..3).map(ParamValue::ptr).collect(),
        ..Launch::default()
    };
    let result = program.run(&launch, &mut buffers);
    let raw: Vec<f32> =
        buffers[2].bytes.chunks(4).map(|w| f32::from_le_bytes(w.try_into().unwrap())).collect();
    let mut d = vec![f32::NAN; (64 * s.warpgroups * s.n) as usize];
    for (tid, values) in raw.chunks((s.n / 2) as usize).enumerate() {
        let (group, thread) = (tid as u32 / WARPGROUP, tid as u32 % WARPGROUP);
        for (i, &x) in values.iter().enumerate() {
            let (row, col) = s.wgmma().d_at(thread, i as u32);
            d[((64 * group + row) * s.n + col) as usize] = x;
        }
    }
    Run { text, result, d }
}

/// Runs [`kernel`]`(s)`, edited by `edit`, on its inputs.
pub(super) fn emulate_edited(s: &Shape, edit: impl FnOnce(String) -> String) -> Run {
    let (a, b) = inputs(s);
    emulate_text(s, edit(kernel(s)), s.threads(), &a, &b)
}

/// Runs [`kernel`]`(s)` on its inputs.
pub(super) fn emulate(s: &Shape) -> Run {
    emulate_edited(s, |t| t)
}

/// The text with the first line containing `needle` removed.
fn without(text: &str, needle: &str) -> String {
    let line = text.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no {needle}"));
    text.replacen(&format!("{line}\n"), "", 1)
}

/// Whether `run` computed `sign · A · B` exactly.
pub(super) fn assert_product(s: &Shape, run: &Run, sign: f64) {
    let stats = run.result.as_ref().unwrap_or_else(|e| panic!("{e}\n{}", run.text));
    assert_eq!(stats.wgmmas, u64::from(2 * 4 * s.warpgroups), "two wgmmas, four warps each");
    let (a, b) = inputs(s);
    let want = reference(s, &a, &b);
    assert!(want.iter().any(|&x| x != 0.0), "a product of zeros proves nothing");
    for (at, (&got, &want)) in run.d.iter().zip(&want).enumerate() {
        let (row, col) = (at as u32 / s.n, at as u32 % s.n);
        assert_eq!(f64::from(got), sign * want, "D({row}, {col}) of {s:?}");
    }
}

/// The correct kernel computes `A · B` exactly (f64 reference), each
/// element where [`WgmmaShape::d_at`] puts it: N = 8, 16, 64, 128, 256,
/// one and two warpgroups, D zeroed first and accumulated into, A by
/// `cp.async`.
#[test]
fn the_product_is_exact_for_every_n_and_two_warpgroups() {
    let shapes = [(1, 8), (1, 64), (1, 128), (1, 256), (2, 64), (2, 8)];
    for s in shapes.map(|(groups, n)| Shape::new(groups, n)) {
        assert_product(&s, &emulate(&s), 1.0);
    }
    let s = Shape { zero_init: true, ..Shape::new(1, 64) };
    assert_product(&s, &emulate(&s), 1.0);
    let s = Shape { cp_async: true, ..Shape::new(2, 16) };
    assert_product(&s, &emulate(&s), 1.0);
}

/// `imm-scale-a = -1` and `imm-scale-b = -1` negate A and B.
#[test]
fn negated_operands_negate_the_product() {
    for (neg, sign) in [((true, false), -1.0), ((false, true), -1.0), ((true, true), 1.0)] {
        let s = Shape { neg, ..Shape::new(1, 64) };
        assert_product(&s, &emulate(&s), sign);
    }
}

/// Without `wgmma.wait_group`, the first store of D reads an accumulator
/// still in flight.
#[test]
fn reading_d_before_the_wait_is_refused() {
    let s = Shape::new(1, 64);
    let run = emulate_edited(&s, |t| without(&t, "wgmma.wait_group"));
    let f = run.fault();
    let wgmma_line = run.line_of("wgmma.mma_async", 1);
    assert_eq!(f.kind, FaultKind::WgmmaRegisterInFlight { reg: "%d0".into(), wgmma_line });
    assert_eq!((f.thread, f.line), (0, run.line_of("st.global.f32", 0)));
    assert!(f.to_string().contains("`wgmma.wait_group`"), "{f}");
}

/// A warp's first `wgmma` needs a `wgmma.fence`; so does one after another
/// instruction wrote its accumulators (here the zeroing of D).
#[test]
fn a_missing_wgmma_fence_is_refused() {
    let s = Shape::new(1, 64);
    let run = emulate_edited(&s, |t| without(&t, "wgmma.fence"));
    assert_eq!(run.fault().kind, FaultKind::WgmmaWithoutFence { reg: None });
    assert_eq!(run.fault().line, run.line_of("wgmma.mma_async", 0));
    let s = Shape { zero_init: true, ..Shape::new(1, 64) };
    let run = emulate_edited(&s, |t| {
        let t = without(&t, "wgmma.fence");
        t.replacen("\tmov.f32\t%d0,", "\twgmma.fence.sync.aligned;\n\tmov.f32\t%d0,", 1)
    });
    assert_eq!(run.fault().kind, FaultKind::WgmmaWithoutFence { reg: Some("%d0".into()) });
}

/// Writes of shared memory reach `wgmma` only through
/// `fence.proxy.async`: for `st.shared`, after the store; for `cp.async`,
/// after the wait that lands the copy.
#[test]
fn a_missing_proxy_fence_is_refused() {
    let s = Shape::new(1, 64);
    let run = emulate_edited(&s, |t| without(&t, "fence.proxy.async"));
    let FaultKind::MissingProxyFence { operand, writer, write_line, .. } = run.fault().kind else {
        panic!("{}", run.fault());
    };
    // Warp 0 reads A(0, 0) first, stored by thread 0 in the first copy.
    assert_eq!((operand, writer, write_line), ('A', 0, run.line_of("st.shared.f32", 0)));
    let s = Shape { cp_async: true, ..Shape::new(1, 64) };
    assert_product(&s, &emulate(&s), 1.0);
    let run = emulate_edited(&s, |t| {
        let t = without(&t, "fence.proxy.async");
        t.replacen("\tcp.async.wait_all;", "\tfence.proxy.async.shared::cta;\n\tcp.async.wait_all;", 1)
    });
    let FaultKind::MissingProxyFence { writer, write_line, .. } = run.fault().kind else {
        panic!("{}", run.fault());
    };
    assert_eq!((writer, write_line), (0, run.line_of("cp.async.ca", 0)));
}

/// Descriptors whose LBO and SBO are swapped, or whose SBO is half the
/// stride, address other elements (all written, so nothing faults): the
/// product is wrong.
#[test]
fn a_wrong_lbo_or_sbo_is_a_wrong_product() {
    let s = Shape::new(1, 64);
    let (a, b) = inputs(&s);
    let want = reference(&s, &a, &b);
    for desc in [(SBO, LBO), (LBO, SBO / 2)] {
        let s = Shape { desc, ..s };
        let run = emulate(&s);
        run.result.as_ref().unwrap_or_else(|e| panic!("{e}"));
        let wrong = run.d.iter().zip(&want).filter(|&(&got, &w)| f64::from(got) != w).count();
        assert!(wrong > want.len() / 2, "{desc:?}: {wrong} of {} wrong", want.len());
    }
}

/// An operand that was not rounded to TF32 is refused when the `wgmma`
/// reads it.
#[test]
fn an_operand_not_rounded_to_tf32_is_refused() {
    let s = Shape::new(1, 8);
    let (mut a, b) = inputs(&s);
    a[(5 * K + 3) as usize] = 1.0 + f32::EPSILON;
    let run = emulate_text(&s, kernel(&s), s.threads(), &a, &b);
    let FaultKind::WgmmaOperandNotTf32 { operand, row, k, bits, wgmma_line, .. } = run.fault().kind else {
        panic!("{}", run.fault());
    };
    assert_eq!((operand, row, k, bits), ('A', 5, 3, (1.0 + f32::EPSILON).to_bits()));
    assert_eq!(
        (wgmma_line, run.fault().line),
        (run.line_of("wgmma.mma_async", 0), run.line_of("wait_group", 0))
    );
}

/// A store to an operand between the `wgmma` and its wait is refused where
/// it happens, even one writing the value already there.
#[test]
fn overwriting_an_operand_before_the_wait_is_refused() {
    let s = Shape::new(1, 64);
    let run = emulate_edited(&s, |t| {
        let store = t.lines().rfind(|l| l.contains("st.shared.f32")).expect("a store").to_owned();
        t.replacen("\twgmma.commit_group", &format!("{store}\n\twgmma.commit_group"), 1)
    });
    let f = run.fault();
    let FaultKind::WgmmaOperandOverwritten { wgmma_thread, wgmma_line, .. } = f.kind else { panic!("{f}") };
    assert_eq!(f.line, run.line_of("wgmma.commit_group", 0) - 1, "{f}");
    assert_eq!(wgmma_thread, 0);
    assert!([0, 1].map(|i| run.line_of("wgmma.mma_async", i)).contains(&wgmma_line), "{f}");
}

/// A `wgmma` some lanes of a warp skip, and one in a block that is not
/// whole warpgroups, are refused.
#[test]
fn a_divergent_wgmma_and_a_partial_warpgroup_are_refused() {
    let s = Shape::new(1, 64);
    let run = emulate_edited(&s, |t| t.replacen("\twgmma.mma_async", "\t@%odd wgmma.mma_async", 1));
    let FaultKind::WgmmaNotConverged { active } = &run.fault().kind else { panic!("{}", run.fault()) };
    assert_eq!(active, &(0..16).map(|i| 2 * i + 1).collect::<Vec<u32>>());
    let (a, b) = inputs(&s);
    let run = emulate_text(&s, kernel(&s), 96, &a, &b);
    assert_eq!(run.fault().kind, FaultKind::WgmmaPartialWarpgroup { threads: 96 });
    assert_eq!(run.fault().line, run.line_of("wgmma.fence", 0));
}

/// Exiting with `wgmma`s not retired is refused: committed or not.
#[test]
fn a_group_pending_at_exit_is_refused() {
    let s = Shape { epilogue: false, ..Shape::new(1, 64) };
    emulate(&s).result.expect("the kernel without its epilogue");
    let run = emulate_edited(&s, |t| without(&t, "wgmma.wait_group"));
    let wgmma_line = run.line_of("wgmma.mma_async", 0);
    assert_eq!(run.fault().kind, FaultKind::WgmmaPendingAtExit { wgmmas: 2, uncommitted: 0, wgmma_line });
    assert_eq!(run.fault().line, run.line_of("ret;", 0));
    let run = emulate_edited(&s, |t| without(&without(&t, "wgmma.wait_group"), "wgmma.commit_group"));
    assert_eq!(run.fault().kind, FaultKind::WgmmaPendingAtExit { wgmmas: 2, uncommitted: 2, wgmma_line });
    // A wait that keeps the newest group pending is no wait for it.
    let run =
        emulate_edited(&s, |t| t.replacen("wait_group.sync.aligned\t0", "wait_group.sync.aligned\t1", 1));
    assert_eq!(run.fault().kind, FaultKind::WgmmaPendingAtExit { wgmmas: 2, uncommitted: 0, wgmma_line });
}

/// The four warps of a warpgroup execute the same `wgmma`s with the same
/// descriptors: a warp skipping one (under a guard uniform in each warp),
/// or giving another A, is refused.
#[test]
fn warps_of_a_warpgroup_that_disagree_are_refused() {
    let run = emulate(&Shape { warp1_skips: true, ..Shape::new(1, 64) });
    let f = run.fault();
    let other_line = run.line_of("wgmma.mma_async", 1);
    let mismatch = WarpgroupMismatch::Instruction { other_line };
    assert_eq!(f.kind, FaultKind::WgmmaWarpgroupDiverged { other_thread: 0, mismatch });
    assert_eq!((f.thread, f.line), (32, run.line_of("wgmma.commit_group", 0)));
    let run = emulate(&Shape { odd_warps_shift_a: true, ..Shape::new(1, 64) });
    let FaultKind::WgmmaWarpgroupDiverged {
        other_thread: 0,
        mismatch: WarpgroupMismatch::Descriptors { a, .. },
    } = run.fault().kind
    else {
        panic!("{}", run.fault());
    };
    assert_eq!(run.fault().thread, 32);
    assert_eq!(SmemDesc::decode(a).start % 4096, 256, "warp 0's A: the tile's first byte");
}

/// Descriptors the emulator does not model (the 64- and 32-byte swizzles,
/// a base offset, reserved bits) and operands outside shared memory are
/// refused when the `wgmma` is issued.
#[test]
fn unsupported_descriptors_and_operands_outside_shared_memory_are_refused() {
    for bits in [2u64 << 62, 3 << 62, 1 << 62 | 1 << 49, 1 << 14] {
        let run = emulate(&Shape { a_desc_bits: bits, ..Shape::new(1, 8) });
        let FaultKind::WgmmaUnsupportedDescriptor { operand: 'A', bits: got, .. } = run.fault().kind else {
            panic!("{}", run.fault());
        };
        assert_eq!(got & bits, bits);
        assert_eq!(run.fault().line, run.line_of("wgmma.mma_async", 0));
    }
    // An SBO past the tile: warp 0's rows 8..15.
    let run = emulate(&Shape { desc: (LBO, 0x3fff0), ..Shape::new(1, 8) });
    let FaultKind::WgmmaOperandOutOfBounds { operand, row, k, .. } = run.fault().kind else {
        panic!("{}", run.fault());
    };
    assert_eq!((operand, row, k), ('A', 8, 0));
}

/// Without the `bar.sync` between the copies and the `wgmma`, warp 0 reads
/// rows of A the other warps have not stored yet.
#[test]
fn a_missing_barrier_is_refused() {
    let run = emulate_edited(&Shape::new(1, 64), |t| without(&t, "bar.sync"));
    assert!(matches!(run.fault().kind, FaultKind::SharedUninitialized { .. }), "{}", run.fault());
    assert_eq!(run.fault().line, run.line_of("wgmma.mma_async", 0));
}

/// A chain of `wgmma`s needs no fence between them, but a `wgmma` of
/// another shape on accumulators in flight is refused.
#[test]
fn only_a_chain_of_one_shape_may_share_accumulators_in_flight() {
    let s = Shape::new(1, 64);
    let run = emulate_edited(&s, |t| {
        let second = t.lines().filter(|l| l.contains("wgmma.mma_async")).nth(1).expect("two").to_owned();
        let regs: Vec<String> = (0..16).map(|i| format!("%d{i}")).collect();
        let narrow = format!(
            "	wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32\t{{{}}}, %adesc1, %bdesc1, %then, 1, 1;",
            regs.join(", ")
        );
        t.replacen(&second, &narrow, 1)
    });
    let wgmma_line = run.line_of("wgmma.mma_async", 0);
    assert_eq!(run.fault().kind, FaultKind::WgmmaRegisterInFlight { reg: "%d0".into(), wgmma_line });
    assert_eq!(run.fault().line, run.line_of("wgmma.mma_async", 1));
}

/// A shape the ISA does not have, built into the IR directly (its fields
/// are public), is an error naming it, not a panic.
#[test]
fn an_unsupported_shape_is_an_error() {
    for n in [12, 264, 0] {
        let mut b = KernelBuilder::new("bad");
        let d: Vec<Reg> = (0..n / 2).map(|i| b.reg(format!("d{i}"), Type::F32)).collect();
        let desc = b.reg("desc", Type::B64);
        let p = b.reg("p", Type::Pred);
        let (neg_a, neg_b) = (false, false);
        b.push(Instr::Wgmma {
            shape: WgmmaShape { n, input: WgmmaInput::Tf32 },
            d,
            a_desc: desc,
            b_desc: desc,
            scale_d: p,
            neg_a,
            neg_b,
            major: (Major::K, Major::K),
        });
        let module = ptx::Module { header: vec![], floor: ptx::Arch::SM_90A, kernels: vec![b.finish()] };
        let e = Program::from_module(&module, None).expect_err("an unsupported shape");
        // Without accumulators, D's empty braces are the first error.
        let want = if n == 0 {
            "expected an operand, found `}`".to_owned()
        } else {
            format!("`m64n{n}k8` is not a .tf32 wgmma shape")
        };
        assert!(e.to_string().contains(&want), "{e}");
    }
}

/// `wgmma.wait_group n` retires all but the `n` newest committed groups,
/// oldest first: with each `wgmma` in its own group, `wait 1` leaves the
/// second in flight, and `wait 0` then retires it.
#[test]
fn a_wait_retires_all_but_the_newest_groups() {
    let s = Shape::new(1, 64);
    let split = |t: String| {
        let second = t.lines().filter(|l| l.contains("wgmma.mma_async")).nth(1).expect("two").to_owned();
        let t = t.replacen(&second, &format!("\twgmma.commit_group.sync.aligned;\n{second}"), 1);
        t.replacen(
            "wait_group.sync.aligned\t0;",
            "wait_group.sync.aligned\t1;\n\twgmma.wait_group.sync.aligned\t0;",
            1,
        )
    };
    assert_product(&s, &emulate_edited(&s, split), 1.0);
    let run = emulate_edited(&s, |t| without(&split(t), "wait_group.sync.aligned\t0;"));
    let wgmma_line = run.line_of("wgmma.mma_async", 1);
    assert_eq!(run.fault().kind, FaultKind::WgmmaRegisterInFlight { reg: "%d0".into(), wgmma_line });
    assert_eq!(run.fault().line, run.line_of("st.global.f32", 0));
}

/// A descriptor, or `scale-d`, that differs between the lanes of a warp is
/// refused.
#[test]
fn operands_that_differ_in_a_warp_are_refused() {
    let s = Shape::new(1, 64);
    let run = emulate_edited(&s, |t| {
        t.replacen("\twgmma.fence", "\t@%odd add.u64\t%adesc0, %adesc0, 16;\n\twgmma.fence", 1)
    });
    let FaultKind::WgmmaNotUniform { operand, thread, value, first } = run.fault().kind else {
        panic!("{}", run.fault());
    };
    assert_eq!((operand, thread, value - first), ("A's descriptor", 1, 16));
    let run = emulate_edited(&s, |t| t.replacen("%first, 1, 1;", "%odd, 1, 1;", 1));
    let want = FaultKind::WgmmaNotUniform { operand: "scale-d", thread: 1, value: 1, first: 0 };
    assert_eq!(run.fault().kind, want);
}

/// A warpgroup overwriting B after its own wait, with no barrier, races
/// with the other warpgroup's `wgmma`, which read B in the same barrier
/// interval.
#[test]
fn overwriting_a_shared_operand_after_the_wait_without_a_barrier_races() {
    let s = Shape::new(2, 64);
    let run = emulate_edited(&s, |t| {
        let store =
            t.lines().rfind(|l| l.contains("st.shared.f32")).expect("a store").trim_start().to_owned();
        t.replacen(
            "\twgmma.wait_group.sync.aligned\t0;",
            &format!("\twgmma.wait_group.sync.aligned\t0;\n\t@%late {store}"),
            1,
        )
    });
    let f = run.fault();
    let FaultKind::Race { other_thread, other_line, .. } = f.kind else { panic!("{f}") };
    assert_eq!(f.thread, 128);
    assert_eq!(other_thread % 32, 0, "a warp's read, as its first thread: {f}");
    assert!(other_thread < 128, "warpgroup 0's read: {f}");
    assert!([0, 1].map(|i| run.line_of("wgmma.mma_async", i)).contains(&other_line), "{f}");
}
