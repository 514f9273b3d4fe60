//! The grammar of a `gemm_bespoke!` body, shared by the macro and by
//! [`BespokeSpec`]'s `FromStr`.
//!
//! ```text
//! body  = [ item { "," item } [ "," ] ]
//! item  = key "=" value
//! ```
//!
//! It is the grammar of `gemm_kernel!` bodies ([`super`]) with a table of
//! its own ([`PARAMS`]): the same token trees from either front end, the
//! same `key = value` reader, the same readers of words, integers and names,
//! the same unknown, duplicate and missing parameters, and the same
//! messages at the same tokens. What differs is what the values fill in:
//!
//! - a [`BespokeDraft`], not a spec: when `family` is left out, the spec
//!   is chosen for the operator ([`crate::bespoke::default_spec`]), which
//!   only the macro has, having read the file `a` names
//!   ([`BespokeDraft::spec_for`]);
//! - `a = "path.mtx"`, the operator's Matrix Market file: a string
//!   literal, required by the macro ([`BespokeReading::path`]);
//! - `width`, `block`, `msplit` and `chunk` describe the walk `family`
//!   names, and are refused without it;
//! - text ([`Front::Text`]) has no operator, so it requires `family`, and
//!   ignores `name` and `a` when given. What [`BespokeSpec`]'s `Display`
//!   prints reads back to the same spec.
//!
//! The violations of [`crate::bespoke::validate`] name a [`BespokeField`];
//! [`BespokeLocated`] maps each onto the value that set it (the path
//! literal for the operator itself, `a`).

use std::str::FromStr;

use super::params::{Got, Need, Param, Shape, TARGETS, arch_hint};
use super::read::{Pass, name as name_token, pass, store};
use super::text::{self, SpecParseError};
use super::{ByteRange, Front, GrammarError, Location, Place, Token, Tree, items};
use crate::bespoke::{
    BespokeField, BespokeSpec, BespokeViolation, BetaMode, Form, Operator, default_spec, validate,
};
use crate::spec::{Precision, Target};

/// The words of `precision`, in the order of [`REAL`].
const PRECISIONS: &[&str] = &["f32", "f64"];
/// The precisions of bespoke kernels.
const REAL: [Precision; 2] = [Precision::F32, Precision::F64];
/// The words of `family`, in the order of [`Form::ALL`].
const FAMILIES: &[&str] = &["bstream", "cstream", "mma", "bsplit"];
/// The values of `beta`, in the order of [`BetaMode::ALL`].
const BETAS: &[&str] = &["0", "1", "runtime"];
/// The parameters of the walk `family` names: refused without it.
const WALK: [BespokeField; 4] =
    [BespokeField::Width, BespokeField::Block, BespokeField::Msplit, BespokeField::Chunk];

/// What a `gemm_bespoke!` body sets, before the operator is known: the
/// spec's fields, `family` (`form`) only if it was given. The walk's
/// parameters left out are [`BespokeSpec::new`]'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BespokeDraft {
    /// `precision`.
    pub precision: Precision,
    /// `family`; `None` takes the operator's default spec.
    pub family: Option<Form>,
    /// `width`.
    pub width: u32,
    /// `block`.
    pub block: u32,
    /// `msplit`.
    pub msplit: u32,
    /// `chunk`.
    pub chunk: u32,
    /// `beta`.
    pub beta: BetaMode,
    /// `arch`.
    pub arch: Target,
    /// `ldb`, if fixed.
    pub ldb: Option<u32>,
    /// `ldc`, if fixed.
    pub ldc: Option<u32>,
}

/// The draft before any parameter is stored: [`BespokeSpec::new`]'s values,
/// no family, and a placeholder precision (a draft is only produced when
/// `precision` was read).
const BLANK: BespokeDraft =
    BespokeDraft { family: None, ..BespokeDraft::of(BespokeSpec::new(Precision::F64)) };

impl BespokeDraft {
    /// The draft that gives every field of `spec`.
    pub const fn of(spec: BespokeSpec) -> BespokeDraft {
        BespokeDraft {
            precision: spec.precision,
            family: Some(spec.form),
            width: spec.width,
            block: spec.block,
            msplit: spec.msplit,
            chunk: spec.chunk,
            beta: spec.beta,
            arch: spec.arch,
            ldb: spec.ldb,
            ldc: spec.ldc,
        }
    }

