//! The kernel ABI: one description of a kernel's parameter list, from which
//! everything that must agree on it is derived.
//!
//! ```text
//!                  ┌──▶ PTX `.param` list        (the lowering declares them)
//! Abi::gemm(prec) ─┼──▶ emulator argument block  (gemm-emu packs them)
//!                  └──▶ driver launch arguments  (gemm-host pushes them)
//! ```
//!
//! A parameter is a name, a PTX type and a [`Role`]: what the value means.
//! Callers never write the list out themselves: they describe one launch as
//! [`GemmValues`] and ask the ABI for the arguments in order
//! ([`Abi::args`]), so adding, removing or reordering a parameter is a change
//! to this file alone. A kernel family with other parameters adds roles
//! here and its own constructor.
//!
//! # Batches and split K
//!
//! A GEMM kernel computes one problem per z-index of its grid: block
//! `(x, y, z)` computes tile `(x, y)` of problem `z`, whose A, B and C start
//! `z · stride_a`, `z · stride_b` and `z · stride_c` elements past `a`, `b`
//! and `c`, and whose reduction length is `k`, or `k_last` for the last
//! problem (`z = nctaid.z − 1`). One call is a grid of depth 1 with
//! `k_last = k` ([`Batch::single`]); a strided batch has `k_last = k`; a
//! split K cuts one problem's reduction into slices, each slice a problem
//! whose A and B start `k` columns (or rows) further and whose C is the
//! slice's own partial result, all `k` deep but the last.
//!
//! With `arrays` nonzero, `a`, `b` and `c` are instead the addresses of
//! three arrays of 64-bit pointers, one per problem, and problem `z`'s
//! matrices start at element `z` of each (the strides are then 0): the
//! pointer-array batch of `cublasGemmBatchedEx`.
//!
//! # Stream-K
//!
//! A stream-K kernel (`schedule = stream_k`, [`Abi::gemm_stream_k`]) takes
//! three more parameters: `slots` and `counters`, the addresses of its
//! partial tiles and of its tiles' arrival counters
//! ([`crate::stream_k::StreamKGrid`]), and `share`, the stripes each block
//! computes. Its grid is one-dimensional,
//! `⌈stripes / share⌉` blocks, with `stripes` the tiles of C times
//! `max(1, ⌈k / tile.2⌉)`, for one problem (`nctaid.z = 1`). With
//! `share = 0` (no [`GemmValues::stream_k`]) each block computes one whole
//! tile, on the grid of a block per tile and problem, like any kernel.
//!
//! # Tensor maps
//!
//! A kernel whose stripes `cp.async.bulk.tensor` brings (`ldg = tma`,
//! [`Abi::gemm_tma`]) also takes one tensor map per operand it copies so,
//! by value: an opaque 128-byte parameter ([`ParamType::TensorMap`]). The
//! ABI describes each map as a [`TensorMap`] — the operand as a tensor of
//! three dimensions (its contiguous one, its other one, the problems of the
//! launch) and the box one copy brings — and the caller encodes it: the
//! host with the driver (`cuTensorMapEncodeTiled`), the emulator in its own
//! layout. Elements of a box outside the tensor land as zeros, so the
//! kernel copies edge tiles without bounds of its own. A map describes a
//! launch only where [`TensorMap::describes`] says so (aligned operands, a
//! strided batch whose problems all have the same depth); the caller runs
//! the kernel's twin otherwise.
//!
//! # Swapped operands
//!
//! A kernel that computes the transposed product (`operands = ba`,
//! [`crate::Operands::Ba`]) takes the call's B as its `a` and A as its `b`:
//! its ABI ([`Abi::swapped`]) is the same list of parameters with their
//! roles traded — `a`, `lda`, `stride_a` carry B's, `m` carries the call's
//! N — so callers describe the call as for any kernel and the arguments
//! land where that kernel reads them.

use std::fmt;

use crate::ptx::{ParamType, Type};
use crate::spec::Precision;

/// One of the three matrices of a GEMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Matrix {
    /// The left operand, `op(A)` is `m × k`.
    A,
    /// The right operand, `op(B)` is `k × n`.
    B,
    /// The result, `m × n`.
    C,
}

