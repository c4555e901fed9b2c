//! Sequential read-ahead bookkeeping: detects a host read stream that continues itself (three
//! reads in a row, among up to eight interleaved streams) and keeps
//! a window of the following data read into controller DRAM, so that a QD1 sequential reader is
//! served at DRAM and PCIe speed rather than waiting one tR per command (drives document this;
//! the 7a40 reaches 5.8 GB/s at QD1 with it).
//!
//! This module only tracks ranges, reads in flight and the commands waiting for them; the
//! device (`device.rs`) issues the NAND reads and completes the commands.

use std::collections::VecDeque;

/// A prefetched LPN range whose NAND reads are `pending` (0 = in DRAM).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
struct Group {
    pending: u32,
    /// Commands waiting for this group's data.
    waiters: Vec<u32>,
}

/// A stream opens the window once it has continued itself this many times (three reads in a
/// row): random reads that happen to start where another read ended must not set off a prefetch.
const MIN_RUN: u32 = 2;

/// A new window holds this many of its owner's reads (then doubles per read served from it).
const INITIAL_READS: u32 = 4;

/// Recent read streams remembered: a read continuing any of them is sequential, so one
/// sequential job among random ones (several fio jobs, a VDBench mix) is still recognised.
const STREAMS: usize = 8;

/// Read-ahead state of one drive: up to `STREAMS` (8) streams are recognised, the one that last
/// continued itself owns the window.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct ReadAhead {
    window_mus: u32,
    /// The LPN after each recent stream's last read (u32::MAX: unused), replaced round-robin.
    stream_end: [u32; STREAMS],
    /// Reads in a row each stream has continued itself.
    stream_run: [u32; STREAMS],
    next_stream: usize,
    /// The LPN after the window owner's last read, once a stream has continued itself.
    next_expected: u32,
    streak: u32,
    /// Current window size: starts at a few of the owner's reads and doubles each time the
    /// owner reads from it, up to `window_mus` (a short run wastes little; a long one gets all).
    cur_mus: u32,
    /// Groups of the window in LPN order: (first LPN, end LPN, group id). They tile
    /// `window_lo..window_hi` without gaps.
    window: VecDeque<(u32, u32, u32)>,
    window_hi: u32,
    groups: Vec<Group>,
    free: Vec<u32>,
}

impl ReadAhead {
    pub fn new(window_mus: u32) -> ReadAhead {
        ReadAhead {
            window_mus,
            stream_end: [u32::MAX; STREAMS],
            stream_run: [0; STREAMS],
            next_stream: 0,
            next_expected: u32::MAX,
            streak: 0,
            cur_mus: 0,
            window: VecDeque::new(),
            window_hi: 0,
            groups: Vec::new(),
            free: Vec::new(),
        }
    }

    /// A host read of `first..first + mus`. Returns whether the window holds all of it (then
    /// [`Self::wait_for`] attaches the command to what is still being read).
    pub fn on_read(&mut self, first: u32, mus: u32) -> bool {
        let end = first.saturating_add(mus);
        let covered = self.window.front().is_some_and(|w| w.0 <= first) && end <= self.window_hi;
        let owner = first == self.next_expected || covered;
        let continued = self.stream_end.iter().position(|&e| e == first);
        let run = match continued {
            Some(i) => {
                self.stream_end[i] = end;
                self.stream_run[i] += 1;
                self.stream_run[i]
            }
            None => {
                self.stream_end[self.next_stream] = end;
                self.stream_run[self.next_stream] = 0;
                self.next_stream = (self.next_stream + 1) % STREAMS;
                0
            }
        };
        if owner {
            self.streak += 1;
            self.next_expected = end;
            if covered {
                self.cur_mus = self.cur_mus.saturating_mul(2).min(self.window_mus);
            }
        } else if run >= MIN_RUN {
            // Another stream has continued itself often enough: it takes the window over.
            self.drop_window();
            self.streak = 1;
            self.next_expected = end;
            self.cur_mus = mus.saturating_mul(INITIAL_READS).min(self.window_mus);
            return false;
        } else {
            return false; // a read of no stream: the window stays for its owner
        }
        // Data before this read has been consumed.
        while let Some(&(_, hi, id)) = self.window.front() {
            if hi > first {
                break;
            }
            self.window.pop_front();
            self.release_if_idle(id);
        }
        covered
    }

    /// Attaches command `slot` to every group overlapping `first..end` still being read;
    /// returns how many.
    pub fn wait_for(&mut self, first: u32, end: u32, slot: u32) -> u32 {
        let mut n = 0;
        for &(lo, hi, id) in &self.window {
            if lo >= end {
                break;
            }
            if hi > first && self.groups[id as usize].pending > 0 {
                self.groups[id as usize].waiters.push(slot);
                n += 1;
            }
        }
        n
    }

    /// The LPN range to read ahead now (after the last read, up to the window size, below
    /// `user_mus`), if the stream is sequential.
    pub fn wanted(&self, user_mus: u32) -> Option<(u32, u32)> {
        if self.streak == 0 || self.window_mus == 0 {
            return None;
        }
        let from = self.window_hi.max(self.next_expected);
        let to = self.next_expected.saturating_add(self.cur_mus).min(user_mus);
        (from < to).then_some((from, to))
    }

