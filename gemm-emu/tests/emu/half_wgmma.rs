//! The 16-bit `wgmma` (`m64nNk16.f32.f16.f16` and `.f32.bf16.bf16`) in the
//! emulator: a hand-built kernel copies images of A (`64 × 32`) and B
//! (`N × 32`) word by word into shared memory, each image built on the
//! host by placing element `(row, k)` of each 16-deep step where
//! `SmemDesc::at` says for its layout (K-major core matrices, K-major with
//! the 128-byte swizzle, MN-major with the 128-byte swizzle), then chains
//! two `wgmma`s and stores D. Every pair of layouts, both types, N = 64 and
//! 256 give the exact product of the 16-bit inputs (an f64 reference);
//! boxes a TMA copy lands (2-byte elements, 128-byte swizzle, up to 256
//! rows) feed the `wgmma` directly; and the typical mistakes (a transpose
//! immediate that contradicts the layout, an MN-major descriptor with LBO
//! and SBO swapped, an MN-major operand without swizzle) are caught.

use gemm_codegen::abi::TensorMap;
use gemm_codegen::half::{bf16, f16};
use gemm_codegen::ptx::{
    self, Address, BinOp, CacheQual, Cmp, Instr, KernelBuilder, Major, Operand, ParamType, Reg, SharedId,
    SmemDesc, Space, Special, Tma, Type, WARPGROUP, WgmmaInput, WgmmaShape,
};
use gemm_emu::{Buffer, EmuError, FaultKind, Launch, ParamValue, Program, Stats};

/// The depth of the product: two `k16` steps.
const K: u32 = 32;

/// How an operand of the test kernel lies in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// K-major core matrices (8 rows of 8 elements), LBO 128, SBO 512.
    KCore,
    /// K-major rows of 128 bytes with the 128-byte swizzle, SBO 1024.
    KSwizzled,
    /// MN-major with the 128-byte swizzle: atoms of 64 elements along M or
    /// N by 8 along K, 8-deep K groups 1024 bytes apart (SBO), atoms along
    /// M or N 4096 apart (LBO).
    MnSwizzled,
}

impl Layout {
    const ALL: [Layout; 3] = [Layout::KCore, Layout::KSwizzled, Layout::MnSwizzled];

    fn major(self) -> Major {
        if self == Layout::MnSwizzled { Major::Mn } else { Major::K }
    }

    /// The descriptor of 16-deep step `step` of an operand at offset 0:
    /// two core matrices (2 LBO), 32 bytes along the swizzled rows, or two
    /// 8-deep K groups (2 SBO) further than the step before.
    fn desc(self, step: u32) -> SmemDesc {
        match self {
            Layout::KCore => SmemDesc::k_major(2 * 128 * step, 128, K / 8 * 128),
            Layout::KSwizzled => SmemDesc::k_major_sw128(32 * step, 1024),
            Layout::MnSwizzled => SmemDesc::mn_major_sw128(2 * 1024 * step, K / 8 * 1024, 1024),
        }
    }
}

/// Bytes of the shared tile of an operand of `rows` rows: enough for any
/// layout read through any of them (a wrong transpose reads an MN-major
/// image as swizzled K-major rows, a step 2048 bytes in).
fn tile_bytes(rows: u32) -> u32 {
    128 * rows + 2048
}

/// One version of the test kernel.
#[derive(Clone, Copy, Debug)]
struct Case {
    input: WgmmaInput,
    /// Columns of B and D.
    n: u32,
    /// How A's and B's images are laid out.
    layout: (Layout, Layout),
    /// The majors the `wgmma`s say (`imm-trans-a`, `imm-trans-b`): the
    /// layouts' unless a mutation says otherwise.
    issued: (Major, Major),
    /// What becomes of B's descriptors (a mutation; the identity).
    b_desc: fn(SmemDesc) -> SmemDesc,
    /// `imm-scale-a`, `imm-scale-b` = -1.
    neg: (bool, bool),
}

