//! Spread samples of a space ([`Space::sample`]) and the preferred
//! variants of one tile configuration ([`Space::tile_variants`]), for a
//! tuner that cannot run every spec.

use std::cmp::Reverse;

use super::{Bounds, Candidate, Point, Space};
use crate::spec::{GlobalLoad, KernelSpec, LoadShape};

/// A tile configuration: `tile` and `threads`.
type TileKey = (u32, u32, u32, u32, u32);

fn tile_key(s: &KernelSpec) -> TileKey {
    (s.m_blk, s.n_blk, s.k_blk, s.m_dim, s.n_dim)
}

impl Space {
    /// `n` specs of the space spread over it, for a tuner that cannot run
    /// them all (`--max-variants`). Deterministic; all of them if the space
    /// holds at most `n`.
    ///
    /// The rule:
    ///
    /// 1. Group the specs by tile configuration (`tile` and `threads`); the
    ///    variants of a group differ in `lds_width`, load shapes, `ldg` and
    ///    the pipeline parameters.
    /// 2. Rank the groups by register reuse, then resident threads per SM
    ///    (both descending), then generation order.
    /// 3. If there are more groups than `n`, take `n` evenly spaced along
    ///    that ranking (the midpoints of `n` equal slices), so the sample
    ///    spans high to low reuse and occupancy rather than crowding at
    ///    either end; else take every group.
    /// 4. Order each chosen group's variants by a heuristic preference
    ///    ([`Space::tile_variants`]).
    /// 5. Deal round-robin: every chosen group's first variant in ranking
    ///    order, then every group's second, and so on until `n`.
    ///
    /// The result is in dealing order, so a prefix of it is itself a spread
    /// sample.
    pub fn sample(&self, n: usize) -> Vec<Candidate> {
        self.sample_where(n, |_| true)
    }

    /// [`Space::sample`] of the specs `keep` accepts (a stratum of the
    /// space, e.g. one math), by the same rule over their tile
    /// configurations. `keep` sees each point's spec: its tile, threads and
    /// point dimensions (`lds_width`, `stages`, `ldg_width`, `frag_sets`,
    /// `math`, `mma`), and must not depend on the free dimensions.
    pub fn sample_where(&self, n: usize, keep: impl Fn(&KernelSpec) -> bool) -> Vec<Candidate> {
        if n == 0 {
            return Vec::new();
        }
        // Groups: consecutive points that share a tile configuration.
        struct Group {
            first: KernelSpec,
            reuse: f64,
            threads_per_sm: u32,
        }
        let mut groups: Vec<Group> = Vec::new();
        for p in self.points().filter(|p| p.admitted && keep(&p.spec)) {
            let threads_per_sm = p.stats.occupancy.threads_per_sm();
            match groups.last_mut() {
                Some(g) if tile_key(&g.first) == tile_key(&p.spec) => {
                    g.threads_per_sm = g.threads_per_sm.max(threads_per_sm);
                }
                _ => groups.push(Group { first: p.spec, reuse: p.stats.reuse, threads_per_sm }),
            }
        }
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by(|&a, &b| {
            let (ga, gb) = (&groups[a], &groups[b]);
            gb.reuse.total_cmp(&ga.reuse).then(gb.threads_per_sm.cmp(&ga.threads_per_sm)).then(a.cmp(&b))
        });
        let chosen: Vec<usize> = if order.len() > n {
            (0..n).map(|i| order[(2 * i + 1) * order.len() / (2 * n)]).collect()
        } else {
            order
        };
        if chosen.is_empty() {
            return Vec::new();
        }
        // Fetch enough of each group's preferred variants to deal `n`:
        // first an even share, more while a group that ran out of its
        // share holds back the dealing.
        let mut share = n.div_ceil(chosen.len());
        loop {
            let variants: Vec<Vec<Candidate>> =
                chosen.iter().map(|&g| self.tile_variants_where(&groups[g].first, share, &keep)).collect();
            let out = deal(&variants, n);
            let short = out.len() < n && variants.iter().any(|v| v.len() == share);
            if !short || share >= n {
                return out;
            }
            share = (2 * share).min(n);
        }
    }

    /// The first `n` specs of the space with `tile`'s tile configuration
    /// (`tile` and `threads`), in order of a heuristic preference:
    ///
    /// - per point: a tensor-core math first (twice the FMA units' rate on
    ///   sm_80 and sm_90: when a tile has both, its first variant is the one
    ///   that bounds highest), then the widest `ldg_width`, then a ring of 3
    ///   stages (then 4, 2 and deeper, register staging last: 3 won on the
    ///   H100), then the widest `lds_width`;
    /// - per variant of a point: better-coalesced loads (more bytes read
    ///   contiguously per row of the load shapes, up to a 128-byte line, A
    ///   and B summed), a warp arrangement before none, the larger `raster`,
    ///   then `ldg` in [`GlobalLoad::ALL`] order;
    /// - then generation order.
    pub fn tile_variants(&self, tile: &KernelSpec, n: usize) -> Vec<Candidate> {
        self.tile_variants_where(tile, n, &|_| true)
    }

    /// [`Space::tile_variants`] among the points `keep` accepts.
    fn tile_variants_where(
        &self,
        tile: &KernelSpec,
        n: usize,
        keep: &dyn Fn(&KernelSpec) -> bool,
    ) -> Vec<Candidate> {
        let one = |x: u32| x..=x;
        let sub = Space {
            bounds: Bounds {
                m_dim: one(tile.m_dim),
                n_dim: one(tile.n_dim),
                m_blk: one(tile.m_blk),
                n_blk: one(tile.n_blk),
                k_blk: one(tile.k_blk),
                ..self.bounds.clone()
            },
            ..self.clone()
        };
        let mut points: Vec<Point> = sub.points().filter(|p| p.admitted && keep(&p.spec)).collect();
        // Stable sorts keep generation order among equals.
        points.sort_by_key(|p| {
            let s = &p.spec;
            (
                !s.math.is_mma(),
                Reverse(s.ldg_width),
                s.stages.abs_diff(3),
                Reverse(s.stages),
                Reverse(s.lds_width),
            )
        });
        let element_bytes = self.precision.element_bytes();
        let coalesced = |shape: LoadShape| shape.lead.saturating_mul(element_bytes).min(128);
        let mut out = Vec::new();
        for p in points {
            if out.len() >= n {
                break;
            }
            let mut all: Vec<Candidate> = sub.expand(p).collect();
            all.sort_by_key(|c| {
                let s = &c.spec;
                let ldg = GlobalLoad::ALL.iter().position(|&l| l == s.ldg);
                (
                    Reverse(coalesced(s.load_a) + coalesced(s.load_b)),
                    s.warps.is_none(),
                    Reverse(s.raster),
                    ldg,
                )
            });
            out.extend(all.into_iter().take(n - out.len()));
        }
        out
    }
}

/// Deals round-robin from `variants` (each in preference order) until `n`.
fn deal(variants: &[Vec<Candidate>], n: usize) -> Vec<Candidate> {
    let total = variants.iter().map(Vec::len).sum::<usize>();
    let mut out = Vec::with_capacity(n.min(total));
    for round in 0.. {
        let before = out.len();
        for v in variants {
            if out.len() == n {
                return out;
            }
            if let Some(&c) = v.get(round) {
                out.push(c);
            }
        }
        if out.len() == before {
            break;
        }
    }
    out
}
