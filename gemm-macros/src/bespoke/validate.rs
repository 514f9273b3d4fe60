//! Checks: the operator's file, read while the invoking crate compiles,
//! and the spec against the rules of bespoke kernels.
//!
//! Neither is implemented here: `gemm_codegen::bespoke::mtx::parse` reads
//! the file, `BespokeDraft::spec_for` chooses the spec when the invocation
//! left out `family`, and `gemm_codegen::bespoke::validate` is the one
//! implementation of the rules. Each `BespokeViolation` names a field; the
//! grammar's `BespokeLocated` maps it onto the token that set it.

use std::io::{ErrorKind, Read};
use std::path::PathBuf;

use gemm_codegen::bespoke::{self, BespokePlan, Operator, mtx};
use gemm_codegen::grammar::GrammarError;
use proc_macro2::{Ident, TokenStream};

use super::parse::BespokeTokens;
use crate::ctxt::{Ctxt, Spans};
use crate::validate::runtime_path;

/// A bespoke kernel that passed every check: all the expansion is given.
pub(crate) struct Kernel {
    /// The type to define.
    pub(crate) name: Ident,
    /// The validated spec and operator.
    pub(crate) plan: BespokePlan,
    /// `a` as the invocation gives it.
    pub(crate) path: String,
    /// The file's absolute path, for `include_bytes!`: the invoking crate
    /// is rebuilt when the file changes.
    pub(crate) file: String,
    /// Whether the spec is the operator's default (`family` left out).
    pub(crate) default: bool,
    /// The path under which the invoking crate reaches gemm-codegen's items.
    pub(crate) runtime: TokenStream,
}

/// Reads the operator and validates the invocation, recording every error
/// in `cx`.
pub(crate) fn validate(tokens: BespokeTokens, cx: &mut Ctxt) -> Option<Kernel> {
    let runtime = runtime_path("gemm_bespoke", cx);
    let (operator, file) = read_operator(&tokens.path, tokens.path_at, cx)?;
    let checked = tokens.draft.spec_for(&operator).and_then(|spec| bespoke::validate(&operator, &spec));
    let plan = match checked {
        Ok(plan) => plan,
        Err(violations) => {
            for violation in &violations {
                cx.grammar_error(tokens.located.error(violation));
            }
            return None;
        }
    };
    Some(Kernel {
        name: tokens.name,
        plan,
        path: tokens.path,
        file,
        default: tokens.draft.family.is_none(),
        runtime: runtime?,
    })
}

/// The largest file read: a 4096 × 4096 `array` file of 17 significant
/// digits is about 400 MiB. A bigger one (a device, a wrong path) is refused
/// rather than read to the end.
const MAX_FILE_BYTES: u64 = 1 << 30;

/// The bytes of the file at `path`, or `None` if there are more than
/// [`MAX_FILE_BYTES`].
fn read_capped(path: &std::path::Path) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_FILE_BYTES).then_some(bytes))
}

/// The operator in the file `path` names, relative to the invoking crate's
/// manifest directory, and the file's absolute path; every failure is an
/// error on the path literal (`at`), naming the line of the file at fault.
fn read_operator(path: &str, at: Spans, cx: &mut Ctxt) -> Option<(Operator, String)> {
    let mut fail = |message: String| cx.grammar_error(GrammarError { at, message });
    // Cargo sets it for every crate it compiles; without it (a bare rustc),
    // the path is relative to the working directory.
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
    let joined = dir.join(path);
    let full = std::path::absolute(&joined).unwrap_or(joined);
    let bytes = match read_capped(&full) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            fail(format!(
                "`{path}` is over {} MiB, more than any operator of at most 4096 x 4096 needs: name the \
                 operator's Matrix Market file",
                MAX_FILE_BYTES >> 20
            ));
            return None;
        }
        Err(error) if error.kind() == ErrorKind::NotFound => {
            fail(format!(
                "cannot read `{path}`: no such file; give the operator's path relative to the directory of \
                 this crate's Cargo.toml"
            ));
            return None;
        }
        Err(error) => {
            fail(format!("cannot read `{path}`: {}; name a readable Matrix Market file", error.kind()));
            return None;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let bytes = error.as_bytes();
            let valid = error.utf8_error().valid_up_to();
            let line = 1 + bytes[..valid].iter().filter(|&&b| b == b'\n').count();
            fail(format!(
                "{path}:{line}: a byte that is not utf-8 text: a Matrix Market file is ascii, remove it"
            ));
            return None;
        }
    };
    let operator = match mtx::parse(&text) {
        Ok(operator) => operator,
        Err(error) if error.line == 0 => {
            fail(format!("{path}: {}", error.kind));
            return None;
        }
        Err(error) => {
            fail(format!("{path}:{}: {}", error.line, error.kind));
            return None;
        }
    };
    let Some(file) = full.to_str() else {
        fail(format!(
            "the absolute path of `{path}` is not unicode, which `include_bytes!` needs to track the file: \
             move the crate to a unicode path"
        ));
        return None;
    };
    Some((operator, file.to_owned()))
}
