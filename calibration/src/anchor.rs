//! Anchored predictions: a measured figure of one configuration times the simulated ratio
//! between another configuration and it. The ratio between two configurations of the same
//! workload is far more robust than the absolute figure, which inherits every gap between the
//! model and the real workload.

use crate::measured::MeasuredRow;
use serde::Serialize;

/// Two rows measure the same thing when drive, tool, state, workload, block size, mix,
/// randomness, queue depth, jobs and metric agree; only capacity and power cap may differ.
pub fn same_measurement(a: &MeasuredRow, b: &MeasuredRow) -> bool {
    a.drive == b.drive
        && a.tool == b.tool
        && a.state == b.state
        && a.workload == b.workload
        && a.bs == b.bs
        && a.read_pct == b.read_pct
        && a.random == b.random
        && a.qd == b.qd
        && a.jobs == b.jobs
        && a.metric == b.metric
        && a.unit == b.unit
}

/// The configuration a row was measured in: user capacity (TB) and power cap (W).
fn config(r: &MeasuredRow) -> (Option<f64>, Option<f64>) {
    (r.user_capacity_tb, r.power_cap_w)
}

/// The first row of `baselines` that measures what `row` measures in another configuration.
pub fn find_baseline<'a>(row: &MeasuredRow, baselines: &'a [MeasuredRow]) -> Option<&'a MeasuredRow> {
    baselines.iter().find(|b| same_measurement(row, b) && config(row) != config(b))
}

/// measured(baseline) x simulated(row) / simulated(baseline); `None` when the simulated
/// baseline is not a positive figure.
pub fn anchored(baseline_measured: f64, sim_row: f64, sim_baseline: f64) -> Option<f64> {
    (sim_baseline > 0.0 && sim_baseline.is_finite()).then(|| baseline_measured * sim_row / sim_baseline)
}

/// Medians over the rows that have an anchored prediction, absolute and anchored side by side.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AnchoredSummary {
    pub rows: usize,
    /// Median |absolute error| over those rows.
    pub median_abs_rel_error: f64,
    /// Median |anchored error| over the same rows.
    pub anchored_median_abs_rel_error: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measured;

    #[test]
    fn a_baseline_is_the_same_measurement_in_another_configuration() {
        let head = measured::COLUMNS.join(",");
        let text = format!(
            "{head}\n\
             a,d,7.68,25,ezfio,steady,4k random write,4k,0,yes,,,iops,243000,iops,\n\
             b,d,6.4,25,ezfio,steady,4k random write,4k,0,yes,,,iops,408000,iops,\n\
             c,d,6.4,25,ezfio,steady,4k random read,4k,100,yes,,,iops,1,iops,\n\
             e,d,6.4,25,ezfio,steady,4k random write,4k,0,yes,,,iops,1,iops,\n"
        );
        let rows = measured::parse(&text, "m.csv").unwrap();
        assert_eq!(find_baseline(&rows[1], &rows).map(|r| r.id.as_str()), Some("a"));
        assert_eq!(find_baseline(&rows[0], &rows).map(|r| r.id.as_str()), Some("b"));
        assert!(find_baseline(&rows[2], &rows).is_none(), "no other configuration of the read");
        assert_eq!(anchored(243000.0, 3.0, 2.0), Some(364500.0));
        assert_eq!(anchored(1.0, 3.0, 0.0), None);
    }
}
