//! [`TuneCache`]: the winners of [`BespokeGemm`](super::BespokeGemm)'s
//! tuning, keyed by device, operator, `n`, precision and beta mode, and
//! their JSON file.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use gemm_codegen::Precision;
use gemm_codegen::bespoke::{BespokeSpec, BetaMode};
use serde::{Deserialize, Serialize};

use crate::error::GemmError;

/// What a tuning winner is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TuneKey {
    /// The device's name and compute capability: `NVIDIA H100 80GB HBM3
    /// (sm_90)`.
    pub device: String,
    /// The operator's [`digest`](gemm_codegen::bespoke::digest).
    pub digest: u64,
    /// Columns of B and C.
    pub n: u32,
    /// The element type.
    pub precision: Precision,
    /// The `beta`s the calls take.
    pub beta: BetaMode,
}

/// How a tuned call runs: a bespoke kernel, or the dense GEMM with the
/// operator in device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    /// The bespoke kernel of this spec.
    Bespoke(BespokeSpec),
    /// A shipped GEMM kernel (`gemm_kernels`), named, on the operator.
    Dense(&'static str),
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Bespoke(spec) => write!(f, "{spec}"),
            Choice::Dense(kernel) => write!(f, "dense gemm {kernel}"),
        }
    }
}

impl Choice {
    /// `bstream`, `cstream`, `mma` or `dense`.
    pub fn family(&self) -> &'static str {
        match self {
            Choice::Bespoke(spec) => spec.form.token(),
            Choice::Dense(_) => "dense",
        }
    }
}

/// A tuning's winner and its median time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Winner {
    /// How the calls run.
    pub choice: Choice,
    /// Its median time at the key's `n`, in microseconds.
    pub median_us: f64,
}

/// The shipped GEMM kernel named `name`: what a [`Choice::Dense`] runs.
pub(super) fn dense_entry(name: &str) -> Option<&'static gemm_kernels::KernelEntry> {
    gemm_kernels::all().find(|e| e.name == name)
}

/// Tuning winners, shared by every [`BespokeGemm`](super::BespokeGemm)
/// given the same cache (operators are told apart by digest), saved to and
/// loaded from JSON so that a later run skips the tuning.
#[derive(Debug, Default)]
pub struct TuneCache {
    entries: Mutex<HashMap<TuneKey, Winner>>,
}

/// The file: a version and one entry per key, sorted.
#[derive(Debug, Serialize, Deserialize)]
struct File {
    version: u32,
    entries: Vec<Entry>,
}

const VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    device: String,
    /// 16 hexadecimal digits.
    digest: String,
    n: u32,
    precision: String,
    beta: String,
    /// `bstream`, `cstream`, `mma` or `dense`.
    family: String,
    /// A bespoke winner's spec, as `BespokeSpec` displays and parses it
    /// (the `gemm_bespoke!` grammar), or a dense winner's kernel name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spec: Option<String>,
    median_us: f64,
}

impl Entry {
    fn of(key: &TuneKey, winner: &Winner) -> Entry {
        let spec = match winner.choice {
            Choice::Bespoke(s) => Some(s.to_string()),
            Choice::Dense(kernel) => Some(kernel.to_owned()),
        };
        Entry {
            device: key.device.clone(),
            digest: format!("{:016x}", key.digest),
            n: key.n,
            precision: key.precision.token().to_owned(),
            beta: key.beta.token().to_owned(),
            family: winner.choice.family().to_owned(),
            spec,
            median_us: winner.median_us,
        }
    }

