//! Where a block and its threads sit: the tile scheduler (which C tile a
//! block computes, `raster`) and the warp arrangement (which C positions a
//! thread owns, `warps`).
//!
//! With `raster = 1` block `(ctaid.x, ctaid.y)` computes tile `(x, y)`. With
//! `raster = g ≥ 2` the grid is one-dimensional and block `pid` walks the
//! tiles in groups of `g` tile rows, down each column of a group before the
//! next, so that the blocks resident together read few distinct stripes of
//! A and B and find them in L2:
//!
//! ```text
//! group = pid / (g · tiles_n)      rows_in_group = min(tiles_m − group · g, g)
//! r     = pid mod (g · tiles_n)    tile = (group · g + r mod rows_in_group, r / rows_in_group)
//! ```
//!
//! Without `warps` a thread's position in the block's `M_dim × N_dim` grid
//! is `(thread mod M_dim, thread div M_dim)`. With `warps = (wm, wn)`, warp
//! `w = thread / 32` owns the sub-grid `(w mod wm, w div wm)` of
//! `M_dim / wm × N_dim / wn` positions, its lanes along M first: a warp
//! then reads few distinct runs of A and B from shared memory, and each
//! distinct run once (the others are broadcasts).

use crate::ptx::{BinOp, Instr, Operand as Op, Reg, Special, Type};
use crate::spec::Schedule;

use super::Cx;

/// Reads the thread index into `cx.thread` and sets `cx.blk_m0` and
/// `cx.blk_n0`, the first row and column of the block's C tile.
pub(crate) fn block_origin(cx: &mut Cx<'_>) {
    let spec = *cx.plan.spec();
    let (thread, blk_m0, blk_n0) = (cx.thread, cx.blk_m0, cx.blk_n0);
    if spec.schedule == Schedule::StreamK {
        // Each segment's tile sets the origin (`tile_origin`).
        cx.b.push(Instr::mov(thread, Special::TidX));
        return;
    }
    if spec.raster <= 1 {
        cx.b.section(format!(
            "block (ctaid.x, ctaid.y) computes C[blk_m0 .. +{}, blk_n0 .. +{}]",
            spec.m_blk, spec.n_blk
        ));
        cx.b.push(Instr::mov(thread, Special::TidX));
        cx.b.push(Instr::mov(blk_m0, Special::CtaidX));
        cx.b.push(Instr::mul(blk_m0, blk_m0, Op::imm(spec.m_blk)));
        cx.b.push(Instr::mov(blk_n0, Special::CtaidY));
        cx.b.push(Instr::mul(blk_n0, blk_n0, Op::imm(spec.n_blk)));
        return;
    }
    raster_origin(cx, None);
}

/// Sets `cx.blk_m0` and `cx.blk_n0` to the origin of tile `tile` in the
/// tile order of `raster = g` (module doc; `g = 1` walks the tile rows one
/// by one): a stream-K segment's tile. `tile` is clobbered.
pub(crate) fn tile_origin(cx: &mut Cx<'_>, tile: Reg) {
    raster_origin(cx, Some(tile));
}

