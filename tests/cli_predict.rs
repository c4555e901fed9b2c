//! `ssdlab predict` and `ssdlab validate --baseline`: the workload read from a real fio 3.33
//! JSON, the report's arithmetic and files, exit 2 for every kind of bad input, and anchored
//! predictions beating absolute ones against a known synthetic truth.

use calibration::exec::{run_plans, RunSettings};
use calibration::measured;
use calibration::predict::baseline::{self, Select, WorkloadRead};
use calibration::predict::PredictReport;
use calibration::validate::{plan_rows, profile_facts, validate_anchored};
use host_bench::job::{parse_path, ParseOptions};

mod common;
use common::{data, ssdlab, temp_dir};

const FIO_JSON: &str = "fio-3-predict-baseline.json";

#[test]
fn the_workload_comes_from_the_fio_json_as_the_job_file_wrote_it() {
    let b = baseline::read(&data(FIO_JSON), Some("tiny"), &Select::default()).expect("baseline reads");
    let got = b.workload_read.expect("a JSON baseline reports its workload");
    // What fio-3-predict-baseline.fio says.
    let want = WorkloadRead {
        rw: "randrw".into(),
        bs_bytes: None,
        bssplit: Some("4096/60:16384/30:65536/10".into()),
        rwmixread: Some(70),
        iodepth: 16,
        numjobs: 2,
        size_bytes: Some(64 << 20),
        size_pct: None,
    };
    assert_eq!(got, want);
    // And the job file itself, resolved by ssdlab's parser, gives the same workload.
    let jf = parse_path(&data("fio-3-predict-baseline.fio"), &ParseOptions::default()).expect("job file parses");
    let (_, from_file, _) = baseline::workload_of(&jf.jobs[0]).expect("expressible");
    assert_eq!(got, from_file);
    // The measured figure is fio's read + write IOPS of that run.
    assert!((b.plan.measured - (22491.770574 + 9655.361596)).abs() < 1e-3, "{}", b.plan.measured);
    assert_eq!(b.plan.metric.name(), "iops");
}

