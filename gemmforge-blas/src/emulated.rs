//! The `emulate` backend: the staging pipeline ([`crate::staging`]) with
//! the PTX emulator as its device, running the Table 2 kernel of each
//! call's ops (small tiles: quick to emulate). Device memory is host
//! memory here and every step runs when it is queued, so the pipeline's
//! packing, chunking and write-back are what the conformance tests
//! exercise, with the GPU's kernels' arithmetic.

use std::sync::OnceLock;

use gemm_host::emulate::Emulator;
use gemm_host::{GemmConfig, GemmError};

use crate::scalar::Scalar;
use crate::staging::{self, Device, Failure, Operand, Place, Plan, Slot, Tuning};

/// The process's emulator (shared by single calls and batches: it parses
/// each kernel once).
pub(crate) fn emulator() -> &'static Emulator {
    static EMULATOR: OnceLock<Emulator> = OnceLock::new();
    EMULATOR.get_or_init(Emulator::new)
}

/// Host vectors standing in for device buffers and pinned slots.
#[derive(Debug)]
struct Emulated<E> {
    resident: Vec<E>,
    streamed: [Vec<E>; 2],
    c: [Vec<E>; 2],
    slots: [Vec<E>; 4],
}

impl<E> Default for Emulated<E> {
    fn default() -> Emulated<E> {
        Emulated {
            resident: Vec::new(),
            streamed: Default::default(),
            c: Default::default(),
            slots: Default::default(),
        }
    }
}

fn no_device_memory() -> GemmError {
    GemmError::NoGpu { reason: "the PTX emulator cannot read device memory".into() }
}

impl<E: Scalar> Emulated<E> {
    fn place(&self, place: Place) -> Result<&[E], GemmError> {
        match place {
            Place::Resident(at) => Ok(&self.resident[at.min(self.resident.len())..]),
            Place::Streamed(s) => Ok(&self.streamed[s]),
            Place::C(s) => Ok(&self.c[s]),
            Place::User(_) => Err(no_device_memory()),
        }
    }

    fn place_mut(&mut self, place: Place) -> Result<&mut [E], GemmError> {
        match place {
            Place::Resident(at) => {
                let at = at.min(self.resident.len());
                Ok(&mut self.resident[at..])
            }
            Place::Streamed(s) => Ok(&mut self.streamed[s]),
            Place::C(s) => Ok(&mut self.c[s]),
            Place::User(_) => Err(no_device_memory()),
        }
    }
}

impl<E: Scalar> Device<E> for Emulated<E> {
    fn reserve(&mut self, resident: usize, streamed: usize, c: usize, piece: usize) -> Result<(), GemmError> {
        let grow = |v: &mut Vec<E>, len: usize| {
            if v.len() < len {
                v.resize(len, E::ZERO);
            }
        };
        grow(&mut self.resident, resident);
        self.streamed.iter_mut().for_each(|v| grow(v, streamed));
        self.c.iter_mut().for_each(|v| grow(v, c));
        let slot = streamed.max(c).max(piece);
        self.slots.iter_mut().for_each(|v| grow(v, slot));
        Ok(())
    }

    fn slot(&mut self, slot: Slot, len: usize) -> Result<&mut [E], GemmError> {
        Ok(&mut self.slots[slot][..len])
    }

    fn upload(&mut self, slot: Slot, len: usize, place: Place) -> Result<(), GemmError> {
        let src = std::mem::take(&mut self.slots[slot]);
        let result = self.place_mut(place).map(|dst| dst[..len].copy_from_slice(&src[..len]));
        self.slots[slot] = src;
        result
    }

    fn gemm(&mut self, cfg: &GemmConfig<E>, a: Place, b: Place, c: Place) -> Result<(), GemmError> {
        let p = E::PRECISION;
        let image = gemm_kernels::table2(p, cfg.op_a.effective(p), cfg.op_b.effective(p)).image();
        // C is never the buffer A or B is read from: take it out while the
        // kernel runs.
        let mut out = match c {
            Place::C(s) => std::mem::take(&mut self.c[s]),
            _ => return Err(no_device_memory()),
        };
        let result = match (self.place(a), self.place(b)) {
            (Ok(a), Ok(b)) => emulator().gemm_image(&image, cfg, a, b, &mut out).map(|_| ()),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        if let Place::C(s) = c {
            self.c[s] = out;
        }
        result
    }

    fn download(&mut self, place: Place, len: usize, slot: Slot) -> Result<(), GemmError> {
        let mut dst = std::mem::take(&mut self.slots[slot]);
        let result = self.place(place).map(|src| dst[..len].copy_from_slice(&src[..len]));
        self.slots[slot] = dst;
        result
    }

    fn finish(&mut self) -> Result<(), GemmError> {
        Ok(())
    }
}

/// Runs the checked column-major `cfg` (after `backend::unread_product`,
/// `m, n ≥ 1`) in the PTX emulator through the staging pipeline, cut as
/// `tuning` says.
///
/// # Safety
/// As for [`staging::run`], every operand in host memory.
pub(crate) unsafe fn run<E: Scalar>(
    cfg: &GemmConfig<E>,
    tuning: Tuning,
    (a, b, c): (*const E, *const E, *mut E),
) -> Result<(), Box<(Failure, Plan)>> {
    let plan = Plan::new(cfg, size_of::<E>(), cfg.beta != E::ZERO, tuning);
    let ld = |v: i64| usize::try_from(v).unwrap_or(0);
    let operands = [
        Operand::Host { ptr: a.cast_mut(), ld: ld(cfg.lda) },
        Operand::Host { ptr: b.cast_mut(), ld: ld(cfg.ldb) },
        Operand::Host { ptr: c, ld: ld(cfg.ldc) },
    ];
    // SAFETY: the caller's contract.
    unsafe { staging::run(&mut Emulated::default(), cfg, &plan, operands) }.map_err(|f| Box::new((f, plan)))
}
