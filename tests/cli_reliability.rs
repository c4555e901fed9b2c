//! Issue 15 end to end: runs that cannot fit in memory fail up front (exit 2, naming the flag),
//! bad output paths fail before any simulation, impossible measurements are refused, and
//! signals leave what was finished on disk.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test

use std::path::PathBuf;
use std::process::{Command, Output};

mod common;
use common::{bin, ssdlab, stderr, temp_dir};

/// `ssdlab ARGS` under an address-space limit of `kib` KiB.
fn ssdlab_limited(kib: u64, args: &str) -> Output {
    let script = format!("ulimit -v {kib} && exec \"{}\" {args}", bin());
    Command::new("sh").arg("-c").arg(script).output().expect("run sh")
}

const HEAD: &str = common::MEASURED_CSV_HEAD;

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

/// A job that simulates for several wall seconds, so a check made after it would be slow.
fn long_job(dir: &std::path::Path) -> String {
    let job = dir.join("long.fio");
    std::fs::write(&job, "[w]\nrw=randread\niodepth=1\ntime_based\nruntime=10m\n").unwrap();
    job.display().to_string()
}

#[test]
fn bad_output_paths_fail_in_under_a_second_before_any_simulation() {
    let dir = temp_dir("out");
    let job = long_job(&dir);
    let d = dir.display().to_string();
    let missing = format!("{d}/no/such/dir/x.json");
    let csv = dir.join("m.csv");
    std::fs::write(&csv, format!("{HEAD}rr,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,38000,iops,\n"))
        .unwrap();
    let csv = csv.display().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", &job, "--drive", "tiny", "--output", &d],
        vec!["run", &job, "--drive", "tiny", "--output", &missing],
        vec!["run", &job, "--drive", "tiny", "--output", "/proc/x"],
        vec!["run", &job, "--drive", "tiny", "--output", "/dev/null", "--timeseries", &d],
        vec!["run", &job, "--drive", "tiny", "--output", "/dev/null", "--timeseries", "/proc/x.csv"],
        vec!["sweep", &job, "--drive", "tiny", "--out", "/proc/x"],
        vec!["fob", "--drive", "tiny", "--out", "/proc/x"],
        vec!["calibrate", "--drive", "tiny", "--measured", &csv, "--out", &d],
        vec!["validate", "--measured", &csv, "--out", "/proc/x"],
    ];
    for args in cases {
        let t0 = std::time::Instant::now();
        let o = ssdlab(&args);
        let secs = t0.elapsed().as_secs_f64();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains("--out") || e.contains("--timeseries"), "{args:?}: {e}");
        assert!(secs < 1.0, "{args:?} took {secs:.2} s to fail");
    }
}

