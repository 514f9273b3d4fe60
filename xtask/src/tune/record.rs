//! Tuning records: one JSON object per line, appended as each measurement
//! finishes, so an interrupted run loses nothing and resumes where it
//! stopped.
//!
//! A record is keyed by the device (name, compute capability, driver), the
//! generator version, the problem size and the kernel (its spec, or cuBLAS).
//! `--resume` skips every key already in the journal; records of another
//! device or generator are kept but never count as done.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gemm_codegen::{KernelSpec, Op, Precision};
use serde::{Deserialize, Serialize};

/// What makes measurements comparable: the same GPU, driver and generator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DeviceKey {
    /// `cuDeviceGetName`, e.g. "NVIDIA H100 80GB HBM3".
    pub device: String,
    /// Compute capability as `major * 10 + minor` (90 for sm_90).
    pub arch: u32,
    /// CUDA driver version, e.g. "13.0".
    pub driver: String,
    /// `gemm_codegen::VERSION` of the generator that produced the PTX.
    pub generator: String,
}

/// `(m, n, k)` of a problem.
pub type Shape = (u64, u64, u64);

/// A problem shape as the reports write it: `9216^3` for a cube, else
/// `8192x8192x64`.
pub fn shape_name((m, n, k): Shape) -> String {
    if m == n && n == k { format!("{m}^3") } else { format!("{m}x{n}x{k}") }
}

/// A kernel type of the paper's Figure 5: a precision and a pair of ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct KernelType {
    pub precision: Precision,
    pub op_a: Op,
    pub op_b: Op,
}

impl KernelType {
    /// `sgemm_nt`.
    pub fn name(&self) -> String {
        format!(
            "{}gemm_{}{}",
            self.precision.blas_letter(),
            self.op_a.letter().to_ascii_lowercase(),
            self.op_b.letter().to_ascii_lowercase()
        )
    }
}

/// Which kernel a record measured.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Subject {
    /// A generated variant.
    Variant {
        spec: KernelSpec,
        /// Whether this is the Table 2 configuration of its type.
        table2: bool,
    },
    /// cuBLAS, measured alongside under the same harness.
    Cublas,
}

/// Which part of a tuning run a record comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The search: every variant timed once per journal (`--resume` skips it).
    #[default]
    Search,
    /// The confirmation that closes a kernel type: its winner, its Table 2
    /// configuration and cuBLAS timed back to back in run `run` (the run's
    /// start, seconds since the Unix epoch), so the three are compared in one
    /// run and the winner is not flattered by being the best of many noisy
    /// timings.
    Confirm { run: u64 },
    /// The confirmed winner timed with K split into `slices` slices in run
    /// `run` (twice the repetitions, as the confirmation), where its tiles
    /// leave the GPU idle: its class's split if faster than unsplit
    /// ([`super::winners::select`]).
    Split { run: u64, slices: u32 },
}

/// How a variant fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Verified against cuBLAS and timed.
    Ok,
    /// The driver's JIT rejected the PTX.
    CompileFailed,
    /// It compiled but cannot be launched (e.g. too many registers for its block).
    CannotLaunch,
    /// Launching or running failed.
    LaunchFailed,
    /// Its result differs from cuBLAS's.
    WrongResult,
}

/// One measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub device: DeviceKey,
    pub kernel_type: KernelType,
    /// `(m, n, k)` of the timed problem.
    pub size: (u64, u64, u64),
    /// Timed as the update `C = C − A·B` (`alpha = −1`, `beta = 1`: the LU
    /// trailing update, as `xtask bench`'s skinny sweep times it) rather
    /// than `C = A·B`; absent (false) in older journals.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub update: bool,
    /// Timed as a packed batch of this many problems of `size` in one call
    /// (`xtask tune --batch`); absent for one problem a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    pub subject: Subject,
    /// Search or confirmation (older journals have only search records).
    #[serde(default)]
    pub phase: Phase,
    pub status: Status,
    /// What went wrong, for any status but `Ok`.
    pub error: Option<String>,
    /// Registers per thread after JIT (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
    pub registers: Option<u32>,
    /// Local-memory bytes per thread: spills (`CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`).
    pub local_bytes: Option<u32>,
    /// Static shared memory per block.
    pub shared_bytes: Option<u32>,
    /// Resident blocks per SM the occupancy calculator allows.
    pub blocks_per_sm: Option<u32>,
    /// Median time of one GEMM, milliseconds.
    pub median_ms: Option<f64>,
    /// Normwise relative error against cuBLAS on the verification problem.
    pub rel_error: Option<f64>,
    /// GPU seconds the measurement took: generating and loading the
    /// kernel, verifying it and timing it (absent in older journals).
    #[serde(default)]
    pub gpu_s: Option<f64>,
}

