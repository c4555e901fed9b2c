//! Lessons: a scenario (one or two configurations of the same seed, a fio job), a few
//! paragraphs of explanation, and questions answered from the recorded runs, as OSTEP's
//! `ssd.py -c` solves its own homework.

use super::model::{Question, Recording};
use super::record::{MidRunCut, Recorder};
use crate::job::{self, JobFile, ParseOptions};
use crate::runner::RunResult;
use crate::simrun::{SimConfig, SimSession};
use std::sync::atomic::AtomicBool;

/// One configuration to run and record.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub label: String,
    pub cfg: SimConfig,
    /// fio job text.
    pub job: String,
    /// Cut power when the job ends (before the write buffer drains) and record the reboot.
    pub power_cut: bool,
    /// With `power_cut`: cut at this simulated instant instead of at the job's end (if the run
    /// gets there; otherwise at the end).
    pub power_cut_at_ns: Option<u64>,
    /// Start from this saved drive (`--save-drive`, `drive precondition`) instead of a new one.
    pub from_drive: Option<std::path::PathBuf>,
    /// Log every host write (`explore --write-log`, [`super::Recorder::with_write_log`]).
    pub write_log: bool,
}

/// A preset scenario.
pub struct Lesson {
    pub name: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    pub text: &'static [&'static str],
    pub runs: Vec<RunSpec>,
    /// Questions and the answers the recorded runs give.
    pub questions: fn(&[Recording]) -> Vec<Question>,
}

/// Fill the drive, then random 4 KiB writes of `drive_writes` times the user capacity, with the
/// random offsets drawn from `dist` (fio's random_distribution).
fn fill_then_randwrite(dist: &str, drive_writes: u32) -> String {
    format!(
        "[global]\nioengine=io_uring\ndirect=1\n\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\n\
         [randwrite]\nstonewall\nrw=randwrite\nbs=4k\niodepth=8\nsize=100%\nloops={drive_writes}\n\
         random_distribution={dist}\nnorandommap=1\n"
    )
}

fn cfg(drive: &str, f: impl FnOnce(&mut SimConfig)) -> SimConfig {
    let mut c = SimConfig::new(drive, 1);
    f(&mut c);
    c
}

fn spec(label: &str, cfg: SimConfig, job: &str) -> RunSpec {
    RunSpec {
        label: label.into(),
        cfg,
        job: job.into(),
        power_cut: false,
        power_cut_at_ns: None,
        from_drive: None,
        write_log: false,
    }
}

