//! `cargo xtask space`: the pruned search space of Section 5.3, without a GPU.
//!
//! ```text
//! cargo xtask space --arch sm_90 --precision s --op nn \
//!     --min-threads-per-sm 512 --min-blocks-per-sm 2 --min-reuse 3   # survivors
//! cargo xtask space --precision s --op nn                             # hard constraints alone
//! cargo xtask space --precision c --op nt --table1 --list             # the specs, one per line
//! cargo xtask space --figure5                                          # the 16 kernel types
//! ```
//!
//! Counts go to stderr when `--list` writes specs to stdout, so the listing
//! can be piped.

use std::time::Instant;

use anyhow::{Context, Result};

use crate::cli;
use gemm_codegen::device::DeviceLimits;
use gemm_codegen::space::{self, Bounds, Candidate, Guidelines, Space};
use gemm_codegen::{GlobalLoad, Op, Precision};

#[derive(clap::Args)]
pub struct Args {
    /// GPU architecture whose limits apply: sm_70 … sm_120, also `90` or `9.0`.
    #[arg(long, default_value = "sm_90")]
    arch: String,
    /// Precision: s, d, c, z (or f32, f64, c32, c64, sgemm, …).
    #[arg(long, default_value = "s", value_parser = cli::parse_precision)]
    precision: Precision,
    /// op(A) and op(B): nn, nt, tn, tt, and with c for conjugate (cn, cc, …).
    #[arg(long, default_value = "nn", value_parser = cli::parse_ops)]
    op: (Op, Op),
    /// Apply Table 1's guidelines for the precision (the explicit flags below override them).
    #[arg(long)]
    table1: bool,
    /// Minimum resident threads per SM.
    #[arg(long)]
    min_threads_per_sm: Option<u32>,
    /// Minimum resident blocks per SM.
    #[arg(long)]
    min_blocks_per_sm: Option<u32>,
    /// Minimum register reuse (FMAs per shared-memory load).
    #[arg(long)]
    min_reuse: Option<f64>,
    /// Print every surviving spec, one per line, in `gemm_kernel!` syntax.
    #[arg(long)]
    list: bool,
    /// With --list: append each spec's stats as a comment.
    #[arg(long, requires = "list")]
    stats: bool,
    /// With --list: only a spread sample of this many specs (the tuner's --max-variants rule).
    #[arg(long, requires = "list")]
    max_variants: Option<usize>,
    /// Print Figure 5: counts for the 16 kernel types under Table 1's guidelines.
    #[arg(long, conflicts_with_all = ["list", "table1", "min_threads_per_sm", "min_blocks_per_sm", "min_reuse"])]
    figure5: bool,
    /// Largest M_dim and N_dim (Algorithm 2's M_dimMAX, N_dimMAX).
    #[arg(long, default_value_t = 256)]
    max_dim: u32,
    /// Largest M_blk and N_blk.
    #[arg(long, default_value_t = 256)]
    max_blk: u32,
    /// Largest K_blk.
    #[arg(long, default_value_t = 64)]
    max_k_blk: u32,
    /// Shared-load widths to try.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4")]
    lds_width: Vec<u32>,
    /// Global-load cache paths to try.
    #[arg(long, value_delimiter = ',', default_value = "nc,ca,cg", value_parser = parse_ldg)]
    ldg: Vec<GlobalLoad>,
}

