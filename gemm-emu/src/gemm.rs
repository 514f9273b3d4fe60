//! GEMM kernels of the stencil on host slices: the kernel ABI (see
//! [`gemm_codegen::stencil`]) filled in from typed arguments.
//!
//! This layer checks only what it needs to run: that the element type is the
//! kernel's and that the program has the stencil's parameters. Everything a
//! BLAS checks (dimensions against leading dimensions, slice lengths, quick
//! returns for `alpha = 0`) is the caller's: the emulator reports any access
//! outside the slices as a fault instead.

use std::any::Any;

use num_complex::Complex;

use super::{Buffer, EmuError, Launch, Options, ParamValue, Program, Stats};
use gemm_codegen::BlockOrder;
use gemm_codegen::abi::{Abi, Arg, Batch, GemmValues, StreamK};
use gemm_codegen::ptx::ParamType;
use gemm_codegen::stream_k::StreamKGrid;
use gemm_codegen::{Element, KernelImage};
use gemm_codegen::{LaunchShape, Requirements};

/// The arguments of one GEMM launch, `C = alpha · op(A) · op(B) + beta · C`,
/// column-major, in the kernel ABI's terms. The ops are the kernel's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmArgs<T> {
    /// Rows of C and of op(A).
    pub m: u32,
    /// Columns of C and of op(B).
    pub n: u32,
    /// Columns of op(A), rows of op(B). The kernel reads A and B only when
    /// `k > 0`; a caller wanting BLAS's `alpha = 0` passes `k = 0`.
    pub k: u32,
    /// Leading dimension of A, in elements.
    pub lda: u64,
    /// Leading dimension of B, in elements.
    pub ldb: u64,
    /// Leading dimension of C, in elements.
    pub ldc: u64,
    /// Scales the product.
    pub alpha: T,
    /// Scales C; when zero, C is not read.
    pub beta: T,
}

/// A GEMM kernel, decoded once, run on host slices.
#[derive(Clone, Debug)]
pub struct Gemm {
    program: Program,
    entry: String,
    abi: Abi,
    launch: LaunchShape,
    requires: Requirements,
}

impl Gemm {
    /// Reads and decodes a compiled kernel.
    pub fn new(image: &KernelImage) -> Result<Gemm, EmuError> {
        let program = Program::from_ptx(&image.ptx, Some(&image.entry))?;
        Gemm::from_program(program, image)
    }

    /// A decoded program that implements `image`'s kernel: launched with its
    /// [`KernelImage::launch`] shape and arguments laid out by its
    /// [`KernelImage::abi`], which the program must declare.
    pub fn from_program(program: Program, image: &KernelImage) -> Result<Gemm, EmuError> {
        let (abi, requires) = (image.abi(), image.requires());
        check_params(&program, &abi, &format!("{} GEMM", requires.precision))?;
        Ok(Gemm { program, entry: image.entry.to_string(), abi, launch: image.launch(), requires })
    }

    /// The kernel's entry name.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// What the kernel requires of its arguments.
    pub fn requires(&self) -> &Requirements {
        &self.requires
    }

    /// The decoded kernel.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Runs `C = alpha · op(A) · op(B) + beta · C` with A, B and C bound to
    /// `a`, `b` and `c`, on the grid [`LaunchShape::grid`] gives for `m × n`.
    ///
    /// An empty grid (`m` or `n` zero) launches nothing: a GPU would refuse
    /// the launch, and there is nothing to compute. `c` is written back even
    /// when the kernel faults.
    pub fn run<T: Element>(
        &self,
        args: &GemmArgs<T>,
        a: &[T],
        b: &[T],
        c: &mut [T],
        options: &Options,
    ) -> Result<Stats, EmuError> {
        self.run_batch(args, 1, Batch::single(args.k), a, b, c, options)
    }

