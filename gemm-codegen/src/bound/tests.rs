//! The bound on kernels small enough to count by hand, on the stencil's
//! kernels through identities of their structure, and its monotonicity.

use super::*;
use crate::device::DeviceLimits;
use crate::ptx::{
    Address, CacheQual, Cmp, CpAsyncCache, Instr, Kernel, KernelBuilder, MmaKind, Operand, Space, Special,
    Stmt, Type, UnOp,
};
use crate::space::{Guidelines, Space as SearchSpace};
use crate::spec::{KernelSpec, Op};

fn h100() -> GpuThroughput {
    GpuThroughput::datasheet(ComputeCapability::new(9, 0)).unwrap()
}

/// A machine with round numbers: 1 SM at 1 GHz, 128 / 64 lanes.
fn unit_gpu() -> GpuThroughput {
    GpuThroughput::for_device(ComputeCapability::new(9, 0), "unit", 1, 1.0, Some(1000.0)).unwrap()
}

/// One warp (`.reqntid 32`) running, per trip of `$loop`:
///
/// | instruction | count | per lane |
/// |---|---:|---|
/// | `ld.shared.f32 [smem + 4 t]` | 1 | 1 cycle: 32 words, one per bank |
/// | `ld.shared.f32 [smem + 8 t]` | 1 | 2 cycles: even banks, two words each |
/// | `ld.shared.f32 [smem]` | 1 | 1 cycle: one word, broadcast |
/// | `ld.shared.v4.f32 [smem + 16 t]` | 1 | 4 cycles |
/// | `ld.shared.v2.f32 [smem + 8 (t mod 16)]` | 1 | 1 cycle: 32 words, broadcast in pairs |
/// | `ld.shared.f32 [unknown]` | 1 | 1 cycle, unknown address |
/// | `st.shared.f32 [smem + 4 t]` | 1 | 1 cycle |
/// | `fma.rn.f32` into 4 accumulators | 24 | |
/// | `neg.f32` | 1 | folded |
/// | `ld.global.v4.f32` | 1 | 16 bytes |
/// | `bar.sync` | 1 | |
/// | `add`, `setp`, `@p bra` | 3 | |
///
/// 24 FMAs among 24 + 7 + 1 + 1 + 3 = 36 issued instructions; 11 shared
/// cycles, one of them for an unknown address.
fn hand_kernel() -> Kernel {
    let mut b = KernelBuilder::new("hand");
    b.reqntid((32, 1, 1));
    let p_ptr = b.param("ptr", Type::U64);
    let smem = b.shared("smem", 1024, 16);
    let ptr = b.reg("ptr", Type::U64);
    let t = b.reg("t", Type::U32);
    let a4 = b.reg("a4", Type::U32);
    let a8 = b.reg("a8", Type::U32);
    let a16 = b.reg("a16", Type::U32);
    let half = b.reg("half", Type::U32);
    let unknown = b.reg("unknown", Type::U32);
    let i = b.reg("i", Type::U32);
    let p = b.reg("p", Type::Pred);
    let f: Vec<_> = (0..4).map(|k| b.reg(format!("f{k}"), Type::F32)).collect();
    let acc: Vec<_> = (0..4).map(|k| b.reg(format!("acc{k}"), Type::F32)).collect();
    let top = b.label("loop");
    b.push(Instr::ld_param(ptr, p_ptr));
    b.push(Instr::ld(Space::Global, CacheQual::None, &[unknown], Address::reg(ptr, 0)));
    b.push(Instr::mov(t, Special::TidX));
    b.push(Instr::mov(a4, smem));
    b.push(Instr::mad(a4, t, Operand::imm(4), a4));
    b.push(Instr::mov(a8, smem));
    b.push(Instr::mad(a8, t, Operand::imm(8), a8));
    b.push(Instr::mov(a16, smem));
    b.push(Instr::mad(a16, t, Operand::imm(16), a16));
    b.push(Instr::binary(crate::ptx::BinOp::Rem, half, t, Operand::imm(16)));
    b.push(Instr::binary(crate::ptx::BinOp::Shl, half, half, Operand::imm(3)));
    b.push(Instr::add(half, half, smem));
    for &r in &acc {
        b.push(Instr::mov(r, Operand::f32(0.0)));
    }
    b.push(Instr::mov(i, Operand::imm(0)));
    b.place(top);
    b.push(Instr::ld(Space::Shared, CacheQual::None, &f[..1], Address::reg(a4, 0)));
    b.push(Instr::ld(Space::Shared, CacheQual::None, &f[1..2], Address::reg(a8, 0)));
    b.push(Instr::ld(Space::Shared, CacheQual::None, &f[2..3], Address::shared(smem, 0)));
    b.push(Instr::ld(Space::Shared, CacheQual::None, &f, Address::reg(a16, 0)));
    b.push(Instr::ld(Space::Shared, CacheQual::None, &f[..2], Address::reg(half, 0)));
    b.push(Instr::ld(Space::Shared, CacheQual::None, &f[3..], Address::reg(unknown, 0)));
    b.push(Instr::neg(f[3], f[3]));
    for round in 0..6 {
        for (k, &r) in acc.iter().enumerate() {
            b.push(Instr::fma(r, f[k], f[(k + round) % 4], r));
        }
    }
    b.push(Instr::ld(Space::Global, CacheQual::Nc, &f, Address::reg(ptr, 16)));
    b.push(Instr::st(Space::Shared, Address::reg(a4, 0), &acc[..1]));
    b.push(Instr::bar_sync(0));
    b.push(Instr::add(i, i, Operand::imm(1)));
    b.push(Instr::setp(Cmp::Lt, Type::U32, p, i, Operand::imm(10)));
    b.push_if(p, Instr::bra(top));
    b.push(Instr::ret());
    b.finish()
}

