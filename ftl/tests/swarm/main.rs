//! Seeded swarm test (in the manner of TigerBeetle's VOPR): each seed draws a drive (the `tiny`
//! profile with geometry, timing, OP, GC policy, PLP, power cap and scale varied) and a workload
//! (phases of reads, writes and TRIMs of sizes from 512 B to 128 KiB, aligned or not, at queue
//! depths 1-64, sequential or random, with power cuts at random instants where the drive keeps
//! write sequences) and runs it on the timed drive, checking throughout:
//! - the FTL's and the NAND model's structural invariants (valid counts equal live mappings,
//!   spare areas name their units back; no die runs two array operations at once, channel bus
//!   reservations are disjoint, no die idles with work queued);
//! - read-your-writes against a shadow model: a read finds zeros or a copy at least as new as the
//!   last acknowledged write, TRIM unmaps exactly the units it covers;
//! - after a power cut with PLP, every acknowledged write and TRIM survives; without PLP every unit
//!   still maps consistently and a TRIM is never undone;
//! - time never goes back, every command completes, once;
//! - the same seed twice gives identical counters, NAND trace and completion times.
//!
//! `cargo test -p ftl --test swarm` runs a fixed set of seeds. More: `SSDLAB_SWARM_SEEDS=500`
//! (with `SSDLAB_SWARM_FROM=N` to start elsewhere); one: `SSDLAB_SWARM_SEED=S`. A failure prints
//! its seed, the drawn drive and workload, and the command that reproduces it.
#![allow(clippy::cast_possible_truncation)] // casts are of the test's own small values

mod drive;
mod model;
mod workload;

use ftl::device::{HostOp, SimSsd};
use ftl::Lpn;
use model::{Model, Want};
use nand_model::rng::{RngStreams, StreamId};
use nand_model::SimTime;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// What a run must reproduce exactly under the same seed.
#[derive(Debug, PartialEq)]
struct Outcome {
    counters: String,
    trace_hash: u64,
    completions_hash: u64,
    end_ns: SimTime,
    cuts: u32,
    commands: u64,
    gc_victims: u64,
}

struct Cmd {
    op: HostOp,
    offset: u64,
    len: u32,
    first: u32,
    units: u32,
    submit_ns: SimTime,
}

struct Run {
    d: SimSsd,
    m: Model,
    rng: ChaCha8Rng,
    inflight: HashMap<u64, Cmd>,
    tag: u64,
    mu: u64,
    cap: u64,
    last_ns: SimTime,
    hash: u64,
    completed: u64,
    check_every: u64,
    cuts: u32,
}

fn fnv(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x0000_0100_0000_01b3)
}

impl Run {
    fn units(&self, offset: u64, len: u32) -> (u32, u32) {
        let first = offset / self.mu;
        let last = (offset + len as u64 - 1) / self.mu;
        (first as u32, (last - first + 1) as u32)
    }

