//! Sweeps: the same table whether run whole or as shards merged (byte for byte), and an uncapped
//! run's JSON equals a run capped above peak power except for the cap itself.

use host_bench::job::{parse_str, ParseOptions};
use host_bench::simrun::{SimConfig, SimSession};
use host_bench::sweep::{self, Shard, SweepSpec};

mod tmp;
use tmp::TempPath;

const JOB: &str = "[global]\ngroup_reporting\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\
[mix]\nstonewall\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=16\nnumjobs=2\ntime_based\nruntime=2\n";

fn spec() -> SweepSpec {
    SweepSpec {
        job_file: "mix.fio".into(),
        base: SimConfig::new("tiny", 3),
        user_capacities: vec![None, Some(70 << 20)],
        power_states: vec![None, Some(2)],
        power_caps_w: vec![None, Some(1.6)],
        seeds: 2,
        precondition_once: false,
    }
}

fn temp(name: &str) -> TempPath {
    TempPath::new(name)
}

#[test]
fn whole_equals_shards_merged() {
    let job = parse_str(JOB, "mix.fio", &ParseOptions::default()).unwrap();
    let s = spec();
    let whole = sweep::run(&s, &job, Shard::WHOLE, 3, &|_| {}).unwrap();
    assert_eq!(whole.rows.len(), 16);
    let dir_whole = temp("whole");
    sweep::write_dir(&dir_whole, &whole, Shard::WHOLE).unwrap();
    let mut dirs = Vec::new();
    for k in 0..3 {
        let t = sweep::run(&s, &job, Shard { k, n: 3 }, 1, &|_| {}).unwrap();
        let d = temp(&format!("shard{k}"));
        sweep::write_dir(&d, &t, Shard { k, n: 3 }).unwrap();
        dirs.push(d);
    }
    // A missing shard is reported, naming its points, not silently merged.
    let named = |ds: &[&std::path::PathBuf]| -> Vec<(String, sweep::Table)> {
        ds.iter().map(|d| (d.display().to_string(), sweep::read_dir(d).unwrap())).collect()
    };
    let partial = sweep::merge_named(named(&[&dirs[0], &dirs[1]])).unwrap_err().to_string();
    assert!(partial.contains("11 of 16 points present; missing point(s) 2, 5, 8, 11, 14"), "{partial}");
    // A shard given twice: every duplicated point and both places it came from.
    let dup = sweep::merge_named(named(&[&dirs[0], &dirs[1], &dirs[2], &dirs[1]])).unwrap_err().to_string();
    let d1 = dirs[1].display().to_string();
    assert!(dup.contains("5 point(s) appear more than once"), "{dup}");
    assert!(dup.contains(&format!("1 (in {d1} and {d1})")) && dup.contains("13 (in"), "{dup}");
    let merged = sweep::merge(dirs.iter().map(|d| sweep::read_dir(d).unwrap()).collect()).unwrap();
    let dir_merged = temp("merged");
    sweep::write_dir(&dir_merged, &merged, Shard::WHOLE).unwrap();
    for f in [sweep::TABLE_CSV, sweep::TABLE_JSON] {
        let a = std::fs::read(dir_whole.join(f)).unwrap();
        let b = std::fs::read(dir_merged.join(f)).unwrap();
        assert!(a == b, "{f} differs between the whole sweep and the merged shards");
    }
    assert!(dir_merged.join("iops_vs_op.svg").exists());
    // The 1.6 W cap (0.1 W of sustained budget above idle) throttles this drive.
    let thr: Vec<f64> = whole.rows.iter().filter(|r| r.power_cap_w == Some(1.6)).map(|r| r.throttled_pct).collect();
    assert!(thr.iter().all(|&t| t > 0.0), "{thr:?}");
}

#[test]
fn uncapped_json_equals_cap_above_peak() {
    let job = parse_str(JOB, "mix.fio", &ParseOptions::default()).unwrap();
    let run = |cap: Option<f64>| {
        let mut c = SimConfig::new("tiny", 9);
        c.power_cap_w = cap;
        let mut s = SimSession::new(c).unwrap();
        let r = s.run(&job, None, None).unwrap();
        let mut v = s.json(&r, false);
        let csv = s.timeseries_csv(&r.jobs[1]).unwrap();
        // The cap itself is recorded; everything else must match.
        v["ssdlab"]["config"]["power_cap_w"] = serde_json::Value::Null;
        v["ssdlab"]["power_cap_w"] = serde_json::Value::Null;
        for j in v["jobs"].as_array_mut().unwrap().iter_mut() {
            j["ssdlab"]["power_cap_w"] = serde_json::Value::Null;
        }
        (v, csv, s.target.ssd.flash().trace_hash())
    };
    let (a, ca, ha) = run(None);
    let (b, cb, hb) = run(Some(500.0));
    assert_eq!(ha, hb);
    assert_eq!(ca, cb);
    assert_eq!(a, b);
}
