//! Our JSON against real fio 3 output (tests/data, produced by fio 3.33 on a 4k randrw job).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::report::{fio_json, JsonOptions};
use serde_json::Value;

use crate::report::{sample_result, RANDRW};

fn load(name: &str) -> Value {
    let path = format!("{}/../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every key path below `v` with its JSON type; children of `bins` (keys are data) collapse
/// to one `<ns>` entry.
fn paths(v: &Value, prefix: &str, out: &mut Vec<(String, &'static str)>) {
    out.push((prefix.to_string(), kind(v)));
    if let Value::Object(m) = v {
        for (k, child) in m {
            let key = if prefix.ends_with(".bins") { "<ns>" } else { k.as_str() };
            paths(child, &format!("{prefix}.{key}"), out);
        }
    }
    out.sort();
    out.dedup();
}

fn compare(fio_file: &str, plus: bool) {
    let fio = load(fio_file);
    let ours = fio_json(&sample_result(RANDRW), &JsonOptions { plus, ..JsonOptions::default() });
    for dir in ["read", "write"] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        paths(&ours["jobs"][0][dir], dir, &mut a);
        paths(&fio["jobs"][0][dir], dir, &mut b);
        let missing: Vec<_> = a.iter().filter(|p| !b.contains(p)).collect();
        assert!(missing.is_empty(), "ours but not fio's ({fio_file}): {missing:?}");
        let lacking: Vec<_> = b.iter().filter(|p| !a.contains(p)).collect();
        assert!(lacking.is_empty(), "fio's but not ours ({fio_file}): {lacking:?}");
    }
    let keys = |v: &Value| -> Vec<String> { v.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default() };
    assert_eq!(keys(&ours["jobs"][0]), keys(&fio["jobs"][0]), "job-level keys");
    for k in ["latency_ns", "latency_us", "latency_ms", "iodepth_level", "iodepth_submit", "iodepth_complete", "sync"] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        paths(&ours["jobs"][0][k], k, &mut a);
        paths(&fio["jobs"][0][k], k, &mut b);
        assert_eq!(a, b, "{k}");
    }
    for k in keys(&ours).iter().filter(|k| k.as_str() != "ssdlab") {
        assert_eq!(kind(&ours[k]), kind(&fio[k]), "top-level {k}");
    }
}

#[test]
fn json_key_paths_and_types_match_real_fio() {
    compare("fio-3-randrw.json", false);
}

#[test]
fn json_plus_key_paths_and_types_match_real_fio() {
    compare("fio-3-randrw-jsonplus.json", true);
}