#[test]
fn a_hand_counted_loop() {
    let kernel = hand_kernel();
    let mix = LoopMix::of(&kernel);
    let start = kernel.body.iter().position(|s| matches!(s, Stmt::Label(_))).unwrap();
    assert_eq!(mix.region, Region::Loop { label: "loop".into(), body: start..kernel.body.len() - 1 });
    let want = InstrMix {
        fma_f32: 24,
        fma_f64: 0,
        mma: 0,
        mma_fmas: 0,
        mma_kind: None,
        shared_loads: 6,
        shared_load_bytes: 4 + 4 + 4 + 16 + 8 + 4,
        shared_stores: 1,
        shared_store_bytes: 4,
        global_loads: 1,
        global_load_bytes: 16,
        global_stores: 0,
        global_store_bytes: 0,
        barriers: 1,
        async_copies: 0,
        folded: 1,
        address: 1,
        other: 2,
    };
    assert_eq!(mix.mix, want);
    assert_eq!(mix.mix.total(), 36);
    // The loop counter's `add` may be folded by ptxas: not charged an issue slot.
    assert_eq!(mix.mix.issued(), 35);
    assert_eq!(mix.fma_chains, 4);
    assert_eq!(mix.shared, SharedCycles { threads: 32, cycles: 11, unknown: 1, fewest: 9 });

    // On 1 SM at 1 GHz: FMA units 128 per clock = 0.256 TFLOP/s; issue
    // 4 × 32 × 24/35; shared 32 × 24 / 11 per clock.
    let gpu = unit_gpu();
    let b =
        AnalyticBound::new(&mix, &gpu, Some(Residency { threads_per_block: 32, blocks_per_sm: 1 })).unwrap();
    let tflops = |per_clock: f64| 2.0 * per_clock * 1e-3;
    assert_eq!(b.pipe, Pipe::Fp32);
    assert!((b.fma_tflops - tflops(128.0)).abs() < 1e-12);
    assert!((b.issue_tflops - tflops(128.0 * 24.0 / 35.0)).abs() < 1e-12);
    assert!((b.shared_tflops.unwrap() - tflops(32.0 * 24.0 / 11.0)).abs() < 1e-12);
    assert_eq!((b.limiter, b.tflops), (Limiter::SharedMemory, b.shared_tflops.unwrap()));
    // One block of one warp: 1/4 warp per scheduler × 4 chains < 4 clocks;
    // DRAM: 1000 GB/s × 24 FMAs / 16 bytes = 1.5 T FMA/s = 3 TFLOP/s > bound.
    assert_eq!(
        b.caveats,
        [
            Caveat::OneBlockPerSm,
            Caveat::FmaLatency { warps_per_scheduler: 0.25, chains: 4, latency: 4 },
            Caveat::SharedAddressesUnknown { accesses: 1 },
        ]
    );
    assert_eq!(b.caveat_names(), "one-block-per-sm;fma-latency;shared-addresses-unknown");
    // Without residency, only what the code itself says.
    let b = AnalyticBound::new(&mix, &gpu, None).unwrap();
    assert_eq!(b.caveats, [Caveat::SharedAddressesUnknown { accesses: 1 }]);
    // A slow DRAM binds without L2 reuse.
    let slow = GpuThroughput { dram_gbps: 10.0, ..gpu };
    let b = AnalyticBound::new(&mix, &slow, None).unwrap();
    assert!(matches!(b.caveats[1], Caveat::DramWithoutL2Reuse { tflops } if (tflops - 0.03).abs() < 1e-12));
}

