//! How a spec is written: its entry name (unique, the PTX `.entry` and the
//! journal's key), the `gemm_kernel!` invocation the tuner writes back, and
//! its `Display` and `FromStr`, which are that invocation's body.

use std::fmt;

use super::{KernelSpec, SpecParseError};

impl KernelSpec {
    /// A stable, unique identifier, used as the PTX entry name and the key of
    /// tuning records: `gemmforge_sgemm_nt_96x96x16_16x16_a32x8_b32x8_w1_nc`,
    /// followed by the parameters that differ from their defaults
    /// (`_s3_v4_wp2x4_r8_sm80`), so names given before they existed stay.
    pub fn entry_name(&self) -> String {
        let mut name = format!(
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
        );
        name += &self.pipeline_suffix();
        name
    }

    /// `_s3_v4_wp2x4_r8_u4_f2_i4_cb2_sm80`: the non-default pipeline parameters, for
    /// [`KernelSpec::entry_name`].
    fn pipeline_suffix(&self) -> String {
        let mut s = String::new();
        if self.stages != Self::DEFAULT_STAGES {
            s += &format!("_s{}", self.stages);
        }
        if self.ldg_width != Self::DEFAULT_LDG_WIDTH {
            s += &format!("_v{}", self.ldg_width);
        }
        if let Some(w) = self.warps {
            s += &format!("_wp{}x{}", w.m, w.n);
        }
        if self.raster != Self::DEFAULT_RASTER {
            s += &format!("_r{}", self.raster);
        }
        if let Some(u) = self.unroll {
            s += &format!("_u{u}");
        }
        if self.frag_sets != Self::DEFAULT_FRAG_SETS {
            s += &format!("_f{}", self.frag_sets);
        }
        if self.interleave != Self::DEFAULT_INTERLEAVE {
            s += &format!("_i{}", self.interleave);
        }
        if self.c_batch != Self::DEFAULT_C_BATCH {
            s += &format!("_cb{}", self.c_batch);
        }
        if self.math != Self::DEFAULT_MATH {
            s += &format!("_{}", self.math);
        }
        if let Some(shape) = self.mma {
            s += &format!("_{}", shape.name());
        }
        if self.schedule != Self::DEFAULT_SCHEDULE {
            s += "_sk";
        }
        if self.producers != Self::DEFAULT_PRODUCERS {
            s += &format!("_p{}", self.producers);
        }
        if self.operands != Self::DEFAULT_OPERANDS {
            s += &format!("_{}", self.operands);
        }
        if self.arch != Self::DEFAULT_ARCH {
            s += &format!("_{}", self.arch.token().replace('_', ""));
        }
        s
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
        if self.arch != Self::DEFAULT_ARCH {
            s += &format!(", arch = {}", self.arch);
        }
        if self.stages != Self::DEFAULT_STAGES {
            s += &format!(", stages = {}", self.stages);
        }
        if self.ldg_width != Self::DEFAULT_LDG_WIDTH {
            s += &format!(", ldg_width = {}", self.ldg_width);
        }
        if let Some(w) = self.warps {
            s += &format!(", warps = ({}, {})", w.m, w.n);
        }
        if self.raster != Self::DEFAULT_RASTER {
            s += &format!(", raster = {}", self.raster);
        }
        if let Some(u) = self.unroll {
            s += &format!(", unroll = {u}");
        }
        if self.frag_sets != Self::DEFAULT_FRAG_SETS {
            s += &format!(", frag_sets = {}", self.frag_sets);
        }
        if self.interleave != Self::DEFAULT_INTERLEAVE {
            s += &format!(", interleave = {}", self.interleave);
        }
        if self.c_batch != Self::DEFAULT_C_BATCH {
            s += &format!(", c_batch = {}", self.c_batch);
        }
        if self.math != Self::DEFAULT_MATH {
            s += &format!(", math = {}", self.math);
        }
        if let Some(shape) = self.mma {
            s += &format!(", mma = ({}, {}, {})", shape.m, shape.n, shape.k);
        }
        if self.schedule != Self::DEFAULT_SCHEDULE {
            s += &format!(", schedule = {}", self.schedule);
        }
        if self.producers != Self::DEFAULT_PRODUCERS {
            s += &format!(", producers = {}", self.producers);
        }
        if self.operands != Self::DEFAULT_OPERANDS {
            s += &format!(", operands = {}", self.operands);
        }
        s
    }

    /// A complete `gemm_kernel! { name = ..., ... }` invocation.
    pub fn to_invocation(&self, name: &str) -> String {
        format!("gemm_kernel! {{ name = {name}, {} }}", self.to_invocation_body())
    }
}

impl fmt::Display for KernelSpec {
    /// Formats as the body of a `gemm_kernel!` invocation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_invocation_body())
    }
}

impl std::str::FromStr for KernelSpec {
    type Err = SpecParseError;

    /// Reads the body of a `gemm_kernel!` invocation, or the whole
    /// invocation, as [`KernelSpec::to_invocation_body`] and
    /// [`KernelSpec::to_invocation`] write them. This is the macro's own
    /// grammar ([`crate::grammar`]): the same text is accepted, with the same
    /// errors, except that `name` may be left out (and is ignored). The
    /// result is not yet validated: see [`crate::validate`], and
    /// [`crate::grammar::text::parse`] to point its violations at the text.
    fn from_str(text: &str) -> Result<KernelSpec, SpecParseError> {
        crate::grammar::text::parse(text).map(|(spec, _)| spec)
    }
}
