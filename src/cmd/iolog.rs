//! The `write_iolog` files of a run (one fio iolog v3 per distinct path) and its bandwidth,
//! IOPS and latency logs, fed by the runner.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use host_bench::job::JobFile;
use host_bench::report::fio_logs::FioLogs;
use host_bench::report::iolog::IologWriter;
use host_bench::runner::{CompletedIo, SubmittedIo};

use super::CliError;

/// Open logs, and which log each job section writes to.
pub struct IologFiles {
    logs: Vec<(String, IologWriter<BufWriter<File>>)>,
    by_job: Vec<Option<usize>>,
    error: Option<String>,
}

impl IologFiles {
    /// Creates the logs the file's jobs ask for; `target` is the name written in them.
    pub fn create(file: &JobFile, target: Option<&Path>) -> Result<Self, CliError> {
        let name = target.map_or_else(|| "ssdlab".to_string(), |p| p.display().to_string());
        let mut logs: Vec<(String, IologWriter<BufWriter<File>>)> = Vec::new();
        let mut by_job = Vec::new();
        for job in &file.jobs {
            let Some(path) = &job.write_iolog else {
                by_job.push(None);
                continue;
            };
            let idx = match logs.iter().position(|(p, _)| p == path) {
                Some(i) => i,
                None => {
                    let f = File::create(path).map_err(|e| CliError::failed(format!("{path}: {e}")))?;
                    let w = IologWriter::new(BufWriter::new(f), &name)
                        .map_err(|e| CliError::failed(format!("{path}: {e}")))?;
                    logs.push((path.clone(), w));
                    logs.len() - 1
                }
            };
            by_job.push(Some(idx));
        }
        Ok(IologFiles { logs, by_job, error: None })
    }

    pub fn any(&self) -> bool {
        !self.logs.is_empty()
    }

    /// Appends submitted I/Os to their jobs' logs; the first write error is kept for `finish`.
    pub fn record(&mut self, ios: &[SubmittedIo]) {
        for io in ios {
            let Some(&Some(i)) = self.by_job.get(io.job as usize) else {
                continue;
            };
            if let Err(e) = self.logs[i].1.record(io) {
                self.error.get_or_insert_with(|| format!("{}: {e}", self.logs[i].0));
            }
        }
    }

    /// Closes every log at `end_ns` (ns since the run started).
    pub fn finish(self, end_ns: u64) -> Result<(), CliError> {
        if let Some(e) = self.error {
            return Err(CliError::failed(e));
        }
        for (path, w) in self.logs {
            w.finish(end_ns).map_err(|e| CliError::failed(format!("{path}: {e}")))?;
        }
        Ok(())
    }
}

/// fio's bandwidth, IOPS and latency logs of a run (created before it starts).
pub struct PerfLogs {
    logs: Option<FioLogs<BufWriter<File>>>,
    error: Option<String>,
}

impl PerfLogs {
    pub fn create(file: &JobFile) -> Result<Self, CliError> {
        let logs = FioLogs::create(file, |path| File::create(path).map(BufWriter::new))
            .map_err(|e| CliError::failed(format!("write_bw_log/write_iops_log/write_lat_log: {e}")))?;
        Ok(PerfLogs { logs: logs.any().then_some(logs), error: None })
    }

    pub fn any(&self) -> bool {
        self.logs.is_some()
    }

    /// Adds completions; the first write error is kept for `finish`.
    pub fn record(&mut self, ios: &[CompletedIo]) {
        if let (Some(l), None) = (self.logs.as_mut(), &self.error) {
            if let Err(e) = l.record(ios) {
                self.error = Some(e.to_string());
            }
        }
    }

    pub fn finish(self) -> Result<(), CliError> {
        if let Some(e) = self.error {
            return Err(CliError::failed(e));
        }
        match self.logs {
            Some(l) => l.finish().map_err(|e| CliError::failed(e.to_string())),
            None => Ok(()),
        }
    }
}
