//! The firmware power governor: admission of NAND operations under a power cap, and a power
//! meter (1 ms bins) for peak power, throttled time and a per-interval power series.
//!
//! An NVMe power state's Maximum Power is the *sustained* draw of the subsystem (REFERENCE.md
//! "Power"), so the cap is held as an average and single operations may burst:
//! - **Average credits** (US 10509591), the binding limit: a token bucket of energy refilled at
//!   `cap - baseline` W, `(cap - baseline) x window` J deep. An op's whole energy (array +
//!   channel transfer + the host datapath energy of its bytes) is taken when it starts, so the
//!   drive's average over any window and longer stays at the cap.
//! - **Peak credits** (US 9880605 B2, US 11614865), the burst allowance: an op draws its peak
//!   power from a pool of `cap x peak_ratio - baseline` watts before it starts and gives it back
//!   when it ends; this bounds the instantaneous draw (max concurrently active dies ~ pool /
//!   power per active die). Credits are held over the op's whole span, channel waits included,
//!   so a `peak_ratio` of 1 throttles a drive far below its average budget.
//!
//! An op that does not fit waits (FIFO over the whole array, so nothing is starved or reordered on
//! a die) until an op ends or the bucket has refilled: throttling is queueing latency to the host.
//! Every check is O(1) and allocation-free; the wait list is allocated once (one slot per die).
//!
//! The meter spreads each op's energy evenly over its `[start, end)` in 1 ms bins (a ring of
//! [`RING_BINS`] bins ahead of the current time) and closes bins as simulated time passes.

use crate::time::{SimTime, NS_PER_MS};
use std::collections::VecDeque;

/// Bins of the meter's ring; an op longer than `RING_BINS - 2` bins puts its tail in the last one.
pub const RING_BINS: usize = 128;

/// How the governor is set up; built by the device from the profile's `[power]` section.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct GovernorConfig {
    /// Cap on the drive's average power, W; `None` = meter only, nothing is ever delayed.
    pub cap_w: Option<f64>,
    /// Power the governor leaves for everything but NAND ops: controller idle + die standby +
    /// the host-interface reserve, W.
    pub baseline_w: f64,
    /// Averaging window of the token bucket, ns.
    pub window_ns: SimTime,
    /// Peak credits as a multiple of the cap (>= 1; 1 = never above the cap at any instant).
    pub peak_ratio: f64,
    /// Host datapath energy charged per byte an op moves, J/byte (its share of the PCIe and
    /// controller datapath energy).
    pub host_j_per_byte: f64,
    /// Width of a meter bin, ns (peak power is the highest bin).
    pub bin_ns: SimTime,
    /// Length of one entry of the power series, ns (rounded to whole bins).
    pub interval_ns: SimTime,
}

impl GovernorConfig {
    /// A meter with no cap.
    pub fn meter(baseline_w: f64, interval_ns: SimTime) -> Self {
        GovernorConfig {
            cap_w: None,
            baseline_w,
            window_ns: 10 * NS_PER_MS,
            peak_ratio: 1.0,
            host_j_per_byte: 0.0,
            bin_ns: NS_PER_MS,
            interval_ns,
        }
    }
}

/// The cap cannot be held.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GovernorError {
    #[error("power cap {cap_w} W is not above the drive's baseline {baseline_w:.2} W (controller idle + standby + host-interface reserve); allowed: a cap > {baseline_w:.2} W")]
    CapBelowBaseline { cap_w: f64, baseline_w: f64 },
    #[error("power governor setting {name} = {value} is out of range (allowed {allowed})")]
    Setting { name: &'static str, value: f64, allowed: &'static str },
}

/// One closed entry of the power series.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct PowerInterval {
    /// Start of the interval, ns.
    pub start_ns: SimTime,
    /// NAND energy (array + transfer) spent in it, J.
    pub nand_j: f64,
    /// Highest 1-bin NAND power (array + transfer) in it, W.
    pub peak_w: f64,
    /// Time in it during which some op waited for the governor, ns.
    pub throttled_ns: SimTime,
}

/// Totals of the governor and meter.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct GovernorStats {
    /// Ops that had to wait.
    pub held_ops: u64,
    /// Sum over held ops of their wait, ns.
    pub held_delay_ns: u64,
    /// Time with at least one op waiting, ns (up to the last state change).
    pub throttled_ns: SimTime,
    /// Highest closed-bin NAND power, W.
    pub peak_w: f64,
}

