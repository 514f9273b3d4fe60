//! Kernel families: the contract between one kind of kernel and everything
//! that builds, launches, emulates and tunes it.
//!
//! A family is one kind of kernel — today the universal stencil of Kurzak,
//! Tomov and Dongarra ([`Stencil`]); tensor-core, bespoke constant-A,
//! split-K and batched kernels are families to come. Each brings, as plain
//! data chosen by its spec and validated once ([`Family`]):
//!
//! - its **spec** and **validation rules** (the macro's compile errors, the
//!   tuner's pruning), and its **lowering** to the [`crate::ptx`] IR;
//! - its **parameter list** ([`Abi`]): the PTX `.param`s, the emulator's
//!   argument block and the host's launch arguments are all derived from it;
//! - its **launch geometry** ([`LaunchShape`]): block, grid as a function of
//!   the problem, dynamic shared memory;
//! - its **requirements** ([`Requirements`]): the precision and ops it
//!   computes, the architecture it needs, and the alignment it assumes of
//!   its operands, with a twin that assumes none ([`Family::unaligned_twin`]).
//!
//! The host and the emulator see a compiled kernel only as a
//! [`crate::KernelImage`]: its PTX, ABI, launch shape and requirements.
//! Nothing outside this module and the family's own asks which family a
//! kernel is.

use crate::abi::{Abi, Dim, MapRole, Matrix};
use crate::constraints::{self, Limits, Plan, Violation};
use crate::ptx::Module;
use crate::spec::{GlobalLoad, KernelSpec, Op, Precision, Schedule, Target};
use crate::stream_k::StreamKGrid;

/// The order in which a launch's blocks walk the tiles of C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockOrder {
    /// Block `(ctaid.x, ctaid.y)` computes tile `(x, y)`: M tiles along x,
    /// N tiles along y.
    Grid2d,
    /// Stream-K (`schedule = stream_k`): a one-dimensional grid of blocks
    /// that share the problem's stripes, `k_blk` deep, out evenly; its size
    /// is the launch's choice ([`LaunchShape::stream_k`]). The grid
    /// [`LaunchShape::batch_grid`] gives is a block per tile, which the
    /// kernel computes whole when its `share` is a tile's stripes.
    StreamK {
        /// Depth of a stripe, `tile.2`.
        k_blk: u32,
    },
    /// A one-dimensional grid; consecutive blocks walk groups of `rows`
    /// tile rows column by column, so that blocks running together share
    /// stripes of A and B in L2.
    Rasterized {
        /// Tile rows per group (at least 2).
        rows: u32,
    },
    /// A one-dimensional grid along N: block x computes columns
    /// `x · tile.1 ..` of every row (bespoke kernels, whose `m` is the
    /// operator's and one tile high).
    Columns,
    /// Like `Columns` with `groups` blocks per column tile, consecutive:
    /// block x computes group x mod groups of tile x / groups (bespoke
    /// kernels splitting A's rows over blocks).
    ColumnGroups {
        /// Blocks per column tile.
        groups: u32,
    },
}

/// How a kernel is launched for an `m × n` C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    /// Threads per block, `(x, y, z)`.
    pub block: (u32, u32, u32),
    /// Rows and columns of the kernel's product each block computes: of C,
    /// or of Cᵀ for a kernel with [`LaunchShape::swapped`].
    pub tile: (u32, u32),
    /// How blocks map to tiles.
    pub order: BlockOrder,
    /// Shared memory each launch passes dynamically, in bytes (0: all of the
    /// kernel's shared memory is static).
    pub dynamic_shared_bytes: u32,
    /// Whether the kernel computes the transposed product, `Cᵀ` (`operands
    /// = ba`): its tiles, grid and stream-K stripes are then those of an
    /// `n × m` product. The methods below take the call's `m` and `n` and
    /// trade them themselves.
    pub swapped: bool,
}

/// A grid axis a problem would overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridOverflow {
    /// `'x'`, `'y'` or `'z'`.
    pub axis: char,
    /// The blocks the problem needs along it.
    pub blocks: u64,
    /// The most a grid may have along it.
    pub max: u64,
}

