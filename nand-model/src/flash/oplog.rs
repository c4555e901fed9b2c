//! An optional log of every array operation the model schedules, for views that draw the dies
//! at work (`ssdlab explore`). Off by default: the engine then pays one untaken branch per
//! scheduled operation. When on, each operation is logged once, when it is booked (its start,
//! end and transfer are known then), and each suspension of a running program or erase is
//! logged when the suspending read is booked (which is also when the op's end moves).

use super::*;

/// One logged event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpEvent {
    /// An operation was booked.
    Op(OpRecord),
    /// The program or erase running on `die` since `op_start` is suspended over `[from, to)`
    /// (a host read runs meanwhile); its end moved out by `to - from`.
    Suspend { die: u32, op_start: SimTime, from: SimTime, to: SimTime },
}

/// An operation as booked: die (and plane, for a single-plane read), when the die or plane is
/// busy with it, and when its data crosses the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpRecord {
    pub kind: OpKind,
    pub die: u32,
    /// Planes addressed (1..=planes_per_die); with 1, `plane` is the one (for reads placed on a
    /// plane; a multi-plane caller's single plane is reported as plane 0).
    pub planes: u8,
    pub plane: u8,
    /// The caller marked it as GC work (`NandOp::background`).
    pub background: bool,
    /// Served by suspending the die's running program or erase.
    pub in_suspension: bool,
    /// From its command cycles to its end as booked (a later suspension moves the end:
    /// see [`OpEvent::Suspend`]).
    pub start: SimTime,
    pub end: SimTime,
    /// Its data transfer on the channel: `[xfer_start, xfer_start + xfer_ns)`.
    pub xfer_start: SimTime,
    pub xfer_ns: SimTime,
}

/// The events logged since the log was switched on, optionally only for dies below a bound.
#[derive(Debug, Default)]
pub struct OpLog {
    pub events: Vec<OpEvent>,
    /// Dies at or above this are not logged.
    pub dies_below: u32,
}

impl OpLog {
    /// Logs op `op` booked over `[start, end)` with `xfer_ns` of transfer; where the transfer
    /// sits follows from how [`Flash`] books each kind (programs send data after the command,
    /// reads after the array time, so at the very end).
    pub(super) fn op(&mut self, op: &NandOp, start: SimTime, end: SimTime, xfer_ns: SimTime, t_cmd_ns: SimTime) {
        if op.die >= self.dies_below {
            return;
        }
        let xfer_start = match op.kind {
            OpKind::Read => end - xfer_ns,
            OpKind::Program => start + t_cmd_ns,
            OpKind::Erase => start,
        };
        self.events.push(OpEvent::Op(OpRecord {
            kind: op.kind,
            die: op.die,
            planes: op.planes.max(1),
            plane: op.plane,
            background: op.background,
            in_suspension: false,
            start,
            end,
            xfer_start,
            xfer_ns,
        }));
    }

    /// The last logged op was served in a suspension of the op running on its die since
    /// `op_start`, which pauses over `[from, to)`.
    #[cold]
    pub(super) fn suspended(&mut self, die: u32, op_start: SimTime, from: SimTime, to: SimTime) {
        if die >= self.dies_below {
            return;
        }
        if let Some(OpEvent::Op(r)) = self.events.last_mut() {
            r.in_suspension = true;
        }
        self.events.push(OpEvent::Suspend { die, op_start, from, to });
    }
}

impl Flash {
    /// Logs a booked op (the log is on). Out of line: the engine's inlined path keeps only the
    /// test of `oplog`.
    #[cold]
    #[inline(never)]
    pub(super) fn log_op(&mut self, op: &NandOp, start: SimTime, end: SimTime, xfer_ns: SimTime) {
        let t_cmd_ns = self.timing.t_cmd_ns;
        if let Some(l) = self.oplog.as_deref_mut() {
            l.op(op, start, end, xfer_ns, t_cmd_ns);
        }
    }

