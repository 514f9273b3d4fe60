//! The parameters of a `gemm_kernel!` body: one table row each. The row
//! type is generic over what a table fills in, so that other bodies read by
//! the same grammar (`gemm_bespoke!`: [`super::bespoke`]) have tables of
//! their own.

use crate::constraints::Field;
use crate::spec::{
    GlobalLoad, KernelSpec, Math, MmaShape, Op, Operands, Precision, Schedule, Target, WarpShape,
};

/// One parameter of a body: of a `gemm_kernel!` body by default, filling a
/// [`KernelSpec`] and named by a [`Field`]; `S` and `F` are what another
/// table fills and names.
#[derive(Debug)]
pub struct Param<S: 'static = KernelSpec, F: 'static = Field> {
    /// The key, as written before `=`.
    pub key: &'static str,
    /// What its value looks like.
    pub shape: Shape,
    /// Whether it must be given.
    pub need: Need,
    /// The field of [`KernelSpec`] a [`crate::Violation`] names it by
    /// (`None` for `name`, which is not part of the spec).
    pub field: Option<F>,
    /// What it means, in one line.
    pub doc: &'static str,
    /// A hint for a near miss of the wrong shape, given the text of a
    /// one-token value (`precision = 32`, `op = NT`): what to write instead.
    pub hint: Option<fn(&str) -> Option<String>>,
    /// Stores the value read into the spec; `None` only if the value does not
    /// have the row's shape, which reading never produces.
    pub set: fn(&mut S, &Got) -> Option<()>,
}

/// What a parameter's value looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An identifier that is not a Rust keyword.
    Name,
    /// One of these words, exactly as listed.
    Word(&'static [&'static str]),
    /// An unsuffixed integer literal that fits `u32`.
    Int,
    /// `(a, b, ...)`, one element per listed name (the names appear in
    /// messages), each of the element shape.
    Tuple(&'static [&'static str], Elem),
    /// A string literal (raw or not, no suffix), read with its escapes
    /// resolved: a path.
    Str,
}

/// What the elements of a [`Shape::Tuple`] look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// One of these words.
    Word(&'static [&'static str]),
    /// An integer, as [`Shape::Int`].
    Int,
}