    /// Appends `lo..hi` to the window as a group waiting for `reads` NAND reads; returns its id.
    pub fn add_group(&mut self, lo: u32, hi: u32, reads: u32) -> u32 {
        let g = Group { pending: reads, waiters: Vec::new() };
        let id = nand_model::slots::put(&mut self.groups, &mut self.free, g);
        if !self.window.is_empty() && self.window_hi != lo {
            self.drop_window();
        }
        self.window.push_back((lo, hi, id));
        self.window_hi = hi;
        id
    }

    /// A group's id is reused once its reads are done and the window no longer holds it.
    fn release_if_idle(&mut self, id: u32) {
        if self.groups[id as usize].pending == 0 && !self.window.iter().any(|w| w.2 == id) {
            self.free.push(id);
        }
    }

    /// One NAND read of group `id` finished. When it was the last, returns the commands that
    /// waited for the group (each waits for one fewer group).
    pub fn read_done(&mut self, id: u32) -> Vec<u32> {
        let g = &mut self.groups[id as usize];
        g.pending = g.pending.saturating_sub(1);
        if g.pending > 0 {
            return Vec::new();
        }
        let waiters = std::mem::take(&mut g.waiters);
        self.release_if_idle(id);
        waiters
    }

    /// Host data changed in `first..end` (write or trim): cached copies there are stale.
    pub fn invalidate(&mut self, first: u32, end: u32) {
        let lo = self.window.front().map_or(0, |w| w.0);
        if first < self.window_hi && end > lo {
            self.drop_window();
        }
    }

    fn drop_window(&mut self) {
        let ids: Vec<u32> = self.window.drain(..).map(|w| w.2).collect();
        self.window_hi = 0;
        for id in ids {
            self.release_if_idle(id);
        }
    }

    /// Forgets everything (power loss): reads in flight are gone with the NAND state.
    pub fn reset(&mut self) {
        *self = ReadAhead::new(self.window_mus);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_after_three_reads_in_a_row_and_serves_the_window() {
        let mut ra = ReadAhead::new(64);
        assert!(!ra.on_read(0, 32));
        assert!(!ra.on_read(32, 32));
        assert_eq!(ra.wanted(1000), None, "two reads in a row may be chance");
        assert!(!ra.on_read(64, 32));
        assert_eq!(ra.wanted(1000), Some((96, 160)), "capped at the window size");
        let g = ra.add_group(96, 128, 2);
        ra.add_group(128, 160, 0);
        assert!(ra.on_read(96, 32), "the next read lies in the window");
        assert_eq!(ra.wait_for(96, 128, 7), 1);
        assert!(ra.read_done(g).is_empty());
        assert_eq!(ra.read_done(g), vec![7]);
        assert_eq!(ra.wanted(1000), Some((160, 192)), "the window slides with the reader");
    }

    #[test]
    fn the_window_starts_small_and_doubles_while_it_is_used() {
        let mut ra = ReadAhead::new(1024);
        for k in 0..3 {
            ra.on_read(k * 8, 8);
        }
        assert_eq!(ra.wanted(100_000), Some((24, 24 + 32)), "four reads' worth first");
        ra.add_group(24, 56, 0);
        assert!(ra.on_read(24, 8));
        assert_eq!(ra.wanted(100_000), Some((56, 32 + 64)), "doubled after a hit");
    }

    #[test]
    fn a_write_into_the_window_drops_it() {
        let mut ra = ReadAhead::new(64);
        ra.on_read(0, 8);
        ra.on_read(8, 8);
        ra.on_read(16, 8);
        ra.add_group(24, 56, 0);
        ra.invalidate(40, 41);
        assert!(!ra.on_read(24, 8), "stale data is not served");
        assert_eq!(ra.wanted(1000), Some((32, 64)), "the stream goes on, the window is rebuilt");
    }

    #[test]
    fn random_reads_between_sequential_ones_keep_the_window() {
        let mut ra = ReadAhead::new(64);
        ra.on_read(0, 8);
        ra.on_read(500, 8); // another job's random read
        ra.on_read(8, 8);
        ra.on_read(600, 8);
        ra.on_read(16, 8);
        assert_eq!(ra.wanted(1000), Some((24, 56)));
        ra.add_group(24, 56, 0);
        ra.on_read(700, 8);
        ra.on_read(508, 8); // continues a random read once: chance, not a stream
        assert!(ra.on_read(24, 8), "the window outlived the random reads");
        // A second stream that continues itself twice takes the window over.
        ra.on_read(708, 8);
        ra.on_read(716, 8);
        assert_eq!(ra.wanted(1000), Some((724, 756)));
        assert!(ra.window.is_empty());
    }

    #[test]
    fn stops_at_the_end_of_the_namespace() {
        let mut ra = ReadAhead::new(64);
        ra.on_read(900, 40);
        ra.on_read(940, 40);
        ra.on_read(980, 10);
        assert_eq!(ra.wanted(1000), Some((990, 1000)));
    }
}