/// A `cp.async` moves bytes through global and shared memory but issues
/// once (one `LDGSTS`): counting it as a load and a store put a measured
/// FMA ring kernel 5.6% over its issue bound (tuning/sm_90-wgmma/run24).
#[test]
fn an_async_copy_issues_once() {
    let mut kernel = hand_kernel();
    let before = LoopMix::of(&kernel).mix;
    let at = kernel.body.iter().position(|s| matches!(s, Stmt::Label(_))).unwrap() + 1;
    let named = |name: &str| {
        let index = kernel.regs.iter().position(|r| r.name == name).unwrap();
        crate::ptx::Reg { index: index as u32, ty: kernel.regs[index].ty }
    };
    let (ptr, a16) = (named("ptr"), named("a16"));
    let copy = Instr::cp_async_zfill(
        CpAsyncCache::Cg,
        Address::reg(a16, 0),
        Address::reg(ptr, 0),
        16,
        Operand::imm(16),
    );
    kernel.body.insert(at, Stmt::Instr { guard: None, instr: copy });
    let after = LoopMix::of(&kernel).mix;
    assert_eq!(after.async_copies, before.async_copies + 1);
    assert_eq!(after.issued(), before.issued() + 1);
    assert_eq!(after.global_load_bytes, before.global_load_bytes + 16);
    assert_eq!(after.shared_store_bytes, before.shared_store_bytes + 16);
}