impl Case {
    /// The correct kernel.
    fn new(input: WgmmaInput, n: u32, layout: (Layout, Layout)) -> Case {
        let issued = (layout.0.major(), layout.1.major());
        Case { input, n, layout, issued, b_desc: |d| d, neg: (false, false) }
    }

    fn shape(&self) -> WgmmaShape {
        WgmmaShape::new(self.input, self.n).expect("a 16-bit wgmma shape")
    }

    /// The descriptors (relative to the tiles) of A's and B's two steps.
    fn descs(&self) -> [[u64; 2]; 2] {
        let b = |step| (self.b_desc)(self.layout.1.desc(step)).encode();
        [[0, 1].map(|s| self.layout.0.desc(s).encode()), [0, 1].map(b)]
    }
}

/// A's element `(row, k)`: multiples of 1/8 in [-1, 1], exact in both
/// 16-bit types, their products and sums over K = 32 exact in f32.
fn a_value(row: u32, k: u32) -> f32 {
    ((row * 3 + k * 5) % 17) as f32 / 8.0 - 1.0
}

/// B's element `(col, k)`: multiples of 1/4 in [-1.5, 1.5].
fn b_value(col: u32, k: u32) -> f32 {
    ((col * 7 + k * 3) % 13) as f32 / 4.0 - 1.5
}

/// The 16 bits of `x` in `input`'s type.
fn bits(input: WgmmaInput, x: f32) -> u16 {
    match input {
        WgmmaInput::Bf16 => bf16::from_f32(x).to_bits(),
        _ => f16::from_f32(x).to_bits(),
    }
}

/// The shared image of an operand of `rows` rows and K = 32 in `layout`:
/// each step's element `(row, k)` where [`SmemDesc::at`] puts it.
fn image(input: WgmmaInput, layout: Layout, rows: u32, value: fn(u32, u32) -> f32) -> Vec<u8> {
    let mut bytes = vec![0u8; tile_bytes(rows) as usize];
    let mut placed = vec![false; bytes.len() / 2];
    for step in 0..K / 16 {
        let d = layout.desc(step);
        for row in 0..rows {
            for k in 0..16 {
                let at = d.at(layout.major(), 2, row, k).expect("a modelled layout") as usize;
                assert!(
                    !std::mem::replace(&mut placed[at / 2], true),
                    "{layout:?} places two elements at {at}"
                );
                bytes[at..at + 2].copy_from_slice(&bits(input, value(row, 16 * step + k)).to_le_bytes());
            }
        }
    }
    bytes
}

/// `sign · A · Bᵀ` in f64, row-major `64 × n`.
fn reference(n: u32, sign: f64) -> Vec<f64> {
    (0..64 * n)
        .map(|at| {
            let (row, col) = (at / n, at % n);
            sign * (0..K).map(|k| f64::from(a_value(row, k)) * f64::from(b_value(col, k))).sum::<f64>()
        })
        .collect()
}

/// Declares a descriptor register set to `bits` plus the shared address of
/// `tile` (shifted right 4, as the descriptor holds it), with `saddr` and
/// `base` as scratch.
fn descriptor(
    b: &mut KernelBuilder,
    name: &str,
    bits: u64,
    tile: SharedId,
    (saddr, base): (Reg, Reg),
) -> Reg {
    let desc = b.reg(name, Type::B64);
    b.push(Instr::mov(desc, Operand::imm(bits as i64)));
    b.push(Instr::mov(saddr, tile));
    b.push(Instr::cvt(base, saddr));
    b.push(Instr::binary(BinOp::Shr, base, base, Operand::imm(4)));
    b.push(Instr::binary_as(BinOp::Add, Type::U64, desc, desc, base));
    desc
}

