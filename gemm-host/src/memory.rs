//! Device buffers of any [`Element`], complex ones included.
//!
//! cudarc's allocation and copy functions want `T: DeviceRepr`, which
//! `num_complex::Complex` does not implement, and the orphan rule forbids us
//! to add it. These helpers give one API for all four element types:
//!
//! - allocation makes a `CudaSlice` of the real scalar (`f32`/`f64`, which
//!   are `DeviceRepr`) with one or two scalars per element, takes its pointer
//!   with [`CudaSlice::leak`] and wraps it again as a `CudaSlice<T>` with
//!   [`CudaStream::upgrade_device_ptr`], which has no `DeviceRepr` bound;
//! - copies use cudarc's driver-level `memcpy_*_async`, which are generic
//!   over any `T`, on pointers obtained through [`DevicePtr`] /
//!   [`DevicePtrMut`], so slices and views of every element type work and
//!   cudarc's cross-stream event tracking is honoured.
//!
//! # Why this is sound
//!
//! - The four element types are plain old data: `f32`, `f64`, and
//!   `Complex<f32>`, `Complex<f64>`, which are `#[repr(C)]` structs of two
//!   scalars (real part first), with no padding: `size_of::<Complex<S>>() ==
//!   2 · size_of::<S>()` and every bit pattern is a valid value. Byte copies
//!   between host and device therefore produce valid values, and all-zero
//!   bytes are `0` (`0 + 0i`).
//! - [`CudaSlice::leak`] hands back the allocation without freeing it (after
//!   making the stream wait for the slice's pending reads and writes) and
//!   drops the slice's events and stream handle; from then on nothing else
//!   owns the pointer. [`CudaStream::upgrade_device_ptr`] makes it owned
//!   again by exactly one `CudaSlice<T>`, on the same stream, whose `Drop`
//!   frees it the way the original would have (`cuMemFreeAsync` on that
//!   stream or `cuMemFree`, decided by the same context).
//! - The allocation holds `max(len, 1) · lanes` scalars, so at least
//!   `len · size_of::<T>()` bytes, as `upgrade_device_ptr` requires; the
//!   `max(·, 1)` avoids zero-byte allocations, which the driver rejects.
//! - Copies never exceed the shorter of the two buffers: lengths are checked
//!   and equal before any copy.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, result};
use gemm_codegen::Element;

use crate::error::GemmError;

