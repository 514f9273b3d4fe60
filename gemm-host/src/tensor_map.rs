//! Tensor maps on the GPU: the driver's encoding of the [`TensorMap`]s a
//! kernel's ABI derives for a launch (`gemm_codegen::abi`'s "Tensor
//! maps"), passed by value as the kernel's 128-byte parameters.

use cudarc::driver::DeviceRepr;
use cudarc::driver::sys::{
    self, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use gemm_codegen::abi::TensorMap;

use crate::error::GemmError;

/// A tensor map as the driver encodes it, ready to push as a kernel
/// argument.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub(crate) struct Encoded(CUtensorMap);

// SAFETY: `CUtensorMap` is plain bytes (`#[repr(C)]`, 128 of them, aligned
// as the driver asks), which is all a kernel parameter needs; the kernel
// declares it as `.param .align 64 .b8 name[128]`.
unsafe impl DeviceRepr for Encoded {}

/// Encodes `map` with the driver (`cuTensorMapEncodeTiled`): its elements
/// 2-byte words (`f16`, `bf16`: a copy moves bits) or 4- or 8-byte floats
/// (a complex element is a pair: the map's
/// `element_bytes` says which), three dimensions, dimension 0 contiguous,
/// elements outside the tensor read as zeros, the box with the 128-byte
/// swizzle or without, lines promoted to L2 in 256-byte sectors.
///
/// A dimension of 0 (a launch with `k = 0`, which copies nothing) is
/// encoded as 1: the driver refuses 0, and no box is ever copied.
pub(crate) fn encode(map: &TensorMap<u64>) -> Result<Encoded, GemmError> {
    let data_type = match map.element_bytes {
        2 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        4 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        8 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        n => {
            return Err(GemmError::TensorMap {
                reason: format!("elements of {n} bytes (2, 4 or 8 are encoded)"),
            });
        }
    };
    let dims = map.dims.map(|d| d.max(1));
    let strides = map.strides;
    let box_dims = map.box_dims;
    let element_strides = [1u32; 3];
    let swizzle = if map.swizzle_128 {
        CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B
    } else {
        CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE
    };
    let mut out = std::mem::MaybeUninit::<CUtensorMap>::zeroed();
    // SAFETY: every pointer addresses an array of the rank's length (3, or
    // 2 for the strides, dimension 0's being the element), alive for the
    // call; `out` is written by the driver or left zeroed. The global
    // address is only recorded, never dereferenced here.
    let result = unsafe {
        sys::cuTensorMapEncodeTiled(
            out.as_mut_ptr(),
            data_type,
            3,
            map.base as *mut std::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            box_dims.as_ptr(),
            element_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    result.result().map_err(GemmError::driver(format!(
        "encoding a tensor map (base {:#x}, dims {dims:?}, strides {strides:?} bytes, box {box_dims:?})",
        map.base
    )))?;
    // SAFETY: the driver filled it (or it is the zeroed map, which only a
    // failed call leaves, returned above).
    Ok(Encoded(unsafe { out.assume_init() }))
}
