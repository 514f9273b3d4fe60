//! Numbers, immediates and initialized data: `.global` arrays at module
//! scope, and the integer and floating-point literals operands are made of.

use gemm_codegen::ptx::{GlobalDecl, Operand, is_identifier};

use super::{ParseError, Parser, err};

/// The most words a `.global` array may hold (512 KiB): far above what a
/// kernel of the IR declares, and a bound on what a reader allocates.
const MAX_GLOBAL_WORDS: u64 = 1 << 16;

impl Parser<'_> {
    /// An initialized `.global` array, after `.global`:
    /// `.align A .b64 name[N] = { w0, w1, ... };` with exactly `N` integer
    /// words (the IR's only kind of module data).
    pub(super) fn global_decl(&mut self) -> Result<GlobalDecl, ParseError> {
        let shape = "`.global .align A .b64 name[N] = { ... };`";
        match self.expect_word("`.align`")? {
            (_, ".align") => {}
            (l, w) => return err(l, format!("expected {shape}, found `{w}`")),
        }
        let (l, align) = self.expect_number("an alignment")?;
        if !align.is_power_of_two() || !(8..=256).contains(&align) {
            return err(l, format!("global array alignment {align}: a power of two from 8 to 256"));
        }
        match self.expect_word("`.b64`")? {
            (_, ".b64") => {}
            (l, w) => return err(l, format!("global arrays are `.b64`, not `{w}`")),
        }
        let (l, name) = self.expect_word("an array name")?;
        if !is_identifier(name) {
            return err(l, format!("invalid array name `{name}`"));
        }
        self.expect_punct('[')?;
        let (l, len) = self.expect_number("an array length")?;
        if len == 0 || len > MAX_GLOBAL_WORDS {
            return err(l, format!("global array `{name}` of {len} words: 1 to {MAX_GLOBAL_WORDS}"));
        }
        self.expect_punct(']')?;
        self.expect_punct('=')?;
        self.expect_punct('{')?;
        let mut words = Vec::with_capacity(len as usize);
        loop {
            let (l, v) = self.expect_number("a word")?;
            words.push(v);
            if self.eat_punct('}') {
                break;
            }
            self.expect_punct(',')?;
            if words.len() as u64 == len {
                return err(l, format!("global array `{name}` has more than its {len} words"));
            }
        }
        let l = self.expect_punct(';')?;
        if words.len() as u64 != len {
            return err(l, format!("global array `{name}` has {} of its {len} words", words.len()));
        }
        Ok(GlobalDecl { name: name.to_owned(), align: align as u32, words })
    }
}

/// An integer or exact floating-point immediate.
pub(super) fn number_operand(l: u32, n: &str) -> Result<Operand, ParseError> {
    let hex = |digits: &str, width: usize| -> Option<u64> {
        (digits.len() == width && digits.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(digits, 16).ok())
            .flatten()
    };
    if let Some(d) = n.strip_prefix("0f").or_else(|| n.strip_prefix("0F")) {
        return match hex(d, 8) {
            Some(bits) => Ok(Operand::F32(bits as u32)),
            None => err(l, format!("invalid .f32 immediate `{n}`: write `0f` and 8 hex digits")),
        };
    }
    if let Some(d) = n.strip_prefix("0d").or_else(|| n.strip_prefix("0D")) {
        return match hex(d, 16) {
            Some(bits) => Ok(Operand::F64(bits)),
            None => err(l, format!("invalid .f64 immediate `{n}`: write `0d` and 16 hex digits")),
        };
    }
    if n.contains('.') || n.contains(['e', 'E']) && !n.starts_with("0x") && !n.starts_with("0X") {
        return err(
            l,
            format!(
                "decimal floating-point literal `{n}`: write the exact bits, `0fXXXXXXXX` or `0dXXXXXXXXXXXXXXXX`"
            ),
        );
    }
    match parse_uint(n) {
        Some(v) => match i64::try_from(v) {
            Ok(v) => Ok(Operand::Imm(v)),
            // Above i64::MAX: the two's complement bits, as PTX reads them.
            Err(_) => Ok(Operand::Imm(v as i64)),
        },
        None => err(l, format!("invalid integer `{n}`")),
    }
}

/// A decimal, `0x` hexadecimal or `0` octal integer, optionally `U`-suffixed.
pub(super) fn parse_uint(n: &str) -> Option<u64> {
    let n = n.strip_suffix('U').unwrap_or(n);
    if let Some(h) = n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if n.len() > 1 && n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit()) {
        u64::from_str_radix(&n[1..], 8).ok()
    } else {
        n.parse().ok()
    }
}
