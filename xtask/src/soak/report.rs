//! What `cargo xtask soak` counts and writes: the running [`Totals`], one
//! [`Sample`] per interval (a row of `soak.csv`), the host's resident set
//! (`/proc/self/statm`) and heap in use (`mallinfo2`), the device's used
//! memory (`cuMemGetInfo`), and the closing summary.

use std::fmt::Write as _;

use gemm_host::{Gemm, Precision};

use super::call::Form;
use super::exec::{Done, Reference, Verdict};

/// Everything the workers have done so far.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Calls made.
    pub calls: u64,
    /// Floating-point operations of ours, in GFLOP.
    pub gflop: f64,
    /// Calls that failed a check.
    pub mismatches: u64,
    /// Calls that failed to run (a GEMM, copy or allocation error).
    pub errors: u64,
    /// Calls by precision (S, D, C, Z).
    pub by_precision: [u64; 4],
    /// Calls by form: default dispatch, strided batch, explicit split K.
    pub by_form: [u64; 3],
    /// Calls checked against cuBLAS (too large for the whole `f64` reference).
    pub against_cublas: u64,
    /// Calls on which cuBLAS's own C was outside the tolerance.
    pub cublas_outside: u64,
}

impl Totals {
    /// Counts one finished call of `precision` and `form`.
    pub fn add(&mut self, precision: Precision, form: Form, done: &Done) {
        self.calls += 1;
        self.gflop += done.flops / 1e9;
        match done.verdict {
            Verdict::Pass => {}
            Verdict::Mismatch(_) => self.mismatches += 1,
            Verdict::Error(_) => self.errors += 1,
        }
        let p = Precision::ALL.iter().position(|&q| q == precision).unwrap_or(0);
        self.by_precision[p] += 1;
        self.by_form[match form {
            Form::Plain => 0,
            Form::Batch { .. } => 1,
            Form::Split { .. } => 2,
        }] += 1;
        self.against_cublas += u64::from(done.reference == Reference::Cublas);
        self.cublas_outside += u64::from(done.cublas_outside);
    }
}

/// Memory in use: the process's resident set and the device's used memory
/// (all processes'), in bytes; `None` where it could not be read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident set size of this process.
    pub rss: Option<u64>,
    /// Device memory in use (total − free).
    pub device_used: Option<u64>,
    /// Heap bytes allocated and not freed (glibc's `mallinfo2`: `uordblks`
    /// of every arena plus `hblkhd`, the blocks mapped on their own).
    pub heap: Option<u64>,
}

impl Memory {
    /// Reads both now (the device's through `gemm`'s context). The
    /// allocator first gives back the free memory it keeps
    /// (`malloc_trim`), so the resident set is what the process holds, not
    /// what glibc keeps for the next large call.
    pub fn now(gemm: &Gemm) -> Memory {
        // SAFETY: malloc_trim only returns free heap pages to the system.
        unsafe { libc::malloc_trim(0) };
        let rss = std::fs::read_to_string("/proc/self/statm").ok().and_then(|s| rss_bytes(&s, page_size()));
        let device_used =
            gemm.context().mem_get_info().ok().map(|(free, total)| total.saturating_sub(free) as u64);
        Memory { rss, device_used, heap: heap_in_use() }
    }
}

/// The resident set in bytes from `/proc/self/statm`'s text (its second
/// field counts pages of `page` bytes).
pub fn rss_bytes(statm: &str, page: u64) -> Option<u64> {
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    pages.checked_mul(page)
}

/// Heap bytes in use, from glibc's allocator statistics.
fn heap_in_use() -> Option<u64> {
    // SAFETY: mallinfo2 only reads the allocator's counters (it takes each
    // arena's lock).
    let info = unsafe { libc::mallinfo2() };
    u64::try_from(info.uordblks).ok()?.checked_add(u64::try_from(info.hblkhd).ok()?)
}

/// The system's page size in bytes.
fn page_size() -> u64 {
    // SAFETY: `sysconf` only reads a configuration value; `_SC_PAGESIZE`
    // is a valid name on every Unix.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
}

