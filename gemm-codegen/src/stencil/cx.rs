//! What every stage of the stencil shares: the builder, the plan, the kernel
//! parameters and the thread's coordinates, plus element-wise helpers that
//! hide the difference between real and complex values.

use crate::constraints::Plan;
use crate::ptx::{Instr, KernelBuilder, Operand, Reg, SharedId, Type};
use crate::spec::Precision;

/// One element in registers: a real scalar, or a complex pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Elem {
    pub re: Reg,
    pub im: Option<Reg>,
}

impl Elem {
    /// The scalar registers, real part first.
    pub fn regs(&self) -> Vec<Reg> {
        match self.im {
            Some(im) => vec![self.re, im],
            None => vec![self.re],
        }
    }
}

/// The kernel's parameters, loaded into registers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params {
    pub a_ptr: Reg,
    pub b_ptr: Reg,
    pub c_ptr: Reg,
    pub m: Reg,
    pub n: Reg,
    pub k: Reg,
    pub lda: Reg,
    pub ldb: Reg,
    pub ldc: Reg,
    pub alpha: Elem,
    pub beta: Elem,
    /// What the epilogue reads again to find C of the block's problem.
    pub c_problem: super::CProblem,
    /// A stream-K kernel's `slots`, `counters` (`.u64`) and `share`
    /// (`.u32`).
    pub stream_k: Option<(Reg, Reg, Reg)>,
    /// The generic addresses of A's and B's tensor maps, for a kernel
    /// whose stripes `cp.async.bulk.tensor` brings (`ldg = tma`).
    pub tensor_maps: [Option<Reg>; 2],
}

/// The lowering context.
pub(crate) struct Cx<'p> {
    pub b: KernelBuilder,
    pub plan: &'p Plan,
    /// `.f32` or `.f64`: the type of one real scalar.
    pub scalar: Type,
    pub params: Params,
    /// `%tid.x`.
    pub thread: Reg,
    /// `thread mod M_dim`: the thread's row position in the C layout.
    pub tx: Reg,
    /// `thread div M_dim`: the thread's column position in the C layout.
    pub ty: Reg,
    /// For a tensor-core math, the lane's place `(g, t) = (lane / 4, lane
    /// mod 4)` in the fragments' 8 × 4 grid (`schedule::thread_position`).
    pub lane: Option<(Reg, Reg)>,
    /// First row of the block's C tile.
    pub blk_m0: Reg,
    /// First column of the block's C tile.
    pub blk_n0: Reg,
    /// Where A's stripes lie in shared memory, `As[k][m]`.
    pub smem_a: SharedBase,
    /// Where B's stripes lie in shared memory, `Bs[k][n]`.
    pub smem_b: SharedBase,
}

/// Where an operand's shared stripes start: an array, and a byte offset in
/// it (nonzero for B when both live in the one dynamic array).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SharedBase {
    pub array: SharedId,
    pub offset: u32,
}

impl Cx<'_> {
    pub fn precision(&self) -> Precision {
        self.plan.precision()
    }

    /// Bytes of one element.
    pub fn esz(&self) -> i64 {
        i64::from(self.precision().element_bytes())
    }

    /// Declares an element register set `%name` (real) or `%name_re`,
    /// `%name_im` (complex).
    pub fn elem(&mut self, name: &str) -> Elem {
        elem(&mut self.b, self.plan.precision(), name)
    }

    /// Sets every scalar of `e` to zero.
    pub fn zero(&mut self, e: Elem) {
        let zero = Operand::float_zero(self.scalar);
        for r in e.regs() {
            self.b.push(Instr::mov(r, zero));
        }
    }

    /// `dst = ` the shared-window address of `base`.
    pub fn shared_address(&mut self, dst: Reg, base: SharedBase) {
        self.b.push(Instr::mov(dst, base.array));
        if base.offset != 0 {
            self.b.push(Instr::add(dst, dst, Operand::imm(base.offset)));
        }
    }

    /// `byte ^= 16 · mask(row)`: swizzles the chunk of `byte`, an offset
    /// into a K-contiguous stripe whose row `row` it lies in (see
    /// [`Swizzle`](crate::constraints::Swizzle)); `scratch` is clobbered.
    pub fn swizzle(&mut self, byte: Reg, row: Reg, z: crate::constraints::Swizzle, scratch: Reg) {
        use crate::ptx::BinOp;
        // 16 G ((row / d) mod R), with d, R and G powers of two.
        self.b.push(Instr::binary(BinOp::Shr, scratch, row, Operand::imm(z.rows.trailing_zeros())));
        self.b.push(Instr::binary(BinOp::And, scratch, scratch, Operand::imm(z.period - 1)));
        self.b.push(Instr::binary(
            BinOp::Shl,
            scratch,
            scratch,
            Operand::imm((16 * z.chunks).trailing_zeros()),
        ));
        self.b.push(Instr::binary(BinOp::Xor, byte, byte, scratch));
    }

    /// `q = x / d` and `r = x % d` for a constant `d`, as shifts and masks
    /// when `d` is a power of two.
    pub fn divmod(&mut self, x: Reg, d: u32, q_name: &str, r_name: &str) -> (Reg, Reg) {
        let q = self.b.reg(q_name, Type::U32);
        let r = self.b.reg(r_name, Type::U32);
        if d.is_power_of_two() {
            self.b.push(Instr::binary(crate::ptx::BinOp::Shr, q, x, Operand::imm(d.trailing_zeros())));
            self.b.push(Instr::binary(crate::ptx::BinOp::And, r, x, Operand::imm(d - 1)));
        } else {
            self.b.push(Instr::binary(crate::ptx::BinOp::Div, q, x, Operand::imm(d)));
            self.b.push(Instr::binary(crate::ptx::BinOp::Rem, r, x, Operand::imm(d)));
        }
        (q, r)
    }

    /// `dst = (a * b) + c` in 64 bits, where `a` is a 32-bit index and `b` a
    /// byte stride held in a 64-bit register.
    pub fn index_times_stride(&mut self, dst: Reg, a: Reg, stride: Reg, c: Option<Reg>) {
        let wide = self.b.reg(format!("{}_idx", self.b_name(dst)), Type::U64);
        self.b.push(Instr::cvt(wide, a));
        match c {
            Some(c) => self.b.push(Instr::mad(dst, wide, stride, c)),
            None => self.b.push(Instr::mul(dst, wide, stride)),
        }
    }

    fn b_name(&self, r: Reg) -> String {
        self.b.reg_name(r).to_owned()
    }
}

/// Declares an element register set on `b` (see [`Cx::elem`]).
pub(crate) fn elem(b: &mut KernelBuilder, precision: Precision, name: &str) -> Elem {
    let ty = scalar_type(precision);
    if precision.is_complex() {
        Elem { re: b.reg(format!("{name}_re"), ty), im: Some(b.reg(format!("{name}_im"), ty)) }
    } else {
        Elem { re: b.reg(name, ty), im: None }
    }
}

/// `.f32` or `.f64`: the type the kernel computes in
/// ([`Precision::compute_bytes`]).
pub(crate) const fn scalar_type(precision: Precision) -> Type {
    match precision.compute_bytes() {
        4 => Type::F32,
        _ => Type::F64,
    }
}
