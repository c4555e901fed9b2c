//! Exact timing properties of the discrete-event NAND model.

use nand_model::*;

mod common;
use common::ns;

/// 1 channel x 2 dies x 4 planes: small enough to reason about every nanosecond.
fn flash(suspend: bool) -> Flash {
    common::flash(1, 2, suspend, false)
}

fn drain(f: &mut Flash) -> Vec<NandDone> {
    std::iter::from_fn(|| f.advance_until(SimTime::MAX)).collect()
}

const T_CMD: SimTime = ns(150);
const T_R: SimTime = ns(50_000);
const X4K: SimTime = ns(2_560); // 4096 B at 1600 MB/s

#[test]
fn two_reads_on_one_die_serialize() {
    let mut f = flash(false);
    f.submit(ns(0), NandOp::read(1, 0, 0, 1, 4096));
    f.submit(ns(0), NandOp::read(2, 0, 0, 1, 4096));
    let d = drain(&mut f);
    assert_eq!(d[0].end_ns, T_CMD + T_R + X4K);
    assert_eq!(d[1].start_ns, d[0].end_ns);
    assert_eq!(d[1].end_ns, 2 * (T_CMD + T_R + X4K));
}

#[test]
fn reads_on_two_dies_of_one_channel_overlap_array_but_share_bus() {
    let mut f = flash(false);
    f.submit(ns(0), NandOp::read(1, 0, 0, 1, 4096));
    f.submit(ns(0), NandOp::read(2, 1, 0, 1, 4096));
    let d = drain(&mut f);
    // Command cycles wait for nothing on the bus (the sequencer slips them between data
    // bursts), so both tR run in parallel from the start.
    assert_eq!(d[0].end_ns, T_CMD + T_R + X4K);
    assert_eq!(d[1].start_ns, ns(0));
    // Its transfer would start at T_CMD + T_R too, but the bus is busy with die 0's transfer
    // until T_CMD + T_R + X4K; it follows right after.
    assert_eq!(d[1].end_ns, T_CMD + T_R + 2 * X4K);
    assert!(d[1].end_ns < 2 * (T_CMD + T_R)); // far less than serial
}

#[test]
fn multi_plane_program_costs_one_tprog() {
    let mut f = flash(false);
    let one = 3 * 16384;
    f.submit(ns(0), NandOp::program(1, 0, 1, one));
    let single = drain(&mut f)[0];
    let mut f = flash(false);
    f.submit(ns(0), NandOp::program(1, 0, 4, 4 * one));
    let quad = drain(&mut f)[0];
    let t = f.timing();
    assert_eq!(single.end_ns, T_CMD + t.transfer_ns(one) + ns(1_200_000));
    assert_eq!(quad.end_ns, T_CMD + t.transfer_ns(4 * one) + ns(1_200_000));
}

#[test]
fn erase_blocks_its_die_for_tbers() {
    let mut f = flash(false);
    f.submit(ns(0), NandOp::erase(1, 0, 4));
    f.submit(ns(10), NandOp::read(2, 0, 0, 1, 4096));
    f.submit(ns(10), NandOp::read(3, 1, 0, 1, 4096));
    let d = drain(&mut f);
    let erase = d.iter().find(|x| x.tag == 1).unwrap();
    let read_same = d.iter().find(|x| x.tag == 2).unwrap();
    let read_other = d.iter().find(|x| x.tag == 3).unwrap();
    assert_eq!(erase.end_ns, T_CMD + ns(3_500_000));
    assert!(read_same.start_ns >= erase.end_ns);
    assert!(read_other.end_ns < ns(100_000));
}

#[test]
fn suspend_lets_a_read_through_and_delays_the_program() {
    let mut f = flash(true);
    f.submit(ns(0), NandOp::program(1, 0, 4, 4 * 3 * 16384));
    f.submit(ns(200_000), NandOp::read(2, 0, 0, 1, 4096));
    let d = drain(&mut f);
    let read = d.iter().find(|x| x.tag == 2).unwrap();
    let prog = d.iter().find(|x| x.tag == 1).unwrap();
    assert!(read.end_ns < ns(300_000), "read waited for the program: {read:?}");
    let t = f.timing();
    let plain_end = T_CMD + t.transfer_ns(4 * 3 * 16384) + ns(1_200_000);
    // The resume repeats the interrupted verify step: 1/32 of tPROG by default.
    assert_eq!(t.resume_cost_prog_ns, ns(1_200_000 / 32));
    assert_eq!(prog.end_ns, plain_end + T_R + 2 * t.t_suspend_ns + t.resume_cost_prog_ns);
    assert_eq!(f.stats().suspends, 1);
}

