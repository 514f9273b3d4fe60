//! Stream-K (`schedule = stream_k`): the kernel's blocks share the
//! problem's stripes out evenly instead of taking a tile each (the
//! geometry, the workspace and the order of the sums are
//! [`crate::stream_k`]'s). Around the unchanged main loop and epilogue:
//!
//! ```text
//! it = ctaid.x · share;  end = min(it + share, stripes)
//! while it < end:                                   (one segment: a tile's stripes kt0 .. kt0 + len)
//!     tile, kt0 = divmod(it, stripes_per_tile);  len = min(stripes_per_tile − kt0, end − it)
//!     blk_m0, blk_n0 = origin(tile);  A, B moved kt0 stripes along K;  k = the segment's depth
//!     bar.sync;  C_regs = main loop
//!     if the segment is not the whole tile:
//!         slot ⇐ C_regs;  bar.sync
//!         thread 0: fence.acq_rel.gpu; old = atom.inc(counter[tile], segments − 1); fence.acq_rel.gpu
//!         not the last to arrive (old ≠ segments − 1): next segment
//!         C_regs = slot of segment 0 + slot of segment 1 + …  (stripe order)
//!     C = alpha · C_regs + beta · C
//!     it += len
//! ```
//!
//! With `share = 0` a block computes one whole tile (`share` is then a
//! tile's stripes): the grid of a block per tile that
//! [`crate::LaunchShape::batch_grid`] gives computes like a tile kernel's,
//! batches and split K included, and touches no workspace.
//!
//! A slot holds a thread's accumulators scalar after scalar, each scalar's
//! values for the block's threads side by side (`[scalar][thread]`), so a
//! warp's stores and loads are coalesced whatever the inner product's
//! fragment layout; only the same kernel reads them back.

use crate::ptx::{self, Address, BinOp, CacheQual, Cmp, Instr, Operand as Op, Space, Special, Type};

use super::{Cx, Epilogue, InnerProduct, schedule};

