//! A statement's operands: registers, immediates, names, vectors,
//! addresses, labels, and the TMA family's `_`, parameter names and tensor
//! operands.

use gemm_codegen::ptx::{AddrBase, Address, Operand, Reg, Special};
use gemm_codegen::ptx::{is_identifier, is_reserved};

use super::data::{number_operand, parse_uint};
use super::lex::Tok;
use super::{Arg, ParseError, Parser, Scope, err};

impl Parser<'_> {
    pub(super) fn reg(&self, scope: &Scope, l: u32, w: &str) -> Result<Reg, ParseError> {
        let Some(name) = w.strip_prefix('%') else {
            return err(l, format!("expected a register, found `{w}`"));
        };
        match scope.regs.get(name) {
            Some(&r) => Ok(r),
            None => err(l, format!("undeclared register `{w}`")),
        }
    }

    pub(super) fn arg(&mut self, scope: &Scope) -> Result<Arg, ParseError> {
        match self.peek_tok() {
            Some((_, Tok::Punct('{'))) => {
                self.next_tok()?;
                let mut v = Vec::new();
                loop {
                    v.push(self.operand(scope)?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
                Ok(Arg::Vec(v))
            }
            Some((_, Tok::Punct('['))) => {
                self.next_tok()?;
                let (l, w) = self.expect_word("an address base")?;
                let base = if w.starts_with('%') {
                    AddrBase::Reg(self.reg(scope, l, w)?)
                } else if let Some(&s) = scope.shared.get(w) {
                    AddrBase::Shared(s)
                } else if let Some(&p) = scope.params.get(w) {
                    AddrBase::Param(p)
                } else {
                    return err(l, format!("`{w}` is not a register, shared array or parameter"));
                };
                if let AddrBase::Reg(map) = base
                    && self.eat_punct(',')
                {
                    self.expect_punct('{')?;
                    let mut coords = Vec::new();
                    loop {
                        coords.push(self.operand(scope)?);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                    self.expect_punct(']')?;
                    return Ok(Arg::Tensor(map, coords));
                }
                let mut offset = 0i64;
                if let Some((l, Tok::Punct(c @ ('+' | '-')))) = self.peek_tok() {
                    self.next_tok()?;
                    let mut negative = c == '-';
                    if c == '+' && self.eat_punct('-') {
                        negative = true;
                    }
                    let (_, v) = self.expect_number("an address offset")?;
                    let Ok(v) = i64::try_from(v) else {
                        return err(l, format!("address offset {v} out of range"));
                    };
                    offset = if negative { -v } else { v };
                }
                self.expect_punct(']')?;
                Ok(Arg::Addr(Address { base, offset }))
            }
            Some((_, Tok::Word(w))) if w.starts_with('$') => {
                let (l, _) = self.next_tok()?;
                let name = &w[1..];
                if !is_identifier(name) {
                    return err(l, format!("invalid label `{w}`"));
                }
                Ok(Arg::Label(name.to_owned()))
            }
            Some((_, Tok::Word("_"))) => {
                self.next_tok()?;
                Ok(Arg::Sink)
            }
            Some((_, Tok::Word(w))) if scope.params.contains_key(w) && !scope.shared.contains_key(w) => {
                self.next_tok()?;
                Ok(Arg::Param(scope.params[w]))
            }
            _ => Ok(Arg::Op(self.operand(scope)?)),
        }
    }

    fn operand(&mut self, scope: &Scope) -> Result<Operand, ParseError> {
        let (l, tok) = self.next_tok()?;
        match tok {
            Tok::Word(w) if w.starts_with('%') => {
                if let Some(s) = Special::from_name(w) {
                    return Ok(Operand::Special(s));
                }
                if w.contains('.') || is_reserved(&w[1..]) {
                    return err(l, format!("unsupported special register `{w}`"));
                }
                Ok(Operand::Reg(self.reg(scope, l, w)?))
            }
            Tok::Word(w) if scope.globals.contains_key(w) => Ok(Operand::Global(scope.globals[w])),
            Tok::Word(w) => match scope.shared.get(w) {
                Some(&s) => Ok(Operand::Shared(s)),
                None if scope.params.contains_key(w) => {
                    err(l, format!("parameter `{w}` used as a value: load it with `ld.param`"))
                }
                None => err(l, format!("unknown name `{w}`")),
            },
            Tok::Punct('-') => match self.next_tok()? {
                (l, Tok::Number(n)) => match parse_uint(n) {
                    Some(v) if v <= 1 << 63 => Ok(Operand::Imm((v as i64).wrapping_neg())),
                    _ => err(l, format!("invalid integer `-{n}`")),
                },
                (l, t) => err(l, format!("expected a number after `-`, found `{t}`")),
            },
            Tok::Number(n) => number_operand(l, n),
            t => err(l, format!("expected an operand, found `{t}`")),
        }
    }
}
