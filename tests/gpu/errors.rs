//! On the GPU: every rejected call leaves its buffers bit for bit as they
//! were and launches nothing; BLAS's quick returns and the `alpha = 0` path
//! never read A or B, and `beta = 0` never reads C.
//!
//! Without a GPU each test prints `skipping: no CUDA GPU (<reason>)` and
//! passes; with `GEMMFORGE_REQUIRE_GPU=1` it fails instead.

use crate::common::{Guarded, gpu, matrix_buffer, poison};
use gemm_codegen::{Element, GemmKernel, Op, Precision};
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::validate::{Arg, ArgError};
use gemm_host::{Gemm, GemmConfig, GemmError, Matrix};
use gemm_kernels::{DgemmNN, SgemmNN};

/// Guarded random A, B, C for `cfg`.
fn buffers<T: Element>(gemm: &Gemm, rng: &mut Random, cfg: &GemmConfig<T>) -> [Guarded<T>; 3] {
    [Matrix::A, Matrix::B, Matrix::C].map(|m| Guarded::new(gemm, &matrix_buffer(cfg, m, || rng.element())))
}

fn assert_untouched<T: Element>(gemm: &Gemm, what: &str, bufs: [&Guarded<T>; 3]) {
    gemm.synchronize().expect("synchronize");
    for (name, buf) in ["A", "B", "C"].iter().zip(bufs) {
        let changed = buf.changed(&buf.download(gemm));
        assert!(changed.is_empty(), "{what}: {} element(s) of {name} changed", changed.len());
    }
}

fn arg_of(err: &GemmError) -> Option<Arg> {
    err.as_arg().map(ArgError::arg)
}

#[test]
fn argument_errors_leave_every_buffer_untouched() {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(1);
    let good = GemmConfig::<f32>::new(Op::N, Op::N, 33, 17, 9).alpha(1.5).beta(0.5);
    let [a, b, mut c] = buffers(&gemm, &mut rng, &good);
    let image = SgemmNN::image();

    let cases: Vec<(GemmConfig<f32>, Arg)> = vec![
        (GemmConfig { op_a: Op::T, ..good }, Arg::OpA),
        (GemmConfig { op_b: Op::C, ..good }, Arg::OpB),
        (GemmConfig { m: -1, ..good }, Arg::M),
        (GemmConfig { n: -1, ..good }, Arg::N),
        (GemmConfig { k: -1, ..good }, Arg::K),
        (good.lda(32), Arg::Lda),
        (good.ldb(8), Arg::Ldb),
        (good.ldc(0), Arg::Ldc),
        // Extents beyond the buffers.
        (good.lda(34), Arg::A),
        (GemmConfig { n: 18, ..good }, Arg::B),
    ];
    for (cfg, arg) in cases {
        let err = gemm.gemm_image(&image, &cfg, &a.view(), &b.view(), &mut c.view_mut()).unwrap_err();
        assert_eq!(arg_of(&err), Some(arg), "{err}");
        assert_untouched(&gemm, &err.to_string(), [&a, &b, &c]);
    }

    // C one element short, through the named function.
    let short = good.c_len() - 1;
    let err = gemm.sgemm(&good, &a.view(), &b.view(), &mut c.prefix_mut(short)).unwrap_err();
    assert_eq!(arg_of(&err), Some(Arg::C), "{err}");

    // A kernel of another precision.
    let err = gemm.gemm_image(&DgemmNN::image(), &good, &a.view(), &b.view(), &mut c.view_mut()).unwrap_err();
    assert!(
        matches!(
            err,
            GemmError::PrecisionMismatch { kernel_precision: Precision::F64, buffers: Precision::F32, .. }
        ),
        "{err}"
    );
    assert_untouched(&gemm, "after every rejected call", [&a, &b, &c]);

    // And the untouched C is still usable: the good call succeeds.
    gemm.gemm_image(&image, &good, &a.view(), &b.view(), &mut c.view_mut()).expect("the valid call runs");
}

#[test]
fn misaligned_complex_buffers_are_rejected() {
    let Some(gemm) = gpu() else { return };
    let cfg = GemmConfig::<Complex<f32>>::new(Op::N, Op::N, 4, 4, 4);
    let scalars = gemm.upload(&[1.0f32; 2 * 16 + 1]).expect("upload");
    // SAFETY: any f32 bits are a valid Complex<f32> part; the view stays
    // within the 33-float allocation (16 elements from float 1).
    let misaligned = unsafe { scalars.slice(1..).transmute::<Complex<f32>>(16) }.expect("fits");
    let b = gemm.upload(&[Complex::new(1.0f32, 0.0); 16]).expect("upload");
    let mut c = Guarded::new(&gemm, &[Complex::new(2.0f32, 0.0); 16]);
    let err = gemm.cgemm(&cfg, &misaligned, &b, &mut c.view_mut()).unwrap_err();
    assert_eq!(arg_of(&err), Some(Arg::A), "{err}");
    assert!(matches!(err.as_arg(), Some(ArgError::Misaligned { precision: Precision::C32, .. })), "{err}");
    gemm.synchronize().expect("synchronize");
    assert!(c.changed(&c.download(&gemm)).is_empty());
}

