//! The PTX reader: text back into the [IR](gemm_codegen::ptx), the inverse of the
//! [writer](gemm_codegen::ptx::Writer).
//!
//! It reads the subset of PTX the IR covers, in the shape the writer prints
//! it: a header comment, `.version`, `.target` and `.address_size`, then
//! `.visible .entry` kernels with `.param` lists, `.reqntid`, `.reg`,
//! `.shared` and `.extern .shared` (the dynamic array) declarations, labels,
//! guards and every [`Instr`] form. Spacing is
//! free (tabs or spaces, any indentation, statements may span lines), but
//! every mnemonic must be spelled exactly as the writer spells it. Anything
//! else — an instruction, directive, type or special register the IR does not
//! have — is an error naming it and its line, never skipped.
//!
//! # Round trip
//!
//! For every module the stencil emits, `write_string(&parse(&write_string(&m))?)`
//! equals `write_string(&m)` and `parse(&write_string(&m))? == m`, comments
//! included:
//! - the header comment is the block of `//` lines before `.version`, without
//!   the empty `//` lines that frame it;
//! - a comment line directly above a `.reg` line heads a new register group
//!   (the [`Kernel::reg_groups`] entry the writer prints); the first group has
//!   no comment, as in [`gemm_codegen::ptx::KernelBuilder`]. The `// shared memory`
//!   line above the first `.shared` (or `.extern .shared`) is the writer's
//!   and is dropped;
//! - other comment lines and empty lines inside a kernel become
//!   [`Stmt::Comment`] and [`Stmt::Blank`].
//!
//! What the text cannot carry and is therefore normalised: labels are
//! numbered in the order they are placed (the builder numbers them in the
//! order they are declared, which the stencil keeps equal); a register group
//! without registers is not printed, so it does not come back; a comment at
//! the end of a code line, and comments outside kernels other than the
//! header, are dropped; `ld.param.T %r, [p]` with `T` the parameter's type
//! reads back as [`Instr::LdParam`] even if it was built as a
//! [`Instr::Ld`] of space `.param`, which prints identically.
//!
//! `.version` and `.target` must be the ones the IR derives from the
//! instructions ([`Module::version`], [`Module::target`]), and
//! `.address_size` must be 64, because the writer prints nothing else.
//!
//! [`parse_with_source_map`] also returns the line of every body statement,
//! which is what the emulator reports in its diagnostics.

use std::collections::HashMap;
use std::fmt;

use gemm_codegen::ptx::{
    Address, GlobalDecl, GlobalId, Guard, Instr, Kernel, Label, Module, Operand, ParamDecl, ParamId,
    ParamType, Reg, RegDecl, SharedDecl, SharedId, Special, Stmt, Type,
};
use gemm_codegen::ptx::{is_identifier, is_reserved};

mod data;
mod instr;
mod lex;
mod operand;

use data::parse_uint;
use lex::{Item, Tok, lex};

/// A PTX text the reader cannot turn into IR: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: u32,
    /// Lowercase, no trailing period, naming the offending token.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Where each statement of a parsed module came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// For each kernel of the module, the 1-based line of each statement of
    /// its [`Kernel::body`].
    pub kernels: Vec<Vec<u32>>,
}

impl SourceMap {
    /// The line of statement `stmt` of kernel `kernel`.
    pub fn line(&self, kernel: usize, stmt: usize) -> u32 {
        self.kernels[kernel][stmt]
    }
}

/// Parses PTX text printed by [`gemm_codegen::ptx::Writer`] back into a [`Module`].
pub fn parse(text: &str) -> Result<Module, ParseError> {
    parse_with_source_map(text).map(|(module, _)| module)
}

/// Parses like [`parse`], also returning the line of every body statement.
pub fn parse_with_source_map(text: &str) -> Result<(Module, SourceMap), ParseError> {
    let items = lex(text)?;
    Parser { items, pos: 0, end_line: text.lines().count() as u32 }.module()
}

fn err<T>(line: u32, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, message: message.into() })
}

// ---------------------------------------------------------------------------
// Parsing.

struct Parser<'a> {
    items: Vec<(u32, Item<'a>)>,
    pos: usize,
    end_line: u32,
}