    fn parse(&self) -> Result<(TuneKey, Winner), String> {
        let digest =
            u64::from_str_radix(&self.digest, 16).map_err(|e| format!("digest `{}`: {e}", self.digest))?;
        let precision = Precision::ALL
            .into_iter()
            .find(|p| p.token() == self.precision)
            .ok_or_else(|| format!("unknown precision `{}`", self.precision))?;
        let beta = BetaMode::from_token(&self.beta).ok_or_else(|| format!("unknown beta `{}`", self.beta))?;
        let key = TuneKey { device: self.device.clone(), digest, n: self.n, precision, beta };
        let choice = if self.family == "dense" {
            let name = self.spec.as_deref().ok_or("dense has no `spec` (its kernel)")?;
            let entry = dense_entry(name)
                .ok_or_else(|| format!("dense kernel `{name}` is not shipped in this build"))?;
            Choice::Dense(entry.name)
        } else {
            let text = self.spec.as_deref().ok_or_else(|| format!("{} has no `spec`", self.family))?;
            let spec: BespokeSpec = text.parse().map_err(|e| format!("spec `{text}`: {e}"))?;
            if spec.form.token() != self.family || spec.precision != precision || spec.beta != beta {
                return Err(format!(
                    "spec `{text}` is not a {} {} beta = {} kernel",
                    self.family, self.precision, self.beta
                ));
            }
            Choice::Bespoke(spec)
        };
        Ok((key, Winner { choice, median_us: self.median_us }))
    }
}

impl TuneCache {
    /// An empty cache.
    pub fn new() -> TuneCache {
        TuneCache::default()
    }

    /// The winner for `key`, if tuned.
    pub fn get(&self, key: &TuneKey) -> Option<Winner> {
        self.lock().get(key).copied()
    }

    /// Records `winner` for `key`, replacing any earlier one.
    pub fn insert(&self, key: TuneKey, winner: Winner) {
        self.lock().insert(key, winner);
    }

    /// Winners recorded.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TuneKey, Winner>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cache as JSON, entries sorted by key.
    pub fn to_json(&self) -> String {
        let entries = self.lock();
        let mut keys: Vec<&TuneKey> = entries.keys().collect();
        keys.sort_by_key(|k| (&k.device, k.digest, k.n, k.precision.token(), k.beta.token()));
        let file =
            File { version: VERSION, entries: keys.into_iter().map(|k| Entry::of(k, &entries[k])).collect() };
        serde_json::to_string_pretty(&file).expect("plain data serializes") + "\n"
    }

    /// The cache [`TuneCache::to_json`] wrote; `what` names the text in
    /// errors.
    pub fn from_json(text: &str, what: &str) -> Result<TuneCache, GemmError> {
        let bad = |reason: String| GemmError::TuneCache { path: what.to_owned(), reason };
        let file: File = serde_json::from_str(text).map_err(|e| bad(format!("not a tuning cache: {e}")))?;
        if file.version != VERSION {
            return Err(bad(format!("version {}, this build reads {VERSION}", file.version)));
        }
        let cache = TuneCache::new();
        for (i, entry) in file.entries.iter().enumerate() {
            let (key, winner) = entry.parse().map_err(|e| bad(format!("entry {i}: {e}")))?;
            cache.insert(key, winner);
        }
        Ok(cache)
    }

    /// Writes the cache to `path` as JSON.
    pub fn save(&self, path: &Path) -> Result<(), GemmError> {
        std::fs::write(path, self.to_json())
            .map_err(|e| GemmError::TuneCache { path: path.display().to_string(), reason: e.to_string() })
    }