#[test]
fn the_main_loop_is_named_or_the_one_with_most_fmas() {
    let mut b = KernelBuilder::new("loops");
    let x = b.reg("x", Type::F32);
    let p = b.reg("p", Type::Pred);
    let small = b.label("small");
    let big = b.label("big");
    let skip = b.label("skip");
    b.push(Instr::setp(Cmp::Eq, Type::F32, p, x, Operand::f32(0.0)));
    b.push_if(p, Instr::bra(skip)); // forward: not a loop
    b.place(small);
    b.push(Instr::fma(x, x, x, x));
    b.push_if(p, Instr::bra(small));
    b.place(big);
    for _ in 0..3 {
        b.push(Instr::fma(x, x, x, x));
    }
    b.push_if(p, Instr::bra(big));
    b.push(Instr::fma(x, x, x, x));
    b.push_if(p, Instr::bra(big)); // the last backward branch ends the loop
    b.place(skip);
    b.push(Instr::ret());
    let kernel = b.finish();
    let (label, body) = main_loop(&kernel).unwrap();
    assert_eq!(kernel.labels[label], "big");
    assert_eq!(InstrMix::of(&kernel.body[body]).fma_f32, 4);

    // No backward branch: the whole body, flagged.
    let mut b = KernelBuilder::new("straight");
    let y = b.reg("y", Type::F64);
    b.push(Instr::fma(y, y, y, y));
    b.push(Instr::ret());
    let kernel = b.finish();
    assert_eq!(main_loop(&kernel), None);
    let mix = LoopMix::of(&kernel);
    assert_eq!((mix.region.clone(), mix.mix.fma_f64, mix.mix.total()), (Region::WholeBody, 1, 2));
    let bound = AnalyticBound::new(&mix, &unit_gpu(), None).unwrap();
    assert_eq!((bound.pipe, bound.caveats.as_slice()), (Pipe::Fp64, &[Caveat::NoLoop][..]));
    // 64 FP64 lanes and 4 × 32 × 1/2 issue slots tie: the FMA units are
    // named first.
    assert_eq!((bound.limiter, bound.issue_tflops), (Limiter::FmaUnits, bound.fma_tflops));
}

#[test]
fn kernels_without_one_fma_pipe_are_refused() {
    let mut b = KernelBuilder::new("mixed");
    let (s, d) = (b.reg("s", Type::F32), b.reg("d", Type::F64));
    b.push(Instr::fma(s, s, s, s));
    b.push(Instr::fma(d, d, d, d));
    let mix = LoopMix::of(&b.finish());
    let err = AnalyticBound::new(&mix, &unit_gpu(), None).unwrap_err();
    assert_eq!(err, BoundError::MixedPipes { kernel: "mixed".into(), fp32: 1, fp64: 1 });
    assert!(err.to_string().contains("1 `fma.f32` and 1 `fma.f64`"), "{err}");
    let mix = LoopMix::of(&KernelBuilder::new("empty").finish());
    assert_eq!(
        AnalyticBound::new(&mix, &unit_gpu(), None).unwrap_err().to_string(),
        "kernel `empty` has no `fma` in its main loop: nothing to bound"
    );
    let mix = LoopMix::of(&hand_kernel());
    let none = Residency { threads_per_block: 32, blocks_per_sm: 0 };
    assert_eq!(
        AnalyticBound::new(&mix, &unit_gpu(), Some(none)),
        Err(BoundError::Residency("blocks_per_sm"))
    );
}

#[test]
fn the_table_has_the_datasheet_peaks() {
    let peak = |sm: (u32, u32), pipe| {
        GpuThroughput::datasheet(ComputeCapability::new(sm.0, sm.1)).unwrap().peak_tflops(pipe)
    };
    for (sm, fp32, fp64) in
        [((8, 0), 19.49, 9.75), ((8, 6), 31.24, 0.49), ((8, 9), 30.29, 0.47), ((9, 0), 66.91, 33.45)]
    {
        assert!((peak(sm, Pipe::Fp32) - fp32).abs() < 0.01, "{sm:?}: {}", peak(sm, Pipe::Fp32));
        assert!((peak(sm, Pipe::Fp64) - fp64).abs() < 0.01, "{sm:?}: {}", peak(sm, Pipe::Fp64));
    }
    let h100 = h100();
    assert_eq!((h100.sm_count, h100.clock_ghz, h100.source), (132, 1.98, PeakSource::Datasheet));
    assert_eq!(
        h100.to_string(),
        "NVIDIA H100 80GB HBM3 (sm_90): 132 SMs at 1.980 GHz, FP32 66.9 / FP64 33.5 TFLOP/s, 3350 GB/s (datasheet)"
    );
    let err = GpuThroughput::datasheet(ComputeCapability::new(6, 1)).unwrap_err();
    assert!(
        err.to_string().starts_with("no FMA throughput is known for sm_61: use one of sm_70, sm_75"),
        "{err}"
    );
}

