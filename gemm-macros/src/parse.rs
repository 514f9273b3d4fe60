//! Tokens → [`SpecTokens`]: a typed spec in which every parameter value, and
//! every element of a tuple value, keeps the span of the token it was read
//! from, so that any later error can point at exactly that token.
//!
//! Parsing happens in two steps. The structure (`key = value, ...`) is read
//! first; a mistake there (a missing `=`, a stray token) stops parsing, as
//! nothing after it can be trusted. Each value is then interpreted on its own
//! and every mistake is recorded in the [`Ctxt`], so one compilation reports
//! all wrong values, unknown, duplicate and missing parameters together.

use gemm_codegen::{GlobalLoad, KernelSpec, LoadShape, Op, Precision};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::Token;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};

use crate::ctxt::Ctxt;

/// A parsed value and the span of the token it came from.
#[derive(Clone, Copy)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// A parenthesized tuple value: its elements and the span of the whole
/// `( ... )`.
pub(crate) struct Tuple<T, const N: usize> {
    pub(crate) elems: [Spanned<T>; N],
    pub(crate) span: Span,
}

impl<T: Copy, const N: usize> Tuple<T, N> {
    /// The element values.
    pub(crate) fn values(&self) -> [T; N] {
        self.elems.map(|e| e.value)
    }

    /// The span of element `index`, or of the whole tuple for `None`.
    pub(crate) fn span_at(&self, index: Option<u8>) -> Span {
        index.and_then(|i| self.elems.get(usize::from(i))).map_or(self.span, |e| e.span)
    }
}

/// A complete `gemm_kernel!` invocation, every value with its span.
pub(crate) struct SpecTokens {
    pub(crate) name: Ident,
    pub(crate) precision: Spanned<Precision>,
    pub(crate) op: Tuple<Op, 2>,
    pub(crate) tile: Tuple<u32, 3>,
    pub(crate) threads: Tuple<u32, 2>,
    pub(crate) load_a: Tuple<u32, 2>,
    pub(crate) load_b: Tuple<u32, 2>,
    pub(crate) lds_width: Option<Spanned<u32>>,
    pub(crate) ldg: Option<Spanned<GlobalLoad>>,
}

impl SpecTokens {
    /// The spec these tokens describe, defaults filled in. Not yet validated.
    pub(crate) fn spec(&self) -> KernelSpec {
        let [op_a, op_b] = self.op.values();
        let [m_blk, n_blk, k_blk] = self.tile.values();
        let [m_dim, n_dim] = self.threads.values();
        let shape = |t: &Tuple<u32, 2>| {
            let [lead, cross] = t.values();
            LoadShape { lead, cross }
        };
        KernelSpec {
            precision: self.precision.value,
            op_a,
            op_b,
            m_blk,
            n_blk,
            k_blk,
            m_dim,
            n_dim,
            load_a: shape(&self.load_a),
            load_b: shape(&self.load_b),
            lds_width: self.lds_width.map_or(KernelSpec::DEFAULT_LDS_WIDTH, |w| w.value),
            ldg: self.ldg.map_or(KernelSpec::DEFAULT_LDG, |g| g.value),
            arch: KernelSpec::DEFAULT_ARCH,
            stages: KernelSpec::DEFAULT_STAGES,
            ldg_width: KernelSpec::DEFAULT_LDG_WIDTH,
            warps: KernelSpec::DEFAULT_WARPS,
            raster: KernelSpec::DEFAULT_RASTER,
        }
    }
}

/// What parsing produced: the kernel's name if it could be read (for the
/// stub emitted on error) and the spec if every parameter could be read.
pub(crate) struct Parsed {
    pub(crate) name: Option<Ident>,
    pub(crate) spec: Option<SpecTokens>,
}

/// The parameters of `gemm_kernel!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Name,
    Precision,
    Op,
    Tile,
    Threads,
    LoadA,
    LoadB,
    LdsWidth,
    Ldg,
}

impl Key {
    const ALL: [Key; 9] = [
        Key::Name,
        Key::Precision,
        Key::Op,
        Key::Tile,
        Key::Threads,
        Key::LoadA,
        Key::LoadB,
        Key::LdsWidth,
        Key::Ldg,
    ];

