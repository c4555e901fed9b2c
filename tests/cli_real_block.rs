//! The real-drive target on a real block device: a loop device over a sparse file (needs root,
//! `losetup`, `mkfs.ext4`, `mount`, `wipefs`; hence ignored by default:
//! `cargo test --release --test cli_real_block -- --ignored --nocapture`).
//!
//! Checks what a plain file cannot: the device is refused while it holds a filesystem or a
//! partition table (unless `--allow-destroy`) and always while it is mounted; on a clean device
//! a job runs with O_DIRECT, every block read back carries the stamp last written to it, and a
//! second run straight after the first is not refused as busy.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::ssdlab;

fn sh(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd).args(args).output().unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(out.status.success(), "{cmd} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// [`sh`], retried for up to 5 s: a device can stay claimed for a moment after the process
/// that used it exits (the kernel drops an io_uring in a background worker).
fn sh_retry(cmd: &str, args: &[&str]) -> String {
    for _ in 0..100 {
        let out = Command::new(cmd).args(args).output().unwrap_or_else(|e| panic!("{cmd}: {e}"));
        if out.status.success() {
            return String::from_utf8_lossy(&out.stdout).trim().to_string();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    sh(cmd, args)
}

/// A loop device over a sparse file, detached (and unmounted) on drop.
struct LoopDevice {
    dev: String,
    mount: PathBuf,
}

impl LoopDevice {
    fn new(dir: &Path, bytes: u64) -> LoopDevice {
        let img = dir.join("disk.img");
        std::fs::File::create(&img).and_then(|f| f.set_len(bytes)).expect("create the backing file");
        let dev = sh("losetup", &["-f", "--show", "--direct-io=on", img.to_str().unwrap()]);
        LoopDevice { dev, mount: dir.join("mnt") }
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mount).output();
        // If the last run's io_uring still holds it, the kernel detaches it once released.
        let _ = Command::new("losetup").args(["-d", &self.dev]).output();
    }
}

/// Runs `job` on the device; returns the exit code and stderr.
fn run_on(dev: &str, job: &Path, extra: &[&str]) -> (i32, String, Option<Value>) {
    let json = job.with_extension("json");
    let mut args = vec!["run", job.to_str().unwrap(), "--target", dev, "--output-format", "json"];
    args.extend_from_slice(&["--output", json.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let out = ssdlab(&args);
    let parsed = std::fs::read_to_string(&json).ok().and_then(|t| serde_json::from_str(&t).ok());
    let _ = std::fs::remove_file(&json);
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned(), parsed)
}

/// A DOS partition table with one Linux partition, written over the first sector.
fn write_mbr(dev: &str) {
    use std::io::Write;
    let mut mbr = [0u8; 512];
    mbr[446 + 4] = 0x83; // partition type: Linux
    mbr[446 + 8..446 + 12].copy_from_slice(&2048u32.to_le_bytes()); // first sector
    mbr[446 + 12..446 + 16].copy_from_slice(&204_800u32.to_le_bytes()); // sectors
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    let mut f = std::fs::OpenOptions::new().write(true).open(dev).expect("open the loop device");
    f.write_all(&mbr).and_then(|_| f.sync_all()).expect("write the partition table");
}

#[test]
#[ignore = "needs root and losetup; run with --ignored"]
fn block_device_is_refused_while_it_holds_data_and_runs_when_clean() {
    let dir = std::env::temp_dir().join(format!("ssdlab-real-block-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("mnt")).unwrap();
    let job = dir.join("randrw.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=io_uring\ndirect=1\ntime_based\nruntime=2\n\n[mixed]\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=16\n",
    )
    .unwrap();
    let lo = LoopDevice::new(&dir, 256 << 20);
    let dev = lo.dev.as_str();

    // Clean (all zeros): runs, O_DIRECT, every read block verified.
    let (code, err, json) = run_on(dev, &job, &["--verify"]);
    assert_eq!(code, 0, "clean device refused: {err}");
    let json = json.expect("result JSON");
    let job0 = &json["jobs"][0];
    let (r, w) = (job0["read"]["iops"].as_f64().unwrap(), job0["write"]["iops"].as_f64().unwrap());
    eprintln!("{dev}: 4 KiB 50/50 random QD16: {r:.0} read + {w:.0} write IOPS");
    assert!(r > 0.0 && w > 0.0);
    // Straight after a run the device may still be claimed by its io_uring: the next run waits.
    let (code, err, _) = run_on(dev, &job, &[]);
    assert_eq!(code, 0, "back-to-back run refused: {err}");

    // A filesystem: refused, and allowed with --allow-destroy.
    sh_retry("mkfs.ext4", &["-q", dev]);
    let (code, err, _) = run_on(dev, &job, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("refusing to write") && err.contains("ext"), "{err}");

    // Mounted: refused even with --allow-destroy.
    sh("mount", &[dev, lo.mount.to_str().unwrap()]);
    let (code, err, _) = run_on(dev, &job, &["--allow-destroy"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is mounted"), "{err}");
    sh("umount", &[lo.mount.to_str().unwrap()]);

    // A partition table: refused, then overwritten on request.
    sh("wipefs", &["-q", "-a", dev]);
    write_mbr(dev);
    let (code, err, _) = run_on(dev, &job, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mbr"), "{err}");
    let (code, err, _) = run_on(dev, &job, &["--allow-destroy"]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