impl Record {
    /// The identity `--resume` compares.
    pub fn key(&self) -> RecordKey {
        RecordKey { class: self.class(), subject: self.subject.clone(), phase: self.phase }
    }

    /// The class it measured: its GPU, type, shape, form and batch.
    pub fn class(&self) -> TunedClass {
        TunedClass {
            device: self.device.clone(),
            kernel_type: self.kernel_type,
            size: self.size,
            update: self.update,
            batch: self.batch,
        }
    }

    /// Floating-point operations of one timed call: one GEMM of the
    /// record's size, or its batch of them.
    pub fn flops(&self) -> f64 {
        let (m, n, k) = self.size;
        let problems = self.batch.unwrap_or(1) as f64;
        problems * self.kernel_type.precision.flops_per_fma() as f64 * m as f64 * n as f64 * k as f64
    }

    /// TFLOP/s, for a timed record.
    pub fn tflops(&self) -> Option<f64> {
        self.median_ms.map(|ms| self.flops() / (ms * 1e-3) / 1e12)
    }
}

/// See [`Record::key`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RecordKey {
    pub class: TunedClass,
    pub subject: Subject,
    pub phase: Phase,
}

/// What a tune compares its records within ([`Record::class`]): one GPU,
/// kernel type and shape, timed in one form (`update`) and batch. Records
/// of the same shape in the other form, or batched, are another class: a
/// winner read across them would be the product form's (C never read).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TunedClass {
    pub device: DeviceKey,
    pub kernel_type: KernelType,
    pub size: (u64, u64, u64),
    pub update: bool,
    pub batch: Option<u64>,
}

/// The append-only JSON-lines file of a tuning run.
///
/// A journal kept in the repository is stored compressed: `tune.jsonl.gz`
/// beside where `tune.jsonl` would be ([`Journal::open`] reads it when the
/// plain file is absent). Gzip members concatenate, so a record appended to
/// a compressed journal is one more member, and `zcat` reads the whole file.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    compressed: bool,
    /// A compressed journal that ends in a torn member: appending after it
    /// would hide the new records from every reader, so it is refused.
    torn: bool,
    records: Vec<Record>,
    done: HashSet<RecordKey>,
}

impl Journal {
    /// Opens `path` (or, where it is absent, `path` + `.gz`), reading every
    /// record already in it (no file is an empty journal). A line that does
    /// not parse — a record cut short when a run was killed mid-write — is
    /// skipped with a warning, and so is a compressed member cut short.
    pub fn open(path: &Path) -> Result<Journal> {
        let gz = gz_path(path);
        let compressed = !path.exists() && gz.exists();
        let path = if compressed { gz } else { path.to_owned() };
        let mut records = Vec::new();
        let mut torn = false;
        if path.exists() {
            let file = File::open(&path).with_context(|| format!("opening {}", path.display()))?;
            let reader: Box<dyn BufRead> = if compressed {
                Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
            } else {
                Box::new(BufReader::new(file))
            };
            for (i, line) in reader.lines().enumerate() {
                let line = match line {
                    Ok(line) => line,
                    Err(e) if compressed => {
                        eprintln!("warning: {}: skipping a torn member after line {i} ({e})", path.display());
                        torn = true;
                        break;
                    }
                    Err(e) => return Err(e.into()),
                };
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Record>(&line) {
                    Ok(r) => records.push(r),
                    Err(e) => {
                        eprintln!("warning: {}:{}: skipping unreadable record ({e})", path.display(), i + 1)
                    }
                }
            }
        }
        let done = records.iter().map(Record::key).collect();
        Ok(Journal { path, compressed, torn, records, done })
    }