#[test]
fn a_read_arriving_during_a_suspension_joins_it_without_counting() {
    // At most one suspension per program: the second read still rides the first's suspension.
    let mut f = common::flash_with_timing(|tc| {
        tc.suspend = true;
        tc.max_suspends_per_op = 1;
    });
    let t = *f.timing();
    f.submit(ns(0), NandOp::program(1, 0, 4, 4 * 3 * 16384));
    f.submit(ns(200_000), NandOp::read(2, 0, 0, 1, 4096));
    // The first read's array runs from ~220 us to ~270 us: this one arrives inside it.
    f.submit(ns(230_000), NandOp::read(3, 0, 0, 1, 4096));
    // After the die resumed: the program's one suspension is used up, so this one waits.
    f.submit(ns(600_000), NandOp::read(4, 0, 0, 1, 4096));
    let d = drain(&mut f);
    let r = |tag| *d.iter().find(|x| x.tag == tag).unwrap();
    let prog = r(1);
    assert!(r(3).end_ns < prog.end_ns, "the joining read waited for the program: {:?}", r(3));
    assert!(r(3).end_ns >= r(2).end_ns + T_R - X4K, "the joining read overlapped the first's array: {:?}", r(3));
    assert!(r(4).start_ns >= prog.end_ns, "a second suspension was taken: {:?}", r(4));
    // One suspend, one resume and one repeated step; the joining read adds only its array time.
    let plain_end = T_CMD + t.transfer_ns(4 * 3 * 16384) + ns(1_200_000);
    assert_eq!(prog.end_ns, plain_end + 2 * T_R + 2 * t.t_suspend_ns + t.resume_cost_prog_ns);
}

#[test]
fn a_program_is_suspended_at_most_max_suspends_times() {
    let mut f = flash(true);
    let t = *f.timing();
    let max = t.max_suspends_per_op as u64;
    f.submit(ns(0), NandOp::program(1, 0, 4, 4 * 3 * 16384));
    // One read every 100 us, each after the previous one's suspension ended: without a bound
    // they would keep pushing the program's end out for as long as reads keep coming.
    let reads = max + 4;
    for i in 0..reads {
        f.submit(ns(200_000 + i * 100_000), NandOp::read(10 + i, 0, 0, 1, 4096));
    }
    let d = drain(&mut f);
    let prog = d.iter().find(|x| x.tag == 1).unwrap();
    let plain_end = T_CMD + t.transfer_ns(4 * 3 * 16384) + ns(1_200_000);
    assert_eq!(f.stats().suspends, max);
    assert_eq!(prog.end_ns, plain_end + max * (T_R + 2 * t.t_suspend_ns + t.resume_cost_prog_ns));
    for r in d.iter().filter(|x| x.tag >= 10 + max) {
        assert!(r.start_ns >= prog.end_ns, "read {} started before the program ended: {r:?}", r.tag);
    }
}

