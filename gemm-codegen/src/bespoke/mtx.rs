//! The Matrix Market exchange format (NIST,
//! <https://math.nist.gov/MatrixMarket/formats.html>) for bespoke operators:
//! [`parse`] reads a file into an [`Operator`], [`write_coordinate`] and
//! [`write_array`] write one back out so that [`parse`] returns it bit for bit.
//!
//! A file is a header line `%%MatrixMarket matrix <format> <field> <symmetry>`
//! (keywords in any case), then comment lines (`%…`) and blank lines anywhere,
//! a size line and the data:
//!
//! - format `array`: size line `M N`, then the values one per line in
//!   column-major order;
//! - format `coordinate`: size line `M N NNZ`, then `NNZ` lines `i j value`
//!   with 1-based indices; entries not listed are zero;
//! - field `real`, `double` or `integer` (a bespoke operator needs real
//!   values: `complex` and `pattern` are refused);
//! - symmetry `general`, `symmetric` (only the lower triangle, diagonal
//!   included, is stored and mirrored) or `skew-symmetric` (only the entries
//!   strictly below the diagonal are stored, mirrored with a minus sign);
//!   `hermitian` is refused. An `array` file of a symmetric kind lists its
//!   stored triangle column by column.
//!
//! A file that breaks a rule is an [`MtxError`] naming its 1-based line and
//! what is wrong ([`MtxErrorKind`]); no input makes [`parse`] panic, and
//! nothing is allocated in proportion to a size before the size has been
//! checked against [`Operator::MAX_DIM`].

use std::collections::HashMap;
use std::fmt::{self, Write as _};

use thiserror::Error;

use super::{Operator, OperatorError};

/// A Matrix Market file that does not make an [`Operator`]: where and why.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("line {line}: {kind}")]
pub struct MtxError {
    /// The 1-based line at fault; past the last line when data is missing,
    /// and 0 only when the input has no line at all.
    pub line: usize,
    /// What is wrong.
    pub kind: MtxErrorKind,
}

/// An axis of the matrix, as named in error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// The row axis (`M`, the first index).
    Row,
    /// The column axis (`N`, the second index).
    Column,
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axis::Row => "row",
            Axis::Column => "column",
        })
    }
}

/// How a file lays out its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `coordinate`: `i j value` lines, unlisted entries zero.
    Coordinate,
    /// `array`: every stored value, column-major, one per line.
    Array,
}

impl Format {
    /// The size line this format needs.
    fn size_line(self) -> &'static str {
        match self {
            Format::Coordinate => "M N NNZ",
            Format::Array => "M N",
        }
    }

    /// The data line this format needs.
    fn data_line(self) -> &'static str {
        match self {
            Format::Coordinate => "i j value",
            Format::Array => "value",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Coordinate => "coordinate",
            Format::Array => "array",
        })
    }
}

/// Which entries a file stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Every entry.
    General,
    /// The lower triangle with the diagonal; `A(j, i) = A(i, j)`.
    Symmetric,
    /// The entries strictly below the diagonal; `A(j, i) = -A(i, j)`.
    SkewSymmetric,
}

impl Symmetry {
    /// How many entries a `rows × cols` matrix of this kind stores at most.
    fn stored(self, rows: usize, cols: usize) -> usize {
        match self {
            Symmetry::General => rows * cols,
            Symmetry::Symmetric => rows * (rows + 1) / 2,
            Symmetry::SkewSymmetric => rows * (rows - 1) / 2,
        }
    }

    /// The first stored row of column `j` (0-based).
    fn first_row(self, j: usize) -> usize {
        match self {
            Symmetry::General => 0,
            Symmetry::Symmetric => j,
            Symmetry::SkewSymmetric => j + 1,
        }
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
        })
    }
}

