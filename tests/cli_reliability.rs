//! Issue 15 end to end: runs that cannot fit in memory fail up front (exit 2, naming the flag),
//! bad output paths fail before any simulation, impossible measurements are refused, and
//! signals leave what was finished on disk.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ssdlab")
}

fn ssdlab(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run the ssdlab binary")
}

/// `ssdlab ARGS` under an address-space limit of `kib` KiB.
fn ssdlab_limited(kib: u64, args: &str) -> Output {
    let script = format!("ulimit -v {kib} && exec \"{}\" {args}", bin());
    Command::new("sh").arg("-c").arg(script).output().expect("run sh")
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-cli-rel-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_drive_too_big_for_the_memory_limit_fails_up_front_naming_the_flag() {
    let dir = temp_dir("mem");
    let job = dir.join("r.fio");
    std::fs::write(&job, "[r]\nrw=randread\nruntime=1\n").unwrap();
    // generic-tlc at scale 1 needs ~16 GiB of mapping tables; 3 GB of address space is not enough.
    let o = ssdlab_limited(3_000_000, &format!("run {} --drive generic-tlc --scale 1/1", job.display()));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("mapping tables") && e.contains("ulimit -v") && e.contains("use --scale 1/"), "{e}");
    // The scale it advises does run under the same limit.
    let advised = e.split("use --scale ").nth(1).and_then(|s| s.split_whitespace().next()).unwrap().to_string();
    let o = ssdlab_limited(3_000_000, &format!("run {} --drive generic-tlc --scale {advised}", job.display()));
    assert_eq!(o.status.code(), Some(0), "--scale {advised}: {}", stderr(&o));

    let o = ssdlab_limited(3_000_000, "bench --full-scale --drive-writes 0.01 --segments 1");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("drop --full-scale"), "{e}");
}