/// Every lesson, in teaching order.
pub fn all() -> Vec<Lesson> {
    let uniform = fill_then_randwrite("random", 3);
    let skewed = fill_then_randwrite("zipf:1.2", 3);
    let trim_job_a = "[global]\nioengine=io_uring\ndirect=1\n\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\n\
         [randwrite]\nstonewall\nrw=randwrite\nbs=4k\niodepth=8\nsize=50%\nloops=4\nnorandommap=1\n";
    let trim_job_b = "[global]\nioengine=io_uring\ndirect=1\n\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\n\
         [trim]\nstonewall\nrw=trim\nbs=1m\noffset=50%\nsize=50%\n\n\
         [randwrite]\nstonewall\nrw=randwrite\nbs=4k\niodepth=8\nsize=50%\nloops=4\nnorandommap=1\n";
    let qlc_job = "[global]\nioengine=io_uring\ndirect=1\n\n[fill]\nrw=write\nbs=128k\niodepth=32\nsize=100%\n\n\
         [randwrite]\nstonewall\nrw=randwrite\nbs=4k\niodepth=32\nnumjobs=4\nsize=10%\nnorandommap=1\n";
    let cut_job = "[global]\nioengine=io_uring\ndirect=1\n\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\n\
         [randwrite]\nstonewall\nrw=randwrite\nbs=4k\niodepth=8\nsize=100%\nnorandommap=1\n";
    vec![
        Lesson {
            name: "op-wa",
            title: "Over-provisioning and write amplification",
            summary: "tiny at 15% and 40% OP, uniform random writes: WA against the greedy model",
            text: &[
                "Flash cannot overwrite a page: a new version of a 4 KiB unit goes to a fresh page and the old one becomes invalid. Garbage collection (GC) frees a block by copying its still-valid units elsewhere and erasing it. Every copied unit is a NAND write the host never asked for: write amplification (WA) = NAND writes / host writes.",
                "Over-provisioning (OP) is NAND the host cannot address. With more spare space, blocks have more time to accumulate invalid units before GC needs them, so victims hold fewer valid units and WA falls. For uniform random writes and greedy GC the steady WA has a closed form (Desnoyers 2012), drawn as the dashed reference line. The model counts every spare block as available; a drive of only 64 blocks keeps several of them out of play (one open block per die and stream, GC's reserve of free blocks), so tiny's measured WA sits above the line, by more at low OP.",
                "Both drives get the same seed and the same job: a sequential fill, then three drive writes of 4 KiB random writes. Watch the free-block line fall to the GC threshold, the first victims (the red outline), and the valid fraction of victims in the histogram.",
            ],
            runs: vec![
                spec("OP 15%", cfg("tiny", |c| c.op = Some(0.15)), &uniform),
                spec("OP 40%", cfg("tiny", |c| c.op = Some(0.40)), &uniform),
            ],
            questions: q_op_wa,
        },
        Lesson {
            name: "greedy-vs-cost-benefit",
            title: "Greedy vs cost-benefit GC under skew",
            summary: "tiny, zipf:1.2 writes with hot/cold streams: which victim does each policy pick?",
            text: &[
                "Greedy GC always takes the block with the fewest valid units. Cost-benefit (Rosenblum and Ousterhout's LFS cleaner) weighs the free space gained against the cost of copying and the block's age: score = (1 - u) x age / 2u, with u the valid fraction.",
                "Under skewed writes a cold block rarely loses data, so greedy leaves it alone while hot blocks are collected again and again just before they would have emptied themselves. Cost-benefit collects old, fairly full cold blocks once and leaves hot blocks to die on their own.",
                "Both runs separate GC data from host data (hot/cold streams) and write with a zipf:1.2 distribution. In the histogram, compare the valid counts of the chosen victims; on the cost-benefit side the chosen block's score is shown with the best blocks it was chosen over (their scores as the frame saw them).",
            ],
            runs: vec![
                spec(
                    "greedy",
                    cfg("tiny", |c| {
                        c.gc_policy = Some(ftl::GcPolicy::Greedy);
                        c.hot_cold_separation = Some(true);
                    }),
                    &skewed,
                ),
                spec(
                    "cost-benefit",
                    cfg("tiny", |c| {
                        c.gc_policy = Some(ftl::GcPolicy::CostBenefit);
                        c.hot_cold_separation = Some(true);
                    }),
                    &skewed,
                ),
            ],
            questions: q_policies,
        },
        Lesson {
            name: "hot-cold",
            title: "Hot/cold separation",
            summary: "tiny, zipf:1.2 writes, greedy GC with one write stream vs separate GC stream",
            text: &[
                "Data that GC copies has survived a while without being overwritten: it is probably cold. If GC writes it into the same open block as fresh host data, hot and cold units share blocks, and every block ends up half cold: GC has to copy the cold half again and again.",
                "With separation, GC has its own open block per die (the outlined 'GC' blocks in the map), so blocks fill with data of similar temperature: hot blocks empty quickly, cold blocks stay full and are left alone.",
            ],
            runs: vec![
                spec("one stream", cfg("tiny", |c| c.hot_cold_separation = Some(false)), &skewed),
                spec("separate GC stream", cfg("tiny", |c| c.hot_cold_separation = Some(true)), &skewed),
            ],
            questions: q_hot_cold,
        },
        Lesson {
            name: "trim",
            title: "TRIM gives the drive its space back",
            summary: "tiny, random writes to half the drive, with the other half kept vs trimmed",
            text: &[
                "A full drive cannot know which of its data the file system no longer needs. TRIM tells it: the trimmed units are unmapped, their pages become invalid, and GC never copies them.",
                "Both runs fill the drive and then write randomly into its first half. In the second run the second half is trimmed first: those units stop counting as valid, so the drive effectively has half its capacity as spare space and WA falls to nearly 1.",
            ],
            runs: vec![
                spec("no TRIM", cfg("tiny", |_| {}), trim_job_a),
                spec("second half trimmed", cfg("tiny", |_| {}), trim_job_b),
            ],
            questions: q_trim,
        },
        Lesson {
            name: "power-cap-qlc",
            title: "A power cap on a QLC drive",
            summary: "generic-qlc (scaled), 4 KiB random writes uncapped vs at its lowest power state",
            text: &[
                "NVMe drives offer power states; in a lower one the drive must keep its average power under the state's maximum. The firmware's governor does so by holding NAND operations back when they would exceed the budget: the dies idle, and the host sees the cap as lower IOPS and higher latency.",
                "QLC programs are long and expensive, so a random-write workload that keeps every die programming is where a cap bites. Compare the power line against the cap, the share of time the governor held operations, and IOPS. The map shows the first dies' blocks one by one; the histogram below it covers every block of the (scaled) drive.",
            ],
            runs: vec![
                spec("uncapped", cfg("generic-qlc", |c| c.scale_divisor = Some(4096)), qlc_job),
                spec(
                    "lowest power state",
                    cfg("generic-qlc", |c| {
                        c.scale_divisor = Some(4096);
                        c.power_state = Some(2);
                    }),
                    qlc_job,
                ),
            ],
            questions: q_power,
        },
        Lesson {
            name: "power-loss",
            title: "Sudden power loss with and without PLP",
            summary: "tiny, power cut right after a burst of random writes, PLP on vs off",
            text: &[
                "A drive acknowledges a write once the data is in its DRAM write buffer, long before the NAND program finishes. If power fails in between, the acknowledged data is only safe if the drive has power-loss protection (PLP): capacitors that keep it alive long enough to program the buffer.",
                "Both runs cut the power the moment the host's last write is acknowledged. With PLP, the buffer is programmed (padding the open word lines); without it, the buffered units are lost. On boot the drive rebuilds its mapping from the spare areas, and each stream writes on in its open blocks after their programmed part. The last frame of each run is the drive after the reboot.",
            ],
            runs: vec![
                RunSpec { power_cut: true, ..spec("PLP on", cfg("tiny", |c| c.plp = Some(true)), cut_job) },
                RunSpec { power_cut: true, ..spec("PLP off", cfg("tiny", |c| c.plp = Some(false)), cut_job) },
            ],
            questions: q_power_loss,
        },
    ]
}