/// What is wrong with a Matrix Market file. Indices in messages are
/// 1-based, as the file writes them; tokens are quoted as written.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum MtxErrorKind {
    /// The input holds nothing but whitespace.
    #[error(
        "the input is empty: a Matrix Market file starts with the header \
         `%%MatrixMarket matrix <format> <field> <symmetry>`"
    )]
    Empty,
    /// The first line is not a `%%MatrixMarket` header (`found`: its start).
    #[error(
        "the first line must be the header `%%MatrixMarket matrix <format> <field> <symmetry>`, \
         not `{found}`"
    )]
    MissingHeader { found: String },
    /// The header does not have its five words.
    #[error("the header has {found} words, not 5: write `%%MatrixMarket matrix <format> <field> <symmetry>`")]
    HeaderWords { found: usize },
    /// The header's object is not `matrix`.
    #[error("object `{object}` is not supported: an operator is read from a `matrix` file")]
    UnsupportedObject { object: String },
    /// The header's format is not `coordinate` or `array`.
    #[error("unknown format `{format}`: use `coordinate` or `array`")]
    UnknownFormat { format: String },
    /// The header's field is no Matrix Market field.
    #[error("unknown field `{field}`: use `real`, `double` or `integer`")]
    UnknownField { field: String },
    /// The header's field is `complex` or `pattern`.
    #[error(
        "field `{field}` is not supported: a bespoke operator needs real values, \
         so use `real`, `double` or `integer`"
    )]
    UnsupportedField { field: String },
    /// The header's symmetry is no Matrix Market symmetry.
    #[error("unknown symmetry `{symmetry}`: use `general`, `symmetric` or `skew-symmetric`")]
    UnknownSymmetry { symmetry: String },
    /// The header's symmetry is `hermitian`.
    #[error(
        "symmetry `{symmetry}` is not supported: it needs complex values; \
         use `general`, `symmetric` or `skew-symmetric`"
    )]
    UnsupportedSymmetry { symmetry: String },
    /// The file ends before its size line.
    #[error("the size line is missing: after the header, a {format} file needs the line `{}`", format.size_line())]
    MissingSize { format: Format },
    /// The size line has the wrong number of words.
    #[error("the size line of a {format} file is `{}`, not a line of {found} words", format.size_line())]
    SizeWords { format: Format, found: usize },
    /// A size is not written as digits.
    #[error("size `{token}` is not a whole number: write sizes as digits, like `3`")]
    BadSize { token: String },
    /// A dimension is over [`Operator::MAX_DIM`] (or over what a `usize`
    /// holds).
    #[error("{axis} count {value} is over the limit of {max}: a bespoke operator is at most {max} x {max}")]
    TooLarge { axis: Axis, value: String, max: usize },
    /// A dimension is zero.
    #[error("a matrix needs at least one row and one column, not {rows} x {cols}")]
    ZeroSize { rows: usize, cols: usize },
    /// A symmetric kind with `M != N`.
    #[error("a {symmetry} matrix must be square, not {rows} x {cols}: declare a rectangular one `general`")]
    NotSquare { symmetry: Symmetry, rows: usize, cols: usize },
    /// `NNZ` is more than the matrix can store (`M · N`, or its stored
    /// triangle for the symmetric kinds).
    #[error(
        "{nnz} entries are more than a {rows} x {cols} {symmetry} matrix stores ({max}): fix the entry count"
    )]
    TooManyNonZeros { nnz: String, rows: usize, cols: usize, symmetry: Symmetry, max: usize },
    /// The file ends before all the entries the size line promises.
    #[error(
        "the file ends after {found} of the {expected} entries the size line promises: \
         add the missing entries or fix the size line"
    )]
    TooFewEntries { expected: usize, found: usize },
    /// A data line beyond those the size line promises.
    #[error("an entry beyond the {expected} the size line promises: remove it or fix the size line")]
    TooManyEntries { expected: usize },
    /// A data line ends early (`what`: `"column index"` or `"value"`).
    #[error("the line ends before its {what}: a {format} data line is `{}`", format.data_line())]
    MissingToken { what: &'static str, format: Format },
    /// A data line goes on after its value.
    #[error("unexpected `{token}` after the value: a {format} data line is `{}`", format.data_line())]
    ExtraToken { token: String, format: Format },
    /// An index is not written as digits.
    #[error("{axis} index `{token}` is not a whole number: write indices as 1-based digits, like `1`")]
    BadIndex { axis: Axis, token: String },
    /// An index is 0 or past the dimension.
    #[error(
        "{axis} index {index} is outside 1..={max}: indices are 1-based and within the size line's {axis} count"
    )]
    IndexOutOfRange { axis: Axis, index: String, max: usize },
    /// A value is not a number.
    #[error("`{token}` is not a number: write values like `1`, `-2.5e-3` or `1E+2`")]
    BadNumber { token: String },
    /// A value of an `integer` file is not an integer.
    #[error(
        "`{token}` is not an integer, as an `integer` file needs: write digits or declare the field `real`"
    )]
    NotInteger { token: String },
    /// A value is NaN or infinite (or overflows `f64`).
    #[error("value `{token}` is not finite: operator values must be finite numbers")]
    NonFinite { token: String },
    /// A symmetric or skew-symmetric file has an entry above the diagonal.
    #[error(
        "entry ({row}, {col}) is above the diagonal: a {symmetry} file stores only entries with \
         row {} column, the rest is mirrored",
        if *symmetry == Symmetry::SkewSymmetric { ">" } else { ">=" }
    )]
    AboveDiagonal { row: usize, col: usize, symmetry: Symmetry },
    /// A skew-symmetric file has a diagonal entry.
    #[error(
        "entry ({row}, {row}) is on the diagonal: a skew-symmetric file stores only entries below it \
         (row > column), its diagonal is zero"
    )]
    SkewDiagonal { row: usize },
    /// A coordinate file lists an entry twice.
    #[error("entry ({row}, {col}) is listed again, first on line {first_line}: list each entry once")]
    Duplicate { row: usize, col: usize, first_line: usize },
    /// The values do not make an operator (the reader's checks rule this
    /// out; kept so that no input can panic).
    #[error("{0}")]
    Operator(OperatorError),
}

