//! Parser fuzzing of fio job files: arbitrary text and mutated valid job files (bytes replaced,
//! ranges dropped or repeated, values swapped for overflowing, negative, NaN or unit-laden ones)
//! never panic or hang (each input must finish within HANG_LIMIT): the parser returns a job file
//! or a typed error. A job file it accepts must also resolve on a drive (the I/O pattern is built
//! and draws I/Os inside the drive) or be refused with a typed error, since accepting a file that
//! later panics is the same bug one step on.

use host_bench::job::pattern::IoPattern;
use host_bench::job::registry::OPTIONS;
use host_bench::job::{parse_str, ParseOptions};
use nand_model::mutate::{mutate, Mutation, TOKENS};
use nand_model::rng::{RngStreams, StreamId};
use proptest::prelude::*;

/// Valid job files to mutate: the shipped examples and one using many option kinds.
const SEEDS: &[&str] = &[
    include_str!("../../examples/jobs/randwrite-steady.fio"),
    include_str!("../../examples/jobs/p5520-11w.fio"),
    include_str!("../../examples/jobs/p5430-power-states.fio"),
    include_str!("../../examples/jobs/ezfio-stability.fio"),
    "[global]\nioengine=libaio\ndirect=1\nbs=4k\nsize=64m\noffset=1m\nruntime=2\ntime_based\nramp_time=1\n\
     [a]\nrw=randrw\nrwmixread=70\nbssplit=4k/50:64k/30:128k/20\niodepth=16\nnumjobs=2\nrandom_distribution=zipf:1.2\n\
     [b]\nstonewall\nrw=write:4k\nblocksize_range=512-16k\nrate_iops=500\nloops=3\nio_size=10m\n\
     [c]\nrw=randtrim\nbs=8k\nnorandommap\nrandom_generator=lfsr\noffset_increment=1m\n\
     [d]\nrw=read\nbs=1k,2k\nzonesize=1m\nzoneskip=1m\nnumber_ios=100\nthinktime=10\n",
];

const CAPACITY: u64 = 80 << 20;

/// [`check_unbounded`] within the shared hang limit; a hang or a panic fails with the input.
fn check(text: &str) -> Result<(), TestCaseError> {
    nand_model::mutate::bounded_check(text, check_unbounded, TestCaseError::fail)
}

fn check_unbounded(text: &str) -> Result<(), TestCaseError> {
    for opts in [ParseOptions::default(), ParseOptions { ignore_unsupported: true, host: None }] {
        let Ok(file) = parse_str(text, "fuzz.fio", &opts) else { continue };
        for spec in &file.jobs {
            let Ok(mut p) = IoPattern::new(spec, 0, RngStreams::new(1).stream(StreamId::Host, 0), CAPACITY, 512) else {
                continue;
            };
            for _ in 0..32 {
                let Some(io) = p.next_io() else { break };
                prop_assert!(
                    io.offset_bytes + io.len_bytes as u64 <= CAPACITY,
                    "job {} drew {io:?} past the {CAPACITY} B drive:\n{text}",
                    spec.name
                );
            }
        }
    }
    Ok(())
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (any::<u8>(), any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(kind, at, len, pick)| Mutation {
        kind,
        at,
        len,
        pick,
    })
}

/// Values that are valid for some option, to combine with the odd ones.
const PLAUSIBLE: &[&str] = &[
    "4k",
    "1m",
    "512",
    "50",
    "randrw",
    "randread",
    "write",
    "trim",
    "1",
    "2",
    "10s",
    "100ms",
    "zipf:1.2",
    "pareto:0.9",
    "normal:20",
    "512-64k",
    "4k/50:8k/50",
    "4k,8k",
    "lfsr",
    "70",
    "8",
    "64",
    "on",
    "0",
];

/// A job section with `opts` (registry index, value index into [`PLAUSIBLE`] then the odd
/// tokens) after a base job that runs.
fn job_with(opts: &[(usize, usize)]) -> String {
    let mut s = String::from("[j]\nrw=randrw\nbs=4k\nsize=8m\niodepth=4\n");
    for &(o, v) in opts {
        let name = OPTIONS[o % OPTIONS.len()].name;
        let v = v % (PLAUSIBLE.len() + TOKENS.len());
        let value = PLAUSIBLE.get(v).copied().unwrap_or_else(|| TOKENS[v - PLAUSIBLE.len()]);
        s.push_str(&format!("{name}={value}\n"));
    }
    s
}

/// Every option of the registry (implemented, accepted or refused) set to every value, one at
/// a time.
#[test]
fn every_option_with_every_odd_value() {
    for o in 0..OPTIONS.len() {
        for v in 0..PLAUSIBLE.len() + TOKENS.len() {
            let text = job_with(&[(o, v)]);
            if let Err(e) = std::panic::catch_unwind(|| check(&text))
                .unwrap_or_else(|_| Err(TestCaseError::fail("panicked (above)")))
            {
                panic!("{e}:\n{text}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { max_shrink_time: 60_000, cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn mutated_job_files_never_panic(seed in 0..SEEDS.len(), edits in prop::collection::vec(mutation(), 1..5)) {
        check(&mutate(SEEDS[seed], &edits))?;
    }

    #[test]
    fn random_option_combinations_never_panic(opts in prop::collection::vec((any::<usize>(), any::<usize>()), 1..8)) {
        check(&job_with(&opts))?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in "(\\[[a-z]{0,3}\\]\n|[a-z_]{1,12}=[-0-9a-zA-Z:,/%.]{0,10}\n|.{0,20}\n){0,12}") {
        check(&text)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }
}