/// The lesson called `name`.
pub fn find(name: &str) -> Option<Lesson> {
    all().into_iter().find(|l| l.name == name)
}

/// Runs and records one configuration.
pub fn run_spec(
    spec: &RunSpec,
    file: &JobFile,
    stop: Option<&AtomicBool>,
) -> Result<(RunResult, SimSession, Recording), String> {
    let mut s = match &spec.from_drive {
        // A saved drive keeps no write sequences, which a power cut's rebuild needs.
        Some(_) if spec.power_cut => return Err("a power cut cannot be recorded on a drive loaded with --from-drive (a saved drive keeps no write sequences for the rebuild)".into()),
        Some(p) => SimSession::from_snapshot(spec.cfg.clone(), p).map(|(s, _)| s),
        None if spec.power_cut => SimSession::with_power_loss(spec.cfg.clone()),
        None => SimSession::new(spec.cfg.clone()),
    }
    .map_err(|e| e.to_string())?;
    let flag = std::sync::Arc::new(AtomicBool::new(false));
    let cut = spec.power_cut_at_ns.filter(|_| spec.power_cut).map(|at_ns| MidRunCut {
        at_ns,
        flag: flag.clone(),
        report: None,
    });
    // A mid-run cut stops the run through its own flag (so Ctrl-C is not seen during it).
    let stop = if cut.is_some() { Some(&*flag) } else { stop };
    let (mut r, mut rec) =
        super::record_run_with(&mut s, file, stop, None, cut, spec.write_log).map_err(|e| e.to_string())?;
    let mut notes = Vec::new();
    let mid_run = rec.cut.as_mut().and_then(|c| c.report.take());
    if let (Some(at), None) = (spec.power_cut_at_ns.filter(|_| spec.power_cut), &mid_run) {
        notes.push(format!(
            "the job ended at {:.3} ms, before the power cut planned at {:.3} ms: cut at the end",
            s.target.ssd.now().ns() as f64 / 1e6,
            at as f64 / 1e6
        ));
    }
    let was_mid_run = mid_run.is_some();
    // The job was cut short: its result says so, as after a stop.
    r.interrupted |= was_mid_run;
    if spec.power_cut {
        let rep = match mid_run {
            Some(rep) => rep,
            None => {
                rec.frame(&s.target.ssd);
                rec.power_cut_now(&mut s.target.ssd);
                s.target.ssd.power_cut().map_err(|e| e.to_string())?
            }
        };
        notes.push(format!(
            "power cut at {:.3} ms: {} host units in the write buffer, {} flushed by PLP (padding {}), {} units placed but never programmed (lost), {} commands dropped, {} open blocks resumed, {} closed part-written, {} erased at boot, {} LPNs mapped after the rebuild",
            rep.at_ns.ns() as f64 / 1e6,
            rep.buffered_host_mus,
            rep.flushed_mus,
            rep.pad_mus,
            rep.rebuild.unprogrammed_mus,
            rep.dropped_commands,
            rep.rebuild.resumed_blocks,
            rep.rebuild.truncated_blocks,
            rep.rebuild.erased_at_boot,
            rep.rebuild.mapped_lpns
        ));
        if !was_mid_run {
            rec.frame(&s.target.ssd); // the drive after the reboot (the mid-run cut took its own)
        }
    }
    let rec: Recorder = rec;
    let recording = rec.finish(&mut s.target.ssd, spec.label.clone(), notes);
    Ok((r, s, recording))
}

