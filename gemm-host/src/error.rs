//! [`GemmError`]: everything a GEMM call can fail with.

use cudarc::cublas::result::CublasError;
use cudarc::driver::DriverError;
use gemm_codegen::Precision;

use crate::validate::{Arg, ArgError};

/// Why a GEMM call (or loading a kernel, or opening the device) failed.
///
/// On every error before the launch itself, nothing was launched and the
/// caller's buffers are untouched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GemmError {
    /// A BLAS argument rule is broken; see [`ArgError`].
    #[error(transparent)]
    Arg(#[from] ArgError),

    /// The PTX emulator refused or stopped the kernel (a fault it detected,
    /// or PTX it cannot run); see [`crate::emulate`].
    #[error("emulating kernel `{kernel}`: {source}")]
    Emulator {
        /// The kernel's entry name.
        kernel: String,
        /// What the emulator reported.
        source: Box<gemm_emu::EmuError>,
    },

    /// A run-time kernel of another precision than the buffers.
    #[error("kernel `{kernel}` computes {kernel_precision} but the buffers hold {buffers} elements")]
    PrecisionMismatch {
        /// The kernel's entry name.
        kernel: String,
        /// The kernel's precision.
        kernel_precision: Precision,
        /// The precision of the buffers' element type.
        buffers: Precision,
    },

    /// A buffer allocated in another CUDA context than the GEMM's stream.
    #[error(
        "argument `{arg}`: buffer belongs to CUDA context of device {buffer_device}, not to that of the GEMM's stream (device {stream_device})"
    )]
    WrongContext {
        /// [`Arg::A`], [`Arg::B`] or [`Arg::C`].
        arg: Arg,
        /// Ordinal of the buffer's device.
        buffer_device: usize,
        /// Ordinal of the stream's device.
        stream_device: usize,
    },

    /// A kernel loaded into another context than the stream's.
    #[error(
        "kernel `{kernel}` was loaded into another CUDA context than the stream's; load it with this runner's `Gemm::load`"
    )]
    ForeignKernel {
        /// The kernel's entry name.
        kernel: String,
    },

    /// No CUDA driver or no GPU.
    #[error("no CUDA GPU: {reason}")]
    NoGpu {
        /// What was missing.
        reason: String,
    },

    /// A shared library (libcublas) could not be loaded.
    #[error(
        "cannot load {library}: not found under any of its usual names (set LD_LIBRARY_PATH to its folder)"
    )]
    LibraryMissing {
        /// The library, e.g. `"libcublas"`.
        library: &'static str,
    },

    /// The driver rejected the kernel's PTX.
    #[error("loading kernel `{kernel}` failed: {source}{}", jit_log_suffix(log))]
    Load {
        /// The kernel's entry name.
        kernel: String,
        /// The driver's error.
        source: DriverError,
        /// The JIT compiler's error log, if it produced one.
        log: String,
    },

    /// The kernel's PTX ISA version is newer than the driver's JIT compiler
    /// reads (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`).
    #[error(
        "loading kernel `{kernel}` failed: its PTX is ISA {ptx}, newer than this driver (CUDA {}.{}) reads: \
         update the driver, or generate the kernel for an older target",
        driver.0,
        driver.1
    )]
    PtxTooNew {
        /// The kernel's entry name.
        kernel: String,
        /// The `.version` the PTX declares (`"8.0"`), or `"?"` if it has none.
        ptx: String,
        /// The driver's CUDA version (major, minor).
        driver: (u32, u32),
    },

    /// PTX text that the driver cannot be handed (it contains a NUL byte).
    #[error("kernel `{kernel}`: PTX text contains a NUL byte at offset {offset}")]
    PtxNul {
        /// The kernel's entry name.
        kernel: String,
        /// Byte offset of the first NUL.
        offset: usize,
    },

    /// The loaded kernel cannot be launched with its block on this device.
    #[error(
        "kernel `{kernel}` cannot launch on this device: {reason} \
         ({threads} threads per block; {registers} registers per thread, {shared_bytes} bytes of shared memory)"
    )]
    Unlaunchable {
        /// The kernel's entry name.
        kernel: String,
        /// Which limit it exceeds.
        reason: String,
        /// Threads per block of the kernel.
        threads: u32,
        /// Registers per thread, as the JIT allocated them.
        registers: u32,
        /// Shared memory per block, static and dynamic.
        shared_bytes: u32,
    },

    /// A kernel this call needed could not be generated: its spec broke a
    /// rule of `gemm-codegen`'s constraints.
    #[error("kernel `{kernel}` could not be generated: {reason}")]
    IllegalSpec {
        /// The entry name of the kernel asked for.
        kernel: String,
        /// The violations, joined.
        reason: String,
    },

    /// The kernel was compiled for an architecture the device is not.
    #[error(
        "kernel `{kernel}` is compiled for {arch} (`arch = {arch}`) and cannot run on this {device} \
         device: use a kernel with an older `arch`, or this GPU's"
    )]
    ArchMismatch {
        /// The kernel's entry name.
        kernel: String,
        /// The architecture in its spec.
        arch: gemm_codegen::Target,
        /// The device's compute capability.
        device: gemm_codegen::ComputeCapability,
    },

    /// A tensor map the driver cannot encode.
    /// A 16-bit kernel's operands reach the tensor cores only by the
    /// tensor memory accelerator, whose maps cannot describe this call;
    /// such a kernel has no twin that copies with threads.
    #[error(
        "kernel `{kernel}` ({precision}) copies A and B with the tensor memory accelerator: A and B must \
         start at 16-byte aligned addresses, lda and ldb (and batch strides) be multiples of {lead} \
         elements, with no pointer arrays or split K"
    )]
    TmaOperands {
        /// The kernel's entry name.
        kernel: String,
        /// Its precision.
        precision: Precision,
        /// The multiple of elements a leading dimension must be.
        lead: u32,
    },

    #[error("tensor map not encoded: {reason}")]
    TensorMap {
        /// What about it.
        reason: String,
    },

    /// A CUDA driver call failed.
    #[error("{action}: {source}")]
    Driver {
        /// What was being done, e.g. "launching kernel `...`".
        action: String,
        /// The driver's error.
        source: DriverError,
    },

    /// A cuBLAS call failed.
    #[error("{action}: {source}")]
    Cublas {
        /// What was being done, e.g. "cublasSgemm_v2".
        action: String,
        /// cuBLAS's status.
        source: CublasError,
    },

    /// An allocation whose byte count does not fit a `usize`.
    #[error("cannot allocate {len} {precision} elements: the byte count overflows")]
    AllocTooLarge {
        /// Elements asked for.
        len: usize,
        /// Their type.
        precision: Precision,
    },

    /// A tuning cache file ([`crate::bespoke::TuneCache`]) that could not be
    /// read or written, or is not one.
    #[error("tuning cache {path}: {reason}")]
    TuneCache {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },

    /// A host buffer of another length than the device buffer it is copied to or from.
    #[error("{action}: host buffer holds {host} elements, device buffer {device}")]
    LengthMismatch {
        /// "upload" or "download".
        action: &'static str,
        /// Host elements.
        host: usize,
        /// Device elements.
        device: usize,
    },
}

