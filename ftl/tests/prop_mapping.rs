//! Property: any sequence of writes, TRIMs, reads and forced GC on `tiny` keeps the mapping
//! right. A reference model holds, per LPN, the write sequence of the last host write (or
//! nothing after TRIM); a read must find a unit whose spare area names the LPN with a sequence
//! at least that one (GC copies get newer sequences, older versions have older ones), or zeros.
//! Invariants are checked after every step, on the timeless FTL and on the timed device.
//! The timed device also takes writes that cover their first and last units only partly
//! (read-modify-write), and writes that overlap writes still in flight.
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::core::FtlCore;
use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::instant::InstantFtl;
use ftl::Lpn;
use proptest::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug)]
enum Op {
    Write(u32, u32),
    /// A write of these units without the first `.2` and the last `.3` 512 B sectors.
    WritePartial(u32, u32, u32, u32),
    Trim(u32, u32),
    Read(u32, u32),
    Gc,
}

fn op() -> impl Strategy<Value = Op> {
    // Start as a fraction of the user span (scaled in the test), length in units.
    let r = (0u32..1_000_000, 1u32..=256);
    prop_oneof![
        6 => r.clone().prop_map(|(a, n)| Op::Write(a, n)),
        3 => (r.clone(), 0u32..8, 0u32..8).prop_map(|((a, n), h, t)| Op::WritePartial(a, n, h, t)),
        // A few hot units, so that partial writes meet on a unit whose read is in flight.
        3 => ((0u32..400, 1u32..=2), 0u32..8, 0u32..8).prop_map(|((a, n), h, t)| Op::WritePartial(a, n, h, t)),
        1 => r.clone().prop_map(|(a, n)| Op::Trim(a, n)),
        2 => r.prop_map(|(a, n)| Op::Read(a, n)),
        1 => Just(Op::Gc),
    ]
}

fn span(user: u32, a: u32, n: u32) -> (u32, u32) {
    let n = n.min(user);
    let first = (a as u64 * (user - n + 1) as u64 / 1_000_000) as u32;
    (first, n)
}

fn device(seq: bool) -> SimSsd {
    let p = ftl::profile::load("tiny").unwrap();
    SimSsd::new(&p, &DeviceOptions { track_sequence: seq, ..Default::default() }).unwrap()
}

/// Checks one LPN against the reference: `Some(s)` = last written with sequence `s`.
fn check_read(core: &FtlCore, lpn: u32, want: Option<u32>) -> Result<(), TestCaseError> {
    match (want, core.lookup(Lpn::new(lpn))) {
        (None, None) => Ok(()),
        (None, Some(p)) => Err(TestCaseError::fail(format!("lpn {lpn} trimmed/unwritten but maps to {p}"))),
        (Some(_), None) => Err(TestCaseError::fail(format!("lpn {lpn} written but reads zeros"))),
        (Some(s), Some(p)) => {
            prop_assert_eq!(core.p2l[p.idx()], Lpn::new(lpn), "spare area of {} names another lpn", p);
            prop_assert!(core.seq[p.idx()] >= s, "lpn {} reads an older version ({} < {})", lpn, core.seq[p.idx()], s);
            Ok(())
        }
    }
}

