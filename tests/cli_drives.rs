//! The `ssdlab` binary end to end: `drives`, `drive show`, and how bad profiles are reported
//! (exit code 2, one stderr line naming the file, the key, the value and the allowed range).
#![allow(clippy::expect_used)] // a panic in test code is a failed test

mod common;
use common::{ssdlab, stderr, stdout, temp_dir};

const ALL_DRIVES: [&str; 8] = [
    "generic-tlc",
    "generic-qlc",
    "tiny",
    "solidigm-d5-p5430",
    "intel-d5-p4420",
    "solidigm-d7-p5520",
    "solidigm-d7-ps1010",
    "memblaze-pblaze7-7a40",
];

#[test]
fn drives_lists_all_eight_profiles() {
    let o = ssdlab(&["drives"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let names: Vec<&str> = out.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(names, ALL_DRIVES, "{out}");
    assert!(out.lines().next().unwrap_or("").starts_with("name"), "{out}");
    // The P5430 row: QLC 192L, 15.36 TB user, 17.59 TB raw, 14.5% OP, 96 dies.
    let p5430 = out.lines().find(|l| l.starts_with("solidigm-d5-p5430")).unwrap_or_default();
    for field in ["QLC 192L", "15.36", "17.59", "14.5", "96", "25/15/10"] {
        assert!(p5430.contains(field), "missing {field}: {p5430}");
    }
}

#[test]
fn drive_show_tiny_round_trips() {
    let o = ssdlab(&["drive", "show", "tiny"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let shown = ftl::profile::parse(&stdout(&o), "shown").unwrap_or_else(|e| panic!("{e}"));
    let embedded = ftl::profile::load("tiny").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shown.profile, embedded.profile);
    // Defaults are filled in: keys absent from tiny.toml appear in the output.
    assert!(stdout(&o).contains("mapping_unit_bytes"), "{}", stdout(&o));
}

#[test]
fn drive_show_accepts_a_path() {
    let dir = temp_dir("path");
    let text = ftl::profile::EMBEDDED.iter().find(|(n, _)| *n == "tiny").map(|(_, t)| *t).unwrap_or_default();
    let path = dir.join("mine.toml");
    std::fs::write(&path, text).expect("write profile");
    let o = ssdlab(&["drive", "show", path.to_str().unwrap_or_default()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("name = \"tiny\""), "{}", stdout(&o));
}

/// Runs `drive show` on a broken copy of tiny.toml; returns the single stderr line.
fn bad_profile(dir: &std::path::Path, file: &str, from: &str, to: &str) -> String {
    let good = ftl::profile::EMBEDDED.iter().find(|(n, _)| *n == "tiny").map(|(_, t)| *t).unwrap_or_default();
    assert!(good.contains(from), "tiny.toml has no `{from}`");
    let path = dir.join(file);
    std::fs::write(&path, good.replacen(from, to, 1)).expect("write profile");
    let path = path.to_str().unwrap_or_default().to_string();
    let o = ssdlab(&["drive", "show", &path]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty(), "no output on error");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with(&format!("error: {path}: ")), "names the file: {err}");
    assert!(!err.contains("panicked") && !err.contains("backtrace"), "{err}");
    err
}

fn assert_names(err: &str, parts: &[&str]) {
    for p in parts {
        assert!(err.contains(p), "missing `{p}` in: {err}");
    }
}

#[test]
fn unknown_key_is_bad_input() {
    let dir = temp_dir("unknown-key");
    let err = bad_profile(&dir, "unknown.toml", "cmd_limit_kiops = 200.0", "cmd_limit_kiops = 200.0\nturbo = true");
    // The allowed "range" of a key is the set of known keys.
    assert_names(&err, &["key `controller.turbo`", "unknown field `turbo`", "expected one of", "cmd_limit_kiops"]);
}

#[test]
fn zero_count_is_bad_input() {
    let dir = temp_dir("zero");
    let err = bad_profile(&dir, "zero.toml", "dies_per_channel = 2", "dies_per_channel = 0");
    assert_names(&err, &["key `geometry.dies_per_channel`", "= 0", "allowed: 1..=64"]);
}

#[test]
fn inconsistent_geometry_is_bad_input() {
    let dir = temp_dir("geometry");
    let err = bad_profile(&dir, "geometry.toml", "pages_per_block = 48", "pages_per_block = 50");
    assert_names(&err, &["key `geometry.pages_per_block`", "= 50", "a multiple of 3"]);
}

#[test]
fn timing_out_of_range_is_bad_input() {
    let dir = temp_dir("timing");
    let err = bad_profile(&dir, "timing.toml", "t_r_us = [50.0]", "t_r_us = [5000.0]");
    assert_names(&err, &["key `timing.t_r_us`", "= 5000", "allowed: 1..=2000"]);
}

#[test]
fn user_capacity_above_raw_is_bad_input() {
    let dir = temp_dir("capacity");
    let err =
        bad_profile(&dir, "capacity.toml", "user_capacity_bytes = 83_886_080", "user_capacity_bytes = 104_857_600");
    assert_names(&err, &["key `host.user_capacity_bytes`", "= 104857600", "less than the raw NAND"]);
}

#[test]
fn missing_file_is_bad_input() {
    let dir = temp_dir("missing");
    let path = dir.join("no-such-profile.toml");
    let path = path.to_str().unwrap_or_default();
    let o = ssdlab(&["drive", "show", path]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: ") && err.contains(path), "names the file: {err}");
}

#[test]
fn unknown_subcommand_is_bad_input() {
    let o = ssdlab(&["no-such-command"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