/// A parsed operand before it is checked against its instruction.
#[derive(Clone, Debug)]
enum Arg {
    Op(Operand),
    Vec(Vec<Operand>),
    Addr(Address),
    /// A `$label` reference, by name.
    Label(String),
    /// A kernel parameter named as a value: its address (`mov.u64 %rd,
    /// a_map`).
    Param(ParamId),
    /// `_`: a result nobody reads.
    Sink,
    /// `[%map, {c0, c1, c2}]`: a tensor map and a box's coordinates.
    Tensor(Reg, Vec<Operand>),
}

impl Arg {
    fn describe(&self) -> &'static str {
        match self {
            Arg::Op(Operand::Reg(_)) => "a register",
            Arg::Op(Operand::Imm(_)) => "an integer",
            Arg::Op(Operand::F32(_)) => "an .f32 immediate",
            Arg::Op(Operand::F64(_)) => "an .f64 immediate",
            Arg::Op(Operand::Special(_)) => "a special register",
            Arg::Op(Operand::Shared(_)) => "a shared array",
            Arg::Op(Operand::Global(_)) => "a global array",
            Arg::Vec(_) => "a vector `{...}`",
            Arg::Addr(_) => "an address `[...]`",
            Arg::Label(_) => "a label",
            Arg::Param(_) => "a parameter",
            Arg::Sink => "`_`",
            Arg::Tensor(..) => "a tensor operand `[map, {...}]`",
        }
    }
}

/// A guarded instruction, and the label a branch names (resolved once the
/// whole body has been read).
type Statement = (Option<Guard>, Instr, Option<String>);

/// Names visible inside one kernel.
#[derive(Default)]
struct Scope {
    regs: HashMap<String, Reg>,
    params: HashMap<String, ParamId>,
    shared: HashMap<String, SharedId>,
    globals: HashMap<String, GlobalId>,
    /// Placed labels, by name.
    labels: HashMap<String, Label>,
}

impl<'a> Parser<'a> {
    // --- item access -------------------------------------------------------

    fn peek(&self) -> Option<(u32, Item<'a>)> {
        self.items.get(self.pos).copied()
    }

    /// The next token, skipping comments and empty lines (inside a
    /// statement they carry nothing).
    fn peek_tok(&self) -> Option<(u32, Tok<'a>)> {
        self.items[self.pos..].iter().find_map(|&(l, it)| match it {
            Item::Tok(t) => Some((l, t)),
            _ => None,
        })
    }

    fn next_tok(&mut self) -> Result<(u32, Tok<'a>), ParseError> {
        while let Some((l, it)) = self.peek() {
            self.pos += 1;
            if let Item::Tok(t) = it {
                return Ok((l, t));
            }
        }
        err(self.end_line, "unexpected end of text")
    }

