//! Parser fuzzing of measured CSVs: arbitrary text and mutated valid files (bytes replaced, fields
//! dropped or repeated, values swapped for overflowing, negative, NaN or unit-laden ones, stray
//! quotes and separators) never panic or hang (each input must finish within HANG_LIMIT): reading
//! returns rows or a typed error naming the line and column. Rows it returns then go through the
//! mapping `validate` and `calibrate` use, which must plan each row or skip it with a reason,
//! never panic, and never plan a row with an impossible measured value.

use calibration::exec::group;
use calibration::measured::parse;
use calibration::plan::DriveFacts;
use calibration::validate::plan_rows;
use nand_model::mutate::{mutate, Mutation, TOKENS};
use proptest::prelude::*;

/// Rows in the schema of shared/calibration/measured.csv, one of each kind the planner maps.
const SEED: &str = "\
id,drive,user_capacity_tb,power_cap_w,tool,state,workload,bs,read_pct,random,qd,jobs,metric,value,unit,note
rr,tiny,,,fio,steady,4k random read,4k,100,yes,32,8,iops,963000,iops,max IOPS
rw,solidigm-d5-p5430,15.36,25,vdbench,steady,4k random write,4k,0,yes,32,8,iops,146000,iops,\"quoted, with comma\"
mix,tiny,0.08,,ezfio,steady,4k random 70/30,4k,70,yes,,,cov,1.05,percent,coefficient of variation
p99,tiny,,,fio,steady,4k random read QD1,4k,100,yes,1,1,p99.99_latency,178,us,as above
sw,tiny,,,fio,fob,128k sequential write,128k,0,no,32,1,bandwidth,2100,MB/s,
rel,tiny,,6,fio,steady,QD1 random,4k,,yes,1,1,relative_iops,1.0,ratio,power state
app,tiny,,,vdbench,steady,Oracle profile,,83.14,80%,,,iops,123815,iops,dedupratio 3
";

/// [`check_unbounded`] within the shared hang limit; a hang or a panic fails with the input.
fn check(text: &str) -> Result<(), TestCaseError> {
    nand_model::mutate::bounded_check(text, check_unbounded, TestCaseError::fail)
}

fn check_unbounded(text: &str) -> Result<(), TestCaseError> {
    let Ok(rows) = parse(text, "fuzz.csv") else { return Ok(()) };
    let facts = |d: &str| (d == "tiny").then(|| DriveFacts { ps0_w: 8.0, states_w: vec![8.0, 6.0, 4.0] });
    let (plans, skipped) = plan_rows(&rows, &facts);
    prop_assert_eq!(plans.len() + skipped.len(), rows.len(), "a row was neither planned nor skipped:\n{}", text);
    for p in &plans {
        prop_assert!(p.measured.is_finite() && p.measured > 0.0, "row {} planned with measured {}", p.id, p.measured);
    }
    let _ = group(&plans);
    Ok(())
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (any::<u8>(), any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(kind, at, len, pick)| Mutation {
        kind,
        at,
        len,
        pick,
    })
}

#[test]
fn the_seed_plans() {
    let rows = parse(SEED, "seed.csv").unwrap();
    let facts = |_: &str| Some(DriveFacts { ps0_w: 8.0, states_w: vec![8.0, 6.0, 4.0] });
    let (plans, skipped) = plan_rows(&rows, &facts);
    assert!(plans.len() >= 5, "{} planned, skipped {skipped:?}", plans.len());
}

/// Every field of every row set to every odd value, one at a time (quoted, so separators and
/// quotes in the value stay inside the field).
#[test]
fn every_field_with_every_odd_value() {
    let lines: Vec<&str> = SEED.lines().collect();
    for row in 1..lines.len() {
        let fields: Vec<&str> = lines[row].split(',').collect();
        for col in 0..fields.len() {
            for tok in TOKENS {
                let mut f: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
                f[col] = format!("\"{}\"", tok.replace('"', "\"\""));
                let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                l[row] = f.join(",");
                let text = l.join("\n");
                if let Err(e) = std::panic::catch_unwind(|| check(&text))
                    .unwrap_or_else(|_| Err(TestCaseError::fail("panicked (above)")))
                {
                    panic!("{e}:\n{text}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { max_shrink_time: 60_000, cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn mutated_csvs_never_panic(edits in prop::collection::vec(mutation(), 1..5)) {
        check(&mutate(SEED, &edits))?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in "([a-z_]{0,8}(,[-0-9a-z.%/\" ]{0,8}){0,17}\n|.{0,30}\n){0,8}") {
        check(&text)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }
}