/// Parses a lesson's job text.
pub fn parse_job(spec: &RunSpec, lesson: &str) -> Result<JobFile, String> {
    job::parse_str(&spec.job, &format!("lesson {lesson}"), &ParseOptions::default()).map_err(|e| e.to_string())
}

// ---- answers from the runs -------------------------------------------------------------------

/// Index of the first frame at which the host had written `frac` of its final bytes.
fn frame_at_written(r: &Recording, frac: f64) -> usize {
    let f = &r.frames;
    let end = *f.host_write_bytes.last().unwrap_or(&0) as f64;
    f.host_write_bytes.iter().position(|&b| b as f64 >= end * frac).unwrap_or(0)
}

/// WA over the last `share` of the host's bytes (steady state).
pub fn wa_tail(r: &Recording, share: f64) -> f64 {
    let f = &r.frames;
    let (a, b) = (frame_at_written(r, 1.0 - share), f.t_ns.len() - 1);
    let h = f.host_write_bytes[b] - f.host_write_bytes[a];
    if h == 0 {
        return 0.0;
    }
    (f.nand_write_bytes[b] - f.nand_write_bytes[a]) as f64 / h as f64
}

/// Mean valid fraction of the victims chosen over the run.
pub fn victim_valid_pct(r: &Recording) -> f64 {
    let v: Vec<f64> = r.frames.victims.iter().flatten().map(|v| v.valid as f64 / r.meta.mus_per_block as f64).collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64 * 100.0
    }
}

fn last<T: Copy + Default>(v: &[T]) -> T {
    v.last().copied().unwrap_or_default()
}

fn q(q: impl Into<String>, a: impl Into<String>) -> Question {
    Question { q: q.into(), answer: a.into() }
}

fn q_op_wa(r: &[Recording]) -> Vec<Question> {
    let (a, b) = (&r[0], &r[1]);
    vec![
        q(
            format!("What is the WA over the last third of the random writes at {} and at {}?", a.label, b.label),
            format!("{}: {:.2}, {}: {:.2}", a.label, wa_tail(a, 1.0 / 3.0), b.label, wa_tail(b, 1.0 / 3.0)),
        ),
        q(
            "How close does each come to the greedy model for its OP (the dashed line)?",
            format!(
                "{}: model {:.2} (OP {:.1}%), {}: model {:.2} (OP {:.1}%)",
                a.label, a.meta.wa_greedy_ref, a.meta.op_pct, b.label, b.meta.wa_greedy_ref, b.meta.op_pct
            ),
        ),
        q(
            "On average, what fraction of a victim was still valid (and had to be copied)?",
            format!("{}: {:.0}%, {}: {:.0}%", a.label, victim_valid_pct(a), b.label, victim_valid_pct(b)),
        ),
        q(
            "How many blocks did GC collect in each run?",
            format!("{}: {}, {}: {}", a.label, last(&a.frames.gc_victims), b.label, last(&b.frames.gc_victims)),
        ),
    ]
}

fn q_policies(r: &[Recording]) -> Vec<Question> {
    let (a, b) = (&r[0], &r[1]);
    vec![
        q(
            "Which policy has the lower WA over the last third of the run, and by how much?",
            format!("{}: {:.2}, {}: {:.2}", a.label, wa_tail(a, 1.0 / 3.0), b.label, wa_tail(b, 1.0 / 3.0)),
        ),
        q(
            "How full (valid fraction) were the victims each policy chose, on average?",
            format!("{}: {:.0}%, {}: {:.0}%", a.label, victim_valid_pct(a), b.label, victim_valid_pct(b)),
        ),
        q("Which run erased its most-erased block more often? (hover the blocks)", erase_spread(r)),
    ]
}