#[test]
fn impossible_measurements_are_listed_and_a_file_with_no_runnable_row_is_exit_2() {
    let dir = temp_dir("measured");
    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        format!(
            "{HEAD}\
             zero,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,0,iops,\n\
             neg,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,-5,iops,\n\
             cov,tiny,,,ezfio,steady,4k 70/30,4k,70,yes,,,cov,5000,percent,\n\
             cap,tiny,-1,,fio,steady,4k random read,4k,100,yes,32,1,iops,38000,iops,\n\
             mix,tiny,,,fio,steady,4k random read,4k,150,yes,32,1,iops,38000,iops,\n"
        ),
    )
    .unwrap();
    let o = ssdlab(&["validate", "--measured", bad.to_str().unwrap()]);
    let (out, e) = (String::from_utf8_lossy(&o.stdout).into_owned(), stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{out}{e}");
    assert!(e.contains("no row could run"), "{e}");
    for reason in [
        "zero",
        "neg",
        "column `value`: 0 is out of range",
        "column `value`: -5",
        "cov ",
        "a CoV of",
        "column `user_capacity_tb`: -1 is out of range (allowed 0 < TB",
        "column `read_pct`: 150",
    ] {
        assert!(out.contains(reason), "`{reason}` missing from:\n{out}");
    }
    assert!(!out.contains("inf%"), "{out}");

    // One good row runs; the bad one beside it is listed and the command succeeds.
    let mixed = dir.join("mixed.csv");
    std::fs::write(
        &mixed,
        format!(
            "{HEAD}\
             zero,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,0,iops,\n\
             rr,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,38000,iops,\n"
        ),
    )
    .unwrap();
    let o = ssdlab(&["validate", "--measured", mixed.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("1 rows run, 1 skipped") && out.contains("column `value`: 0"), "{out}");

    // calibrate on impossible values writes no profile.
    let prof = dir.join("cal.toml");
    let o =
        ssdlab(&["calibrate", "--drive", "tiny", "--measured", bad.to_str().unwrap(), "--out", prof.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!prof.exists(), "a profile was written from impossible measurements");
}

fn sigterm(child: &std::process::Child) {
    // SAFETY: kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(rc, 0, "kill failed");
}

#[test]
fn sigterm_on_run_writes_the_finished_part_marked_interrupted() {
    let dir = temp_dir("sigrun");
    let job = long_job(&dir);
    let out = dir.join("r.json");
    let child = Command::new(bin())
        .args(["run", &job, "--drive", "tiny", "--output-format", "json", "--output", out.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    sigterm(&child);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["ssdlab"]["interrupted"], serde_json::Value::Bool(true));
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(ios > 1000, "only {ios} I/Os before the signal");
}

#[test]
fn a_sweep_stopped_by_sigterm_resumes_to_the_same_table_as_a_clean_sweep() {
    let dir = temp_dir("sigsweep");
    let job = dir.join("sw.fio");
    std::fs::write(
        &job,
        "[global]\ngroup_reporting\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\
         [mix]\nstonewall\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=16\ntime_based\nruntime=120\n",
    )
    .unwrap();
    let (clean, stopped) = (dir.join("clean"), dir.join("stopped"));
    let args = |out: &PathBuf| -> Vec<String> {
        ["sweep", job.to_str().unwrap(), "--drive", "tiny", "--power-cap", "none,1.95,2.2", "--seeds", "2"]
            .iter()
            .map(|s| s.to_string())
            .chain(["--threads".into(), "2".into(), "--out".into(), out.display().to_string()])
            .collect()
    };
    let o = Command::new(bin()).args(args(&clean)).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!clean.join("checkpoint").exists(), "a finished sweep leaves no checkpoint");

    let child = Command::new(bin()).args(args(&stopped)).stderr(std::process::Stdio::piped()).spawn().unwrap();
    // Stop once the first point is checkpointed, while others run.
    let cp = stopped.join("checkpoint");
    let t0 = std::time::Instant::now();
    while std::fs::read_dir(&cp).map_or(0, |d| {
        d.filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().starts_with("point-"))).count()
    }) == 0
    {
        assert!(t0.elapsed().as_secs() < 120, "no point finished");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    sigterm(&child);
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("ssdlab sweep --resume"), "{e}");
    let partial: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stopped.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(partial["interrupted"], serde_json::Value::Bool(true));
    let n = partial["rows"].as_array().unwrap().len();
    assert!((1..6).contains(&n), "{n} rows after the signal");

    let o = ssdlab(&["sweep", "--resume", stopped.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in ["sweep.csv", "sweep.json"] {
        let (a, b) = (std::fs::read(clean.join(f)).unwrap(), std::fs::read(stopped.join(f)).unwrap());
        assert!(a == b, "{f} of the resumed sweep differs from the clean one");
    }
    assert!(!cp.exists());
}

#[test]
fn read_jobs_open_read_only_and_image_files_with_a_filesystem_are_protected() {
    let dir = temp_dir("real");
    let (w, r) = (dir.join("w.fio"), dir.join("r.fio"));
    std::fs::write(&w, "[w]\nrw=randwrite\nbs=4k\niodepth=4\nsize=16m\nnumber_ios=256\n").unwrap();
    std::fs::write(&r, "[r]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=256\n").unwrap();
    let (w, r) = (w.to_str().unwrap(), r.to_str().unwrap());
    let run = |job: &str, target: &PathBuf, extra: &[&str]| {
        let mut args = vec!["run", job, "--target", target.to_str().unwrap(), "--output", "/dev/null"];
        args.extend(extra);
        ssdlab(&args)
    };
    // A read job on a missing file fails without creating it (no O_CREAT).
    let missing = dir.join("missing.img");
    let o = run(r, &missing, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!missing.exists(), "a read-only job created its target");
    // A read job over more than the file holds is refused up front (fio would lay the file out
    // first; reading past its end would time holes and short reads, not the device).
    let short = dir.join("short.img");
    std::fs::write(&short, vec![0u8; 1 << 20]).unwrap();
    let r16 = dir.join("r16.fio");
    std::fs::write(&r16, "[r]\nrw=randread\nbs=4k\nsize=16m\nnumber_ios=64\n").unwrap();
    let o = run(r16.to_str().unwrap(), &short, &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("exceeds the size 1048576"), "{e}");
    assert_eq!(std::fs::metadata(&short).unwrap().len(), 1 << 20, "the short file was extended");
    // An image holding an ext4 superblock: writes refused unless --allow-destroy, reads fine.
    let img = dir.join("ext4.img");
    let mut data = vec![0u8; 16 << 20];
    data[1080] = 0x53;
    data[1081] = 0xEF;
    std::fs::write(&img, &data).unwrap();
    let o = run(w, &img, &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("ext") && e.contains("--allow-destroy"), "{e}");
    assert!(std::fs::read(&img).unwrap() == data, "the image changed");
    let o = run(r, &img, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(w, &img, &["--allow-destroy"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Starts `ssdlab ARGS`, sends SIGTERM after `after`, and returns its output.
fn terminated_after(args: &[&str], after: std::time::Duration) -> Output {
    let child = Command::new(bin())
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    sigterm(&child);
    let t = std::time::Instant::now();
    let o = child.wait_with_output().unwrap();
    assert!(t.elapsed().as_secs() < 20, "took {:?} to stop after SIGTERM", t.elapsed());
    o
}

#[test]
fn sigterm_on_validate_keeps_the_finished_rows_marked_interrupted() {
    let dir = temp_dir("sigval");
    let csv = dir.join("m.csv");
    // A QD1 read on a fresh tiny drive takes about a second; each steady random-write row
    // preconditions a drive with 2 drive writes first, about 4 s of a core (one such row was
    // once thought to take minutes, and a loaded machine could finish it between two waits
    // below): 32 of them (about 50 s on two cores) keep the run going well past the last wait.
    let drives = ["generic-tlc", "generic-qlc", "solidigm-d7-p5520", "solidigm-d5-p5430"];
    let slow: String = (0..32)
        .map(|i| format!("slow{i},{},,,ezfio,steady,4k random write,4k,0,yes,,,iops,20000,iops,\n", drives[i % 4]))
        .collect();
    std::fs::write(
        &csv,
        format!("{HEAD}quick,tiny,,,fio,fob,4k random read QD1,4k,100,yes,1,1,mean_latency,60,us,\n{slow}"),
    )
    .unwrap();
    let out = dir.join("v");
    let args = ["validate", "--measured", csv.to_str().unwrap(), "--out", out.to_str().unwrap()];
    // Give a loaded machine more time before concluding the quick row cannot finish first.
    for wait_s in [4, 10, 25] {
        let o = terminated_after(&args, std::time::Duration::from_secs(wait_s));
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("validation.json")).unwrap()).unwrap();
        assert_eq!(v["interrupted"], serde_json::Value::Bool(true));
        let skipped = v["skipped"].as_array().unwrap();
        assert!(skipped.iter().any(|s| s["id"] == "slow31" && s["reason"] == "not run: interrupted"), "{v}");
        if v["rows"].as_array().unwrap().iter().any(|r| r["id"] == "quick") {
            assert!(std::fs::read_to_string(out.join("validation.txt")).unwrap().contains("INTERRUPTED"));
            return;
        }
    }
    panic!("the quick row never finished before the signal");
}

#[test]
fn sigterm_on_calibrate_writes_the_best_fit_so_far_marked_interrupted() {
    let dir = temp_dir("sigcal");
    let csv = dir.join("m.csv");
    std::fs::write(
        &csv,
        format!(
            "{HEAD}rr32,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,30000,iops,\n\
             rr1,tiny,,,fio,steady,4k random read QD1,4k,100,yes,1,1,mean_latency,70,us,\n\
             rw32,tiny,,,fio,steady,4k random write,4k,0,yes,32,1,iops,9000,iops,\n"
        ),
    )
    .unwrap();
    let out = dir.join("cal.toml");
    let args = [
        "calibrate",
        "--drive",
        "tiny",
        "--measured",
        csv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--params",
        "t_r_us,read_overhead_us,t_prog_us",
        "--max-iter",
        "50",
    ];
    // Signalled before its starting point is simulated, the fit has nothing to write: wait longer.
    // The whole fit takes ~3 s (3 iterations), so the waits step finely.
    for wait_ms in [500, 1000, 1500, 2000, 2500, 3000, 4000, 6000] {
        let o = terminated_after(&args, std::time::Duration::from_millis(wait_ms));
        assert_eq!(o.status.code(), Some(1), "finished before the signal at {wait_ms} ms: {}", stderr(&o));
        if let Ok(text) = std::fs::read_to_string(&out) {
            assert!(text.contains("# INTERRUPTED after"), "{text}");
            assert!(stderr(&o).contains("best fit so far"), "{}", stderr(&o));
            let o = ssdlab(&["drive", "show", out.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(0), "the interrupted fit does not load: {}", stderr(&o));
            return;
        }
        assert!(stderr(&o).contains("nothing fitted"), "{}", stderr(&o));
    }
    panic!("the fit never got past its starting point before the signal");
}
