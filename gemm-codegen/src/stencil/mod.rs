//! Lowering of the universal GEMM stencil (Algorithm 1 of Kurzak, Tomov and
//! Dongarra) into the PTX IR.
//!
//! ```text
//! C_regs ⇐ 0
//! stripe 0 of A, B: global ⇒ registers ⇒ shared;  bar.sync
//! for each further stripe:
//!     stripe t of A, B: global ⇒ registers          (prefetch)
//!     C_regs += As · Bs  from shared memory          (inner product)
//!     bar.sync;  registers ⇒ shared;  bar.sync
//! C_regs += As · Bs                                  (last stripe)
//! C = alpha · C_regs + beta · C                      (epilogue)
//! ```
//!
//! The three stages are separate, replaceable pieces behind small traits:
//! `StripeMover` (global → shared movement: staged through registers, or
//! a `cp.async` ring in `ring.rs`; later TMA), `InnerProduct` (the walk
//! of a stripe in `walk.rs`, whose steps are register-blocked FMAs,
//! `fma.rs`, or tensor-core `mma`s, `mma.rs`), or Hopper's warpgroup
//! `wgmma`s on converted stripes (`wgmma.rs`), and
//! `Epilogue`. The driver in this file owns only the pipeline around
//! them. A warp-specialized `wgmma` kernel (`producers = 1`) has a pipeline
//! of its own, `specialized.rs`: a producer warpgroup runs the ring and the
//! conversion, the consumer warpgroups the `wgmma`s and the epilogue.
//!
//! # Kernel ABI
//!
//! The parameters are [`Abi::gemm`]'s, in its order ([`Abi::gemm_stream_k`]'s
//! for `schedule = stream_k`, `stream_k.rs`). Launch with the
//! [`crate::LaunchShape`] of [`crate::Stencil::launch_shape`]: its block, its
//! grid for the problem, its dynamic shared memory. The kernel reads A and B only for `k > 0`
//! (the host passes `k = 0` when `alpha = 0`), and reads C only when
//! `beta ≠ 0`.

mod bulk;
mod cx;
mod epilogue;
mod fma;
mod layout;
mod mma;
mod mover;
mod ring;
mod schedule;
mod specialized;
mod stream_k;
mod walk;
mod wgmma;

use crate::abi::{Abi, Dim, Matrix, Part, Role};
use crate::constraints::{Operand, Plan};
use crate::ptx::{self, Cmp, Instr, KernelBuilder, Module, Operand as Op, Tma, Type};
use crate::spec::Schedule;

pub(crate) use cx::{Cx, Elem, Params, SharedBase};
pub(crate) use layout::CLayout;