/// Lowers the stream-K driver around `main_loop` (the register-staged or
/// ring pipeline, returning the label where the accumulators are complete)
/// and `epilogue`; control falls through to the kernel's end.
pub(crate) fn lower(
    cx: &mut Cx<'_>,
    inner: &mut dyn InnerProduct,
    epilogue: &mut dyn Epilogue,
    main_loop: fn(&mut Cx<'_>, &mut dyn InnerProduct) -> ptx::Label,
) {
    let spec = *cx.plan.spec();
    let (slots, counters, share) =
        cx.params.stream_k.expect("a stream-K kernel's ABI has `slots`, `counters` and `share`");
    let u32r = |cx: &mut Cx<'_>, name: &str| cx.b.reg(name, Type::U32);
    let u64r = |cx: &mut Cx<'_>, name: &str| cx.b.reg(name, Type::U64);
    let pred = |cx: &mut Cx<'_>, name: &str| cx.b.reg(name, Type::Pred);

    cx.b.reg_group("stream-K: the block's share of the problem's stripes");
    let [k_full, per_tile, tiles_m, tiles_n, stripes, start, it, end, tile, kt0, len, k0, rest] = [
        "k_full",
        "sk_per_tile",
        "sk_tiles_m",
        "sk_tiles_n",
        "sk_stripes",
        "sk_start",
        "sk_it",
        "sk_end",
        "sk_tile",
        "sk_kt0",
        "sk_len",
        "sk_k0",
        "sk_rest",
    ]
    .map(|n| u32r(cx, n));
    let [a_base, b_base, k0_wide] = ["a_base", "b_base", "sk_k0_wide"].map(|n| u64r(cx, n));
    let [p_no_share, p_done, p_full, p_whole, p_first] =
        ["p_sk_no_share", "p_sk_done", "p_sk_full", "p_sk_whole", "p_sk_first"].map(|n| pred(cx, n));
    let seg_loop = cx.b.label("sk_segment");
    let partial = cx.b.label("sk_partial");
    let write_c = cx.b.label("sk_write_c");
    let next = cx.b.label("sk_next");
    let done = cx.b.label("sk_done");
    // A slot: the block's whole C tile.
    let slot_bytes = u64::from(spec.m_blk) * u64::from(spec.n_blk) * cx.esz() as u64;

    cx.b.section(
        "stream-K: stripes = tiles * max(1, ceil(k / K_blk)); this block's are [ctaid.x * share, + share)",
    );
    let k = cx.params.k;
    cx.b.push(Instr::cvta_to_global(slots, slots));
    cx.b.push(Instr::cvta_to_global(counters, counters));
    cx.b.push(Instr::mov(k_full, k));
    cx.b.push(Instr::mov(a_base, cx.params.a_ptr));
    cx.b.push(Instr::mov(b_base, cx.params.b_ptr));
    cx.b.push(Instr::add(per_tile, k, Op::imm(spec.k_blk - 1)));
    cx.b.push(Instr::binary(BinOp::Div, per_tile, per_tile, Op::imm(spec.k_blk)));
    cx.b.push(Instr::binary(BinOp::Max, per_tile, per_tile, Op::imm(1)));
    // m, n ≤ i32::MAX: adding the tile size less one cannot wrap; the host
    // launches only problems whose stripes fit a .u32.
    cx.b.push(Instr::add(tiles_m, cx.params.m, Op::imm(spec.m_blk - 1)));
    cx.b.push(Instr::binary(BinOp::Div, tiles_m, tiles_m, Op::imm(spec.m_blk)));
    cx.b.push(Instr::add(tiles_n, cx.params.n, Op::imm(spec.n_blk - 1)));
    cx.b.push(Instr::binary(BinOp::Div, tiles_n, tiles_n, Op::imm(spec.n_blk)));
    cx.b.push(Instr::mul(stripes, tiles_m, tiles_n));
    cx.b.push(Instr::mul(stripes, stripes, per_tile));
    cx.b.comment("share = 0: a tile a block, the grid a block per tile (batches and split K as any kernel)");
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_no_share, share, Op::imm(0)));
    cx.b.push(Instr::selp(share, per_tile, share, p_no_share));
    cx.b.push(Instr::mov(start, Special::CtaidX));
    cx.b.push(Instr::mul(start, start, share));
    // A block past the last stripe (a grid larger than the share needs)
    // computes nothing.
    cx.b.push(Instr::binary(BinOp::Min, start, start, stripes));
    cx.b.push(Instr::mov(it, start));
    cx.b.push(Instr::sub(end, stripes, start));
    cx.b.push(Instr::binary(BinOp::Min, end, end, share));
    cx.b.push(Instr::add(end, end, start));

    cx.b.section("stream-K: the next segment, tile `tile`'s stripes kt0 .. kt0 + len");
    cx.b.place(seg_loop);
    cx.b.push(Instr::setp(Cmp::Ge, Type::U32, p_done, it, end));
    cx.b.push_if(p_done, Instr::bra_uni(done));
    cx.b.push(Instr::binary(BinOp::Div, tile, it, per_tile));
    cx.b.push(Instr::binary(BinOp::Rem, kt0, it, per_tile));
    cx.b.push(Instr::sub(len, per_tile, kt0));
    cx.b.push(Instr::sub(rest, end, it));
    cx.b.push(Instr::binary(BinOp::Min, len, len, rest));
    // The tile order clobbers its argument: a copy.
    cx.b.push(Instr::mov(rest, tile));
    schedule::tile_origin(cx, rest);
    cx.b.comment("A and B from stripe kt0 on; k = the segment's depth");
    cx.b.push(Instr::mul(k0, kt0, Op::imm(spec.k_blk)));
    cx.b.push(Instr::sub(k, k_full, k0));
    cx.b.push(Instr::mul(rest, len, Op::imm(spec.k_blk)));
    cx.b.push(Instr::binary(BinOp::Min, k, k, rest));
    cx.b.push(Instr::cvt(k0_wide, k0));
    for (ptr, base, stripe, ld) in [
        (cx.params.a_ptr, a_base, *cx.plan.stripe_a(), cx.params.lda),
        (cx.params.b_ptr, b_base, *cx.plan.stripe_b(), cx.params.ldb),
    ] {
        // K runs along the stored rows (one element a step) or across them
        // (a leading dimension a step).
        if stripe.lead_is_k {
            cx.b.push(Instr::mad(ptr, k0_wide, Op::imm(cx.esz()), base));
        } else {
            cx.b.push(Instr::mul(ptr, k0_wide, ld));
            cx.b.push(Instr::mad(ptr, ptr, Op::imm(cx.esz()), base));
        }
    }
    cx.b.comment("every thread is done with the previous segment's stripes and flag");
    cx.b.push(Instr::bar_sync(0));
    let complete = main_loop(cx, inner);
    cx.b.place(complete);
    inner.finish(cx);
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_full, kt0, Op::imm(0)));
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_whole, len, per_tile));
    cx.b.push(Instr::and_pred(p_full, p_full, p_whole));
    cx.b.push_if(p_full, Instr::bra_uni(write_c));

    cx.b.section("stream-K: a split tile's segment into its slot; the last to arrive sums the slots");
    cx.b.place(partial);
    let acc: Vec<ptx::Reg> = inner.accumulators().iter().flat_map(|e| e.regs()).collect();
    let threads = spec.m_dim * spec.n_dim;
    let sbytes = cx.scalar.bytes();
    let [slot, first, last, bound, old, flag, seg] =
        ["sk_slot", "sk_first", "sk_last", "sk_bound", "sk_old", "sk_flag", "sk_seg"].map(|n| u32r(cx, n));
    let [slot_at, thread_at] = ["sk_slot_at", "sk_thread_at"].map(|n| u64r(cx, n));
    let [p_thread0, p_arrived, p_not_last, p_more] =
        ["p_sk_thread0", "p_sk_arrived", "p_sk_not_last", "p_sk_more"].map(|n| pred(cx, n));
    let flag_at = u32r(cx, "sk_flag_at");
    // The thread's first scalar in a slot: `thread` scalars in.
    cx.b.push(Instr::mul_wide(thread_at, cx.thread, Op::imm(i64::from(sbytes))));
    cx.b.push(Instr::add(thread_at, thread_at, slots));
    let slot_address = |cx: &mut Cx<'_>, slot: ptx::Reg| {
        cx.b.push(Instr::mul_wide(slot_at, slot, Op::imm(slot_bytes as i64)));
        cx.b.push(Instr::add(slot_at, slot_at, thread_at));
    };
    let scalar_offset = |r: usize| (r as i64) * i64::from(threads) * i64::from(sbytes);
    cx.b.comment("slot 2 * ctaid.x for the block's first segment, 2 * ctaid.x + 1 for its last");
    cx.b.push(Instr::setp(Cmp::Ne, Type::U32, p_first, it, start));
    cx.b.push(Instr::selp(slot, Op::imm(1), Op::imm(0), p_first));
    cx.b.push(Instr::mov(seg, Special::CtaidX));
    cx.b.push(Instr::mad(slot, seg, Op::imm(2), slot));
    slot_address(cx, slot);
    for (r, &reg) in acc.iter().enumerate() {
        cx.b.push(Instr::st(Space::Global, Address::reg(slot_at, scalar_offset(r)), &[reg]));
    }
    cx.b.comment("the tile's segments are those of blocks first .. last");
    cx.b.push(Instr::mul(first, tile, per_tile));
    cx.b.push(Instr::add(last, first, per_tile));
    cx.b.push(Instr::sub(last, last, Op::imm(1)));
    cx.b.push(Instr::binary(BinOp::Div, last, last, share));
    cx.b.push(Instr::binary(BinOp::Div, first, first, share));
    cx.b.push(Instr::sub(bound, last, first));
    cx.b.push(Instr::bar_sync(0));
    cx.b.comment("thread 0 releases the block's slot, counts its arrival and acquires the earlier ones'");
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_thread0, cx.thread, Op::imm(0)));
    cx.b.push(Instr::mul_wide(slot_at, tile, Op::imm(4)));
    cx.b.push(Instr::add(slot_at, slot_at, counters));
    cx.b.push(Instr::mov(old, Op::imm(0)));
    cx.b.push_if(p_thread0, Instr::fence_acq_rel_gpu());
    cx.b.push_if(p_thread0, Instr::atom_inc(old, Address::reg(slot_at, 0), bound));
    cx.b.push_if(p_thread0, Instr::fence_acq_rel_gpu());
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_arrived, old, bound));
    cx.b.push(Instr::selp(flag, Op::imm(1), Op::imm(0), p_arrived));
    cx.shared_address(flag_at, cx.smem_a);
    cx.b.push_if(p_thread0, Instr::st(Space::Shared, Address::reg(flag_at, 0), &[flag]));
    cx.b.push(Instr::bar_sync(0));
    cx.b.push(Instr::ld(Space::Shared, CacheQual::None, &[flag], Address::reg(flag_at, 0)));
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_not_last, flag, Op::imm(0)));
    cx.b.push_if(p_not_last, Instr::bra_uni(next));

    cx.b.comment("the last to arrive: C_regs = the segments' slots summed in stripe order");
    cx.b.comment("segment 0: block first's last slot, or its first if its share starts with the tile");
    cx.b.push(Instr::mul(seg, first, share));
    cx.b.push(Instr::mul(rest, tile, per_tile));
    cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p_first, seg, rest));
    cx.b.push(Instr::selp(slot, Op::imm(1), Op::imm(0), p_first));
    cx.b.push(Instr::mad(slot, first, Op::imm(2), slot));
    slot_address(cx, slot);
    for (r, &reg) in acc.iter().enumerate() {
        cx.b.push(Instr::ld(Space::Global, CacheQual::Cg, &[reg], Address::reg(slot_at, scalar_offset(r))));
    }
    let sum_loop = cx.b.label("sk_sum");
    let summed = cx.b.label("sk_summed");
    let part = cx.b.reg("sk_part", cx.scalar);
    cx.b.push(Instr::mov(seg, first));
    cx.b.place(sum_loop);
    cx.b.push(Instr::add(seg, seg, Op::imm(1)));
    cx.b.push(Instr::setp(Cmp::Gt, Type::U32, p_more, seg, last));
    cx.b.push_if(p_more, Instr::bra_uni(summed));
    cx.b.comment("segment seg - first: block seg's first slot");
    cx.b.push(Instr::mul(slot, seg, Op::imm(2)));
    slot_address(cx, slot);
    for (r, &reg) in acc.iter().enumerate() {
        cx.b.push(Instr::ld(Space::Global, CacheQual::Cg, &[part], Address::reg(slot_at, scalar_offset(r))));
        cx.b.push(Instr::add(reg, reg, part));
    }
    cx.b.push(Instr::bra_uni(sum_loop));
    cx.b.place(summed);

    cx.b.section("epilogue: C = alpha * C_regs + beta * C");
    cx.b.place(write_c);
    super::problem_c(cx);
    epilogue.emit(cx, inner.accumulators());
    cx.b.place(next);
    cx.b.push(Instr::add(it, it, len));
    cx.b.push(Instr::bra_uni(seg_loop));
    cx.b.place(done);
}
