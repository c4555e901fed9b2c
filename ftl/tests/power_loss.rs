//! Sudden power loss at random simulated instants, over several seeds, with and without PLP.
//!
//! A seeded random workload (writes of 4-128 KiB, TRIMs, reads, random QD) runs on `tiny` until a
//! random instant; the test snapshots what is on NAND, cuts power, and checks the rebuilt map:
//! with PLP it equals the map before the cut; without PLP every LPN whose latest copy was
//! programmed is intact, every other one reads an older programmed copy or zeros. Then the
//! drive keeps running and its invariants hold. A failure names the seed.
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::blocks::BlockState;
use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::{Lpn, Ppn};
use nand_model::rng::{RngStreams, StreamId};
use nand_model::SimTime;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Acked {
    Never,
    Written,
    Trimmed,
}

struct Workload {
    d: SimSsd,
    rng: ChaCha8Rng,
    qd: usize,
    user_mus: u32,
    inflight: HashMap<u64, (HostOp, u32, u32)>,
    busy: Vec<bool>,
    acked: Vec<Acked>,
    tag: u64,
}

impl Workload {
    fn new(seed: u64, plp: bool) -> Workload {
        let p = ftl::profile::load("tiny").unwrap();
        let opts = DeviceOptions { plp: Some(plp), track_sequence: true, ..Default::default() };
        let d = SimSsd::new(&p, &opts).unwrap();
        let user_mus = d.core.user_mus();
        let mut rng = RngStreams::new(seed).stream(StreamId::Host, 0);
        let qd = rng.gen_range(1..=32);
        Workload {
            d,
            rng,
            qd,
            user_mus,
            inflight: HashMap::new(),
            busy: vec![false; user_mus as usize],
            acked: vec![Acked::Never; user_mus as usize],
            tag: 0,
        }
    }

    /// Submits one command on LPNs no other in-flight command touches (so "latest acked" is
    /// well defined).
    fn submit_one(&mut self) {
        for _ in 0..16 {
            let mus = if self.rng.gen_bool(0.5) { 1 } else { self.rng.gen_range(1..=32) };
            let first = self.rng.gen_range(0..self.user_mus - mus + 1);
            if (first..first + mus).any(|l| self.busy[l as usize]) {
                continue;
            }
            let op = match self.rng.gen_range(0..100) {
                0..=79 => HostOp::Write,
                80..=87 => HostOp::Trim,
                _ => HostOp::Read,
            };
            self.d.submit(self.tag, op, first as u64 * 4096, mus * 4096).unwrap();
            for l in first..first + mus {
                self.busy[l as usize] = true;
            }
            self.inflight.insert(self.tag, (op, first, mus));
            self.tag += 1;
            return;
        }
    }

    /// Runs until simulated time `until` (or `max_done` completions).
    fn run(&mut self, until: SimTime, max_done: u64) {
        let mut done = 0;
        while done < max_done {
            while self.inflight.len() < self.qd {
                self.submit_one();
            }
            let Some(c) = self.d.next_completion(Some(until)) else { return };
            let (op, first, mus) = self.inflight.remove(&c.tag).unwrap();
            for l in first..first + mus {
                self.busy[l as usize] = false;
                match op {
                    HostOp::Write => self.acked[l as usize] = Acked::Written,
                    HostOp::Trim => self.acked[l as usize] = Acked::Trimmed,
                    HostOp::Read => {}
                }
            }
            done += 1;
        }
    }
}

struct Snapshot {
    l2p: Vec<Ppn>,
    p2l: Vec<Lpn>,
    seq: Vec<u32>,
    durable: Vec<bool>,
    /// Open blocks with units that are programmed or (PLP) flushed at the cut, not full.
    open_with_data: u32,
}

fn snapshot(d: &SimSsd) -> Snapshot {
    let c = &d.core;
    let l = c.layout;
    let durable = (0..l.total_mus() as u32)
        .map(|ppn| {
            let ppn = Ppn::new(ppn);
            let b = l.block_of(ppn).idx();
            c.blocks.state[b] != BlockState::Free && l.offset_of(ppn) < c.blocks.prog_done[b]
        })
        .collect();
    let mpb = l.mus_per_block;
    // With PLP the capacitors pad the open program unit and program everything placed.
    let kept =
        |b: usize| if d.plp() { c.blocks.write_ptr[b].next_multiple_of(l.mus_per_pu) } else { c.blocks.prog_done[b] };
    let open_with_data = (0..l.blocks as usize)
        .filter(|&b| c.blocks.state[b] == BlockState::Open && kept(b) > 0 && kept(b) < mpb)
        .count() as u32;
    Snapshot { l2p: c.l2p.clone(), p2l: c.p2l.clone(), seq: c.seq.clone(), durable, open_with_data }
}