    /// Whether the journal is stored gzip-compressed (its report then is too).
    pub fn compressed(&self) -> bool {
        self.compressed
    }

    /// Whether a record with this key is already in the journal.
    pub fn contains(&self, key: &RecordKey) -> bool {
        self.done.contains(key)
    }

    /// Every record, in file order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Appends `record` and flushes it to disk before returning.
    pub fn append(&mut self, record: Record) -> Result<()> {
        if self.torn {
            anyhow::bail!(
                "{} ends in a torn gzip member: records appended after it could not be read; \
                 rewrite it (`zcat` then `gzip`) or tune into a plain tune.jsonl",
                self.path.display()
            );
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new().create(true).append(true).open(&self.path)?;
        let mut line = String::new();
        // Start on a fresh line even if a killed run left half a record.
        if !self.compressed && std::fs::metadata(&self.path)?.len() > 0 && !ends_with_newline(&self.path)? {
            line.push('\n');
        }
        line += &serde_json::to_string(&record)?;
        line.push('\n');
        if self.compressed {
            file.write_all(&gzip(line.as_bytes())?)?;
        } else {
            file.write_all(line.as_bytes())?;
        }
        file.sync_data()?;
        self.done.insert(record.key());
        self.records.push(record);
        Ok(())
    }
}

/// `data` as one gzip member (a compressed journal's record, or its table).
pub fn gzip(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    member.write_all(data)?;
    member.finish()
}

/// `path` with `.gz` appended: where a compressed journal or report lies.
pub fn gz_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".gz");
    PathBuf::from(name)
}

