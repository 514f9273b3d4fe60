//! The kernel specification: every parameter of the universal GEMM stencil.
//!
//! A [`KernelSpec`] is plain data. It is what `gemm_kernel!` parses, what the
//! search space enumerates and what the tuner writes back. It is not known to
//! be legal until [`crate::validate`] has turned it into a [`crate::Plan`].

use std::fmt;

/// Element type of A, B and C: the BLAS precision letter S, D, C or Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Precision {
    /// `f32`: SGEMM.
    F32,
    /// `f64`: DGEMM.
    F64,
    /// `c32`, `Complex<f32>`: CGEMM.
    C32,
    /// `c64`, `Complex<f64>`: ZGEMM.
    C64,
}

impl Precision {
    /// Every precision, in BLAS order S, D, C, Z.
    pub const ALL: [Precision; 4] = [Precision::F32, Precision::F64, Precision::C32, Precision::C64];

    /// The token used in `gemm_kernel!` (`f32`, `f64`, `c32`, `c64`).
    pub const fn token(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::C32 => "c32",
            Precision::C64 => "c64",
        }
    }

    /// Parses a `gemm_kernel!` token.
    pub fn from_token(token: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.token() == token)
    }

    /// The BLAS routine letter: `s`, `d`, `c` or `z`.
    pub const fn blas_letter(self) -> char {
        match self {
            Precision::F32 => 's',
            Precision::F64 => 'd',
            Precision::C32 => 'c',
            Precision::C64 => 'z',
        }
    }

    /// Parses a BLAS letter (`s`, `d`, `c`, `z`, either case).
    pub fn from_blas_letter(letter: char) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.blas_letter() == letter.to_ascii_lowercase())
    }

    /// Whether elements are complex (two scalars: real, then imaginary).
    pub const fn is_complex(self) -> bool {
        matches!(self, Precision::C32 | Precision::C64)
    }

    /// Bytes of one real scalar (4 or 8).
    pub const fn scalar_bytes(self) -> u32 {
        match self {
            Precision::F32 | Precision::C32 => 4,
            Precision::F64 | Precision::C64 => 8,
        }
    }

    /// Scalars per element: 1 for real, 2 for complex.
    pub const fn lanes(self) -> u32 {
        if self.is_complex() { 2 } else { 1 }
    }

    /// Bytes of one element.
    pub const fn element_bytes(self) -> u32 {
        self.scalar_bytes() * self.lanes()
    }

    /// 32-bit registers that hold one element.
    pub const fn element_regs(self) -> u32 {
        self.element_bytes() / 4
    }

    /// Floating-point operations of one multiply-add of elements:
    /// 2 for real, 8 for complex (the convention cuBLAS and the paper use).
    pub const fn flops_per_fma(self) -> u64 {
        if self.is_complex() { 8 } else { 2 }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// How an operand enters the product: `op(X)` in BLAS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Op {
    /// `N`: X as stored.
    N,
    /// `T`: the transpose of X.
    T,
    /// `C`: the conjugate transpose of X (means `T` for real precisions).
    C,
}

impl Op {
    /// All three ops, in BLAS order.
    pub const ALL: [Op; 3] = [Op::N, Op::T, Op::C];

    /// The `gemm_kernel!` token and BLAS character.
    pub const fn letter(self) -> char {
        match self {
            Op::N => 'N',
            Op::T => 'T',
            Op::C => 'C',
        }
    }

    /// Parses `N`, `T` or `C` (either case).
    pub fn from_letter(letter: char) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.letter() == letter.to_ascii_uppercase())
    }

    /// Whether the stored matrix is read across its leading dimension.
    pub const fn is_transposed(self) -> bool {
        !matches!(self, Op::N)
    }

    /// The op a kernel of `precision` really performs: `C` means `T` on reals.
    pub const fn effective(self, precision: Precision) -> Op {
        match self {
            Op::C if !precision.is_complex() => Op::T,
            op => op,
        }
    }

    /// Whether elements are conjugated on their way in.
    pub const fn conjugates(self, precision: Precision) -> bool {
        matches!(self.effective(precision), Op::C)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Which cache path the stripes of A and B take from global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GlobalLoad {
    /// `ld.global.nc`: the read-only (texture) data path. A and B are never
    /// written during a GEMM, so this is always legal. The default.
    #[default]
    Nc,
    /// `ld.global.ca`: cache in L1 and L2.
    Ca,
    /// `ld.global.cg`: cache in L2 only, bypassing L1.
    Cg,
}

impl GlobalLoad {
    /// Every path, default first.
    pub const ALL: [GlobalLoad; 3] = [GlobalLoad::Nc, GlobalLoad::Ca, GlobalLoad::Cg];

    /// The `gemm_kernel!` token (`nc`, `ca`, `cg`).
    pub const fn token(self) -> &'static str {
        match self {
            GlobalLoad::Nc => "nc",
            GlobalLoad::Ca => "ca",
            GlobalLoad::Cg => "cg",
        }
    }

    /// Parses a `gemm_kernel!` token.
    pub fn from_token(token: &str) -> Option<GlobalLoad> {
        GlobalLoad::ALL.into_iter().find(|g| g.token() == token)
    }
}

