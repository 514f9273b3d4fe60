//! Stream-K's geometry: how a stream-K kernel (`schedule = stream_k`)
//! shares one problem out over its grid, and the workspace it needs.
//!
//! The problem's work is a sequence of *stripes*: tile after tile of C (in
//! the kernel's tile order), each tile's `⌈k / tile.2⌉` stripes of A and B
//! in K order (one empty stripe when `k = 0`, so that every tile is still
//! written). Block `b` computes stripes `[b · share, (b + 1) · share)`. A
//! tile whose stripes one block computes is written to C directly; a tile
//! shared by several blocks is a *split tile*: each of them stores its
//! partial product to a slot of the workspace, counts its arrival on the
//! tile's counter, and the last to arrive adds the slots up in stripe order
//! and writes C — the same additions in the same order on every run,
//! whichever block arrives last.
//!
//! ```text
//! slots    = 2 · blocks × (tile.0 · tile.1 elements)     any contents
//! counters = tiles × u32                                 zero before and after a launch
//! ```
//!
//! Block `b`'s first segment (the tile its share starts in) uses slot
//! `2b`, its last segment, when that lies in another tile, slot `2b + 1`;
//! the segments between are whole tiles. A counter counts the arrivals at
//! its tile with `atom.inc` bounded by the tile's segments less one, so it
//! is back at 0 when the last one has arrived: counters zeroed once (at
//! allocation) serve every later launch, whatever its grid.

/// How a stream-K launch shares out one `m × n × k` problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamKGrid {
    /// Blocks in the grid (`nctaid.x`).
    pub blocks: u32,
    /// Stripes each block computes (the last block may compute fewer).
    pub share: u32,
    /// Tiles of C.
    pub tiles: u32,
    /// Stripes of the whole problem: `tiles × max(1, ⌈k / tile.2⌉)`.
    pub stripes: u32,
    /// Bytes of one slot: a whole C tile of the kernel's elements.
    pub slot_bytes: u64,
}

impl StreamKGrid {
    /// The grid that shares `m × n × k` out over at most `max_blocks`
    /// blocks (the blocks the GPU holds at once), evenly: `share =
    /// ⌈stripes / max_blocks⌉`, as few blocks as that share needs, for a
    /// kernel of C tiles `tile.0 × tile.1` and stripes `k_blk` deep on
    /// elements of `element_bytes`. `None` when there is nothing to compute
    /// (`m` or `n` is 0, or `max_blocks` is) or the problem has more
    /// stripes than the kernel counts (`.u32`) or slots than a `u64` of
    /// bytes holds.
    pub fn new(
        (m_blk, n_blk, k_blk): (u32, u32, u32),
        element_bytes: u32,
        (m, n, k): (u32, u32, u32),
        max_blocks: u32,
    ) -> Option<StreamKGrid> {
        if m == 0 || n == 0 || max_blocks == 0 || m_blk == 0 || n_blk == 0 || k_blk == 0 {
            return None;
        }
        let tiles = u64::from(m.div_ceil(m_blk)) * u64::from(n.div_ceil(n_blk));
        let per_tile = u64::from(k.div_ceil(k_blk).max(1));
        let stripes = u32::try_from(tiles.checked_mul(per_tile)?).ok()?;
        let share = stripes.div_ceil(max_blocks);
        let slot_bytes =
            u64::from(m_blk).checked_mul(u64::from(n_blk))?.checked_mul(u64::from(element_bytes))?;
        // Two slots a block, in bytes, must be countable too.
        slot_bytes.checked_mul(2 * u64::from(max_blocks))?;
        Some(StreamKGrid { blocks: stripes.div_ceil(share), share, tiles: tiles as u32, stripes, slot_bytes })
    }

    /// Bytes of the slots the launch needs: two tiles a block.
    pub fn slots_bytes(&self) -> u64 {
        2 * u64::from(self.blocks) * self.slot_bytes
    }

    /// Bytes of the counters the launch needs: a zeroed `u32` a tile.
    pub fn counters_bytes(&self) -> u64 {
        4 * u64::from(self.tiles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{KernelSpec, Op, Precision};

    /// The grid for `spec`'s kernel.
    fn for_spec(spec: &KernelSpec, mnk: (u32, u32, u32), max_blocks: u32) -> Option<StreamKGrid> {
        StreamKGrid::new(
            (spec.m_blk, spec.n_blk, spec.k_blk),
            spec.precision.element_bytes(),
            mnk,
            max_blocks,
        )
    }

    fn spec() -> KernelSpec {
        KernelSpec::new(Precision::F64, (Op::N, Op::N), (64, 32, 16), (16, 8), (64, 2), (16, 8))
    }

    #[test]
    fn the_share_covers_every_stripe_once_with_at_most_the_blocks_given() {
        let s = spec();
        // 768 x 768 x 768: 12 x 24 tiles of 48 stripes.
        let g = for_spec(&s, (768, 768, 768), 132).unwrap();
        assert_eq!((g.tiles, g.stripes), (288, 288 * 48));
        assert_eq!(g.share, (288 * 48u32).div_ceil(132));
        assert!(g.blocks <= 132 && g.blocks * g.share >= g.stripes && (g.blocks - 1) * g.share < g.stripes);
        // k = 0 still visits every tile once (beta · C).
        let z = for_spec(&s, (65, 33, 0), 1000).unwrap();
        assert_eq!((z.tiles, z.stripes, z.share, z.blocks), (4, 4, 1, 4));
        assert_eq!(for_spec(&s, (0, 5, 5), 10), None);
        assert_eq!(for_spec(&s, (5, 5, 5), 0), None);
        // More stripes than a .u32 counts.
        assert_eq!(for_spec(&s, (i32::MAX as u32, i32::MAX as u32, 1 << 20), 132), None);
    }

    #[test]
    fn two_slots_a_block_and_a_counter_a_tile() {
        let s = spec();
        let g = for_spec(&s, (100, 100, 100), 7).unwrap();
        assert_eq!(g.slot_bytes, 64 * 32 * 8);
        assert_eq!(g.slots_bytes(), 2 * u64::from(g.blocks) * 64 * 32 * 8);
        assert_eq!((g.tiles, g.counters_bytes()), (8, 32));
    }

    proptest::proptest! {
        /// Any problem and tile: no panic, and when there is a grid, its
        /// blocks cover every stripe, none past the last, with at most the
        /// blocks given.
        #[test]
        fn any_problem_gets_a_covering_grid_or_none(
            tile in proptest::array::uniform3(proptest::num::u32::ANY),
            mnk in proptest::array::uniform3(proptest::num::u32::ANY),
            max_blocks in proptest::num::u32::ANY,
            element_bytes in 4u32..=16,
        ) {
            let [m, n, k] = mnk;
            if let Some(g) = StreamKGrid::new((tile[0], tile[1], tile[2]), element_bytes, (m, n, k), max_blocks) {
                proptest::prop_assert!(g.blocks >= 1 && g.blocks <= max_blocks && g.share >= 1);
                proptest::prop_assert!(u64::from(g.blocks) * u64::from(g.share) >= u64::from(g.stripes));
                proptest::prop_assert!(u64::from(g.blocks - 1) * u64::from(g.share) < u64::from(g.stripes));
                proptest::prop_assert!(g.slots_bytes() >= g.slot_bytes && g.counters_bytes() >= 4);
            }
        }
    }
}
