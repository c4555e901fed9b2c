//! A job's per-I/O log options (`write_bw_log`, `write_iops_log`, `write_lat_log` and their
//! companions), as the report's log writer (`report/fio_logs.rs`) reads them.

/// fio's per-I/O logs (`write_bw_log`, `write_iops_log`, `write_lat_log`) and their options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogOptions {
    /// File-name prefixes: `PREFIX_bw.N.log`, `PREFIX_iops.N.log`, `PREFIX_{lat,clat,slat}.N.log`.
    pub bw: Option<String>,
    pub iops: Option<String>,
    pub lat: Option<String>,
    /// `log_avg_msec`: 0 logs every I/O; otherwise one averaged entry per window.
    pub avg_msec: u64,
    /// `log_max_value`: a window's maximum instead of its mean.
    pub max_value: bool,
    /// `log_prio`: the priority column in hex (always 0: no priorities are issued).
    pub prio: bool,
    /// `per_job_logs` (default on): `.N` in the name, N counting job instances from 1.
    pub per_job: bool,
    /// `log_offset`: each line also carries the I/O's offset (0 on averaged lines, as fio).
    pub offset: bool,
}

impl Default for LogOptions {
    fn default() -> Self {
        LogOptions {
            bw: None,
            iops: None,
            lat: None,
            avg_msec: 0,
            max_value: false,
            prio: false,
            per_job: true,
            offset: false,
        }
    }
}

impl LogOptions {
    /// Whether some log of the job needs each I/O's offset.
    pub fn wants_offsets(&self) -> bool {
        self.offset && (self.bw.is_some() || self.iops.is_some() || self.lat.is_some())
    }
}