/// Token bucket + peak credits + wait list + meter.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Governor {
    cfg: GovernorConfig,
    /// Bucket refill, W (= cap - baseline); 0 when uncapped.
    rate_w: f64,
    depth_j: f64,
    tokens_j: f64,
    tokens_at: SimTime,
    credit_w: f64,
    active_w: f64,
    active_ops: u32,
    /// Dies whose next op (a host read) waits, in arrival order; served before `waiting`.
    waiting_reads: VecDeque<u32>,
    /// Dies whose next op (anything else) waits, in arrival order.
    waiting: VecDeque<u32>,
    /// Time of the pending wake-up event, if one is scheduled.
    pub(crate) wake_at: Option<SimTime>,
    throttled_since: Option<SimTime>,
    stats: GovernorStats,
    meter: Meter,
}

/// The result of asking to start an op.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Admission {
    Start,
    /// Wait; `Some(t)` = the bucket will hold enough at `t` (credits allowing).
    Wait(Option<SimTime>),
}

impl Governor {
    /// A governor for an array of `dies` dies.
    pub fn new(cfg: GovernorConfig, dies: u32) -> Result<Governor, GovernorError> {
        let bad = |name, value: f64, allowed| GovernorError::Setting { name, value, allowed };
        if !(cfg.baseline_w.is_finite() && cfg.baseline_w >= 0.0) {
            return Err(bad("baseline_w", cfg.baseline_w, "a finite number >= 0"));
        }
        if !(cfg.peak_ratio.is_finite() && (1.0..=10.0).contains(&cfg.peak_ratio)) {
            return Err(bad("peak_ratio", cfg.peak_ratio, "1..=10"));
        }
        if cfg.window_ns == SimTime::ZERO || cfg.bin_ns == SimTime::ZERO {
            return Err(bad("window_ns/bin_ns", 0.0, "> 0"));
        }
        let (rate_w, credit_w) = match cfg.cap_w {
            Some(cap) => {
                if !(cap.is_finite() && cap > cfg.baseline_w) {
                    return Err(GovernorError::CapBelowBaseline { cap_w: cap, baseline_w: cfg.baseline_w });
                }
                (cap - cfg.baseline_w, cap * cfg.peak_ratio - cfg.baseline_w)
            }
            None => (0.0, f64::INFINITY),
        };
        let depth_j = rate_w * cfg.window_ns.ns() as f64 * 1e-9;
        let interval_bins = (cfg.interval_ns / cfg.bin_ns).max(1);
        Ok(Governor {
            cfg,
            rate_w,
            depth_j,
            tokens_j: depth_j,
            tokens_at: SimTime::ZERO,
            credit_w,
            active_w: 0.0,
            active_ops: 0,
            waiting_reads: VecDeque::with_capacity(dies as usize),
            waiting: VecDeque::with_capacity(dies as usize),
            wake_at: None,
            throttled_since: None,
            stats: GovernorStats::default(),
            meter: Meter::new(cfg.bin_ns, interval_bins, 0.0),
        })
    }

    pub fn config(&self) -> &GovernorConfig {
        &self.cfg
    }

    /// Changes the cap of an idle governor (no op running or waiting), keeping the meter and
    /// the totals: a drive restored from a snapshot, or a sweep point forked from a shared
    /// preconditioned state, runs its measured jobs at its own power setting. The bucket starts
    /// full at `now`, as after any idle spell longer than the window.
    pub fn set_cap(&mut self, cap_w: Option<f64>, now: SimTime) -> Result<(), GovernorError> {
        if self.active_ops != 0 || self.waiting_len() != 0 || self.wake_at.is_some() {
            return Err(GovernorError::Setting {
                name: "cap_w",
                value: cap_w.unwrap_or(0.0),
                allowed: "a change only while no op runs or waits",
            });
        }
        let fresh = Governor::new(GovernorConfig { cap_w, ..self.cfg }, 0)?;
        self.cfg = fresh.cfg;
        self.rate_w = fresh.rate_w;
        self.depth_j = fresh.depth_j;
        self.tokens_j = fresh.depth_j;
        self.tokens_at = now;
        self.credit_w = fresh.credit_w;
        self.active_w = 0.0;
        Ok(())
    }

