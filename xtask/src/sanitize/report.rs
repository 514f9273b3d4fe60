//! What one compute-sanitizer run printed, read back, and what the task
//! writes of it: the tool's summary lines (`ERROR SUMMARY`, `RACECHECK
//! SUMMARY`, `LEAK SUMMARY`) and the workload's last line
//! ([`workload::Line`]) in [`Findings`]; the run's verdict
//! ([`Outcome::problems`]), its row of `sanitize.csv` and the summary table.
//!
//! The sanitizer prefixes its own lines with `=========`; the workload's
//! lines pass through unprefixed, in the same log.

use std::fmt::Write as _;

use super::Tool;
use super::workload::Line;
use crate::bench::csv_field;

/// `RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hazards {
    /// Hazards reported (`N`).
    pub displayed: u64,
    /// Of those, of error severity (`E`).
    pub errors: u64,
    /// Of those, warnings (`W`): hazards racecheck considers possibly benign.
    pub warnings: u64,
}

/// The counts one tool's log holds; each `None` when its line is missing
/// (summed when a line appears more than once: one per process).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// `ERROR SUMMARY: N errors` (memcheck, initcheck, synccheck).
    pub error_summary: Option<u64>,
    /// `RACECHECK SUMMARY: …` (racecheck).
    pub hazards: Option<Hazards>,
    /// `LEAK SUMMARY: B bytes leaked in A allocations` (memcheck with
    /// `--leak-check full`): bytes and allocations.
    pub leaked: Option<(u64, u64)>,
    /// The workload's last line (the last one, if several).
    pub workload: Option<Line>,
}

impl Findings {
    /// Errors the sanitizer reported: its `ERROR SUMMARY` count plus
    /// racecheck's hazards of error severity; `None` when it printed
    /// neither summary (it did not finish).
    pub fn errors(&self) -> Option<u64> {
        match (self.error_summary, self.hazards) {
            (None, None) => None,
            (e, h) => Some(e.unwrap_or(0) + h.map_or(0, |h| h.errors)),
        }
    }
}

/// Reads the summaries out of a sanitizer log (the sanitizer's and the
/// workload's lines together).
pub fn parse(log: &str) -> Findings {
    let mut found = Findings::default();
    for line in log.lines() {
        let text = line.trim_start_matches('=').trim();
        if let Some(rest) = after(text, "ERROR SUMMARY:") {
            if let [n, ..] = numbers(rest)[..] {
                *found.error_summary.get_or_insert(0) += n;
            }
        } else if let Some(rest) = after(text, "RACECHECK SUMMARY:") {
            if let [displayed, errors, warnings] = numbers(rest)[..] {
                let h = found.hazards.get_or_insert_with(Hazards::default);
                h.displayed += displayed;
                h.errors += errors;
                h.warnings += warnings;
            }
        } else if let Some(rest) = after(text, "LEAK SUMMARY:") {
            if let [bytes, allocations] = numbers(rest)[..] {
                let (b, a) = found.leaked.get_or_insert((0, 0));
                *b += bytes;
                *a += allocations;
            }
        } else if let Some(workload) = Line::parse(text) {
            found.workload = Some(workload);
        }
    }
    found
}

/// What follows `marker` in `text`, if `text` starts with it.
fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.strip_prefix(marker)
}