/// The rasterized tile order: tile `pid`, `ctaid.x` (after `thread` is
/// read) when `pid` is `None`.
fn raster_origin(cx: &mut Cx<'_>, pid: Option<Reg>) {
    let spec = *cx.plan.spec();
    let (thread, blk_m0, blk_n0) = (cx.thread, cx.blk_m0, cx.blk_n0);
    let g = spec.raster.max(1);
    cx.b.reg_group(format!("tile scheduler: groups of {g} tile rows"));
    let r = |cx: &mut Cx<'_>, name: &str| cx.b.reg(name, Type::U32);
    let block_pid = pid.is_none().then(|| r(cx, "pid"));
    let [tiles_m, tiles_n, width, group, first, rows, tile_m, tile_n] =
        ["tiles_m", "tiles_n", "group_width", "group", "group_row0", "group_rows", "tile_m", "tile_n"]
            .map(|n| r(cx, n));
    let pid = match block_pid {
        Some(pid) => {
            cx.b.section(format!(
                "block pid = ctaid.x computes tile (tile_m, tile_n), {g} tile rows a group, column by column"
            ));
            cx.b.push(Instr::mov(thread, Special::TidX));
            cx.b.push(Instr::mov(pid, Special::CtaidX));
            pid
        }
        None => {
            cx.b.comment(format!("tile pid is (tile_m, tile_n), {g} tile rows a group, column by column"));
            pid.expect("a tile register when not the block's")
        }
    };
    // m, n ≤ i32::MAX, so adding the tile size less one cannot wrap.
    cx.b.push(Instr::add(tiles_m, cx.params.m, Op::imm(spec.m_blk - 1)));
    cx.b.push(Instr::binary(BinOp::Div, tiles_m, tiles_m, Op::imm(spec.m_blk)));
    cx.b.push(Instr::add(tiles_n, cx.params.n, Op::imm(spec.n_blk - 1)));
    cx.b.push(Instr::binary(BinOp::Div, tiles_n, tiles_n, Op::imm(spec.n_blk)));
    cx.b.push(Instr::mul(width, tiles_n, Op::imm(g)));
    cx.b.push(Instr::binary(BinOp::Div, group, pid, width));
    cx.b.push(Instr::mul(first, group, Op::imm(g)));
    cx.b.push(Instr::sub(rows, tiles_m, first));
    cx.b.push(Instr::binary(BinOp::Min, rows, rows, Op::imm(g)));
    // pid within its group, then its row and column there.
    cx.b.push(Instr::binary(BinOp::Rem, pid, pid, width));
    cx.b.push(Instr::binary(BinOp::Rem, tile_m, pid, rows));
    cx.b.push(Instr::add(tile_m, tile_m, first));
    cx.b.push(Instr::binary(BinOp::Div, tile_n, pid, rows));
    cx.b.push(Instr::mul(blk_m0, tile_m, Op::imm(spec.m_blk)));
    cx.b.push(Instr::mul(blk_n0, tile_n, Op::imm(spec.n_blk)));
}

/// Sets `cx.tx` and `cx.ty`, the thread's position in the block's
/// `M_dim × N_dim` grid of C positions (and `cx.lane` for a tensor-core
/// math).
pub(crate) fn thread_position(cx: &mut Cx<'_>) {
    let spec = *cx.plan.spec();
    let thread = cx.thread;
    let Some(warps) = spec.warps else {
        cx.b.comment(format!(
            "the thread's place in the C layout: tx = thread mod {0}, ty = thread div {0}",
            spec.m_dim
        ));
        let (ty, tx) = cx.divmod(thread, spec.m_dim, "ty", "tx");
        (cx.tx, cx.ty) = (tx, ty);
        return;
    };
    // Each warp owns a part of the C positions: a sub-grid of the paper's
    // layout, or for a tensor-core math its warp tile, whose lanes are the
    // fragments' 8 × 4 grid (g = lane / 4 along M, t = lane mod 4 along N).
    let mma = spec.math.is_mma();
    let (per_m, per_n, lanes_m) = if mma {
        let layout = super::CLayout::new(cx.plan);
        let (wm, wn) = (spec.m_blk / warps.m, spec.n_blk / warps.n);
        cx.b.comment(format!(
            "the thread's place in the C layout: warp (thread / 32) owns the {wm} x {wn} warp tile \
             (warp mod {0}, warp div {0}); tx = warp_m {1} + lane / 4, ty = warp_n {2} + lane mod 4",
            warps.m,
            wm / layout.row_width(),
            wn / layout.col_width(),
        ));
        (wm / layout.row_width(), wn / layout.col_width(), 4)
    } else {
        let (lanes_m, lanes_n) = (spec.m_dim / warps.m, spec.n_dim / warps.n);
        cx.b.comment(format!(
            "the thread's place in the C layout: warp (thread / 32) owns a {lanes_m} x {lanes_n} sub-grid \
             of the {} x {} warp grid, lanes along M first",
            warps.m, warps.n
        ));
        (lanes_m, lanes_n, lanes_m)
    };
    let (warp, lane) = cx.divmod(thread, 32, "warp", "lane");
    let (warp_n, warp_m) = cx.divmod(warp, warps.m, "warp_n", "warp_m");
    let names = if mma { ("lane_g", "lane_t") } else { ("lane_n", "lane_m") };
    let (lane_q, lane_r) = cx.divmod(lane, lanes_m, names.0, names.1);
    // The paper's layout runs lanes along M first; the fragments' along N.
    let (lane_m, lane_n) = if mma { (lane_q, lane_r) } else { (lane_r, lane_q) };
    let tx = cx.b.reg("tx", Type::U32);
    let ty = cx.b.reg("ty", Type::U32);
    cx.b.push(Instr::mad(tx, warp_m, Op::imm(per_m), lane_m));
    cx.b.push(Instr::mad(ty, warp_n, Op::imm(per_n), lane_n));
    (cx.tx, cx.ty) = (tx, ty);
    if mma {
        cx.lane = Some((lane_m, lane_n));
    }
}