    pub fn capped(&self) -> bool {
        self.cfg.cap_w.is_some()
    }

    /// Refills the bucket up to `now`.
    fn refill(&mut self, now: SimTime) {
        if now > self.tokens_at {
            let add = self.rate_w * (now - self.tokens_at).ns() as f64 * 1e-9;
            self.tokens_j = (self.tokens_j + add).min(self.depth_j);
            self.tokens_at = now;
        }
    }

    /// Whether an op of `energy_j` and peak draw `power_w` may start at `now`; takes its credits
    /// if so. A host read needs only peak credits: it takes its energy even from an empty bucket
    /// (the bucket goes into debt, at most one bucket depth, which later programs and erases repay
    /// by waiting), since firmware spends the sustained budget on reads first, as it serves them
    /// first. The average over two windows and longer still holds the cap. `queued_first` = the op is the head of the wait list; otherwise it must queue
    /// behind waiting ops of its class (host reads go before everything else: a read is short and
    /// small, and the host waits for it, as controllers prioritise reads).
    pub fn admit(
        &mut self,
        now: SimTime,
        energy_j: f64,
        power_w: f64,
        host_read: bool,
        queued_first: bool,
    ) -> Admission {
        if self.cfg.cap_w.is_none() {
            return Admission::Start;
        }
        let ahead = if host_read { !self.waiting_reads.is_empty() } else { self.waiting_len() > 0 };
        if !queued_first && ahead {
            return Admission::Wait(None);
        }
        self.refill(now);
        let charge = energy_j.min(self.depth_j);
        let credit_ok = self.active_w + power_w <= self.credit_w + 1e-12 || self.active_ops == 0;
        if !credit_ok {
            return Admission::Wait(None);
        }
        let floor_j = if host_read { -self.depth_j } else { 0.0 };
        if self.tokens_j - floor_j + 1e-15 < charge {
            // Ops bigger than the bucket are clamped to its depth, so this always comes true.
            let need = charge - (self.tokens_j - floor_j);
            let ns = crate::cast::sat_u64((need / self.rate_w * 1e9).ceil());
            return Admission::Wait(Some(now + SimTime::from_ns(ns.max(1))));
        }
        self.tokens_j -= charge;
        self.active_w += power_w;
        self.active_ops += 1;
        Admission::Start
    }

    /// A read served by suspending a program or erase: the suspended op stops drawing, so the
    /// read needs only `extra_w` (its draw above the suspended op's) from the shared credits, plus
    /// its energy from the bucket (into debt up to one bucket depth, as any host read). Returns whether it
    /// may start; [`Governor::release`] it with
    /// `extra_w` (as an op) when it ends.
    pub fn admit_suspend_read(&mut self, now: SimTime, energy_j: f64, extra_w: f64) -> bool {
        if self.cfg.cap_w.is_none() {
            return true;
        }
        self.refill(now);
        let charge = energy_j.min(self.depth_j);
        if self.active_w + extra_w > self.credit_w + 1e-12 || self.tokens_j + self.depth_j + 1e-15 < charge {
            return false;
        }
        self.tokens_j -= charge;
        self.active_w += extra_w;
        self.active_ops += 1;
        true
    }

    fn waiting_len(&self) -> usize {
        self.waiting.len() + self.waiting_reads.len()
    }

    /// Returns the peak credits of an op that ended.
    pub fn release(&mut self, power_w: f64) {
        if self.cfg.cap_w.is_none() {
            return;
        }
        self.active_ops = self.active_ops.saturating_sub(1);
        self.active_w = if self.active_ops == 0 { 0.0 } else { (self.active_w - power_w).max(0.0) };
    }

    /// Puts `die` at the back of its class's wait list.
    pub fn hold(&mut self, now: SimTime, die: u32, host_read: bool) {
        self.meter.advance(now, self.stats.throttled_ns, self.throttled_since);
        if self.waiting_len() == 0 {
            self.throttled_since = Some(now);
        }
        self.stats.held_ops += 1;
        if host_read {
            self.waiting_reads.push_back(die);
        } else {
            self.waiting.push_back(die);
        }
    }

