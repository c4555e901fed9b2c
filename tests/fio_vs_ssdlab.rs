//! The same job files through real fio (Debian's fio 3.33) and `ssdlab run --target` on the same
//! small file, both O_DIRECT: per job, identical `total_ios` and `io_bytes` (size-based jobs),
//! the same I/O offsets per loop from both `write_iolog`s (in order for sequential patterns, as
//! sets for random ones), every block exactly once per loop where the random map applies, and
//! the same keys in each job's JSON.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used, clippy::expect_used)] // a panic in test code is a failed test; casts are of the test's own small values

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

mod common;
use common::{disk_temp_dir, fio_or_skip, fio_scratch, iolog_ios, run_fio, run_ssdlab_target};

const FILE_BYTES: u64 = 16 << 20;

struct Case {
    name: &'static str,
    body: &'static str,
    /// Bytes fio moves per loop (or per pass of an `io_size`) and loops (passes).
    loop_bytes: u64,
    loops: u64,
    /// Offsets in the same order (sequential) or as per-loop sets (random map).
    ordered: bool,
    /// Reads and writes mixed at random: only the totals over directions must agree.
    mixed: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "seqwrite",
        body: "rw=write\nbs=64k\nsize=4m",
        loop_bytes: 4 << 20,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "seqread-loops",
        body: "rw=read\nbs=16k\nsize=2m\noffset=1m\nloops=2",
        loop_bytes: 2 << 20,
        loops: 2,
        ordered: true,
        mixed: false,
    },
    Case {
        // 512-byte O_DIRECT writes, as fio issues them where the kernel allows (the file's
        // block follows the kernel's O_DIRECT alignment, not a fixed 4 KiB).
        name: "seqwrite-512",
        body: "rw=write\nbs=512\nsize=256k",
        loop_bytes: 256 << 10,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "randwrite",
        body: "rw=randwrite\nbs=4k\nsize=4m",
        loop_bytes: 4 << 20,
        loops: 1,
        ordered: false,
        mixed: false,
    },
    Case {
        name: "randread-loops",
        body: "rw=randread\nbs=8k\nsize=2m\noffset=4m\nloops=3",
        loop_bytes: 2 << 20,
        loops: 3,
        ordered: false,
        mixed: false,
    },
    Case {
        name: "randrw-lfsr",
        body: "rw=randrw\nrwmixread=70\nbs=4k\nsize=2m\nrandom_generator=lfsr",
        loop_bytes: 2 << 20,
        loops: 1,
        ordered: false,
        mixed: true,
    },
    Case {
        name: "randrw-unified",
        body: "rw=randrw\nbs=4k\nsize=2m\nunified_rw_reporting=mixed",
        loop_bytes: 2 << 20,
        loops: 1,
        ordered: false,
        mixed: true,
    },
    Case {
        name: "seqwrite-holes",
        body: "rw=write:8k\nbs=4k\nsize=1m\noffset=2m\nloops=2",
        // fio's loop ends when the next offset leaves the region: a third of size per loop.
        loop_bytes: 352256,
        loops: 2,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "seqread-backwards",
        body: "rw=read:-8k\nbs=4k\nsize=512k\noffset=1m",
        loop_bytes: 512 << 10,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "strided-read",
        body: "rw=read\nbs=16k\nzonemode=strided\nzonesize=64k\nzonerange=1m\nzoneskip=512k\nsize=2m",
        loop_bytes: 2 << 20,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "strided-write-wrap",
        body: "rw=write\nbs=64k\nzonemode=strided\nzonesize=256k\nzonerange=2m\nsize=4m\noffset=8m",
        loop_bytes: 4 << 20,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    // fio's filesize: the file is the first filesize bytes; the region runs from offset to its
    // end, an absolute size is the amount, a percentage is of the file.
    Case {
        name: "filesize-seqwrite",
        body: "rw=write\nbs=64k\nfilesize=4m\noffset=1m",
        loop_bytes: 3 << 20,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "filesize-amount",
        body: "rw=write\nbs=64k\nfilesize=8m\nsize=2m\noffset=1m",
        loop_bytes: 2 << 20,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "filesize-percent",
        body: "rw=read\nbs=64k\nfilesize=6m\nsize=50%\noffset=1m",
        loop_bytes: 3 << 20,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "filesize-randread-loops",
        body: "rw=randread\nbs=8k\nfilesize=4m\noffset=2m\nloops=2",
        loop_bytes: 2 << 20,
        loops: 2,
        ordered: false,
        mixed: false,
    },
    // fio 3.33 reads KiB/MiB as powers of 1000 under its default kb_base=1024, and k/m as
    // powers of 1000 under kb_base=1000 (where KiB is 1024).
    Case {
        name: "kib-is-1000",
        body: "rw=write\nbs=4k\nsize=4096KiB",
        loop_bytes: 4_096_000,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "kb-base-1000",
        body: "bs=4KiB\nrw=write\nsize=4096k\noffset=1MiB\nkb_base=1000",
        loop_bytes: 4_096_000,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    // A size that is not a multiple of the block size (1MiB is 1,000,000 bytes to fio): fio
    // issues whole blocks until the size is reached, so a sequential job's last I/O runs past
    // it (16 x 64 KiB), while a random map holds only the whole blocks (244 x 4 KiB per loop,
    // and per pass of an io_size, whose last 1,728 bytes start no new pass).
    Case {
        name: "remainder-seq",
        body: "rw=write\nbs=64k\nsize=1MiB",
        loop_bytes: 16 << 16,
        loops: 1,
        ordered: true,
        mixed: false,
    },
    Case {
        name: "remainder-rand-loops",
        body: "rw=randwrite\nbs=4k\nsize=1MiB\nloops=2",
        loop_bytes: 244 << 12,
        loops: 2,
        ordered: false,
        mixed: false,
    },
    Case {
        name: "remainder-rand-io-size",
        body: "rw=randread\nbs=4k\nsize=1MiB\nio_size=3MiB",
        loop_bytes: 244 << 12,
        loops: 3,
        ordered: false,
        mixed: false,
    },
    Case {
        name: "randwrite-qd8",
        body: "rw=randwrite\nbs=16k\nsize=4m\niodepth=8",
        loop_bytes: 4 << 20,
        loops: 1,
        ordered: false,
        mixed: false,
    },
];

fn job_json(out: &std::process::Output, who: &str) -> Value {
    assert!(out.status.success(), "{who}: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{who} JSON: {e}: {}", String::from_utf8_lossy(&out.stdout)));
    v["jobs"][0].clone()
}