/// `alpha = 0` (or `k = 0`) must not read A or B: fill them with NaN and
/// expect `beta · C` exactly; `beta = 0` must not read C.
fn zero_alpha<T: Element>(seed: u64) {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(seed);
    let two = reference::narrow::<T>(Complex::new(2.0, 0.0));
    for (op_a, op_b) in [(Op::N, Op::N), (Op::T, Op::C)] {
        let base = GemmConfig::<T>::new(op_a, op_b, 37, 29, 23).ldc(40);
        let nan_a = Guarded::new(&gemm, &matrix_buffer(&base, Matrix::A, poison::<T>));
        let nan_b = Guarded::new(&gemm, &matrix_buffer(&base, Matrix::B, poison::<T>));
        let c_host = matrix_buffer(&base, Matrix::C, || rng.element());
        let infinite = reference::narrow::<T>(Complex::new(f64::INFINITY, 0.0));
        let cases = [
            ("alpha = 0, beta = 2", base.alpha(T::ZERO).beta(two)),
            ("k = 0, alpha = inf, beta = 2", GemmConfig { k: 0, ..base }.alpha(infinite).beta(two)),
            ("alpha = 0, beta = 1 (quick return)", base.alpha(T::ZERO).beta(T::ONE)),
            ("m = 0 (quick return)", GemmConfig { m: 0, ..base }.beta(two)),
        ];
        for (what, cfg) in cases {
            let mut c = Guarded::new(&gemm, &c_host);
            let launch = gemm.gemm_default(&cfg, &nan_a.view(), &nan_b.view(), &mut c.view_mut());
            launch.unwrap_or_else(|e| panic!("{what}: {e}"));
            let now = c.download(&gemm);
            let expected =
                reference::gemm(&cfg, nan_a.initial_inner(), nan_b.initial_inner(), &c_host).unwrap();
            let got = reference::logical_c(&cfg, Guarded::inner(&now));
            // beta · C is one rounded product: exact agreement.
            assert!(
                got.iter().zip(&expected).all(|(g, e)| g == e),
                "{} {what}: C is not beta * C",
                T::PRECISION
            );
            let inside = |i: usize| {
                (crate::common::GUARD..crate::common::GUARD + c_host.len()).contains(&i)
                    && crate::common::in_matrix(&cfg, Matrix::C, i - crate::common::GUARD)
            };
            let stray = c.changed(&now).into_iter().filter(|&i| !inside(i)).count();
            assert_eq!(stray, 0, "{what}: writes outside C's m x n part");
        }
        // alpha = 0 and beta = 0: C = 0 without reading A, B or (NaN) C.
        let cfg = base.alpha(T::ZERO).beta(T::ZERO);
        let mut c = Guarded::new(&gemm, &matrix_buffer(&cfg, Matrix::C, poison::<T>));
        gemm.gemm_default(&cfg, &nan_a.view(), &nan_b.view(), &mut c.view_mut()).expect("launch");
        let got = reference::logical_c(&cfg, Guarded::inner(&c.download(&gemm)));
        assert!(got.iter().all(|z| z.re == 0.0 && z.im == 0.0), "{}: C is not 0", T::PRECISION);
    }
}

#[test]
fn zero_alpha_reads_neither_a_nor_b() {
    zero_alpha::<f32>(1);
    zero_alpha::<f64>(2);
    zero_alpha::<Complex<f32>>(3);
    zero_alpha::<Complex<f64>>(4);
}

/// A kernel needing more shared memory per block than any GPU allows: legal
/// only under limits raised past every architecture's.
fn too_much_shared_memory() -> gemm_codegen::KernelImage {
    let spec: gemm_codegen::KernelSpec =
        "precision = f32, op = (N, N), tile = (128, 128, 256), threads = (32, 32), \
                                          load_a = (128, 8), load_b = (8, 128)"
            .parse()
            .expect("a spec");
    let limits = gemm_codegen::Limits { max_shared_per_block: 1 << 20, ..gemm_codegen::Limits::PORTABLE };
    let plan = gemm_codegen::validate_with(&spec, &limits).expect("legal under the raised limit");
    let image = gemm_codegen::emit(&plan);
    // Above the largest opt-in limit of any GPU so far (227 KiB).
    assert!(image.launch().dynamic_shared_bytes > 227 << 10, "{} bytes", image.launch().dynamic_shared_bytes);
    image
}