/// Allocates `len` elements set to zero on `stream`.
pub fn alloc_zeros<T: Element>(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<T>, GemmError> {
    let lanes = T::PRECISION.lanes() as usize;
    debug_assert_eq!(std::mem::size_of::<T>(), lanes * T::PRECISION.scalar_bytes() as usize);
    let scalars = len
        .max(1)
        .checked_mul(std::mem::size_of::<T>())
        .map(|_| len.max(1) * lanes)
        .ok_or(GemmError::AllocTooLarge { len, precision: T::PRECISION })?;
    let what = || format!("allocating {len} {} elements", T::PRECISION);
    let ptr = match T::PRECISION.scalar_bytes() {
        4 => stream.alloc_zeros::<f32>(scalars).map_err(GemmError::driver(what()))?.leak(),
        _ => stream.alloc_zeros::<f64>(scalars).map_err(GemmError::driver(what()))?.leak(),
    };
    // SAFETY: see the module docs: `ptr` is a live allocation of this
    // stream's context that nothing else owns, of at least
    // `len · size_of::<T>()` bytes, zeroed (a valid `T` bit pattern).
    let mut slice = unsafe { stream.upgrade_device_ptr::<T>(ptr, len) };
    // The upgraded slice has fresh, never-recorded events: record the zeroing
    // as its last write, so that other streams wait for it.
    drop(slice.device_ptr_mut(stream));
    Ok(slice)
}

/// Copies `host` to a new device buffer.
pub fn upload<T: Element>(stream: &Arc<CudaStream>, host: &[T]) -> Result<CudaSlice<T>, GemmError> {
    let mut dst = alloc_zeros(stream, host.len())?;
    upload_into(stream, host, &mut dst)?;
    Ok(dst)
}

/// Copies `host` into `dst`, which must have the same length.
pub fn upload_into<T: Element, D: DevicePtrMut<T>>(
    stream: &Arc<CudaStream>,
    host: &[T],
    dst: &mut D,
) -> Result<(), GemmError> {
    if dst.len() != host.len() {
        return Err(GemmError::LengthMismatch { action: "upload", host: host.len(), device: dst.len() });
    }
    if host.is_empty() {
        return Ok(());
    }
    stream.context().bind_to_thread().map_err(GemmError::driver("binding the context"))?;
    let (ptr, _record) = dst.device_ptr_mut(stream);
    // SAFETY: `ptr` addresses `dst.len() == host.len()` elements of `T` in
    // this stream's context, and the copy moves `size_of_val(host)` bytes of
    // plain-old-data `T` (module docs). From pageable memory the driver
    // stages the source before returning, so `host` may be reused at once;
    // `_record` orders later users of `dst` after the copy.
    unsafe { result::memcpy_htod_async(ptr, host, stream.cu_stream()) }.map_err(GemmError::driver(format!(
        "uploading {} {} elements",
        host.len(),
        T::PRECISION
    )))
}

/// Copies a device buffer (slice or view) to a new `Vec`, waiting for the copy.
pub fn download<T: Element, S: DevicePtr<T>>(stream: &Arc<CudaStream>, src: &S) -> Result<Vec<T>, GemmError> {
    let mut host = vec![T::ZERO; src.len()];
    download_into(stream, src, &mut host)?;
    Ok(host)
}

/// Copies a device buffer into `host`, which must have the same length, and
/// waits for the copy.
pub fn download_into<T: Element, S: DevicePtr<T>>(
    stream: &Arc<CudaStream>,
    src: &S,
    host: &mut [T],
) -> Result<(), GemmError> {
    if src.len() != host.len() {
        return Err(GemmError::LengthMismatch { action: "download", host: host.len(), device: src.len() });
    }
    if host.is_empty() {
        return Ok(());
    }
    let len = host.len();
    let action = || format!("downloading {len} {} elements", T::PRECISION);
    stream.context().bind_to_thread().map_err(GemmError::driver("binding the context"))?;
    {
        let (ptr, _record) = src.device_ptr(stream);
        // SAFETY: `ptr` addresses `src.len() == host.len()` elements of `T`;
        // any bytes are a valid `T` (module docs). `host` stays borrowed
        // until the stream is synchronized below.
        unsafe { result::memcpy_dtoh_async(host, ptr, stream.cu_stream()) }
            .map_err(GemmError::driver(action()))?;
    }
    stream.synchronize().map_err(GemmError::driver(action()))
}

#[cfg(test)]
mod tests {
    use num_complex::Complex;

    #[test]
    fn element_layout_is_scalar_pairs() {
        // What the module's safety argument relies on.
        assert_eq!(std::mem::size_of::<Complex<f32>>(), 8);
        assert_eq!(std::mem::align_of::<Complex<f32>>(), 4);
        assert_eq!(std::mem::size_of::<Complex<f64>>(), 16);
        let z = [Complex::new(1.0f32, 2.0), Complex::new(3.0, 4.0)];
        // SAFETY: Complex<f32> is repr(C) { re, im }, so two of them are four f32s.
        let scalars: &[f32] = unsafe { std::slice::from_raw_parts(z.as_ptr().cast(), 4) };
        assert_eq!(scalars, [1.0, 2.0, 3.0, 4.0]);
        let zero: Complex<f64> = Complex::new(0.0, 0.0);
        assert!(zero.re.to_bits() == 0 && zero.im.to_bits() == 0);
    }
}