#[test]
fn predict_reports_anchored_figures_with_intervals_and_files() {
    let dir = temp_dir("report");
    let out = dir.join("out");
    let o = ssdlab(&[
        "predict",
        "--drive",
        "tiny",
        "--baseline",
        data(FIO_JSON).to_str().unwrap(),
        "--whatif",
        "user_capacity=60MB",
        "--whatif",
        "power_state=2",
        "--seeds",
        "2",
        "--output-format",
        "json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: PredictReport = serde_json::from_slice(&o.stdout).expect("the documented JSON schema");
    assert_eq!(r.schema, calibration::predict::SCHEMA);
    // The repeats' master seeds are drawn from --seed's (default 1) Repeat stream.
    let streams = nand_model::rng::RngStreams::new(1);
    let drawn: Vec<u64> = (0..2).map(|k| streams.seed_for(nand_model::rng::StreamId::Repeat, k)).collect();
    assert_eq!(r.seeds, drawn);
    assert_ne!(drawn[0], drawn[1]);
    assert_eq!(r.whatifs.len(), 2);
    let base = &r.baseline;
    assert_eq!(base.simulated.per_seed.len(), 2);
    assert_eq!(base.config.power_cap_w, Some(8.0), "a real run is taken at PS0");
    for w in &r.whatifs {
        let ratios: Vec<f64> = w.simulated.per_seed.iter().zip(&base.simulated.per_seed).map(|(a, b)| a / b).collect();
        let mean = ratios.iter().sum::<f64>() / 2.0;
        assert!((w.ratio.value - mean).abs() < 1e-12);
        assert!((w.anchored.value - base.measured * mean).abs() < 1e-6 * base.measured);
        assert!(w.anchored.low < w.anchored.value && w.anchored.value < w.anchored.high, "{w:?}");
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(w.anchored.low <= base.measured * lo * (1.0 - r.model_error.rel_error) + 1e-6);
    }
    assert_eq!(r.whatifs[0].config.user_capacity_bytes, Some(60_000_000));
    assert_eq!(r.whatifs[1].config.power_cap_w, Some(4.0));
    assert!(r.model_error.source.contains("no measured pair"), "tiny's error is stated: {}", r.model_error.source);
    // More OP means fewer NAND programs per host write.
    let wa = |s: &calibration::predict::Simulated| s.limits.write_amplification;
    assert!(wa(&r.whatifs[0].simulated) < wa(&base.simulated), "WA falls with OP");
    for f in ["predict.json", "predict.txt", "predict.svg"] {
        assert!(out.join(f).exists(), "{f} written");
    }
    let svg = std::fs::read_to_string(out.join("predict.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("power_state=2") && svg.contains("baseline (measured)"));
    let txt = std::fs::read_to_string(out.join("predict.txt")).unwrap();
    assert!(txt.contains("binding:") && txt.contains("anchored"), "{txt}");
}

#[test]
fn an_ssdlab_result_is_a_baseline_with_its_own_drive_and_configuration() {
    let dir = temp_dir("ssdlab-json");
    let job = dir.join("j.fio");
    std::fs::write(&job, "[global]\nbs=4k\niodepth=8\n[fill]\nrw=write\nbs=128k\nsize=100%\n[rr]\nstonewall\nrw=randread\nnumber_ios=20000\n").unwrap();
    let result = dir.join("r.json");
    let (j, r) = (job.to_str().unwrap(), result.to_str().unwrap());
    let o = ssdlab(&[
        "run",
        j,
        "--drive",
        "tiny",
        "--user-capacity",
        "70MB",
        "--power-state",
        "1",
        "--output-format",
        "json",
        "--output",
        r,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o =
        ssdlab(&["predict", "--baseline", r, "--job", "rr", "--whatif", "power_state=2", "--output-format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p: PredictReport = serde_json::from_slice(&o.stdout).expect("predict JSON");
    assert_eq!(p.baseline.drive, "tiny");
    assert_eq!(p.baseline.config.user_capacity_bytes, Some(70_000_000));
    assert_eq!(p.baseline.config.power_cap_w, Some(6.0), "PS1 of tiny as recorded in the result");
    let w = p.baseline.workload.expect("workload read");
    assert_eq!((w.rw.as_str(), w.bs_bytes, w.iodepth), ("randread", Some(4096), 8));
    assert_bad(&["predict", "--baseline", r, "--whatif", "power_state=2"], "choose one with --job NAME");
}

fn assert_bad(args: &[&str], want: &str) {
    let o = ssdlab(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: stderr lacks `{want}`: {err}");
}

#[test]
fn bad_input_is_exit_2_naming_what_is_wrong() {
    let dir = temp_dir("bad");
    let json = data(FIO_JSON);
    let j = json.to_str().unwrap();
    let base = ["predict", "--drive", "tiny", "--baseline", j];
    let with = |w: &'static str| [&base[..], &["--whatif", w]].concat();
    assert_bad(&with("colour=red"), "unknown key `colour`");
    assert_bad(&with("user_capacity=1TB"), "not below the raw NAND");
    assert_bad(&with("power_state=7"), "power states 0..=2");
    // fio JSON written without job options (as fio 2.x did).
    let text = std::fs::read_to_string(&json).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["fio version"] = "fio-2.2.10".into();
    v["jobs"][0].as_object_mut().unwrap().remove("job options");
    let old = dir.join("old.json");
    std::fs::write(&old, v.to_string()).unwrap();
    assert_bad(
        &["predict", "--drive", "tiny", "--baseline", old.to_str().unwrap(), "--whatif", "power_state=1"],
        "fio-2.2.10 has no `job options`",
    );
    // A workload the simulator cannot express names the option.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["jobs"][0]["job options"]["random_distribution"] = "zipf:1.2".into();
    let zipf = dir.join("zipf.json");
    std::fs::write(&zipf, v.to_string()).unwrap();
    assert_bad(
        &["predict", "--drive", "tiny", "--baseline", zipf.to_str().unwrap(), "--whatif", "power_state=1"],
        "option `random_distribution`",
    );
}

const HEAD: &str =
    "id,drive,user_capacity_tb,power_cap_w,tool,state,workload,bs,read_pct,random,qd,jobs,metric,value,unit,note\n";

/// Rows of tiny at two capacities (OP 20% and ~44%) and at its lowest power state.
fn rows_text(drive: &str, values: &[f64]) -> String {
    let shapes = [
        ("rw", "0.000084", "", "4k random write", "0", "32", "1"),
        ("rw-op", "0.00007", "", "4k random write", "0", "32", "1"),
        ("mix", "0.000084", "", "4k random 70/30", "70", "16", "2"),
        ("mix-op", "0.00007", "", "4k random 70/30", "70", "16", "2"),
        ("mix-ps2", "0.000084", "4", "4k random 70/30", "70", "16", "2"),
    ];
    let mut t = String::from(HEAD);
    for ((id, cap, w, wl, rd, qd, jobs), v) in shapes.iter().zip(values) {
        t.push_str(&format!("{id},{drive},{cap},{w},fio,steady,{wl},4k,{rd},yes,{qd},{jobs},iops,{v},iops,\n"));
    }
    t
}

#[test]
fn anchored_predictions_beat_absolute_ones_on_a_known_truth() {
    let dir = temp_dir("truth");
    // The truth: the tiny drive's own figures.
    let truth_rows = measured::parse(&rows_text("tiny", &[1.0; 5]), "truth.csv").unwrap();
    let (plans, skipped) = plan_rows(&truth_rows, &profile_facts);
    assert!(skipped.is_empty(), "{}", skipped.iter().map(|s| s.reason.clone()).collect::<String>());
    let settings = RunSettings { seed: 11, ..Default::default() };
    let truth: Vec<f64> = run_plans(&plans, &settings).into_iter().map(|r| r.expect("truth runs").value).collect();
    // The model: tiny with slower programs and a faster command processor than the truth.
    let toml = String::from_utf8(ssdlab(&["drive", "show", "tiny"]).stdout).unwrap();
    let perturbed = toml
        .replace("t_prog_us = 1200.0", "t_prog_us = 1700.0")
        .replace("cmd_limit_kiops = 200.0", "cmd_limit_kiops = 300.0")
        .replace("name = \"tiny\"", "name = \"tiny-perturbed\"");
    assert_ne!(perturbed, toml);
    let model = dir.join("tiny-perturbed.toml");
    std::fs::write(&model, perturbed).unwrap();
    let csv = dir.join("measured.csv");
    std::fs::write(&csv, rows_text(model.to_str().unwrap(), &truth)).unwrap();
    let rows = measured::read_file(&csv).unwrap();
    let report = validate_anchored(&rows, Some(&rows), &RunSettings::default());
    let summary = report.anchored.expect("anchored summary with a baseline");
    assert_eq!(summary.rows, 5, "every row has a baseline in another configuration");
    for r in &report.rows {
        assert!(r.baseline_id.is_some() && r.anchored_predicted.is_some(), "{}", r.id);
    }
    assert!(
        summary.anchored_median_abs_rel_error < summary.median_abs_rel_error / 2.0,
        "anchored {:.3} vs absolute {:.3}",
        summary.anchored_median_abs_rel_error,
        summary.median_abs_rel_error
    );
    eprintln!(
        "synthetic truth: median |error| absolute {:.1}%, anchored {:.1}%",
        summary.median_abs_rel_error * 100.0,
        summary.anchored_median_abs_rel_error * 100.0
    );
    // The CLI writes the same fields.
    let o = ssdlab(&[
        "validate",
        "--measured",
        csv.to_str().unwrap(),
        "--baseline",
        csv.to_str().unwrap(),
        "--output-format",
        "table",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("anchored on a baseline row: 5 rows"));
}