/// Each thread's `n / 2` accumulators to global `gd`, thread after thread.
fn store_d(b: &mut KernelBuilder, d: &[Reg], gd: Reg, (tid, wide, gaddr): (Reg, Reg, Reg)) {
    b.section("D, thread after thread");
    b.push(Instr::mul_wide(wide, tid, Operand::imm(d.len() as u32 * 4)));
    b.push(Instr::add(gaddr, gd, wide));
    for (i, &r) in d.iter().enumerate() {
        b.push(Instr::st(Space::Global, Address::reg(gaddr, 4 * i as i64), &[r]));
    }
}

/// The test kernel `wgmma_16(a, b, d)` of `case`: the images `a` and `b`
/// copied into shared memory, two chained `wgmma`s, D stored.
fn kernel(case: &Case) -> String {
    let mut b = KernelBuilder::new("wgmma_16");
    let params = [b.param("a", Type::U64), b.param("b", Type::U64), b.param("d", Type::U64)];
    let [ga, gb, gd, gaddr, wide, base] =
        ["ga", "gb", "gd", "gaddr", "wide", "base"].map(|name| b.reg(name, Type::U64));
    let [tid, e, saddr] = ["thread", "e", "saddr"].map(|name| b.reg(name, Type::U32));
    let v = b.reg("v", Type::B32);
    let [first, then] = ["first", "then"].map(|name| b.reg(name, Type::Pred));
    let d: Vec<Reg> = (0..case.n / 2).map(|i| b.reg(format!("d{i}"), Type::F32)).collect();
    let tiles = [b.shared("a_tile", tile_bytes(64), 1024), b.shared("b_tile", tile_bytes(case.n), 1024)];
    for (r, p) in [ga, gb, gd].into_iter().zip(params) {
        b.push(Instr::ld_param(r, p));
        b.push(Instr::cvta_to_global(r, r));
    }
    b.push(Instr::mov(tid, Special::TidX));
    for ((tile, rows), src) in tiles.into_iter().zip([64, case.n]).zip([ga, gb]) {
        b.section("an image, word by word");
        for it in 0..tile_bytes(rows) / 4 / WARPGROUP {
            b.push(Instr::add(e, tid, Operand::imm(WARPGROUP * it)));
            b.push(Instr::mul_wide(wide, e, Operand::imm(4)));
            b.push(Instr::add(gaddr, src, wide));
            b.push(Instr::ld(Space::Global, CacheQual::None, &[v], Address::reg(gaddr, 0)));
            b.push(Instr::mov(saddr, tile));
            b.push(Instr::mad(saddr, e, Operand::imm(4), saddr));
            b.push(Instr::st(Space::Shared, Address::reg(saddr, 0), &[v]));
        }
    }
    b.push(Instr::fence_proxy_async());
    b.push(Instr::bar_sync(0));
    b.section("descriptors of the two steps");
    let [a_bits, b_bits] = case.descs();
    let scratch = (saddr, base);
    let a_desc = [0, 1].map(|s| descriptor(&mut b, &format!("adesc{s}"), a_bits[s], tiles[0], scratch));
    let b_desc = [0, 1].map(|s| descriptor(&mut b, &format!("bdesc{s}"), b_bits[s], tiles[1], scratch));
    b.push(Instr::setp(Cmp::Ne, Type::U32, first, Operand::imm(0), Operand::imm(0)));
    b.push(Instr::setp(Cmp::Eq, Type::U32, then, Operand::imm(0), Operand::imm(0)));
    b.section("the product");
    b.push(Instr::wgmma_fence());
    for (s, scale) in [first, then].into_iter().enumerate() {
        let descs = (a_desc[s], b_desc[s]);
        b.push(Instr::wgmma(case.shape(), &d, descs, scale, case.neg, case.issued));
    }
    b.push(Instr::wgmma_commit());
    b.push(Instr::wgmma_wait(0));
    store_d(&mut b, &d, gd, (tid, wide, gaddr));
    b.push(Instr::ret());
    let module = ptx::Module {
        header: vec!["16-bit wgmma".into()],
        floor: ptx::Arch::SM_90A,
        kernels: vec![b.finish()],
    };
    ptx::write_string(&module)
}