/// One row of `soak.csv`: where the run stood after `minutes`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Minutes since the workers started.
    pub minutes: f64,
    /// Calls so far.
    pub calls: u64,
    /// GFLOP so far.
    pub gflop: f64,
    /// Mismatches so far.
    pub mismatches: u64,
    /// Errors so far.
    pub errors: u64,
    /// Memory in use now.
    pub memory: Memory,
}

impl Sample {
    /// The sample of `totals` and `memory` at `minutes`.
    pub fn of(minutes: f64, totals: &Totals, memory: Memory) -> Sample {
        Sample {
            minutes,
            calls: totals.calls,
            gflop: totals.gflop,
            mismatches: totals.mismatches,
            errors: totals.errors,
            memory,
        }
    }
}

/// `soak.csv`'s header.
pub const CSV_HEADER: &str = "minutes,calls,gflop,mismatches,rss_mib,device_used_mib,errors,heap_mib";

/// Bytes in MiB, to one decimal; empty when unknown.
fn mib(bytes: Option<u64>) -> String {
    bytes.map_or(String::new(), |b| format!("{:.1}", b as f64 / (1u64 << 20) as f64))
}

/// `samples` as CSV, one row per sample after the header.
pub fn csv(samples: &[Sample]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for s in samples {
        let _ = writeln!(
            out,
            "{:.2},{},{:.1},{},{},{},{},{}",
            s.minutes,
            s.calls,
            s.gflop,
            s.mismatches,
            mib(s.memory.rss),
            mib(s.memory.device_used),
            s.errors,
            mib(s.memory.heap)
        );
    }
    out
}

/// A progress line for `sample`.
pub fn progress(sample: &Sample) -> String {
    format!(
        "{:>7.2} min  {:>8} calls  {:>12.1} GFLOP  {} mismatches  {} errors  rss {} MiB  heap {} MiB  device {} MiB",
        sample.minutes,
        sample.calls,
        sample.gflop,
        sample.mismatches,
        sample.errors,
        mib(sample.memory.rss),
        mib(sample.memory.heap),
        mib(sample.memory.device_used)
    )
}

/// `b − a` in MiB with its sign, or "unknown".
fn growth(a: Option<u64>, b: Option<u64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:+.1}", (b as f64 - a as f64) / (1u64 << 20) as f64),
        _ => "unknown".to_owned(),
    }
}

/// One memory's line of the summary: `what` read at the start and after
/// each pass (`at`), with what each pass added.
fn memory_line(what: &str, at: &[Option<u64>]) -> String {
    let shown = |b: Option<u64>| if b.is_some() { mib(b) } else { "unknown".to_owned() };
    let mut line = format!("  {what} (MiB): {} at start", shown(at[0]));
    for (pass, w) in at.windows(2).enumerate() {
        let _ = write!(line, ", {} after pass {} ({})", shown(w[1]), pass + 1, growth(w[0], w[1]));
    }
    line
}

