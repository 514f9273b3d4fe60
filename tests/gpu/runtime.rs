//! On the GPU: device discovery, kernel loading and its cache, what the JIT
//! reports, JIT errors, the raw-pointer layer, streams, timing, and the
//! buffer helpers for every element type.
//!
//! Without a GPU each test prints `skipping: no CUDA GPU (<reason>)` and
//! passes; with `GEMMFORGE_REQUIRE_GPU=1` it fails instead.

use std::sync::Arc;

use crate::common::{Failures, Launcher, gpu, run_case, say};
use cudarc::driver::{DevicePtr, DevicePtrMut};
use gemm_codegen::{Element, KernelSpec, Op, Precision};
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::{Gemm, GemmConfig, GemmError, Layout};

#[test]
fn device_info() {
    let Some(gemm) = gpu() else { return };
    let d = gemm.device();
    say(&format!("{d:#?}"));
    match d.device_limits() {
        Ok(limits) => say(&format!("{limits:#?}")),
        Err(e) => say(&format!("no architecture table entry: {e}")),
    }
    assert!(d.arch() >= 70, "gemmforge kernels need sm_70 or newer, found sm_{}", d.arch());
    assert_eq!(d.warp_size, 32);
    assert!(d.sm_count > 0 && d.max_threads_per_block >= 1024 && d.regs_per_sm >= 65536);
    assert!(d.shared_per_block >= 48 * 1024 && d.shared_per_block_optin >= d.shared_per_block);
    assert!(d.max_grid.1 >= 65535);
    assert!(d.driver_version >= 11000, "driver {}", d.driver_version);
    assert!(gemm_host::device::device_count().unwrap() >= 1);
}

#[test]
fn kernels_load_once_and_report_their_resources() {
    let Some(gemm) = gpu() else { return };
    let mut lines = vec![format!(
        "{:<12} {:>5} {:>6} {:>7} {:>6} {:>9} {:>9}",
        "kernel", "regs", "spill", "shared", "blk/SM", "occupancy", "JIT ms"
    )];
    for entry in gemm_kernels::all() {
        let kernel = gemm.load(&entry.image()).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        let info = *kernel.info();
        assert!((1..=255).contains(&info.registers), "{}: {info:?}", entry.name);
        // Static shared memory as declared, give or take alignment padding.
        assert!(
            (entry.shared_bytes..=entry.shared_bytes + 64).contains(&info.shared_bytes),
            "{}: {info:?}",
            entry.name
        );
        assert_eq!(u64::from(info.block_threads), entry.spec.block_threads());
        assert!(info.occupancy > 0.0 && info.occupancy <= 1.0, "{}: {info:?}", entry.name);
        kernel.launchable().unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        let again = gemm.load(&entry.image()).unwrap();
        assert!(Arc::ptr_eq(&kernel, &again), "{} loaded twice", entry.name);
        lines.push(format!(
            "{:<12} {:>5} {:>6} {:>7} {:>6} {:>9.3} {:>9.2}",
            entry.name,
            info.registers,
            info.local_bytes,
            info.shared_bytes,
            info.blocks_per_sm,
            info.occupancy,
            info.load_time.as_secs_f64() * 1e3
        ));
    }
    let distinct: std::collections::HashSet<_> = gemm_kernels::all().map(|e| (e.entry, e.ptx)).collect();
    // Other tests of this binary may load more kernels into the context.
    assert!(gemm.loaded_kernels() >= distinct.len());
    // Another runner on the same context shares the loaded kernels.
    let other = Gemm::new(gemm.context().default_stream()).unwrap();
    let entry = gemm_kernels::table2(Precision::C64, Op::C, Op::T);
    assert!(Arc::ptr_eq(&other.load(&entry.image()).unwrap(), &gemm.load(&entry.image()).unwrap()));
    say(&lines.join("\n"));
}

#[test]
fn rejected_ptx_reports_the_jit_log() {
    let Some(gemm) = gpu() else { return };
    let mut image = gemm_kernels::table2(Precision::F32, Op::N, Op::N).image();
    image.ptx = image.ptx.replacen("bar.sync", "bar.snyc", 1).into();
    let err = gemm.load(&image).unwrap_err();
    say(&format!("{err}"));
    match &err {
        GemmError::Load { log, .. } => assert!(!log.trim().is_empty(), "no JIT log: {err}"),
        other => panic!("expected a load error, got {other}"),
    }
    // PTX the driver cannot be handed at all.
    image.ptx = format!("{}\0", gemm_kernels::table2(Precision::F32, Op::N, Op::N).ptx).into();
    assert!(matches!(gemm.load(&image), Err(GemmError::PtxNul { .. })));
}