/// The one shared-memory check, at load, refuses the kernel on both paths:
/// `Gemm::load` (the tuner's) and a GEMM call, which loads it first; the
/// call launches nothing.
#[test]
fn shared_memory_beyond_the_device_is_refused_at_load() {
    let image = too_much_shared_memory();
    let Some(gemm) = gpu() else { return };
    let cached = gemm.loaded_kernels();
    let unlaunchable = |err: &GemmError| {
        matches!(err, GemmError::Unlaunchable { shared_bytes, .. }
            if *shared_bytes > gemm.device().shared_per_block_optin)
    };
    let err = gemm.load(&image).unwrap_err();
    assert!(unlaunchable(&err), "{err}");

    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 128, 128, 256);
    let mut rng = Random::new(3);
    let [a, b, mut c] = buffers(&gemm, &mut rng, &cfg);
    let err = gemm.gemm_image(&image, &cfg, &a.view(), &b.view(), &mut c.view_mut()).unwrap_err();
    assert!(unlaunchable(&err), "{err}");
    assert_untouched(&gemm, &err.to_string(), [&a, &b, &c]);
    assert_eq!(gemm.loaded_kernels(), cached, "a refused kernel is not cached");
}

/// PTX of an ISA version newer than the driver reads (a shipped kernel's
/// text declaring `.version 9.9`) is refused at load with the typed error
/// naming both versions, on `Gemm::load` and on a call, which then leaves
/// its buffers untouched.
#[test]
fn ptx_newer_than_the_driver_is_a_typed_error() {
    let Some(gemm) = gpu() else { return };
    let mut image = SgemmNN::image();
    let text = image.ptx.to_string();
    let declared = text.lines().find(|l| l.starts_with(".version")).expect("a .version line").to_owned();
    image.ptx = text.replacen(&declared, ".version 9.9", 1).into();
    image.entry = format!("{}_ptx99", image.entry).into();
    image.ptx = image.ptx.replace(SgemmNN::image().entry.as_ref(), image.entry.as_ref()).into();
    let driver = gemm.device().driver_version_pair();
    let too_new = |err: &GemmError| matches!(err, GemmError::PtxTooNew { ptx, driver: d, .. } if ptx == "9.9" && *d == driver);
    let err = gemm.load(&image).unwrap_err();
    assert!(too_new(&err), "{err}");
    assert!(
        err.to_string().contains("ISA 9.9")
            && err.to_string().contains(&format!("CUDA {}.{}", driver.0, driver.1))
    );

    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 33, 17, 9);
    let mut rng = Random::new(4);
    let [a, b, mut c] = buffers(&gemm, &mut rng, &cfg);
    let err = gemm.gemm_image(&image, &cfg, &a.view(), &b.view(), &mut c.view_mut()).unwrap_err();
    assert!(too_new(&err), "{err}");
    assert_untouched(&gemm, &err.to_string(), [&a, &b, &c]);
}

/// Device memory exhausted during a call (split K's workspace, or a kernel
/// module, cannot be allocated) is a typed error, and the caller's buffers
/// are as they were; once memory is free again the same call succeeds.
#[test]
fn device_memory_exhaustion_is_a_typed_error_and_loses_nothing() {
    let Some(gemm) = gpu() else { return };
    // K deep and C small: the default dispatch splits K into a workspace.
    let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 256, 256, 1 << 16).alpha(1.0).beta(0.5);
    let mut rng = Random::new(5);
    let [a, b, mut c] = buffers(&gemm, &mut rng, &cfg);
    let kernel = gemm.load(&gemm.default_kernel(&cfg).image()).expect("the kernel loads");
    assert!(gemm.default_slices(&kernel, &cfg) > 1, "the call must split K for this test");
    // Take every free byte, in ever smaller pieces.
    let mut hog = Vec::new();
    for mib in [1024usize, 64, 4, 1] {
        while let Ok(piece) = gemm.stream().alloc_zeros::<u8>(mib << 20) {
            hog.push(piece);
        }
    }
    assert!(!hog.is_empty());
    let err = gemm.gemm_default(&cfg, &a.view(), &b.view(), &mut c.view_mut()).unwrap_err();
    let typed = matches!(&err, GemmError::Driver { .. } | GemmError::Load { .. });
    let text = format!("{err} {err:?}");
    assert!(typed && (text.contains("out of memory") || text.contains("OUT_OF_MEMORY")), "{err:?}");
    drop(hog);
    assert_untouched(&gemm, &err.to_string(), [&a, &b, &c]);
    gemm.gemm_default(&cfg, &a.view(), &b.view(), &mut c.view_mut()).expect("the call once memory is free");
}
