//! Which memory a caller's pointer is: host memory (staged through the
//! pipeline), or device or managed memory (used in place by the GPU).
//!
//! A program can only hold device memory after it has loaded the CUDA
//! driver, so the driver is asked only when `libcuda.so.1` is already in
//! the process (`dlopen` with `RTLD_NOLOAD` loads nothing): a program that
//! never touched CUDA pays one `dlopen` per call and never starts the
//! driver through this check. The driver's answer comes from
//! `cuPointerGetAttributes`, which reports memory it does not know (the
//! program's ordinary host memory) without an error.

use std::ffi::c_void;

use cudarc::driver::sys;

/// Where a pointer points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Host memory: pageable, or page-locked by CUDA (copied like any host
    /// memory).
    Host,
    /// Device memory of device `ordinal`, or managed memory (`ordinal` is
    /// then the device the driver reports for it).
    Device {
        /// The CUDA device ordinal.
        ordinal: usize,
    },
}

/// Whether the CUDA driver library is already loaded in this process.
fn driver_loaded() -> bool {
    // SAFETY: a NUL-terminated name; RTLD_NOLOAD only looks the library up.
    let handle = unsafe { libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
    if handle.is_null() {
        return false;
    }
    // SAFETY: the handle just returned; this drops the reference it took.
    unsafe { libc::dlclose(handle) };
    true
}

/// What memory `ptr` points to ([`Memory::Host`] for null, and whenever
/// the driver is not loaded, not initialized or cannot tell).
pub fn classify(ptr: *const c_void) -> Memory {
    if ptr.is_null() || !driver_loaded() {
        return Memory::Host;
    }
    let mut memory_type: u32 = 0;
    let mut ordinal: i32 = -1;
    let mut managed: u32 = 0;
    let mut attributes = [
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_IS_MANAGED,
    ];
    let mut data: [*mut c_void; 3] =
        [(&raw mut memory_type).cast(), (&raw mut ordinal).cast(), (&raw mut managed).cast()];
    // SAFETY: the driver library is loaded (checked above, so cudarc's
    // loader finds it); three attributes with room for each value.
    let status = unsafe {
        sys::cuPointerGetAttributes(3, attributes.as_mut_ptr(), data.as_mut_ptr(), ptr as sys::CUdeviceptr)
    };
    if status != sys::cudaError_enum::CUDA_SUCCESS {
        return Memory::Host;
    }
    let device = memory_type == sys::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32;
    match (device || managed != 0, usize::try_from(ordinal)) {
        (true, Ok(ordinal)) => Memory::Device { ordinal },
        // Managed memory the driver gives no device for: the CPU can read it.
        _ => Memory::Host,
    }
}

/// Where a call's A, B and C are; A and B are host memory (not asked
/// about) unless `reads_ab`: nothing reads them then.
pub fn of_call(reads_ab: bool, [a, b, c]: [*const c_void; 3]) -> [Memory; 3] {
    let ab = |p| if reads_ab { classify(p) } else { Memory::Host };
    [ab(a), ab(b), classify(c)]
}

/// The GPU a call's device operands live on: `None` when every operand is
/// host memory, `Some(None)` when they are on more than one GPU.
pub fn device_of(memory: &[Memory; 3]) -> Option<Option<usize>> {
    let mut ordinals = memory.iter().filter_map(|m| match m {
        Memory::Device { ordinal } => Some(*ordinal),
        Memory::Host => None,
    });
    let first = ordinals.next()?;
    Some(ordinals.all(|o| o == first).then_some(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Host memory is host memory whether or not the driver is loaded
    /// (where it is, the driver says so; where it is not, nothing asks it).
    #[test]
    fn host_memory_is_host() {
        let on_heap = vec![1.0f64; 1 << 16].into_boxed_slice();
        let on_stack = 3u8;
        assert_eq!(classify(on_heap.as_ptr().cast()), Memory::Host);
        assert_eq!(classify((&raw const on_stack).cast()), Memory::Host);
        assert_eq!(classify(std::ptr::null()), Memory::Host);
    }

    #[test]
    fn the_device_of_a_call_is_one_gpu_or_none() {
        let (h, d) = (Memory::Host, |ordinal| Memory::Device { ordinal });
        assert_eq!(device_of(&[h, h, h]), None);
        assert_eq!(device_of(&[h, d(1), d(1)]), Some(Some(1)));
        assert_eq!(device_of(&[d(0), h, d(1)]), Some(None));
    }
}