    const fn name(self) -> &'static str {
        match self {
            Key::Name => "name",
            Key::Precision => "precision",
            Key::Op => "op",
            Key::Tile => "tile",
            Key::Threads => "threads",
            Key::LoadA => "load_a",
            Key::LoadB => "load_b",
            Key::LdsWidth => "lds_width",
            Key::Ldg => "ldg",
        }
    }

    fn from_name(name: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name() == name)
    }

    const fn required(self) -> bool {
        !matches!(self, Key::LdsWidth | Key::Ldg)
    }

    /// The shape of a tuple value, as error messages spell it.
    const fn form(self) -> &'static str {
        match self {
            Key::Op => "`(op(A), op(B))`",
            Key::Tile => "`(M_blk, N_blk, K_blk)`",
            Key::Threads => "`(M_dim, N_dim)`",
            Key::LoadA | Key::LoadB => "`(lead, cross)`",
            Key::Name | Key::Precision | Key::LdsWidth | Key::Ldg => "a single value",
        }
    }

    /// What to write when the parameter is missing.
    const fn how_to_add(self) -> &'static str {
        match self {
            Key::Name => "add `name = SgemmNN`, the name of the kernel type to define",
            Key::Precision => "add `precision = f32` (or `f64`, `c32`, `c64`)",
            Key::Op => "add `op = (N, N)`: op(A) and op(B), each `N`, `T` or `C`",
            Key::Tile => "add `tile = (M_blk, N_blk, K_blk)`, e.g. `tile = (64, 64, 16)`",
            Key::Threads => "add `threads = (M_dim, N_dim)`, e.g. `threads = (16, 16)`",
            Key::LoadA => {
                "add `load_a = (lead, cross)`: the threads reshaped to read A's stored stripe, \
                 `lead` along its leading dimension and `cross` across it"
            }
            Key::LoadB => {
                "add `load_b = (lead, cross)`: the threads reshaped to read B's stored stripe, \
                 `lead` along its leading dimension and `cross` across it"
            }
            Key::LdsWidth => "add `lds_width = 1`",
            Key::Ldg => "add `ldg = nc`",
        }
    }
}

/// One `key = value` as written, the value not yet interpreted.
struct RawParam {
    key: Ident,
    value: TokenStream,
}

/// Parses a whole invocation, recording every mistake in `cx`.
pub(crate) fn parse(input: TokenStream, cx: &mut Ctxt) -> Parsed {
    let mut raw = Vec::new();
    let structure = (|stream: ParseStream| parse_structure(stream, &mut raw)).parse2(input);
    if let Err(error) = structure {
        // The rest of the input was not read, and the value read last may
        // be cut short (`tile = 64, 64, 16`): report the structural error
        // alone, and the stub if the name is readable.
        cx.syn_error(error);
        let name = raw.iter().filter(|p| p.key == "name").find_map(|p| match single(&p.value) {
            Some(TokenTree::Ident(ident)) => syn::parse2::<Ident>(ident.into_token_stream()).ok(),
            _ => None,
        });
        return Parsed { name, spec: None };
    }

    let mut builder = Builder::default();
    for param in raw {
        builder.param(param, cx);
    }
    let name = builder.name.clone();
    Parsed { name, spec: builder.finish(cx) }
}

