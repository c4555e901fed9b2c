//! fio-like `normal` text output: per-job blocks and per-group run status lines.

use std::fmt::Write;

use super::summary::{dir_summary, DirSummary};
use crate::runner::{JobResult, RunResult};
use crate::stats::Histogram;

const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];

/// The familiar fio summary (`read: IOPS=..., BW=...`), clat percentiles and group totals.
pub fn normal_text(result: &RunResult) -> String {
    let mut out = String::new();
    for job in &result.jobs {
        job_text(&mut out, job, result);
    }
    let mut groups: Vec<usize> = result.jobs.iter().map(|j| j.groupid).collect();
    groups.dedup();
    for g in groups {
        group_text(&mut out, g, result);
    }
    out
}

fn job_text(out: &mut String, job: &JobResult, run: &RunResult) {
    let _ = writeln!(out, "{}: (groupid={}, jobs={}): err= 0", job.name, job.groupid, job.instances);
    for (d, (dir, dir_name)) in job.dirs.iter().zip(DIR_NAMES).enumerate() {
        if dir.ios == 0 {
            continue;
        }
        let s = dir_summary(job, d, run);
        let _ = writeln!(
            out,
            "  {}: IOPS={}, BW={}/s ({}/s)({}/{}msec)",
            dir_name,
            count_str(s.iops),
            bytes_iec(s.bw_bytes_per_s),
            bytes_si(s.bw_bytes_per_s),
            bytes_iec(dir.io_bytes as f64),
            (s.runtime_ns + 500_000) / 1_000_000
        );
        lat_lines(out, &dir.clat, &job.percentile_list);
        dir_sample_lines(out, &s);
    }
    if let Some(ss) = &job.steady_state {
        let _ = writeln!(
            out,
            "  steadystate  : attained={}, {}",
            if ss.reached { "yes" } else { "no" },
            ss.criterion.metric.as_str()
        );
    }
}

fn lat_lines(out: &mut String, h: &Histogram, percentiles: &[f64]) {
    let (unit, div) = lat_unit(h.max());
    for label in ["clat", " lat"] {
        let _ = writeln!(
            out,
            "    {label} ({unit}): min={}, max={}, avg={:.2}, stdev={:.2}",
            h.min() / div,
            h.max() / div,
            h.mean() / div as f64,
            h.stddev() / div as f64
        );
    }
    let _ = writeln!(out, "    clat percentiles ({unit}):");
    for row in percentiles.chunks(4) {
        let cells: Vec<String> = row.iter().map(|&p| format!("{p:5.2}th=[{:5}]", h.percentile(p) / div)).collect();
        let _ = writeln!(out, "     | {},", cells.join(", "));
    }
    let _ = writeln!(out, "     |");
}

fn dir_sample_lines(out: &mut String, s: &DirSummary) {
    let b = &s.bw_kib;
    let _ = writeln!(
        out,
        "   bw (  KiB/s): min={}, max={}, per={:.2}%, avg={:.2}, stdev={:.2}, samples={}",
        b.min as u64, b.max as u64, s.agg_percent, b.mean, b.stddev, b.samples
    );
    let i = &s.iops_samples;
    let _ = writeln!(
        out,
        "   iops        : min={}, max={}, avg={:.2}, stdev={:.2}, samples={}",
        i.min as u64, i.max as u64, i.mean, i.stddev, i.samples
    );
}

fn group_text(out: &mut String, group: usize, run: &RunResult) {
    let _ = writeln!(out, "\nRun status group {group} (all jobs):");
    for (d, upper) in ["READ", "WRITE", "TRIM"].iter().enumerate() {
        let jobs: Vec<&JobResult> = run.jobs.iter().filter(|j| j.groupid == group && j.dirs[d].ios > 0).collect();
        if jobs.is_empty() {
            continue;
        }
        let bws: Vec<f64> = jobs.iter().map(|j| dir_summary(j, d, run).bw_bytes_per_s).collect();
        let total: f64 = bws.iter().sum();
        let (lo, hi) = bws.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        let io: u64 = jobs.iter().map(|j| j.dirs[d].io_bytes).sum();
        let runs: Vec<u64> = jobs.iter().map(|j| (j.runtime_ns() + 500_000) / 1_000_000).collect();
        let _ = writeln!(
            out,
            "  {upper:>6}: bw={}/s ({}/s), {}/s-{}/s ({}/s-{}/s), io={} ({}), run={}-{}msec",
            bytes_iec(total),
            bytes_si(total),
            bytes_iec(lo),
            bytes_iec(hi),
            bytes_si(lo),
            bytes_si(hi),
            bytes_iec(io as f64),
            bytes_si(io as f64),
            runs.iter().min().unwrap_or(&0),
            runs.iter().max().unwrap_or(&0)
        );
    }
}

/// fio picks the latency unit from the magnitude of the values.
fn lat_unit(max_ns: u64) -> (&'static str, u64) {
    match max_ns {
        0..=9_999 => ("nsec", 1),
        10_000..=9_999_999 => ("usec", 1_000),
        _ => ("msec", 1_000_000),
    }
}

/// About three significant digits with a unit prefix, like fio's num2str.
fn scaled(x: f64, base: f64, units: &[&str]) -> String {
    let mut v = x.max(0.0);
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= base;
        u += 1;
    }
    let digits = if u == 0 || v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$}{}", units[u])
}

fn count_str(x: f64) -> String {
    if x < 10_000.0 {
        format!("{}", x.round() as u64)
    } else {
        scaled(x, 1000.0, &["", "k", "M", "G"])
    }
}

fn bytes_iec(x: f64) -> String {
    scaled(x, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB", "PiB"])
}

fn bytes_si(x: f64) -> String {
    scaled(x, 1000.0, &["B", "kB", "MB", "GB", "TB", "PB"])
}