impl MtxError {
    fn new(line: usize, kind: MtxErrorKind) -> MtxError {
        MtxError { line, kind }
    }
}

/// The element type a header declares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Real,
    Integer,
}

/// A parsed header line.
struct Header {
    format: Format,
    field: Field,
    symmetry: Symmetry,
}

/// Reads a Matrix Market file (see the [module](self) documentation).
pub fn parse(text: &str) -> Result<Operator, MtxError> {
    let has_line = !text.is_empty();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(MtxError::new(usize::from(has_line), MtxErrorKind::Empty));
    }
    // The line a missing line is reported on: the one after the last.
    let end = text.lines().count() + 1;
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
    let first = lines.next().map_or("", |(_, line)| line);
    let header = parse_header(first).map_err(|kind| MtxError::new(1, kind))?;
    let mut content = lines.filter(|(_, line)| {
        let line = line.trim_start();
        !line.is_empty() && !line.starts_with('%')
    });
    let Some((size_at, size_line)) = content.next() else {
        return Err(MtxError::new(end, MtxErrorKind::MissingSize { format: header.format }));
    };
    let (rows, cols, expected) =
        parse_size(size_line, &header).map_err(|kind| MtxError::new(size_at, kind))?;

    // Grows with the lines present, never with a size from the file.
    let mut entries: Vec<(usize, usize, f64)> = Vec::new();
    let mut first_seen: HashMap<(usize, usize), usize> = HashMap::new();
    let mut column = 0;
    let mut row = header.symmetry.first_row(0);
    for (at, line) in content {
        if entries.len() == expected {
            return Err(MtxError::new(at, MtxErrorKind::TooManyEntries { expected }));
        }
        let entry = match header.format {
            Format::Coordinate => parse_coordinate(line, &header, rows, cols),
            Format::Array => parse_array(line, &header).map(|v| (row, column, v)),
        }
        .map_err(|kind| MtxError::new(at, kind))?;
        if header.format == Format::Array {
            row += 1;
            if row == rows {
                column += 1;
                row = header.symmetry.first_row(column);
            }
        } else if let Some(&first_line) = first_seen.get(&(entry.0, entry.1)) {
            let (row, col) = (entry.0 + 1, entry.1 + 1);
            return Err(MtxError::new(at, MtxErrorKind::Duplicate { row, col, first_line }));
        } else {
            first_seen.insert((entry.0, entry.1), at);
        }
        entries.push(entry);
    }
    if entries.len() < expected {
        return Err(MtxError::new(end, MtxErrorKind::TooFewEntries { expected, found: entries.len() }));
    }

    // rows and cols are checked against MAX_DIM by now.
    let mut values = vec![0.0; rows * cols];
    for (i, j, v) in entries {
        values[i * cols + j] = v;
        match header.symmetry {
            Symmetry::General => {}
            Symmetry::Symmetric => values[j * cols + i] = v,
            Symmetry::SkewSymmetric => values[j * cols + i] = -v,
        }
    }
    Operator::from_row_major(rows, cols, values)
        .map_err(|e| MtxError::new(size_at, MtxErrorKind::Operator(e)))
}