/// Whether a parameter must be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Always; the text says what to add.
    Required(&'static str),
    /// Required by `gemm_kernel!`, optional in text (`name`); the text says
    /// what to add.
    InMacro(&'static str),
    /// May be left out: the default, as written.
    Optional(&'static str),
    /// May be left out, with no value that means the same; the text says
    /// what leaving it out means.
    Absent(&'static str),
    /// Required in text, which has nothing to derive it from; the macro may
    /// leave it out (`family` of `gemm_bespoke!`, chosen for the operator).
    /// The text says what to add.
    InText(&'static str),
}

impl Need {
    /// What to add if the parameter is required by `front` and missing.
    pub const fn how_to_add(self, front: super::Front) -> Option<&'static str> {
        match (self, front) {
            (Need::Required(how), _)
            | (Need::InMacro(how), super::Front::Macro)
            | (Need::InText(how), super::Front::Text) => Some(how),
            (Need::InMacro(_), super::Front::Text)
            | (Need::InText(_), super::Front::Macro)
            | (Need::Optional(_) | Need::Absent(_), _) => None,
        }
    }
}

/// A value as read against its row's [`Shape`]: the index of a word in its
/// list, a whole number, or a tuple of those.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Got {
    /// The index of the word in the list of its shape.
    Word(usize),
    /// A whole number.
    Int(u32),
    /// The elements of a tuple.
    Tuple(Vec<Got>),
    /// A string, escapes resolved.
    Str(String),
}

impl Got {
    /// A whole number.
    pub fn int(&self) -> Option<u32> {
        match *self {
            Got::Int(value) => Some(value),
            _ => None,
        }
    }

    /// A string.
    pub fn str(&self) -> Option<&str> {
        match self {
            Got::Str(text) => Some(text),
            _ => None,
        }
    }

    /// A word, as the value at the same index of `all` (the word list is
    /// written in the order of `all`).
    pub fn one_of<T: Copy>(&self, all: &[T]) -> Option<T> {
        match *self {
            Got::Word(index) => all.get(index).copied(),
            _ => None,
        }
    }

    /// A tuple of `N` whole numbers.
    pub fn ints<const N: usize>(&self) -> Option<[u32; N]> {
        self.each(Got::int)
    }

    /// A tuple of `N` words, each as [`Got::one_of`].
    pub fn each_of<T: Copy, const N: usize>(&self, all: &[T]) -> Option<[T; N]> {
        self.each(|g| g.one_of(all))
    }

    fn each<T, const N: usize>(&self, elem: impl Fn(&Got) -> Option<T>) -> Option<[T; N]> {
        let Got::Tuple(elems) = self else { return None };
        let elems: Vec<T> = elems.iter().map(elem).collect::<Option<_>>()?;
        elems.try_into().ok()
    }
}

/// The words of `precision`, in the order of [`Precision::ALL`].
pub(super) const PRECISIONS: &[&str] = &["f32", "f64", "c32", "c64", "f16", "bf16"];
/// The words of an op, in the order of [`Op::ALL`].
const OPS: &[&str] = &["N", "T", "C"];
/// The words of `ldg`, in the order of [`GlobalLoad::ALL`].
const LDGS: &[&str] = &["nc", "ca", "cg", "tma"];
/// The words of `arch`, in the order of [`Target::ALL`].
pub(super) const TARGETS: &[&str] = &["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"];
/// The words of `math`, in the order of [`Math::ALL`].
const MATHS: &[&str] = &["fma", "dmma", "tf32", "tf32x3", "f16", "bf16"];
const SCHEDULES: &[&str] = &["tiles", "stream_k"];
const OPERANDS: &[&str] = &["ab", "ba"];

/// Every parameter, in the order messages list them.
pub static PARAMS: &[Param] = &[
    Param {
        key: "name",
        shape: Shape::Name,
        need: Need::InMacro("add `name = SgemmNN`, the name of the kernel type to define"),
        field: None,
        doc: "the type `gemm_kernel!` defines (always `pub`); ignored in text",
        hint: None,
        // The macro's, not the spec's.
        set: |_, _| Some(()),
    },
    Param {
        key: "precision",
        shape: Shape::Word(PRECISIONS),
        need: Need::Required("add `precision = f32` (or `f64`, `c32`, `c64`, `f16`, `bf16`)"),
        field: Some(Field::Precision),
        doc: "element type; `c32`/`c64` are `num_complex::Complex<f32/f64>`, `f16`/`bf16` are `half::f16`/`half::bf16` (A, B and C; accumulated in f32)",
        hint: Some(|w| matches!(w, "32" | "64").then(|| format!("write `f{w}` (or `c{w}` for complex)"))),
        set: |s, v| v.one_of(&Precision::EVERY).map(|p| s.precision = p),
    },
    Param {
        key: "op",
        shape: Shape::Tuple(&["op(A)", "op(B)"], Elem::Word(OPS)),
        need: Need::Required("add `op = (N, N)`: op(A) and op(B), each `N`, `T` or `C`"),
        field: Some(Field::Op),
        doc: "`C` is the conjugate transpose, and means `T` for real precisions",
        hint: Some(|w| {
            let letters = w.len() == 2 && w.chars().all(|c| "NTC".contains(c));
            letters.then(|| format!("write `({}, {})`", &w[..1], &w[1..]))
        }),
        set: |s, v| v.each_of(&Op::ALL).map(|[a, b]| (s.op_a, s.op_b) = (a, b)),
    },
    Param {
        key: "tile",
        shape: Shape::Tuple(&["M_blk", "N_blk", "K_blk"], Elem::Int),
        need: Need::Required("add `tile = (M_blk, N_blk, K_blk)`, e.g. `tile = (64, 64, 16)`"),
        field: Some(Field::Tile),
        doc: "the C tile of one block and the K depth of one stripe",
        hint: None,
        set: |s, v| v.ints().map(|[m, n, k]| (s.m_blk, s.n_blk, s.k_blk) = (m, n, k)),
    },
    Param {
        key: "threads",
        shape: Shape::Tuple(&["M_dim", "N_dim"], Elem::Int),
        need: Need::Required("add `threads = (M_dim, N_dim)`, e.g. `threads = (16, 16)`"),
        field: Some(Field::Threads),
        doc: "the block's threads as they compute C",
        hint: None,
        set: |s, v| v.ints().map(|[m, n]| (s.m_dim, s.n_dim) = (m, n)),
    },
    Param {
        key: "load_a",
        shape: Shape::Tuple(&["lead", "cross"], Elem::Int),
        need: Need::Required(
            "add `load_a = (lead, cross)`: the threads reshaped to read A's stored stripe, \
             `lead` along its leading dimension and `cross` across it",
        ),
        field: Some(Field::LoadA),
        doc: "the threads reshaped to read A's stored stripe: `lead` along its leading dimension, `cross` across",
        hint: None,
        set: |s, v| v.ints().map(|[lead, cross]| (s.load_a.lead, s.load_a.cross) = (lead, cross)),
    },
    Param {
        key: "load_b",
        shape: Shape::Tuple(&["lead", "cross"], Elem::Int),
        need: Need::Required(
            "add `load_b = (lead, cross)`: the threads reshaped to read B's stored stripe, \
             `lead` along its leading dimension and `cross` across it",
        ),
        field: Some(Field::LoadB),
        doc: "likewise for B",
        hint: None,
        set: |s, v| v.ints().map(|[lead, cross]| (s.load_b.lead, s.load_b.cross) = (lead, cross)),
    },
    Param {
        key: "lds_width",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(Field::LdsWidth),
        doc: "elements per shared-memory load of the inner product: 1, 2 or 4",
        hint: None,
        set: |s, v| v.int().map(|w| s.lds_width = w),
    },
    Param {
        key: "ldg",
        shape: Shape::Word(LDGS),
        need: Need::Optional("nc"),
        field: Some(Field::Ldg),
        doc: "cache path of the global loads of A and B",
        hint: None,
        set: |s, v| v.one_of(&GlobalLoad::ALL).map(|g| s.ldg = g),
    },
    Param {
        key: "arch",
        shape: Shape::Word(TARGETS),
        need: Need::Optional("sm_70"),
        field: Some(Field::Arch),
        doc: "the GPU architecture compiled for: its instructions, shared memory and PTX target",
        hint: Some(arch_hint),
        set: |s, v| v.one_of(&Target::ALL).map(|t| s.arch = t),
    },
    Param {
        key: "stages",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(Field::Stages),
        doc: "shared-memory stripes in flight: 1 stages through registers, 2 to 8 fill a cp.async ring (sm_80+)",
        hint: None,
        set: |s, v| v.int().map(|n| s.stages = n),
    },
    Param {
        key: "ldg_width",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(Field::LdgWidth),
        doc: "elements per global load of A and B: 1, 2 or 4 (at most 16 bytes)",
        hint: None,
        set: |s, v| v.int().map(|w| s.ldg_width = w),
    },
    Param {
        key: "warps",
        shape: Shape::Tuple(&["wm", "wn"], Elem::Int),
        need: Need::Absent("threads numbered along M across the whole block"),
        field: Some(Field::Warps),
        doc: "warps along M and N over the C tile, each owning a sub-grid of 32 threads",
        hint: None,
        set: |s, v| v.ints().map(|[m, n]| s.warps = Some(WarpShape { m, n })),
    },
    Param {
        key: "raster",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(Field::Raster),
        doc: "tile rows per group of the block order (1: the plain two-dimensional grid)",
        hint: None,
        set: |s, v| v.int().map(|g| s.raster = g),
    },
    Param {
        key: "unroll",
        shape: Shape::Int,
        need: Need::Absent("the whole stripe, `tile.2` steps"),
        field: Some(Field::Unroll),
        doc: "K steps per iteration of the inner product's loop over a stripe: a divisor of `tile.2`",
        hint: None,
        set: |s, v| v.int().map(|u| s.unroll = Some(u)),
    },
    Param {
        key: "frag_sets",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(Field::FragSets),
        doc: "register sets of the inner product's fragments: 2 loads k step s + 1 while step s multiplies",
        hint: None,
        set: |s, v| v.int().map(|n| s.frag_sets = n),
    },
    Param {
        key: "interleave",
        shape: Shape::Int,
        need: Need::Optional("0"),
        field: Some(Field::Interleave),
        doc: "groups a ring's copies of a stripe are issued in, beside the product's k steps \
              (0: all before the product)",
        hint: None,
        set: |s, v| v.int().map(|g| s.interleave = g),
    },
    Param {
        key: "c_batch",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(Field::CBatch),
        doc: "columns of a thread's C elements whose old values the epilogue reads before writing any \
              of them: fewer round trips to memory when beta ≠ 0, for registers (at most `tile.1 / threads.1`)",
        hint: None,
        set: |s, v| v.int().map(|b| s.c_batch = b),
    },
    Param {
        key: "math",
        shape: Shape::Word(MATHS),
        need: Need::Optional("fma"),
        field: Some(Field::Math),
        doc: "how the inner product multiplies: `fma` on the FMA units, `dmma` on the FP64 tensor cores (f64 and c64, sm_80+), `tf32x3` (FP32-accurate: three TF32 products) or `tf32` (TF32-accurate) on the TF32 tensor cores (f32 and c32, sm_80+), `f16` or `bf16` on Hopper's 16-bit tensor cores (f16 and bf16 only, sm_90a)",
        hint: None,
        set: |s, v| v.one_of(&Math::ALL).map(|m| s.math = m),
    },
    Param {
        key: "mma",
        shape: Shape::Tuple(&["m", "n", "k"], Elem::Int),
        need: Need::Absent("no tensor-core instruction (`math = fma`)"),
        field: Some(Field::Mma),
        doc: "the `mma.sync` shape of a tensor-core `math`: dmma `(8, 8, 4)`, or on sm_90 `(16, 8, 4)`, `(16, 8, 8)`, `(16, 8, 16)`; tf32 and tf32x3 `(16, 8, 4)`, `(16, 8, 8)`",
        hint: None,
        set: |s, v| v.ints().map(|[m, n, k]| s.mma = Some(MmaShape { m, n, k })),
    },
    Param {
        key: "schedule",
        shape: Shape::Word(SCHEDULES),
        need: Need::Optional("tiles"),
        field: Some(Field::Schedule),
        doc: "how blocks share out the work: `tiles`, a block per C tile, or `stream_k`, as many blocks as \
              the GPU holds, each an equal share of every tile's stripes (partial tiles summed in order)",
        hint: None,
        set: |s, v| v.one_of(&Schedule::ALL).map(|x| s.schedule = x),
    },
    Param {
        key: "producers",
        shape: Shape::Int,
        need: Need::Optional("0"),
        field: Some(Field::Producers),
        doc: "producer warpgroups (0 or 1) of a `wgmma` kernel: 128 more threads that only copy and convert \
              the stripes, handing them to the `threads` through named barriers; the load shapes then \
              rearrange those 128",
        hint: None,
        set: |s, v| v.int().map(|p| s.producers = p),
    },
    Param {
        key: "operands",
        shape: Shape::Word(OPERANDS),
        need: Need::Optional("ab"),
        field: Some(Field::Operands),
        doc: "which operand the kernel reads first: `ab` computes C = op(A)·op(B); `ba` computes Cᵀ = \
              op(B)ᵀ·op(A)ᵀ and stores it transposed, every parameter but `op` describing that product \
              (`tile.0` along C's columns, `load_a` reading B)",
        hint: None,
        set: |s, v| v.one_of(&Operands::ALL).map(|x| s.operands = x),
    },
];

/// `sm80`, `80`, `SM_80`: what to write instead (`sm_80`).
pub(super) fn arch_hint(word: &str) -> Option<String> {
    let digits = word.strip_prefix("sm").unwrap_or(word).trim_start_matches('_');
    let near = Target::ALL.iter().any(|t| t.token().strip_prefix("sm_") == Some(digits));
    (near && !TARGETS.contains(&word)).then(|| format!("write `sm_{digits}`"))
}

/// The spec before any parameter is stored: optional parameters at their
/// defaults, required ones at placeholders that are always overwritten
/// (a spec is only produced when every required parameter was read).
pub(super) const BLANK: KernelSpec =
    KernelSpec::new(Precision::F32, (Op::N, Op::N), (0, 0, 0), (0, 0), (0, 0), (0, 0));

/// The parameter of `table` written `key` (raw or not).
pub(super) fn param<S, F>(table: &'static [Param<S, F>], key: &str) -> Option<(usize, &'static Param<S, F>)> {
    table.iter().enumerate().find(|(_, p)| p.key == key)
}

/// Whether `word` is a Rust keyword (strict, reserved or `_`), which cannot
/// name a type. A superset of what `syn` rejects as an identifier.
pub fn is_keyword(word: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "_", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
        "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in",
        "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
        "Self", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof", "unsafe",
        "unsized", "use", "virtual", "where", "while", "yield",
    ];
    KEYWORDS.contains(&word)
}

/// "unknown parameter `x`", with the closest key of `table` if it is close.
pub(super) fn unknown<S, F>(table: &[Param<S, F>], written: &str) -> String {
    let closest = table
        .iter()
        .map(|p| (edit_distance(written, p.key), p.key))
        .min()
        .filter(|&(distance, key)| distance <= 2 && distance < key.len());
    match closest {
        Some((_, key)) => format!("unknown parameter `{written}`: did you mean `{key}`?"),
        None => {
            let all: Vec<String> = table.iter().map(|p| format!("`{}`", p.key)).collect();
            format!("unknown parameter `{written}`: expected one of {}", all.join(", "))
        }
    }
}

/// Levenshtein distance, for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_follow_the_enums() {
        assert_eq!(PRECISIONS, Precision::EVERY.map(Precision::token));
        assert_eq!(OPS, Op::ALL.map(|o| o.letter().to_string()));
        assert_eq!(LDGS, GlobalLoad::ALL.map(GlobalLoad::token));
        assert_eq!(MATHS, Math::ALL.map(Math::token));
        assert_eq!(TARGETS, Target::ALL.map(Target::token));
        assert_eq!(SCHEDULES, Schedule::ALL.map(Schedule::token));
        assert_eq!(OPERANDS, Operands::ALL.map(Operands::token));
    }

    #[test]
    fn every_field_has_one_row() {
        use Field::*;
        for field in [Precision, Op, Tile, Threads, LoadA, LoadB, LdsWidth, Ldg] {
            let rows: Vec<&Param> = PARAMS.iter().filter(|p| p.field == Some(field)).collect();
            assert_eq!(rows.len(), 1, "{field:?}");
            assert_eq!(rows[0].key, field.name());
        }
        let keys: std::collections::HashSet<_> = PARAMS.iter().map(|p| p.key).collect();
        assert_eq!(keys.len(), PARAMS.len(), "keys are unique");
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("tile", "tile"), 0);
        assert_eq!(edit_distance("tiles", "tile"), 1);
        assert_eq!(edit_distance("lgd", "ldg"), 2);
        assert_eq!(edit_distance("", "op"), 2);
    }
}
