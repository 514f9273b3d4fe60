//! Bespoke kernels in the PTX emulator, with the GPU path's checks.

use gemm_codegen::{Element, Op};
use gemm_emu::{self as emu, Stats};

use super::{BespokeCall, BespokeKernel, CheckedBespoke, check};
use crate::emulate::Emulator;
use crate::error::GemmError;
use crate::validate::BufferInfo;

/// Where the emulator's B and C are said to lie for the checks: apart, and
/// aligned for every width (the emulator gives each buffer an aligned base
/// of its own; host slices never overlap).
const EMULATED_B: u64 = 1 << 48;
const EMULATED_C: u64 = 2 << 48;

impl Emulator {
    /// `C = alpha · A · B + beta · C` with a bespoke kernel on host slices,
    /// B (`k × n`) and C (`m × n`) row-major: the checks of
    /// [`Gemm::bespoke`](crate::Gemm::bespoke) (same errors, the unaligned
    /// twin for arguments that miss the kernel's alignment, the GEMM of
    /// `k = 0` for `alpha = 0`), then the kernel's PTX in the emulator,
    /// which reports any access outside `b` and `c`. On any error `c` is
    /// left as it was.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use gemm_host::bespoke::{BespokeCall, BespokeKernel, BespokeSpec, Operator};
    /// use gemm_host::emulate::Emulator;
    /// use gemm_host::Precision;
    ///
    /// // A = [[1, 2], [0, -1]], n = 3.
    /// let a = Arc::new(Operator::from_row_major(2, 2, vec![1.0, 2.0, 0.0, -1.0]).unwrap());
    /// let spec = BespokeSpec { block: 32, ..BespokeSpec::new(Precision::F64) };
    /// let kernel = BespokeKernel::compile(a, &spec).unwrap();
    /// let b = [1.0, 2.0, 3.0, 10.0, 20.0, 30.0];
    /// let mut c = [f64::NAN; 6];
    /// Emulator::new().bespoke(&kernel, &BespokeCall::new(3), &b, &mut c).unwrap();
    /// assert_eq!(c, [21.0, 42.0, 63.0, -10.0, -20.0, -30.0]);
    /// ```
    pub fn bespoke<E: Element>(
        &self,
        kernel: &BespokeKernel,
        call: &BespokeCall<E>,
        b: &[E],
        c: &mut [E],
    ) -> Result<Stats, GemmError> {
        let (bi, ci) = (BufferInfo::new(EMULATED_B, b.len()), BufferInfo::new(EMULATED_C, c.len()));
        match check(kernel.image(), call, bi, ci)? {
            CheckedBespoke::Skip(_) => Ok(Stats::default()),
            CheckedBespoke::ScaleC(cfg) => {
                // k = 0: A and B have no element; the Table 2 kernel of the
                // row-major (N, N) call scales C.
                let image = gemm_kernels::table2(E::PRECISION, Op::N, Op::N).image();
                self.gemm_image(&image, &cfg, &[], &b[..0], c)
            }
            CheckedBespoke::Launch(launch) => {
                let image = kernel.variant(launch.aligned)?;
                let program = self.bespoke_programs.get_or_load(image, || {
                    emu::Bespoke::new(image).map_err(|source| GemmError::Emulator {
                        kernel: image.entry.to_string(),
                        source: Box::new(source),
                    })
                })?;
                let before = c.to_vec();
                let (n, ldb, ldc) = (launch.n, launch.ldb, launch.ldc);
                program.run(n, ldb, ldc, launch.alpha, launch.beta, b, c, self.options()).map_err(|source| {
                    c.copy_from_slice(&before);
                    GemmError::Emulator { kernel: image.entry.to_string(), source: Box::new(source) }
                })
            }
        }
    }
}