    /// Runs `problems` GEMMs in one launch, the grid's depth: problem `z`'s
    /// A, B and C start `z` strides of `batch` past `a`, `b` and `c`, and
    /// the last is `batch.k_last` deep (see `gemm_codegen::abi`'s "Batches
    /// and split K"). The slices must hold every problem; an access outside
    /// them is a fault.
    #[allow(clippy::too_many_arguments)] // the three buffers are the call's, as in `run`
    pub fn run_batch<T: Element>(
        &self,
        args: &GemmArgs<T>,
        problems: u32,
        batch: Batch,
        a: &[T],
        b: &[T],
        c: &mut [T],
        options: &Options,
    ) -> Result<Stats, EmuError> {
        let mut buffers = vec![
            Buffer::read_only("a", to_bytes(a)),
            Buffer::read_only("b", to_bytes(b)),
            Buffer::new("c", to_bytes(c)),
        ];
        let result = self.launch(args, problems, batch, None, &mut buffers, options);
        from_bytes(&buffers[BUFFER_C].bytes, c);
        result
    }

    /// Runs a stream-K kernel (`schedule = stream_k`) on `grid`'s blocks,
    /// each computing `grid.share` stripes (see `gemm_codegen::stream_k`),
    /// its partial tiles in `slots` (at least [`StreamKGrid::slots_bytes`]
    /// long, any contents) and its arrival counters in `counters` (one a
    /// tile, zero; a correct kernel leaves them zero). `c`, `slots` and `counters` are written back even when the
    /// kernel faults.
    #[allow(clippy::too_many_arguments)] // the buffers are the call's, as in `run`
    pub fn run_stream_k<T: Element>(
        &self,
        args: &GemmArgs<T>,
        grid: &StreamKGrid,
        a: &[T],
        b: &[T],
        c: &mut [T],
        (slots, counters): (&mut [T], &mut [u32]),
        options: &Options,
    ) -> Result<Stats, EmuError> {
        if !matches!(self.launch.order, BlockOrder::StreamK { .. }) {
            return Err(EmuError::Launch(format!("kernel `{}` is not a stream-K kernel", self.entry)));
        }
        let mut buffers = vec![
            Buffer::read_only("a", to_bytes(a)),
            Buffer::read_only("b", to_bytes(b)),
            Buffer::new("c", to_bytes(c)),
            Buffer::new("slots", to_bytes(slots)),
            Buffer::new("counters", counters.iter().flat_map(|x| x.to_le_bytes()).collect()),
        ];
        let result = self.launch(args, 1, Batch::single(args.k), Some(grid), &mut buffers, options);
        from_bytes(&buffers[BUFFER_C].bytes, c);
        from_bytes(&buffers[BUFFER_SLOTS].bytes, slots);
        for (x, w) in counters.iter_mut().zip(buffers[BUFFER_SLOTS + 1].bytes.chunks_exact(4)) {
            *x = u32::from_le_bytes(w.try_into().expect("4 bytes"));
        }
        result
    }

    /// Runs one GEMM per element of `a`, `b` and `c` (all of one length, at
    /// most a grid's depth) in one launch, the kernel reading each
    /// problem's matrices through arrays of pointers (`arrays = 1`, see
    /// `gemm_codegen::abi`), the last problem `k_last` deep. Every `c` is
    /// written back even when the kernel faults.
    pub fn run_arrays<T: Element>(
        &self,
        args: &GemmArgs<T>,
        k_last: u32,
        a: &[&[T]],
        b: &[&[T]],
        c: &mut [&mut [T]],
        options: &Options,
    ) -> Result<Stats, EmuError> {
        let count = a.len();
        if b.len() != count || c.len() != count {
            return Err(EmuError::Launch(format!(
                "pointer arrays of different lengths: {count} A, {} B and {} C",
                b.len(),
                c.len()
            )));
        }
        let problems = u32::try_from(count).map_err(|_| EmuError::Launch(format!("{count} problems")))?;
        // Buffers 0..3 are the arrays, then every A, every B, every C.
        let array = |first: usize| -> Vec<u8> {
            (first..first + count).flat_map(|i| crate::buffer_address(i).to_le_bytes()).collect()
        };
        let mut buffers = vec![
            Buffer::read_only("a pointers", array(3)),
            Buffer::read_only("b pointers", array(3 + count)),
            Buffer::read_only("c pointers", array(3 + 2 * count)),
        ];
        buffers.extend(a.iter().enumerate().map(|(i, x)| Buffer::read_only(format!("a[{i}]"), to_bytes(x))));
        buffers.extend(b.iter().enumerate().map(|(i, x)| Buffer::read_only(format!("b[{i}]"), to_bytes(x))));
        buffers.extend(c.iter().enumerate().map(|(i, x)| Buffer::new(format!("c[{i}]"), to_bytes(x))));
        let batch = Batch { stride_a: 0, stride_b: 0, stride_c: 0, k_last, arrays: true, problems };
        let result = self.launch(args, problems, batch, None, &mut buffers, options);
        for (i, x) in c.iter_mut().enumerate() {
            from_bytes(&buffers[3 + 2 * count + i].bytes, x);
        }
        result
    }