#[test]
fn fio_and_ssdlab_issue_the_same_ios() {
    // Its own subdirectory: it removes it at the end while the other tests still use theirs.
    let Some((dir, data)) = fio_scratch("fio-vs-cases", FILE_BYTES) else { return };
    for case in CASES {
        let (fio_log, ssd_log) =
            (dir.join(format!("{}.fio.log", case.name)), dir.join(format!("{}.ssd.log", case.name)));
        let job = |log: &Path| {
            format!(
                "[{}]\nfilename={}\nioengine=libaio\ndirect=1\n{}\nwrite_iolog={}\n",
                case.name,
                data.display(),
                case.body,
                log.display()
            )
        };
        let (fio_job, ssd_job) = (dir.join(format!("{}.fio", case.name)), dir.join(format!("{}.ssd.fio", case.name)));
        std::fs::write(&fio_job, job(&fio_log)).unwrap();
        std::fs::write(&ssd_job, job(&ssd_log)).unwrap();
        let fio = run_fio(&fio_job, &dir.join(format!("{}.fio.json", case.name)), None);
        let ssd = run_ssdlab_target(&ssd_job, &data, FILE_BYTES);
        let (f, s) = (job_json(&fio, "fio"), job_json(&ssd, "ssdlab"));
        let name = case.name;

        // Totals per direction (mixed jobs: over all directions; the split is random).
        let totals =
            |j: &Value, d: &str| (j[d]["total_ios"].as_u64().unwrap_or(0), j[d]["io_bytes"].as_u64().unwrap_or(0));
        if case.mixed {
            let sum = |j: &Value| {
                let (r, w, m) = (totals(j, "read"), totals(j, "write"), totals(j, "mixed"));
                (r.0 + w.0 + m.0, r.1 + w.1 + m.1)
            };
            assert_eq!(sum(&f), sum(&s), "{name}: total_ios, io_bytes");
        } else {
            for d in ["read", "write", "trim"] {
                assert_eq!(totals(&f, d), totals(&s, d), "{name} {d}: total_ios, io_bytes");
            }
        }
        assert_eq!(sum_bytes(&f), case.loop_bytes * case.loops, "{name}: fio moved loop_bytes x loops");

        // The same keys in each job object and each direction object.
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<String>>();
        assert_eq!(keys(&f), keys(&s), "{name}: job keys");
        let dir = if f.get("mixed").is_some() { "mixed" } else { "read" };
        assert_eq!(keys(&f[dir]), keys(&s[dir]), "{name}: {dir} keys");

        // Offsets per loop, from both iologs.
        let (fl, sl) = (iolog_ios(&fio_log), iolog_ios(&ssd_log));
        assert_eq!(fl.len(), sl.len(), "{name}: I/Os logged");
        let per_loop = |ios: &[(String, u64, u64)]| -> Vec<Vec<(u64, u64)>> {
            let mut loops = vec![Vec::new()];
            let mut bytes = 0;
            for (_, off, len) in ios {
                if bytes == case.loop_bytes {
                    loops.push(Vec::new());
                    bytes = 0;
                }
                loops.last_mut().unwrap().push((*off, *len));
                bytes += len;
            }
            loops
        };
        let (floops, sloops) = (per_loop(&fl), per_loop(&sl));
        assert_eq!(floops.len() as u64, case.loops, "{name}: loops in fio's log");
        for (k, (fo, so)) in floops.iter().zip(&sloops).enumerate() {
            if case.ordered {
                assert_eq!(fo, so, "{name} loop {k}: offsets in order");
            } else {
                let (fs, ss): (BTreeSet<_>, BTreeSet<_>) = (fo.iter().collect(), so.iter().collect());
                let only_fio: Vec<_> = fs.difference(&ss).take(5).collect();
                let only_ssd: Vec<_> = ss.difference(&fs).take(5).collect();
                assert!(
                    fs == ss,
                    "{name} loop {k}: offset sets differ: {} distinct in fio's log, {} in ssdlab's; \
                     only fio (first 5): {only_fio:?}; only ssdlab: {only_ssd:?}",
                    fs.len(),
                    ss.len()
                );
                assert_eq!(ss.len(), so.len(), "{name} loop {k}: every block exactly once");
            }
        }
        if !case.mixed {
            let actions: BTreeSet<&str> = fl.iter().chain(&sl).map(|io| io.0.as_str()).collect();
            assert_eq!(actions.len(), 1, "{name}: one direction in both logs: {actions:?}");
        }
    }
}