    /// Takes `die` off the (non-read) wait list: its held op goes back to its die's queue so that
    /// a host read can go first. O(dies), and only when a read meets a held op.
    pub fn unhold(&mut self, now: SimTime, die: u32) {
        if let Some(i) = self.waiting.iter().position(|&d| d == die) {
            self.waiting.remove(i);
            self.stats.held_ops -= 1;
            if self.waiting_len() == 0 {
                self.end_throttled_span(now);
            }
        }
    }

    /// The die at the head of the wait lists (reads first).
    pub fn head(&self) -> Option<u32> {
        self.waiting_reads.front().or(self.waiting.front()).copied()
    }

    /// Removes the head after it started; `waited_ns` is how long it waited.
    pub fn pop_head(&mut self, now: SimTime, waited_ns: SimTime) {
        if self.waiting_reads.pop_front().is_none() {
            self.waiting.pop_front();
        }
        self.stats.held_delay_ns += waited_ns.ns();
        if self.waiting_len() == 0 {
            self.end_throttled_span(now);
        }
    }

    /// Ends the open throttled span (if any) at `now`: the meter's series first counts it up
    /// to `now`, then the total takes it.
    fn end_throttled_span(&mut self, now: SimTime) {
        self.meter.advance(now, self.stats.throttled_ns, self.throttled_since);
        if let Some(t) = self.throttled_since.take() {
            self.stats.throttled_ns += now - t;
        }
    }

    /// Forgets waiting and running ops (power cut at `now`); an open throttled span ends there.
    /// (Dropped unaccounted, it took back throttled time the meter's series had already
    /// counted, and the next interval's share came out negative: swarm seed 5792.)
    pub fn clear(&mut self, now: SimTime) {
        self.waiting.clear();
        self.waiting_reads.clear();
        self.end_throttled_span(now);
        self.active_w = 0.0;
        self.active_ops = 0;
        self.wake_at = None;
    }

    /// Throttled time up to `now`, including a throttled span still open.
    pub fn throttled_total(&self, now: SimTime) -> SimTime {
        self.stats.throttled_ns + self.throttled_since.map_or(SimTime::ZERO, |t| now.saturating_sub(t))
    }

    /// Books an op's NAND energy into the meter over `[start, end)`; `now` <= `start`.
    pub fn meter_add(&mut self, now: SimTime, start: SimTime, end: SimTime, energy_j: f64) {
        self.meter.advance(now, self.stats.throttled_ns, self.throttled_since);
        self.meter.add(start, end, energy_j);
    }

    pub fn stats(&self) -> GovernorStats {
        GovernorStats { peak_w: self.meter.peak_w, ..self.stats }
    }

    /// Highest bin NAND power over everything up to `now`, W.
    pub fn peak_w(&self, now: SimTime) -> f64 {
        self.series(now).iter().map(|i| i.peak_w).fold(self.meter.peak_w, f64::max)
    }

    /// The power series up to `now`: closed intervals, then the open ones computed from the
    /// pending bins (without changing the governor).
    pub fn series(&self, now: SimTime) -> Vec<PowerInterval> {
        let mut m = self.meter.clone();
        m.advance(now, self.stats.throttled_ns, self.throttled_since);
        m.advance(now + self.cfg.bin_ns * (m.interval_bins + RING_BINS as u64), self.throttled_total(now), None);
        let mut s = m.series;
        let end = crate::cast::usize_from(now.ns().div_ceil((self.cfg.bin_ns * m.interval_bins).ns()).max(1));
        s.truncate(end);
        s
    }

    /// Closed intervals of the series so far.
    pub fn closed_series(&self) -> &[PowerInterval] {
        &self.meter.series
    }
}

/// Most intervals the power series keeps (8 MiB). A longer run merges neighbouring pairs and
/// doubles the interval, as the host's counter samples do: a merged interval holds the exact
/// energy, highest bin and throttled time of both halves, so only where a span's boundaries
/// fall gets coarser, and runs shorter than this many intervals (43.7 simulated minutes at the
/// 10 ms interval `ssdlab run` meters with) report exactly what they did before the bound.
pub const MAX_SERIES_INTERVALS: usize = 1 << 18;

/// Energy in fixed bins, closed as time passes.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
struct Meter {
    bin_ns: SimTime,
    interval_bins: u64,
    baseline_w: f64,
    #[serde(with = "ring_serde")]
    ring: [f64; RING_BINS],
    /// Absolute index of the oldest open bin.
    base: u64,
    peak_w: f64,
    series: Vec<PowerInterval>,
    /// Throttled total at the start of the open interval.
    interval_thr0: SimTime,
}