impl LaunchShape {
    /// Blocks a grid may have along x (every GPU since sm_30).
    pub const MAX_GRID_X: u64 = i32::MAX as u64;
    /// Blocks a grid may have along y.
    pub const MAX_GRID_Y: u64 = 65535;

    /// The extents of the kernel's product for an `m × n` C: `(m, n)`, or
    /// `(n, m)` for a [`LaunchShape::swapped`] kernel.
    pub const fn product(&self, m: u32, n: u32) -> (u32, u32) {
        if self.swapped { (n, m) } else { (m, n) }
    }

    /// Tiles of the kernel's product along its M and N for an `m × n` C
    /// ([`LaunchShape::product`]), exactly (a zero tile, which no valid
    /// spec has, counts no tiles rather than dividing by zero).
    pub const fn tiles(&self, m: u32, n: u32) -> (u64, u64) {
        const fn tiles(extent: u32, blk: u32) -> u64 {
            if blk == 0 { 0 } else { extent.div_ceil(blk) as u64 }
        }
        let (m, n) = self.product(m, n);
        (tiles(m, self.tile.0), tiles(n, self.tile.1))
    }

    /// Problems a grid may have along z (see [`crate::abi`]'s "Batches and
    /// split K").
    pub const MAX_GRID_Z: u64 = 65535;

    /// How a stream-K kernel shares `m × n × k` out over at most
    /// `max_blocks` blocks ([`StreamKGrid::new`]); `None` for other
    /// kernels, or when there is nothing to compute or too much to count.
    pub fn stream_k(
        &self,
        m: u32,
        n: u32,
        k: u32,
        element_bytes: u32,
        max_blocks: u32,
    ) -> Option<StreamKGrid> {
        let (m, n) = self.product(m, n);
        match self.order {
            BlockOrder::StreamK { k_blk } => {
                StreamKGrid::new((self.tile.0, self.tile.1, k_blk), element_bytes, (m, n, k), max_blocks)
            }
            _ => None,
        }
    }

    /// The grid for one `m × n` C, or the axis it would overflow.
    pub const fn grid(&self, m: u32, n: u32) -> Result<(u32, u32, u32), GridOverflow> {
        self.batch_grid(m, n, 1)
    }

    /// The grid for `problems` `m × n` Cs (a batch, or the slices of a
    /// split K), or the axis it would overflow.
    pub const fn batch_grid(&self, m: u32, n: u32, problems: u32) -> Result<(u32, u32, u32), GridOverflow> {
        if problems as u64 > Self::MAX_GRID_Z {
            return Err(GridOverflow { axis: 'z', blocks: problems as u64, max: Self::MAX_GRID_Z });
        }
        let (tm, tn) = self.tiles(m, n);
        let (x, y) = match self.order {
            BlockOrder::Grid2d => (tm, tn),
            BlockOrder::Rasterized { .. } | BlockOrder::StreamK { .. } => (tm * tn, 1),
            BlockOrder::Columns => (tn, 1),
            BlockOrder::ColumnGroups { groups } => (tn * groups as u64, 1),
        };
        if x > Self::MAX_GRID_X {
            return Err(GridOverflow { axis: 'x', blocks: x, max: Self::MAX_GRID_X });
        }
        if y > Self::MAX_GRID_Y {
            return Err(GridOverflow { axis: 'y', blocks: y, max: Self::MAX_GRID_Y });
        }
        Ok((x as u32, y as u32, problems))
    }
}

/// What a kernel requires of the GPU it runs on and of its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Requirements {
    /// The element type of A, B and C.
    pub precision: Precision,
    /// `op(A)` and `op(B)` as the kernel performs them (`C` is `T` on reals).
    pub ops: (Op, Op),
    /// The oldest architecture it runs on.
    pub arch: Target,
    /// A's and B's base addresses and leading dimensions must be multiples
    /// of this many elements (1: any element-aligned argument).
    pub operand_alignment: u32,
}