fn sum_bytes(j: &Value) -> u64 {
    ["read", "write", "trim", "mixed"].iter().map(|d| j[d]["io_bytes"].as_u64().unwrap_or(0)).sum()
}

/// (total_ios, io_bytes) per direction of a job object.
fn dir_totals(j: &Value) -> Vec<(u64, u64)> {
    ["read", "write", "trim"]
        .iter()
        .map(|d| (j[*d]["total_ios"].as_u64().unwrap_or(0), j[*d]["io_bytes"].as_u64().unwrap_or(0)))
        .collect()
}

#[test]
fn replaying_fios_iolog_v3_issues_its_entries() {
    let Some((dir, data)) = fio_scratch("fio-vs-replay", FILE_BYTES) else { return };
    // fio writes a v3 log of a mixed job with several sizes, then a sequential phase (trims
    // are replayed too, see host-bench's runner tests, but fio cannot trim a regular file).
    let source = dir.join("source.log");
    let gen = dir.join("gen.fio");
    std::fs::write(
        &gen,
        format!(
            "[global]\nfilename={}\nioengine=libaio\ndirect=1\nwrite_iolog={}\n\
             [mix]\nrw=randrw\nbssplit=4k/50:16k/30:64k/\nsize=4m\niodepth=4\n\
             [seq]\nstonewall\nrw=write\nbs=128k\nsize=1m\noffset=8m\n",
            data.display(),
            source.display()
        ),
    )
    .unwrap();
    let out = Command::new("fio").arg(&gen).output().expect("run fio");
    assert!(out.status.success(), "fio: {}", String::from_utf8_lossy(&out.stderr));
    let entries = iolog_ios(&source);
    assert!(entries.len() > 300 && entries.iter().any(|e| e.2 == 128 << 10), "{} entries", entries.len());

    // fio replays it (QD1: at higher depths fio 3.33 leaves the last in-flight completions out
    // of io_bytes when the log ends).
    let job = |log: Option<&Path>| {
        let mut s = format!(
            "[replay]\nfilename={}\nioengine=libaio\ndirect=1\nread_iolog={}\n",
            data.display(),
            source.display()
        );
        if let Some(l) = log {
            s.push_str(&format!("write_iolog={}\n", l.display()));
        }
        s
    };
    let fio_job = dir.join("replay.fio");
    std::fs::write(&fio_job, job(None)).unwrap();
    let fio = run_fio(&fio_job, &dir.join("replay.fio.json"), None);
    let f = job_json(&fio, "fio replay");

    // ssdlab on the same file and on a simulated drive; its write_iolog shows what it issued.
    for (who, args) in [
        (
            "target",
            vec!["--target".to_string(), data.display().to_string(), "--target-size".into(), FILE_BYTES.to_string()],
        ),
        ("sim", vec!["--drive".to_string(), "tiny".into()]),
    ] {
        let log = dir.join(format!("replayed.{who}.log"));
        let ssd_job = dir.join(format!("replay.{who}.fio"));
        std::fs::write(&ssd_job, job(Some(&log))).unwrap();
        let ssd = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(["run", ssd_job.to_str().unwrap(), "--output-format", "json"])
            .args(&args)
            .output()
            .expect("run ssdlab");
        let s = job_json(&ssd, &format!("ssdlab replay ({who})"));
        assert_eq!(iolog_ios(&log), entries, "{who}: the log's offsets, sizes and directions, in order");
        assert_eq!(dir_totals(&s), dir_totals(&f), "{who}: total_ios and io_bytes per direction as fio's replay");
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<String>>();
        let mut ssd_keys = keys(&s);
        ssd_keys.remove("ssdlab");
        assert_eq!(keys(&f), ssd_keys, "{who}: job keys");
    }
}

