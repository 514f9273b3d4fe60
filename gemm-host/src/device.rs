//! Finding the GPU and reading its limits.

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, result, sys};

use gemm_codegen::device::ArchError;
use gemm_codegen::{ComputeCapability, DeviceLimits, DriverLimits};

use crate::error::GemmError;

/// Whether a CUDA driver and at least one GPU are present, without panicking.
///
/// cudarc loads `libcuda` on first use and panics if it is missing; this
/// looks for the library first, then asks the driver (`cuInit`,
/// `cuDeviceGetCount`). Returns the number of devices, or
/// [`GemmError::NoGpu`] saying what is missing.
pub fn device_count() -> Result<usize, GemmError> {
    // SAFETY: `is_culib_present` only tries to open the library by its usual
    // names with `libloading` and drops what it opened; it runs no library
    // code besides the dynamic loader's initialisers of libcuda itself.
    if !unsafe { sys::is_culib_present() } {
        return Err(GemmError::NoGpu {
            reason: "the CUDA driver library (libcuda.so) is not installed or not on the library path".into(),
        });
    }
    result::init().map_err(|e| GemmError::NoGpu { reason: format!("cuInit failed: {e}") })?;
    let count = result::device::get_count()
        .map_err(|e| GemmError::NoGpu { reason: format!("cuDeviceGetCount failed: {e}") })?;
    if count <= 0 {
        return Err(GemmError::NoGpu { reason: "the driver reports no CUDA device".into() });
    }
    Ok(count as usize)
}

/// Opens (retains) the primary context of device `ordinal`, or says why there
/// is none. Safe to call on machines without CUDA.
pub fn open(ordinal: usize) -> Result<Arc<CudaContext>, GemmError> {
    let count = device_count()?;
    if ordinal >= count {
        return Err(GemmError::NoGpu {
            reason: format!("device {ordinal} requested but only {count} present"),
        });
    }
    CudaContext::new(ordinal).map_err(GemmError::driver(format!("creating a context on device {ordinal}")))
}

/// What the tuner and the launch checks need to know about a GPU, as the
/// driver reports it (`cuDeviceGetAttribute`).
///
/// Limits the driver cannot be asked for (warps per SM beyond the thread
/// count, registers per thread) are per compute capability, in
/// `gemm-codegen`'s device table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability.
    pub compute_capability: ComputeCapability,
    /// Driver version as the driver encodes it (`1000 · major + 10 · minor`).
    pub driver_version: u32,
    /// Global memory, in bytes.
    pub total_memory: u64,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Peak SM clock in kHz, if the driver reports it.
    pub clock_khz: Option<u32>,
    /// Peak memory clock in kHz, if the driver reports it.
    pub memory_clock_khz: Option<u32>,
    /// Memory bus width in bits, if the driver reports it.
    pub memory_bus_bits: Option<u32>,
    /// L2 cache, in bytes.
    pub l2_bytes: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// 32-bit registers available to one block.
    pub regs_per_block: u32,
    /// 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// Shared memory one block may use without opting in (static limit), bytes.
    pub shared_per_block: u32,
    /// Shared memory one block may use after opting in (dynamic), bytes.
    pub shared_per_block_optin: u32,
    /// Shared memory per SM, bytes.
    pub shared_per_sm: u32,
    /// Largest grid, `(x, y, z)` blocks.
    pub max_grid: (u32, u32, u32),
}