impl Requirements {
    /// Whether A and B at device addresses `a` and `b` with leading
    /// dimensions `lda` and `ldb` (in elements) meet
    /// [`Requirements::operand_alignment`].
    pub const fn operands_aligned(&self, a: u64, b: u64, lda: u64, ldb: u64) -> bool {
        let w = self.operand_alignment as u64;
        let bytes = w * self.precision.element_bytes() as u64;
        w <= 1
            || (a.is_multiple_of(bytes)
                && b.is_multiple_of(bytes)
                && lda.is_multiple_of(w)
                && ldb.is_multiple_of(w))
    }
}

impl Requirements {
    /// Whether a batch whose A and B problems lie `stride_a` and `stride_b`
    /// elements apart keeps every problem as aligned as the first.
    pub const fn strides_aligned(&self, stride_a: u64, stride_b: u64) -> bool {
        let w = self.operand_alignment as u64;
        w <= 1 || (stride_a.is_multiple_of(w) && stride_b.is_multiple_of(w))
    }
}

/// One kind of kernel: its spec, rules, lowering, parameters, launch
/// geometry and requirements.
pub trait Family {
    /// The family's spec: plain data, what `gemm_kernel!` and the tuner
    /// write.
    type Spec: Copy + std::fmt::Debug + std::fmt::Display;

    /// Checks `spec` under `limits`: a plan, or every rule it breaks.
    fn validate_with(spec: &Self::Spec, limits: &Limits) -> Result<Plan, Vec<Violation>>;
    /// Lowers a validated plan to a one-kernel PTX module.
    fn lower(plan: &Plan) -> Module;
    /// The PTX entry name: stable and unique per spec.
    fn entry_name(spec: &Self::Spec) -> String;
    /// The kernel's parameter list.
    fn abi(spec: &Self::Spec) -> Abi;
    /// How the kernel is launched.
    fn launch(spec: &Self::Spec) -> LaunchShape;
    /// What the kernel requires of the GPU and its arguments.
    fn requirements(spec: &Self::Spec) -> Requirements;
    /// The same kernel assuming only element alignment of its operands, for
    /// arguments that miss [`Requirements::operand_alignment`]; `None` when
    /// the kernel assumes nothing more already.
    fn unaligned_twin(spec: &Self::Spec) -> Option<Self::Spec>;
}

/// The universal GEMM stencil (Algorithm 1 of Kurzak, Tomov and Dongarra,
/// with the pipeline stages of [`crate::stencil`]).
#[derive(Clone, Copy, Debug)]
pub struct Stencil;

impl Stencil {
    /// [`Family::launch`], usable in constants.
    pub const fn launch_shape(spec: &KernelSpec) -> LaunchShape {
        LaunchShape {
            block: spec.block(),
            tile: (spec.m_blk, spec.n_blk),
            order: if matches!(spec.schedule, Schedule::StreamK) {
                BlockOrder::StreamK { k_blk: spec.k_blk }
            } else if spec.raster > 1 {
                BlockOrder::Rasterized { rows: spec.raster }
            } else {
                BlockOrder::Grid2d
            },
            dynamic_shared_bytes: constraints::dynamic_shared_bytes(spec),
            swapped: spec.swaps_operands(),
        }
    }