/// The header line's format, field and symmetry.
fn parse_header(line: &str) -> Result<Header, MtxErrorKind> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if !words.first().is_some_and(|w| w.eq_ignore_ascii_case("%%MatrixMarket")) {
        return Err(MtxErrorKind::MissingHeader { found: line.trim().chars().take(60).collect() });
    }
    let [_, object, format, field, symmetry] = words[..] else {
        return Err(MtxErrorKind::HeaderWords { found: words.len() });
    };
    if !object.eq_ignore_ascii_case("matrix") {
        return Err(MtxErrorKind::UnsupportedObject { object: object.to_string() });
    }
    let format = match format.to_ascii_lowercase().as_str() {
        "coordinate" => Format::Coordinate,
        "array" => Format::Array,
        _ => return Err(MtxErrorKind::UnknownFormat { format: format.to_string() }),
    };
    let field = match field.to_ascii_lowercase().as_str() {
        "real" | "double" => Field::Real,
        "integer" => Field::Integer,
        "complex" | "pattern" => return Err(MtxErrorKind::UnsupportedField { field: field.to_string() }),
        _ => return Err(MtxErrorKind::UnknownField { field: field.to_string() }),
    };
    let symmetry = match symmetry.to_ascii_lowercase().as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        "hermitian" => {
            return Err(MtxErrorKind::UnsupportedSymmetry { symmetry: symmetry.to_string() });
        }
        _ => return Err(MtxErrorKind::UnknownSymmetry { symmetry: symmetry.to_string() }),
    };
    Ok(Header { format, field, symmetry })
}

/// The size line's `(rows, cols, entries to read)`, checked.
fn parse_size(line: &str, header: &Header) -> Result<(usize, usize, usize), MtxErrorKind> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let wanted = if header.format == Format::Coordinate { 3 } else { 2 };
    if words.len() != wanted {
        return Err(MtxErrorKind::SizeWords { format: header.format, found: words.len() });
    }
    let dim = |axis: Axis, token: &str| match parse_count(token)? {
        Some(n) if n <= Operator::MAX_DIM => Ok(n),
        _ => Err(MtxErrorKind::TooLarge { axis, value: token.to_string(), max: Operator::MAX_DIM }),
    };
    let rows = dim(Axis::Row, words[0])?;
    let cols = dim(Axis::Column, words[1])?;
    if rows == 0 || cols == 0 {
        return Err(MtxErrorKind::ZeroSize { rows, cols });
    }
    let symmetry = header.symmetry;
    if symmetry != Symmetry::General && rows != cols {
        return Err(MtxErrorKind::NotSquare { symmetry, rows, cols });
    }
    let max = symmetry.stored(rows, cols);
    let Some(&nnz) = words.get(2) else {
        return Ok((rows, cols, max));
    };
    match parse_count(nnz)? {
        Some(n) if n <= max => Ok((rows, cols, n)),
        _ => Err(MtxErrorKind::TooManyNonZeros { nnz: nnz.to_string(), rows, cols, symmetry, max }),
    }
}

/// A size written as digits; `None` when it overflows `usize`.
fn parse_count(token: &str) -> Result<Option<usize>, MtxErrorKind> {
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return Err(MtxErrorKind::BadSize { token: token.to_string() });
    }
    Ok(token.parse().ok())
}

/// A coordinate data line: `(row, col, value)`, 0-based, checked against
/// the shape and the symmetry.
fn parse_coordinate(
    line: &str,
    header: &Header,
    rows: usize,
    cols: usize,
) -> Result<(usize, usize, f64), MtxErrorKind> {
    let format = Format::Coordinate;
    let mut tokens = line.split_whitespace();
    let mut next = |what| tokens.next().ok_or(MtxErrorKind::MissingToken { what, format });
    let i = parse_index(next("row index")?, Axis::Row, rows)?;
    let j = parse_index(next("column index")?, Axis::Column, cols)?;
    let v = parse_value(next("value")?, header.field)?;
    if let Some(token) = tokens.next() {
        return Err(MtxErrorKind::ExtraToken { token: token.to_string(), format });
    }
    let (row, col) = (i + 1, j + 1);
    match header.symmetry {
        Symmetry::General => {}
        symmetry if i < j => return Err(MtxErrorKind::AboveDiagonal { row, col, symmetry }),
        Symmetry::SkewSymmetric if i == j => return Err(MtxErrorKind::SkewDiagonal { row }),
        _ => {}
    }
    Ok((i, j, v))
}