    /// Submits one command of the phase on units no command in flight touches; false if none
    /// was found in a few tries (then the caller waits for a completion).
    fn submit(&mut self, ph: &workload::Phase, cursor: &mut u64) -> Result<bool, String> {
        for _ in 0..8 {
            let op = ph.op(&mut self.rng);
            let (offset, len) = ph.extent(&mut self.rng, self.cap, cursor);
            let (first, units) = self.units(offset, len);
            if !self.m.free(first, units) {
                continue;
            }
            self.d.submit(self.tag, op, offset, len).map_err(|e| format!("submit refused: {e}"))?;
            self.m.mark(first, units, 1);
            self.inflight.insert(self.tag, Cmd { op, offset, len, first, units, submit_ns: self.d.now() });
            self.tag += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// Checks one completion against the model and updates it.
    fn complete(&mut self, c: ftl::device::HostCompletion) -> Result<(), String> {
        let cmd =
            self.inflight.remove(&c.tag).ok_or_else(|| format!("completion of unknown or finished tag {}", c.tag))?;
        if c.op != cmd.op || c.len_bytes != cmd.len || c.submit_ns != cmd.submit_ns {
            return Err(format!("completion {c:?} does not match its command ({:?} {} B)", cmd.op, cmd.len));
        }
        if c.complete_ns < c.submit_ns || c.complete_ns < self.last_ns || self.d.now() < c.complete_ns {
            return Err(format!("time went back: {c:?} after {} (now {})", self.last_ns, self.d.now()));
        }
        self.last_ns = c.complete_ns;
        self.hash = fnv(fnv(self.hash, c.tag), c.complete_ns.ns());
        self.m.mark(cmd.first, cmd.units, -1);
        let core = &self.d.core;
        for lpn in cmd.first..cmd.first + cmd.units {
            let lo = lpn as u64 * self.mu;
            let covered = cmd.offset <= lo && lo + self.mu <= cmd.offset + cmd.len as u64;
            match cmd.op {
                HostOp::Write => match self.m.holds(core, lpn)? {
                    Want::Zeros => return Err(format!("acknowledged write of unit {lpn} is not mapped")),
                    w => self.m.want[lpn as usize] = w,
                },
                HostOp::Trim if covered => {
                    if core.lookup(Lpn::new(lpn)).is_some() {
                        return Err(format!("unit {lpn} still mapped after a TRIM that covers it"));
                    }
                    self.m.want[lpn as usize] = Want::Zeros;
                }
                // A TRIM of part of a unit must leave the rest of the unit's data alone.
                HostOp::Trim | HostOp::Read => {
                    self.m.check(core, lpn).map_err(|e| format!("{:?} {}+{}: {e}", cmd.op, cmd.offset, cmd.len))?
                }
            }
        }
        self.completed += 1;
        if self.completed.is_multiple_of(self.check_every) {
            self.check_all()?;
        }
        Ok(())
    }

    fn check_all(&self) -> Result<(), String> {
        self.d.check_invariants()?;
        self.d.flash().check_invariants()?;
        self.m.check_all(&self.d.core)
    }

    /// Cuts power now and checks what survived; commands in flight are forgotten.
    fn cut(&mut self) -> Result<(), String> {
        let plp = self.d.plp();
        let rep = self.d.power_cut().map_err(|e| format!("power cut: {e}"))?;
        self.cuts += 1;
        let core = &self.d.core;
        for lpn in 0..self.m.want.len() as u32 {
            let got = self.m.holds(core, lpn).map_err(|e| format!("after power cut {rep:?}: {e}"))?;
            let want = self.m.want[lpn as usize];
            if self.m.busy[lpn as usize] == 0 {
                match (want, got) {
                    (Want::Zeros, Want::Written(_)) => {
                        return Err(format!("unit {lpn}: TRIM undone by a power cut ({rep:?})"))
                    }
                    (Want::Written(_), _) if plp => {
                        self.m.check(core, lpn).map_err(|e| format!("with PLP, {e}; {rep:?}"))?
                    }
                    _ => {}
                }
            }
            self.m.want[lpn as usize] = got;
        }
        self.inflight.clear();
        self.m.busy.fill(0);
        self.check_all().map_err(|e| format!("after power cut: {e}"))
    }

    fn run_phase(&mut self, ph: &workload::Phase) -> Result<(), String> {
        let mut cursor = self.rng.gen_range(0..self.cap / 2);
        let mut submitted = 0;
        let mut done = 0u32;
        while submitted < ph.commands || !self.inflight.is_empty() {
            while submitted < ph.commands && self.inflight.len() < ph.qd && self.submit(ph, &mut cursor)? {
                submitted += 1;
            }
            if let Some((at, after_ns)) = ph.cut {
                if done == at {
                    let deadline = self.d.now() + SimTime::from_ns(after_ns);
                    while let Some(c) = self.d.next_completion(Some(deadline)) {
                        self.complete(c)?;
                    }
                    return self.cut();
                }
            }
            // A command on this tiny drive completes within an hour of simulated time; a run
            // stuck without events (deadlock) or busy without end (GC livelock) fails here.
            let deadline = self.d.now() + SimTime::from_ns(3_600_000_000_000);
            let c = self.d.next_completion(Some(deadline)).ok_or_else(|| {
                format!("{} commands did not complete within an hour of simulated time", self.inflight.len())
            })?;
            self.complete(c)?;
            done += 1;
        }
        Ok(())
    }
}

fn run_seed(seed: u64) -> Result<Outcome, String> {
    let mut rng = RngStreams::new(seed).stream(StreamId::Host, 0);
    let draw = drive::draw(&mut rng);
    let d = draw.build().map_err(|e| format!("drive draw refused: {e}\n{draw:#?}"))?;
    let lb = d.logical_block_bytes();
    let phases = workload::draw(&mut rng, lb, draw.opts.track_sequence);
    let ctx = |e: String| format!("{e}\ndrive: {draw:#?}\nphases: {phases:#?}");
    let mu = d.core.layout.mu_bytes as u64;
    let cap = d.capacity().user_bytes_sim;
    let m = Model::new(d.core.user_mus(), draw.opts.track_sequence);
    let check_every = rng.gen_range(50..400);
    let mut r = Run {
        d,
        m,
        rng,
        inflight: HashMap::new(),
        tag: 0,
        mu,
        cap,
        last_ns: SimTime::ZERO,
        hash: 0,
        completed: 0,
        check_every,
        cuts: 0,
    };
    for ph in &phases {
        r.run_phase(ph).map_err(ctx)?;
        r.check_all().map_err(ctx)?;
    }
    if r.d.next_completion(None).is_some() || r.d.outstanding() != 0 {
        return Err(ctx("a completion arrived with no command in flight".into()));
    }
    if r.d.flash().in_flight() != 0 {
        return Err(ctx(format!("{} NAND operations never finished", r.d.flash().in_flight())));
    }
    Ok(Outcome {
        counters: format!("{:?}", r.d.counters()),
        trace_hash: r.d.flash().trace_hash(),
        completions_hash: r.hash,
        end_ns: r.d.now(),
        cuts: r.cuts,
        commands: r.tag,
        gc_victims: r.d.counters().gc_victims,
    })
}

/// Runs one seed (twice, to check determinism) and turns a panic inside the drive into an error.
fn check_seed(seed: u64) -> Result<Outcome, String> {
    let once = || std::panic::catch_unwind(|| run_seed(seed)).unwrap_or_else(|p| Err(panic_text(p)));
    let a = once()?;
    let b = once()?;
    if a != b {
        return Err(format!("not deterministic:\n{a:?}\n{b:?}"));
    }
    Ok(a)
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
    format!("panicked: {}", msg.unwrap_or_default())
}

fn env_u64(key: &str) -> Option<u64> {
    let v = std::env::var(key).ok()?;
    Some(v.parse().unwrap_or_else(|_| panic!("{key}={v}: expected a non-negative integer")))
}

#[test]
fn swarm() {
    let seeds: Vec<u64> = match env_u64("SSDLAB_SWARM_SEED") {
        Some(s) => vec![s],
        None => {
            let from = env_u64("SSDLAB_SWARM_FROM").unwrap_or(1);
            let mut seeds: Vec<u64> = (from..from + env_u64("SSDLAB_SWARM_SEEDS").unwrap_or(DEFAULT_SEEDS)).collect();
            let more: Vec<u64> = REGRESSION_SEEDS.into_iter().filter(|s| !seeds.contains(s)).collect();
            seeds.extend(more);
            seeds
        }
    };
    let (mut failed, mut cuts, mut commands, mut victims) = (Vec::new(), 0, 0, 0);
    for &seed in &seeds {
        match check_seed(seed) {
            Ok(o) => {
                cuts += o.cuts;
                commands += o.commands;
                victims += o.gc_victims;
            }
            Err(e) => {
                eprintln!("swarm seed {seed} FAILED: {e}\nreproduce: SSDLAB_SWARM_SEED={seed} cargo test -p ftl --test swarm\n");
                failed.push(seed);
            }
        }
    }
    eprintln!(
        "swarm: {} seeds, {commands} commands, {victims} GC victims, {cuts} power cuts (each seed run twice); failed: {failed:?}",
        seeds.len()
    );
    assert!(failed.is_empty(), "swarm seeds failed: {failed:?} (rerun one with SSDLAB_SWARM_SEED=S)");
}

/// Seeds CI runs (each twice): about 12 s on one core of the 2-vCPU VM (1000 seeds: 57 s).
const DEFAULT_SEEDS: u64 = 200;

/// Seeds beyond those that once failed, run every time (what each found is said where it was
/// fixed): 256 (GC padded a whole block per victim and freed none, `relocate.rs`), 2760 (GC
/// stopped with the NAND idle and host writes waiting, `pacing.rs`), 5792 (a power cut under
/// a power cap made the meter's throttled time negative, `governor.rs`), 5299 (a cut with no
/// free block left: recovery closed the open blocks, GC had nowhere to write and no write
/// completed again, `recovery.rs`), 16369 (GC's memo of a refused lane start outlived the host
/// writes that then made a victim, and nothing called GC again, `core.rs`), 8675, 11876, 18952
/// and 20858 (blocks of one program unit without PLP: GC padded each victim's data to a block
/// of its own, which was the next victim, for ever, `pacing.rs`).
const REGRESSION_SEEDS: [u64; 9] = [256, 2760, 5299, 5792, 8675, 11876, 16369, 18952, 20858];
