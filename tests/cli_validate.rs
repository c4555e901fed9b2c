//! `ssdlab validate` and `ssdlab calibrate` end to end on the tiny drive: the JSON schema of
//! issue 6, skipped rows with reasons, exit code 2 with file/line/column for bad CSVs, and a
//! calibrated profile that loads.
#![allow(clippy::expect_used)] // a panic in test code is a failed test

use serde_json::Value;
use std::path::PathBuf;

mod common;
use common::{ssdlab, temp_dir};

const HEAD: &str = common::MEASURED_CSV_HEAD;

fn small_csv(dir: &std::path::Path) -> PathBuf {
    let p = dir.join("m.csv");
    let text = format!(
        "{HEAD}\
         rr,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,38000,iops,\n\
         rr1,tiny,,,fio,steady,4k random read QD1,4k,100,yes,1,1,mean_latency,60,us,\n\
         rw,tiny,,,ezfio,steady,4k random write,4k,0,yes,,,iops,20000,iops,\n\
         other,no-such-drive,,,fio,steady,4k random read,4k,100,yes,1,1,iops,1,iops,\n\
         odd,tiny,,,fio,steady,4k random read,4k,100,yes,1,1,smell,1,x,\n"
    );
    std::fs::write(&p, text).expect("write csv");
    p
}

/// `dir/name`, written with the measured.csv header and `rows`.
fn csv_of(dir: &std::path::Path, name: &str, rows: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("{HEAD}{rows}")).expect("write csv");
    p
}