    /// Starts logging every operation booked from now on, on dies `0..dies_below` (`None`
    /// stops logging and drops the log).
    pub fn set_op_log(&mut self, dies_below: Option<u32>) {
        self.oplog = dies_below.map(|d| Box::new(OpLog { events: Vec::new(), dies_below: d }));
    }

    /// The events logged so far (the log stays on, empty).
    pub fn take_op_log(&mut self) -> Vec<OpEvent> {
        self.oplog.as_deref_mut().map_or_else(Vec::new, |l| std::mem::take(&mut l.events))
    }

    /// Moves the events logged so far to the end of `out` (the log keeps its buffer).
    pub fn drain_op_log(&mut self, out: &mut Vec<OpEvent>) {
        if let Some(l) = self.oplog.as_deref_mut() {
            out.append(&mut l.events);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CellType, EnergyConfig, GeometryConfig, TimingConfig};

    fn flash(suspend: bool) -> Flash {
        let geo = GeometryConfig::tiny_example().validate().unwrap();
        let mut tc = TimingConfig::example(CellType::Tlc);
        tc.suspend = suspend;
        let timing = tc.validate(&geo).unwrap();
        Flash::new(geo, timing, EnergyConfig::default().validate().unwrap())
    }

    #[test]
    fn logs_each_booked_op_with_the_times_its_completion_reports() {
        let mut f = flash(false);
        f.set_op_log(Some(u32::MAX));
        f.submit(SimTime::ZERO, NandOp::program(1, 0, 1, 16384));
        f.submit(SimTime::ZERO, NandOp::read(2, 0, 0, 1, 4096));
        f.submit(SimTime::ZERO, NandOp::erase(3, 1, 1));
        let mut done = Vec::new();
        while let Some(d) = f.advance_until(SimTime::MAX) {
            done.push(d);
        }
        let log = f.take_op_log();
        let ops: Vec<OpRecord> = log
            .iter()
            .filter_map(|e| match e {
                OpEvent::Op(r) => Some(*r),
                _ => None,
            })
            .collect();
        assert_eq!(ops.len(), 3, "{log:?}");
        for d in &done {
            let r = ops.iter().find(|r| r.kind == d.kind && r.die == d.die).unwrap();
            assert_eq!((r.start, r.end), (d.start_ns, d.end_ns), "{d:?}");
            assert!(r.xfer_start >= r.start && r.xfer_start + r.xfer_ns <= r.end, "{r:?}");
        }
        assert_eq!(ops.iter().map(|r| r.kind).collect::<Vec<_>>(), [OpKind::Program, OpKind::Erase, OpKind::Read]);
        assert!(f.take_op_log().is_empty());
    }

    #[test]
    fn a_suspension_moves_the_logged_op_end_by_its_length() {
        let mut f = flash(true);
        f.set_op_log(Some(1));
        f.submit(SimTime::ZERO, NandOp::program(1, 0, 1, 16384));
        f.submit(SimTime::from_ns(100_000), NandOp::read(2, 0, 0, 1, 4096));
        f.submit(SimTime::ZERO, NandOp::erase(3, 1, 1)); // die 1: not logged
        let mut prog_end = SimTime::ZERO;
        while let Some(d) = f.advance_until(SimTime::MAX) {
            if d.kind == OpKind::Program {
                prog_end = d.end_ns;
            }
        }
        let log = f.take_op_log();
        assert_eq!(log.len(), 3, "{log:?}");
        let (OpEvent::Op(p), OpEvent::Op(r), OpEvent::Suspend { die: 0, op_start, from, to }) =
            (log[0], log[1], log[2])
        else {
            panic!("{log:?}")
        };
        assert!(r.in_suspension && !p.in_suspension);
        assert_eq!(op_start, p.start);
        assert_eq!(p.end + (to - from), prog_end, "the suspension's length is what the program lost");
        assert!(from < r.end && to > r.start, "the pause overlaps the read");
    }
}