#[test]
fn same_schedule_same_trace_hash() {
    let run = |seed: u64| {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut f = flash(false);
        let mut now = SimTime::ZERO;
        for i in 0..500 {
            now += ns(rng.gen_range(0..20_000));
            let die = rng.gen_range(0..2);
            let op = match rng.gen_range(0..10) {
                0 => NandOp::erase(i, die, 4),
                1..=3 => NandOp::program(i, die, 4, 196_608),
                _ => NandOp::read(i, die, rng.gen_range(0..3), 1, 4096),
            };
            while f.advance_until(now).is_some() {}
            f.submit(now, op);
        }
        drain(&mut f);
        f.trace_hash()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

fn flash_aipr() -> Flash {
    common::flash(1, 2, false, true)
}

#[test]
fn independent_plane_reads_overlap_on_different_planes_and_serialize_on_one() {
    let mut f = flash_aipr();
    f.submit(ns(0), NandOp::read(1, 0, 0, 1, 4096).on_plane(0));
    f.submit(ns(0), NandOp::read(2, 0, 0, 1, 4096).on_plane(1));
    f.submit(ns(0), NandOp::read(3, 0, 0, 1, 4096).on_plane(1));
    let mut d = drain(&mut f);
    d.sort_by_key(|x| x.tag);
    // Plane 0 and plane 1 read at once: only the bus serialises them (command cycles wait for
    // no transfer).
    assert_eq!(d[0].end_ns, T_CMD + T_R + X4K);
    assert_eq!(d[1].start_ns, ns(0));
    assert_eq!(d[1].end_ns, T_CMD + T_R + 2 * X4K);
    // The second read of plane 1 starts its tR when plane 1's data is out.
    assert_eq!(d[2].end_ns, d[1].end_ns + T_R + X4K);
}

#[test]
fn independent_plane_reads_hold_off_die_wide_operations() {
    let mut f = flash_aipr();
    f.submit(ns(0), NandOp::read(1, 0, 0, 1, 4096).on_plane(2));
    f.submit(ns(0), NandOp::program(2, 0, 4, 4 * 3 * 16384));
    f.submit(ns(0), NandOp::read(3, 0, 0, 1, 4096).on_plane(3)); // host reads still go first
    let mut d = drain(&mut f);
    d.sort_by_key(|x| x.tag);
    let last_read_end = d[0].end_ns.max(d[2].end_ns);
    assert!(d[2].start_ns < d[0].end_ns, "the second plane read overlaps the first");
    assert!(d[1].start_ns >= last_read_end, "the program waits for both plane reads");
    assert_eq!(f.in_flight(), 0);
}

#[test]
fn without_the_feature_plane_reads_serialize_as_before() {
    let mut f = flash(false);
    f.submit(ns(0), NandOp::read(1, 0, 0, 1, 4096).on_plane(0));
    f.submit(ns(0), NandOp::read(2, 0, 0, 1, 4096).on_plane(1));
    let d = drain(&mut f);
    assert_eq!(d[1].start_ns, d[0].end_ns);
}

/// A program that must run `gap_us` (from its start or last resume) before it may be suspended.
fn flash_with_suspend_gap(gap_us: f64) -> Flash {
    common::flash_with_timing(|tc| {
        tc.suspend = true;
        tc.suspend_min_progress_us = Some(gap_us);
    })
}

#[test]
fn a_read_before_the_suspend_point_waits_for_it_not_for_the_program() {
    let mut f = flash_with_suspend_gap(300.0);
    let t = *f.timing();
    f.submit(ns(0), NandOp::program(1, 0, 4, 4 * 3 * 16384));
    // Arrives 100 us into the program: the program suspends only at 300 us from its start.
    f.submit(ns(100_000), NandOp::read(2, 0, 0, 1, 4096));
    // Arrives while the first read's suspension is under way: served in it, after that read.
    f.submit(ns(310_000), NandOp::read(3, 0, 0, 1, 4096));
    // Arrives just after the program resumed: waits another 300 us of progress.
    let d0 = {
        let mut probe = flash_with_suspend_gap(300.0);
        probe.submit(ns(0), NandOp::program(1, 0, 4, 4 * 3 * 16384));
        probe.submit(ns(100_000), NandOp::read(2, 0, 0, 1, 4096));
        probe.submit(ns(310_000), NandOp::read(3, 0, 0, 1, 4096));
        drain(&mut probe)
    };
    let second_end = d0.iter().find(|x| x.tag == 3).unwrap().end_ns;
    f.submit(second_end + ns(1_000), NandOp::read(4, 0, 0, 1, 4096));
    let d = drain(&mut f);
    let prog = d.iter().find(|x| x.tag == 1).unwrap();
    let r = |tag| *d.iter().find(|x| x.tag == tag).unwrap();
    let suspend_at = prog.start_ns + ns(300_000);
    assert!(r(2).end_ns >= suspend_at + t.t_suspend_ns + T_R, "read 2 before the suspend point: {:?}", r(2));
    assert!(r(2).end_ns < suspend_at + t.t_suspend_ns + T_R + ns(10_000), "read 2 waited past the point: {:?}", r(2));
    assert!(r(3).end_ns >= r(2).end_ns + T_R - X4K, "read 3 overlapped read 2's array: {:?}", r(3));
    assert!(r(3).end_ns < prog.end_ns, "read 3 waited for the program");
    // Read 4 comes right after the resume: the next suspend point is 300 us of progress later.
    let resume = r(3).end_ns - X4K + t.t_suspend_ns;
    assert!(r(4).end_ns >= resume + ns(300_000) + T_R, "read 4 suspended too soon: {:?}", r(4));
    assert!(r(4).end_ns < prog.end_ns, "read 4 waited for the program");
    assert_eq!(f.stats().suspends, 3);
}
