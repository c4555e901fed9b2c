//! fio-like `normal` text output: per-job blocks and per-group run status lines.

use nand_model::cast::sat_u64;
use std::fmt::Write;

use super::summary::{
    dir_summary, dir_summary_in, group_dir, group_mixed, mixed_view, runtime_ms, DirSummary, GroupDir,
};
use crate::job::UnifiedRw;
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
    let err = match job.error_code() {
        // fio's ETIMEDOUT from a latency_target missed at QD 1 or a max_latency exceeded.
        110 => "err=110 (func=max latency exceeded, error=Connection timed out)".to_string(),
        // fio's EIO from a rate_min / rate_iops_min missed.
        5 => "err= 5 (func=check_min_rate, error=Input/output error)".to_string(),
        _ => "err= 0".to_string(),
    };
    let _ = writeln!(out, "{}: (groupid={}, jobs={}): {err}", job.name, job.groupid, job.instances);
    if job.unified_rw != UnifiedRw::Mixed {
        for (d, name) in DIR_NAMES.iter().enumerate() {
            dir_text(out, job, d, name, dir_summary(job, d, run));
        }
    }
    if job.unified_rw != UnifiedRw::None {
        let mixed = mixed_view(job);
        let group_bw = match job.unified_rw {
            UnifiedRw::Mixed => group_dir(run, job.groupid, 0),
            _ => group_mixed(run, job.groupid),
        };
        let s = dir_summary_in(&mixed, 0, group_bw.map_or(0.0, |g| g.agg_bytes_per_s));
        dir_text(out, &mixed, 0, "mixed", s);
    }
    let lat = &job.latency;
    if lat.target_ns > 0 {
        let _ = writeln!(
            out,
            "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
            lat.target_ns, lat.window_us, lat.percentile, lat.depth
        );
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

/// One direction's lines (`read: IOPS=...`), skipped when it did no I/O.
fn dir_text(out: &mut String, job: &JobResult, d: usize, dir_name: &str, s: DirSummary) {
    let dir = &job.dirs[d];
    if dir.ios == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "  {}: IOPS={}, BW={}/s ({}/s)({}/{}msec)",
        dir_name,
        count_str(s.iops),
        bytes_iec(s.bw_bytes_per_s),
        bytes_si(s.bw_bytes_per_s),
        bytes_iec(dir.io_bytes as f64),
        runtime_ms(s.runtime_ns)
    );
    lat_lines(out, &dir.clat, &job.percentile_list);
    dir_sample_lines(out, &s);
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
        sat_u64(b.min),
        sat_u64(b.max),
        s.agg_percent,
        b.mean,
        b.stddev,
        b.samples
    );
    let i = &s.iops_samples;
    let _ = writeln!(
        out,
        "   iops        : min={}, max={}, avg={:.2}, stdev={:.2}, samples={}",
        sat_u64(i.min),
        sat_u64(i.max),
        i.mean,
        i.stddev,
        i.samples
    );
}

fn group_text(out: &mut String, group: usize, run: &RunResult) {
    let _ = writeln!(out, "\nRun status group {group} (all jobs):");
    let members = || run.jobs.iter().filter(|j| j.groupid == group);
    let mixed = members().any(|j| j.unified_rw == UnifiedRw::Mixed);
    for (d, upper) in ["READ", "WRITE", "TRIM"].iter().enumerate() {
        if let Some(g) = group_dir(run, group, d) {
            group_line(out, if mixed { "MIXED" } else { upper }, &g);
        }
    }
    if !mixed && members().any(|j| j.unified_rw == UnifiedRw::Both) {
        if let Some(g) = group_mixed(run, group) {
            group_line(out, "MIXED", &g);
        }
    }
}

/// One "Run status" line.
fn group_line(out: &mut String, upper: &str, g: &GroupDir) {
    let (total, lo, hi, io) = (g.agg_bytes_per_s, g.min_bw_bytes_per_s, g.max_bw_bytes_per_s, g.io_bytes);
    let _ = writeln!(
        out,
        "{upper:>7}: bw={}/s ({}/s), {}/s-{}/s ({}/s-{}/s), io={} ({}), run={}-{}msec",
        bytes_iec(total),
        bytes_si(total),
        bytes_iec(lo),
        bytes_iec(hi),
        bytes_si(lo),
        bytes_si(hi),
        bytes_iec(io as f64),
        bytes_si(io as f64),
        runtime_ms(g.min_run_ns),
        runtime_ms(g.max_run_ns)
    );
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
        format!("{}", sat_u64(x.round()))
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
