//! Bespoke constant-A kernels (`gemm_codegen::bespoke`) on host slices:
//! `C = alpha · A · B + beta · C` with A in the code, B (`k × n`) and C
//! (`m × n`) row-major, their arguments laid out by the kernel's
//! [`Abi::bespoke`].
//!
//! As for [`crate::Gemm`], only what is needed to run is checked here; an
//! access outside `b` or `c` is the emulator's fault report.

use gemm_codegen::Element;
use gemm_codegen::abi::{Abi, Batch, GemmValues};
use gemm_codegen::bespoke::{BespokeImage, BespokeRequirements};
use gemm_codegen::family::LaunchShape;

use super::gemm::{check_element, check_params, from_bytes, grid_overflow, param_values, to_bytes};
use super::{Buffer, EmuError, Launch, Options, Program, Stats};

/// A bespoke kernel, decoded once, run on host slices.
#[derive(Clone, Debug)]
pub struct Bespoke {
    program: Program,
    abi: Abi,
    launch: LaunchShape,
    requires: BespokeRequirements,
    m: u32,
    k: u32,
}

impl Bespoke {
    /// Reads and decodes a compiled kernel, which must declare its ABI.
    pub fn new(image: &BespokeImage) -> Result<Bespoke, EmuError> {
        let program = Program::from_ptx(&image.ptx, Some(&image.entry))?;
        let abi = image.abi();
        check_params(&program, &abi, "bespoke")?;
        Ok(Bespoke {
            program,
            abi,
            launch: image.launch(),
            requires: image.requires(),
            m: image.m,
            k: image.k,
        })
    }

    /// What the kernel requires of its arguments.
    pub fn requires(&self) -> &BespokeRequirements {
        &self.requires
    }

    /// The decoded kernel.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Runs `C = alpha · A · B + beta · C` for `n` columns, B bound to `b`
    /// (read-only) and C to `c`. `beta` is the kernel's argument when it
    /// takes one (a fixed-beta kernel ignores it). `c` is written back even
    /// when the kernel faults; `n = 0` launches nothing.
    #[allow(clippy::too_many_arguments)] // one GEMM's arguments, as the ABI lists them
    pub fn run<T: Element>(
        &self,
        n: u32,
        ldb: u64,
        ldc: u64,
        alpha: T,
        beta: T,
        b: &[T],
        c: &mut [T],
        options: &Options,
    ) -> Result<Stats, EmuError> {
        check_element::<T>(&self.program, self.requires.precision)?;
        let grid = self.launch.grid(self.m, n).map_err(grid_overflow)?;
        if grid.0 == 0 {
            return Ok(Stats::default());
        }
        let wide = |x: T| x.parts().map(Into::<f64>::into);
        let values = GemmValues {
            a: usize::MAX, // A is in the code: the bespoke ABI has no pointer to it
            b: 0,
            c: 1,
            m: self.m,
            n,
            k: self.k,
            lda: 0,
            ldb,
            ldc,
            alpha: wide(alpha),
            beta: wide(beta),
            batch: Batch::single(self.k),
            stream_k: None,
        };
        let mut buffers = vec![Buffer::read_only("b", to_bytes(b)), Buffer::new("c", to_bytes(c))];
        let launch = Launch {
            grid,
            block: self.launch.block,
            params: param_values(&self.abi, &values),
            dynamic_shared_bytes: 0,
            options: options.clone(),
        };
        let result = self.program.run(&launch, &mut buffers);
        from_bytes(&buffers[1].bytes, c);
        result
    }
}