#[test]
fn a_measured_peak_calibrates_the_clock_and_fp64_lanes() {
    let m = h100().with_measured(60.0, 25.0, 3000.0).unwrap();
    assert!((m.clock_ghz - 60e3 / (2.0 * 132.0 * 128.0)).abs() < 1e-12);
    assert!((m.peak_tflops(Pipe::Fp32) - 60.0).abs() < 1e-9);
    assert!((m.peak_tflops(Pipe::Fp64) - 25.0).abs() < 1e-9);
    assert_eq!((m.dram_gbps, m.source, m.fp32_lanes), (3000.0, PeakSource::Measured, 128.0));
    for bad in [(0.0, 1.0, 1.0), (1.0, f64::NAN, 1.0), (1.0, 1.0, -3.0)] {
        let err = h100().with_measured(bad.0, bad.1, bad.2).unwrap_err();
        assert!(err.to_string().contains("must be a positive number"), "{err}");
    }
    assert!(GpuThroughput::for_device(ComputeCapability::new(9, 0), "x", 0, 1.0, None).is_err());
}

fn spec(text: &str) -> KernelSpec {
    text.parse().unwrap()
}

#[test]
fn stencil_loops_count_what_the_stencil_does() {
    for text in [
        "precision = f32, op = (N, N), tile = (96, 96, 16), threads = (16, 16), load_a = (32, 8), load_b = (8, 32)",
        "precision = f64, op = (T, N), tile = (96, 96, 12), threads = (24, 16), load_a = (12, 32), load_b = (12, 32), lds_width = 2",
        "precision = c32, op = (N, T), tile = (64, 64, 16), threads = (8, 16), load_a = (16, 8), load_b = (16, 8)",
        "precision = c64, op = (C, T), tile = (16, 24, 8), threads = (8, 8), load_a = (4, 16), load_b = (8, 8)",
    ] {
        let spec = spec(text);
        let plan = crate::validate(&spec).unwrap();
        let module = crate::lower(&plan);
        let mix = LoopMix::of(&module.kernels[0]);
        let m = mix.mix;
        let (m_thr, n_thr, k) = (plan.m_thr(), plan.n_thr(), spec.k_blk);
        let complex = if spec.precision.is_complex() { 4 } else { 1 };
        let esz = spec.precision.element_bytes();
        assert!(matches!(&mix.region, Region::Loop { label, .. } if label == "main_loop"), "{text}");
        assert_eq!(m.fmas(), k * m_thr * n_thr * complex, "{text}");
        assert_eq!(mix.fma_chains, m_thr * n_thr * if spec.precision.is_complex() { 2 } else { 1 }, "{text}");
        assert_eq!(m.shared_loads, k * (m_thr + n_thr) / spec.lds_width, "{text}");
        assert_eq!(m.shared_load_bytes, k * (m_thr + n_thr) * esz, "{text}");
        let staged = (plan.stripe_a().per_thread() + plan.stripe_b().per_thread()) as u32;
        assert_eq!((m.shared_stores, m.shared_store_bytes), (staged, staged * esz), "{text}");
        assert_eq!((m.global_loads, m.global_load_bytes), (staged, staged * esz), "{text}");
        assert_eq!((m.barriers, m.global_stores), (2, 0), "{text}");
        // The inner product's -im of A feeds FMAs only; a conjugating
        // mover's negation of what it loaded is stored, so it is issued.
        assert_eq!(m.folded, if spec.precision.is_complex() { k * m_thr } else { 0 }, "{text}");
        let conjugated = if spec.op_a == Op::C { plan.stripe_a().per_thread() } else { 0 }
            + if spec.op_b == Op::C { plan.stripe_b().per_thread() } else { 0 };
        let Region::Loop { body, .. } = &mix.region else { unreachable!() };
        let negs = InstrMix::of(&module.kernels[0].body[body.clone()]).folded
            + module.kernels[0].body[body.clone()]
                .iter()
                .filter(|s| matches!(s, Stmt::Instr { instr: Instr::Unary { op: UnOp::Neg, .. }, .. }))
                .count() as u32;
        assert_eq!(negs, 2 * m.folded + conjugated as u32, "{text}");
        // Every shared address is known, for every thread of the block.
        assert_eq!((mix.shared.threads, mix.shared.unknown), (spec.block().0, 0), "{text}");
        let bound = AnalyticBound::of_plan(&plan, &h100(), None).unwrap();
        assert!(bound.tflops > 0.0 && bound.tflops <= bound.fma_tflops, "{text}");
        assert_eq!(bound.pipe, Pipe::of(spec.precision));
    }
}

