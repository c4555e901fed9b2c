//! One running job instance: where its I/Os come from (pattern, iolog, rate limit), what it
//! has issued, and when it may issue next.

use super::*;

/// Where a job instance's I/Os come from.
// The pattern is the common case and sits on the per-I/O path; a job has few instances, so its
// size costs nothing and a box would cost an indirection per I/O.
#[allow(clippy::large_enum_variant)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) enum Source {
    Pattern(IoPattern),
    /// fio `read_iolog` (not saved: a replayed log's place in its file is not part of the
    /// state, so a run that replays one is refused a mid-run snapshot).
    #[serde(skip)]
    Iolog(Box<IologSource>),
}

/// One running job instance.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Instance {
    pub(super) source: Source,
    /// Replayed with the log's delays (`read_iolog` without `replay_no_stall`).
    pub(super) replay_paced: bool,
    /// A paced replay found every slot busy: its next entry's delay starts at a completion.
    pub(super) waiting_slot: bool,
    /// Job section index and clone number (for I/O logs).
    pub(super) job: u32,
    pub(super) clone: u32,
    /// I/Os drawn from the source ahead of their submission, in order, each with the delay
    /// before it (iolog replay; 0 otherwise) (see `next_io`).
    pub(super) ahead: Ahead,
    pub(super) slot: usize,
    pub(super) iodepth: u32,
    pub(super) outstanding: u32,
    pub(super) start_ns: u64,
    pub(super) measure_from_ns: u64,
    pub(super) end_ns: u64,
    pub(super) budget_bytes: u64,
    pub(super) budget_ios: u64,
    pub(super) issued_bytes: u64,
    pub(super) issued_ios: u64,
    /// fio's rate limit, if the job has one (open loop; no lookahead: the direction is
    /// chosen when the I/O is fetched).
    pub(super) rate: Option<Box<rate::RateState>>,
    pub(super) next_arrival_ns: u64,
    pub(super) stopped: bool,
    pub(super) finished: bool,
    pub(super) ss: Option<SteadyStateTracker>,
    pub(super) ss_reached_ns: Option<u64>,
    /// `latency_target` or `flow` (see `control.rs`); `None` for ordinary jobs.
    pub(super) control: Option<Box<control::Control>>,
    /// fio `rate_min` / `rate_iops_min` (see `min_rate.rs`); `None` for ordinary jobs.
    #[serde(default)]
    pub(super) min_rate: Option<Box<min_rate::MinRate>>,
    /// fio `max_latency` per direction, ns (`u64::MAX`: none): one compare per completion.
    #[serde(default = "no_max_latency")]
    pub(super) max_latency_ns: [u64; 3],
    /// Offsets of the I/Os in flight, when the job logs them (fio `log_offset`).
    #[serde(default)]
    pub(super) offsets: Option<Box<super::offsets::InFlightOffsets>>,
}

/// `max_latency_ns` of an instance saved before the option existed.
fn no_max_latency() -> [u64; 3] {
    [u64::MAX; 3]
}

/// I/Os an instance draws ahead of submitting them.
pub(super) const LOOKAHEAD: usize = crate::device::HINT_LOOKAHEAD;

/// The I/Os drawn ahead, in order, each with its delay.
pub(super) type Ahead = crate::ring::Ring<(NextIo, u64), LOOKAHEAD>;

impl Instance {
    /// The next I/O to submit ([`Instance::can_issue`] said there is one). The pattern is
    /// drawn `LOOKAHEAD` I/Os ahead and each offset is passed to the device as a hint when
    /// drawn, so a simulated drive can fetch its mapping state before the command arrives;
    /// the sequence of I/Os is the pattern's, unchanged.
    #[inline]
    pub(super) fn next_io<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<Option<NextIo>, String> {
        if let Some(r) = self.rate.as_mut() {
            return Ok(r.pending.take());
        }
        let io = self.ahead.pop_front();
        self.refill(dev)?;
        Ok(io.map(|(io, _)| io))
    }

    /// Draws the source up to `LOOKAHEAD` I/Os ahead (fewer once it is done).
    #[inline]
    pub(super) fn refill<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<(), String> {
        while self.rate.is_none() && self.ahead.len() < LOOKAHEAD {
            let next = match &mut self.source {
                Source::Pattern(p) => p.next_io().map(|io| (io, 0)),
                Source::Iolog(log) => log.next()?,
            };
            let Some((io, delay_ns)) = next else {
                break;
            };
            dev.hint_next_offset(io.offset_bytes);
            self.ahead.push_back((io, delay_ns));
        }
        Ok(())
    }

    /// Submits at arrival times (`rate_iops`, or an iolog's delays) rather than on completions.
    #[inline]
    pub(super) fn paced(&self) -> bool {
        self.rate.is_some() || self.replay_paced
    }

    #[inline]
    pub(super) fn can_issue(&self, now_ns: u64) -> bool {
        !self.stopped
            && (!self.ahead.is_empty() || self.rate.as_ref().is_some_and(|r| r.pending.is_some() || !r.exhausted))
            && now_ns < self.end_ns
            && self.issued_bytes < self.budget_bytes
            && self.issued_ios < self.budget_ios
    }

    /// A replayed entry arrives its delay after the previous submission, or, when every slot
    /// is busy, its delay after the completion that frees one (fio fetches it, then waits).
    pub(super) fn schedule_next_arrival(&mut self, now_ns: u64) {
        if !self.replay_paced {
            return;
        }
        let delay = self.ahead.front().map_or(0, |e| e.1);
        if self.outstanding < self.iodepth {
            self.next_arrival_ns = now_ns.saturating_add(delay);
        } else {
            self.next_arrival_ns = u64::MAX;
            self.waiting_slot = true;
        }
    }

    /// A rate-limited instance with a free slot fetches its next I/O (fio's `get_io_u`): the
    /// direction and the time it is due come from the rate state at `now_ns`.
    pub(super) fn fetch_rated(&mut self, now_ns: u64) {
        let (Some(rate), Source::Pattern(p)) = (self.rate.as_mut(), &mut self.source) else {
            return;
        };
        if rate.pending.is_some() || rate.exhausted || self.outstanding >= self.iodepth || now_ns >= self.end_ns {
            return;
        }
        let now_us = now_ns.saturating_sub(self.start_ns) / 1_000;
        let (dir, wait_us) = rate.choose(p.draw_dir(), now_us);
        match p.next_io_as(dir) {
            Some(io) => {
                rate.pending = Some(io);
                self.next_arrival_ns = now_ns.saturating_add(wait_us.saturating_mul(1_000));
            }
            None => rate.exhausted = true,
        }
    }

    pub(super) fn fraction(&self, now_ns: u64) -> f64 {
        if self.finished {
            return 1.0;
        }
        let by_time = if self.end_ns == u64::MAX {
            0.0
        } else {
            now_ns.saturating_sub(self.start_ns) as f64 / self.end_ns.saturating_sub(self.start_ns).max(1) as f64
        };
        let by_bytes = if self.budget_bytes == u64::MAX {
            0.0
        } else {
            self.issued_bytes as f64 / self.budget_bytes.max(1) as f64
        };
        let by_ios =
            if self.budget_ios == u64::MAX { 0.0 } else { self.issued_ios as f64 / self.budget_ios.max(1) as f64 };
        by_time.max(by_bytes).max(by_ios).min(1.0)
    }
}