    /// Launches `problems` problems with A, B and C bound to buffers 0, 1
    /// and 2; with `stream_k`, one problem on its grid, the slots and the
    /// counters bound to buffers 3 and 4.
    fn launch<T: Element>(
        &self,
        args: &GemmArgs<T>,
        problems: u32,
        batch: Batch,
        stream_k: Option<&StreamKGrid>,
        buffers: &mut [Buffer],
        options: &Options,
    ) -> Result<Stats, EmuError> {
        check_element::<T>(&self.program, self.requires.precision)?;
        let grid = match stream_k {
            Some(g) => (g.blocks, 1, 1),
            None => self.launch.batch_grid(args.m, args.n, problems).map_err(grid_overflow)?,
        };
        if grid.0 == 0 || grid.1 == 0 || grid.2 == 0 {
            return Ok(Stats::default());
        }
        let wide = |x: T| x.parts().map(Into::<f64>::into);
        let values = GemmValues {
            a: BUFFER_A,
            b: BUFFER_B,
            c: BUFFER_C,
            m: args.m,
            n: args.n,
            k: args.k,
            lda: args.lda,
            ldb: args.ldb,
            ldc: args.ldc,
            alpha: wide(args.alpha),
            beta: wide(args.beta),
            batch: Batch { problems, ..batch },
            stream_k: stream_k.map(|g| StreamK {
                slots: BUFFER_SLOTS,
                counters: BUFFER_SLOTS + 1,
                share: g.share,
            }),
        };
        let params = param_values(&self.abi, &values);
        // Stripes over 48 KiB live in dynamic shared memory, sized here.
        let launch = Launch {
            grid,
            block: self.launch.block,
            params,
            dynamic_shared_bytes: self.launch.dynamic_shared_bytes,
            options: options.clone(),
        };
        self.program.run(&launch, buffers)
    }
}

/// Fails unless `T` is the element type of `program`, a kernel on
/// `precision`.
pub(crate) fn check_element<T: Element>(
    program: &Program,
    precision: gemm_codegen::Precision,
) -> Result<(), EmuError> {
    if T::PRECISION == precision {
        return Ok(());
    }
    Err(EmuError::Launch(format!(
        "kernel `{}` computes on {precision} elements, not {}",
        program.name(),
        T::PRECISION
    )))
}

/// A grid a launch would overflow, as the emulator's error.
pub(crate) fn grid_overflow(o: gemm_codegen::GridOverflow) -> EmuError {
    EmuError::Launch(format!("{} blocks along {} exceed the grid's {}", o.blocks, o.axis, o.max))
}

/// Fails unless `program` declares exactly `abi`'s parameters (`what`
/// names the kind of kernel expected).
pub(crate) fn check_params(program: &Program, abi: &Abi, what: &str) -> Result<(), EmuError> {
    let got: Vec<(&str, ParamType)> = program.params().iter().map(|p| (p.name.as_str(), p.ty)).collect();
    let want: Vec<(&str, ParamType)> = abi.params().iter().map(|p| (p.name, p.ty)).collect();
    if got == want {
        return Ok(());
    }
    let show =
        |v: &[(&str, ParamType)]| v.iter().map(|(n, t)| format!("{t} {n}")).collect::<Vec<_>>().join(", ");
    Err(EmuError::Launch(format!(
        "kernel `{}` does not have the {what} parameters ({}); it has ({})",
        program.name(),
        show(&want),
        show(&got)
    )))
}

/// The launch's parameter values, laid out by `abi`; matrices are named by
/// buffer index.
pub(crate) fn param_values(abi: &Abi, values: &GemmValues<usize>) -> Vec<ParamValue> {
    abi.args(values)
        .into_iter()
        .map(|arg| match arg {
            Arg::Pointer(buffer) => ParamValue::ptr(buffer),
            Arg::U32(x) => ParamValue::U32(x),
            Arg::U64(x) => ParamValue::U64(x),
            Arg::F32(x) => ParamValue::F32(x),
            Arg::F64(x) => ParamValue::F64(x),
            Arg::TensorMap(map) => ParamValue::TensorMap(map),
        })
        .collect()
}