    /// The spec when `family` was given (not yet validated).
    pub const fn given(&self) -> Option<BespokeSpec> {
        match self.family {
            Some(form) => Some(BespokeSpec {
                precision: self.precision,
                form,
                width: self.width,
                block: self.block,
                msplit: self.msplit,
                chunk: self.chunk,
                beta: self.beta,
                arch: self.arch,
                ldb: self.ldb,
                ldc: self.ldc,
            }),
            None => None,
        }
    }

    /// The spec for the operator `a`: the given one (not yet validated), else
    /// [`default_spec`] for its precision, `beta` and `arch`. When no family
    /// takes `a`, why: the violations of the fields given (`precision`,
    /// `arch`, the operator itself), else one that `arch` lacks `cp.async`
    /// if that is all that is missing, else one of the operator.
    pub fn spec_for(&self, a: &Operator) -> Result<BespokeSpec, Vec<BespokeViolation>> {
        if let Some(spec) = self.given().or_else(|| default_spec(a, self.precision, self.beta, self.arch)) {
            return Ok(spec);
        }
        let probe = BespokeSpec { beta: self.beta, arch: self.arch, ..BespokeSpec::new(self.precision) };
        let own = |v: &BespokeViolation| !WALK.contains(&v.field) && v.field != BespokeField::Form;
        let given: Vec<BespokeViolation> =
            validate(a, &probe).err().unwrap_or_default().into_iter().filter(own).collect();
        if !given.is_empty() {
            return Err(given);
        }
        let (m, k) = (a.rows(), a.cols());
        let violation = if !self.arch.has_cp_async()
            && default_spec(a, self.precision, self.beta, Target::Sm80).is_some()
        {
            let message = format!(
                "no bespoke kernel for {} fits this {m} x {k} operator without staging B through cp.async: \
                 use arch = sm_80 or newer",
                self.arch.token()
            );
            BespokeViolation { field: BespokeField::Arch, message }
        } else {
            let message = format!(
                "no bespoke kernel fits this {m} x {k} operator ({} non-zeros): its rows overflow the registers \
                 of every family; give `family` and its parameters to see which limit, or multiply it with a dense gemm",
                a.nnz()
            );
            BespokeViolation { field: BespokeField::Operator, message }
        };
        Err(vec![violation])
    }
}