/// The unsigned integers in `text`, in order.
fn numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// One tool's run: what it printed, how it ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The tool.
    pub tool: Tool,
    /// The command line, shell-quoted.
    pub command: String,
    /// Its summaries.
    pub findings: Findings,
    /// Exit status of the sanitizer (the workload's: the task passes
    /// `--check-exit-code no`); `None` when it was killed.
    pub exit: Option<i32>,
    /// Whether it ran past `--timeout-minutes` and was stopped.
    pub timed_out: bool,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl Outcome {
    /// Why this run fails the task; empty when it passes: the sanitizer
    /// reported errors (racecheck: hazards of error severity), or did not
    /// print its summary, or the workload failed (a case failed its check,
    /// it stopped on an error, it was killed) or did not report itself.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.timed_out {
            out.push("stopped after --timeout-minutes".to_owned());
        }
        match self.findings.errors() {
            None => {
                out.push("no ERROR SUMMARY or RACECHECK SUMMARY: the sanitizer did not finish".to_owned())
            }
            Some(0) => {}
            Some(n) => out.push(format!("{n} sanitizer error(s)")),
        }
        match (self.exit, self.findings.workload) {
            (Some(0), Some(Line { failed: 0, .. })) => {}
            (_, Some(Line { failed, .. })) if failed > 0 => {
                out.push(format!("{failed} workload call(s) failed their check"));
            }
            (Some(0), None) => out.push("the workload printed no `workload:` line".to_owned()),
            (Some(code), _) => out.push(format!("the workload exited with status {code}")),
            (None, _) => out.push("the workload was killed".to_owned()),
        }
        out
    }
}

/// `sanitize.csv`'s header.
pub const CSV_HEADER: &str = "tool,kernels,calls,errors,hazards,seconds,command";

/// `outcomes` as CSV, one row per tool after the header; a count the log
/// did not hold is empty, `hazards` is racecheck's alone.
pub fn csv(outcomes: &[Outcome]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for o in outcomes {
        let f = &o.findings;
        let opt = |x: Option<u64>| x.map_or(String::new(), |x| x.to_string());
        let fields = [
            o.tool.name().to_owned(),
            opt(f.workload.map(|w| w.kernels as u64)),
            opt(f.workload.map(|w| w.calls as u64)),
            opt(f.errors()),
            opt(f.hazards.map(|h| h.displayed)),
            format!("{:.1}", o.seconds),
            o.command.clone(),
        ];
        let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", quoted.join(","));
    }
    out
}