/// An array data line's value.
fn parse_array(line: &str, header: &Header) -> Result<f64, MtxErrorKind> {
    let mut tokens = line.split_whitespace();
    let value = tokens.next().ok_or(MtxErrorKind::MissingToken { what: "value", format: Format::Array })?;
    let v = parse_value(value, header.field)?;
    if let Some(token) = tokens.next() {
        return Err(MtxErrorKind::ExtraToken { token: token.to_string(), format: Format::Array });
    }
    Ok(v)
}

/// A 1-based index, returned 0-based.
fn parse_index(token: &str, axis: Axis, max: usize) -> Result<usize, MtxErrorKind> {
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return Err(MtxErrorKind::BadIndex { axis, token: token.to_string() });
    }
    match token.parse::<usize>() {
        Ok(i) if (1..=max).contains(&i) => Ok(i - 1),
        _ => Err(MtxErrorKind::IndexOutOfRange { axis, index: token.to_string(), max }),
    }
}

/// A finite value (an integer one for an `integer` file).
fn parse_value(token: &str, field: Field) -> Result<f64, MtxErrorKind> {
    if field == Field::Integer {
        let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(MtxErrorKind::NotInteger { token: token.to_string() });
        }
    }
    let v: f64 = token.parse().map_err(|_| MtxErrorKind::BadNumber { token: token.to_string() })?;
    if !v.is_finite() {
        return Err(MtxErrorKind::NonFinite { token: token.to_string() });
    }
    Ok(v)
}

/// An `f64` written in the fewest digits that read back to its bits:
/// positional when that is short, scientific otherwise.
struct Exact(f64);

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v == 0.0 || (1e-5..1e16).contains(&v.abs()) { write!(f, "{v}") } else { write!(f, "{v:e}") }
    }
}

/// `a` as a `coordinate real general` file: the entries that are not zero,
/// column-major (a `-0.0` is listed too, so that [`parse`] returns every
/// bit of `a`).
pub fn write_coordinate(a: &Operator) -> String {
    let (rows, cols) = (a.rows(), a.cols());
    let listed = |v: f64| v != 0.0 || v.is_sign_negative();
    let nnz = a.values().iter().filter(|&&v| listed(v)).count();
    let mut out = String::with_capacity(64 + 32 * nnz);
    out.push_str("%%MatrixMarket matrix coordinate real general\n");
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{rows} {cols} {nnz}");
    for j in 0..cols {
        for i in 0..rows {
            let v = a.values()[i * cols + j];
            if listed(v) {
                let _ = writeln!(out, "{} {} {}", i + 1, j + 1, Exact(v));
            }
        }
    }
    out
}