    /// The parameters of `spec`'s kernel, each with its role in the
    /// product the kernel computes (for swapped operands, `Cᵀ = op(B)ᵀ ·
    /// op(A)ᵀ`: its A is the call's B): what the lowering declares and
    /// reads. Callers launch it by [`Family::abi`].
    pub fn kernel_abi(spec: &KernelSpec) -> Abi {
        match spec.schedule {
            Schedule::Tiles if spec.ldg == GlobalLoad::Tma => {
                // A box a stripe, laid out as the ring holds it
                // (`stencil/bulk.rs`, `tma_allowed`).
                let element_bytes = spec.precision.element_bytes();
                let map = |matrix, operand, free: Dim, rows| {
                    if crate::constraints::stripe_layout(spec, operand).k_contiguous() {
                        let box_dims = [spec.k_blk, rows];
                        MapRole { matrix, inner: Dim::K, box_dims, swizzle_128: true, element_bytes }
                    } else if spec.precision.is_half() {
                        // Boxes of 128 bytes along M or N, swizzled as
                        // `wgmma` reads them MN-major.
                        let box_dims = [crate::constraints::HALF_BOX, spec.k_blk];
                        MapRole { matrix, inner: free, box_dims, swizzle_128: true, element_bytes }
                    } else {
                        // The ring's rows, skew included (A loaded into
                        // registers: its box reads past the tile).
                        let row = rows + crate::constraints::smem_skew(spec, operand);
                        let box_dims = [row, spec.k_blk];
                        MapRole { matrix, inner: free, box_dims, swizzle_128: false, element_bytes }
                    }
                };
                let (a, b) = (crate::constraints::Operand::A, crate::constraints::Operand::B);
                Abi::gemm_tma(
                    spec.precision,
                    &[map(Matrix::A, a, Dim::M, spec.m_blk), map(Matrix::B, b, Dim::N, spec.n_blk)],
                )
            }
            Schedule::Tiles => Abi::gemm(spec.precision),
            Schedule::StreamK => Abi::gemm_stream_k(spec.precision),
        }
    }

    /// [`Family::requirements`], usable in constants.
    pub const fn requirements_of(spec: &KernelSpec) -> Requirements {
        Requirements {
            precision: spec.precision,
            ops: (spec.eff_op_a(), spec.eff_op_b()),
            arch: spec.arch,
            operand_alignment: spec.ldg_width,
        }
    }
}

impl Family for Stencil {
    type Spec = KernelSpec;

    fn validate_with(spec: &KernelSpec, limits: &Limits) -> Result<Plan, Vec<Violation>> {
        constraints::validate_with(spec, limits)
    }

    fn lower(plan: &Plan) -> Module {
        crate::stencil::lower(plan)
    }

    fn entry_name(spec: &KernelSpec) -> String {
        spec.entry_name()
    }

    /// The stencil's ABI: [`Stencil::kernel_abi`], whose roles a kernel
    /// with swapped operands trades ([`Abi::swapped`]) — the call's B is
    /// its A.
    fn abi(spec: &KernelSpec) -> Abi {
        let abi = Stencil::kernel_abi(spec);
        if spec.swaps_operands() { abi.swapped() } else { abi }
    }

    fn launch(spec: &KernelSpec) -> LaunchShape {
        Stencil::launch_shape(spec)
    }

    fn requirements(spec: &KernelSpec) -> Requirements {
        Stencil::requirements_of(spec)
    }

