//! Several host threads calling the library at once, through the emulator
//! (one shared `Emulator`, its kernel cache filled concurrently): every
//! result is the reference loops'.

use std::ffi::{c_char, c_int};

use gemm_codegen::Op;
use gemm_host::GemmConfig;
use gemm_host::reference::{Random, logical_c};
use gemmforge_blas::cpu::reference_gemm;
use gemmforge_blas::{cblas, fortran};
use num_complex::Complex;

#[test]
fn concurrent_calls_give_the_references_results() {
    // Set before any thread starts and before the library reads its
    // configuration (on the first call); the only test of this binary.
    let log = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("threads.log");
    let _ = std::fs::remove_file(&log);
    // SAFETY: as above.
    unsafe {
        std::env::set_var("GEMMFORGE_BLAS_BACKEND", "emulate");
        std::env::set_var("GEMMFORGE_BLAS_LOG", &log);
    }
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                let mut rng = Random::new(100 + t);
                for round in 0..6 {
                    let (m, n, k) = (5 + 3 * t as i64 + round, 7 + round, 4 + 2 * t as i64);
                    let ops = [Op::N, Op::T, Op::C];
                    let (op_a, op_b) = (ops[(t as usize + round as usize) % 3], ops[round as usize % 3]);
                    // dgemm_ on even rounds, cblas_zgemm (row-major) on odd ones.
                    if round % 2 == 0 {
                        let cfg = GemmConfig::new(op_a, op_b, m, n, k).alpha(1.5f64).beta(-0.5);
                        let (a, b) = (rng.matrix::<f64>(cfg.a_len()), rng.matrix::<f64>(cfg.b_len()));
                        let mut c = rng.matrix::<f64>(cfg.c_len());
                        let mut want = c.clone();
                        reference_gemm(&cfg, &a, &b, &mut want);
                        let letter = |op: Op| format!("{op:?}").as_bytes()[0] as c_char;
                        let (ta, tb) = (letter(op_a), letter(op_b));
                        let d = |v: i64| v as c_int;
                        // SAFETY: buffers sized to the call.
                        unsafe {
                            fortran::dgemm_(
                                &ta,
                                &tb,
                                &d(m),
                                &d(n),
                                &d(k),
                                &cfg.alpha,
                                a.as_ptr(),
                                &d(cfg.lda),
                                b.as_ptr(),
                                &d(cfg.ldb),
                                &cfg.beta,
                                c.as_mut_ptr(),
                                &d(cfg.ldc),
                                1,
                                1,
                            )
                        };
                        assert_close(&logical_c(&cfg, &c), &logical_c(&cfg, &want), (t, round));
                    } else {
                        let (alpha, beta) = (Complex::new(0.5, 1.0), Complex::new(0.0, 0.0));
                        let row = GemmConfig::row_major(op_a, op_b, m, n, k).alpha(alpha).beta(beta);
                        let (a, b) = (rng.matrix::<Complex<f64>>(row.a_len()), rng.matrix(row.b_len()));
                        let mut c = vec![Complex::new(f64::NAN, f64::NAN); row.c_len()];
                        let col = row.to_column_major();
                        let mut want = c.clone();
                        reference_gemm(&col, &b, &a, &mut want);
                        let op = |op: Op| match op {
                            Op::N => 111,
                            Op::T => 112,
                            Op::C => 113,
                        };
                        let d = |v: i64| v as c_int;
                        // SAFETY: buffers sized to the call.
                        unsafe {
                            cblas::cblas_zgemm(
                                101,
                                op(op_a),
                                op(op_b),
                                d(m),
                                d(n),
                                d(k),
                                (&alpha as *const Complex<f64>).cast(),
                                a.as_ptr().cast(),
                                d(row.lda),
                                b.as_ptr().cast(),
                                d(row.ldb),
                                (&beta as *const Complex<f64>).cast(),
                                c.as_mut_ptr().cast(),
                                d(row.ldc),
                            )
                        };
                        assert_close(&logical_c(&col, &c), &logical_c(&col, &want), (t, round));
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a thread failed");
    }
    // Every call went to the emulator, one whole log line each.
    let lines = std::fs::read_to_string(&log).expect("the log file");
    assert_eq!(lines.lines().filter(|l| l.ends_with("path=emulate")).count(), 24, "{lines}");
    assert_eq!(lines.lines().count(), 24, "{lines}");
}

fn assert_close(got: &[Complex<f64>], want: &[Complex<f64>], at: (u64, i64)) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).norm() <= 1e-12 * (1.0 + w.norm()), "thread {} round {}: {g} vs {w}", at.0, at.1);
    }
}