#[test]
fn table2_sgemm_shared_cycles_by_hand() {
    // 16 × 16 threads, lds_width 1 (so a skew of 1: rows of 97 words). A
    // warp is two rows of 16 threads (tx = lane mod 16, ty = 2w + lane div 16).
    // - Loads, 12 per k: A reads 16 consecutive words (tx), each by two
    //   lanes, B 2 words (ty): one cycle each; 16 × 12 = 192 per warp.
    // - A stores, 6: load_a = (32, 8) puts lane l at m = l, one k: 32
    //   consecutive words, one cycle each.
    // - B stores, 6: load_b = (8, 32) puts lane l at k = l mod 8, n = 4w +
    //   l div 8: bank (97 k + n) mod 32 = (k + n) mod 32, and k + (l div 8)
    //   takes one value four times (k + j = 3..7): four cycles each.
    // 192 + 6 + 24 = 222 cycles per warp and trip, eight warps.
    let spec = spec(
        "precision = f32, op = (N, N), tile = (96, 96, 16), threads = (16, 16), load_a = (32, 8), load_b = (8, 32)",
    );
    let mix = LoopMix::of(&crate::lower(&crate::validate(&spec).unwrap()).kernels[0]);
    assert_eq!(mix.shared, SharedCycles { threads: 256, cycles: 8 * 222, unknown: 0, fewest: 8 * 204 });
}