/// Log files in `dir` ending in `.log`, by name: their lines split at ", ".
fn perf_logs(dir: &Path) -> Logs {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.ends_with(".log").then(|| {
                let text = std::fs::read_to_string(dir.join(&name)).unwrap();
                let lines = text.lines().map(|l| l.split(", ").map(String::from).collect()).collect();
                (name, lines)
            })
        })
        .collect()
}

/// A directory's perf logs: file name -> lines -> comma-separated fields.
type Logs = std::collections::BTreeMap<String, Vec<Vec<String>>>;

/// Runs `jobs` (sections after a `[global]` with the data file) through fio and `ssdlab run
/// --target` in directories of their own under `name`; the logs each wrote, by file name.
fn logs_of_both(name: &str, jobs: &str) -> (Logs, Logs) {
    let dir = disk_temp_dir(name);
    let (fio_dir, ssd_dir) = (dir.join("fio"), dir.join("ssdlab"));
    std::fs::create_dir_all(&fio_dir).unwrap();
    std::fs::create_dir_all(&ssd_dir).unwrap();
    let data = dir.join("data.img");
    std::fs::write(&data, vec![0u8; FILE_BYTES as usize]).unwrap();
    let job = format!("[global]\nfilename={}\nioengine=libaio\ndirect=1\n{jobs}", data.display());
    let job_file = dir.join("logs.fio");
    std::fs::write(&job_file, job).unwrap();
    let fio = Command::new("fio").arg(&job_file).current_dir(&fio_dir).output().expect("run fio");
    assert!(fio.status.success(), "fio: {}", String::from_utf8_lossy(&fio.stdout));
    let ssd = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", job_file.to_str().unwrap(), "--target", data.to_str().unwrap()])
        .args(["--target-size", &FILE_BYTES.to_string()])
        .current_dir(&ssd_dir)
        .output()
        .expect("run ssdlab");
    assert!(ssd.status.success(), "ssdlab: {}", String::from_utf8_lossy(&ssd.stderr));
    (perf_logs(&fio_dir), perf_logs(&ssd_dir))
}

#[test]
fn bw_iops_and_lat_logs_in_fios_format() {
    if !fio_or_skip() {
        return;
    }
    let (f, s) = logs_of_both(
        "fio-vs-perflogs",
        "write_bw_log=p\nwrite_iops_log=p\nwrite_lat_log=p\n\
         [a]\nrw=randwrite\nbs=16k\nsize=1m\n[b]\nstonewall\nnumjobs=2\nrw=read\nbs=8k\nsize=256k\n",
    );
    assert_eq!(f.keys().collect::<Vec<_>>(), s.keys().collect::<Vec<_>>(), "file names");
    assert_eq!(f.len(), 15, "bw, iops, lat, clat, slat for 3 job instances");
    for (name, fl) in &f {
        let sl = &s[name];
        assert_eq!(fl.len(), sl.len(), "{name}: one line per I/O");
        assert!(fl.iter().chain(sl).all(|l| l.len() == 5), "{name}: five columns");
        // Direction, block size and priority per line: the same multiset (the order of a
        // random mix differs), and every IOPS value 1.
        let cols = |ls: &Vec<Vec<String>>| {
            let mut v: Vec<(String, String, String)> =
                ls.iter().map(|l| (l[2].clone(), l[3].clone(), l[4].clone())).collect();
            v.sort();
            v
        };
        // (fio's slat lines follow submission order, ssdlab's completion order.)
        assert_eq!(cols(fl), cols(sl), "{name}: direction, bs, priority");
        if name.starts_with("p_iops") {
            assert!(fl.iter().chain(sl).all(|l| l[1] == "1"), "{name}");
        }
        if name.starts_with("p_clat") || name.starts_with("p_bw") {
            assert!(sl.iter().all(|l| l[1].parse::<u64>().unwrap() > 0), "{name}: positive values");
        }
    }
}