/// `key = value` pairs separated by commas, a trailing comma allowed. A
/// value is every token up to the next comma outside any brackets.
fn parse_structure(input: ParseStream, out: &mut Vec<RawParam>) -> syn::Result<()> {
    while !input.is_empty() {
        if !input.peek(Ident::peek_any) {
            let hint = if input.peek(syn::Lit) {
                ": tuple values need parentheses, e.g. `tile = (96, 96, 16)`"
            } else {
                ""
            };
            return Err(input.error(format!("expected a parameter name such as `tile`{hint}")));
        }
        let key = input.call(Ident::parse_any)?;
        if !input.peek(Token![=]) {
            return Err(input.error(format!("expected `=` after `{key}`")));
        }
        let eq: Token![=] = input.parse()?;
        let mut value = TokenStream::new();
        while !input.is_empty() && !input.peek(Token![,]) {
            value.extend([input.parse::<TokenTree>()?]);
        }
        if value.is_empty() {
            return Err(syn::Error::new(eq.span, format!("expected a value after `{key} =`")));
        }
        out.push(RawParam { key, value });
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(())
}

/// Values read so far; `seen` also holds parameters whose value was wrong,
/// so that they are not reported missing as well.
#[derive(Default)]
struct Builder {
    seen: Vec<Key>,
    name: Option<Ident>,
    precision: Option<Spanned<Precision>>,
    op: Option<Tuple<Op, 2>>,
    tile: Option<Tuple<u32, 3>>,
    threads: Option<Tuple<u32, 2>>,
    load_a: Option<Tuple<u32, 2>>,
    load_b: Option<Tuple<u32, 2>>,
    lds_width: Option<Spanned<u32>>,
    ldg: Option<Spanned<GlobalLoad>>,
}

impl Builder {
    fn param(&mut self, RawParam { key, value }: RawParam, cx: &mut Ctxt) {
        let written = key.unraw().to_string();
        let Some(k) = Key::from_name(&written) else {
            cx.error(key.span(), unknown_parameter(&written));
            return;
        };
        if self.seen.contains(&k) {
            cx.error(key.span(), format_args!("duplicate parameter `{written}`: remove one of the two"));
            return;
        }
        self.seen.push(k);
        match k {
            Key::Name => self.name = name(&value, cx),
            Key::Precision => self.precision = precision(&value, cx),
            Key::Op => self.op = ops(&value, cx),
            Key::Tile => self.tile = tuple(&value, k, cx, int),
            Key::Threads => self.threads = tuple(&value, k, cx, int),
            Key::LoadA => self.load_a = tuple(&value, k, cx, int),
            Key::LoadB => self.load_b = tuple(&value, k, cx, int),
            Key::LdsWidth => self.lds_width = int(&value, "lds_width", cx),
            Key::Ldg => self.ldg = word(&value, "`ldg`", &["nc", "ca", "cg"], GlobalLoad::from_token, cx),
        }
    }

    /// Reports missing parameters; the spec if every required value was read.
    fn finish(self, cx: &mut Ctxt) -> Option<SpecTokens> {
        // The kernel's name, when given, is where "this kernel lacks ..."
        // reads best; otherwise the whole invocation.
        let at = self.name.as_ref().map_or_else(Span::call_site, Ident::span);
        for key in Key::ALL {
            if key.required() && !self.seen.contains(&key) {
                cx.error(at, format_args!("missing parameter `{}`: {}", key.name(), key.how_to_add()));
            }
        }
        Some(SpecTokens {
            name: self.name?,
            precision: self.precision?,
            op: self.op?,
            tile: self.tile?,
            threads: self.threads?,
            load_a: self.load_a?,
            load_b: self.load_b?,
            lds_width: self.lds_width,
            ldg: self.ldg,
        })
    }
}

fn unknown_parameter(written: &str) -> String {
    let closest = Key::ALL
        .into_iter()
        .map(|k| (edit_distance(written, k.name()), k.name()))
        .min()
        .filter(|&(distance, name)| distance <= 2 && distance < name.len());
    match closest {
        Some((_, name)) => format!("unknown parameter `{written}`: did you mean `{name}`?"),
        None => {
            let all: Vec<String> = Key::ALL.iter().map(|k| format!("`{}`", k.name())).collect();
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

/// The one token a value consists of, looking through the invisible groups
/// that `macro_rules!` wraps around substituted fragments.
fn single(tokens: &TokenStream) -> Option<TokenTree> {
    let mut iter = tokens.clone().into_iter();
    let token = iter.next()?;
    if iter.next().is_some() {
        return None;
    }
    match token {
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => single(&g.stream()),
        token => Some(token),
    }
}

fn name(value: &TokenStream, cx: &mut Ctxt) -> Option<Ident> {
    if let Some(TokenTree::Ident(ident)) = single(value) {
        match syn::parse2::<Ident>(ident.to_token_stream()) {
            Ok(ident) => return Some(ident),
            Err(_) => {
                cx.error(
                    ident.span(),
                    format_args!("`name` cannot be the keyword `{ident}`: choose another name"),
                );
                return None;
            }
        }
    }
    cx.error_spanned(
        value,
        "`name` must be an identifier, the name of the kernel type to define, e.g. `SgemmNN`",
    );
    None
}

/// A value that is one of a few words (`precision`, `ldg`, an op). `what`
/// names it in messages.
fn word<T>(
    value: &TokenStream,
    what: &str,
    words: &[&str],
    from: impl Fn(&str) -> Option<T>,
    cx: &mut Ctxt,
) -> Option<Spanned<T>> {
    let expected = one_of(words);
    if let Some(TokenTree::Ident(ident)) = single(value) {
        let written = ident.to_string();
        if let Some(value) = from(&written) {
            return Some(Spanned { value, span: ident.span() });
        }
        let hint = match words.iter().find(|w| w.eq_ignore_ascii_case(&written)) {
            Some(w) => format!(": write `{w}`"),
            None => String::new(),
        };
        cx.error(ident.span(), format_args!("{what} must be {expected}{hint}"));
        return None;
    }
    cx.error_spanned(value, format_args!("{what} must be {expected}"));
    None
}

/// "`a`, `b` or `c`".
fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn precision(value: &TokenStream, cx: &mut Ctxt) -> Option<Spanned<Precision>> {
    if let Some(TokenTree::Literal(literal)) = single(value) {
        let bits = literal.to_string();
        if bits == "32" || bits == "64" {
            cx.error(
                literal.span(),
                format_args!("`precision` must be `f32`, `f64`, `c32` or `c64`: write `f{bits}` (or `c{bits}` for complex)"),
            );
            return None;
        }
    }
    word(value, "`precision`", &["f32", "f64", "c32", "c64"], Precision::from_token, cx)
}

fn ops(value: &TokenStream, cx: &mut Ctxt) -> Option<Tuple<Op, 2>> {
    // `op = NT`: the two letters run together.
    if let Some(TokenTree::Ident(ident)) = single(value) {
        let written = ident.to_string();
        if written.len() == 2 && written.chars().all(|c| "NTC".contains(c)) {
            let (a, b) = written.split_at(1);
            cx.error(ident.span(), format_args!("`op` must be a tuple `(op(A), op(B))`: write `({a}, {b})`"));
            return None;
        }
    }
    tuple(value, Key::Op, cx, op)
}

/// One element of `op`.
fn op(value: &TokenStream, label: &str, cx: &mut Ctxt) -> Option<Spanned<Op>> {
    let op_of = |written: &str| match written {
        "N" => Some(Op::N),
        "T" => Some(Op::T),
        "C" => Some(Op::C),
        _ => None,
    };
    let operand = if label.ends_with('0') { "A" } else { "B" };
    word(value, &format!("`{label}` (op({operand}))"), &["N", "T", "C"], op_of, cx)
}

/// An unsigned integer literal (a tuple element, or `lds_width`).
fn int(value: &TokenStream, label: &str, cx: &mut Ctxt) -> Option<Spanned<u32>> {
    let literal = match single(value) {
        Some(TokenTree::Literal(literal)) => literal,
        _ => {
            let negative =
                matches!(value.clone().into_iter().next(), Some(TokenTree::Punct(p)) if p.as_char() == '-');
            let message = if negative {
                format!("`{label}` must be a positive integer literal: remove the `-`")
            } else {
                format!("`{label}` must be an integer literal")
            };
            cx.error_spanned(value, message);
            return None;
        }
    };
    let span = literal.span();
    match syn::Lit::new(literal) {
        syn::Lit::Int(int) => {
            if !int.suffix().is_empty() {
                cx.error(
                    span,
                    format_args!("`{label}` must be an unsuffixed integer: remove `{}`", int.suffix()),
                );
                return None;
            }
            match int.base10_parse::<u32>() {
                Ok(value) => Some(Spanned { value, span }),
                Err(_) => {
                    cx.error(
                        span,
                        format_args!(
                            "`{label}` ({}) is too large: use at most {}",
                            int.base10_digits(),
                            u32::MAX
                        ),
                    );
                    None
                }
            }
        }
        syn::Lit::Str(s) if s.value().trim().parse::<u32>().is_ok() => {
            cx.error(
                span,
                format_args!("`{label}` must be an integer literal, not a string: remove the quotes"),
            );
            None
        }
        other => {
            let kind = match other {
                syn::Lit::Str(_) => "a string",
                syn::Lit::Float(_) => "a float",
                syn::Lit::Bool(_) => "a bool",
                syn::Lit::Char(_) => "a char",
                _ => "another kind of literal",
            };
            cx.error(span, format_args!("`{label}` must be an integer literal, found {kind}"));
            None
        }
    }
}

/// A parenthesized tuple of exactly `N` elements, each read by `elem`. Every
/// element is read, so all wrong elements are reported.
fn tuple<T, const N: usize>(
    value: &TokenStream,
    key: Key,
    cx: &mut Ctxt,
    elem: impl Fn(&TokenStream, &str, &mut Ctxt) -> Option<Spanned<T>>,
) -> Option<Tuple<T, N>> {
    let name = key.name();
    let form = key.form();
    let group = match single(value) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => g,
        _ => {
            cx.error_spanned(value, format_args!("`{name}` must be a tuple {form}"));
            return None;
        }
    };
    let Some(elems) = split_commas(&group) else {
        cx.error(group.span(), format_args!("`{name}` has an empty element: remove the extra comma"));
        return None;
    };
    if elems.len() != N {
        cx.error(group.span(), format_args!("`{name}` must have {N} elements, {form}, not {}", elems.len()));
        return None;
    }
    let read: Vec<Option<Spanned<T>>> =
        elems.iter().enumerate().map(|(i, e)| elem(e, &format!("{name}.{i}"), cx)).collect();
    let read: Vec<Spanned<T>> = read.into_iter().collect::<Option<_>>()?;
    let elems: [Spanned<T>; N] = read.try_into().ok()?;
    Some(Tuple { elems, span: group.span() })
}

/// The comma-separated elements of a group, a trailing comma allowed; `None`
/// if an element is empty.
fn split_commas(group: &Group) -> Option<Vec<TokenStream>> {
    let mut elems = vec![TokenStream::new()];
    for token in group.stream() {
        match token {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if elems.last().is_some_and(TokenStream::is_empty) {
                    return None;
                }
                elems.push(TokenStream::new());
            }
            token => elems.last_mut()?.extend([token]),
        }
    }
    if elems.last().is_some_and(TokenStream::is_empty) {
        elems.pop();
    }
    Some(elems)
}
