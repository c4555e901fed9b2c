//! Drive snapshots: a drive saved at a random instant in the middle of a run (commands, NAND
//! operations, GC and the power governor in flight), written to a file, read back and continued
//! behaves exactly as the drive that never stopped; a run continued from a snapshot reports
//! byte for byte what the uninterrupted run reports for the same jobs; snapshots of another
//! drive configuration, or damaged ones, are refused.
#![allow(clippy::cast_possible_truncation, clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{HostCompletion, HostOp, SimSsd};
use host_bench::job::{parse_str, JobFile, ParseOptions};
use host_bench::simrun::{SimConfig, SimError, SimSession};
use host_bench::snapshot::Frozen;
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

mod tmp;
use tmp::TempPath;

/// (drive, scale divisor, power state): a toy drive uncapped, and a P5520 cut down and capped
/// at PS2 so the governor holds operations at the instant of the snapshot.
const DRIVES: [(&str, u32, Option<usize>); 2] = [("tiny", 1, None), ("solidigm-d7-p5520", 8192, Some(2))];
const SEEDS: [u64; 3] = [1, 7, 1234];

fn cfg(drive: &str, scale: u32, ps: Option<usize>, seed: u64) -> SimConfig {
    let mut c = SimConfig::new(drive, seed);
    c.scale_divisor = Some(scale);
    c.power_state = ps;
    c.interval_ns = 100_000_000;
    c
}

fn tmp(name: &str) -> TempPath {
    TempPath::new(name)
}

/// A closed-loop host at QD 24 with its own random stream: 4 KiB random writes, some 16 KiB
/// ones, reads, TRIMs and partial (512 B) writes that need read-modify-write.
struct Host {
    rng: ChaCha8Rng,
    next_tag: u64,
}

impl Host {
    fn submit_one(&mut self, ssd: &mut SimSsd) {
        let cap = ssd.capacity().user_bytes_sim;
        let lb = ssd.logical_block_bytes() as u64;
        let x: u32 = self.rng.gen_range(0..100);
        let (op, len) = match x {
            0..=59 => (HostOp::Write, 4096),
            60..=69 => (HostOp::Write, 16384),
            70..=73 => (HostOp::Write, lb as u32),
            74..=76 => (HostOp::Trim, 8192),
            _ => (HostOp::Read, 4096),
        };
        let slots = (cap - len as u64) / lb;
        let mut off = self.rng.gen_range(0..slots) * lb;
        if len >= 4096 && x < 70 {
            off &= !4095;
        }
        ssd.submit(self.next_tag, op, off, len).unwrap();
        self.next_tag += 1;
    }

    /// Runs until `n` completions, keeping 24 commands outstanding; returns them.
    fn run(&mut self, ssd: &mut SimSsd, n: usize) -> Vec<HostCompletion> {
        let mut out = Vec::with_capacity(n);
        while ssd.outstanding() < 24 {
            self.submit_one(ssd);
        }
        while out.len() < n {
            let c = ssd.next_completion(None).expect("a command is outstanding");
            out.push(c);
            self.submit_one(ssd);
        }
        out
    }
}

/// Fills the drive sequentially (128 KiB writes), so the random phase runs into GC.
fn fill(ssd: &mut SimSsd) {
    let cap = ssd.capacity().user_bytes_sim;
    let (mut off, mut tag) = (0u64, 1u64 << 40);
    while off < cap {
        let len = (cap - off).min(128 << 10) as u32;
        while ssd.outstanding() >= 16 {
            ssd.next_completion(None);
        }
        ssd.submit(tag, HostOp::Write, off, len).unwrap();
        (off, tag) = (off + len as u64, tag + 1);
    }
    while ssd.next_completion(None).is_some() {}
}

#[test]
fn save_at_a_random_instant_and_continue_is_the_uninterrupted_run() {
    for (drive, scale, ps) in DRIVES {
        for seed in SEEDS {
            let c = cfg(drive, scale, ps, seed);
            let mut s = SimSession::new(c.clone()).unwrap();
            fill(&mut s.target.ssd);
            let mut host = Host { rng: RngStreams::new(seed).stream(StreamId::Host, 0), next_tag: 0 };
            // A random instant: some number of completions into random writes past the fill.
            let units = s.target.ssd.capacity().user_bytes_sim / 4096;
            let k = host.rng.gen_range(units as usize / 2..units as usize);
            host.run(&mut s.target.ssd, k);
            assert!(s.target.ssd.outstanding() > 0 && s.target.ssd.counters().gc_victims > 0, "{drive}: GC under way");
            let path = tmp(&format!("{drive}-{seed}.snap"));
            let frozen = s.freeze("test".into(), None);
            frozen.write(&path).unwrap();
            let mut copy = SimSession::from_snapshot(c.clone(), &path).unwrap().0;
            let mut host2 = Host { rng: host.rng.clone(), next_tag: host.next_tag };
            let n = units as usize / 2;
            let a = host.run(&mut s.target.ssd, n);
            let b = host2.run(&mut copy.target.ssd, n);
            assert_eq!(a, b, "{drive} seed {seed}: completions after the snapshot");
            let (ca, cb) = (s.target.ssd.counters(), copy.target.ssd.counters());
            assert_eq!(format!("{ca:?}"), format!("{cb:?}"), "{drive} seed {seed}: counters");
            assert_eq!(s.target.ssd.now(), copy.target.ssd.now());
            assert_eq!(s.target.ssd.flash().trace_hash(), copy.target.ssd.flash().trace_hash());
            copy.target.ssd.check_invariants().unwrap();
            // Saving the continued drive again gives the same bytes as saving the original.
            let (fa, fb) = (s.freeze("x".into(), None), copy.freeze("x".into(), None));
            assert!(fa.encoded_bytes() == fb.encoded_bytes(), "{drive} seed {seed}: state sizes");
            let (pa, pb) = (tmp("a.snap"), tmp("b.snap"));
            fa.write(&pa).unwrap();
            fb.write(&pb).unwrap();
            assert!(std::fs::read(&pa).unwrap() == std::fs::read(&pb).unwrap(), "{drive} seed {seed}: state bytes");
        }
    }
}