#[test]
fn log_offset_lines_carry_each_ios_offset() {
    if !fio_or_skip() {
        return;
    }
    // Each line gets the I/O's offset before the priority (averaged lines: see the unit tests
    // in host-bench/tests/fio/perflogs.rs; fio's own averaged logs depend on its wall clock).
    let (f, s) = logs_of_both(
        "fio-vs-logoffset",
        "log_offset=1\n[a]\nrw=randwrite\nbs=16k\nsize=1m\niodepth=4\nwrite_bw_log=p\nwrite_lat_log=p\n",
    );
    assert_eq!(f.keys().collect::<Vec<_>>(), s.keys().collect::<Vec<_>>(), "file names");
    assert_eq!(f.len(), 4, "bw, lat, clat, slat");
    for (name, fl) in &f {
        let sl = &s[name];
        assert!(fl.iter().chain(sl).all(|l| l.len() == 6), "{name}: six columns");
        // The random map writes every 16 KiB block of the megabyte once: the same offsets.
        let cols = |ls: &Vec<Vec<String>>| {
            let mut v: Vec<(String, String, u64, String)> =
                ls.iter().map(|l| (l[2].clone(), l[3].clone(), l[4].parse().unwrap(), l[5].clone())).collect();
            v.sort();
            v
        };
        assert_eq!(cols(fl), cols(sl), "{name}: direction, bs, offset, priority");
        let offsets: BTreeSet<u64> = cols(sl).iter().map(|c| c.2).collect();
        assert_eq!(offsets, (0..64).map(|k| k * 16384).collect(), "{name}: every block once");
    }
}

#[test]
fn rate_limits_each_direction_as_fio() {
    let Some((dir, data)) = fio_scratch("fio-vs-rate", FILE_BYTES) else { return };
    // fio 3.33: one rate_iops value limits each direction; rwmixread does not change that.
    let job = dir.join("rate.fio");
    std::fs::write(
        &job,
        format!(
            "[r]\nfilename={}\nioengine=libaio\ndirect=1\nrw=randrw\nrwmixread=80\nbs=4k\nrate_iops=300,100\n\
             iodepth=4\nruntime=1\ntime_based\n",
            data.display()
        ),
    )
    .unwrap();
    let fio = run_fio(&job, &dir.join("rate.json"), None);
    let ssd = run_ssdlab_target(&job, &data, FILE_BYTES);
    let (f, s) = (job_json(&fio, "fio"), job_json(&ssd, "ssdlab"));
    for (d, want) in [("read", 300.0), ("write", 100.0)] {
        let (fi, si) = (f[d]["total_ios"].as_f64().unwrap(), s[d]["total_ios"].as_f64().unwrap());
        assert!((fi / want - 1.0).abs() < 0.05, "fio {d}: {fi}");
        assert!((si / fi - 1.0).abs() < 0.05, "{d}: ssdlab {si} vs fio {fi}");
    }
}

#[test]
fn verify_reads_count_as_the_jobs_reads_as_fio() {
    let Some((dir, data)) = fio_scratch("fio-vs-verify", FILE_BYTES) else { return };
    let job = dir.join("verify.fio");
    let body = "ioengine=libaio\ndirect=1\nrw=randwrite\nbs=4k\nsize=1m\nverify=crc32c\n";
    std::fs::write(&job, format!("[v]\nfilename={}\n{body}", data.display())).unwrap();
    let fio_json = dir.join("verify.json");
    // fio saves its verify state (local-v-0-verify.state) in the working directory.
    let fio = run_fio(&job, &fio_json, Some(&dir));
    let ssd = run_ssdlab_target(&job, &data, FILE_BYTES);
    for (who, j) in [("fio", job_json(&fio, "fio")), ("ssdlab", job_json(&ssd, "ssdlab"))] {
        // fio's verify phase reads back every block written, counted as the job's reads, and
        // each phase's time goes to the directions it used.
        for d in ["read", "write"] {
            assert_eq!(j[d]["total_ios"].as_u64(), Some(256), "{who} {d}");
            assert_eq!(j[d]["io_bytes"].as_u64(), Some(1 << 20), "{who} {d}");
        }
        let ms = |d: &str| j[d]["runtime"].as_i64().unwrap();
        let job_ms = j["job_runtime"].as_i64().unwrap();
        assert!(
            (job_ms - ms("read") - ms("write")).abs() <= 2,
            "{who}: job {job_ms} ms, read {}, write {}",
            ms("read"),
            ms("write")
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