/// The summary table: a row per tool, its verdict last.
pub fn table(outcomes: &[Outcome]) -> String {
    let mut out = format!(
        "{:<10} {:>8} {:>7} {:>7} {:>16} {:>18} {:>8}  verdict\n",
        "tool", "kernels", "calls", "errors", "hazards (E/W)", "leaked", "seconds"
    );
    for o in outcomes {
        let f = &o.findings;
        let dash = || "-".to_owned();
        let hazards =
            f.hazards.map_or_else(dash, |h| format!("{} ({}/{})", h.displayed, h.errors, h.warnings));
        let leaked = f.leaked.map_or_else(dash, |(b, a)| format!("{b} B in {a}"));
        let problems = o.problems();
        let verdict =
            if problems.is_empty() { "ok".to_owned() } else { format!("FAILED: {}", problems.join("; ")) };
        let _ = writeln!(
            out,
            "{:<10} {:>8} {:>7} {:>7} {:>16} {:>18} {:>8.1}  {verdict}",
            o.tool.name(),
            f.workload.map_or_else(dash, |w| w.kernels.to_string()),
            f.workload.map_or_else(dash, |w| w.calls.to_string()),
            f.errors().map_or_else(dash, |e| e.to_string()),
            hazards,
            leaked,
            o.seconds,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clean memcheck run with the leak check: the workload's output, then
    /// the sanitizer's summaries.
    const MEMCHECK_CLEAN: &str = "\
========= COMPUTE-SANITIZER
verify --gpu on NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, driver 13.0)
SgemmNN        75 cases     0 failed  worst error 2.01e-07  cuBLAS        -  gemmforge vs cuBLAS        -    41.2 s
summary: 131 kernels, 9825 cases, 0 failed, in 301.4 s; worst relative error S 2.01e-07 D 3.30e-16 C 2.84e-07 Z 4.41e-16
extras: split K, strided batch and bespoke calls: 12 calls, 0 failed
workload: 135 kernels, 9837 calls, 0 failed
========= LEAK SUMMARY: 0 bytes leaked in 0 allocations
========= ERROR SUMMARY: 0 errors
";

    /// memcheck finding an out-of-bounds read in one kernel and a leak.
    const MEMCHECK_ERRORS: &str = "\
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at gemmforge_sgemm_nn_96x96x16_16x16_a32x8_b8x32_w1_ca+0x1a70
=========     by thread (15,3,0) in block (1,0,0)
=========     Address 0x7f3a1c000184 is out of bounds
=========     and is 4 bytes after the nearest allocation at 0x7f3a1c000000 of size 384 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
========= Invalid __global__ read of size 4 bytes
=========     at gemmforge_sgemm_nn_96x96x16_16x16_a32x8_b8x32_w1_ca+0x1a70
=========     by thread (15,4,0) in block (1,0,0)
=========
    FAILED f32 column-major op=(N, N) m=97 n=95 k=17 lda=98 ldb=19 ldc=98 alpha=1.25 beta=0.0: relative error inf (tolerance 2.4e-7)
workload: 135 kernels, 9837 calls, 1 failed
========= Leaked 1024 bytes at 0x7f3a1e000000
=========     Saved host backtrace up to driver entry point at cudaMalloc time
=========
========= LEAK SUMMARY: 1024 bytes leaked in 1 allocations
========= ERROR SUMMARY: 3 errors
";

    const RACECHECK_CLEAN: &str = "\
========= COMPUTE-SANITIZER
workload: 135 kernels, 405 calls, 0 failed
========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
";

    const RACECHECK_HAZARDS: &str = "\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at gemmforge_dgemm_nn_64x64x16_16x16_a64x4_b16x16_w1_ca_s3+0x2f40
=========     and Read access at gemmforge_dgemm_nn_64x64x16_16x16_a64x4_b16x16_w1_ca_s3+0x1b20 [2048 hazards]
=========
========= Warning: Race reported between Write access at gf_bespoke_d_192x64_0123456789abcdef_cs_w1_b128_s1_c16_betar_sm80+0x460
=========     and Write access at gf_bespoke_d_192x64_0123456789abcdef_cs_w1_b128_s1_c16_betar_sm80+0x460 [32 hazards]
=========
workload: 135 kernels, 405 calls, 0 failed
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
";

    const INITCHECK_CLEAN: &str = "\
========= COMPUTE-SANITIZER
workload: 135 kernels, 9837 calls, 0 failed
========= ERROR SUMMARY: 0 errors
";

    const SYNCCHECK_ERROR: &str = "\
========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in warp
=========     at gemmforge_zgemm_tn_32x32x8_8x8_a8x32_b8x32_w1_ca+0x7e0
=========     by thread (0,1,0) in block (0,0,0)
=========
workload: 135 kernels, 9837 calls, 0 failed
========= ERROR SUMMARY: 1 error
";

    fn outcome(tool: Tool, log: &str, exit: Option<i32>) -> Outcome {
        Outcome {
            tool,
            command: "compute-sanitizer --tool x xtask verify --gpu --precision s,d".into(),
            findings: parse(log),
            exit,
            timed_out: false,
            seconds: 12.5,
        }
    }

    #[test]
    fn reads_each_tools_summaries() {
        let f = parse(MEMCHECK_CLEAN);
        assert_eq!(f.error_summary, Some(0));
        assert_eq!(f.leaked, Some((0, 0)));
        assert_eq!(f.hazards, None);
        assert_eq!(f.workload, Some(Line { kernels: 135, calls: 9837, failed: 0 }));
        assert_eq!(f.errors(), Some(0));

        let f = parse(MEMCHECK_ERRORS);
        assert_eq!((f.error_summary, f.leaked, f.errors()), (Some(3), Some((1024, 1)), Some(3)));
        assert_eq!(f.workload.map(|w| w.failed), Some(1));

        let f = parse(RACECHECK_CLEAN);
        assert_eq!(f.hazards, Some(Hazards::default()));
        assert_eq!((f.error_summary, f.errors()), (None, Some(0)));

        let f = parse(RACECHECK_HAZARDS);
        assert_eq!(f.hazards, Some(Hazards { displayed: 2, errors: 1, warnings: 1 }));
        assert_eq!(f.errors(), Some(1));

        assert_eq!(parse(INITCHECK_CLEAN).errors(), Some(0));
        assert_eq!(parse(SYNCCHECK_ERROR).errors(), Some(1));
    }

    #[test]
    fn summaries_of_several_processes_add_up_and_a_missing_one_is_none() {
        let two = format!("{INITCHECK_CLEAN}{SYNCCHECK_ERROR}{SYNCCHECK_ERROR}");
        assert_eq!(parse(&two).errors(), Some(2));
        let cut = "========= COMPUTE-SANITIZER\nSgemmNN        75 cases     0 failed\n";
        assert_eq!(parse(cut), Findings::default());
        assert_eq!(parse(cut).errors(), None);
        // A malformed summary line counts as missing, not as zero.
        assert_eq!(parse("========= RACECHECK SUMMARY: unknown\n").errors(), None);
    }

    #[test]
    fn verdicts_name_every_problem() {
        assert!(outcome(Tool::Memcheck, MEMCHECK_CLEAN, Some(0)).problems().is_empty());
        assert!(outcome(Tool::Racecheck, RACECHECK_CLEAN, Some(0)).problems().is_empty());
        assert!(outcome(Tool::Initcheck, INITCHECK_CLEAN, Some(0)).problems().is_empty());

        let p = outcome(Tool::Memcheck, MEMCHECK_ERRORS, Some(1)).problems();
        assert_eq!(p, ["3 sanitizer error(s)", "1 workload call(s) failed their check"]);
        assert_eq!(outcome(Tool::Racecheck, RACECHECK_HAZARDS, Some(0)).problems(), ["1 sanitizer error(s)"]);
        assert_eq!(outcome(Tool::Synccheck, SYNCCHECK_ERROR, Some(0)).problems(), ["1 sanitizer error(s)"]);

        // The workload stopped on an error before its last line.
        let crashed =
            "========= COMPUTE-SANITIZER\nerror: loading kernel failed\n========= ERROR SUMMARY: 0 errors\n";
        assert_eq!(
            outcome(Tool::Initcheck, crashed, Some(1)).problems(),
            ["the workload exited with status 1"]
        );
        assert_eq!(
            outcome(Tool::Initcheck, crashed, Some(0)).problems(),
            ["the workload printed no `workload:` line"]
        );
        let mut killed = outcome(Tool::Racecheck, "========= COMPUTE-SANITIZER\n", None);
        killed.timed_out = true;
        assert_eq!(
            killed.problems(),
            [
                "stopped after --timeout-minutes",
                "no ERROR SUMMARY or RACECHECK SUMMARY: the sanitizer did not finish",
                "the workload was killed"
            ]
        );
    }

    #[test]
    fn csv_has_a_row_per_tool_and_quotes_the_command() {
        let rows = [
            outcome(Tool::Memcheck, MEMCHECK_CLEAN, Some(0)),
            outcome(Tool::Racecheck, RACECHECK_HAZARDS, Some(0)),
            outcome(Tool::Synccheck, "", None),
        ];
        let text = csv(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(
            lines[1],
            "memcheck,135,9837,0,,12.5,\"compute-sanitizer --tool x xtask verify --gpu --precision s,d\""
        );
        assert!(lines[2].starts_with("racecheck,135,405,1,2,12.5,"), "{}", lines[2]);
        assert!(lines[3].starts_with("synccheck,,,,,12.5,"), "{}", lines[3]);
        assert_eq!(lines.len(), 4);

        let table = table(&rows);
        assert!(table.lines().nth(1).unwrap().ends_with("  ok"), "{table}");
        assert!(table.contains("2 (1/1)"), "{table}");
        assert!(table.contains("FAILED: 1 sanitizer error(s)"), "{table}");
    }
}
