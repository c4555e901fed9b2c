//! fio's think time (backend.c `handle_thinktime`, fio 3.33): after each I/O a job checks
//! whether `thinktime_blocks` I/Os (counted as they complete, or as they are issued) passed
//! since its last pause, or `thinktime_iotime` of time; if so it waits for every I/O in flight
//! (`io_u_quiesce`) and then pauses for `thinktime`.
//!
//! fio makes the check after each submission once it has reaped what a full queue makes it
//! wait for: with the queue full it checks after the next completion. The pause is a host's,
//! so it is not scaled with the drive.

use crate::job::ThinkTime;

/// One instance's think-time state.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(super) struct Think {
    pause_ns: u64,
    /// Blocks between pauses; `None` with `thinktime_iotime` alone (fio skips the block check).
    blocks: Option<u64>,
    by_issue: bool,
    iotime_ns: u64,
    /// I/Os completed (the `complete` counter).
    completed: u64,
    /// The counter at the last pause, and when that pause was decided.
    last_blocks: u64,
    last_ns: u64,
    /// A check owed to the next completion (the queue was full at the submission).
    check_owed: bool,
    /// `None`: issuing; `Some(u64::MAX)`: draining before the pause; `Some(t)`: paused until `t`.
    pub(super) until_ns: Option<u64>,
}

impl Think {
    pub(super) fn new(t: &ThinkTime, now_ns: u64) -> Option<Self> {
        t.active().then(|| Think {
            pause_ns: t.ns.max(t.spin_ns),
            // fio: thinktime_iotime without thinktime_blocks skips the block check.
            blocks: t.blocks.or(if t.iotime_ns > 0 { None } else { Some(1) }),
            by_issue: t.by_issue,
            iotime_ns: t.iotime_ns,
            completed: 0,
            last_blocks: 0,
            last_ns: now_ns,
            check_owed: false,
            until_ns: None,
        })
    }

    /// Whether the instance may issue at `now_ns` (a pause that is over ends here).
    pub(super) fn may_issue(&mut self, now_ns: u64) -> bool {
        match self.until_ns {
            Some(t) if t > now_ns => false,
            Some(_) => {
                self.until_ns = None;
                true
            }
            None => true,
        }
    }

    /// After a submission: fio checks now, or after the next completion when the queue is full.
    pub(super) fn submitted(&mut self, issued: u64, outstanding: u32, depth: u32, now_ns: u64) {
        if outstanding >= depth {
            self.check_owed = true;
        } else {
            self.check(issued, outstanding, now_ns);
        }
    }

    /// After a completion (already counted in `outstanding`).
    pub(super) fn completed(&mut self, issued: u64, outstanding: u32, now_ns: u64) {
        self.completed += 1;
        if std::mem::take(&mut self.check_owed) {
            self.check(issued, outstanding, now_ns);
        }
        if outstanding == 0 && self.until_ns == Some(u64::MAX) {
            self.until_ns = Some(now_ns.saturating_add(self.pause_ns));
        }
    }

    /// fio's `handle_thinktime` decision: pause (after draining) when due.
    fn check(&mut self, issued: u64, outstanding: u32, now_ns: u64) {
        let by_time = self.iotime_ns > 0 && now_ns.saturating_sub(self.last_ns) >= self.iotime_ns;
        let counter = if self.by_issue { issued } else { self.completed };
        let by_blocks = self.blocks.is_some_and(|b| counter >= self.last_blocks.saturating_add(b));
        if !(by_time || by_blocks) {
            return;
        }
        self.last_blocks = counter;
        if self.iotime_ns > 0 {
            self.last_ns = now_ns;
        }
        self.until_ns = Some(if outstanding == 0 { now_ns.saturating_add(self.pause_ns) } else { u64::MAX });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn think(blocks: Option<u64>, by_issue: bool, iotime_ns: u64) -> Think {
        Think::new(&ThinkTime { ns: 1_000, spin_ns: 0, blocks, by_issue, iotime_ns }, 0).unwrap()
    }

    #[test]
    fn a_full_queue_defers_the_check_to_the_next_completion() {
        // QD1: the submission fills the queue; the completion counts and decides; the queue is
        // empty, so the pause starts at once.
        let mut t = think(None, false, 0);
        t.submitted(1, 1, 1, 0);
        assert_eq!(t.until_ns, None);
        t.completed(1, 0, 50);
        assert_eq!(t.until_ns, Some(1_050));
        assert!(!t.may_issue(1_049) && t.may_issue(1_050) && t.until_ns.is_none());
    }

    #[test]
    fn the_queue_drains_before_the_pause() {
        // QD4, counted at issue, 2 blocks: the second submission (queue not full) is due; two
        // I/Os are still in flight, so the pause waits for them.
        let mut t = think(Some(2), true, 0);
        t.submitted(1, 1, 4, 0);
        t.submitted(2, 2, 4, 0);
        assert_eq!(t.until_ns, Some(u64::MAX));
        t.completed(2, 1, 10);
        assert_eq!(t.until_ns, Some(u64::MAX));
        t.completed(2, 0, 20);
        assert_eq!(t.until_ns, Some(1_020));
    }

    #[test]
    fn iotime_alone_skips_the_block_count() {
        let mut t = think(None, false, 100);
        t.submitted(1, 1, 4, 50);
        assert_eq!(t.until_ns, None, "50 ns of I/O, 100 asked");
        t.submitted(2, 2, 4, 100);
        assert_eq!(t.until_ns, Some(u64::MAX));
    }
}