/// A run: its text, result, and D (row-major `64 × n`, NaN where no
/// thread stored).
struct Run {
    text: String,
    result: Result<Stats, EmuError>,
    d: Vec<f32>,
}

impl Run {
    /// How many elements of D differ from `want`.
    fn wrong(&self, want: &[f64]) -> usize {
        self.d.iter().zip(want).filter(|&(&got, &w)| f64::from(got) != w).count()
    }
}

/// Runs `text` on one warpgroup with `buffers` (D, `64 × n` f32, last)
/// and `params`, reading D back in the layout of [`WgmmaShape::d_at`].
fn run_text(text: String, n: u32, mut buffers: Vec<Buffer>, params: Vec<ParamValue>) -> Run {
    let program = Program::from_ptx(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    buffers.push(Buffer::new("d", f32::NAN.to_le_bytes().repeat((64 * n) as usize)));
    let launch = Launch { grid: (1, 1, 1), block: (WARPGROUP, 1, 1), params, ..Launch::default() };
    let result = program.run(&launch, &mut buffers);
    let out = buffers.last().expect("D");
    let raw: Vec<f32> = out.bytes.chunks(4).map(|w| f32::from_le_bytes(w.try_into().unwrap())).collect();
    let shape = WgmmaShape::tf32(n).expect("a shape");
    let mut d = vec![f32::NAN; (64 * n) as usize];
    for (thread, values) in raw.chunks((n / 2) as usize).enumerate() {
        for (i, &x) in values.iter().enumerate() {
            let (row, col) = shape.d_at(thread as u32, i as u32);
            d[(row * n + col) as usize] = x;
        }
    }
    Run { text, result, d }
}

/// Runs [`kernel`]`(case)` on the images of its layouts.
fn emulate(case: &Case) -> Run {
    let buffers = vec![
        Buffer::read_only("a", image(case.input, case.layout.0, 64, a_value)),
        Buffer::read_only("b", image(case.input, case.layout.1, case.n, b_value)),
    ];
    run_text(kernel(case), case.n, buffers, (0..3).map(ParamValue::ptr).collect())
}

/// Every pair of layouts (both majors for A and for B, K-major with and
/// without swizzle), f16 and bf16, N = 64 and 256: the exact product of
/// the 16-bit inputs, each element where `WgmmaShape::d_at` puts it; and
/// `imm-scale-a = -1` negates it.
#[test]
fn the_16_bit_product_is_exact_for_every_major_and_layout() {
    for input in [WgmmaInput::F16, WgmmaInput::Bf16] {
        for n in [64, 256] {
            let want = reference(n, 1.0);
            for la in Layout::ALL {
                for lb in Layout::ALL {
                    let case = Case::new(input, n, (la, lb));
                    let run = emulate(&case);
                    let stats = run.result.as_ref().unwrap_or_else(|e| panic!("{case:?}: {e}\n{}", run.text));
                    assert_eq!(stats.wgmmas, 2 * 4, "two wgmmas, four warps");
                    assert_eq!(run.wrong(&want), 0, "{case:?}");
                }
            }
        }
    }
    let case =
        Case { neg: (true, false), ..Case::new(WgmmaInput::Bf16, 64, (Layout::MnSwizzled, Layout::KCore)) };
    let run = emulate(&case);
    assert!(run.text.contains(".f32.bf16.bf16\t{"), "{}", run.text);
    assert_eq!(run.wrong(&reference(64, -1.0)), 0, "{case:?}");
}

/// Mutation: an MN-major operand issued with `imm-trans = 0` is read as
/// K-major rows — valid PTX, nothing faults, but D is wrong (for A and for
/// B).
#[test]
fn an_mn_major_operand_issued_as_k_major_gives_a_wrong_product() {
    let want = reference(64, 1.0);
    for layout in [(Layout::MnSwizzled, Layout::KSwizzled), (Layout::KCore, Layout::MnSwizzled)] {
        let case = Case { issued: (Major::K, Major::K), ..Case::new(WgmmaInput::F16, 64, layout) };
        let run = emulate(&case);
        assert!(run.text.contains("%then, 1, 1, 0, 0;"), "{}", run.text);
        run.result.as_ref().unwrap_or_else(|e| panic!("{case:?}: {e}"));
        let wrong = run.wrong(&want);
        assert!(wrong > want.len() / 2, "{case:?}: {wrong} of {} wrong", want.len());
    }
}

/// Mutation: an MN-major B whose descriptors have LBO and SBO swapped (N =
/// 256: four atoms along N) reads other elements: D is wrong, or the
/// emulator faults.
#[test]
fn an_mn_major_descriptor_with_lbo_and_sbo_swapped_is_caught() {
    for input in [WgmmaInput::F16, WgmmaInput::Bf16] {
        let swapped: fn(SmemDesc) -> SmemDesc = |d| SmemDesc { lbo: d.sbo, sbo: d.lbo, ..d };
        let case = Case { b_desc: swapped, ..Case::new(input, 256, (Layout::KSwizzled, Layout::MnSwizzled)) };
        assert_ne!(case.descs()[1], Case::new(input, 256, case.layout).descs()[1]);
        let run = emulate(&case);
        match &run.result {
            Err(EmuError::Fault(_)) => {}
            Err(e) => panic!("{case:?}: {e}"),
            Ok(_) => assert!(run.wrong(&reference(256, 1.0)) > 0, "{case:?}: the swap went unnoticed"),
        }
    }
}

/// An MN-major descriptor without swizzle is a layout the emulator does
/// not model (nor gemmforge emits): refused at issue, saying so.
#[test]
fn an_mn_major_operand_without_swizzle_is_refused() {
    let unswizzled: fn(SmemDesc) -> SmemDesc = |d| SmemDesc { swizzle: ptx::DescSwizzle::None, ..d };
    let case =
        Case { b_desc: unswizzled, ..Case::new(WgmmaInput::F16, 64, (Layout::KCore, Layout::MnSwizzled)) };
    let run = emulate(&case);
    let Err(EmuError::Fault(f)) = &run.result else { panic!("expected a fault\n{}", run.text) };
    let FaultKind::WgmmaUnsupportedDescriptor { operand: 'B', major: Major::Mn, .. } = f.kind else {
        panic!("{f}")
    };
    assert!(f.to_string().contains("MN-major"), "{f}");
}

/// `cp.async.bulk.tensor` boxes of 2-byte elements with the 128-byte
/// swizzle feed the `wgmma` as they land: A K-major (one box of 64 rows of
/// 64 elements), B MN-major (four boxes of 64 elements along N by 64 rows
/// along K, 8 KiB apart: the descriptor's LBO); four chained `k16` steps,
/// K = 64, N = 256, both 16-bit types.
#[test]
fn tma_boxes_of_16_bit_elements_feed_the_wgmma() {
    const N: u32 = 256;
    const DEPTH: u32 = 64;
    let a = |row: u32, k: u32| ((row * 5 + k * 3) % 11) as f32 / 8.0 - 0.5;
    let b = |col: u32, k: u32| ((col * 3 + k * 7) % 9) as f32 / 4.0 - 1.0;
    let want: Vec<f64> = (0..64 * N)
        .map(|at| (0..DEPTH).map(|k| f64::from(a(at / N, k)) * f64::from(b(at % N, k))).sum())
        .collect();
    for input in [WgmmaInput::F16, WgmmaInput::Bf16] {
        // A row-major (K contiguous, 128 bytes a row), B with N contiguous.
        let a_bytes: Vec<u8> =
            (0..64 * DEPTH).flat_map(|i| bits(input, a(i / DEPTH, i % DEPTH)).to_le_bytes()).collect();
        let b_bytes: Vec<u8> =
            (0..N * DEPTH).flat_map(|i| bits(input, b(i % N, i / N)).to_le_bytes()).collect();
        let map = |base, dims: [u64; 2]| {
            ParamValue::TensorMap(TensorMap {
                base,
                element_bytes: 2,
                dims: [dims[0], dims[1], 1],
                strides: [2 * dims[0], 2 * dims[0] * dims[1]],
                box_dims: [64, 64, 1],
                swizzle_128: true,
                describes: true,
            })
        };
        let params = vec![
            map(0, [u64::from(DEPTH), 64]),
            map(1, [u64::from(N), u64::from(DEPTH)]),
            ParamValue::ptr(2),
        ];
        let buffers = vec![Buffer::read_only("a", a_bytes), Buffer::read_only("b", b_bytes)];
        let run = run_text(tma_kernel(input, N, DEPTH), N, buffers, params);
        let stats = run.result.as_ref().unwrap_or_else(|e| panic!("{input:?}: {e}\n{}", run.text));
        assert_eq!(stats.wgmmas, 4 * 4, "four steps, four warps");
        assert_eq!(run.wrong(&want), 0, "{input:?}");
    }
}

/// The kernel of [`tma_boxes_of_16_bit_elements_feed_the_wgmma`]: thread
/// 0 brings A's box and B's `n / 64` boxes on one `mbarrier`, every thread
/// waits, `depth / 16` chained `wgmma`s.
fn tma_kernel(input: WgmmaInput, n: u32, depth: u32) -> String {
    let mut b = KernelBuilder::new("tma_16");
    let maps = [b.param("map_a", ParamType::TensorMap), b.param("map_b", ParamType::TensorMap)];
    let out = b.param("d", Type::U64);
    let [gd, gaddr, wide, base, ma, mb] =
        ["gd", "gaddr", "wide", "base", "ma", "mb"].map(|x| b.reg(x, Type::U64));
    let [tid, saddr] = ["thread", "saddr"].map(|x| b.reg(x, Type::U32));
    let [lead, done, first, then] = ["lead", "done", "first", "then"].map(|x| b.reg(x, Type::Pred));
    let d: Vec<Reg> = (0..n / 2).map(|i| b.reg(format!("d{i}"), Type::F32)).collect();
    let box_bytes = 64 * depth * 2;
    let a_tile = b.shared("a_tile", box_bytes, 1024);
    let b_tile = b.shared("b_tile", box_bytes * n / 64, 1024);
    let bar = b.shared("bar", 8, 8);
    b.push(Instr::ld_param(gd, out));
    b.push(Instr::cvta_to_global(gd, gd));
    b.push(Instr::mov(tid, Special::TidX));
    b.push(Instr::setp(Cmp::Eq, Type::U32, lead, tid, Operand::imm(0)));
    for (r, p) in [ma, mb].into_iter().zip(maps) {
        b.push(Instr::Tma(Tma::ParamAddr { dst: r, param: p }));
        b.push(Instr::Tma(Tma::CvtaParam { dst: r, src: r }));
    }
    let bar_at = Address::shared(bar, 0);
    b.push_if(lead, Instr::Tma(Tma::MbarrierInit { bar: bar_at, count: 1 }));
    b.push(Instr::bar_sync(0));
    let bytes = box_bytes * (1 + n / 64);
    b.push_if(lead, Instr::Tma(Tma::MbarrierArriveExpectTx { bar: bar_at, bytes }));
    let coords = |x: u32| [Operand::imm(x), Operand::imm(0), Operand::imm(0)];
    b.push_if(
        lead,
        Instr::Tma(Tma::TensorLoad {
            dst: Address::shared(a_tile, 0),
            map: ma,
            coords: coords(0),
            bar: bar_at,
        }),
    );
    for j in 0..n / 64 {
        let dst = Address::shared(b_tile, i64::from(j * box_bytes));
        b.push_if(lead, Instr::Tma(Tma::TensorLoad { dst, map: mb, coords: coords(64 * j), bar: bar_at }));
    }
    let wait = b.label("wait");
    b.place(wait);
    b.push(Instr::Tma(Tma::MbarrierTryWait { done, bar: bar_at, parity: Operand::imm(0) }));
    b.push_unless(done, Instr::bra(wait));
    b.section("descriptors: A K-major rows, B MN-major boxes (LBO a box, SBO 8 K rows)");
    let scratch = (saddr, base);
    let steps = depth / 16;
    let a_desc: Vec<Reg> = (0..steps)
        .map(|s| {
            descriptor(
                &mut b,
                &format!("adesc{s}"),
                SmemDesc::k_major_sw128(32 * s, 1024).encode(),
                a_tile,
                scratch,
            )
        })
        .collect();
    let b_desc: Vec<Reg> = (0..steps)
        .map(|s| {
            let bits = SmemDesc::mn_major_sw128(2048 * s, box_bytes, 1024).encode();
            descriptor(&mut b, &format!("bdesc{s}"), bits, b_tile, scratch)
        })
        .collect();
    b.push(Instr::setp(Cmp::Ne, Type::U32, first, Operand::imm(0), Operand::imm(0)));
    b.push(Instr::setp(Cmp::Eq, Type::U32, then, Operand::imm(0), Operand::imm(0)));
    b.push(Instr::wgmma_fence());
    let shape = WgmmaShape::new(input, n).expect("a shape");
    for s in 0..steps as usize {
        let scale = if s == 0 { first } else { then };
        b.push(Instr::wgmma(shape, &d, (a_desc[s], b_desc[s]), scale, (false, false), (Major::K, Major::Mn)));
    }
    b.push(Instr::wgmma_commit());
    b.push(Instr::wgmma_wait(0));
    store_d(&mut b, &d, gd, (tid, wide, gaddr));
    b.push(Instr::ret());
    let module = ptx::Module {
        header: vec!["16-bit TMA".into()],
        floor: ptx::Arch::SM_90A,
        kernels: vec![b.finish()],
    };
    ptx::write_string(&module)
}

/// `wgmma`s the ISA does not have, built into the IR directly (its fields
/// are public), are errors naming them, not panics: a TF32 one with an
/// MN-major operand (which the writer cannot even print: TF32 has no
/// transpose immediates), a 16-bit one with A from registers.
#[test]
fn an_ir_wgmma_the_emulator_does_not_have_is_an_error() {
    let module = |instr: fn(&[Reg], Reg, Reg, [Reg; 4]) -> Instr| {
        let mut b = KernelBuilder::new("bad");
        let d: Vec<Reg> = (0..4).map(|i| b.reg(format!("d{i}"), Type::F32)).collect();
        let desc = b.reg("desc", Type::B64);
        let p = b.reg("p", Type::Pred);
        let a = ["a0", "a1", "a2", "a3"].map(|x| b.reg(x, Type::B32));
        b.push(instr(&d, desc, p, a));
        ptx::Module { header: vec![], floor: ptx::Arch::SM_90A, kernels: vec![b.finish()] }
    };
    let tf32_mn = module(|d, desc, p, _| Instr::Wgmma {
        shape: WgmmaShape::tf32(8).unwrap(),
        d: d.to_vec(),
        a_desc: desc,
        b_desc: desc,
        scale_d: p,
        neg_a: false,
        neg_b: false,
        major: (Major::Mn, Major::K),
    });
    let e = Program::from_module(&tf32_mn, None).expect_err("a TF32 MN-major operand");
    assert!(e.to_string().contains("an MN-major operand of a .tf32 wgmma: its operands are K-major"), "{e}");
    let f16_rs = module(|d, desc, p, a| Instr::WgmmaRs {
        shape: WgmmaShape::new(WgmmaInput::F16, 8).unwrap(),
        d: d.to_vec(),
        a,
        b_desc: desc,
        scale_d: p,
        neg_a: false,
        neg_b: false,
    });
    let e = Program::from_module(&f16_rs, None).expect_err("a 16-bit A from registers");
    assert!(e.to_string().contains("A from registers: the emulator has it for .tf32 only"), "{e}");
}