    /// Reads a cache [`TuneCache::save`] wrote.
    pub fn load(path: &Path) -> Result<TuneCache, GemmError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| GemmError::TuneCache { path: path.display().to_string(), reason: e.to_string() })?;
        TuneCache::from_json(&text, &path.display().to_string())
    }

    /// Adds every winner of `other`, replacing those of the same keys.
    pub fn merge(&self, other: &TuneCache) {
        let theirs: Vec<(TuneKey, Winner)> = other.lock().iter().map(|(k, w)| (k.clone(), *w)).collect();
        let mut mine = self.lock();
        mine.extend(theirs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemm_codegen::Target;
    use gemm_codegen::bespoke::Form;

    fn key(n: u32, beta: BetaMode) -> TuneKey {
        TuneKey {
            device: "NVIDIA H100 80GB HBM3 (sm_90)".into(),
            digest: 0xfeed_beef,
            n,
            precision: Precision::F64,
            beta,
        }
    }

    #[test]
    fn winners_survive_a_round_trip_through_json() {
        let cache = TuneCache::new();
        let spec = BespokeSpec {
            width: 2,
            msplit: 4,
            chunk: 8,
            block: 64,
            beta: BetaMode::One,
            arch: Target::Sm90,
            ldb: None,
            ldc: None,
            form: Form::BStream,
            precision: Precision::F64,
        };
        cache.insert(key(131072, BetaMode::One), Winner { choice: Choice::Bespoke(spec), median_us: 41.5 });
        let shipped = gemm_kernels::all().next().expect("Table 2 ships").name;
        cache.insert(key(4096, BetaMode::Zero), Winner { choice: Choice::Dense(shipped), median_us: 3.25 });
        let text = cache.to_json();
        assert!(text.contains("\"digest\": \"00000000feedbeef\""), "{text}");
        let dense = &text[text.find("\"dense\"").unwrap()..];
        let entry = &dense[..dense.find('}').unwrap()];
        assert!(
            entry.contains(&format!("\"spec\": \"{shipped}\"")),
            "a dense winner names its kernel: {text}"
        );
        let back = TuneCache::from_json(&text, "test").unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.get(&key(131072, BetaMode::One)), cache.get(&key(131072, BetaMode::One)));
        assert_eq!(back.get(&key(4096, BetaMode::Zero)).unwrap().choice, Choice::Dense(shipped));
        assert_eq!(back.get(&key(4096, BetaMode::One)), None);
        assert_eq!(back.to_json(), text);

        let dir = std::env::temp_dir().join(format!("gemmforge-tune-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cache.json");
        cache.save(&path).unwrap();
        let merged = TuneCache::new();
        merged.merge(&TuneCache::load(&path).unwrap());
        assert_eq!(merged.len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_files_are_errors_that_say_what_is_wrong() {
        let e = TuneCache::from_json("{}", "x.json").unwrap_err();
        assert!(e.to_string().starts_with("tuning cache x.json: not a tuning cache"), "{e}");
        let e = TuneCache::from_json(r#"{"version": 9, "entries": []}"#, "x.json").unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
        let entry = r#"{"device": "d", "digest": "zz", "n": 1, "precision": "f64", "beta": "0", "family": "dense", "median_us": 1.0}"#;
        let e = TuneCache::from_json(&format!(r#"{{"version": 1, "entries": [{entry}]}}"#), "x.json")
            .unwrap_err();
        assert!(e.to_string().contains("entry 0: digest `zz`"), "{e}");
        let entry = entry.replace("zz", "01").replace("dense", "bstream");
        let e = TuneCache::from_json(&format!(r#"{{"version": 1, "entries": [{entry}]}}"#), "x.json")
            .unwrap_err();
        assert!(e.to_string().contains("entry 0: bstream has no `spec`"), "{e}");
        let with = |spec: &str| entry.replace(r#""median_us""#, &format!(r#""spec": "{spec}", "median_us""#));
        let bad = with("precision = f64, family = bstream, width = 3");
        let e =
            TuneCache::from_json(&format!(r#"{{"version": 1, "entries": [{bad}]}}"#), "x.json").unwrap_err();
        assert!(
            e.to_string().contains("entry 0: spec `precision = f64, family = bstream, width = 3`"),
            "{e}"
        );
        let other = with("precision = f32, family = bstream, beta = 0");
        let e = TuneCache::from_json(&format!(r#"{{"version": 1, "entries": [{other}]}}"#), "x.json")
            .unwrap_err();
        assert!(e.to_string().contains("is not a bstream f64 beta = 0 kernel"), "{e}");
        assert!(TuneCache::load(Path::new("/nonexistent/cache.json")).is_err());
    }
}