/// The meter's ring as a sequence (serde derives arrays only up to 32 elements).
mod ring_serde {
    use super::RING_BINS;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(ring: &[f64; RING_BINS], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(ring.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; RING_BINS], D::Error> {
        let v = Vec::<f64>::deserialize(d)?;
        v.try_into().map_err(|v: Vec<f64>| D::Error::invalid_length(v.len(), &"the meter's ring of bins"))
    }
}

impl Meter {
    fn new(bin_ns: SimTime, interval_bins: u64, baseline_w: f64) -> Self {
        Meter {
            bin_ns,
            interval_bins,
            baseline_w,
            ring: [0.0; RING_BINS],
            base: 0,
            peak_w: 0.0,
            series: Vec::new(),
            interval_thr0: SimTime::ZERO,
        }
    }

    /// Closes every bin that ends at or before `now`. The throttle state (`closed_ns` so far plus
    /// an open span since `since`) is unchanged since each of those bins ended: the governor
    /// advances the meter before every change of it.
    fn advance(&mut self, now: SimTime, closed_ns: SimTime, since: Option<SimTime>) {
        let target = now / self.bin_ns;
        while self.base < target {
            let slot = crate::cast::usize_from(self.base % RING_BINS as u64);
            let e = std::mem::take(&mut self.ring[slot]);
            let w = e / (self.bin_ns.ns() as f64 * 1e-9) + self.baseline_w;
            self.peak_w = self.peak_w.max(w);
            let mut idx = crate::cast::usize_from(self.base / self.interval_bins);
            while self.series.len() <= idx {
                if self.series.len() == MAX_SERIES_INTERVALS {
                    self.decimate();
                    idx = crate::cast::usize_from(self.base / self.interval_bins);
                    continue;
                }
                // One push per interval of simulated time, never per op.
                let start_ns = self.series.len() as u64 * self.interval_bins * self.bin_ns;
                self.series.push(PowerInterval { start_ns, ..Default::default() });
            }
            self.base += 1;
            let iv = &mut self.series[idx];
            iv.nand_j += e;
            iv.peak_w = iv.peak_w.max(w);
            if self.base.is_multiple_of(self.interval_bins) {
                let t_end = self.base * self.bin_ns;
                let thr = closed_ns + since.map_or(SimTime::ZERO, |s| t_end.saturating_sub(s));
                // Added, not set: after `decimate` an open interval already holds its first half's.
                iv.throttled_ns += thr - self.interval_thr0;
                self.interval_thr0 = thr;
            }
        }
    }

    /// Merges neighbouring intervals pairwise and doubles the interval. Called when a new
    /// interval would start with the series full, so every interval is closed and pairs are
    /// whole (the length is even).
    fn decimate(&mut self) {
        let merged = self.series.chunks(2).map(|c| {
            c[1..].iter().fold(c[0], |a, b| PowerInterval {
                start_ns: a.start_ns,
                nand_j: a.nand_j + b.nand_j,
                peak_w: a.peak_w.max(b.peak_w),
                throttled_ns: a.throttled_ns + b.throttled_ns,
            })
        });
        self.series = merged.collect();
        self.interval_bins *= 2;
    }

