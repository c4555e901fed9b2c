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