/// `a` as an `array real general` file: every entry, column-major.
pub fn write_array(a: &Operator) -> String {
    let (rows, cols) = (a.rows(), a.cols());
    let mut out = String::with_capacity(64 + 24 * rows * cols);
    out.push_str("%%MatrixMarket matrix array real general\n");
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{rows} {cols}");
    for j in 0..cols {
        for i in 0..rows {
            let _ = writeln!(out, "{}", Exact(a.values()[i * cols + j]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use MtxErrorKind as K;

    /// `text` parsed, its values row-major.
    fn ok(text: &str) -> (usize, usize, Vec<f64>) {
        let a = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        (a.rows(), a.cols(), a.values().to_vec())
    }

    /// `text`'s error, checked to be on `line` and to say so.
    fn err(text: &str, line: usize) -> MtxErrorKind {
        let e = parse(text).expect_err(text);
        assert_eq!(e.line, line, "{e}\n{text}");
        let shown = e.to_string();
        assert!(shown.starts_with(&format!("line {line}: ")), "{shown}");
        let message = shown.split_once(": ").map_or("", |(_, m)| m);
        assert!(message.starts_with(|c: char| !c.is_uppercase()) && !message.ends_with('.'), "{shown}");
        e.kind
    }

    const COO: &str = "%%MatrixMarket matrix coordinate real general\n";
    const ARR: &str = "%%MatrixMarket matrix array real general\n";

    #[test]
    fn each_format_field_and_symmetry_reads() {
        let coo = format!("{COO}% a comment\n2 3 3\n1 1 1\n2 3 -2.5e-3\n1 2 1E+2\n");
        assert_eq!(ok(&coo), (2, 3, vec![1.0, 100.0, 0.0, 0.0, 0.0, -2.5e-3]));
        let double = "%%MatrixMarket matrix coordinate double general\n1 2 1\n1 2 .5\n";
        assert_eq!(ok(double), (1, 2, vec![0.0, 0.5]));
        let int = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n2 1 -7\n1 1 +3\n";
        assert_eq!(ok(int), (2, 2, vec![3.0, 0.0, -7.0, 0.0]));
        let arr = format!("{ARR}2 3\n1\n2\n3\n4\n5\n6\n");
        assert_eq!(ok(&arr), (2, 3, vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0]));
        let arr_int = "%%MatrixMarket matrix array integer general\n1 2\n-1\n9\n";
        assert_eq!(ok(arr_int), (1, 2, vec![-1.0, 9.0]));
        let sym = "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 2 3\n3 3 4\n";
        assert_eq!(ok(sym), (3, 3, vec![1.0, 2.0, 0.0, 2.0, 0.0, 3.0, 0.0, 3.0, 4.0]));
        let skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 2\n3 2 3\n";
        assert_eq!(ok(skew), (3, 3, vec![0.0, -2.0, 0.0, 2.0, 0.0, -3.0, 0.0, 3.0, 0.0]));
        let arr_sym = "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n";
        assert_eq!(ok(arr_sym), (2, 2, vec![1.0, 2.0, 2.0, 3.0]));
        let arr_skew = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n";
        assert_eq!(ok(arr_skew), (3, 3, vec![0.0, -1.0, -2.0, 1.0, 0.0, -3.0, 2.0, 3.0, 0.0]));
        let one_skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n";
        assert_eq!(ok(one_skew), (1, 1, vec![0.0]));
        let shouty = "%%matrixmarket MATRIX Coordinate REAL General\n1 1 1\n1 1 0\n";
        assert_eq!(ok(shouty), (1, 1, vec![0.0]));
        assert_eq!(ok(&format!("{COO}2 2 0\n")), (2, 2, vec![0.0; 4]));
    }

    #[test]
    fn line_endings_whitespace_and_comments_are_accepted() {
        let crlf =
            "%%MatrixMarket matrix coordinate real general\r\n% c\r\n2 2 2  \r\n1 1 1\t\r\n\r\n2 2 2\r\n";
        assert_eq!(ok(crlf), (2, 2, vec![1.0, 0.0, 0.0, 2.0]));
        let commented = format!("{ARR}%c\n\n 2 1 \n% between\n  1.5  \n%\n\n-0\n% after\n\n");
        let (_, _, v) = ok(&commented);
        assert_eq!((v[0], v[1].to_bits()), (1.5, (-0.0f64).to_bits()));
        assert_eq!(ok(&format!("\u{feff}{COO}1 1 1\n1 1 4")), (1, 1, vec![4.0]));
    }

    #[test]
    fn a_bad_header_names_line_one() {
        assert_eq!(parse("").unwrap_err(), MtxError { line: 0, kind: K::Empty });
        assert_eq!(err(" \n\n", 1), K::Empty);
        assert_eq!(err("\u{feff}", 1), K::Empty);
        assert_eq!(err("2 2 1\n", 1), K::MissingHeader { found: "2 2 1".into() });
        assert_eq!(
            err("%MatrixMarket matrix array real general\n1 1\n1\n", 1),
            K::MissingHeader { found: "%MatrixMarket matrix array real general".into() }
        );
        assert_eq!(err("%%MatrixMarket matrix array real\n1 1\n1\n", 1), K::HeaderWords { found: 4 });
        assert_eq!(
            err("%%MatrixMarket vector array real general\n", 1),
            K::UnsupportedObject { object: "vector".into() }
        );
        assert_eq!(
            err("%%MatrixMarket matrix dense real general\n", 1),
            K::UnknownFormat { format: "dense".into() }
        );
        assert_eq!(
            err("%%MatrixMarket matrix array float general\n", 1),
            K::UnknownField { field: "float".into() }
        );
        for field in ["complex", "Pattern"] {
            let text = format!("%%MatrixMarket matrix coordinate {field} general\n1 1 1\n1 1\n");
            assert_eq!(err(&text, 1), K::UnsupportedField { field: field.into() });
        }
        assert_eq!(
            err("%%MatrixMarket matrix array real upper\n", 1),
            K::UnknownSymmetry { symmetry: "upper".into() }
        );
        assert_eq!(
            err("%%MatrixMarket matrix array real hermitian\n", 1),
            K::UnsupportedSymmetry { symmetry: "hermitian".into() }
        );
    }

    #[test]
    fn a_bad_size_line_is_named() {
        assert_eq!(
            err(&format!("{COO}% only comments\n\n"), 4),
            K::MissingSize { format: Format::Coordinate }
        );
        assert_eq!(err(ARR, 2), K::MissingSize { format: Format::Array });
        assert_eq!(err(&format!("{COO}%\n2 2\n"), 3), K::SizeWords { format: Format::Coordinate, found: 2 });
        assert_eq!(err(&format!("{ARR}2 2 4\n"), 2), K::SizeWords { format: Format::Array, found: 3 });
        assert_eq!(err(&format!("{ARR}2 -2\n"), 2), K::BadSize { token: "-2".into() });
        assert_eq!(err(&format!("{COO}2 2 x\n"), 2), K::BadSize { token: "x".into() });
        let max = Operator::MAX_DIM;
        assert_eq!(
            err(&format!("{ARR}4097 1\n"), 2),
            K::TooLarge { axis: Axis::Row, value: "4097".into(), max }
        );
        let huge = "99999999999999999999999999";
        assert_eq!(
            err(&format!("{COO}1 {huge} 1\n"), 2),
            K::TooLarge { axis: Axis::Column, value: huge.into(), max }
        );
        assert!(err(&format!("{ARR}5000 1\n"), 2).to_string().contains("limit of 4096"));
        assert_eq!(err(&format!("{ARR}0 3\n"), 2), K::ZeroSize { rows: 0, cols: 3 });
        let sym = "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n";
        assert_eq!(err(sym, 2), K::NotSquare { symmetry: Symmetry::Symmetric, rows: 2, cols: 3 });
        let over =
            K::TooManyNonZeros { nnz: "5".into(), rows: 2, cols: 2, symmetry: Symmetry::General, max: 4 };
        assert_eq!(err(&format!("{COO}2 2 5\n"), 2), over);
        let skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n%\n3 3 4\n";
        let over = K::TooManyNonZeros {
            nnz: "4".into(),
            rows: 3,
            cols: 3,
            symmetry: Symmetry::SkewSymmetric,
            max: 3,
        };
        assert_eq!(err(skew, 3), over);
        assert!(matches!(err(&format!("{COO}1 1 {huge}\n"), 2), K::TooManyNonZeros { max: 1, .. }));
    }

    #[test]
    fn a_bad_data_line_is_named() {
        let few = K::TooFewEntries { expected: 3, found: 2 };
        assert_eq!(err(&format!("{COO}2 2 3\n1 1 1\n2 2 1\n"), 5), few);
        assert_eq!(err(&format!("{ARR}2 1\n1\n% c"), 5), K::TooFewEntries { expected: 2, found: 1 });
        assert_eq!(err(&format!("{ARR}1 1\n1\n%\n2\n3\n"), 5), K::TooManyEntries { expected: 1 });
        assert_eq!(err(&format!("{COO}1 1 0\n1 1 1\n"), 3), K::TooManyEntries { expected: 0 });
        let coo = Format::Coordinate;
        assert_eq!(
            err(&format!("{COO}2 2 1\n1\n"), 3),
            K::MissingToken { what: "column index", format: coo }
        );
        assert_eq!(err(&format!("{COO}2 2 1\n1 2\n"), 3), K::MissingToken { what: "value", format: coo });
        assert_eq!(
            err(&format!("{COO}2 2 1\n1 2 3 4\n"), 3),
            K::ExtraToken { token: "4".into(), format: coo }
        );
        let arr = Format::Array;
        assert_eq!(err(&format!("{ARR}1 2\n1\n2 3\n"), 4), K::ExtraToken { token: "3".into(), format: arr });
        assert_eq!(
            err(&format!("{COO}2 2 1\n1.0 2 3\n"), 3),
            K::BadIndex { axis: Axis::Row, token: "1.0".into() }
        );
        assert_eq!(
            err(&format!("{COO}2 2 1\n1 -1 3\n"), 3),
            K::BadIndex { axis: Axis::Column, token: "-1".into() }
        );
        let out = K::IndexOutOfRange { axis: Axis::Row, index: "3".into(), max: 2 };
        assert_eq!(err(&format!("{COO}2 2 1\n3 1 1\n"), 3), out);
        let zero = K::IndexOutOfRange { axis: Axis::Column, index: "0".into(), max: 4 };
        assert_eq!(err(&format!("{COO}2 4 1\n1 0 1\n"), 3), zero);
        let huge = "184467440737095516160";
        assert!(matches!(
            err(&format!("{COO}2 2 1\n{huge} 1 1\n"), 3),
            K::IndexOutOfRange { axis: Axis::Row, max: 2, .. }
        ));
        assert!(err(&format!("{COO}2 2 1\n3 1 1\n"), 3).to_string().contains("row index 3 is outside 1..=2"));
        assert_eq!(err(&format!("{ARR}1 1\n1,5\n"), 3), K::BadNumber { token: "1,5".into() });
        assert_eq!(err(&format!("{COO}1 1 1\n1 1 x\n"), 3), K::BadNumber { token: "x".into() });
        let int = "%%MatrixMarket matrix array integer general\n1 2\n1\n2.5\n";
        assert_eq!(err(int, 4), K::NotInteger { token: "2.5".into() });
        for token in ["NaN", "inf", "-Infinity", "1e400"] {
            assert_eq!(err(&format!("{ARR}1 2\n1\n{token}\n"), 4), K::NonFinite { token: token.into() });
        }
        let big_int = format!("%%MatrixMarket matrix array integer general\n1 1\n{}\n", "9".repeat(400));
        assert!(matches!(err(&big_int, 3), K::NonFinite { .. }));
    }

    #[test]
    fn symmetry_and_duplicates_are_checked() {
        let sym = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n1 2 1\n";
        assert_eq!(err(sym, 4), K::AboveDiagonal { row: 1, col: 2, symmetry: Symmetry::Symmetric });
        let skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 3 1\n";
        assert_eq!(err(skew, 4), K::AboveDiagonal { row: 2, col: 3, symmetry: Symmetry::SkewSymmetric });
        let diag = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n%\n2 2 1\n";
        assert_eq!(err(diag, 4), K::SkewDiagonal { row: 2 });
        let dup = format!("{COO}2 2 3\n1 2 1\n% c\n2 2 1\n1 2 5\n");
        assert_eq!(err(&dup, 6), K::Duplicate { row: 1, col: 2, first_line: 3 });
        assert!(err(&dup, 6).to_string().contains("first on line 3"));
        let sym_array_short = "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n";
        assert_eq!(err(sym_array_short, 5), K::TooFewEntries { expected: 3, found: 2 });
    }

    /// Operators whose every bit must survive a write and a read.
    fn awkward() -> Vec<Operator> {
        let odd = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1.0 / 3.0,
            -2.5e-3,
            5e-324,
            -f64::MIN_POSITIVE / 3.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            1e16,
            f64::from_bits(1e16f64.to_bits() - 1),
            1e-5,
            f64::from_bits(1e-5f64.to_bits() - 1),
            123456789.125,
            -1e300,
        ];
        vec![
            Operator::from_row_major(3, 6, odd.to_vec()).unwrap(),
            Operator::from_row_major(6, 3, odd.to_vec()).unwrap(),
            Operator::from_row_major(1, 1, vec![0.0]).unwrap(),
            Operator::from_row_major(1, 1, vec![-0.0]).unwrap(),
            Operator::from_fn(4, 5, |i, j| if (i + j) % 3 == 0 { 0.0 } else { (i as f64 - j as f64) / 7.0 })
                .unwrap(),
        ]
    }

    fn bits(a: &Operator) -> Vec<u64> {
        a.values().iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn writers_round_trip_every_bit() {
        for a in awkward() {
            for text in [write_coordinate(&a), write_array(&a)] {
                let b = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(b, a, "{text}");
                assert_eq!((b.rows(), b.cols(), bits(&b)), (a.rows(), a.cols(), bits(&a)), "{text}");
            }
        }
    }

    #[test]
    fn writers_write_the_documented_layout() {
        let a = Operator::from_row_major(2, 3, vec![1.0, 0.0, -0.0, 0.0, 2.5, 1e300]).unwrap();
        let coo = "%%MatrixMarket matrix coordinate real general\n2 3 4\n1 1 1\n2 2 2.5\n1 3 -0\n2 3 1e300\n";
        assert_eq!(write_coordinate(&a), coo);
        let arr = "%%MatrixMarket matrix array real general\n2 3\n1\n0\n0\n2.5\n-0\n1e300\n";
        assert_eq!(write_array(&a), arr);
    }
}