    /// Spreads `energy_j` evenly over `[start, end)`.
    fn add(&mut self, start: SimTime, end: SimTime, energy_j: f64) {
        let end = end.max(start + SimTime::from_ns(1));
        let per_ns = energy_j / (end - start).ns() as f64;
        let last_bin = self.base + RING_BINS as u64 - 1;
        let mut t = start;
        while t < end {
            let b = (t / self.bin_ns).min(last_bin);
            let bin_end = if b == last_bin { end } else { ((b + 1) * self.bin_ns).min(end) };
            self.ring[crate::cast::usize_from(b % RING_BINS as u64)] += per_ns * (bin_end - t).ns() as f64;
            t = bin_end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capped(cap: f64, peak_ratio: f64) -> Governor {
        let cfg = GovernorConfig { cap_w: Some(cap), peak_ratio, ..GovernorConfig::meter(1.0, 10 * NS_PER_MS) };
        Governor::new(cfg, 4).unwrap()
    }

    #[test]
    fn credits_limit_concurrent_ops() {
        // 3 W cap, 1 W baseline: 2 W of credits -> four 0.5 W ops, the fifth waits.
        let mut g = capped(3.0, 1.0);
        for _ in 0..4 {
            assert_eq!(g.admit(SimTime::ZERO, 1e-6, 0.5, false, false), Admission::Start);
        }
        assert_eq!(g.admit(SimTime::ZERO, 1e-6, 0.5, false, false), Admission::Wait(None));
        g.release(0.5);
        assert_eq!(g.admit(SimTime::ZERO, 1e-6, 0.5, false, false), Admission::Start);
    }

    #[test]
    fn bucket_delays_until_refilled() {
        // 2 W of budget, 10 ms window: 20 mJ deep. Peak ratio 10 so credits do not bind.
        let mut g = capped(3.0, 10.0);
        assert_eq!(g.admit(SimTime::ZERO, 0.015, 0.1, false, false), Admission::Start);
        g.release(0.1);
        // 5 mJ left; 10 mJ more needs 5 mJ / 2 W = 2.5 ms.
        assert_eq!(
            g.admit(SimTime::ZERO, 0.010, 0.1, false, false),
            Admission::Wait(Some(SimTime::from_ns(2_500_000)))
        );
        assert_eq!(g.admit(SimTime::from_ns(2_500_000), 0.010, 0.1, false, false), Admission::Start);
    }

    #[test]
    fn below_baseline_is_an_error() {
        let cfg = GovernorConfig { cap_w: Some(0.5), ..GovernorConfig::meter(1.0, NS_PER_MS) };
        assert!(matches!(Governor::new(cfg, 1), Err(GovernorError::CapBelowBaseline { .. })));
    }

    #[test]
    fn series_stays_bounded_with_exact_aggregates() {
        // One 1 ms interval per bin, 2.5 series' worth: 1 mJ in every bin, 5 mJ in one late bin.
        let mut g = Governor::new(GovernorConfig::meter(0.0, NS_PER_MS), 1).unwrap();
        let bins = MAX_SERIES_INTERVALS as u64 * 5 / 2;
        let spike = 1003; // the last of four 1 ms intervals merged twice
        for b in 0..bins {
            let e = if b == spike { 0.005 } else { 0.001 };
            g.meter_add(b * NS_PER_MS, b * NS_PER_MS, (b + 1) * NS_PER_MS, e);
        }
        let s = g.series(bins * NS_PER_MS);
        assert!(s.len() <= MAX_SERIES_INTERVALS, "{} intervals", s.len());
        let len_ns = s[1].start_ns - s[0].start_ns;
        assert_eq!(len_ns, 4 * NS_PER_MS, "decimated twice");
        assert!(s.windows(2).all(|w| w[1].start_ns - w[0].start_ns == len_ns));
        let total: f64 = s.iter().map(|i| i.nand_j).sum();
        assert!((total - (bins as f64 * 0.001 + 0.004)).abs() < 1e-6, "{total}");
        let hot =
            s.iter().find(|i| i.start_ns <= spike * NS_PER_MS && spike * NS_PER_MS < i.start_ns + len_ns).unwrap();
        assert!((hot.peak_w - 5.0).abs() < 1e-9 && (hot.nand_j - 0.008).abs() < 1e-9, "{hot:?}");
        assert!(s.iter().filter(|i| i.peak_w > 1.5).count() == 1);
    }

    #[test]
    fn meter_spreads_energy_and_finds_peak() {
        let mut g = Governor::new(GovernorConfig::meter(0.0, 4 * NS_PER_MS), 1).unwrap();
        // 2 mJ over 2 ms -> 1 W in bins 0 and 1; 3 mJ within bin 2 -> 3 W.
        g.meter_add(SimTime::ZERO, SimTime::ZERO, 2 * NS_PER_MS, 0.002);
        g.meter_add(SimTime::ZERO, 2 * NS_PER_MS, 2 * NS_PER_MS + SimTime::from_ns(500_000), 0.003);
        let s = g.series(8 * NS_PER_MS);
        assert_eq!(s.len(), 2);
        assert!((s[0].nand_j - 0.005).abs() < 1e-12);
        assert!((s[0].peak_w - 3.0).abs() < 1e-9, "{s:?}");
        assert!((g.peak_w(8 * NS_PER_MS) - 3.0).abs() < 1e-9);
    }
}