/// One seed: run to a random instant, cut, check, run on. Returns the LPNs lost (PLP off).
// Compares three tables entry by entry, by LPN.
#[allow(clippy::needless_range_loop)]
fn cut_and_check(seed: u64, plp: bool) -> u64 {
    let mut w = Workload::new(seed, plp);
    let cut_ns = w.rng.gen_range(200_000_000..2_500_000_000u64);
    w.run(SimTime::from_ns(cut_ns), u64::MAX);
    let snap = snapshot(&w.d);
    let before = w.d.counters();
    let rep = w.d.power_cut().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    eprintln!(
        "seed {seed} plp {plp} qd {}: cut at {:.3} s after {} MiB written, {} GC victims; {rep:?}",
        w.qd,
        cut_ns as f64 * 1e-9,
        before.host_write_bytes >> 20,
        before.gc_victims
    );
    let after = &w.d.core.l2p;
    let mut lost = 0;
    for lpn in 0..w.user_mus as usize {
        let (p, r) = (snap.l2p[lpn], after[lpn]);
        if plp || p == Ppn::NONE || snap.durable[p.idx()] {
            assert_eq!(r, p, "seed {seed} plp {plp}: lpn {lpn} changed ({p} -> {r}); {rep:?}");
        } else if r != Ppn::NONE {
            lost += 1;
            assert!(snap.durable[r.idx()], "seed {seed}: lpn {lpn} rebuilt onto unprogrammed ppn {r}");
            assert_eq!(
                snap.p2l[r.idx()],
                Lpn::new(lpn as u32),
                "seed {seed}: lpn {lpn} rebuilt onto another lpn's unit"
            );
            assert!(snap.seq[r.idx()] < snap.seq[p.idx()], "seed {seed}: lpn {lpn} rebuilt onto a newer copy");
        } else {
            lost += 1;
        }
        if !w.busy[lpn] {
            match w.acked[lpn] {
                Acked::Trimmed => assert_eq!(r, Ppn::NONE, "seed {seed}: trimmed lpn {lpn} came back"),
                Acked::Written if plp => assert_ne!(r, Ppn::NONE, "seed {seed}: acked lpn {lpn} lost with PLP"),
                _ => {}
            }
        }
    }
    assert!(
        lost <= rep.rebuild.unprogrammed_mus,
        "seed {seed}: lost {lost} > unprogrammed {}",
        rep.rebuild.unprogrammed_mus
    );
    if plp {
        assert_eq!(rep.rebuild.unprogrammed_mus, 0, "seed {seed}: PLP flush left units unprogrammed");
    }
    // Every block open at the cut with something programmed goes back to its stream, so no
    // room is stranded (a cut with no free block left would otherwise leave GC nowhere to write).
    assert_eq!(rep.rebuild.resumed_blocks, snap.open_with_data, "seed {seed}: {rep:?}");
    // In-flight commands were dropped with the power: the host forgets them.
    w.inflight.clear();
    w.busy.fill(false);
    w.d.check_invariants().unwrap_or_else(|e| panic!("seed {seed} after rebuild: {e}"));
    // The drive keeps working: another half drive of I/O, with GC.
    let now = w.d.now();
    w.run(SimTime::MAX, 4000);
    assert!(w.d.now() > now);
    w.d.check_invariants().unwrap_or_else(|e| panic!("seed {seed} after more I/O: {e}"));
    lost
}

#[test]
fn plp_keeps_every_acknowledged_write() {
    for seed in 1..=6 {
        cut_and_check(seed, true);
    }
}

#[test]
fn without_plp_only_the_unflushed_buffer_is_lost() {
    let lost: u64 = (11..=16).map(|seed| cut_and_check(seed, false)).sum();
    // The cuts must hit buffered data sometimes, or the test would prove nothing.
    assert!(lost > 0, "no cut lost anything");
}

#[test]
fn repeated_cuts_on_one_drive() {
    let mut w = Workload::new(99, false);
    for k in 1..=5u64 {
        let t = w.d.now() + SimTime::from_ns(150_000_000 + k * 37_000_000);
        w.run(t, u64::MAX);
        w.d.power_cut().unwrap();
        w.inflight.clear();
        w.busy.fill(false);
        w.d.check_invariants().unwrap_or_else(|e| panic!("cut {k}: {e}"));
    }
}

#[test]
fn power_cut_needs_sequences() {
    let p = ftl::profile::load("tiny").unwrap();
    let mut d = SimSsd::new(&p, &DeviceOptions::default()).unwrap();
    assert!(d.power_cut().is_err());
}
