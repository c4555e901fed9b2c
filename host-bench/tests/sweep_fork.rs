//! Forked sweeps (precondition once per capacity and seed, power settings forked from that
//! drive): the table equals running each point from the same drive saved to a snapshot file,
//! shards sharing a drive cache merge to the whole table, and the preconditioning prefix is
//! the leading fixed-work groups.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::{parse_str, JobFile, ParseOptions};
use host_bench::simrun::{SimConfig, SimSession};
use host_bench::sweep::{self, fork, Shard, SweepSpec};

mod tmp;
use tmp::TempPath;

const JOB: &str = "[global]\ngroup_reporting\nbs=4k\niodepth=16\n[fill]\nrw=write\nbs=128k\nsize=100%\n\
[pre]\nstonewall\nrw=randwrite\nnumjobs=2\nsize=100%\n\
[rw]\nstonewall\nrw=randwrite\ntime_based\nruntime=1\n\
[mix]\nstonewall\nrw=randrw\nrwmixread=70\nnumjobs=2\ntime_based\nruntime=1\n";

fn job(text: &str) -> JobFile {
    parse_str(text, "fork.fio", &ParseOptions::default()).unwrap()
}

fn spec() -> SweepSpec {
    SweepSpec {
        job_file: "fork.fio".into(),
        base: SimConfig::new("tiny", 5),
        user_capacities: vec![None, Some(70 << 20)],
        power_states: vec![None, Some(2)],
        power_caps_w: vec![None, Some(1.6)],
        seeds: 1,
        precondition_once: true,
    }
}

fn temp(name: &str) -> TempPath {
    let d = TempPath::new(name);
    std::fs::create_dir_all(&*d).unwrap();
    d
}

#[test]
fn forked_table_equals_each_point_run_from_the_saved_snapshot() {
    let file = job(JOB);
    let s = spec();
    let table = sweep::run(&s, &file, Shard::WHOLE, 2, &|_| {}).unwrap();
    assert_eq!(table.rows.len(), 8);
    let (prefix, suffix) = fork::split(&file).unwrap();
    let dir = temp("snap");
    for p in s.grid() {
        let leader = fork::group_leader(&s, &p);
        let path = dir.join(format!("{}.snap", leader.index));
        if !path.exists() {
            fork::precondition(&s, &prefix, &leader, None).unwrap().unwrap().write(&path).unwrap();
        }
        let mut cfg = s.base.clone();
        cfg.seed = p.seed;
        cfg.user_capacity_bytes = p.user_capacity_bytes;
        cfg.power_state = p.power_state;
        cfg.power_cap_w = p.power_cap_w;
        let (mut sess, meta) = SimSession::from_snapshot(cfg, &path).unwrap();
        assert_eq!(meta.position.jobs, 2);
        let r = sess.run(&suffix, None, None).unwrap();
        let row = sweep::row_of(&sess, &r, &p).unwrap();
        assert_eq!(row, table.rows[p.index], "point {}", p.index);
    }
    // The fork applies each point's cap: the 1.6 W points hold it, the uncapped ones do not.
    let r = &table.rows;
    assert!(r[1].avg_power_w <= 1.6 + 1e-3 && r[0].avg_power_w > 1.7, "{r:?}");
    assert!(r[1].throttled_pct > 0.0 && r[0].throttled_pct == 0.0, "{r:?}");
}

#[test]
fn forked_shards_sharing_a_drive_cache_merge_to_the_whole_table() {
    let file = job(JOB);
    let s = spec();
    let whole = sweep::run(&s, &file, Shard::WHOLE, 1, &|_| {}).unwrap();
    let cache = temp("cache");
    let mut parts = Vec::new();
    for k in 0..2 {
        let c =
            sweep::SweepControl { threads: 1, stop: None, done: Vec::new(), on_done: &|_| Ok(()), cache: Some(&cache) };
        parts.push(sweep::run_with(&s, &file, Shard { k, n: 2 }, &c).unwrap());
    }
    // Each group's drive was written once and loaded by the other shard.
    assert_eq!(std::fs::read_dir(&*cache).unwrap().count(), 2);
    let merged = sweep::merge(parts).unwrap();
    assert_eq!(sweep::to_csv(&merged).unwrap(), sweep::to_csv(&whole).unwrap());
}

#[test]
fn the_prefix_is_the_leading_fixed_work_groups() {
    let (pre, post) = fork::split(&job(JOB)).unwrap();
    let names = |f: &JobFile| f.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&pre), ["fill", "pre"]);
    assert_eq!(names(&post), ["rw", "mix"]);
    // A time-based group ends the prefix; the last job's group never belongs to it.
    let t = "[global]\nbs=4k\n[a]\nrw=write\nsize=10%\n[b]\nstonewall\nrw=randread\ntime_based\nruntime=1\n[c]\nstonewall\nrw=randwrite\nsize=10%\n";
    assert_eq!(names(&fork::split(&job(t)).unwrap().0), ["a"]);
    assert!(fork::split(&job("[a]\nrw=write\nsize=10%\n[b]\nstonewall\nrw=randwrite\nsize=10%\n")).is_some());
    assert!(fork::split(&job("[a]\nrw=write\nsize=10%\n[b]\nrw=randwrite\nsize=10%\n")).is_none());
}