/// `ssdlab validate` on `csv` with `extra` flags, JSON on stdout and the report files in `out`.
fn validate_json(csv: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["validate", "--measured", csv.to_str().expect("UTF-8 path")];
    args.extend_from_slice(extra);
    args.extend(["--output-format", "json", "--out", out.to_str().expect("UTF-8 path")]);
    let o = ssdlab(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

#[test]
fn validate_json_has_the_issue_schema_and_skips_with_reasons() {
    let dir = temp_dir("schema");
    let csv = small_csv(&dir);
    let out = dir.join("out");
    let v = validate_json(&csv, &out, &[]);
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 3);
    for r in rows {
        for k in ["id", "predicted", "measured", "unit", "rel_error"] {
            assert!(!r[k].is_null(), "row lacks {k}: {r}");
        }
        let (p, m, e) =
            (r["predicted"].as_f64().unwrap(), r["measured"].as_f64().unwrap(), r["rel_error"].as_f64().unwrap());
        assert!(((p - m) / m - e).abs() < 1e-9);
        // Each prediction within what tiny's profile allows (2 dies, one read at a time per die,
        // t_r 50 us, read_overhead 8 us; 96 KiB per die programmed in 1.2 ms).
        let (lo, hi) = match r["id"].as_str() {
            // QD32 over 2 dies keeps both reading: at most 2 reads per 50 us, at least 3/4 of it.
            Some("rr") => (30_000.0, 40_000.0),
            // QD1: a page read, the read overhead, then the bus and PCIe transfers of 4 KiB.
            Some("rr1") => (58.0, 75.0),
            // Steady random writes: under 2 x 96 KiB / 1.2 ms of 4 KiB writes at WA >= 2 (20% OP).
            Some("rw") => (2_000.0, 20_000.0),
            other => panic!("unexpected row {other:?}"),
        };
        assert!(lo <= p && p <= hi, "{}: predicted {p}, allowed {lo}..={hi}", r["id"]);
    }
    let rw = rows.iter().find(|r| r["id"] == "rw").unwrap();
    assert!(rw["assumptions"].to_string().contains("256 threads"), "ezFIO default stated: {rw}");
    let skipped = v["skipped"].as_array().expect("skipped");
    let reason =
        |id: &str| skipped.iter().find(|s| s["id"] == id).map(|s| s["reason"].as_str().unwrap_or("").to_string());
    assert!(reason("other").unwrap().contains("no drive profile"));
    assert!(reason("odd").unwrap().contains("metric `smell`"));
    assert!(v["median_abs_rel_error"].as_f64().is_some() && v["max_abs_rel_error"].as_f64().is_some());
    for f in ["validation.json", "validation.svg", "validation.txt"] {
        assert!(out.join(f).exists(), "{f} written");
    }
    let svg = std::fs::read_to_string(out.join("validation.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("y = x"));
}

#[test]
fn table_output_lists_worst_rows_first() {
    let dir = temp_dir("table");
    let csv = small_csv(&dir);
    let o = ssdlab(&["validate", "--measured", csv.to_str().unwrap()]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let errs: Vec<f64> = text
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().last()?.trim_end_matches('%').parse::<f64>().ok())
        .map(f64::abs)
        .collect();
    assert_eq!(errs.len(), 3, "{text}");
    assert!(errs.windows(2).all(|w| w[0] >= w[1]), "{text}");
    assert!(text.contains("skipped:"));
}

#[test]
fn bad_or_missing_csv_exits_2_naming_file_line_column() {
    let dir = temp_dir("bad");
    let o = ssdlab(&["validate", "--measured", dir.join("missing.csv").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.csv"));
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, format!("{HEAD}rr,tiny,,,fio,steady,w,4k,100,yes,deep,1,iops,1,iops,\n")).unwrap();
    let o = ssdlab(&["validate", "--measured", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("bad.csv") && err.contains("line 2") && err.contains("column `qd`"), "{err}");
    std::fs::write(&bad, "id,drive\nx,tiny\n").unwrap();
    let o = ssdlab(&["validate", "--measured", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing column"));
}

#[test]
fn calibrate_writes_a_profile_that_loads_with_the_fit_recorded() {
    let dir = temp_dir("calibrate");
    let csv = small_csv(&dir);
    let out = dir.join("tiny-cal.toml");
    let o = ssdlab(&[
        "calibrate",
        "--drive",
        "tiny",
        "--measured",
        csv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--params",
        "t_r_us",
        "--max-iter",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("# Calibrated by `ssdlab calibrate` from tiny"), "{text}");
    assert!(text.contains("timing.t_r_us") && text.contains("seed 1"));
    let o = ssdlab(&["drive", "show", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `--profile` runs the rows of a drive that is not embedded on the given TOML: a copy of tiny
/// under another name predicts what tiny does; without it the rows are skipped, and two files
/// for one drive are refused (exit 2).
#[test]
fn validate_runs_a_drive_that_is_not_embedded_from_its_profile() {
    let dir = temp_dir("profile-flag");
    let o = ssdlab(&["drive", "show", "tiny"]);
    assert!(o.status.success());
    let tiny = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(tiny.contains("name = \"tiny\""), "{tiny}");
    let copy = dir.join("copy.toml");
    std::fs::write(&copy, tiny.replacen("name = \"tiny\"", "name = \"tiny-copy\"", 1)).expect("write profile");
    let csv = csv_of(
        &dir,
        "m.csv",
        "a,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,38000,iops,\n\
         b,tiny-copy,,,fio,steady,4k random read,4k,100,yes,32,1,iops,38000,iops,\n",
    );
    let copy_arg = copy.to_str().expect("UTF-8 path");
    let v = validate_json(&csv, &dir.join("out"), &["--profile", copy_arg]);
    let rows = v["rows"].as_array().expect("rows");
    let predicted = |id: &str| rows.iter().find(|r| r["id"] == id).map(|r| r["predicted"].clone());
    assert!(predicted("b").is_some(), "the copy's row runs: {v}");
    assert_eq!(predicted("a"), predicted("b"), "the same profile predicts the same");
    let v = validate_json(&csv, &dir.join("out2"), &[]);
    assert!(v["skipped"].to_string().contains("no drive profile `tiny-copy`"), "{v}");
    let o = ssdlab(&[
        "validate",
        "--measured",
        csv.to_str().expect("UTF-8 path"),
        "--profile",
        copy_arg,
        "--profile",
        copy_arg,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("one profile per drive"));
}

/// `write_bandwidth_mbps` of the calibrated profile (as `drive show` resolves it), if set.
fn fitted_write_datapath(profile: &std::path::Path) -> Option<f64> {
    let o = ssdlab(&["drive", "show", profile.to_str().expect("UTF-8 path")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = text.lines().find(|l| l.starts_with("write_bandwidth_mbps"))?;
    line.split('=').nth(1)?.trim().parse().ok()
}

/// A limit the base profile leaves unset binds nothing at the start, so its forward difference
/// is zero there: the axis scan finds where it binds. tiny's 128 KiB sequential writes run at
/// ~133 MB/s (program-bound); measured at 60 MB/s, the fit sets the write datapath within 5% of
/// it, and without the scan (`--scan-points 0`) the limit cannot move and stays unset.
#[test]
fn calibrate_finds_a_limit_that_binds_nothing_at_the_start() {
    let dir = temp_dir("calibrate-scan");
    let csv = csv_of(&dir, "m.csv", "seqw,tiny,,,fio,steady,128k sequential write,128k,0,no,32,1,bandwidth,60,MB/s,\n");
    let fit = |scan: &str| {
        let out = dir.join(format!("tiny-scan{scan}.toml"));
        let o = ssdlab(&[
            "calibrate",
            "--drive",
            "tiny",
            "--measured",
            csv.to_str().expect("UTF-8 path"),
            "--out",
            out.to_str().expect("UTF-8 path"),
            "--params",
            "write_bandwidth_mbps",
            "--scan-points",
            scan,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        eprintln!("--scan-points {scan}:\n{}", String::from_utf8_lossy(&o.stdout));
        fitted_write_datapath(&out)
    };
    let scanned = fit("6").expect("the scan sets the write datapath");
    assert!((scanned / 60.0 - 1.0).abs() < 0.05, "fitted {scanned} MB/s against 60 measured");
    assert_eq!(fit("0"), None, "without the scan the unset limit cannot move");
}

/// A per-second spread row run with blocks shorter than the full-size drive's says so, with
/// the block lengths, in the JSON and the table (tiny: 16 word lines; 4 at 1/4); other rows
/// carry no such note.
#[test]
fn a_spread_row_run_with_short_blocks_states_the_block_length() {
    let dir = temp_dir("short-blocks");
    let csv = dir.join("m.csv");
    std::fs::write(
        &csv,
        format!(
            "{HEAD}\
             cov,tiny,,,ezfio,steady,4k random 70/30,4k,70,yes,,,cov,1.0,percent,\n\
             rw,tiny,,,ezfio,steady,4k random write,4k,0,yes,,,iops,20000,iops,\n"
        ),
    )
    .expect("write csv");
    let out = dir.join("out");
    let v = validate_json(&csv, &out, &["--scale", "1/4"]);
    let row = |id: &str| v["rows"].as_array().unwrap().iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(row("cov")["short_blocks"], serde_json::json!({"simulated": 4, "full_size": 16}));
    assert!(row("rw").get("short_blocks").is_none(), "{}", row("rw"));
    let table = std::fs::read_to_string(out.join("validation.txt")).unwrap();
    assert!(table.contains("blocks of 4 of the full-size drive's 16 word lines (scale 1/4)"), "{table}");
}
