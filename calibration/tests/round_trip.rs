//! Calibration round trip: figures made by the simulator with known parameters are fitted from a
//! perturbed profile, and the fit must return the known parameters within 5% (the read overhead,
//! a small addend of the latency that pins it, within 10%; tPROG, pinned by random writes whose
//! GC regime shifts with the event order, within 7%).

use calibration::exec::{run_plans, RunSettings};
use calibration::fit::{fit, FitOptions};
use calibration::measured;
use calibration::params::Param;
use calibration::plan::DriveFacts;
use calibration::validate::plan_rows;
use ftl::profile;

/// Three figures that pin tR (die-bound QD32 reads), the read overhead (QD1 read latency, tR +
/// overhead) and tPROG (steady random writes) on the tiny drive.
const ROWS: &str = "\
id,drive,user_capacity_tb,power_cap_w,tool,state,workload,bs,read_pct,random,qd,jobs,metric,value,unit,note
rr32,tiny,,,fio,steady,4k random read,4k,100,yes,32,1,iops,1,iops,
rr1,tiny,,,fio,steady,4k random read QD1,4k,100,yes,1,1,mean_latency,1,us,
rw32,tiny,,,fio,steady,4k random write,4k,0,yes,32,1,iops,1,iops,
";

#[test]
fn perturbed_tiny_profile_fits_back_within_5_percent() {
    let truth = profile::load("tiny").unwrap();
    let rows = measured::parse(ROWS, "round-trip.csv").unwrap();
    let facts = |_: &str| Some(DriveFacts { ps0_w: 8.0, states_w: vec![8.0, 6.0, 4.0] });
    let (mut plans, skipped) = plan_rows(&rows, &facts);
    assert!(skipped.is_empty());
    let settings = RunSettings { scale_divisor: Some(1), seed: 7, ..Default::default() };
    let measured: Vec<f64> = run_plans(&plans, &settings).into_iter().map(|r| r.unwrap().value).collect();
    for (p, m) in plans.iter_mut().zip(&measured) {
        p.measured = *m;
    }
    let params = [Param::TRUs, Param::ReadOverheadUs, Param::TProgUs];
    let mut perturbed = truth.profile.clone();
    for (p, k) in params.iter().zip([1.25, 0.7, 1.3]) {
        p.set(&mut perturbed, p.get(&truth.profile) * k);
    }
    let base = profile::parse(&profile::to_toml(&perturbed), "perturbed.toml").unwrap();
    let opts = FitOptions { params: params.to_vec(), settings, max_iter: 8, ..Default::default() };
    let r = fit(&base, &plans, &opts).unwrap();
    // The read overhead is a small addend of the QD1 latency it is fitted on (8 of ~63 us), and
    // the figures move by up to ~0.7% under tiny parameter changes (a program ending a
    // nanosecond later reorders events), so that row pins it to ~0.7% x 63 / 8 = 6%, not 5%.
    // tPROG is pinned by random-write IOPS, which on this 2-die toy fall into GC's locked or
    // rough regime (docs/scale.md) by the event order: alone, the row gave 5,587 and 5,583 IOPS
    // at tPROG 1,150 and 1,200 us (0.1% apart where 1/tPROG says 4%), and greedy by superblock
    // moved the three-row fit from within 5% to 5.4% (1,265 us) with the figure matched to 0.25%:
    // the row pins tPROG to ~7%.
    let tolerance = |p: &Param| match p {
        Param::ReadOverheadUs => 0.10,
        Param::TProgUs => 0.07,
        _ => 0.05,
    };
    for (p, f) in params.iter().zip(&r.params) {
        let want = p.get(&truth.profile);
        let err = (f.fitted - want).abs() / want;
        assert!(err < tolerance(p), "{}: fitted {} vs true {want} (start {}); {r:#?}", f.key, f.fitted, f.start);
    }
}