/// Where [`Gemm::run`] binds A, B and C.
const BUFFER_A: usize = 0;
const BUFFER_B: usize = 1;
const BUFFER_C: usize = 2;
/// Where [`Gemm::run_stream_k`] binds the slots (the counters next).
const BUFFER_SLOTS: usize = 3;

/// The little-endian bytes of `xs`, bit for bit (NaN payloads included).
pub(crate) fn to_bytes<T: Element>(xs: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(xs));
    for x in xs {
        let any = x as &dyn Any;
        if let Some(v) = any.downcast_ref::<f32>() {
            out.extend(v.to_bits().to_le_bytes());
        } else if let Some(v) = any.downcast_ref::<f64>() {
            out.extend(v.to_bits().to_le_bytes());
        } else if let Some(v) = any.downcast_ref::<Complex<f32>>() {
            out.extend(v.re.to_bits().to_le_bytes());
            out.extend(v.im.to_bits().to_le_bytes());
        } else if let Some(v) = any.downcast_ref::<Complex<f64>>() {
            out.extend(v.re.to_bits().to_le_bytes());
            out.extend(v.im.to_bits().to_le_bytes());
        } else if let Some(v) = any.downcast_ref::<half::f16>() {
            out.extend(v.to_bits().to_le_bytes());
        } else if let Some(v) = any.downcast_ref::<half::bf16>() {
            out.extend(v.to_bits().to_le_bytes());
        } else {
            unreachable!("Element is sealed to six types")
        }
    }
    out
}

/// Overwrites `xs` with the elements in `bytes`, bit for bit.
pub(crate) fn from_bytes<T: Element>(bytes: &[u8], xs: &mut [T]) {
    let f32_at = |i: usize| f32::from_bits(u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")));
    let f64_at = |i: usize| f64::from_bits(u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes")));
    let u16_at = |i: usize| u16::from_le_bytes(bytes[i..i + 2].try_into().expect("2 bytes"));
    let size = T::PRECISION.element_bytes() as usize;
    let part = size / 2;
    for (i, x) in xs.iter_mut().enumerate() {
        let at = i * size;
        let any = x as &mut dyn Any;
        if let Some(v) = any.downcast_mut::<f32>() {
            *v = f32_at(at);
        } else if let Some(v) = any.downcast_mut::<f64>() {
            *v = f64_at(at);
        } else if let Some(v) = any.downcast_mut::<Complex<f32>>() {
            *v = Complex::new(f32_at(at), f32_at(at + part));
        } else if let Some(v) = any.downcast_mut::<Complex<f64>>() {
            *v = Complex::new(f64_at(at), f64_at(at + part));
        } else if let Some(v) = any.downcast_mut::<half::f16>() {
            *v = half::f16::from_bits(u16_at(at));
        } else if let Some(v) = any.downcast_mut::<half::bf16>() {
            *v = half::bf16::from_bits(u16_at(at));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_can_be_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Gemm>();
        send_sync::<Program>();
        send_sync::<EmuError>();
    }

    #[test]
    fn elements_keep_their_bits() {
        let xs =
            [Complex::new(f32::from_bits(0x7fa0_0001), -0.0), Complex::new(1.5, f32::MIN_POSITIVE / 4.0)];
        let bytes = to_bytes(&xs);
        assert_eq!(bytes.len(), 16);
        let mut back = [Complex::new(0.0f32, 0.0); 2];
        from_bytes(&bytes, &mut back);
        for (x, y) in xs.iter().zip(&back) {
            assert_eq!((x.re.to_bits(), x.im.to_bits()), (y.re.to_bits(), y.im.to_bits()));
        }
        let hs = [half::f16::from_bits(0x7e01), half::f16::from_bits(0x8001)];
        assert_eq!(to_bytes(&hs), [0x01, 0x7e, 0x01, 0x80]);
        let mut back = [half::bf16::ZERO; 2];
        from_bytes(&[0x80, 0x3f, 0x01, 0xff], &mut back);
        assert_eq!(back.map(half::bf16::to_bits), [0x3f80, 0xff01]);
    }
}