/// One of the three problem dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Rows of C.
    M,
    /// Columns of C.
    N,
    /// The reduction length.
    K,
}

/// Which scalar of a (possibly complex) coefficient.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// The real part (the whole value for real precisions).
    Re,
    /// The imaginary part.
    Im,
}

impl Matrix {
    /// The matrix that takes this one's place in the transposed product
    /// `Cᵀ = op(B)ᵀ · op(A)ᵀ`: A and B trade places, C stays.
    pub const fn swapped(self) -> Matrix {
        match self {
            Matrix::A => Matrix::B,
            Matrix::B => Matrix::A,
            Matrix::C => Matrix::C,
        }
    }
}

impl Dim {
    /// The dimension that takes this one's place in the transposed
    /// product: M and N trade places, K stays.
    pub const fn swapped(self) -> Dim {
        match self {
            Dim::M => Dim::N,
            Dim::N => Dim::M,
            Dim::K => Dim::K,
        }
    }
}

/// What a kernel parameter carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The generic address of a matrix's first element (`.u64`).
    Pointer(Matrix),
    /// A problem dimension (`.u32`, at most `i32::MAX`).
    Extent(Dim),
    /// A matrix's leading dimension, in elements (`.u64`).
    Lead(Matrix),
    /// A scalar of `alpha`, in the kernel's real type.
    Alpha(Part),
    /// A scalar of `beta`, in the kernel's real type.
    Beta(Part),
    /// The distance from one problem of a batch to the next, in elements
    /// (`.u64`): see the module's "Batches and split K".
    BatchStride(Matrix),
    /// The reduction length of the batch's last problem (`.u32`).
    LastDepth,
    /// Nonzero when A, B and C are arrays of per-problem pointers (`.u32`).
    PointerArrays,
    /// The address of a stream-K kernel's slots for partial tiles
    /// (`.u64`): see the module's "Stream-K".
    Slots,
    /// The address of a stream-K kernel's arrival counters, one `u32` a
    /// tile, zero before the launch and after it (`.u64`).
    Counters,
    /// The stripes each block of a stream-K kernel computes (`.u32`).
    Share,
    /// The tensor map of an operand ([`ParamType::TensorMap`]): see the
    /// module's "Tensor maps".
    TensorMap(MapRole),
}

impl Role {
    /// What the parameter carries in the transposed product ([`Matrix::swapped`],
    /// [`Dim::swapped`]): see the module's "Swapped operands".
    pub const fn swapped(self) -> Role {
        match self {
            Role::Pointer(x) => Role::Pointer(x.swapped()),
            Role::Extent(d) => Role::Extent(d.swapped()),
            Role::Lead(x) => Role::Lead(x.swapped()),
            Role::BatchStride(x) => Role::BatchStride(x.swapped()),
            Role::TensorMap(map) => {
                Role::TensorMap(MapRole { matrix: map.matrix.swapped(), inner: map.inner.swapped(), ..map })
            }
            other => other,
        }
    }
}

/// Which tensor map a [`Role::TensorMap`] parameter carries: the operand,
/// which of its dimensions is contiguous, and the box one copy brings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MapRole {
    /// A or B.
    pub matrix: Matrix,
    /// The dimension along which the operand is contiguous in memory (its
    /// map's dimension 0): K for an operand stored K-major.
    pub inner: Dim,
    /// Elements of a box along the contiguous dimension, then along the
    /// other one.
    pub box_dims: [u32; 2],
    /// Whether a box lands with the 128-byte swizzle (its rows 128 bytes).
    pub swizzle_128: bool,
    /// Bytes of one element of the operand.
    pub element_bytes: u32,
}

/// One kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// The `.param` name in the PTX.
    pub name: &'static str,
    /// Its PTX type.
    pub ty: ParamType,
    /// What it carries.
    pub role: Role,
}

/// A kernel's parameter list, in launch order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Abi {
    params: Vec<Param>,
}