fn ends_with_newline(path: &Path) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = File::open(path)?;
    f.seek(SeekFrom::End(-1))?;
    let mut b = [0u8];
    f.read_exact(&mut b)?;
    Ok(b[0] == b'\n')
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn device() -> DeviceKey {
        DeviceKey { device: "Test GPU".into(), arch: 90, driver: "13.0".into(), generator: "0.1.0".into() }
    }

    pub fn spec(m_blk: u32) -> KernelSpec {
        KernelSpec::new(Precision::F32, (Op::N, Op::N), (m_blk, 64, 16), (16, 16), (16, 16), (16, 16))
    }

    pub fn record(spec: KernelSpec, ms: f64) -> Record {
        Record {
            device: device(),
            kernel_type: KernelType { precision: spec.precision, op_a: spec.op_a, op_b: spec.op_b },
            size: (1024, 1024, 1024),
            update: false,
            batch: None,
            subject: Subject::Variant { spec, table2: false },
            phase: Phase::Search,
            status: Status::Ok,
            error: None,
            registers: Some(64),
            local_bytes: Some(0),
            shared_bytes: Some(8448),
            blocks_per_sm: Some(4),
            median_ms: Some(ms),
            rel_error: Some(1e-7),
            gpu_s: None,
        }
    }

    pub fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gemmforge-journal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("tune.jsonl")
    }

    /// A compressed journal reads as the plain one, takes appends as new
    /// gzip members, and loses only a torn last member (after which it
    /// refuses appends, which no reader would see).
    #[test]
    fn a_compressed_journal_reads_appends_and_survives_a_torn_member() {
        let path = scratch("gz");
        let gz = gz_path(&path);
        std::fs::create_dir_all(gz.parent().unwrap()).unwrap();
        let (a, b, c) = (record(spec(64), 1.0), record(spec(128), 2.0), record(spec(64), 3.0));
        let line = |r: &Record| serde_json::to_string(r).unwrap() + "\n";
        std::fs::write(&gz, gzip((line(&a) + &line(&b)).as_bytes()).unwrap()).unwrap();
        let mut j = Journal::open(&path).unwrap();
        assert!(j.compressed());
        assert_eq!(j.records(), &[a.clone(), b.clone()]);
        let c = Record { phase: Phase::Confirm { run: 1 }, ..c };
        j.append(c.clone()).unwrap();
        assert!(!path.exists(), "appending to a compressed journal wrote a plain one");
        let j = Journal::open(&path).unwrap();
        assert_eq!(j.records(), &[a.clone(), b.clone(), c.clone()]);
        // A member cut short by a kill: the records before it stay.
        let mut bytes = std::fs::read(&gz).unwrap();
        let torn = gzip(line(&a).as_bytes()).unwrap();
        bytes.extend_from_slice(&torn[..torn.len() / 2]);
        std::fs::write(&gz, bytes).unwrap();
        let mut j = Journal::open(&path).unwrap();
        assert_eq!(j.records(), &[a.clone(), b, c]);
        let err = j.append(a).unwrap_err().to_string();
        assert!(err.contains("torn gzip member"), "{err}");
        // A plain journal beside it wins: it is the one a run appends to.
        std::fs::write(&path, "").unwrap();
        assert!(!Journal::open(&path).unwrap().compressed());
    }

    #[test]
    fn resume_sees_every_finished_record() {
        let path = scratch("resume");
        let mut j = Journal::open(&path).unwrap();
        assert!(j.records().is_empty());
        let (a, b) = (record(spec(64), 1.0), record(spec(128), 2.0));
        j.append(a.clone()).unwrap();
        j.append(b.clone()).unwrap();
        let j = Journal::open(&path).unwrap();
        assert_eq!(j.records(), &[a.clone(), b.clone()]);
        assert!(j.contains(&a.key()) && j.contains(&b.key()));
        let mut other_device = a.clone();
        other_device.device.device = "Other GPU".into();
        assert!(!j.contains(&other_device.key()));
        let mut other_size = a.clone();
        other_size.size = (2048, 2048, 2048);
        assert!(!j.contains(&other_size.key()));
        let confirm = Record { phase: Phase::Confirm { run: 7 }, ..a };
        assert!(!j.contains(&confirm.key()));
    }

    #[test]
    fn journals_written_before_phases_read_as_search() {
        let mut value = serde_json::to_value(record(spec(64), 1.0)).unwrap();
        value.as_object_mut().unwrap().remove("phase");
        value.as_object_mut().unwrap().remove("gpu_s");
        let r: Record = serde_json::from_value(value).unwrap();
        assert_eq!((r.phase, r.gpu_s), (Phase::Search, None));
        let confirm = Record { phase: Phase::Confirm { run: 3 }, ..record(spec(64), 1.0) };
        let text = serde_json::to_string(&confirm).unwrap();
        assert!(text.contains(r#""phase":{"confirm":{"run":3}}"#), "{text}");
        assert_eq!(serde_json::from_str::<Record>(&text).unwrap(), confirm);
    }

    #[test]
    fn a_record_cut_short_is_skipped_and_appending_continues_cleanly() {
        let path = scratch("torn");
        let mut j = Journal::open(&path).unwrap();
        let a = record(spec(64), 1.0);
        j.append(a.clone()).unwrap();
        // A run killed mid-write leaves half a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"device":"Test GPU","arch":9"#).unwrap();
        drop(f);
        let mut j = Journal::open(&path).unwrap();
        assert_eq!(j.records(), std::slice::from_ref(&a));
        let b = record(spec(128), 2.0);
        j.append(b.clone()).unwrap();
        assert_eq!(Journal::open(&path).unwrap().records(), &[a, b]);
    }

    #[test]
    fn tflops_counts_complex_flops() {
        let mut r = record(spec(64), 1.0);
        assert!((r.tflops().unwrap() - 2.0 * 1024f64.powi(3) / 1e-3 / 1e12).abs() < 1e-9);
        r.kernel_type.precision = Precision::C32;
        assert!((r.tflops().unwrap() - 8.0 * 1024f64.powi(3) / 1e-3 / 1e12).abs() < 1e-9);
        r.median_ms = None;
        assert_eq!(r.tflops(), None);
    }
}
