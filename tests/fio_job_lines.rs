//! A job file's lines read as real fio (Debian's fio 3.33) reads them: comments after an option
//! or a section header, `${NAME}` from the environment (empty when unset), `$ncpus` with bc's
//! integer arithmetic, `include FILE` relative to the job file, and `time_based` without a
//! runtime (a warning; the job runs size-based). Both run the file on the same small file, O_DIRECT:
//! per job, the same options echoed (aliases by their option's name, bare flags left out) and
//! the same `io_bytes` and `total_ios`.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in test code is a failed test

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod common;
use common::{bin, disk_temp_dir, fio_or_skip, json_report, stderr};

const JOB: &str = "[global]
ioengine=psync ; the engine
direct=1
filename=data.bin
size=$ncpus*512*1024  # bc computes it because $ncpus was substituted
[seq] ; the first job
readwrite=write
include frag.fio
description=a${SSDLAB_TEST_UNSET}b
[rand]
stonewall
rw=randread
bs=4k#a comment without a space
time_based
";

const FRAGMENT: &str = "; an included file: options of the section that includes it
bs=${SSDLAB_TEST_BS}   # from the environment
";

/// Per job: its options as echoed (fio 3.33 names an alias by its option, `readwrite` as `rw`,
/// and leaves bare flags such as `stonewall` out), read and write bytes and I/Os.
type Jobs = BTreeMap<String, (BTreeMap<String, String>, [u64; 4])>;

fn jobs_of(json: &str) -> (BTreeMap<String, String>, Jobs) {
    let v = json_report(json.as_bytes());
    let options = |o: &Value| -> BTreeMap<String, String> {
        let Some(m) = o.as_object() else { return BTreeMap::new() };
        m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect()
    };
    let jobs = v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().expect("a count");
            let counts =
                [n("read", "io_bytes"), n("write", "io_bytes"), n("read", "total_ios"), n("write", "total_ios")];
            (j["jobname"].as_str().expect("jobname").to_string(), (options(&j["job options"]), counts))
        })
        .collect();
    (options(&v["global options"]), jobs)
}

fn with_env(cmd: &mut Command, dir: &Path) {
    cmd.current_dir(dir).env("SSDLAB_TEST_BS", "16k").env_remove("SSDLAB_TEST_UNSET");
}

#[test]
fn comments_substitutions_includes_and_time_based_as_fio_reads_them() {
    if !fio_or_skip() {
        return;
    }
    let dir = disk_temp_dir("job-lines");
    std::fs::write(dir.join("lines.fio"), JOB).unwrap();
    std::fs::write(dir.join("frag.fio"), FRAGMENT).unwrap();
    std::fs::File::create(dir.join("data.bin")).unwrap().set_len(16 << 20).unwrap();

    let mut fio = Command::new("fio");
    with_env(&mut fio, &dir);
    let out = fio.args(["--output-format=json", "--output=fio.json", "lines.fio"]).output().expect("run fio");
    assert!(out.status.success(), "fio failed: {}", String::from_utf8_lossy(&out.stderr));
    let fio_text = std::fs::read_to_string(dir.join("fio.json")).unwrap();

    let mut ssd = Command::new(bin());
    with_env(&mut ssd, &dir);
    let out = ssd
        .args(["run", "lines.fio", "--target", "data.bin", "--output-format", "json", "--output", "ssdlab.json"])
        .output()
        .expect("run ssdlab");
    assert!(out.status.success(), "ssdlab failed: {}", stderr(&out));
    let warnings = stderr(&out);
    assert!(warnings.contains("$ncpus = "), "the host value is reported: {warnings}");
    assert!(warnings.contains("time_based requires a runtime"), "{warnings}");
    let ssd_text = std::fs::read_to_string(dir.join("ssdlab.json")).unwrap();

    let (fio_global, fio_jobs) = jobs_of(&fio_text);
    let (ssd_global, ssd_jobs) = jobs_of(&ssd_text);
    assert_eq!(ssd_global, fio_global);
    assert_eq!(ssd_jobs, fio_jobs);
    // What the file says, spelled out: 16 KiB writes from the environment over $ncpus x 512 KiB,
    // an unset variable gone, and the time_based job one pass of 4 KiB reads.
    let size: u64 = fio_global["size"].parse().expect("fio computed the size");
    assert!(size >= 512 * 1024 && size.is_multiple_of(512 * 1024), "size {size}");
    let (seq_opts, seq) = &ssd_jobs["seq"];
    assert_eq!((seq_opts["bs"].as_str(), seq_opts["description"].as_str()), ("16k", "ab"));
    assert_eq!(seq, &[0, size, 0, size / (16 << 10)]);
    assert_eq!(ssd_jobs["rand"].1, [size, 0, size / 4096, 0]);
}
