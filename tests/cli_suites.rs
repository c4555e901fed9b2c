//! Suites through the `ssdlab` binary: exit codes and the files they write.

mod common;
use common::{ssdlab, temp_dir};

#[test]
fn act_passes_at_low_load_and_exits_1_at_absurd_load() {
    let dir = temp_dir("act");
    let d = dir.to_str().unwrap();
    let ok = ssdlab(&["act", "--drive", "tiny", "--hours", "0.01", "--slice-seconds", "12", "--out", d]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("PASS"));
    for f in ["act.json", "act.csv", "act.svg"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("act.json")).unwrap()).unwrap();
    assert_eq!(v["config"]["seed"], 1);
    let bad =
        ssdlab(&["act", "--drive", "tiny", "--load", "300", "--hours", "0.005", "--slice-seconds", "9", "--out", d]);
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn bad_suite_options_exit_2() {
    let dir = temp_dir("bad");
    let o = ssdlab(&["pts", "iops", "--drive", "tiny", "--max-rounds", "3", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("max_rounds"));
}
