//! A span's peak power is never below its average (the fill of `tiny` used to report a peak
//! 0.4 mW under its average: the meter interval that straddles the span's start was left out).

use host_bench::job::{parse_str, ParseOptions};
use host_bench::simrun::{SimConfig, SimSession};

#[test]
fn peak_power_is_at_least_the_average() {
    let text = "[global]\nbs=4k\n[fill]\nrw=write\nbs=128k\niodepth=16\nsize=100%\n\
                [rr]\nstonewall\nrw=randread\niodepth=8\ntime_based\nruntime=0.5\n\
                [rw]\nstonewall\nrw=randwrite\niodepth=8\ntime_based\nruntime=0.5\n";
    let job = parse_str(text, "pk.fio", &ParseOptions::default()).unwrap();
    let mut s = SimSession::new(SimConfig::new("tiny", 1)).unwrap();
    let r = s.run(&job, None, None).unwrap();
    let v = s.json(&r, false);
    let mut spans: Vec<&serde_json::Value> = v["jobs"].as_array().unwrap().iter().map(|j| &j["ssdlab"]).collect();
    spans.push(&v["ssdlab"]);
    for x in spans {
        let (avg, peak) = (x["avg_power_w"].as_f64().unwrap(), x["peak_power_w"].as_f64().unwrap());
        assert!(avg > 0.0 && peak >= avg, "peak {peak} W below average {avg} W");
    }
}

/// The datapath energy reported is that of every byte NAND operations moved, GC's relocation
/// included, as the power governor charges it (it used to count host bytes only, so a
/// GC-heavy random write reported far less power than the governor budgeted).
#[test]
fn reported_datapath_energy_counts_gc_bytes() {
    let text = "[fill]\nrw=write\nbs=128k\niodepth=16\nsize=100%\n\
                [rw]\nstonewall\nrw=randwrite\nbs=4k\niodepth=8\nsize=100%\nloops=2\n";
    let job = parse_str(text, "dp.fio", &ParseOptions::default()).unwrap();
    let mut s = SimSession::new(SimConfig::new("tiny", 1)).unwrap();
    s.run(&job, None, None).unwrap();
    let d = &s.target.ssd;
    let c = d.counters();
    let pw = &s.profile.profile.power;
    let secs = d.now().ns() as f64 * 1e-9;
    let datapath_j = d.energy_j() - d.flash().energy_j(d.now()) - pw.controller_idle_w * secs;
    let per_byte = pw.host_pj_per_byte * 1e-12;
    let moved = (c.nand_read_bytes + c.nand_write_bytes) as f64;
    let host = (c.host_read_bytes + c.host_write_bytes) as f64;
    assert!(c.nand_write_bytes as f64 > 1.5 * c.host_write_bytes as f64, "no GC: {c:?}");
    assert!(
        (datapath_j - per_byte * moved).abs() <= 1e-9 * datapath_j.max(1.0),
        "{datapath_j} J vs {} J",
        per_byte * moved
    );
    assert!(datapath_j > 1.5 * per_byte * host, "GC bytes not charged: {datapath_j} J");
}

/// A job's peak power is the highest of its per-second peaks (it used to ride on the job's
/// average datapath power, so a busy second could show a higher peak than the whole job).
#[test]
fn job_peak_is_the_highest_per_second_peak() {
    let text = "[fill]\nrw=write\nbs=128k\niodepth=16\nsize=100%\n\
                [mix]\nstonewall\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=4\nrate_iops=3000,1500\n\
                time_based\nruntime=300\n";
    let job = parse_str(text, "pps.fio", &ParseOptions::default()).unwrap();
    let mut cfg = SimConfig::new("tiny", 1);
    cfg.power_cap_w = Some(1.7);
    let mut s = SimSession::new(cfg).unwrap();
    let r = s.run(&job, None, None).unwrap();
    let v = s.json(&r, false);
    let jr = r.jobs.last().unwrap();
    let csv = s.timeseries_csv(jr).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = head.iter().position(|&h| h == "peak_power_w").unwrap();
    let per_second = lines.map(|l| l.split(',').nth(col).unwrap().parse::<f64>().unwrap()).fold(0.0, f64::max);
    let job_peak = v["jobs"].as_array().unwrap().last().unwrap()["ssdlab"]["peak_power_w"].as_f64().unwrap();
    assert!(per_second > 0.0);
    assert!(job_peak >= per_second - 1e-9, "job peak {job_peak} W below a per-second peak {per_second} W");
}