impl Abi {
    /// The GEMM ABI of the stencil family for `precision`: `a`, `b`, `c`
    /// (`.u64` addresses), `m`, `n`, `k`, `k_last` (`.u32`), `lda`, `ldb`,
    /// `ldc`, `stride_a`, `stride_b`, `stride_c` (`.u64`, in elements),
    /// `arrays` (`.u32`), then
    /// `alpha` and `beta` as one scalar each for real precisions, or as
    /// `alpha_re`, `alpha_im`, `beta_re`, `beta_im` for complex ones, in the
    /// type the kernel computes in (`f32` for the 16-bit precisions,
    /// [`Precision::compute_bytes`]).
    pub fn gemm(precision: Precision) -> Abi {
        use {Dim::*, Matrix::*, Part::*, Role::*};
        let scalar = if precision.compute_bytes() == 4 { Type::F32 } else { Type::F64 };
        let mut params = vec![
            Param { name: "a", ty: ParamType::Scalar(Type::U64), role: Pointer(A) },
            Param { name: "b", ty: ParamType::Scalar(Type::U64), role: Pointer(B) },
            Param { name: "c", ty: ParamType::Scalar(Type::U64), role: Pointer(C) },
            Param { name: "m", ty: ParamType::Scalar(Type::U32), role: Extent(M) },
            Param { name: "n", ty: ParamType::Scalar(Type::U32), role: Extent(N) },
            Param { name: "k", ty: ParamType::Scalar(Type::U32), role: Extent(K) },
            Param { name: "k_last", ty: ParamType::Scalar(Type::U32), role: LastDepth },
            Param { name: "lda", ty: ParamType::Scalar(Type::U64), role: Lead(A) },
            Param { name: "ldb", ty: ParamType::Scalar(Type::U64), role: Lead(B) },
            Param { name: "ldc", ty: ParamType::Scalar(Type::U64), role: Lead(C) },
            Param { name: "stride_a", ty: ParamType::Scalar(Type::U64), role: BatchStride(A) },
            Param { name: "stride_b", ty: ParamType::Scalar(Type::U64), role: BatchStride(B) },
            Param { name: "stride_c", ty: ParamType::Scalar(Type::U64), role: BatchStride(C) },
            Param { name: "arrays", ty: ParamType::Scalar(Type::U32), role: PointerArrays },
        ];
        if precision.is_complex() {
            params.extend([
                Param { name: "alpha_re", ty: ParamType::Scalar(scalar), role: Alpha(Re) },
                Param { name: "alpha_im", ty: ParamType::Scalar(scalar), role: Alpha(Im) },
                Param { name: "beta_re", ty: ParamType::Scalar(scalar), role: Beta(Re) },
                Param { name: "beta_im", ty: ParamType::Scalar(scalar), role: Beta(Im) },
            ]);
        } else {
            params.extend([
                Param { name: "alpha", ty: ParamType::Scalar(scalar), role: Alpha(Re) },
                Param { name: "beta", ty: ParamType::Scalar(scalar), role: Beta(Re) },
            ]);
        }
        Abi { params }
    }

    /// The ABI of a stream-K stencil kernel for `precision`: [`Abi::gemm`]'s
    /// parameters, then `slots`, `counters` (`.u64`) and `share` (`.u32`).
    pub fn gemm_stream_k(precision: Precision) -> Abi {
        let mut abi = Abi::gemm(precision);
        abi.params.extend([
            Param { name: "slots", ty: ParamType::Scalar(Type::U64), role: Role::Slots },
            Param { name: "counters", ty: ParamType::Scalar(Type::U64), role: Role::Counters },
            Param { name: "share", ty: ParamType::Scalar(Type::U32), role: Role::Share },
        ]);
        abi
    }

    /// The ABI of a kernel whose stripes `cp.async.bulk.tensor` brings:
    /// [`Abi::gemm`]'s parameters, then a tensor map for each of `maps`
    /// (`a_map`, `b_map`): see the module's "Tensor maps".
    pub fn gemm_tma(precision: Precision, maps: &[MapRole]) -> Abi {
        let mut abi = Abi::gemm(precision);
        abi.params.extend(maps.iter().map(|&map| Param {
            name: match map.matrix {
                Matrix::A => "a_map",
                Matrix::B => "b_map",
                Matrix::C => "c_map",
            },
            ty: ParamType::TensorMap,
            role: Role::TensorMap(map),
        }));
        abi
    }

