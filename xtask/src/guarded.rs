//! Guarded buffers on the device: a call's host buffers with
//! [`gemm_host::case::guard`] sentinels on both sides (a
//! [`gemm_host::case::Case`]'s, or several problems' laid end to end)
//! uploaded whole, the call run on their inner parts, and all three
//! downloaded whole for [`gemm_host::case::Case::check`] — the way
//! `verify --gpu` runs its cases, shared by `sanitize`'s workload and `soak`.

use gemm_host::case::guard;
use gemm_host::cudarc::driver::{CudaView, CudaViewMut};
use gemm_host::{Element, Gemm, GemmError};

/// Uploads `a`, `b` and `c` (each with [`guard`] sentinels on both sides),
/// runs `call` on their inner parts on `gemm`'s stream, and returns the
/// three whole buffers after it.
pub fn on_device<T: Element>(
    gemm: &Gemm,
    [a, b, c]: [&[T]; 3],
    call: impl FnOnce(&CudaView<'_, T>, &CudaView<'_, T>, &mut CudaViewMut<'_, T>) -> Result<(), GemmError>,
) -> Result<[Vec<T>; 3], GemmError> {
    let (a, b, mut c) = (gemm.upload(a)?, gemm.upload(b)?, gemm.upload(c)?);
    let g = guard::<T>();
    let inner = |len: usize| g..len.saturating_sub(g).max(g);
    let (al, bl, cl) = (a.len(), b.len(), c.len());
    call(&a.slice(inner(al)), &b.slice(inner(bl)), &mut c.slice_mut(inner(cl)))?;
    Ok([gemm.download(&a)?, gemm.download(&b)?, gemm.download(&c)?])
}
