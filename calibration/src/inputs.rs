//! Calibration inputs: a measured CSV, fio JSON output of a real drive, or an ssdlab result
//! JSON, all turned into [`MeasuredRow`]s. A JSON job becomes one row per figure it pins down:
//! IOPS for random jobs, MB/s for sequential ones, plus mean latency at QD1 x 1 job. The job's
//! options come from the JSON itself (`global options` + `job options`, as fio writes them);
//! the run is taken as steady state (the caller preconditioned the drive).

use crate::exec::{fio_metric, MetricSource};
use crate::measured::{self, MeasuredError, MeasuredRow};
use crate::plan::Metric;
use host_bench::report::FioReportJson;
use std::path::Path;

/// Reads any supported input for drive `drive`.
pub fn read_input(path: &Path, drive: &str) -> Result<Vec<MeasuredRow>, MeasuredError> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| MeasuredError::Io { file: file.clone(), message: e.to_string() })?;
    if !text.trim_start().starts_with('{') {
        return measured::parse(&text, &file);
    }
    let v: FioReportJson = serde_json::from_str(&text).map_err(|e| MeasuredError::Syntax {
        file: file.clone(),
        line: e.line(),
        message: format!("not valid JSON: {e}"),
    })?;
    json_rows(&v, &file, drive)
}

/// Rows of a fio (or ssdlab) JSON result.
pub fn json_rows(v: &FioReportJson, file: &str, drive: &str) -> Result<Vec<MeasuredRow>, MeasuredError> {
    let Some(jobs) = &v.jobs else {
        return Err(MeasuredError::Syntax {
            file: file.into(),
            line: 1,
            message: "no `jobs` array: not fio JSON".into(),
        });
    };
    let global = &v.global_options;
    // ssdlab results record the user capacity the drive was simulated at.
    let cap_tb = v.ssdlab.as_ref().and_then(|x| x.user_capacity_bytes).map(|b| b / 1e12);
    let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("input");
    let mut rows = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        let opt = |key: &str| -> Option<String> {
            job.job_options.as_ref().and_then(|o| o.get(key)).or_else(|| global.get(key)).cloned()
        };
        let rw = opt("rw").or_else(|| opt("readwrite")).unwrap_or_else(|| "read".into());
        let (random, read_pct) = match rw.as_str() {
            "read" => (false, 100.0),
            "write" => (false, 0.0),
            "randread" => (true, 100.0),
            "randwrite" => (true, 0.0),
            "randrw" | "rw" | "readwrite" => {
                let mix = opt("rwmixread").and_then(|s| s.parse::<f64>().ok()).unwrap_or(50.0);
                (rw == "randrw", mix)
            }
            _ => continue,
        };
        let bs = opt("bs").or_else(|| opt("blocksize")).unwrap_or_else(|| "4k".into()).to_ascii_lowercase();
        let num = |key: &str| opt(key).and_then(|s| s.parse::<u32>().ok()).unwrap_or(1);
        let (qd, jobs_n) = (num("iodepth"), num("numjobs"));
        let name = job.jobname.as_deref().unwrap_or("job");
        let source = MetricSource::from(job);
        let mut metrics = vec![if random { Metric::Iops } else { Metric::Bandwidth }];
        if qd * jobs_n == 1 {
            metrics.push(Metric::MeanLatency);
        }
        for m in metrics {
            let Some(value) = fio_metric(&source, m).filter(|x| *x > 0.0) else {
                continue;
            };
            let unit = match m {
                Metric::Iops => "iops",
                Metric::Bandwidth => "MB/s",
                _ => "us",
            };
            rows.push(MeasuredRow {
                id: format!("{stem}:{k}:{name}:{}", m.name()),
                drive: drive.to_string(),
                user_capacity_tb: cap_tb,
                power_cap_w: None,
                tool: "fio".into(),
                state: "steady".into(),
                workload: format!("{bs} {rw}"),
                bs: bs.clone(),
                read_pct: Some(read_pct),
                random: if random { "yes" } else { "no" }.into(),
                qd: Some(qd),
                jobs: Some(jobs_n),
                metric: m.name(),
                value,
                unit: unit.into(),
                note: format!("from {file}"),
                origin: format!("{file}: jobs[{k}]"),
            });
        }
    }
    Ok(rows)
}