    /// The ABI of a bespoke constant-A kernel ([`crate::bespoke`]) for
    /// `precision` (real): `b`, `c` (`.u64` addresses), `n` (`.u32`),
    /// `ldb`, `ldc` (`.u64`, in elements), `alpha`, and `beta` when the
    /// kernel takes it at run time. A is in the code, so it has no
    /// parameter; `m` and `k` are the operator's.
    pub fn bespoke(precision: Precision, beta_runtime: bool) -> Abi {
        use {Dim::*, Matrix::*, Part::*, Role::*};
        let scalar = if precision.compute_bytes() == 4 { Type::F32 } else { Type::F64 };
        let mut params = vec![
            Param { name: "b", ty: ParamType::Scalar(Type::U64), role: Pointer(B) },
            Param { name: "c", ty: ParamType::Scalar(Type::U64), role: Pointer(C) },
            Param { name: "n", ty: ParamType::Scalar(Type::U32), role: Extent(N) },
            Param { name: "ldb", ty: ParamType::Scalar(Type::U64), role: Lead(B) },
            Param { name: "ldc", ty: ParamType::Scalar(Type::U64), role: Lead(C) },
            Param { name: "alpha", ty: ParamType::Scalar(scalar), role: Alpha(Re) },
        ];
        if beta_runtime {
            params.push(Param { name: "beta", ty: ParamType::Scalar(scalar), role: Beta(Re) });
        }
        Abi { params }
    }

    /// The ABI of the kernel that computes the transposed product of this
    /// one's (`operands = ba`): the same parameters, each carrying
    /// [`Role::swapped`] — see the module's "Swapped operands".
    pub fn swapped(self) -> Abi {
        let params = self.params.into_iter().map(|p| Param { role: p.role.swapped(), ..p }).collect();
        Abi { params }
    }

    /// The parameters, in launch order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Whether the kernel takes tensor maps ([`Role::TensorMap`]).
    pub fn has_tensor_maps(&self) -> bool {
        self.params.iter().any(|p| matches!(p.role, Role::TensorMap(_)))
    }

    /// The parameter with `role`, if the ABI has one.
    pub fn find(&self, role: Role) -> Option<(usize, &Param)> {
        self.params.iter().enumerate().find(|(_, p)| p.role == role)
    }

    /// The parameter list as PTX declares it: `.u64 a, .u64 b, ...`.
    pub fn signature(&self) -> String {
        let parts: Vec<String> = self
            .params
            .iter()
            .map(|p| match p.ty {
                ParamType::Scalar(t) => format!("{t} {}", p.name),
                ParamType::TensorMap => format!("{} {}[{}]", p.ty, p.name, ParamType::TENSOR_MAP_BYTES),
            })
            .collect();
        parts.join(", ")
    }

    /// The arguments of one launch, in order, each of its parameter's type.
    ///
    /// `P` is however the caller names a matrix: a device address on the
    /// GPU, a buffer index in the emulator. A coefficient's scalars are
    /// given in f64 and narrowed to the parameter's type: exact, since they
    /// came from that type.
    pub fn args<P: Copy>(&self, values: &GemmValues<P>) -> Vec<Arg<P>> {
        self.params
            .iter()
            .map(|p| {
                let scalar = |x: f64| {
                    if p.ty == ParamType::Scalar(Type::F32) { Arg::F32(x as f32) } else { Arg::F64(x) }
                };
                match p.role {
                    Role::Pointer(x) => Arg::Pointer(values.pointer(x)),
                    Role::Extent(d) => Arg::U32(values.extent(d)),
                    Role::Lead(x) => Arg::U64(values.lead(x)),
                    Role::Alpha(part) => scalar(values.alpha[part as usize]),
                    Role::Beta(part) => scalar(values.beta[part as usize]),
                    Role::BatchStride(x) => Arg::U64(values.batch.stride(x)),
                    Role::LastDepth => Arg::U32(values.batch.k_last),
                    Role::PointerArrays => Arg::U32(u32::from(values.batch.arrays)),
                    Role::Slots => values.stream_k.map_or(Arg::U64(0), |s| Arg::Pointer(s.slots)),
                    Role::Counters => values.stream_k.map_or(Arg::U64(0), |s| Arg::Pointer(s.counters)),
                    Role::Share => Arg::U32(values.stream_k.map_or(0, |s| s.share)),
                    Role::TensorMap(map) => Arg::TensorMap(values.tensor_map(map)),
                }
            })
            .collect()
    }
}