/// Moves one stripe of A or B per iteration from global to shared memory.
pub(crate) trait StripeMover {
    /// Declares registers and computes per-thread pointers and bounds.
    fn setup(&mut self, cx: &mut Cx<'_>);
    /// Reads the current stripe from global memory (elements at or past
    /// `k_rem` along K, or past the matrix edge, read as zero).
    fn fetch(&mut self, cx: &mut Cx<'_>, k_rem: ptx::Reg);
    /// Writes what [`StripeMover::fetch`] read into shared memory.
    fn commit(&mut self, cx: &mut Cx<'_>);
    /// Moves the global pointers one stripe further along K.
    fn advance(&mut self, cx: &mut Cx<'_>);
}

/// Accumulates `C_regs += As · Bs` over one stripe held in shared memory.
pub(crate) trait InnerProduct {
    /// Declares the accumulators and whatever else the product needs.
    fn setup(&mut self, cx: &mut Cx<'_>);
    /// Sets the accumulators to zero.
    fn zero(&mut self, cx: &mut Cx<'_>);
    /// One stripe's product; with `stage`, the stripe sits that many bytes
    /// (A's, B's) past the first of a ring. `beside` is called once per
    /// [`Step`] (see there).
    fn accumulate(&mut self, cx: &mut Cx<'_>, stage: Option<(ptx::Reg, ptx::Reg)>, beside: Beside<'_>);
    /// Whether the product can load the next stripe's first fragments
    /// while it multiplies the current stripe's last ones
    /// ([`InnerProduct::prime`] and [`InnerProduct::accumulate_handing_off`]).
    fn crosses_stripes(&self) -> bool;
    /// Points the product at the ring slot `stage` bytes (A's, B's) past
    /// the first and loads that stripe's first fragments.
    fn prime(&mut self, cx: &mut Cx<'_>, stage: (ptx::Reg, ptx::Reg));
    /// One primed stripe's product. At its last step, after that step's
    /// fragments are in registers, its [`Step`] of `beside`, and before
    /// they are multiplied, it calls `next`, which makes the next stripe
    /// readable and says where it sits, and primes that stripe's first
    /// fragments.
    fn accumulate_handing_off(
        &mut self,
        cx: &mut Cx<'_>,
        next: &mut dyn FnMut(&mut Cx<'_>) -> NextStripe,
        beside: Beside<'_>,
    );
    /// Offered by a ring whose next stripe's copies are committed by the
    /// time a stripe's product runs: whether the product meets the whole
    /// block at a barrier of its own in every stripe, after its last read of
    /// the ring's slot; if so it takes over the ring's barrier, waiting there
    /// with `cp.async.wait_group pending` so that the barrier also lands the
    /// next stripe, and the ring's loop needs no barrier of its own.
    fn lands_next_stripe(&mut self, _pending: u32) -> bool {
        false
    }
    /// The accumulators, `[i * n_thr + j]`, in the [`CLayout`] of the plan.
    fn accumulators(&self) -> &[Elem];
    /// Completes what the last stripe's product left in flight, at the
    /// epilogue (also reached with no stripe at all).
    fn finish(&mut self, _cx: &mut Cx<'_>) {}
}

/// Work the pipeline interleaves with a stripe's product (a ring's copies
/// of a later stripe), emitted a part at a time: the product calls it with
/// each [`Step`] of the stripe in order, between that step's fragment loads
/// and its multiply-adds, so that the work spreads over the stripe and
/// `ptxas` sees one basic block.
pub(crate) type Beside<'h> = &'h mut dyn FnMut(&mut Cx<'_>, Step);

/// Part `index` of `of` equal parts of a stripe's product: one k step of a
/// stripe in straight-line code (`of = K_blk`), or the whole stripe at
/// once before a stripe walked by a loop (`of = 1`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub index: u32,
    pub of: u32,
}

impl Step {
    /// The share `[start, end)` of `count` items that this step emits:
    /// every item once over the steps, evenly, in order.
    pub fn share(self, count: u32) -> std::ops::Range<u32> {
        let at = |i: u32| (u64::from(i) * u64::from(count) / u64::from(self.of)) as u32;
        at(self.index)..at(self.index + 1)
    }
}

/// Where the stripe after the current one sits, from the pipeline to an
/// [`InnerProduct`] handing off to it.
pub(crate) struct NextStripe {
    /// Its byte offsets (A's, B's) past the first slot of the ring.
    pub stage: (ptx::Reg, ptx::Reg),
}

/// Writes `C = alpha · C_regs + beta · C`.
pub(crate) trait Epilogue {
    /// Emits the epilogue; control falls through to the kernel's end.
    fn emit(&mut self, cx: &mut Cx<'_>, acc: &[Elem]);
}

/// Lowers a validated plan to a one-kernel PTX module.
pub(crate) fn lower(plan: &Plan) -> Module {
    let spec = plan.spec();
    let mut cx = prologue(plan);
    // With a `cp.async` ring the copies leave conjugation to the product.
    let ring = spec.stages > 1;
    let (conj_a, conj_b) =
        (ring && spec.op_a.conjugates(spec.precision), ring && spec.op_b.conjugates(spec.precision));
    let mut epilogue = epilogue::Strided;
    if let (Some(shape), true) = (spec.wgmma(), spec.producers > 0) {
        let warpgroup = wgmma::Warpgroup::new(spec, shape, (conj_a, conj_b));
        specialized::lower(&mut cx, warpgroup, &mut epilogue);
        return finish(cx, plan);
    }
    let mut inner: Box<dyn InnerProduct> = if let Some(shape) = spec.wgmma() {
        Box::new(wgmma::Warpgroup::new(spec, shape, (conj_a, conj_b)))
    } else if spec.math.is_mma() {
        Box::new(walk::Walker::new(mma::Fragments::new(conj_a, conj_b)))
    } else {
        Box::new(walk::Walker::new(fma::RegisterBlocked::new(conj_a, conj_b)))
    };
    let main_loop: fn(&mut Cx<'_>, &mut dyn InnerProduct) -> ptx::Label =
        if ring { ring::main_loop } else { register_staged_loop };
    if spec.schedule == Schedule::StreamK {
        stream_k::lower(&mut cx, &mut *inner, &mut epilogue, main_loop);
    } else {
        let epilogue_label = main_loop(&mut cx, &mut *inner);
        cx.b.section("epilogue: C = alpha * C_regs + beta * C");
        cx.b.place(epilogue_label);
        inner.finish(&mut cx);
        problem_c(&mut cx);
        epilogue.emit(&mut cx, inner.accumulators());
    }
    finish(cx, plan)
}

/// Ends the kernel and wraps it in its module.
fn finish(mut cx: Cx<'_>, plan: &Plan) -> Module {
    let spec = plan.spec();
    cx.b.push(Instr::ret());
    let kernel = cx.b.finish();
    let mut module = Module { header: header(plan), floor: spec.arch.ptx_arch(), kernels: vec![kernel] };
    // Declared as printed, so that reading the text back gives this module.
    module.floor = module.target();
    module
}

/// Algorithm 1's pipeline: the next stripe is staged through registers
/// while the current one is consumed. Returns the label of the epilogue
/// (declared after the loop's own, in the order they are placed), reached
/// with every stripe accumulated.
fn register_staged_loop(cx: &mut Cx<'_>, inner: &mut dyn InnerProduct) -> ptx::Label {
    let spec = *cx.plan.spec();
    let mut mover_a = mover::RegisterStaged::new(Operand::A);
    let mut mover_b = mover::RegisterStaged::new(Operand::B);

    cx.b.section("global -> shared: per-thread pointers and bounds for A and B");
    mover_a.setup(cx);
    mover_b.setup(cx);
    cx.b.section("inner product: shared-memory read pointers");
    inner.setup(cx);
    cx.b.section("C_regs = 0");
    inner.zero(cx);

    // Loop control: ktiles = ceil(k / K_blk) stripes; k_rem = k - kt * K_blk.
    cx.b.reg_group("pipelined loop control");
    let ktiles = cx.b.reg("ktiles", Type::U32);
    let kt = cx.b.reg("kt", Type::U32);
    let k_rem = cx.b.reg("k_rem", Type::U32);
    let p_skip = cx.b.reg("p_no_stripes", Type::Pred);
    let p_more = cx.b.reg("p_more_stripes", Type::Pred);
    let loop_label = cx.b.label("main_loop");
    let tail_label = cx.b.label("last_stripe");
    let epilogue_label = cx.b.label("epilogue");

    cx.b.section(format!("stripes along K: ktiles = ceil(k / {})", spec.k_blk));
    cx.b.push(Instr::add(ktiles, cx.params.k, Op::imm(spec.k_blk - 1)));
    cx.b.push(Instr::binary(ptx::BinOp::Div, ktiles, ktiles, Op::imm(spec.k_blk)));
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_skip, ktiles, Op::imm(0)));
    cx.b.push_if(p_skip, Instr::bra_uni(epilogue_label));

    cx.b.section("prologue: stripe 0 of A and B, global -> registers -> shared");
    cx.b.push(Instr::mov(k_rem, cx.params.k));
    mover_a.fetch(cx, k_rem);
    mover_b.fetch(cx, k_rem);
    mover_a.commit(cx);
    mover_b.commit(cx);
    cx.b.push(Instr::bar_sync(0));
    cx.b.push(Instr::mov(kt, Op::imm(1)));
    cx.b.push(Instr::setp(Cmp::Ge, Type::U32, p_more, kt, ktiles));
    cx.b.push_if(p_more, Instr::bra_uni(tail_label));

    cx.b.section("pipelined loop: prefetch stripe kt while consuming stripe kt - 1");
    cx.b.place(loop_label);
    cx.b.push(Instr::sub(k_rem, k_rem, Op::imm(spec.k_blk)));
    mover_a.advance(cx);
    mover_b.advance(cx);
    cx.b.comment("prefetch: stripe kt, global -> registers");
    mover_a.fetch(cx, k_rem);
    mover_b.fetch(cx, k_rem);
    cx.b.comment(format!("inner product: stripe kt - 1 from shared memory, {} deep", spec.k_blk));
    inner.accumulate(cx, None, &mut |_, _| {});
    cx.b.comment("registers -> shared, between barriers");
    cx.b.push(Instr::bar_sync(0));
    mover_a.commit(cx);
    mover_b.commit(cx);
    cx.b.push(Instr::bar_sync(0));
    cx.b.push(Instr::add(kt, kt, Op::imm(1)));
    cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p_more, kt, ktiles));
    cx.b.push_if(p_more, Instr::bra_uni(loop_label));

    cx.b.section("last stripe: inner product only");
    cx.b.place(tail_label);
    inner.accumulate(cx, None, &mut |_, _| {});
    epilogue_label
}

/// Declares parameters, shared arrays and the thread's coordinates.
fn prologue(plan: &Plan) -> Cx<'_> {
    let spec = plan.spec();
    let precision = spec.precision;
    let scalar = cx::scalar_type(precision);
    let mut b = KernelBuilder::new(spec.entry_name());
    b.reqntid(spec.block());

    // The parameters are the kernel's ABI, declared in its order; each is
    // loaded into a register named after it and found again by its role in
    // the kernel's product (with swapped operands the call's B is the
    // kernel's A: `abi.rs`, "Swapped operands").
    let abi = crate::Stencil::kernel_abi(spec);
    b.reg_group("kernel parameters");
    let loaded: Vec<(Role, ptx::Reg, ptx::ParamId)> = abi
        .params()
        .iter()
        .map(|p| {
            let id = b.param(p.name, p.ty);
            let name = match p.role {
                Role::Pointer(_) => format!("{}_ptr", p.name),
                _ => p.name.to_owned(),
            };
            // A tensor map stays in the parameter space: its register holds
            // the generic address `cp.async.bulk.tensor` takes.
            (p.role, b.reg(name, p.ty.scalar().unwrap_or(Type::U64)), id)
        })
        .collect();
    b.comment("kernel parameters; A, B and C converted to global addresses");
    for &(role, r, id) in &loaded {
        if let Role::TensorMap(_) = role {
            b.push(Instr::Tma(Tma::ParamAddr { dst: r, param: id }));
            b.push(Instr::Tma(Tma::CvtaParam { dst: r, src: r }));
        } else {
            b.push(Instr::ld_param(r, id));
        }
    }
    let reg = |role: Role| loaded.iter().find(|(r, ..)| *r == role).map(|&(_, reg, _)| reg);
    let must = |role: Role| reg(role).expect("the GEMM ABI has every role the stencil reads");
    for x in [Matrix::A, Matrix::B, Matrix::C] {
        let r = must(Role::Pointer(x));
        b.push(Instr::cvta_to_global(r, r));
    }
    batch_problem(&mut b, precision, &must);
    let param =
        |role: Role| loaded.iter().find(|(r, ..)| *r == role).map(|&(_, _, id)| id).expect("in the ABI");
    let c_problem = CProblem {
        c: param(Role::Pointer(Matrix::C)),
        stride: param(Role::BatchStride(Matrix::C)),
        arrays: param(Role::PointerArrays),
    };
    let coefficient = |re: Role, im: Role| Elem { re: must(re), im: reg(im) };
    let params = Params {
        a_ptr: must(Role::Pointer(Matrix::A)),
        b_ptr: must(Role::Pointer(Matrix::B)),
        c_ptr: must(Role::Pointer(Matrix::C)),
        m: must(Role::Extent(Dim::M)),
        n: must(Role::Extent(Dim::N)),
        k: must(Role::Extent(Dim::K)),
        lda: must(Role::Lead(Matrix::A)),
        ldb: must(Role::Lead(Matrix::B)),
        ldc: must(Role::Lead(Matrix::C)),
        alpha: coefficient(Role::Alpha(Part::Re), Role::Alpha(Part::Im)),
        beta: coefficient(Role::Beta(Part::Re), Role::Beta(Part::Im)),
        c_problem,
        tensor_maps: [Matrix::A, Matrix::B].map(|x| {
            loaded.iter().find_map(|&(role, r, _)| match role {
                Role::TensorMap(map) if map.matrix == x => Some(r),
                _ => None,
            })
        }),
        stream_k: match (reg(Role::Slots), reg(Role::Counters), reg(Role::Share)) {
            (Some(slots), Some(counters), Some(share)) => Some((slots, counters, share)),
            _ => None,
        },
    };

    // Up to 48 KiB, two static arrays; above, one dynamic array sized by the
    // launch, A's stripes first.
    let align = crate::constraints::smem_align(plan.spec());
    let (smem_a, smem_b) = if plan.dynamic_shared() {
        let smem = b.dynamic_shared("smem", align);
        (SharedBase { array: smem, offset: 0 }, SharedBase { array: smem, offset: plan.smem_a_bytes() })
    } else {
        let a = b.shared("smem_a", plan.smem_a_bytes(), align);
        let b = b.shared("smem_b", plan.smem_b_bytes(), align);
        (SharedBase { array: a, offset: 0 }, SharedBase { array: b, offset: 0 })
    };

    b.reg_group("thread and block coordinates");
    let thread = b.reg("thread", Type::U32);
    let blk_m0 = b.reg("blk_m0", Type::U32);
    let blk_n0 = b.reg("blk_n0", Type::U32);
    let mut cx = Cx {
        b,
        plan,
        scalar,
        params,
        thread,
        tx: thread,
        ty: thread,
        lane: None,
        blk_m0,
        blk_n0,
        smem_a,
        smem_b,
    };
    schedule::block_origin(&mut cx);
    schedule::thread_position(&mut cx);
    cx
}

/// Points A and B at problem `z = ctaid.z` of the launch's batch and sets
/// `k` to its reduction length (`k_last` for the last problem): see
/// [`crate::abi`]'s "Batches and split K". For one problem (`z = 0` of a
/// grid of depth 1, zero strides, `k_last = k`) nothing changes; with
/// `arrays`, each pointer is element `z` of the array it addresses. C's
/// pointer is moved only where the epilogue needs it ([`problem_c`]): kept
/// from here, it would be one more 64-bit value live through the main loop.
fn batch_problem(b: &mut KernelBuilder, precision: crate::Precision, must: &dyn Fn(Role) -> ptx::Reg) {
    b.reg_group("the block's problem in the batch");
    let z = b.reg("problem", Type::U32);
    let last = b.reg("last_problem", Type::U32);
    let p_last = b.reg("p_last_problem", Type::Pred);
    b.comment(
        "problem z = ctaid.z: A and B start z * stride elements further, or at element z of pointer arrays; \
         the last problem is k_last deep",
    );
    b.push(Instr::mov(z, ptx::Special::CtaidZ));
    b.push(Instr::mov(last, ptx::Special::NctaidZ));
    b.push(Instr::sub(last, last, Op::imm(1)));
    b.push(Instr::setp(Cmp::Eq, Type::U32, p_last, z, last));
    let k = must(Role::Extent(Dim::K));
    b.push(Instr::selp(k, must(Role::LastDepth), k, p_last));
    let at = ProblemAt::new(b, "problem", z, must(Role::PointerArrays));
    for x in [Matrix::A, Matrix::B] {
        at.point(b, precision, must(Role::Pointer(x)), must(Role::BatchStride(x)));
    }
}

/// The parameters [`problem_c`] reads again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CProblem {
    c: ptx::ParamId,
    stride: ptx::ParamId,
    arrays: ptx::ParamId,
}

/// Points `cx.params.c_ptr` at C of the block's problem, from the
/// parameters read again (a parameter costs no register while unused).
fn problem_c(cx: &mut Cx<'_>) {
    let ids = cx.params.c_problem;
    let b = &mut cx.b;
    b.reg_group("C of the block's problem");
    let z = b.reg("c_problem", Type::U32);
    let stride = b.reg("c_stride", Type::U64);
    let arrays = b.reg("c_arrays", Type::U32);
    let c = cx.params.c_ptr;
    b.comment("C of problem z = ctaid.z: z * stride_c elements further, or element z of C's pointer array");
    b.push(Instr::ld_param(c, ids.c));
    b.push(Instr::cvta_to_global(c, c));
    b.push(Instr::ld_param(stride, ids.stride));
    b.push(Instr::ld_param(arrays, ids.arrays));
    b.push(Instr::mov(z, ptx::Special::CtaidZ));
    let at = ProblemAt::new(b, "c_problem", z, arrays);
    at.point(b, cx.plan.precision(), c, stride);
}

/// Problem `z`'s index and whether pointers come from arrays, in registers.
struct ProblemAt {
    z64: ptx::Reg,
    slot: ptx::Reg,
    p_arrays: ptx::Reg,
}

impl ProblemAt {
    fn new(b: &mut KernelBuilder, prefix: &str, z: ptx::Reg, arrays: ptx::Reg) -> ProblemAt {
        let z64 = b.reg(format!("{prefix}_idx"), Type::U64);
        let slot = b.reg(format!("{prefix}_slot"), Type::U64);
        let p_arrays = b.reg(format!("p_{prefix}_arrays"), Type::Pred);
        b.push(Instr::cvt(z64, z));
        b.push(Instr::setp(Cmp::Ne, Type::U32, p_arrays, arrays, Op::imm(0)));
        ProblemAt { z64, slot, p_arrays }
    }

    /// `ptr += z * stride` elements, or `ptr = ptr[z]` (then made global)
    /// with pointer arrays; `stride` is clobbered.
    fn point(&self, b: &mut KernelBuilder, precision: crate::Precision, ptr: ptx::Reg, stride: ptx::Reg) {
        let esz = i64::from(precision.element_bytes());
        b.push(Instr::mul(stride, stride, Op::imm(esz)));
        b.push(Instr::mad(ptr, self.z64, stride, ptr));
        b.push(Instr::mad(self.slot, self.z64, Op::imm(8), ptr));
        let load =
            Instr::ld(ptx::Space::Global, ptx::CacheQual::None, &[ptr], ptx::Address::reg(self.slot, 0));
        b.push_if(self.p_arrays, load);
        b.push_if(self.p_arrays, Instr::cvta_to_global(ptr, ptr));
    }
}

fn header(plan: &Plan) -> Vec<String> {
    let spec = plan.spec();
    let layout = CLayout::new(plan);
    let x = |op: crate::Op| match op {
        crate::Op::N => "",
        crate::Op::T => "^T",
        crate::Op::C => "^H",
    };
    let mut lines = vec![
        format!("Generated by gemmforge-codegen {}; do not edit by hand.", crate::VERSION),
        format!("Spec: {spec}"),
        format!("Entry: {}", spec.entry_name()),
        String::new(),
        format!(
            "{}GEMM: C = alpha * A{} * B{} + beta * C, column-major, any m, n, k",
            spec.precision.blas_letter().to_ascii_uppercase(),
            x(spec.eff_op_a()),
            x(spec.eff_op_b()),
        ),
    ];
    if spec.swaps_operands() {
        lines.push(format!(
            "Operands swapped (operands = ba): the kernel computes C^T = B{} * A{}, B its first operand and A \
             its second, the call's n its m; it stores its tile transposed. Below, rows, m and A are the \
             kernel's",
            x(spec.kernel_op_a()),
            x(spec.kernel_op_b()),
        ));
    }
    lines.extend([
        format!(
            "Block: {} threads ({} x {}), each computing {} x {} elements of C at stride ({}, {}) in runs of {}{}",
            spec.threads(),
            spec.m_dim,
            spec.n_dim,
            plan.m_thr(),
            plan.n_thr(),
            layout.row_step(),
            layout.col_step(),
            spec.lds_width,
            if spec.producers > 0 {
                format!(
                    "; then {} producer threads copying and converting the stripes ({} in all)",
                    spec.copy_threads(),
                    spec.block_threads()
                )
            } else {
                String::new()
            },
        ),
        format!(
            "Shared: {}{} and {} elements (skew {}), {} bytes{}",
            if spec.stages > 1 { format!("a ring of {} stripes ", spec.stages) } else { String::new() },
            stripe_decl(plan, Operand::A),
            stripe_decl(plan, Operand::B),
            match (plan.skew(Operand::A), plan.skew(Operand::B)) {
                (a, b) if a == b => a.to_string(),
                (a, b) => format!("{a} for A, {b} for B"),
            },
            plan.shared_bytes(),
            if plan.dynamic_shared() { ", dynamic (the launch passes them)" } else { "" },
        ),
        format!(
            "Grid: {}; parameters: {}",
            if spec.raster > 1 {
                format!(
                    "(ceil(m / {}) * ceil(n / {}), 1, problems), groups of {} tile rows",
                    spec.m_blk, spec.n_blk, spec.raster
                )
            } else {
                format!("(ceil(m / {}), ceil(n / {}), problems)", spec.m_blk, spec.n_blk)
            },
            Abi::gemm(spec.precision).params().iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
        ),
    ]);
    lines
}

/// `As[k][stride]` for a K-major stripe, `As[m][k], K contiguous (chunks
/// swizzled)` for a K-contiguous one, as the header describes it.
fn stripe_decl(plan: &Plan, operand: Operand) -> String {
    let (x, stride) = (operand.upper(), plan.stride(operand));
    if plan.layout(operand).k_contiguous() {
        let rows = crate::constraints::free_blk(plan.spec(), operand);
        let read = if crate::constraints::wgmma_direct(plan.spec(), operand) {
            ": the 128-byte swizzle wgmma reads in place"
        } else {
            ""
        };
        format!("{x}s[{rows}][{stride}] (K contiguous, 16-byte chunks XOR-swizzled{read})")
    } else if operand == Operand::A && crate::constraints::wgmma_a_regs(plan.spec()) {
        format!("{x}s[{}][{stride}] (the consumers load A's fragments into registers)", plan.spec().k_blk)
    } else {
        format!("{x}s[{}][{stride}]", plan.spec().k_blk)
    }
}
