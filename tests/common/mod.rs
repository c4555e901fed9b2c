//! Helpers shared by the integration tests of the `ssdlab` binary: running it, a directory of
//! the test's own that is removed when the test ends (passed or failed), the test data folder.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test
// Each test file uses some of these.
#![allow(dead_code)]

pub mod browser;
pub mod watch;

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ssdlab")
}

/// `ssdlab ARGS`, run to completion.
pub fn ssdlab(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run the ssdlab binary")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A test's directory (a `Path` by deref), deleted on drop.
pub struct TestDir(tempfile::TempDir);

impl Deref for TestDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A new empty directory named after `test` under the system's temp dir.
pub fn temp_dir(test: &str) -> TestDir {
    let dir = tempfile::Builder::new().prefix(&format!("ssdlab-{test}-")).tempdir().expect("create temp dir");
    TestDir(dir)
}

/// `tests/data/NAME`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// [`temp_dir`] under cargo's target directory, on the disk the build is on: for files opened
/// with O_DIRECT, which a tmpfs `/tmp` refuses.
pub fn disk_temp_dir(test: &str) -> TestDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("ssdlab-{test}-"))
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("create temp dir");
    TestDir(dir)
}

/// Whether fio (`/usr/bin/fio`, Debian's 3.33) can be run. Without it a test fails under CI
/// (`CI=true`); outside CI it is skipped only on request (`SSDLAB_SKIP_FIO=1`), saying so.
pub fn fio_or_skip() -> bool {
    if Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return true;
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if !in_ci && std::env::var("SSDLAB_SKIP_FIO").is_ok_and(|v| v == "1") {
        eprintln!("SKIPPED: fio is not installed (SSDLAB_SKIP_FIO=1)");
        return false;
    }
    panic!("fio is not installed: run scripts/install-test-deps.sh (or set SSDLAB_SKIP_FIO=1 outside CI)");
}

/// For a test that runs real fio: its own directory on disk and a zero-filled `data.img` of
/// `bytes` in it, or `None` when fio is skipped ([`fio_or_skip`]).
pub fn fio_scratch(test: &str, bytes: u64) -> Option<(TestDir, PathBuf)> {
    if !fio_or_skip() {
        return None;
    }
    let dir = disk_temp_dir(test);
    let data = dir.join("data.img");
    std::fs::write(&data, vec![0u8; usize::try_from(bytes).expect("a test file's size")]).unwrap();
    Some((dir, data))
}

/// The header of a measured CSV (`../shared/calibration/measured.csv`'s columns).
pub const MEASURED_CSV_HEAD: &str =
    "id,drive,user_capacity_tb,power_cap_w,tool,state,workload,bs,read_pct,random,qd,jobs,metric,value,unit,note\n";

/// Runs real fio on `job` with its JSON report in `json` (read back as its stdout), in `cwd`
/// when given.
pub fn run_fio(job: &Path, json: &Path, cwd: Option<&Path>) -> Output {
    let mut cmd = Command::new("fio");
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let out =
        cmd.args(["--output-format=json", &format!("--output={}", json.display())]).arg(job).output().expect("run fio");
    Output { stdout: std::fs::read(json).unwrap_or_default(), ..out }
}

/// (action, offset, length) of every I/O line of a fio iolog v3, in log order.
pub fn iolog_ios(path: &Path) -> Vec<(String, u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(text.lines().next(), Some("fio version 3 iolog"), "{}", path.display());
    text.lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>().as_slice() {
            [_, _, act, off, len] => Some((act.to_string(), off.parse().unwrap(), len.parse().unwrap())),
            _ => None,
        })
        .collect()
}

/// The JSON report in a program's output: fio prints its warnings ahead of it.
pub fn json_report(out: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(out);
    let at = text.find('{').unwrap_or_else(|| panic!("no JSON object in: {text}"));
    serde_json::from_str(&text[at..]).unwrap_or_else(|e| panic!("JSON report: {e}: {text}"))
}

/// Writes the job `job(LOG)` twice into `dir`, once with `TAG.fio.log` and once with
/// `TAG.ssd.log` as the log it names, and runs the first through real fio and the second through
/// `ssdlab run --target DATA`; both must succeed. Returns the two logs' paths (fio's, ssdlab's).
pub fn fio_and_ssdlab_target(dir: &Path, data: &Path, tag: &str, job: impl Fn(&Path) -> String) -> (PathBuf, PathBuf) {
    let (fio_log, ssd_log) = (dir.join(format!("{tag}.fio.log")), dir.join(format!("{tag}.ssd.log")));
    let (fio_job, ssd_job) = (dir.join(format!("{tag}.fio")), dir.join(format!("{tag}.ssd.fio")));
    std::fs::write(&fio_job, job(&fio_log)).unwrap();
    let out = Command::new("fio").arg(&fio_job).output().expect("run fio");
    assert!(out.status.success(), "fio {tag}: {}", stderr(&out));
    std::fs::write(&ssd_job, job(&ssd_log)).unwrap();
    let out = Command::new(bin())
        .args(["run", ssd_job.to_str().unwrap(), "--target", data.to_str().unwrap()])
        .output()
        .expect("run ssdlab");
    assert!(out.status.success(), "ssdlab {tag}: {}", stderr(&out));
    (fio_log, ssd_log)
}

/// `ssdlab run JOB --target DATA --target-size BYTES` with the JSON report on stdout.
pub fn run_ssdlab_target(job: &Path, data: &Path, bytes: u64) -> Output {
    Command::new(bin())
        .args(["run", job.to_str().unwrap(), "--target", data.to_str().unwrap()])
        .args(["--target-size", &bytes.to_string(), "--output-format", "json"])
        .output()
        .expect("run ssdlab")
}

/// Runs fio on `jobs` (a job file that starts with `[global]`) with `ioengine=psync`, O_DIRECT
/// and `data` as its file added to the global section, from `dir`: fio's JSON output (fio must
/// succeed) and the run's wall time in ms.
pub fn fio_timed(dir: &Path, jobs: &str, data: &Path) -> (Output, u128) {
    let global = format!("[global]\nioengine=psync\ndirect=1\nfilename={}\n", data.display());
    let path = dir.join("f.fio");
    std::fs::write(&path, jobs.replacen("[global]\n", &global, 1)).unwrap();
    let t0 = std::time::Instant::now();
    let out = Command::new("fio").args(["--output-format=json", path.to_str().unwrap()]).output().unwrap();
    let wall_ms = t0.elapsed().as_millis();
    assert!(out.status.success(), "fio: {}", String::from_utf8_lossy(&out.stderr));
    (out, wall_ms)
}