/// Wider shared loads never lower the bound where the quarter warps of a
/// 16-byte load each read one aligned run of A and one element of B:
/// thread grids whose sides are multiples of 16. Elsewhere a wide load can
/// cost more wavefronts than the narrow loads it replaces (`threads = (12,
/// 8)`: a quarter warp reads bytes 128–191 and 0–63 of A's row, the same
/// banks twice; `(8, 8)` with f64: each quarter warp reads B's run of
/// another `ty`, four wavefronts where two 8-byte loads take one each),
/// which the quarter-warp phases of [`super::lanes`] see and the hardware
/// does.
#[test]
fn a_wider_lds_width_never_lowers_the_bound() {
    let h100 = h100();
    let limits = DeviceLimits::for_arch("sm_90").unwrap();
    let mut compared = 0;
    for precision in crate::Precision::ALL {
        let space = SearchSpace::new(precision, Op::N, Op::T, limits.clone())
            .with_guidelines(Guidelines::table1(precision));
        for c in space.sample(240) {
            let narrow = KernelSpec { lds_width: 1, ..c.spec };
            if !narrow.m_dim.is_multiple_of(16) || !narrow.n_dim.is_multiple_of(16) {
                continue;
            }
            let Ok(plan) = crate::validate(&narrow) else { continue };
            let base = AnalyticBound::of_plan(&plan, &h100, None).unwrap();
            for w in [2, 4] {
                let Ok(plan) = crate::validate(&KernelSpec { lds_width: w, ..narrow }) else { continue };
                let wide = AnalyticBound::of_plan(&plan, &h100, None).unwrap();
                let (s0, s1) = (base.shared_tflops.unwrap(), wide.shared_tflops.unwrap());
                assert!(s1 >= s0 * (1.0 - 1e-12), "{narrow}: shared {s0} -> {s1} at lds_width {w}");
                assert!(wide.issue_tflops >= base.issue_tflops, "{narrow}: issue at lds_width {w}");
                assert!(wide.tflops >= base.tflops * (1.0 - 1e-12), "{narrow}: bound at lds_width {w}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 30, "only {compared} comparisons");
}

/// A DGEMM on the FP64 tensor cores is bounded by their rate, twice the
/// FP64 FMA lanes on the H100, not by the FMA units; a ZGEMM likewise.
#[test]
fn tensor_core_kernels_are_bounded_by_the_tensor_cores() {
    let gpu = h100();
    for text in [
        "precision = f64, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), \
         load_b = (8, 32), lds_width = 2, arch = sm_90, stages = 3, ldg_width = 2, warps = (2, 4), \
         raster = 8, frag_sets = 2, interleave = 2, math = dmma, mma = (16, 8, 4)",
        "precision = c64, op = (N, T), tile = (64, 128, 16), threads = (16, 16), load_a = (64, 4), \
         load_b = (128, 2), lds_width = 1, arch = sm_90, stages = 3, warps = (2, 4), frag_sets = 2, \
         interleave = 2, math = dmma, mma = (16, 8, 4)",
    ] {
        let spec: crate::KernelSpec = text.parse().unwrap();
        let plan = crate::validate(&spec).unwrap();
        let bound = AnalyticBound::of_plan(&plan, &gpu, None).unwrap();
        assert_eq!(bound.pipe, Pipe::Fp64, "{text}");
        assert!(bound.mix.mma > 0 && bound.mix.mma_kind == Some(MmaKind::F64), "{text}");
        assert_eq!(bound.mix.fmas(), 0, "{text}");
        let dmma_peak = gpu.tflops(gpu.dmma_lanes);
        assert!((bound.fma_tflops - dmma_peak).abs() < 1e-9, "{text}");
        assert!((dmma_peak / gpu.peak_tflops(Pipe::Fp64) - 2.0).abs() < 1e-9);
        assert!(bound.tflops <= dmma_peak && bound.tflops > gpu.peak_tflops(Pipe::Fp64), "{bound:?}");
    }
    // tf32x3: three TF32 products per product, bounded at a third of the
    // TF32 tensor cores' rate; 1xTF32 at the whole rate.
    let tf32 = "precision = f32, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (32, 8), \
                load_b = (4, 64), lds_width = 4, arch = sm_90, stages = 3, ldg_width = 4, warps = (2, 4), \
                frag_sets = 2, math = tf32x3, mma = (16, 8, 8)";
    let spec: crate::KernelSpec = tf32.parse().unwrap();
    let x3 = AnalyticBound::of_plan(&crate::validate(&spec).unwrap(), &gpu, None).unwrap();
    let one = crate::KernelSpec { math: crate::Math::Tf32, ..spec };
    let x1 = AnalyticBound::of_plan(&crate::validate(&one).unwrap(), &gpu, None).unwrap();
    assert_eq!(x3.mix.mma_kind, Some(MmaKind::Tf32));
    assert_eq!(x3.mix.mma, 3 * x1.mix.mma, "three products per product");
    let tf32_peak = gpu.tflops(gpu.tf32_lanes);
    assert!((x1.fma_tflops - tf32_peak).abs() < 1e-9 && (3.0 * x3.fma_tflops - tf32_peak).abs() < 1e-6);
    assert!(x3.tflops <= tf32_peak / 3.0 + 1e-9 && x3.tflops > gpu.peak_tflops(Pipe::Fp32), "{x3:?}");
    // An FMA kernel's bound stays on the FMA units.
    let measured = gpu.with_measured(66.0, 33.0, 3000.0).unwrap();
    assert!(
        (measured.tflops(measured.dmma_lanes) - 66.0).abs() < 1e-9,
        "the tensor rate follows the FP64 one"
    );
}

/// A warp-specialized kernel is bounded by its consumers' loop (its
/// `main_loop`): the tensor cores, as the same tile without a producer;
/// the producer's loop, with no multiply-add in it, is not the one counted.
#[test]
fn a_warp_specialized_kernel_is_bounded_by_its_consumers() {
    let gpu = h100();
    let base = "precision = f32, op = (N, N), tile = (128, 128, 32), threads = (64, 4), lds_width = 4, \
                arch = sm_90a, stages = 3, ldg_width = 4, warps = (8, 1), math = tf32x3, mma = (64, 128, 8)";
    let shared = spec(&format!("{base}, load_a = (32, 8), load_b = (8, 32)"));
    let ws = spec(&format!("{base}, load_a = (32, 4), load_b = (8, 16), producers = 1"));
    let [shared, ws] =
        [shared, ws].map(|s| AnalyticBound::of_plan(&crate::validate(&s).unwrap(), &gpu, None).unwrap());
    assert_eq!(ws.mix.mma_kind, Some(MmaKind::Tf32));
    assert_eq!(ws.mix.mma, 2 * shared.mix.mma, "two stripes an iteration");
    assert_eq!(ws.limiter, Limiter::FmaUnits);
    assert!((ws.tflops - shared.fma_tflops).abs() < 1e-9, "{ws:?}");
}

/// DGEMM/ZGEMM kernels' fragment loads take the fewest shared-memory
/// wavefronts (each warp access `32 × bytes / 128` cycles), by the phases of
/// [`super::lanes`]: K-major stripes through their 32-byte skew
/// (`constraints::DMMA_SKEW_BYTES`; with the 16-byte one a DGEMM NT at 16384
/// had 12.9 G bank conflicts on the H200, ncu), K-contiguous ones through
/// their chunk swizzle. The shipped sm_90 kernels' specs of each op pair.
#[test]
fn dmma_fragment_loads_take_the_fewest_wavefronts() {
    let common =
        "arch = sm_90, stages = 3, warps = (2, 4), raster = 8, frag_sets = 2, math = dmma, mma = (16, 8, 4)";
    let shipped = [
        ("f64", "N, T", "128, 128, 16", "64, 4", "64, 4", ", lds_width = 2, ldg_width = 2, interleave = 4"),
        ("f64", "N, N", "128, 128, 16", "64, 4", "8, 32", ", lds_width = 2, ldg_width = 2, interleave = 2"),
        ("f64", "T, N", "128, 128, 16", "8, 32", "8, 32", ", lds_width = 2, ldg_width = 2, interleave = 4"),
        ("f64", "T, T", "128, 128, 16", "8, 32", "64, 4", ", lds_width = 2, ldg_width = 2, interleave = 2"),
        ("c64", "N, N", "64, 128, 16", "64, 4", "16, 16", ", interleave = 2"),
        ("c64", "T, N", "64, 128, 16", "16, 16", "16, 16", ", interleave = 2"),
    ];
    for (precision, op, tile, a, b, extra) in shipped {
        let text = format!(
            "precision = {precision}, op = ({op}), tile = ({tile}), threads = (16, 16), load_a = ({a}), \
             load_b = ({b}){extra}, {common}"
        );
        let shared = LoopMix::of_plan(&crate::validate(&spec(&text)).unwrap()).shared;
        let SharedCycles { unknown, fewest, .. } = shared;
        eprintln!("{precision} {op}: {shared:?}");
        assert_eq!(shared.conflicts(), 0, "{text}: bank conflicts");
        // The loads after the ring's hand-off (a slot chosen by `selp`) stay
        // unknown; a stripe's others are known.
        assert!(fewest > 4 * unknown, "{text}: most accesses known");
    }
}