impl fmt::Display for GlobalLoad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// A thread arrangement reshaped to read one stored stripe of A or B.
///
/// The stripe is read as it lies in memory: `lead` threads along its leading
/// (contiguous) dimension, so that consecutive threads read consecutive
/// addresses, and `cross` threads across it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LoadShape {
    /// Threads along the stripe's leading dimension (`load_a.0`).
    pub lead: u32,
    /// Threads across the stripe's leading dimension (`load_a.1`).
    pub cross: u32,
}

impl LoadShape {
    /// Threads in the arrangement, exactly: the product of two `u32`s can
    /// exceed `u32`, so it is a `u64` (see [`KernelSpec::threads`]).
    pub const fn threads(self) -> u64 {
        self.lead as u64 * self.cross as u64
    }
}

/// Every parameter of one kernel of the universal GEMM stencil.
///
/// Field names follow Kurzak, Tomov and Dongarra, *Autotuning GEMMs for Fermi*:
/// a block of `m_dim × n_dim` threads computes an `m_blk × n_blk` tile of C,
/// walking K in steps of `k_blk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelSpec {
    /// Element type (`precision = f32 | f64 | c32 | c64`).
    pub precision: Precision,
    /// `op(A)` (`op = (N, _)`).
    pub op_a: Op,
    /// `op(B)` (`op = (_, N)`).
    pub op_b: Op,
    /// `M_blk`: rows of the C tile a block computes (`tile.0`).
    pub m_blk: u32,
    /// `N_blk`: columns of the C tile a block computes (`tile.1`).
    pub n_blk: u32,
    /// `K_blk`: depth of the A and B stripes held in shared memory per
    /// iteration of the pipelined loop (`tile.2`).
    pub k_blk: u32,
    /// `M_dim`: threads of the block along M when computing C (`threads.0`).
    pub m_dim: u32,
    /// `N_dim`: threads of the block along N when computing C (`threads.1`).
    pub n_dim: u32,
    /// The block reshaped to read A's stored stripe (`load_a`).
    pub load_a: LoadShape,
    /// The block reshaped to read B's stored stripe (`load_b`).
    pub load_b: LoadShape,
    /// Elements each shared-memory load of the inner product moves
    /// (`lds_width = 1 | 2 | 4`, default 1): 2 and 4 emit 64- and 128-bit
    /// `ld.shared.v2`/`.v4`, with each thread's C elements grouped in runs of
    /// this many consecutive rows and columns.
    pub lds_width: u32,
    /// Cache path of the global loads of A and B (`ldg = nc | ca | cg`,
    /// default `nc`).
    pub ldg: GlobalLoad,
}

impl KernelSpec {
    /// Default of [`KernelSpec::lds_width`].
    pub const DEFAULT_LDS_WIDTH: u32 = 1;
    /// Default of [`KernelSpec::ldg`].
    pub const DEFAULT_LDG: GlobalLoad = GlobalLoad::Nc;

    /// `M_thr`: rows of C per thread (0 if the tile is not divisible).
    pub const fn m_thr(&self) -> u32 {
        match self.m_blk.checked_div(self.m_dim) {
            Some(q) => q,
            None => 0,
        }
    }

    /// `N_thr`: columns of C per thread (0 if the tile is not divisible).
    pub const fn n_thr(&self) -> u32 {
        match self.n_blk.checked_div(self.n_dim) {
            Some(q) => q,
            None => 0,
        }
    }

    /// Threads per block, `m_dim × n_dim`, exactly for any field values: the
    /// product of two `u32`s can exceed `u32`, so it is a `u64`. The thread
    /// rule ([`crate::constraints::threads_rule`]) compares this exact count
    /// with the limit; once a spec has validated, [`crate::Plan::threads`]
    /// gives it as the `u32` a launch takes.
    pub const fn threads(&self) -> u64 {
        self.m_dim as u64 * self.n_dim as u64
    }

