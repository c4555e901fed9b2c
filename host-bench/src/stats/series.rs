//! Per-interval time series: IOPS, bandwidth, mean and p99 latency per direction.

use super::Histogram;

/// One finished interval. Times are relative to the recorder's origin.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct IntervalPoint {
    pub start_ns: u64,
    /// Interval length; the last interval of a run may be shorter than the others.
    pub duration_ns: u64,
    /// Completed I/Os per direction (read, write, trim).
    pub ios: [u64; 3],
    pub bytes: [u64; 3],
    /// Mean completion latency per direction, 0 when no I/O.
    pub lat_mean_ns: [f64; 3],
    /// 99th percentile completion latency per direction (histogram resolution), 0 when no I/O.
    pub lat_p99_ns: [u64; 3],
}

impl IntervalPoint {
    /// `self` followed by `next` as one interval. Means are weighted by I/Os; the p99 is the
    /// larger of the two (the exact p99 of the union is not kept; this bounds it from above).
    fn merge(&self, next: &IntervalPoint) -> IntervalPoint {
        let mut m = self.clone();
        m.duration_ns += next.duration_ns;
        for d in 0..3 {
            let n = self.ios[d] + next.ios[d];
            m.ios[d] = n;
            m.bytes[d] += next.bytes[d];
            m.lat_mean_ns[d] = if n == 0 {
                0.0
            } else {
                (self.lat_mean_ns[d] * self.ios[d] as f64 + next.lat_mean_ns[d] * next.ios[d] as f64) / n as f64
            };
            m.lat_p99_ns[d] = self.lat_p99_ns[d].max(next.lat_p99_ns[d]);
        }
        m
    }

    fn seconds(&self) -> f64 {
        self.duration_ns.max(1) as f64 / 1e9
    }

    /// I/Os per second of direction `d` (0 read, 1 write, 2 trim).
    pub fn iops(&self, d: usize) -> f64 {
        self.ios.get(d).copied().unwrap_or(0) as f64 / self.seconds()
    }

    /// All directions together.
    pub fn total_iops(&self) -> f64 {
        self.ios.iter().sum::<u64>() as f64 / self.seconds()
    }

    pub fn bw_bytes_per_s(&self, d: usize) -> f64 {
        self.bytes.get(d).copied().unwrap_or(0) as f64 / self.seconds()
    }
}

/// Most points a series keeps: past this, neighbours merge and the interval doubles, so a run
/// of any length holds at most this many (about 9 MiB; 18 h of 1 s intervals before merging).
pub const MAX_SERIES_POINTS: usize = 1 << 16;

/// Accumulates completions into fixed intervals; O(1) per record, one push per interval. A run
/// longer than [`MAX_SERIES_POINTS`] intervals gets coarser intervals (see `IntervalPoint::merge`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct SeriesRecorder {
    interval_ns: u64,
    origin_ns: u64,
    cur_start_ns: u64,
    ios: [u64; 3],
    bytes: [u64; 3],
    lat_sum_ns: [u128; 3],
    /// Read only for the p99 (the mean comes from `lat_sum_ns`).
    hist: [Histogram; 3],
    points: Vec<IntervalPoint>,
}

impl SeriesRecorder {
    /// Intervals of `interval_ns` (at least 1) starting at absolute time `origin_ns`.
    pub fn new(origin_ns: u64, interval_ns: u64) -> Self {
        SeriesRecorder {
            interval_ns: interval_ns.max(1),
            origin_ns,
            cur_start_ns: origin_ns,
            ios: [0; 3],
            bytes: [0; 3],
            lat_sum_ns: [0; 3],
            hist: Default::default(),
            points: Vec::new(),
        }
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    pub fn origin_ns(&self) -> u64 {
        self.origin_ns
    }

    /// Records a completion of direction `d` at absolute time `complete_ns`. Intervals are
    /// (start, end], so a completion exactly at a boundary closes the earlier interval; ones
    /// earlier than the current interval count toward it.
    #[inline]
    pub fn record(&mut self, d: usize, complete_ns: u64, len_bytes: u32, lat_ns: u64) {
        while complete_ns > self.cur_start_ns.saturating_add(self.interval_ns) {
            self.close(self.interval_ns);
        }
        let d = d.min(2);
        self.ios[d] += 1;
        self.bytes[d] += u64::from(len_bytes);
        self.lat_sum_ns[d] += u128::from(lat_ns);
        self.hist[d].record_for_percentiles(lat_ns);
    }

    /// Closes intervals up to `end_ns`, keeping a final partial interval if it saw any time.
    pub fn finish(&mut self, end_ns: u64) {
        while end_ns > self.cur_start_ns.saturating_add(self.interval_ns) {
            self.close(self.interval_ns);
        }
        if end_ns > self.cur_start_ns {
            self.close(end_ns - self.cur_start_ns);
        }
    }

    pub fn points(&self) -> &[IntervalPoint] {
        &self.points
    }

    pub fn into_points(self) -> Vec<IntervalPoint> {
        self.points
    }

    /// Merges neighbouring points and doubles the interval. The points are whole intervals
    /// (only `finish` closes a partial one) and their number is even, so the open interval
    /// starts on the coarser grid.
    fn coarsen(&mut self) {
        self.points =
            self.points.chunks(2).map(|c| if c.len() == 2 { c[0].merge(&c[1]) } else { c[0].clone() }).collect();
        self.interval_ns = self.interval_ns.saturating_mul(2);
    }

    fn close(&mut self, duration_ns: u64) {
        let mut lat_mean_ns = [0.0; 3];
        let mut lat_p99_ns = [0; 3];
        for d in 0..3 {
            if self.ios[d] > 0 {
                lat_mean_ns[d] = self.lat_sum_ns[d] as f64 / self.ios[d] as f64;
                lat_p99_ns[d] = self.hist[d].percentile(99.0);
                self.hist[d].clear();
            }
        }
        self.points.push(IntervalPoint {
            start_ns: self.cur_start_ns - self.origin_ns,
            duration_ns,
            ios: self.ios,
            bytes: self.bytes,
            lat_mean_ns,
            lat_p99_ns,
        });
        self.cur_start_ns += duration_ns;
        if self.points.len() >= MAX_SERIES_POINTS {
            self.coarsen();
        }
        self.ios = [0; 3];
        self.bytes = [0; 3];
        self.lat_sum_ns = [0; 3];
    }
}