/// The closing summary: totals, the mix of calls, and memory read at the
/// start and after each pass (`memory`), with what each pass added.
pub fn summary(totals: &Totals, seconds: f64, memory: &[Memory]) -> String {
    let [s, d, c, z] = totals.by_precision;
    let [plain, batch, split] = totals.by_form;
    let mut out = format!(
        "soak: {} calls in {:.1} min ({:.1} calls/s), {:.1} GFLOP of ours; {} mismatches, {} errors\n",
        totals.calls,
        seconds / 60.0,
        totals.calls as f64 / seconds.max(1e-9),
        totals.gflop,
        totals.mismatches,
        totals.errors
    );
    let _ = writeln!(
        out,
        "  calls: s {s}, d {d}, c {c}, z {z}; default dispatch {plain}, strided batch {batch}, split K {split}; \
         {} checked against cuBLAS (sampled f64 columns), the rest against the whole f64 reference",
        totals.against_cublas
    );
    if totals.cublas_outside > 0 {
        let _ = writeln!(
            out,
            "  note: cuBLAS's own C was outside the tolerance on {} call(s)",
            totals.cublas_outside
        );
    }
    let read = |f: fn(&Memory) -> Option<u64>| memory.iter().map(f).collect::<Vec<_>>();
    if !memory.is_empty() {
        let _ = writeln!(out, "{}", memory_line("host RSS", &read(|m| m.rss)));
        let _ = writeln!(out, "{}", memory_line("host heap in use", &read(|m| m.heap)));
        let _ = writeln!(out, "{}", memory_line("device used", &read(|m| m.device_used)));
    }
    if memory.len() > 2 {
        let _ =
            writeln!(out, "  (passes 2 on make pass 1's calls again: what they add, no first use explains)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(verdict: Verdict, reference: Reference) -> Done {
        Done { flops: 2e9, reference, verdict, cublas_outside: false }
    }

    #[test]
    fn reads_the_resident_set_from_statm() {
        assert_eq!(rss_bytes("1186 263 205 6 0 123 0\n", 4096), Some(263 * 4096));
        assert_eq!(rss_bytes("1186", 4096), None);
        assert_eq!(rss_bytes("1186 x 205", 4096), None);
        let own = std::fs::read_to_string("/proc/self/statm").unwrap();
        assert!(rss_bytes(&own, page_size()).unwrap() > 1 << 20);
    }

    #[test]
    fn totals_count_each_verdict_and_kind() {
        let mut t = Totals::default();
        t.add(Precision::F64, Form::Plain, &done(Verdict::Pass, Reference::F64));
        t.add(
            Precision::C64,
            Form::Split { slices: 3 },
            &done(Verdict::Mismatch("x".into()), Reference::Cublas),
        );
        t.add(
            Precision::F32,
            Form::Batch { count: 2, shared_a: true },
            &done(Verdict::Error("y".into()), Reference::F64),
        );
        assert_eq!((t.calls, t.mismatches, t.errors, t.against_cublas), (3, 1, 1, 1));
        assert_eq!((t.by_precision, t.by_form), ([1, 1, 0, 1], [1, 1, 1]));
        assert!((t.gflop - 6.0).abs() < 1e-12);
    }

    #[test]
    fn csv_and_summary_show_memory_and_its_growth() {
        let mut t = Totals::default();
        t.add(Precision::F32, Form::Plain, &done(Verdict::Pass, Reference::F64));
        let start = Memory { rss: Some(100 << 20), device_used: Some(1 << 30), heap: Some(10 << 20) };
        let end = Memory { rss: Some(150 << 20), device_used: None, heap: Some(12 << 20) };
        let rows = [Sample::of(0.0, &Totals::default(), start), Sample::of(1.5, &t, end)];
        let text = csv(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, [CSV_HEADER, "0.00,0,0.0,0,100.0,1024.0,0,10.0", "1.50,1,2.0,0,150.0,,0,12.0"]);
        let s = summary(&t, 90.0, &[start, end]);
        assert!(s.contains("1 calls in 1.5 min"), "{s}");
        assert!(s.contains("host RSS (MiB): 100.0 at start, 150.0 after pass 1 (+50.0)\n"), "{s}");
        assert!(s.contains("host heap in use (MiB): 10.0 at start, 12.0 after pass 1 (+2.0)\n"), "{s}");
        assert!(s.contains("device used (MiB): 1024.0 at start, unknown after pass 1 (unknown)\n"), "{s}");
        assert!(!s.contains("passes 2 on"), "{s}");
        let again = Memory { rss: Some(149 << 20), device_used: Some(1 << 30), heap: Some(12 << 20) };
        let s = summary(&t, 90.0, &[start, end, again]);
        assert!(s.contains("150.0 after pass 1 (+50.0), 149.0 after pass 2 (-1.0)\n"), "{s}");
        assert!(s.contains("unknown after pass 1 (unknown), 1024.0 after pass 2 (unknown)\n"), "{s}");
        assert!(s.contains("passes 2 on make pass 1's calls again"), "{s}");
        assert!(progress(&rows[1]).contains("1 calls"));
        assert!(heap_in_use().is_some_and(|h| h > 0));
    }
}
