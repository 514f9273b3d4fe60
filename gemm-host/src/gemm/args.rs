//! A launch's arguments: the kernel ABI's values for a checked launch
//! ([`launch_args`]), whether its tensor maps describe a pass
//! ([`maps_describe`]), and the launch itself with each argument pushed as
//! its parameter's type, tensor maps encoded ([`launch_abi`]).

use std::sync::Arc;

use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};
use gemm_codegen::Element;
use gemm_codegen::abi::{Abi, Arg as AbiArg, Batch, GemmValues, StreamK};

use crate::error::GemmError;
use crate::kernel::{KernelCode, LoadedKernel};
use crate::pass::Pass;
use crate::validate::Launch;

/// Launches `kernel` on `stream` with `args`, its ABI's arguments
/// ([`Abi::args`]), each pushed as its parameter's type.
///
/// # Safety
/// `args` are `kernel`'s parameters in order and type; `config` is within
/// the hardware's limits with the kernel's block and dynamic shared memory;
/// every address the kernel reaches with these arguments lies in a buffer
/// that stays valid, and unconflicted by other work, until it finishes.
pub(crate) unsafe fn launch_abi<I: KernelCode>(
    stream: &Arc<CudaStream>,
    kernel: &LoadedKernel<I>,
    config: LaunchConfig,
    args: &[AbiArg<u64>],
) -> Result<(), GemmError> {
    // Tensor maps first, encoded into a list that outlives the builder.
    let maps = args
        .iter()
        .filter_map(|a| match a {
            AbiArg::TensorMap(m) => Some(crate::tensor_map::encode(m)),
            _ => None,
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut maps_left = maps.iter();
    let mut builder = stream.launch_builder(&kernel.function);
    for arg in args {
        match arg {
            AbiArg::Pointer(x) | AbiArg::U64(x) => builder.arg(x),
            AbiArg::U32(x) => builder.arg(x),
            AbiArg::F32(x) => builder.arg(x),
            AbiArg::F64(x) => builder.arg(x),
            AbiArg::TensorMap(_) => builder.arg(maps_left.next().expect("one encoded map per map argument")),
        };
    }
    // SAFETY: forwarded from this function's contract.
    unsafe { builder.launch(config) }
        .map(drop)
        .map_err(GemmError::driver(format!("launching kernel `{}`", kernel.entry())))
}

/// The arguments of a checked launch, laid out by the kernel's `abi`, with
/// A, B and C at the device addresses `abc` (and a stream-K kernel's slots,
/// counters and share).
pub(super) fn launch_args<E: Element>(
    launch: &Launch<E>,
    abi: &Abi,
    [a, b, c]: [u64; 3],
    batch: Batch,
    stream_k: Option<StreamK<u64>>,
) -> Vec<AbiArg<u64>> {
    let wide = |x: E| x.parts().map(Into::<f64>::into);
    let values = GemmValues {
        a,
        b,
        c,
        m: launch.m,
        n: launch.n,
        k: launch.k,
        lda: launch.lda,
        ldb: launch.ldb,
        ldc: launch.ldc,
        alpha: wide(launch.alpha),
        beta: wide(launch.beta),
        batch,
        stream_k,
    };
    abi.args(&values)
}

/// Whether the tensor maps of `abi` describe every chunk of `pass` (true
/// for a kernel without them): see `gemm_codegen::abi`'s "Tensor maps".
/// Where they do not, the kernel's twin runs instead.
pub(crate) fn maps_describe<E: Element>(abi: &Abi, pass: &Pass<E>) -> bool {
    pass.chunks().all(|chunk| {
        launch_args(&pass.launch, abi, [0; 3], chunk.batch, None)
            .iter()
            .all(|arg| !matches!(arg, AbiArg::TensorMap(m) if !m.describes))
    })
}