    /// `op(A)` as the kernel performs it (`C` is `T` on reals).
    pub const fn eff_op_a(&self) -> Op {
        self.op_a.effective(self.precision)
    }

    /// `op(B)` as the kernel performs it.
    pub const fn eff_op_b(&self) -> Op {
        self.op_b.effective(self.precision)
    }

    /// A stable, unique identifier, used as the PTX entry name and the key of
    /// tuning records: `gemmforge_sgemm_nt_96x96x16_16x16_a32x8_b32x8_w1_nc`.
    pub fn entry_name(&self) -> String {
        format!(
            "gemmforge_{}gemm_{}{}_{}x{}x{}_{}x{}_a{}x{}_b{}x{}_w{}_{}",
            self.precision.blas_letter(),
            self.op_a.letter().to_ascii_lowercase(),
            self.op_b.letter().to_ascii_lowercase(),
            self.m_blk,
            self.n_blk,
            self.k_blk,
            self.m_dim,
            self.n_dim,
            self.load_a.lead,
            self.load_a.cross,
            self.load_b.lead,
            self.load_b.cross,
            self.lds_width,
            self.ldg,
        )
    }

    /// The body of a `gemm_kernel!` invocation naming this spec, without the
    /// `name = ...,` line (see [`KernelSpec::to_invocation`]). Optional
    /// parameters are written only where they differ from their defaults.
    pub fn to_invocation_body(&self) -> String {
        let mut s = format!(
            "precision = {}, op = ({}, {}), tile = ({}, {}, {}), threads = ({}, {}), \
             load_a = ({}, {}), load_b = ({}, {})",
            self.precision,
            self.op_a,
            self.op_b,
            self.m_blk,
            self.n_blk,
            self.k_blk,
            self.m_dim,
            self.n_dim,
            self.load_a.lead,
            self.load_a.cross,
            self.load_b.lead,
            self.load_b.cross,
        );
        if self.lds_width != Self::DEFAULT_LDS_WIDTH {
            s += &format!(", lds_width = {}", self.lds_width);
        }
        if self.ldg != Self::DEFAULT_LDG {
            s += &format!(", ldg = {}", self.ldg);
        }
        s
    }

    /// A complete `gemm_kernel! { name = ..., ... }` invocation.
    pub fn to_invocation(&self, name: &str) -> String {
        format!("gemm_kernel! {{ name = {name}, {} }}", self.to_invocation_body())
    }

    /// The launch grid for an `m × n` C: one block per tile, M tiles along x.
    /// A zero tile dimension (which no valid spec has) gives 0 blocks along
    /// it rather than dividing by zero.
    pub const fn grid(&self, m: u32, n: u32) -> (u32, u32, u32) {
        const fn tiles(extent: u32, blk: u32) -> u32 {
            if blk == 0 { 0 } else { extent.div_ceil(blk) }
        }
        (tiles(m, self.m_blk), tiles(n, self.n_blk), 1)
    }

    /// The block shape: one dimension of `m_dim × n_dim` threads. Exact for
    /// every spec that validates (its thread count is at most a `u32`
    /// limit); for one whose count exceeds `u32`, it saturates at
    /// `u32::MAX`, a block no GPU launches.
    pub const fn block(&self) -> (u32, u32, u32) {
        (self.m_dim.saturating_mul(self.n_dim), 1, 1)
    }
}

impl fmt::Display for KernelSpec {
    /// Formats as the body of a `gemm_kernel!` invocation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_invocation_body())
    }
}

/// Why a `gemm_kernel!` body given as text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecParseError(String);

impl std::str::FromStr for KernelSpec {
    type Err = SpecParseError;