fn jit_log_suffix(log: &str) -> String {
    let log = log.trim();
    if log.is_empty() { String::new() } else { format!("; JIT log:\n{log}") }
}

impl GemmError {
    /// Wraps a driver error with what was being done.
    pub fn driver(action: impl Into<String>) -> impl FnOnce(DriverError) -> GemmError {
        let action = action.into();
        move |source| GemmError::Driver { action, source }
    }

    /// The argument error, if this is one.
    pub fn as_arg(&self) -> Option<&ArgError> {
        match self {
            GemmError::Arg(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_failed() {
        let e = GemmError::PrecisionMismatch {
            kernel: "gemmforge_sgemm_nn".into(),
            kernel_precision: Precision::F32,
            buffers: Precision::C64,
        };
        assert_eq!(
            e.to_string(),
            "kernel `gemmforge_sgemm_nn` computes f32 but the buffers hold c64 elements"
        );
        let e = GemmError::from(ArgError::Negative { arg: Arg::K, value: -1 });
        assert_eq!(e.to_string(), "argument `k` = -1: must be at least 0");
        assert_eq!(e.as_arg().map(ArgError::arg), Some(Arg::K));
        assert_eq!(jit_log_suffix("  \n"), "");
        assert_eq!(jit_log_suffix("ptxas error\n"), "; JIT log:\nptxas error");
    }
}