impl DeviceInfo {
    /// Reads every field from the driver.
    pub fn query(ctx: &Arc<CudaContext>) -> Result<DeviceInfo, GemmError> {
        let get = |attr: Attr| -> Result<u32, GemmError> {
            ctx.attribute(attr)
                .map(|v| v.max(0) as u32)
                .map_err(GemmError::driver(format!("reading device attribute {attr:?}")))
        };
        let optional = |attr: Attr| ctx.attribute(attr).ok().filter(|&v| v > 0).map(|v| v as u32);
        let (major, minor) =
            ctx.compute_capability().map_err(GemmError::driver("reading the compute capability"))?;
        let mut driver_version = 0;
        // SAFETY: `cuDriverGetVersion` writes one int through the pointer,
        // which points to a live local; the driver is loaded (the context
        // exists).
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(GemmError::driver("reading the driver version"))?;
        Ok(DeviceInfo {
            ordinal: ctx.ordinal(),
            name: ctx.name().map_err(GemmError::driver("reading the device name"))?,
            compute_capability: ComputeCapability::new(major.max(0) as u32, minor.max(0) as u32),
            driver_version: driver_version.max(0) as u32,
            total_memory: ctx.total_mem().map_err(GemmError::driver("reading the memory size"))? as u64,
            sm_count: get(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            clock_khz: optional(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
            memory_clock_khz: optional(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
            memory_bus_bits: optional(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
            l2_bytes: get(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            warp_size: get(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_threads_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_threads_per_sm: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            max_blocks_per_sm: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            regs_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            regs_per_sm: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            shared_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_per_block_optin: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            shared_per_sm: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            max_grid: (
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ),
        })
    }

    /// The architecture number of the compute capability: 90 for sm_90.
    pub const fn arch(&self) -> u32 {
        self.compute_capability.sm()
    }

    /// The driver version as `(major, minor)`, e.g. `(12, 8)`.
    pub const fn driver_version_pair(&self) -> (u32, u32) {
        (self.driver_version / 1000, self.driver_version % 1000 / 10)
    }

    /// Warps one SM can hold.
    pub const fn max_warps_per_sm(&self) -> u32 {
        match self.max_threads_per_sm.checked_div(self.warp_size) {
            Some(w) => w,
            None => 0,
        }
    }

    /// The queryable limits, as `gemm-codegen`'s search space takes them
    /// (join them with the per-architecture table through
    /// `gemm_codegen::DeviceLimits::new`). A clock the driver does not
    /// report is 0.
    pub fn driver_limits(&self) -> DriverLimits {
        DriverLimits {
            name: self.name.clone(),
            compute_capability: self.compute_capability,
            warp_size: self.warp_size,
            max_threads_per_block: self.max_threads_per_block,
            max_regs_per_block: self.regs_per_block,
            max_regs_per_sm: self.regs_per_sm,
            max_shared_per_block: self.shared_per_block,
            max_shared_per_block_optin: self.shared_per_block_optin,
            max_shared_per_sm: self.shared_per_sm,
            sm_count: self.sm_count,
            clock_khz: self.clock_khz.unwrap_or(0),
        }
    }

    /// [`DeviceInfo::driver_limits`] joined with `gemm-codegen`'s table of
    /// per-architecture limits: what the search space and its occupancy
    /// model take. Fails for an architecture the table does not know.
    pub fn device_limits(&self) -> Result<DeviceLimits, ArchError> {
        DeviceLimits::new(self.driver_limits())
    }

    /// The hard limits of `gemm-codegen`'s constraints on this device: static
    /// shared memory is capped at 48 KiB whatever the driver reports (the
    /// stencil declares its arrays statically; only dynamic shared memory can
    /// use the opt-in limit), and the ISA allows 255 registers per thread.
    pub const fn limits(&self) -> gemm_codegen::Limits {
        const STATIC_SHARED: u32 = 48 * 1024;
        gemm_codegen::Limits {
            warp_size: self.warp_size,
            max_threads_per_block: self.max_threads_per_block,
            max_shared_per_block: if self.shared_per_block < STATIC_SHARED {
                self.shared_per_block
            } else {
                STATIC_SHARED
            },
            max_regs_per_thread: 255,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An H100 SXM as the driver reports it.
    pub(crate) fn h100() -> DeviceInfo {
        DeviceInfo {
            ordinal: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: ComputeCapability::new(9, 0),
            driver_version: 12080,
            total_memory: 80 << 30,
            sm_count: 132,
            clock_khz: Some(1_980_000),
            memory_clock_khz: Some(2_619_000),
            memory_bus_bits: Some(5120),
            l2_bytes: 50 << 20,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            regs_per_block: 65536,
            regs_per_sm: 65536,
            shared_per_block: 48 << 10,
            shared_per_block_optin: 227 << 10,
            shared_per_sm: 228 << 10,
            max_grid: (i32::MAX as u32, 65535, 65535),
        }
    }

    #[test]
    fn derived_values() {
        let d = h100();
        assert_eq!(d.arch(), 90);
        assert_eq!(d.driver_version_pair(), (12, 8));
        assert_eq!(d.max_warps_per_sm(), 64);
        assert_eq!(d.limits(), gemm_codegen::Limits::PORTABLE);
        let driver = d.driver_limits();
        assert_eq!((driver.sm_count, driver.max_regs_per_sm, driver.clock_khz), (132, 65536, 1_980_000));
        assert_eq!(d.device_limits().expect("sm_90 is in the table").hard(), d.limits());
        let big = DeviceInfo { shared_per_block: 96 << 10, ..h100() };
        assert_eq!(big.limits().max_shared_per_block, 48 << 10);
    }

    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        // On a machine with a GPU this finds it; on one without, it says why.
        match device_count() {
            Ok(n) => assert!(n > 0),
            Err(GemmError::NoGpu { reason }) => assert!(!reason.is_empty()),
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
}