impl fmt::Display for Abi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.signature())
    }
}

/// The values of one GEMM launch, in the ABI's terms (column-major, the
/// kernel's ops), before they are laid out as arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmValues<P> {
    /// How the caller names A, B and C.
    pub a: P,
    /// See [`GemmValues::a`].
    pub b: P,
    /// See [`GemmValues::a`].
    pub c: P,
    /// Rows of C.
    pub m: u32,
    /// Columns of C.
    pub n: u32,
    /// Reduction length (0 when `alpha = 0`: A and B are then not read).
    pub k: u32,
    /// Leading dimension of A, in elements.
    pub lda: u64,
    /// Leading dimension of B, in elements.
    pub ldb: u64,
    /// Leading dimension of C, in elements.
    pub ldc: u64,
    /// `alpha` as `[re, im]` (`im` 0 for real precisions).
    pub alpha: [f64; 2],
    /// `beta` as `[re, im]`.
    pub beta: [f64; 2],
    /// Where the grid's further problems lie ([`Batch::single`] for one).
    pub batch: Batch,
    /// A stream-K launch's workspace and share (`None` for other kernels).
    pub stream_k: Option<StreamK<P>>,
}

/// The arguments only a stream-K launch has: see the module's "Stream-K".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamK<P> {
    /// How the caller names the slots for partial tiles
    /// ([`crate::stream_k::StreamKGrid::slots_bytes`]).
    pub slots: P,
    /// How the caller names the tiles' arrival counters
    /// ([`crate::stream_k::StreamKGrid::counters_bytes`], zeroed).
    pub counters: P,
    /// Stripes each block computes (at least 1).
    pub share: u32,
}

/// The problems of one launch beyond the first, in the ABI's terms: see the
/// module's "Batches and split K".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Batch {
    /// Elements from one problem's A to the next's.
    pub stride_a: u64,
    /// Elements from one problem's B to the next's.
    pub stride_b: u64,
    /// Elements from one problem's C to the next's.
    pub stride_c: u64,
    /// The last problem's reduction length (the others' is `k`).
    pub k_last: u32,
    /// Whether `a`, `b`, `c` address arrays of per-problem pointers (the
    /// strides then 0).
    pub arrays: bool,
    /// Problems in the launch (its grid's depth).
    pub problems: u32,
}

impl Batch {
    /// One problem, `k` deep: a grid of depth 1.
    pub const fn single(k: u32) -> Batch {
        Batch { stride_a: 0, stride_b: 0, stride_c: 0, k_last: k, arrays: false, problems: 1 }
    }

    /// The stride of `x`.
    pub const fn stride(&self, x: Matrix) -> u64 {
        match x {
            Matrix::A => self.stride_a,
            Matrix::B => self.stride_b,
            Matrix::C => self.stride_c,
        }
    }
}

impl<P: Copy> GemmValues<P> {
    fn pointer(&self, x: Matrix) -> P {
        match x {
            Matrix::A => self.a,
            Matrix::B => self.b,
            Matrix::C => self.c,
        }
    }

    fn extent(&self, d: Dim) -> u32 {
        match d {
            Dim::M => self.m,
            Dim::N => self.n,
            Dim::K => self.k,
        }
    }

    fn lead(&self, x: Matrix) -> u64 {
        match x {
            Matrix::A => self.lda,
            Matrix::B => self.ldb,
            Matrix::C => self.ldc,
        }
    }