/// A kernel loads from its PTX assembled ahead by `ptxas` (what `cargo xtask
/// tune` does to skip the JIT) and computes what the JIT's would; bytes
/// that are no cubin are a typed load error.
#[test]
fn kernels_load_from_cubins() {
    let Some(gemm) = gpu() else { return };
    // A kernel no other test loads: the cache would answer for it.
    let spec = KernelSpec { lds_width: 2, ..gemm_kernels::table2(Precision::F64, Op::T, Op::N).spec };
    let image = gemm_codegen::compile(&spec).unwrap_or_else(|v| panic!("{spec}: {}", v[0]));
    let err = gemm.load_assembled(&image, b"not a cubin").unwrap_err();
    assert!(matches!(err, GemmError::Load { .. }), "expected a load error, got {err}");
    let ptxas = std::env::var_os("GEMMFORGE_PTXAS")
        .map(std::path::PathBuf::from)
        .or_else(|| Some("/usr/local/cuda/bin/ptxas".into()))
        .filter(|p| p.is_file());
    let Some(ptxas) = ptxas else {
        return say("skipping the cubin half: no ptxas (set GEMMFORGE_PTXAS)");
    };
    let dir = std::env::temp_dir().join(format!("gemmforge-cubin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ptx, cubin) = (dir.join("k.ptx"), dir.join("k.cubin"));
    std::fs::write(&ptx, image.ptx.as_bytes()).unwrap();
    let arch = format!("sm_{}", gemm.device().arch());
    let status =
        std::process::Command::new(&ptxas).args(["-arch", &arch, "-o"]).arg(&cubin).arg(&ptx).status();
    assert!(status.as_ref().is_ok_and(|s| s.success()), "{}: {status:?}", ptxas.display());
    let kernel = gemm.load_assembled(&image, &std::fs::read(&cubin).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(kernel.info().registers > 0, "{:?}", kernel.info());
    assert!(Arc::ptr_eq(&kernel, &gemm.load(&image).unwrap()), "cached under its image");
    let mut rng = Random::new(17);
    let mut failures = Failures::default();
    let launch: &Launcher<'_, f64> = &|cfg, a, b, c| gemm.gemm_loaded(&kernel, cfg, a, b, c);
    for &shape in crate::common::EDGE {
        let cfg =
            crate::common::config(Layout::ColMajor, (Op::T, Op::N), shape, 3, (rng.scalar(), rng.scalar()));
        failures.record(run_case(&gemm, &mut rng, &cfg, launch));
    }
    failures.finish("a kernel loaded from its cubin");
}

#[test]
fn raw_pointer_layer() {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(5);
    let mut failures = Failures::default();
    let stream = Arc::clone(gemm.stream());
    let launch: &Launcher<'_, Complex<f64>> = &|cfg, a, b, c| {
        let (a, _ra) = a.device_ptr(&stream);
        let (b, _rb) = b.device_ptr(&stream);
        let (c, _rc) = c.device_ptr_mut(&stream);
        // SAFETY: the pointers come from live views that run_case sized for
        // `cfg` and keeps alive until after it has synchronized; C is a
        // separate allocation from A and B; all work is on this stream.
        unsafe { gemm.gemm_raw(cfg, a, b, c) }
    };
    for ops in [(Op::N, Op::N), (Op::C, Op::T)] {
        for layout in [Layout::ColMajor, Layout::RowMajor] {
            let pair = (rng.scalar(), rng.scalar());
            let cfg = crate::common::config(layout, ops, (45, 71, 33), 2, pair);
            failures.record(run_case(&gemm, &mut rng, &cfg, launch));
        }
    }
    failures.finish("gemm_raw");
}

#[test]
fn another_stream_orders_against_the_first() {
    let Some(gemm) = gpu() else { return };
    let other = gemm.context().new_stream().expect("a second stream");
    let gemm2 = gemm.with_stream(other).expect("same context");
    let mut rng = Random::new(9);
    let cfg = GemmConfig::<f32>::new(Op::N, Op::T, 300, 200, 100).beta(1.0);
    let a_host: Vec<f32> = rng.matrix(cfg.a_len());
    let b_host: Vec<f32> = rng.matrix(cfg.b_len());
    let c_host: Vec<f32> = rng.matrix(cfg.c_len());
    // Buffers made on the first stream, used on the second, read back on the first.
    let a = gemm.upload(&a_host).unwrap();
    let b = gemm.upload(&b_host).unwrap();
    let mut c = gemm.upload(&c_host).unwrap();
    for _ in 0..3 {
        gemm2.sgemm(&cfg, &a, &b, &mut c).unwrap();
    }
    let got = reference::logical_c(&cfg, &gemm.download(&c).unwrap());
    let once = reference::gemm(&cfg, &a_host, &b_host, &c_host).unwrap();
    let c1: Vec<f32> = once.iter().map(|z| z.re as f32).collect();
    let twice = reference::gemm(&cfg, &a_host, &b_host, &c1).unwrap();
    let c2: Vec<f32> = twice.iter().map(|z| z.re as f32).collect();
    let thrice = reference::gemm(&cfg, &a_host, &b_host, &c2).unwrap();
    let err = reference::relative_error(&got, &thrice);
    assert!(err < 1e-5, "three accumulating GEMMs on a second stream: error {err:e}");
}

#[test]
fn timing_with_events() {
    let Some(gemm) = gpu() else { return };
    let n = 1024;
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, n, n, n);
    let a = gemm.upload(&vec![1.0f32; cfg.a_len()]).unwrap();
    let b = gemm.upload(&vec![1.0f32; cfg.b_len()]).unwrap();
    let mut c = gemm.alloc_zeros::<f32>(cfg.c_len()).unwrap();
    gemm.sgemm(&cfg, &a, &b, &mut c).unwrap();
    let ((), ms) = gemm.time(|| gemm.sgemm(&cfg, &a, &b, &mut c)).unwrap();
    assert!(ms > 0.0);
    say(&format!(
        "sgemm n = {n}: {ms:.3} ms, {:.2} TFLOP/s",
        2.0 * (n as f64).powi(3) / (ms as f64 * 1e-3) / 1e12
    ));
    assert!(gemm.download(&c).unwrap().iter().all(|&x| x == n as f32));
}

fn round_trip<T: Element>(gemm: &Gemm, rng: &mut Random) {
    for len in [0, 1, 1000] {
        let host: Vec<T> = rng.matrix(len);
        let dev = gemm.upload(&host).unwrap();
        assert_eq!(gemm.download(&dev).unwrap(), host, "{} len {len}", T::PRECISION);
        let zeros = gemm.alloc_zeros::<T>(len).unwrap();
        assert!(gemm.download(&zeros).unwrap().iter().all(|&x| x == T::ZERO));
        // Into a view of a longer buffer.
        let mut long = gemm.alloc_zeros::<T>(len + 8).unwrap();
        gemm.upload_into(&host, &mut long.slice_mut(4..4 + len)).unwrap();
        let all = gemm.download(&long).unwrap();
        assert_eq!(&all[4..4 + len], &host[..]);
        assert!(all[..4].iter().chain(&all[4 + len..]).all(|&x| x == T::ZERO));
    }
    let mut short = gemm.alloc_zeros::<T>(3).unwrap();
    let err = gemm.upload_into(&[T::ONE; 4], &mut short).unwrap_err();
    assert!(matches!(err, GemmError::LengthMismatch { host: 4, device: 3, .. }), "{err}");
}

#[test]
fn buffers_of_every_element_type() {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(3);
    round_trip::<f32>(&gemm, &mut rng);
    round_trip::<f64>(&gemm, &mut rng);
    round_trip::<Complex<f32>>(&gemm, &mut rng);
    round_trip::<Complex<f64>>(&gemm, &mut rng);
    // Complex data keeps its imaginary parts through a GEMM: (1 + 2i)(3 - i) = 5 + 5i.
    let cfg = GemmConfig::<Complex<f32>>::new(Op::N, Op::N, 1, 1, 1);
    let a = gemm.upload(&[Complex::new(1.0, 2.0)]).unwrap();
    let b = gemm.upload(&[Complex::new(3.0, -1.0)]).unwrap();
    let mut c = gemm.alloc_zeros(1).unwrap();
    gemm.cgemm(&cfg, &a, &b, &mut c).unwrap();
    assert_eq!(gemm.download(&c).unwrap(), [Complex::new(5.0, 5.0)]);
}