/// Every parameter of a `gemm_bespoke!` body, in the order messages list
/// them.
pub static PARAMS: &[Param<BespokeDraft, BespokeField>] = &[
    Param {
        key: "name",
        shape: Shape::Name,
        need: Need::InMacro("add `name = HexGrad`, the name of the kernel type to define"),
        field: None,
        doc: "the type `gemm_bespoke!` defines (always `pub`); ignored in text",
        hint: None,
        // The macro's, not the spec's.
        set: |_, _| Some(()),
    },
    Param {
        key: "a",
        shape: Shape::Str,
        need: Need::InMacro(
            "add `a = \"operator.mtx\"`, the operator's Matrix Market file, relative to the directory of \
             this crate's Cargo.toml",
        ),
        field: Some(BespokeField::Operator),
        doc: "the operator's Matrix Market file, relative to the directory of the crate's Cargo.toml; ignored in text",
        hint: None,
        // The macro reads the file; the draft does not hold it.
        set: |_, v| v.str().map(|_| ()),
    },
    Param {
        key: "precision",
        shape: Shape::Word(PRECISIONS),
        need: Need::Required("add `precision = f64` (or `f32`)"),
        field: Some(BespokeField::Precision),
        doc: "element type of B and C, and of A's values in the code",
        hint: Some(|w| match w {
            "c32" | "c64" => Some(format!("bespoke kernels are real, write `f{}`", &w[1..])),
            "32" | "64" | "F32" | "F64" => Some(format!("write `f{}`", &w[w.len() - 2..])),
            _ => None,
        }),
        set: |s, v| v.one_of(&REAL).map(|p| s.precision = p),
    },
    Param {
        key: "family",
        shape: Shape::Word(FAMILIES),
        need: Need::InText(
            "add `family = bstream` (or `cstream`, `mma`, `bsplit`): without an operator there is no default spec to take",
        ),
        field: Some(BespokeField::Form),
        doc: "the walk: `bstream` streams the rows of B through per-row accumulators, `cstream` holds B's used \
              rows and writes C row by row, `mma` multiplies A's non-zero tiles on the tensor cores (DMMA, or \
              3xTF32 for f32); left out, the default spec for the operator",
        hint: None,
        set: |s, v| v.one_of(&Form::ALL).map(|f| s.family = Some(f)),
    },
    Param {
        key: "width",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(BespokeField::Width),
        doc: "adjacent columns of B and C per thread: 1, 2 or 4, at most 16 bytes (with `family` only)",
        hint: None,
        set: |s, v| v.int().map(|w| s.width = w),
    },
    Param {
        key: "block",
        shape: Shape::Int,
        need: Need::Optional("128"),
        field: Some(BespokeField::Block),
        doc: "threads per block along n: a multiple of 32 (with `family` only)",
        hint: None,
        set: |s, v| v.int().map(|b| s.block = b),
    },
    Param {
        key: "msplit",
        shape: Shape::Int,
        need: Need::Optional("1"),
        field: Some(BespokeField::Msplit),
        doc: "groups of `block` threads splitting A's rows, sharing B through cp.async stages: 1 to 32 \
              (with `family` only)",
        hint: None,
        set: |s, v| v.int().map(|m| s.msplit = m),
    },
    Param {
        key: "chunk",
        shape: Shape::Int,
        need: Need::Optional("16"),
        field: Some(BespokeField::Chunk),
        doc: "rows of B loaded together: 1 to 64 (with `family` only)",
        hint: None,
        set: |s, v| v.int().map(|c| s.chunk = c),
    },
    Param {
        key: "beta",
        shape: Shape::Word(BETAS),
        need: Need::Optional("runtime"),
        field: Some(BespokeField::Beta),
        doc: "`0` never reads C, `1` adds to it, `runtime` takes beta as an argument",
        hint: None,
        set: |s, v| v.one_of(&BetaMode::ALL).map(|b| s.beta = b),
    },
    Param {
        key: "arch",
        shape: Shape::Word(TARGETS),
        need: Need::Optional("sm_80"),
        field: Some(BespokeField::Arch),
        doc: "the oldest GPU architecture the kernel is for (sm_80 and up stage B with cp.async)",
        hint: Some(arch_hint),
        set: |s, v| v.one_of(&Target::ALL).map(|t| s.arch = t),
    },
    Param {
        key: "ldb",
        shape: Shape::Int,
        need: Need::Absent("B's row stride is an argument of each call"),
        field: Some(BespokeField::Ldb),
        doc: "B's row stride in elements, fixed in the code (every row address an immediate offset: faster to \
              assemble, no multiply at run time); the kernel then takes only calls with that ldb",
        hint: None,
        set: |s, v| v.int().map(|ld| s.ldb = Some(ld)),
    },
    Param {
        key: "ldc",
        shape: Shape::Int,
        need: Need::Absent("C's row stride is an argument of each call"),
        field: Some(BespokeField::Ldc),
        doc: "C's row stride in elements, fixed in the code as `ldb` is",
        hint: None,
        set: |s, v| v.int().map(|ld| s.ldc = Some(ld)),
    },
];

/// Where each parameter's value was written: the first occurrence of each,
/// the one the draft holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BespokeLocated<L> {
    /// Indexed like [`PARAMS`].
    values: Vec<Option<Place<L>>>,
    /// The kernel's name, else the whole body: for a parameter left out.
    fallback: L,
}

impl<L: Copy> BespokeLocated<L> {
    fn new(fallback: L) -> BespokeLocated<L> {
        BespokeLocated { values: vec![None; PARAMS.len()], fallback }
    }

    /// The value that set `field` (the path literal for the operator); for
    /// a parameter left out, the kernel's name (or the whole body, in text
    /// without one).
    pub fn at(&self, field: BespokeField) -> L {
        let index = PARAMS.iter().position(|p| p.field == Some(field));
        index.and_then(|i| self.values.get(i)?.as_ref()).map_or(self.fallback, |place| place.at)
    }

    /// A violation of the rules as an error at the token it names.
    pub fn error(&self, violation: &BespokeViolation) -> GrammarError<L> {
        GrammarError { at: self.at(violation.field), message: violation.message.clone() }
    }
}