    /// The tensor map `map` describes for this launch: its operand's
    /// contiguous dimension, its other one and the problems, with the
    /// leading dimension and the batch stride as byte strides.
    fn tensor_map(&self, map: MapRole) -> TensorMap<P> {
        let outer = match (map.matrix, map.inner) {
            (Matrix::A, Dim::K) => Dim::M,
            (Matrix::B, Dim::K) | (Matrix::C, Dim::M) => Dim::N,
            (Matrix::A, _) | (Matrix::B, Dim::N) => Dim::K,
            (Matrix::B | Matrix::C, _) => Dim::M,
        };
        let esz = u64::from(map.element_bytes);
        let lead = self.lead(map.matrix) * esz;
        let stride = self.batch.stride(map.matrix) * esz;
        TensorMap {
            base: self.pointer(map.matrix),
            element_bytes: map.element_bytes,
            dims: [
                u64::from(self.extent(map.inner)),
                u64::from(self.extent(outer)),
                u64::from(self.batch.problems),
            ],
            // One problem: any stride the encoding accepts (the next
            // problem is never reached).
            strides: [
                lead,
                if self.batch.problems > 1 { stride } else { lead * u64::from(self.extent(outer)) },
            ],
            box_dims: [map.box_dims[0], map.box_dims[1], 1],
            swizzle_128: map.swizzle_128,
            describes: self.maps_describe(lead, stride),
        }
    }

    /// Whether tensor maps describe this launch: see [`TensorMap::describes`].
    fn maps_describe(&self, lead: u64, stride: u64) -> bool {
        let b = &self.batch;
        let aligned = |x: u64| x.is_multiple_of(TensorMap::<P>::ALIGN) && x < 1 << 40;
        !b.arrays
            && b.k_last == self.k
            && aligned(lead)
            && (b.problems <= 1 || (stride != 0 && aligned(stride)))
    }
}

/// How `cp.async.bulk.tensor` sees one operand of one launch: see the
/// module's "Tensor maps".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorMap<P> {
    /// Where element `(0, 0, 0)` lies, named as the caller names matrices.
    pub base: P,
    /// Bytes of one element.
    pub element_bytes: u32,
    /// Elements along dimension 0 (contiguous), 1 and 2 (the problems).
    pub dims: [u64; 3],
    /// Bytes from one index of dimension 1, then 2, to the next.
    pub strides: [u64; 2],
    /// Elements of one box along each dimension.
    pub box_dims: [u32; 3],
    /// Whether a box lands with the 128-byte swizzle: its rows are 128
    /// bytes, and the 16-byte chunk `c` of row `r` goes to chunk `c ^ (r
    /// mod 8)` (the layout `wgmma`'s 128-byte swizzle reads).
    pub swizzle_128: bool,
    /// Whether the map describes the launch: no pointer arrays, every
    /// problem as deep as the first (no split K), the leading dimension
    /// and (for several problems) a nonzero batch stride multiples of 16
    /// bytes below 2⁴⁰. Base addresses are the operands' alignment, which
    /// the kernel's requirements state and the caller checks. Where this
    /// is false the caller runs the kernel's twin instead.
    pub describes: bool,
}

impl<P> TensorMap<P> {
    /// What the strides of a tensor map must be multiples of, in bytes (and
    /// its base address aligned to).
    pub const ALIGN: u64 = 16;
}

/// One launch argument, typed as its parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<P> {
    /// A matrix, named as the caller names it.
    Pointer(P),
    /// A `.u32`.
    U32(u32),
    /// A `.u64`.
    U64(u64),
    /// A `.f32`.
    F32(f32),
    /// A `.f64`.
    F64(f64),
    /// A tensor map, for the caller to encode.
    TensorMap(TensorMap<P>),
}