fn invariants(core: &FtlCore) -> Result<(), TestCaseError> {
    core.check_invariants().map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn instant_ftl_reads_the_last_write(ops in prop::collection::vec(op(), 1..60)) {
        let d = device(true);
        let mut f = InstantFtl::new(d.core.layout, d.core.cfg);
        let user = f.core.user_mus();
        let mut model: Vec<Option<u32>> = vec![None; user as usize];
        // Start full so that the writes below run GC.
        for lpn in 0..user {
            f.write(Lpn::new(lpn)).unwrap();
            model[lpn as usize] = Some(f.core.seq[f.core.l2p[lpn as usize].idx()]);
        }
        for op in ops {
            match op {
                Op::Write(a, n) | Op::WritePartial(a, n, _, _) => {
                    let (first, n) = span(user, a, n);
                    for lpn in first..first + n {
                        f.write(Lpn::new(lpn)).unwrap();
                        model[lpn as usize] = Some(f.core.seq[f.core.l2p[lpn as usize].idx()]);
                    }
                }
                Op::Trim(a, n) => {
                    let (first, n) = span(user, a, n);
                    for lpn in first..first + n {
                        f.trim(Lpn::new(lpn));
                        model[lpn as usize] = None;
                    }
                }
                Op::Read(a, n) => {
                    let (first, n) = span(user, a, n);
                    for lpn in first..first + n {
                        check_read(&f.core, lpn, model[lpn as usize])?;
                    }
                }
                Op::Gc => {
                    f.force_gc();
                }
            }
            invariants(&f.core)?;
        }
        for lpn in 0..user {
            check_read(&f.core, lpn, model[lpn as usize])?;
        }
    }

    #[test]
    fn timed_device_reads_the_last_write(ops in prop::collection::vec(op(), 1..80), qd in 1usize..=16) {
        let mut d = device(true);
        let user = d.core.user_mus();
        let mut model: Vec<Option<u32>> = vec![None; user as usize];
        // Per LPN: writes in flight (writes may overlap writes), and a read or trim in flight.
        let mut writing = vec![0u32; user as usize];
        let mut busy = vec![false; user as usize];
        let mut inflight: HashMap<u64, (HostOp, u32, u32)> = HashMap::new();
        // Sequential fill in 128 KiB commands.
        for (tag, first) in (0..user).step_by(32).enumerate() {
            let n = 32.min(user - first);
            d.submit(tag as u64, HostOp::Write, first as u64 * 4096, n * 4096).unwrap();
            inflight.insert(tag as u64, (HostOp::Write, first, n));
            if inflight.len() >= qd {
                while let Some(c) = d.next_completion(None) {
                    inflight.remove(&c.tag);
                    if inflight.len() < qd { break; }
                }
            }
        }
        while let Some(c) = d.next_completion(None) { inflight.remove(&c.tag); }
        for lpn in 0..user {
            model[lpn as usize] = Some(d.core.seq[d.core.l2p[lpn as usize].idx()]);
        }
        let mut tag = 1u64 << 32;
        let mut ops = ops.into_iter().peekable();
        while ops.peek().is_some() || !inflight.is_empty() {
            // Keep up to qd commands on disjoint LPNs in flight; GC = let the drive idle.
            while inflight.len() < qd {
                let Some(&op) = ops.peek() else { break };
                let (hop, a, n, cut) = match op {
                    Op::Write(a, n) => (HostOp::Write, a, n, (0, 0)),
                    Op::WritePartial(a, n, h, t) => (HostOp::Write, a, n, (h, t)),
                    Op::Trim(a, n) => (HostOp::Trim, a, n, (0, 0)),
                    Op::Read(a, n) => (HostOp::Read, a, n, (0, 0)),
                    Op::Gc => {
                        if !inflight.is_empty() { break; }
                        ops.next();
                        let t = d.now() + nand_model::SimTime::from_ns(20_000_000);
                        prop_assert!(d.next_completion(Some(t)).is_none());
                        invariants(&d.core)?;
                        continue;
                    }
                };
                let (first, n) = span(user, a, n);
                let range = first as usize..(first + n) as usize;
                let blocked = busy[range.clone()].iter().any(|&b| b)
                    || (hop != HostOp::Write && writing[range.clone()].iter().any(|&w| w > 0));
                if blocked { break; }
                ops.next();
                // Leave at least one sector: the first `h` and last `t` sectors are cut.
                let h = cut.0.min(8 * n - 1);
                let t = cut.1.min(8 * n - 1 - h);
                d.submit(tag, hop, first as u64 * 4096 + h as u64 * 512, n * 4096 - (h + t) * 512).unwrap();
                if hop == HostOp::Write {
                    writing[range].iter_mut().for_each(|w| *w += 1);
                } else {
                    busy[range].fill(true);
                }
                inflight.insert(tag, (hop, first, n));
                tag += 1;
            }
            let Some(c) = d.next_completion(None) else { break };
            let Some((hop, first, n)) = inflight.remove(&c.tag) else {
                return Err(TestCaseError::fail(format!("completion of unknown tag {}", c.tag)));
            };
            for lpn in first..first + n {
                match hop {
                    HostOp::Write => {
                        writing[lpn as usize] -= 1;
                        let p = d.core.lookup(Lpn::new(lpn));
                        prop_assert!(p.is_some(), "acknowledged write of lpn {} not mapped", lpn);
                        model[lpn as usize] = p.map(|p| d.core.seq[p.idx()]);
                    }
                    HostOp::Trim => {
                        busy[lpn as usize] = false;
                        model[lpn as usize] = None;
                    }
                    HostOp::Read => {
                        busy[lpn as usize] = false;
                        check_read(&d.core, lpn, model[lpn as usize])?;
                    }
                }
            }
            d.check_invariants().map_err(TestCaseError::fail)?;
        }
        prop_assert!(inflight.is_empty());
        for lpn in 0..user {
            check_read(&d.core, lpn, model[lpn as usize])?;
        }
    }
}