#[allow(clippy::cast_possible_truncation)] // delta entries hold u32 block ids and erase counts
fn erase_spread(r: &[Recording]) -> String {
    r.iter()
        .map(|x| {
            let mut e: Vec<u32> = x.init.iter().map(|b| b.erase).collect();
            for d in &x.frames.delta {
                for c in d.chunks(7) {
                    e[c[0] as usize] = c[4] as u32;
                }
            }
            let used: Vec<u32> = e.iter().zip(&x.init).filter(|(_, b)| b.state != 5).map(|(e, _)| *e).collect();
            format!(
                "{}: erase counts {}..{}",
                x.label,
                used.iter().min().copied().unwrap_or(0),
                used.iter().max().copied().unwrap_or(0)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn q_hot_cold(r: &[Recording]) -> Vec<Question> {
    let (a, b) = (&r[0], &r[1]);
    vec![
        q(
            "What is the WA over the last third of the run with one stream and with a separate GC stream?",
            format!("{}: {:.2}, {}: {:.2}", a.label, wa_tail(a, 1.0 / 3.0), b.label, wa_tail(b, 1.0 / 3.0)),
        ),
        q(
            "How much data did GC copy in each run (MiB)?",
            format!(
                "{}: {:.1} MiB, {}: {:.1} MiB",
                a.label,
                last(&a.frames.gc_write_bytes) as f64 / 1048576.0,
                b.label,
                last(&b.frames.gc_write_bytes) as f64 / 1048576.0
            ),
        ),
        q(
            "What fraction of a victim was still valid on average?",
            format!("{}: {:.0}%, {}: {:.0}%", a.label, victim_valid_pct(a), b.label, victim_valid_pct(b)),
        ),
    ]
}

fn q_trim(r: &[Recording]) -> Vec<Question> {
    let (a, b) = (&r[0], &r[1]);
    vec![
        q(
            "What is the WA of the random writes (last half of them) without and with the TRIM?",
            format!("{}: {:.2}, {}: {:.2}", a.label, wa_tail(a, 0.5), b.label, wa_tail(b, 0.5)),
        ),
        q(
            "How many MiB did the host trim, and how many blocks did GC collect in each run?",
            format!(
                "trimmed {:.0} MiB; GC victims {}: {}, {}: {}",
                last(&b.frames.host_trim_bytes) as f64 / 1048576.0,
                a.label,
                last(&a.frames.gc_victims),
                b.label,
                last(&b.frames.gc_victims)
            ),
        ),
    ]
}

/// Host writes per second, average power and throttled share over the last `share` of the
/// host's bytes.
fn span_stats(r: &Recording, share: f64) -> (f64, f64, f64) {
    let f = &r.frames;
    let a = frame_at_written(r, 1.0 - share);
    let b = f.t_ns.len() - 1;
    let secs = (f.t_ns[b] - f.t_ns[a]) as f64 / 1e9;
    if secs <= 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let ios = (f.host_writes[b] - f.host_writes[a]) as f64 / secs;
    let w = (f.energy_j[b] - f.energy_j[a]) / secs;
    let thr = (f.throttled_ns[b] - f.throttled_ns[a]) as f64 / 1e9 / secs * 100.0;
    (ios, w, thr)
}

fn q_power(r: &[Recording]) -> Vec<Question> {
    let (a, b) = (&r[0], &r[1]);
    let (ia, wa, ta) = span_stats(a, 0.2);
    let (ib, wb, tb) = span_stats(b, 0.2);
    let cap = b.meta.power_cap_w.map_or("none".to_string(), |c| format!("{c} W"));
    vec![
        q(
            "What average power does each run draw over the last fifth of its host writes (random writes), and what is the cap?",
            format!("{}: {:.2} W, {}: {:.2} W (cap {cap})", a.label, wa, b.label, wb),
        ),
        q(
            "What share of time did the governor hold operations back?",
            format!("{}: {:.0}%, {}: {:.0}%", a.label, ta, b.label, tb),
        ),
        q(
            "How many write commands per second of simulated time did each complete (host writes / s over the same span)?",
            format!("{}: {:.0}, {}: {:.0}", a.label, ia, b.label, ib),
        ),
    ]
}

fn q_power_loss(r: &[Recording]) -> Vec<Question> {
    r.iter()
        .map(|x| {
            q(format!("{}: what happened to the data in the write buffer at the cut?", x.label), x.notes.join("; "))
        })
        .collect()
}