impl<P> Arg<P> {
    /// The PTX type of the parameter this argument fills.
    pub const fn ty(&self) -> ParamType {
        ParamType::Scalar(match self {
            Arg::Pointer(_) | Arg::U64(_) => Type::U64,
            Arg::U32(_) => Type::U32,
            Arg::F32(_) => Type::F32,
            Arg::F64(_) => Type::F64,
            Arg::TensorMap(_) => return ParamType::TensorMap,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> GemmValues<u8> {
        GemmValues {
            a: 1,
            b: 2,
            c: 3,
            m: 4,
            n: 5,
            k: 6,
            lda: 7,
            ldb: 8,
            ldc: 9,
            alpha: [1.5, -2.5],
            beta: [0.25, 4.0],
            batch: Batch { stride_a: 10, stride_b: 11, stride_c: 12, k_last: 13, arrays: true, problems: 3 },
            stream_k: None,
        }
    }

    #[test]
    fn every_argument_has_its_parameters_type_and_value() {
        for precision in Precision::ALL {
            let abi = Abi::gemm(precision);
            let args = abi.args(&values());
            assert_eq!(args.len(), abi.params().len());
            for (arg, param) in args.iter().zip(abi.params()) {
                assert_eq!(arg.ty(), param.ty, "{precision} {}", param.name);
            }
            assert_eq!(args[..3], [Arg::Pointer(1), Arg::Pointer(2), Arg::Pointer(3)]);
            assert_eq!(
                args[3..14],
                [
                    Arg::U32(4),
                    Arg::U32(5),
                    Arg::U32(6),
                    Arg::U32(13),
                    Arg::U64(7),
                    Arg::U64(8),
                    Arg::U64(9),
                    Arg::U64(10),
                    Arg::U64(11),
                    Arg::U64(12),
                    Arg::U32(1)
                ]
            );
            let scalars: Vec<f64> = args[14..]
                .iter()
                .map(|a| match *a {
                    Arg::F32(x) => f64::from(x),
                    Arg::F64(x) => x,
                    _ => panic!("{a:?} is not a scalar"),
                })
                .collect();
            let want: &[f64] = if precision.is_complex() { &[1.5, -2.5, 0.25, 4.0] } else { &[1.5, 0.25] };
            assert_eq!(scalars, want, "{precision}");
        }
    }

    #[test]
    fn names_are_unique_and_roles_findable() {
        let abi = Abi::gemm(Precision::C64);
        let mut names: Vec<_> = abi.params().iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), abi.params().len());
        assert_eq!(abi.find(Role::Beta(Part::Im)).map(|(i, p)| (i, p.name)), Some((17, "beta_im")));
        assert_eq!(Abi::gemm(Precision::F32).find(Role::Alpha(Part::Im)), None);
        assert!(Abi::gemm(Precision::F64).signature().ends_with(".f64 alpha, .f64 beta"));
        let map = MapRole {
            matrix: Matrix::B,
            inner: Dim::K,
            box_dims: [32, 256],
            swizzle_128: true,
            element_bytes: 4,
        };
        let tma = Abi::gemm_tma(Precision::F32, &[map]);
        assert_eq!(tma.find(Role::TensorMap(map)).map(|(i, p)| (i, p.name)), Some((16, "b_map")));
        assert!(tma.signature().ends_with(".f32 beta, .align 64 .b8 b_map[128]"), "{tma}");
    }

    /// The PTX the stencil emits declares exactly the ABI's parameters; the
    /// emulator (gemm-emu) refuses a program whose parameters differ, and
    /// gemm-host's launch test checks its arguments against the same list.
    #[test]
    fn emitted_kernels_declare_the_abi() {
        use crate::spec::{KernelSpec, Op};
        for precision in Precision::ALL {
            let spec = KernelSpec::new(precision, (Op::N, Op::T), (32, 32, 4), (8, 8), (32, 2), (32, 2));
            let module = crate::lower(&crate::validate(&spec).expect("legal"));
            let declared: Vec<(&str, ParamType)> =
                module.kernels[0].params.iter().map(|p| (p.name.as_str(), p.ty)).collect();
            let abi = Abi::gemm(precision);
            let want: Vec<(&str, ParamType)> = abi.params().iter().map(|p| (p.name, p.ty)).collect();
            assert_eq!(declared, want, "{precision}");
            // A stream-K kernel declares its family's ABI: the same, then
            // slots, counters and share.
            let sk = KernelSpec { schedule: crate::Schedule::StreamK, ..spec };
            let module = crate::lower(&crate::validate(&sk).expect("legal"));
            let declared: Vec<(&str, ParamType)> =
                module.kernels[0].params.iter().map(|p| (p.name.as_str(), p.ty)).collect();
            let abi = <crate::Stencil as crate::Family>::abi(&sk);
            assert_eq!(abi, Abi::gemm_stream_k(precision));
            let want: Vec<(&str, ParamType)> = abi.params().iter().map(|p| (p.name, p.ty)).collect();
            assert_eq!(declared, want, "{precision} stream-K");
        }
    }

    /// A tensor map is its operand as (contiguous dimension, other
    /// dimension, problems) with byte strides, and says whether it
    /// describes the launch.
    #[test]
    fn tensor_maps_describe_strided_batches_only() {
        let a = MapRole {
            matrix: Matrix::A,
            inner: Dim::K,
            box_dims: [32, 128],
            swizzle_128: true,
            element_bytes: 4,
        };
        let b = MapRole {
            matrix: Matrix::B,
            inner: Dim::K,
            box_dims: [32, 256],
            swizzle_128: true,
            element_bytes: 4,
        };
        let abi = Abi::gemm_tma(Precision::F32, &[a, b]);
        let strided =
            Batch { stride_a: 1000, stride_b: 2000, stride_c: 0, k_last: 6, arrays: false, problems: 3 };
        let maps = |v: &GemmValues<u8>| -> Vec<TensorMap<u8>> {
            abi.args(v)
                .into_iter()
                .filter_map(|a| match a {
                    Arg::TensorMap(m) => Some(m),
                    _ => None,
                })
                .collect()
        };
        let v = GemmValues { lda: 8, ldb: 12, batch: strided, ..values() };
        let [ma, mb] = maps(&v)[..] else { panic!("two maps") };
        assert_eq!((ma.base, ma.dims, ma.strides, ma.box_dims), (1, [6, 4, 3], [32, 4000], [32, 128, 1]));
        assert_eq!((mb.base, mb.dims, mb.strides, mb.box_dims), (2, [6, 5, 3], [48, 8000], [32, 256, 1]));
        assert!(ma.describes && mb.describes && ma.swizzle_128);
        // Leading dimensions of 7 and 9 elements are not multiples of 16
        // bytes; pointer arrays, a split K (the last problem shallower) and
        // a batch sharing A (stride 0) are not tensors.
        let bad = [
            GemmValues { lda: 7, ldb: 9, batch: strided, ..values() },
            GemmValues { lda: 8, ldb: 12, ..values() },
            GemmValues { lda: 8, ldb: 12, batch: Batch { k_last: 2, ..strided }, ..v },
            GemmValues { batch: Batch { stride_a: 0, stride_b: 0, ..strided }, ..v },
        ];
        for v in bad {
            assert!(maps(&v).iter().all(|m| !m.describes), "{v:?}");
        }
        // One problem: its strides need no alignment, and the second is
        // the operand's whole extent.
        let one = GemmValues { batch: Batch::single(6), ..v };
        let [ma, _] = maps(&one)[..] else { panic!("two maps") };
        assert_eq!((ma.dims, ma.strides), ([6, 4, 1], [32, 128]));
        assert!(ma.describes);
    }

    /// A stream-K launch's three arguments follow the GEMM's, from its
    /// values; a launch without them passes zeros (`share = 0`: a tile a
    /// block, the slots and counters never touched).
    #[test]
    fn stream_k_arguments_follow_the_gemm_ones() {
        let abi = Abi::gemm_stream_k(Precision::F64);
        let plain = abi.args(&values());
        assert_eq!(plain[..16], Abi::gemm(Precision::F64).args(&values())[..]);
        assert_eq!(plain[16..], [Arg::U64(0), Arg::U64(0), Arg::U32(0)]);
        let sk = GemmValues { stream_k: Some(StreamK { slots: 20, counters: 21, share: 22 }), ..values() };
        let args = abi.args(&sk);
        assert_eq!(args[16..], [Arg::Pointer(20), Arg::Pointer(21), Arg::U32(22)]);
        for (arg, param) in args.iter().zip(abi.params()) {
            assert_eq!(arg.ty(), param.ty, "{}", param.name);
        }
    }
}