    /// Reads the body of a `gemm_kernel!` invocation, as
    /// [`KernelSpec::to_invocation_body`] writes it (`name` is accepted and
    /// ignored; optional parameters take their defaults). The result is not
    /// yet validated: see [`crate::validate`]. In Rust source, the macro
    /// itself is the parser; this one serves command lines and files.
    fn from_str(text: &str) -> Result<KernelSpec, SpecParseError> {
        let err = |m: String| SpecParseError(m);
        let body = text.trim();
        let body = body
            .strip_prefix("gemm_kernel!")
            .map(|b| b.trim().trim_start_matches('{').trim_end_matches('}'))
            .unwrap_or(body);
        // Split at commas outside parentheses.
        let (mut depth, mut start, mut items) = (0i32, 0, Vec::new());
        for (i, c) in body.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&body[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&body[start..]);
        let numbers = |value: &str, key: &str, n: usize| -> Result<Vec<u32>, SpecParseError> {
            let inner = value.strip_prefix('(').and_then(|v| v.strip_suffix(')'));
            let parts: Vec<&str> = match inner {
                Some(inner) => inner.split(',').map(str::trim).collect(),
                None => vec![value],
            };
            if parts.len() != n {
                return Err(err(format!("`{key}` takes {n} value(s), got `{value}`")));
            }
            parts
                .iter()
                .map(|p| p.parse::<u32>().map_err(|_| err(format!("`{key}`: `{p}` is not a whole number"))))
                .collect()
        };
        let (mut precision, mut ops, mut tile, mut threads, mut load_a, mut load_b) =
            (None, None, None, None, None, None);
        let (mut lds_width, mut ldg) = (KernelSpec::DEFAULT_LDS_WIDTH, KernelSpec::DEFAULT_LDG);
        for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
            let (key, value) =
                item.split_once('=').ok_or_else(|| err(format!("expected `name = value`, got `{item}`")))?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "name" => {}
                "precision" => {
                    precision = Some(Precision::from_token(value).ok_or_else(|| {
                        err(format!("`precision` must be f32, f64, c32 or c64, not `{value}`"))
                    })?)
                }
                "op" => {
                    let inner = value.strip_prefix('(').and_then(|v| v.strip_suffix(')')).unwrap_or(value);
                    let parsed: Option<Vec<Op>> = inner
                        .split(',')
                        .map(|o| {
                            let o = o.trim();
                            let mut chars = o.chars();
                            match (chars.next(), chars.next()) {
                                (Some(c), None) => Op::from_letter(c),
                                _ => None,
                            }
                        })
                        .collect();
                    match parsed.as_deref() {
                        Some(&[a, b]) => ops = Some((a, b)),
                        _ => {
                            return Err(err(format!(
                                "`op` must be two of N, T, C, like `(N, T)`, not `{value}`"
                            )));
                        }
                    }
                }
                "tile" => tile = Some(numbers(value, key, 3)?),
                "threads" => threads = Some(numbers(value, key, 2)?),
                "load_a" => load_a = Some(numbers(value, key, 2)?),
                "load_b" => load_b = Some(numbers(value, key, 2)?),
                "lds_width" => lds_width = numbers(value, key, 1)?[0],
                "ldg" => {
                    ldg = GlobalLoad::from_token(value)
                        .ok_or_else(|| err(format!("`ldg` must be nc, ca or cg, not `{value}`")))?
                }
                other => return Err(err(format!("unknown parameter `{other}`"))),
            }
        }
        let missing = |what: &str| err(format!("missing parameter `{what}`"));
        let precision = precision.ok_or_else(|| missing("precision"))?;
        let (op_a, op_b) = ops.ok_or_else(|| missing("op"))?;
        let tile = tile.ok_or_else(|| missing("tile"))?;
        let threads = threads.ok_or_else(|| missing("threads"))?;
        let load_a = load_a.ok_or_else(|| missing("load_a"))?;
        let load_b = load_b.ok_or_else(|| missing("load_b"))?;
        Ok(KernelSpec {
            precision,
            op_a,
            op_b,
            m_blk: tile[0],
            n_blk: tile[1],
            k_blk: tile[2],
            m_dim: threads[0],
            n_dim: threads[1],
            load_a: LoadShape { lead: load_a[0], cross: load_a[1] },
            load_b: LoadShape { lead: load_b[0], cross: load_b[1] },
            lds_width,
            ldg,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sgemm_nn() -> KernelSpec {
        KernelSpec {
            precision: Precision::F32,
            op_a: Op::N,
            op_b: Op::N,
            m_blk: 96,
            n_blk: 96,
            k_blk: 16,
            m_dim: 16,
            n_dim: 16,
            load_a: LoadShape { lead: 32, cross: 8 },
            load_b: LoadShape { lead: 8, cross: 32 },
            lds_width: 1,
            ldg: GlobalLoad::Nc,
        }
    }

    #[test]
    fn conjugate_means_transpose_on_reals_only() {
        assert_eq!(Op::C.effective(Precision::F32), Op::T);
        assert_eq!(Op::C.effective(Precision::F64), Op::T);
        assert_eq!(Op::C.effective(Precision::C32), Op::C);
        assert!(Op::C.conjugates(Precision::C64));
        assert!(!Op::C.conjugates(Precision::F64));
        assert!(!Op::T.conjugates(Precision::C64));
    }

    #[test]
    fn invocation_omits_defaults_and_names_the_rest() {
        let mut spec = sgemm_nn();
        assert_eq!(
            spec.to_invocation("SgemmNN"),
            "gemm_kernel! { name = SgemmNN, precision = f32, op = (N, N), tile = (96, 96, 16), \
             threads = (16, 16), load_a = (32, 8), load_b = (8, 32) }"
        );
        spec.lds_width = 2;
        spec.ldg = GlobalLoad::Cg;
        assert!(spec.to_invocation_body().ends_with(", lds_width = 2, ldg = cg"));
    }

    #[test]
    fn entry_names_differ_with_every_parameter() {
        let base = sgemm_nn();
        let mut variants = vec![base];
        variants.push(KernelSpec { op_b: Op::T, ..base });
        variants.push(KernelSpec { k_blk: 8, ..base });
        variants.push(KernelSpec { lds_width: 2, ..base });
        variants.push(KernelSpec { ldg: GlobalLoad::Ca, ..base });
        variants.push(KernelSpec { load_b: LoadShape { lead: 16, cross: 16 }, ..base });
        let names: std::collections::HashSet<_> = variants.iter().map(KernelSpec::entry_name).collect();
        assert_eq!(names.len(), variants.len());
        assert!(base.entry_name().starts_with("gemmforge_sgemm_nn_96x96x16"));
    }

    #[test]
    fn grid_covers_ragged_edges() {
        let spec = sgemm_nn();
        assert_eq!(spec.grid(1, 1), (1, 1, 1));
        assert_eq!(spec.grid(96, 97), (1, 2, 1));
        assert_eq!(spec.grid(1057, 993), (12, 11, 1));
        assert_eq!(spec.block(), (256, 1, 1));
    }

    #[test]
    fn sizes_of_any_spec_are_exact_or_saturate() {
        let spec = KernelSpec {
            m_blk: 0,
            n_blk: u32::MAX,
            m_dim: u32::MAX,
            n_dim: u32::MAX,
            load_a: LoadShape { lead: u32::MAX, cross: 2 },
            ..sgemm_nn()
        };
        assert_eq!(spec.threads(), u64::from(u32::MAX) * u64::from(u32::MAX));
        assert_eq!(spec.load_a.threads(), 2 * u64::from(u32::MAX));
        assert_eq!(spec.block(), (u32::MAX, 1, 1));
        assert_eq!(spec.grid(10, u32::MAX), (0, 1, 1));
        assert_eq!((spec.m_thr(), spec.n_thr()), (0, 1));
        let zero_threads = KernelSpec { m_dim: 0, ..sgemm_nn() };
        assert_eq!((zero_threads.threads(), zero_threads.block(), zero_threads.m_thr()), (0, (0, 1, 1), 0));
    }

    #[test]
    fn tokens_round_trip() {
        for p in Precision::ALL {
            assert_eq!(Precision::from_token(p.token()), Some(p));
            assert_eq!(Precision::from_blas_letter(p.blas_letter()), Some(p));
        }
        for o in Op::ALL {
            assert_eq!(Op::from_letter(o.letter()), Some(o));
        }
        for g in GlobalLoad::ALL {
            assert_eq!(GlobalLoad::from_token(g.token()), Some(g));
        }
        assert_eq!(Precision::from_token("f16"), None);
    }

    #[test]
    fn text_round_trips_through_the_invocation_syntax() {
        let mut spec = sgemm_nn();
        assert_eq!(spec.to_invocation_body().parse::<KernelSpec>(), Ok(spec));
        assert_eq!(spec.to_invocation("SgemmNN").parse::<KernelSpec>(), Ok(spec));
        spec.lds_width = 2;
        spec.ldg = GlobalLoad::Cg;
        spec.precision = Precision::C64;
        spec.op_a = Op::C;
        assert_eq!(spec.to_string().parse::<KernelSpec>(), Ok(spec));
        let bad = |t: &str| t.parse::<KernelSpec>().unwrap_err().to_string();
        assert_eq!(bad("precision = f16"), "`precision` must be f32, f64, c32 or c64, not `f16`");
        assert!(bad("precision = f32, op = (N, N)").starts_with("missing parameter `tile`"));
        assert!(bad("precision = f32, op = (N, X)").contains("two of N, T, C"));
        assert!(bad("tile = (1, 2)").contains("takes 3 value(s)"));
        assert!(bad("blocks = 2").contains("unknown parameter `blocks`"));
    }
}