pub fn run(args: Args) -> Result<()> {
    let device = DeviceLimits::for_arch(&args.arch)?;
    let bounds = bounds(&args);
    if args.figure5 {
        return figure5(&device, &bounds);
    }
    let mut guidelines = if args.table1 { Guidelines::table1(args.precision) } else { Guidelines::NONE };
    if let Some(v) = args.min_threads_per_sm {
        guidelines.min_threads_per_sm = v;
    }
    if let Some(v) = args.min_blocks_per_sm {
        guidelines.min_blocks_per_sm = v;
    }
    if let Some(v) = args.min_reuse {
        guidelines.min_reuse = v;
    }
    let (op_a, op_b) = args.op;
    let space = Space::new(args.precision, op_a, op_b, device.clone())
        .with_guidelines(guidelines)
        .with_bounds(bounds);
    let kernel = kernel_type(args.precision, args.op);

    let started = Instant::now();
    let count = space.count();
    let elapsed = started.elapsed();
    let summary = {
        let mut s = format!(
            "{kernel} on {} ({}, {} SMs; {}): the hard constraints admit {} configurations",
            device.compute_capability(),
            device.driver.name,
            device.driver.sm_count,
            describe_bounds(&space.bounds),
            thousands(count.hard),
        );
        if guidelines != Guidelines::NONE {
            s += &format!(
                "\n{} survive the guidelines ({})",
                thousands(count.survivors),
                describe(&guidelines)
            );
        }
        s + &format!("\ncounted in {:.2} s", elapsed.as_secs_f64())
    };

    if !args.list {
        println!("{summary}");
        return Ok(());
    }
    eprintln!("{summary}");
    let list: Box<dyn Iterator<Item = Candidate>> = match args.max_variants {
        Some(n) => Box::new(space.sample(n).into_iter()),
        None => Box::new(space.iter()),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for c in list {
        use std::io::Write as _;
        let line =
            if args.stats { format!("{}  // {}", c.spec, stats_comment(&c)) } else { c.spec.to_string() };
        if writeln!(out, "{line}").is_err() {
            break; // a closed pipe (`| head`) is not an error
        }
    }
    Ok(())
}

fn figure5(device: &DeviceLimits, bounds: &Bounds) -> Result<()> {
    let started = Instant::now();
    let rows = space::figure5(device, bounds);
    println!(
        "Figure 5 on {} ({}): specs surviving Table 1's guidelines; {}",
        device.compute_capability(),
        device.driver.name,
        describe_bounds(bounds),
    );
    println!();
    println!("{:<8} {:<38} {:>9} {:>9} {:>9} {:>9}", "kernel", "guidelines", "NN", "NT", "TN", "TT");
    for chunk in rows.chunks(space::FIGURE5_OPS.len()) {
        let first = &chunk[0];
        print!(
            "{:<8} {:<38}",
            format!("{}GEMM", first.precision.blas_letter().to_ascii_uppercase()),
            describe(&first.guidelines)
        );
        for row in chunk {
            print!(" {:>9}", thousands(row.count.survivors));
        }
        println!();
    }
    println!("\ncounted in {:.2} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn bounds(args: &Args) -> Bounds {
    let mut b = Bounds::up_to(args.max_dim, args.max_blk, args.max_k_blk);
    b.lds_widths = dedup(&args.lds_width);
    b.ldgs = dedup(&args.ldg);
    b
}

fn dedup<T: PartialEq + Copy>(items: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(items.len());
    for &x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn kernel_type(precision: Precision, (op_a, op_b): (Op, Op)) -> String {
    format!("{}GEMM {op_a}{op_b}", precision.blas_letter().to_ascii_uppercase())
}

fn describe(g: &Guidelines) -> String {
    format!(
        "threads/SM ≥ {}, blocks/SM ≥ {}, reuse ≥ {}",
        g.min_threads_per_sm, g.min_blocks_per_sm, g.min_reuse
    )
}

fn describe_bounds(b: &Bounds) -> String {
    let widths: Vec<String> = b.lds_widths.iter().map(u32::to_string).collect();
    let ldgs: Vec<&str> = b.ldgs.iter().map(|l| l.token()).collect();
    format!(
        "dims ≤ {}, tiles ≤ {}, K_blk ≤ {}, lds_width ∈ {{{}}}, ldg ∈ {{{}}}",
        b.m_dim.end().max(b.n_dim.end()),
        b.m_blk.end().max(b.n_blk.end()),
        b.k_blk.end(),
        widths.join(","),
        ldgs.join(","),
    )
}

fn stats_comment(c: &Candidate) -> String {
    let s = &c.stats;
    let o = &s.occupancy;
    format!(
        "blocks/SM {} (shared {}, regs {}), threads/SM {}, occupancy {:.2}, reuse {:.2}, shared {} B, regs ≥ {}",
        o.blocks_per_sm,
        o.blocks_by_shared,
        o.blocks_by_regs,
        o.threads_per_sm(),
        o.fraction(),
        s.reuse,
        s.shared_bytes,
        s.regs_estimate,
    )
}

/// `12345678` as `12,345,678`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn parse_ldg(s: &str) -> Result<GlobalLoad> {
    GlobalLoad::from_token(&s.to_ascii_lowercase())
        .with_context(|| format!("unknown ldg `{s}`: use nc, ca or cg"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }
}