    /// Single-element global loads (`ldg_width = 1`): legal whenever the
    /// spec is (a width of 1 divides everything a wider one did, and the
    /// skew can only shrink) — but for the shared memory of a `wgmma`
    /// kernel that reads an operand from the ring
    /// ([`crate::constraints::wgmma_direct`]): single-element copies make
    /// its stripes K-major, to be converted into parts of their own, so the
    /// twin gives up as many stages as it takes to fit them (under the
    /// limits of its `arch`, as [`crate::validate`]).
    ///
    /// A 16-bit kernel has none: its operands reach the tensor cores only by
    /// the tensor memory accelerator.
    fn unaligned_twin(spec: &KernelSpec) -> Option<KernelSpec> {
        if spec.ldg_width <= 1 || spec.precision.is_half() {
            return None;
        }
        // Bulk copies need aligned operands: the twin's threads copy.
        let ldg = if spec.ldg == GlobalLoad::Tma { GlobalLoad::Cg } else { spec.ldg };
        let mut twin = KernelSpec { ldg_width: 1, ldg, ..*spec };
        let limits = Limits::for_target(spec.arch);
        while crate::constraints::wgmma_any_direct(spec)
            && !crate::constraints::shared_fits(&twin, &limits)
            && twin.stages > crate::constraints::WGMMA_MIN_STAGES
        {
            twin.stages -= 1;
        }
        Some(twin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> KernelSpec {
        KernelSpec {
            arch: Target::Sm80,
            stages: 3,
            ldg_width: 2,
            ..KernelSpec::new(Precision::C32, (Op::C, Op::N), (64, 32, 8), (16, 8), (8, 16), (8, 16))
        }
    }

    #[test]
    fn the_grid_covers_c_in_either_order_and_refuses_overflow() {
        let s = spec();
        let plain = Stencil::launch_shape(&s);
        assert_eq!(plain.block, (128, 1, 1));
        assert_eq!(plain.grid(65, 33), Ok((2, 2, 1)));
        assert_eq!(plain.grid(0, 33), Ok((0, 2, 1)));
        let y_max = LaunchShape::MAX_GRID_Y as u32 * 32;
        assert_eq!(plain.grid(1, y_max), Ok((1, 65535, 1)));
        assert_eq!(plain.grid(1, y_max + 1), Err(GridOverflow { axis: 'y', blocks: 65536, max: 65535 }));
        let raster = Stencil::launch_shape(&KernelSpec { raster: 8, ..s });
        assert_eq!(raster.order, BlockOrder::Rasterized { rows: 8 });
        assert_eq!(raster.grid(65, 33), Ok((4, 1, 1)));
        assert_eq!(raster.grid(1, y_max + 1), Ok((65536, 1, 1)));
        assert!(matches!(raster.grid(u32::MAX, u32::MAX), Err(GridOverflow { axis: 'x', .. })));
        assert_eq!(plain.batch_grid(65, 33, 7), Ok((2, 2, 7)));
        assert_eq!(raster.batch_grid(65, 33, 65535), Ok((4, 1, 65535)));
        assert_eq!(plain.batch_grid(1, 1, 65536), Err(GridOverflow { axis: 'z', blocks: 65536, max: 65535 }));
    }

    #[test]
    fn requirements_and_the_unaligned_twin() {
        let s = spec();
        let r = Stencil::requirements(&s);
        assert_eq!(
            (r.precision, r.ops, r.arch, r.operand_alignment),
            (Precision::C32, (Op::C, Op::N), Target::Sm80, 2)
        );
        // 16-byte runs: addresses multiples of 16, leading dimensions of 2.
        assert!(r.operands_aligned(256, 512, 64, 2));
        assert!(!r.operands_aligned(264, 512, 64, 2));
        assert!(!r.operands_aligned(256, 512, 63, 2));
        let twin = Stencil::unaligned_twin(&s).expect("a twin");
        assert_eq!(Stencil::requirements(&twin).operand_alignment, 1);
        assert!(Stencil::requirements(&twin).operands_aligned(8, 24, 63, 1));
        assert_eq!(Stencil::unaligned_twin(&twin), None);
        assert!(Stencil::validate_with(&twin, &Limits::for_target(Target::Sm80)).is_ok());
    }

    /// A 1xTF32 kernel reading both operands from a ring of 4: its twin's
    /// stripes are K-major — A's fragments loaded into registers from its
    /// skewed rows, B converted, whose parts fit beside 3 stages only.
    #[test]
    fn the_unaligned_twin_of_a_kernel_reading_the_ring_gives_up_stages() {
        let s: KernelSpec = "precision = f32, op = (T, N), tile = (128, 256, 32), threads = (64, 4), \
                             load_a = (8, 16), load_b = (8, 16), lds_width = 4, arch = sm_90a, stages = 4, \
                             ldg_width = 4, warps = (8, 1), math = tf32, mma = (64, 256, 8), producers = 1"
            .parse()
            .expect("a spec");
        assert!(crate::validate(&s).is_ok());
        assert!(crate::constraints::wgmma_direct(&s, crate::constraints::Operand::A));
        let twin = Stencil::unaligned_twin(&s).expect("a twin");
        assert_eq!((twin.ldg_width, twin.stages), (1, 3));
        assert!(crate::constraints::wgmma_a_regs(&twin));
        assert!(!crate::constraints::wgmma_direct(&twin, crate::constraints::Operand::B));
        assert!(crate::validate(&twin).is_ok(), "{twin}");
        assert!(crate::validate(&KernelSpec { stages: twin.stages + 1, ..twin }).is_err());
    }
}
