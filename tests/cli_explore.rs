//! `ssdlab explore` without a browser: recording never changes a run's results, the lesson list,
//! bad input, and the page's size.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

mod common;
use common::{ssdlab, temp_dir};

/// Fill tiny, then random writes with GC running, with a read mix so every path is used.
const JOB: &str = "[global]\nioengine=io_uring\ndirect=1\n\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\n\
[mix]\nstonewall\nrw=randrw\nrwmixread=30\nbs=4k\niodepth=16\nsize=100%\nnorandommap=1\n";

#[test]
fn recording_leaves_the_results_byte_identical() {
    let dir = temp_dir("same");
    let job = dir.join("mix.fio");
    std::fs::write(&job, JOB).unwrap();
    let (j, d) = (job.to_str().unwrap(), dir.to_str().unwrap());
    for extra in [&[][..], &["--op", "12%", "--gc-policy", "cost-benefit", "--power-cap", "5"][..]] {
        let plain = dir.join("plain.json");
        let mut args =
            vec!["run", j, "--drive", "tiny", "--output-format", "json", "--output", plain.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = ssdlab(&args);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let out = dir.join("page");
        let mut args = vec!["explore", j, "--drive", "tiny", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = ssdlab(&args);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let a = std::fs::read(&plain).unwrap();
        let b = std::fs::read(out.join("run-1.json")).unwrap();
        assert!(a == b, "explore's run JSON differs from run's ({extra:?}) in {d}");
        let v: serde_json::Value = serde_json::from_slice(&a).unwrap();
        assert!(v["ssdlab"]["gc_victims"].as_u64().unwrap() > 0, "the job should make GC run");
        let html = std::fs::read_to_string(out.join("index.html")).unwrap();
        let page = embedded_json(&html);
        for run in page["runs"].as_array().unwrap() {
            let cols = run["frames"].as_object().unwrap();
            let n = cols["t_ns"].as_array().unwrap().len();
            assert!(n > 100, "only {n} frames");
            for (k, v) in cols {
                let len = v.as_array().unwrap().len();
                assert!(len == n || (k == "hist" && len == 0), "frame column {k} has {len} entries, not {n}");
            }
        }
        assert!(only_svg_namespace(&html), "the page refers to the network");
    }
}

/// The one URL the page may hold: the SVG namespace name (an identifier, never fetched).
fn only_svg_namespace(html: &str) -> bool {
    let stripped = html.replace("http://www.w3.org/2000/svg", "");
    !stripped.contains("http://") && !stripped.contains("https://")
}

#[test]
fn lessons_are_listed_and_unknown_input_exits_2() {
    let o = ssdlab(&["explore", "--list-lessons"]);
    assert_eq!(o.status.code(), Some(0));
    let list = String::from_utf8_lossy(&o.stdout);
    for l in ["op-wa", "greedy-vs-cost-benefit", "hot-cold", "trim", "power-cap-qlc", "power-loss"] {
        assert!(list.contains(l), "{l} missing from:\n{list}");
    }
    let dir = temp_dir("bad");
    let o = ssdlab(&["explore", "--lesson", "nope", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("op-wa"), "error should list the lessons");
    let o = ssdlab(&["explore", "--lesson", "op-wa", "--op", "20%", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "drive flags are not silently ignored with --lesson");
    let job = dir.join("j.fio");
    std::fs::write(&job, JOB).unwrap();
    let o = ssdlab(&[
        "explore",
        job.to_str().unwrap(),
        "--drive",
        "tiny",
        "--compare-op",
        "7%",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--compare-op"));
}

#[test]
fn compare_gc_records_two_runs_of_one_seed() {
    let dir = temp_dir("cmp");
    let job = dir.join("j.fio");
    std::fs::write(&job, JOB).unwrap();
    let out = dir.join("page");
    let o = ssdlab(&[
        "explore",
        job.to_str().unwrap(),
        "--drive",
        "tiny",
        "--compare-gc",
        "greedy,cost-benefit",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let a: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("run-1.json")).unwrap()).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("run-2.json")).unwrap()).unwrap();
    assert_eq!(a["ssdlab"]["config"]["gc_policy"], "greedy");
    assert_eq!(b["ssdlab"]["config"]["gc_policy"], "cost-benefit");
    assert_eq!(a["ssdlab"]["seed"], b["ssdlab"]["seed"]);
}

#[test]
fn compare_plp_cuts_power_and_reports_what_was_lost() {
    let dir = temp_dir("plp");
    let job = dir.join("j.fio");
    std::fs::write(&job, JOB).unwrap();
    let out = dir.join("page");
    let o =
        ssdlab(&["explore", job.to_str().unwrap(), "--drive", "tiny", "--compare-plp", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let page = embedded_json(&html);
    let notes: Vec<String> =
        page["runs"].as_array().unwrap().iter().map(|r| r["notes"][0].as_str().unwrap().to_string()).collect();
    assert!(notes[0].contains(" 0 units placed but never programmed"), "PLP on lost data: {}", notes[0]);
    assert!(!notes[1].contains(" 0 units placed but never programmed"), "PLP off lost nothing: {}", notes[1]);
}

#[test]
fn from_drive_continues_a_saved_drive_as_run_does() {
    let dir = temp_dir("from");
    let job = dir.join("j.fio");
    std::fs::write(&job, JOB).unwrap();
    let j = job.to_str().unwrap();
    let snap = dir.join("d.snap");
    let o = ssdlab(&["run", j, "--drive", "tiny", "--output", "/dev/null", "--save-drive", snap.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let s = snap.to_str().unwrap();
    let plain = dir.join("plain.json");
    let o = ssdlab(&["run", j, "--drive", "tiny", "--from-drive", s, "--output-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(&plain, &o.stdout).unwrap();
    let out = dir.join("page");
    let o = ssdlab(&["explore", j, "--drive", "tiny", "--from-drive", s, "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let a = std::fs::read(&plain).unwrap();
    let b = std::fs::read(out.join("run-1.json")).unwrap();
    assert!(a == b, "explore --from-drive's run JSON differs from run --from-drive's in {}", dir.display());
    // The page starts from the loaded drive: its first frame is at the snapshot's time, with
    // the saved drive's host writes already counted.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let page = embedded_json(&html);
    let f = &page["runs"][0]["frames"];
    assert!(f["t_ns"][0].as_u64().unwrap() > 0 && f["host_writes"][0].as_u64().unwrap() > 0, "not the saved drive");
    // Refusals: another drive configuration (exit 2, naming the snapshot), and a power cut.
    let o =
        ssdlab(&["explore", j, "--drive", "tiny", "--op", "30%", "--from-drive", s, "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("d.snap"), "{}", String::from_utf8_lossy(&o.stderr));
    for cut in ["--power-cut", "--compare-plp"] {
        let o = ssdlab(&["explore", j, "--drive", "tiny", "--from-drive", s, cut, "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{cut}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn power_cut_at_a_chosen_instant_mid_run() {
    let dir = temp_dir("cut-at");
    let job = dir.join("j.fio");
    std::fs::write(&job, JOB).unwrap();
    let j = job.to_str().unwrap();
    let out = dir.join("page");
    let o = ssdlab(&[
        "explore",
        j,
        "--drive",
        "tiny",
        "--compare-plp",
        "--power-cut-at",
        "1500ms",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let page = embedded_json(&html);
    for (k, run) in page["runs"].as_array().unwrap().iter().enumerate() {
        let note = run["notes"][0].as_str().unwrap();
        assert!(note.starts_with("power cut at 1500.000 ms:"), "run {k}: {note}");
        // Mid-run, with the job's 16 commands in flight: they are dropped.
        assert!(note.contains(" 16 commands dropped"), "run {k}: {note}");
        let lost_nothing = note.contains(" 0 units placed but never programmed");
        assert_eq!(lost_nothing, k == 0, "run {k} (PLP {}): {note}", if k == 0 { "on" } else { "off" });
        assert_eq!(run["frames"]["t_ns"].as_array().unwrap().last().unwrap().as_u64(), Some(1_500_000_000));
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(format!("run-{}.json", k + 1))).unwrap()).unwrap();
        assert_eq!(json["ssdlab"]["interrupted"], true, "run {k}: the job was cut short");
    }
    // After the job's end: cut at the end, and said so; bad times are exit 2.
    let o = ssdlab(&["explore", j, "--drive", "tiny", "--power-cut-at", "10m", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let notes = embedded_json(&html)["runs"][0]["notes"].to_string();
    assert!(notes.contains("before the power cut planned at 600000.000 ms: cut at the end"), "{notes}");
    for bad in ["5x", "-1s", "ms", "0s"] {
        let o = ssdlab(&["explore", j, "--drive", "tiny", "--power-cut-at", bad, "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// The data a page embeds, as JSON.
fn embedded_json(html: &str) -> serde_json::Value {
    serde_json::to_value(host_bench::explore::page::embedded(html).unwrap()).unwrap()
}