fn job(text: &str) -> JobFile {
    parse_str(text, "x.fio", &ParseOptions::default()).unwrap()
}

const GLOBAL: &str = "[global]\nbs=4k\niodepth=16\n";
const PRE: &str = "[fill]\nrw=write\nbs=128k\nsize=100%\n[pre]\nstonewall\nrw=randwrite\nnumjobs=2\nsize=60%\n";
const MEASURE: &str = "[mix]\nstonewall\nrw=randrw\nrwmixread=70\nnumjobs=2\nsize=30%\n[rr]\nstonewall\nrw=randread\ntime_based\nruntime=1\n";

#[test]
fn a_run_continued_from_a_snapshot_reports_what_the_uninterrupted_run_reports() {
    let (pre, measure, whole) =
        (job(&format!("{GLOBAL}{PRE}")), job(&format!("{GLOBAL}{MEASURE}")), job(&format!("{GLOBAL}{PRE}{MEASURE}")));
    for (drive, scale, ps) in DRIVES {
        for seed in SEEDS {
            let c = cfg(drive, scale, ps, seed);
            let mut s = SimSession::new(c.clone()).unwrap();
            s.run(&pre, None, None).unwrap();
            s.position = s.position.after(&pre);
            let path = tmp(&format!("run-{drive}-{seed}.snap"));
            s.freeze("test".into(), None).write(&path).unwrap();
            let mut cont = SimSession::from_snapshot(c.clone(), &path).unwrap().0;
            let rc = cont.run(&measure, None, None).unwrap();
            let mut one = SimSession::new(c).unwrap();
            let rw = one.run(&whole, None, None).unwrap();
            let (jc, jw) = (cont.json(&rc, true), one.json(&rw, true));
            let (jc, jw) = (jc["jobs"].as_array().unwrap(), jw["jobs"].as_array().unwrap());
            let tail = &jw[jw.len() - jc.len()..];
            for (a, b) in jc.iter().zip(tail) {
                assert_eq!(a.to_string(), b.to_string(), "{drive} seed {seed}: job {}", a["jobname"]);
            }
        }
    }
}

fn refused(r: Result<(SimSession, host_bench::snapshot::SnapshotMeta), SimError>) -> String {
    match r {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a snapshot of another drive configuration loaded"),
    }
}

#[test]
fn snapshots_of_another_configuration_or_damaged_ones_are_refused() {
    let c = cfg("tiny", 1, None, 1);
    let s = SimSession::new(c.clone()).unwrap();
    let path = tmp("refuse.snap");
    s.freeze("test".into(), None).write(&path).unwrap();
    let mut other = c.clone();
    other.scale_divisor = Some(2);
    let msg = refused(SimSession::from_snapshot(other, &path));
    assert!(msg.contains("scale (--scale): snapshot 1/1, this run 1/2"), "{msg}");
    let mut other = c.clone();
    other.user_capacity_bytes = Some(70 << 20);
    let msg = refused(SimSession::from_snapshot(other, &path));
    assert!(msg.contains("user capacity"), "{msg}");
    let msg = refused(SimSession::from_snapshot(cfg("generic-tlc", 1024, None, 1), &path));
    assert!(msg.contains("drive (--drive): snapshot tiny, this run generic-tlc"), "{msg}");
    // A different power setting is allowed: the drive measures at its own cap.
    let mut capped = c.clone();
    capped.power_state = Some(1);
    let (t, _) = SimSession::from_snapshot(capped, &path).unwrap();
    assert!(t.target.ssd.power_cap_w().is_some());
    // One flipped byte in the payload.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x40;
    let bad = tmp("damaged.snap");
    std::fs::write(&bad, &bytes).unwrap();
    let msg = refused(SimSession::from_snapshot(c.clone(), &bad));
    assert!(msg.contains("checksum mismatch"), "{msg}");
    std::fs::write(&bad, b"not a snapshot at all").unwrap();
    let msg = refused(SimSession::from_snapshot(c, &bad));
    assert!(msg.contains("not an ssdlab drive snapshot"), "{msg}");
    let _ = Frozen::read(&path).unwrap();
}