    fn expect_punct(&mut self, c: char) -> Result<u32, ParseError> {
        match self.next_tok()? {
            (l, Tok::Punct(p)) if p == c => Ok(l),
            (l, t) => err(l, format!("expected `{c}`, found `{t}`")),
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if matches!(self.peek_tok(), Some((_, Tok::Punct(p))) if p == c) {
            self.next_tok().expect("peeked");
            true
        } else {
            false
        }
    }

    fn expect_word(&mut self, what: &str) -> Result<(u32, &'a str), ParseError> {
        match self.next_tok()? {
            (l, Tok::Word(w)) => Ok((l, w)),
            (l, t) => err(l, format!("expected {what}, found `{t}`")),
        }
    }

    fn expect_number(&mut self, what: &str) -> Result<(u32, u64), ParseError> {
        match self.next_tok()? {
            (l, Tok::Number(n)) => match parse_uint(n) {
                Some(v) => Ok((l, v)),
                None => err(l, format!("expected {what}, found `{n}`")),
            },
            (l, t) => err(l, format!("expected {what}, found `{t}`")),
        }
    }

    fn expect_u32(&mut self, what: &str) -> Result<(u32, u32), ParseError> {
        let (l, v) = self.expect_number(what)?;
        match u32::try_from(v) {
            Ok(v) => Ok((l, v)),
            Err(_) => err(l, format!("{what} {v} does not fit in 32 bits")),
        }
    }

    fn expect_type(&mut self) -> Result<(u32, Type), ParseError> {
        let (l, w) = self.expect_word("a type")?;
        match w.strip_prefix('.').and_then(Type::from_name) {
            Some(t) => Ok((l, t)),
            None => err(l, format!("unknown type `{w}`")),
        }
    }

    /// A parameter's type: a scalar type but `.pred`, or `.align 64 .b8`,
    /// which opens a tensor map (`.align 64 .b8 name[128]`, the only
    /// array parameter the emulator knows).
    fn param_type(&mut self) -> Result<ParamType, ParseError> {
        if matches!(self.peek_tok(), Some((_, Tok::Word(".align")))) {
            self.next_tok()?;
            let (l, align) = self.expect_u32("an alignment")?;
            if align != ParamType::TENSOR_MAP_ALIGN {
                return err(l, format!("a tensor map parameter is aligned to 64 bytes, not {align}"));
            }
            return match self.expect_word("`.b8`")? {
                (_, ".b8") => Ok(ParamType::TensorMap),
                (l, w) => err(l, format!("an array parameter is `.b8` (a tensor map), not `{w}`")),
            };
        }
        let (l, ty) = self.expect_type()?;
        if ty == Type::Pred {
            return err(l, "a parameter cannot be `.pred`");
        }
        Ok(ParamType::Scalar(ty))
    }

    // --- module ------------------------------------------------------------

    fn module(mut self) -> Result<(Module, SourceMap), ParseError> {
        let mut module = Module::default();
        let mut map = SourceMap::default();

        // The header: the comment lines before the first token.
        let mut header = Vec::new();
        while let Some((_, it)) = self.peek() {
            match it {
                Item::Comment(c) => header.push(c.to_owned()),
                Item::Blank => {}
                Item::Tok(_) => break,
            }
            self.pos += 1;
        }
        if header.len() >= 2 && header[0].is_empty() && header[header.len() - 1].is_empty() {
            header.pop();
            header.remove(0);
        }
        module.header = header;

        let mut version = None;
        let mut target = None;
        let mut address_size = false;
        // A `.extern .shared` array at module scope belongs to the next kernel.
        let mut dynamic: Option<(u32, SharedDecl)> = None;
        // So do the initialized `.global` arrays before it.
        let mut globals: Vec<(u32, GlobalDecl)> = Vec::new();
        while let Some((line, it)) = self.peek() {
            let Item::Tok(tok) = it else {
                // Comments between kernels are not part of the IR.
                self.pos += 1;
                continue;
            };
            match tok {
                Tok::Word(".version") => {
                    self.pos += 1;
                    let (l, v) = match self.next_tok()? {
                        (l, Tok::Number(n)) => (l, n),
                        (l, t) => return err(l, format!("expected a version like `6.0`, found `{t}`")),
                    };
                    version = Some((l, v.to_owned()));
                }
                Tok::Word(".target") => {
                    self.pos += 1;
                    let (l, t) = self.expect_word("a target like `sm_70`")?;
                    if self.eat_punct(',') {
                        let (l, w) = self.next_tok()?;
                        return err(l, format!("unsupported `.target` option `{w}`"));
                    }
                    target = Some((l, t.to_owned()));
                }
                Tok::Word(".address_size") => {
                    self.pos += 1;
                    let (l, n) = self.expect_number("an address size")?;
                    if n != 64 {
                        return err(l, format!("`.address_size {n}`: only 64-bit addressing is supported"));
                    }
                    address_size = true;
                }
                Tok::Word(".visible") => {
                    self.pos += 1;
                    let (kernel, lines) = self.kernel(dynamic.take(), std::mem::take(&mut globals))?;
                    if module.kernels.iter().any(|k| k.name == kernel.name) {
                        return err(line, format!("entry `{}` defined twice", kernel.name));
                    }
                    module.kernels.push(kernel);
                    map.kernels.push(lines);
                }
                Tok::Word(".entry") => {
                    return err(line, "`.entry` without `.visible`: the IR's kernels are `.visible .entry`");
                }
                Tok::Word(".extern") => {
                    self.pos += 1;
                    match self.expect_word("`.shared`")? {
                        (_, ".shared") => {}
                        (l, w) => return err(l, format!("expected `.extern .shared`, found `{w}`")),
                    }
                    let decl = self.shared_decl(true)?;
                    if let Some((_, first)) = &dynamic {
                        return err(
                            line,
                            format!(
                                "a second dynamic shared array `{}` before a kernel uses `{}`",
                                decl.name, first.name
                            ),
                        );
                    }
                    dynamic = Some((line, decl));
                }
                Tok::Word(".global") => {
                    self.pos += 1;
                    globals.push((line, self.global_decl()?));
                }
                Tok::Word(w) if w.starts_with('.') => {
                    return err(line, format!("unknown or unsupported directive `{w}`"));
                }
                t => return err(line, format!("unexpected `{t}` outside a kernel")),
            }
        }

        if let Some((line, decl)) = globals.first() {
            return err(*line, format!("global array `{}` is not followed by a kernel", decl.name));
        }
        if let Some((line, decl)) = dynamic {
            return err(line, format!("dynamic shared array `{}` is not followed by a kernel", decl.name));
        }
        let Some((vline, version)) = version else {
            return err(1, "missing `.version`");
        };
        let Some((tline, target)) = target else {
            return err(1, "missing `.target`");
        };
        if !address_size {
            return err(1, "missing `.address_size 64`");
        }
        // The text's target is the floor; the instructions may only need less.
        match gemm_codegen::ptx::Arch::from_name(&target) {
            Some(arch) => module.floor = arch,
            None => return err(tline, format!("`.target {target}`: expected `sm_XY` or `sm_XYa`")),
        }
        let want_version = module.version().to_string();
        if version != want_version {
            return err(
                vline,
                format!(
                    "`.version {version}` differs from {want_version}, the version the module's instructions need"
                ),
            );
        }
        let want_target = module.target().to_string();
        if target != want_target {
            return err(
                tline,
                format!(
                    "`.target {target}` differs from {want_target}, the target the module's instructions need"
                ),
            );
        }
        Ok((module, map))
    }

    // --- kernel ------------------------------------------------------------

    /// One `.visible .entry`, after `.visible`; `dynamic` is the `.extern
    /// .shared` array declared at module scope just before it, which joins
    /// the kernel's shared arrays after its static ones.
    fn kernel(
        &mut self,
        mut dynamic: Option<(u32, SharedDecl)>,
        globals: Vec<(u32, GlobalDecl)>,
    ) -> Result<(Kernel, Vec<u32>), ParseError> {
        match self.expect_word("`.entry`")? {
            (_, ".entry") => {}
            (l, w) => return err(l, format!("expected `.entry` after `.visible`, found `{w}`")),
        }
        let (l, name) = self.expect_word("an entry name")?;
        if !is_identifier(name) {
            return err(l, format!("invalid entry name `{name}`"));
        }
        let mut kernel =
            Kernel { name: name.to_owned(), reg_groups: vec![String::new()], ..Kernel::default() };
        let mut scope = Scope::default();
        let mut names: HashMap<String, u32> = HashMap::new();
        let mut claim = |name: &str, l: u32| -> Result<(), ParseError> {
            if let Some(prev) = names.insert(name.to_owned(), l) {
                return err(l, format!("`{name}` already declared on line {prev}"));
            }
            Ok(())
        };

        for (l, g) in globals {
            claim(&g.name, l)?;
            scope.globals.insert(g.name.clone(), GlobalId::new(kernel.globals.len() as u32));
            kernel.globals.push(g);
        }

        // Parameters.
        self.expect_punct('(')?;
        if !self.eat_punct(')') {
            loop {
                match self.expect_word("`.param`")? {
                    (_, ".param") => {}
                    (l, w) => return err(l, format!("expected `.param`, found `{w}`")),
                }
                let ty = self.param_type()?;
                let (l, pname) = self.expect_word("a parameter name")?;
                if !is_identifier(pname) {
                    return err(l, format!("unsupported parameter syntax `{pname}`"));
                }
                if ty == ParamType::TensorMap {
                    self.expect_punct('[')?;
                    let (l, bytes) = self.expect_u32("a tensor map's size")?;
                    if bytes != ParamType::TENSOR_MAP_BYTES {
                        return err(l, format!("a tensor map parameter is 128 bytes, not {bytes}"));
                    }
                    self.expect_punct(']')?;
                }
                claim(pname, l)?;
                scope.params.insert(pname.to_owned(), ParamId::new(kernel.params.len() as u32));
                kernel.params.push(ParamDecl { name: pname.to_owned(), ty });
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }

        // Performance directives.
        loop {
            match self.peek_tok() {
                Some((_, Tok::Word(".reqntid"))) => {
                    let (l, _) = self.next_tok()?;
                    if kernel.reqntid.is_some() {
                        return err(l, "`.reqntid` given twice");
                    }
                    let mut dims = vec![self.expect_u32("a thread count")?.1];
                    while dims.len() < 3 && self.eat_punct(',') {
                        dims.push(self.expect_u32("a thread count")?.1);
                    }
                    dims.resize(3, 1);
                    kernel.reqntid = Some((dims[0], dims[1], dims[2]));
                }
                Some((_, Tok::Punct('{'))) => {
                    self.next_tok()?;
                    break;
                }
                Some((l, Tok::Word(w))) if w.starts_with('.') => {
                    return err(l, format!("unknown or unsupported directive `{w}`"));
                }
                Some((l, t)) => return err(l, format!("expected `{{`, found `{t}`")),
                None => return err(self.end_line, format!("kernel `{}` has no body", kernel.name)),
            }
        }

        // Body.
        let mut lines = Vec::new();
        // Branches to labels not yet placed: (statement, name, line).
        let mut fixups: Vec<(usize, String, u32)> = Vec::new();
        loop {
            let Some((line, item)) = self.peek() else {
                return err(self.end_line, format!("kernel `{}` is not closed by `}}`", kernel.name));
            };
            // The static arrays are declared; the dynamic one follows them.
            let declaring = match item {
                Item::Tok(Tok::Word(".reg" | ".shared")) => true,
                Item::Comment(_) => {
                    matches!(
                        self.items.get(self.pos + 1),
                        Some((_, Item::Tok(Tok::Word(".reg" | ".shared"))))
                    )
                }
                _ => false,
            };
            if !declaring && let Some((l, decl)) = dynamic.take() {
                claim(&decl.name, l)?;
                scope.shared.insert(decl.name.clone(), SharedId::new(kernel.shared.len() as u32));
                kernel.shared.push(decl);
            }
            match item {
                Item::Blank => {
                    self.pos += 1;
                    kernel.body.push(Stmt::Blank);
                    lines.push(line);
                }
                Item::Comment(text) => {
                    self.pos += 1;
                    match self.peek() {
                        Some((_, Item::Tok(Tok::Word(".reg")))) => kernel.reg_groups.push(text.to_owned()),
                        // The writer's heading of the shared arrays.
                        Some((_, Item::Tok(Tok::Word(".shared")))) => {}
                        _ => {
                            kernel.body.push(Stmt::Comment(text.to_owned()));
                            lines.push(line);
                        }
                    }
                }
                Item::Tok(Tok::Punct('}')) => {
                    self.pos += 1;
                    break;
                }
                Item::Tok(Tok::Word(".reg")) => {
                    self.pos += 1;
                    let (_, ty) = self.expect_type()?;
                    loop {
                        let (l, w) = self.expect_word("a register name")?;
                        let Some(rname) = w.strip_prefix('%') else {
                            return err(l, format!("register names start with `%`: `{w}`"));
                        };
                        if self.eat_punct('<') {
                            return err(
                                l,
                                format!("parameterized register names `{w}<N>` are not supported"),
                            );
                        }
                        if !is_identifier(rname) || Special::from_name(w).is_some() || is_reserved(rname) {
                            return err(l, format!("invalid register name `{w}`"));
                        }
                        if scope.regs.contains_key(rname) {
                            return err(l, format!("register `{w}` declared twice"));
                        }
                        let reg = Reg::new(kernel.regs.len() as u32, ty);
                        scope.regs.insert(rname.to_owned(), reg);
                        let group = kernel.reg_groups.len() - 1;
                        kernel.regs.push(RegDecl { name: rname.to_owned(), ty, group });
                        if self.eat_punct(';') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Item::Tok(Tok::Word(".extern")) => {
                    return err(
                        line,
                        "`.extern .shared` is declared at module scope, before `.visible .entry`",
                    );
                }
                Item::Tok(Tok::Word(".shared")) => {
                    self.pos += 1;
                    let decl = self.shared_decl(false)?;
                    claim(&decl.name, line)?;
                    scope.shared.insert(decl.name.clone(), SharedId::new(kernel.shared.len() as u32));
                    kernel.shared.push(decl);
                }
                Item::Tok(Tok::Word(w)) if w.starts_with('$') => {
                    self.pos += 1;
                    let name = &w[1..];
                    if !is_identifier(name) {
                        return err(line, format!("invalid label `{w}`"));
                    }
                    self.expect_punct(':')?;
                    claim(name, line)?;
                    let label = Label::new(kernel.labels.len() as u32);
                    kernel.labels.push(name.to_owned());
                    scope.labels.insert(name.to_owned(), label);
                    kernel.body.push(Stmt::Label(label));
                    lines.push(line);
                }
                Item::Tok(Tok::Word(w)) if w.starts_with('.') => {
                    return err(line, format!("unknown or unsupported directive `{w}` in a kernel body"));
                }
                Item::Tok(_) => {
                    let (guard, instr, label_ref) = self.statement(&kernel, &scope)?;
                    if let Some(name) = label_ref {
                        fixups.push((kernel.body.len(), name, line));
                    }
                    kernel.body.push(Stmt::Instr { guard, instr });
                    lines.push(line);
                }
            }
        }

        for (stmt, name, line) in fixups {
            let Some(&label) = scope.labels.get(&name) else {
                return err(line, format!("branch to undefined label `${name}`"));
            };
            if let Stmt::Instr { instr: Instr::Bra { target, .. }, .. } = &mut kernel.body[stmt] {
                *target = label;
            }
        }
        Ok((kernel, lines))
    }

    /// The rest of a shared array declaration after `.shared`: `.align A
    /// .b8 name[bytes];`, or `.align A .b8 name[];` when `dynamic`.
    fn shared_decl(&mut self, dynamic: bool) -> Result<SharedDecl, ParseError> {
        let shape =
            if dynamic { "`.extern .shared .align N .b8 name[];`" } else { "`.align N .b8 name[bytes]`" };
        let (l, w) = self.expect_word("`.align`")?;
        if w != ".align" {
            return err(l, format!("expected {shape}, found `{w}`"));
        }
        let (l, align) = self.expect_u32("an alignment")?;
        if !align.is_power_of_two() {
            return err(l, format!("alignment {align} is not a power of two"));
        }
        let (l, w) = self.expect_word("`.b8`")?;
        if w != ".b8" {
            return err(l, format!("shared arrays are declared `.b8`, found `{w}`"));
        }
        let (l, name) = self.expect_word("a shared array name")?;
        if !is_identifier(name) {
            return err(l, format!("invalid shared array name `{name}`"));
        }
        self.expect_punct('[')?;
        let bytes = match (dynamic, self.next_tok()?) {
            (true, (_, Tok::Punct(']'))) => None,
            (true, (l, t)) => {
                return err(
                    l,
                    format!("expected `]`, found `{t}`: the dynamic array `{name}[]` has no size"),
                );
            }
            (false, (l, Tok::Punct(']'))) => {
                return err(
                    l,
                    format!("`{name}[]` has no size: a dynamic array is declared `.extern .shared`"),
                );
            }
            (false, (l, Tok::Number(n))) => match parse_uint(n).and_then(|v| u32::try_from(v).ok()) {
                Some(v) => {
                    self.expect_punct(']')?;
                    Some(v)
                }
                None => return err(l, format!("invalid size `{n}` of shared array `{name}`")),
            },
            (false, (l, t)) => return err(l, format!("expected a size in bytes, found `{t}`")),
        };
        self.expect_punct(';')?;
        Ok(SharedDecl { name: name.to_owned(), align, bytes })
    }

    // --- statements --------------------------------------------------------

    /// One instruction statement, through its `;`. Returns the label a branch
    /// names, to be resolved once the body is read.
    fn statement(&mut self, kernel: &Kernel, scope: &Scope) -> Result<Statement, ParseError> {
        let mut guard = None;
        if self.eat_punct('@') {
            let negated = self.eat_punct('!');
            let (l, w) = self.expect_word("a predicate register")?;
            let reg = self.reg(scope, l, w)?;
            if reg.ty() != Type::Pred {
                return err(l, format!("guard `{w}` is not a `.pred` register"));
            }
            guard = Some(Guard { pred: reg, negated });
        }
        let (line, opcode) = match self.next_tok()? {
            (l, Tok::Word(w)) => (l, w),
            (l, t) => return err(l, format!("expected an instruction, found `{t}`")),
        };
        let mut args = Vec::new();
        if !self.eat_punct(';') {
            loop {
                args.push(self.arg(scope)?);
                if self.eat_punct(';') {
                    break;
                }
                self.expect_punct(',').map_err(|e| ParseError {
                    message: format!("{} in the operands of `{opcode}`", e.message),
                    ..e
                })?;
            }
        }
        let (instr, label) = instr::build(kernel, line, opcode, args)?;
        Ok((guard, instr, label))
    }
}

#[cfg(test)]
mod tests;