/// What reading a `gemm_bespoke!` body produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BespokeReading<L> {
    /// The value of `name`, if it was given and is an identifier.
    pub name: Option<Token<L>>,
    /// The value of `a` (escapes resolved) and where its literal is, if it
    /// was given as a string literal.
    pub path: Option<(String, L)>,
    /// The draft, defaults filled in, if every parameter the front end
    /// requires was read; produced even when other mistakes were found, so
    /// that the rules can be checked in the same pass.
    pub draft: Option<BespokeDraft>,
    /// Where every value that was read was written.
    pub located: BespokeLocated<L>,
    /// Every mistake, in the order of the body, then missing parameters,
    /// then walk parameters given without `family`.
    pub errors: Vec<GrammarError<L>>,
}

/// Reads a `gemm_bespoke!` body given as token trees. `whole` is where the
/// body as a whole is (missing parameters are reported there when there is
/// no name).
pub fn read<L: Location>(trees: &[Tree<L>], whole: L, front: Front) -> BespokeReading<L> {
    let items = match items(trees) {
        Ok(items) => items,
        Err((items, error)) => {
            // As for `gemm_kernel!`: the broken structure alone, and the
            // name if it can be read.
            let name = items.iter().find(|i| i.key.unraw() == "name").and_then(|i| name_token(&i.value).ok());
            let located = BespokeLocated::new(whole);
            return BespokeReading { name, path: None, draft: None, located, errors: vec![error] };
        }
    };
    let Pass { name, keys, got, mut errors, complete, fallback } = pass(PARAMS, &items, whole, front);
    let row = |field| PARAMS.iter().position(|p| p.field == Some(field)).unwrap_or(PARAMS.len());
    if keys.get(row(BespokeField::Form)).is_some_and(Option::is_none) {
        for field in WALK {
            let Some(Some(key)) = keys.get(row(field)) else { continue };
            let written = field.key();
            let message = format!(
                "`{written}` needs `family`: add `family = bstream` (or `cstream`, `mma`, `bsplit`), or remove `{written}` \
                 to take the operator's default spec"
            );
            errors.push(GrammarError { at: key.at, message });
        }
    }
    let path = match got.get(row(BespokeField::Operator)) {
        Some(Some((Got::Str(path), place))) => Some((path.clone(), place.at)),
        _ => None,
    };
    let mut located = BespokeLocated::new(fallback);
    let mut draft = BLANK;
    let stored = store(PARAMS, got, &mut draft, &mut located.values, &mut errors);
    BespokeReading { name, path, draft: (complete && stored).then_some(draft), located, errors }
}

/// Reads a `gemm_bespoke!` body (or a whole `gemm_bespoke! { ... }`
/// invocation) given as text, as [`Front::Text`] does: `family` required,
/// `name` and `a` optional and ignored.
pub fn read_text(text: &str) -> BespokeReading<ByteRange> {
    let whole = ByteRange { start: 0, end: text.len() };
    match text::lex(text) {
        Ok(trees) => read(text::body(&trees, "gemm_bespoke"), whole, Front::Text),
        Err(error) => {
            let located = BespokeLocated::new(whole);
            BespokeReading { name: None, path: None, draft: None, located, errors: vec![error] }
        }
    }
}

/// The spec a body given as text describes, and where each value was
/// written (to point [`validate`]'s violations at it). Not yet validated.
pub fn parse(text: &str) -> Result<(BespokeSpec, BespokeLocated<ByteRange>), SpecParseError> {
    let reading = read_text(text);
    match reading.draft.and_then(|d| d.given()) {
        Some(spec) if reading.errors.is_empty() => Ok((spec, reading.located)),
        _ => Err(SpecParseError::new(text, reading.errors)),
    }
}

impl FromStr for BespokeSpec {
    type Err = SpecParseError;

    /// Reads the items of a `gemm_bespoke!` body, as [`BespokeSpec`]'s
    /// `Display` writes them: `gemm_bespoke!`'s own grammar with the same
    /// errors, except that `family` is required (there is no operator to
    /// choose a default for) and `name` and `a` may be left out (and are
    /// ignored). The result is not yet validated: see
    /// [`crate::bespoke::validate`], and [`parse`] to point its violations at
    /// the text.
    fn from_str(text: &str) -> Result<BespokeSpec, SpecParseError> {
        parse(text).map(|(spec, _)| spec)
    }
}

#[cfg(test)]
mod tests;
