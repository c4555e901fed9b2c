#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values
use nand_model::rng::{RngStreams, StreamId};
use std::collections::HashMap;

use host_bench::device::IoDir;
use host_bench::job::pattern::{IoPattern, NextIo, PatternError};
use host_bench::job::zipf::ZipfSampler;
use host_bench::job::{parse_str, JobSpec, ParseOptions};
use rand::RngCore;

const GIB: u64 = 1 << 30;

fn spec(body: &str) -> JobSpec {
    let text = format!("[j]\n{body}\n");
    parse_str(&text, "t.fio", &ParseOptions::default()).unwrap().jobs.remove(0)
}

fn pattern(body: &str, seed: u64, capacity: u64) -> IoPattern {
    IoPattern::new(&spec(body), 0, RngStreams::new(seed).stream(StreamId::Host, 0), capacity, 512).unwrap()
}

fn draw(p: &mut IoPattern, n: usize) -> Vec<NextIo> {
    (0..n).map(|_| p.next_io().unwrap()).collect()
}

#[test]
fn same_seed_same_sequence_other_seed_differs() {
    for body in [
        "rw=randrw\nbssplit=4k/50:64k/",
        "rw=randread\nrandom_distribution=zipf:1.1",
        "rw=randwrite\nrandom_distribution=normal:5",
        "rw=randread\nrandom_distribution=pareto:0.3",
    ] {
        let a = draw(&mut pattern(body, 7, GIB), 1000);
        let b = draw(&mut pattern(body, 7, GIB), 1000);
        let c = draw(&mut pattern(body, 8, GIB), 1000);
        assert_eq!(a, b, "{body}");
        assert_ne!(a, c, "{body}");
    }
}

#[test]
fn offsets_aligned_and_inside_region() {
    let body = "rw=randrw\nbssplit=4k/40:16k/40:128k/\noffset=1m\nsize=64m";
    let mut p = pattern(body, 1, GIB);
    assert_eq!(p.region(), (1 << 20, 64 << 20));
    for io in draw(&mut p, 100_000) {
        assert_eq!(io.offset_bytes % 4096, 0, "{io:?}");
        assert!(io.offset_bytes >= 1 << 20 && io.offset_bytes + u64::from(io.len_bytes) <= 65 << 20, "{io:?}");
    }
    let mut p = pattern("rw=randread\nbs=8k\nblockalign=64k\nrandom_distribution=zipf:0.9", 1, GIB);
    for io in draw(&mut p, 10_000) {
        assert_eq!(io.offset_bytes % 65536, 0);
        assert!(io.offset_bytes + 8192 <= GIB);
    }
}

#[test]
fn percent_region_resolves_against_capacity() {
    let p = pattern("rw=read\noffset=50%\nsize=25%", 1, GIB);
    assert_eq!(p.region(), (GIB / 2, GIB / 4));
}

#[test]
fn sequential_walks_and_wraps() {
    let mut p = pattern("rw=write\nbs=64k\nsize=256k", 1, GIB);
    let offs: Vec<u64> = draw(&mut p, 6).iter().map(|io| io.offset_bytes).collect();
    assert_eq!(offs, vec![0, 65536, 131072, 196608, 0, 65536]);
    assert!(draw(&mut p, 10).iter().all(|io| io.dir == IoDir::Write));
}

#[test]
fn uniform_covers_region_evenly() {
    let mut p = pattern("rw=randread\nbs=4k\nsize=64m", 3, GIB);
    let mut buckets = [0u32; 16];
    let n = 160_000;
    for io in draw(&mut p, n) {
        buckets[(io.offset_bytes / (4 << 20)) as usize] += 1;
    }
    let expect = n as f64 / 16.0;
    for b in buckets {
        assert!((f64::from(b) - expect).abs() < expect * 0.03, "{buckets:?}");
    }
}

#[test]
fn rwmix_and_bssplit_proportions() {
    // norandommap: with the map, fio trims I/Os at used blocks, which shifts the size mix.
    let mut p = pattern("rw=randrw\nrwmixread=70\nbssplit=4k/50:8k/30:64k/\nnorandommap", 5, GIB);
    let ios = draw(&mut p, 200_000);
    let reads = ios.iter().filter(|io| io.dir == IoDir::Read).count() as f64 / 200_000.0;
    assert!((reads - 0.7).abs() < 0.01, "{reads}");
    for (bs, share) in [(4096u32, 0.5), (8192, 0.3), (65536, 0.2)] {
        let got = ios.iter().filter(|io| io.len_bytes == bs).count() as f64 / 200_000.0;
        assert!((got - share).abs() < 0.01, "{bs}: {got}");
    }
    assert!(draw(&mut pattern("rw=randtrim", 1, GIB), 100).iter().all(|io| io.dir == IoDir::Trim));
}

/// Share of accesses that went to the `top` most popular offsets.
fn top_share(ios: &[NextIo], top: usize) -> f64 {
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for io in ios {
        *counts.entry(io.offset_bytes).or_default() += 1;
    }
    let mut c: Vec<u32> = counts.into_values().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    c.iter().take(top).map(|&x| f64::from(x)).sum::<f64>() / ios.len() as f64
}

#[test]
fn zipf_sampler_matches_theory() {
    let n = 10_000u64;
    let theta = 1.2;
    let z = ZipfSampler::new(n, theta);
    let mut rng = RngStreams::new(11).stream(StreamId::Host, 0);
    let mut hits = vec![0u32; n as usize];
    let draws = 400_000;
    for _ in 0..draws {
        let r = z.sample(|| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
        hits[r as usize] += 1;
    }
    let norm: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
    for k in [1u64, 2, 10, 100] {
        let want = (k as f64).powf(-theta) / norm;
        let got = f64::from(hits[(k - 1) as usize]) / draws as f64;
        assert!((got - want).abs() < want * 0.05 + 1e-4, "rank {k}: got {got} want {want}");
    }
}

#[test]
fn zipf_offsets_are_skewed() {
    // 16 MiB / 4 KiB = 4096 blocks; theta 1.2 puts ~68% of accesses on the top 1% (41 blocks).
    let ios = draw(&mut pattern("rw=randread\nsize=16m\nrandom_distribution=zipf:1.2", 2, GIB), 200_000);
    let share = top_share(&ios, 41);
    let norm: f64 = (1..=4096).map(|k| (k as f64).powf(-1.2)).sum();
    let want: f64 = (1..=41).map(|k| (k as f64).powf(-1.2)).sum::<f64>() / norm;
    assert!((share - want).abs() < 0.02, "share {share} want {want}");
    let uniform = top_share(&draw(&mut pattern("rw=randread\nsize=16m", 2, GIB), 200_000), 41);
    assert!(uniform < 0.02, "{uniform}");
}

#[test]
fn pareto_follows_80_20() {
    // h = 0.2: 80% of accesses go to 20% of the blocks.
    let ios = draw(&mut pattern("rw=randread\nsize=16m\nrandom_distribution=pareto:0.2", 4, GIB), 200_000);
    let share = top_share(&ios, 4096 / 5);
    assert!((share - 0.8).abs() < 0.03, "{share}");
}

#[test]
fn normal_concentrates_accesses() {
    // sigma 1% of 262144 blocks: nearly all accesses within +-3 sigma = 15729 blocks.
    let body = "rw=randread\nsize=1g\nrandom_distribution=normal:1";
    let ios = draw(&mut pattern(body, 6, GIB), 100_000);
    let distinct: std::collections::HashSet<u64> = ios.iter().map(|io| io.offset_bytes).collect();
    assert!(distinct.len() < 16_000, "{}", distinct.len());
    let ios = draw(&mut pattern("rw=randread\nsize=1g", 6, GIB), 100_000);
    let distinct: std::collections::HashSet<u64> = ios.iter().map(|io| io.offset_bytes).collect();
    assert!(distinct.len() > 80_000, "{}", distinct.len());
}

#[test]
fn zoned_puts_access_share_in_each_zone() {
    let ios = draw(&mut pattern("rw=randwrite\nsize=100m\nrandom_distribution=zoned:80/10:20/90", 9, GIB), 100_000);
    let first = ios.iter().filter(|io| io.offset_bytes < 10 << 20).count() as f64 / 1e5;
    assert!((first - 0.8).abs() < 0.01, "{first}");
    let ios = draw(&mut pattern("rw=randwrite\nrandom_distribution=zoned_abs:50/1m:50/3m\nsize=4m", 9, GIB), 100_000);
    let first = ios.iter().filter(|io| io.offset_bytes < 1 << 20).count() as f64 / 1e5;
    assert!((first - 0.5).abs() < 0.01, "{first}");
}

#[test]
fn percentage_random_mixes_sequential() {
    let seq_follow = |body: &str| {
        let ios = draw(&mut pattern(body, 1, GIB), 50_000);
        ios.windows(2).filter(|w| w[1].offset_bytes == w[0].offset_bytes + 4096).count() as f64 / 50_000.0
    };
    assert!(seq_follow("rw=randread\npercentage_random=0") > 0.99);
    assert!(seq_follow("rw=randread") < 0.01);
    let half = seq_follow("rw=randread\npercentage_random=50");
    assert!((half - 0.5).abs() < 0.03, "{half}");
}

#[test]
fn geometry_errors() {
    let e = IoPattern::new(&spec("bs=1000"), 0, RngStreams::new(1).stream(StreamId::Host, 0), GIB, 512).unwrap_err();
    assert_eq!(e, PatternError::Misaligned { job: "j".into(), what: "block size", bytes: 1000, block_bytes: 512 });
    let e = IoPattern::new(
        &spec("bs=1m\noffset=1023m\nsize=512k"),
        0,
        RngStreams::new(1).stream(StreamId::Host, 0),
        GIB,
        512,
    )
    .unwrap_err();
    assert!(matches!(e, PatternError::RegionTooSmall { .. }), "{e}");
}

/// Offsets of `n` I/Os, counted per offset.
fn hits(p: &mut IoPattern, n: usize) -> HashMap<u64, u32> {
    let mut h = HashMap::new();
    for io in draw(p, n) {
        *h.entry(io.offset_bytes).or_insert(0) += 1;
    }
    h
}

#[test]
fn random_map_hits_every_block_once_per_loop() {
    // 4 MiB / 4 KiB = 1024 blocks: each loop of 1024 I/Os is a permutation of the blocks.
    let mut p = pattern("rw=randwrite\nsize=4m", 3, GIB);
    p.set_loop_bytes(4 << 20);
    assert!(p.covers_once_per_loop());
    assert_eq!(p.map_bits(), 1024, "1 bit per block");
    let first: Vec<u64> = draw(&mut p, 1024).iter().map(|io| io.offset_bytes).collect();
    let second: Vec<u64> = draw(&mut p, 1024).iter().map(|io| io.offset_bytes).collect();
    for loop_offsets in [&first, &second] {
        let mut sorted = loop_offsets.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1024).map(|b| b * 4096).collect::<Vec<_>>());
    }
    assert_ne!(first, second, "the map is cleared per loop, the draws go on");
    // Time-based (no loop size): a full map starts a new pass by itself.
    let h = hits(&mut pattern("rw=randread\nsize=4m", 3, GIB), 3 * 1024);
    assert!(h.len() == 1024 && h.values().all(|&c| c == 3), "{}", h.len());
}

#[test]
fn norandommap_draws_with_replacement() {
    // 1024 draws from 1024 blocks with replacement leave ~1/e of them untouched.
    let p = pattern("rw=randwrite\nsize=4m\nbs=4k\nblockalign=8k", 3, GIB);
    assert!(!p.covers_once_per_loop(), "fio: any use of blockalign turns off randommap");
    for body in ["rw=randwrite\nsize=4m\nnorandommap", "rw=randwrite\nsize=4m\nrandom_distribution=zoned:50/50:50/50"] {
        let mut p = pattern(body, 3, GIB);
        assert!(!p.covers_once_per_loop(), "{body}");
        assert_eq!(p.map_bits(), 0, "{body}");
        let distinct = hits(&mut p, 1024).len() as f64 / 1024.0;
        assert!((distinct - (1.0 - (-1.0f64).exp())).abs() < 0.05, "{body}: {distinct}");
    }
}

#[test]
fn lfsr_covers_each_block_once_without_a_map() {
    let mut p = pattern("rw=randread\nsize=4m\nbs=8k\nrandom_generator=lfsr", 5, GIB);
    p.set_loop_bytes(4 << 20);
    assert!(p.covers_once_per_loop());
    assert_eq!(p.map_bits(), 0);
    let first: Vec<u64> = draw(&mut p, 512).iter().map(|io| io.offset_bytes).collect();
    let mut sorted = first.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..512).map(|b| b * 8192).collect::<Vec<_>>());
    let followers = first.windows(2).filter(|w| w[1] == w[0] + 8192).count();
    assert!(followers < 20, "scrambled, not sequential: {followers}");
    // fio resets its LFSR to the same seed each loop.
    let second: Vec<u64> = draw(&mut p, 512).iter().map(|io| io.offset_bytes).collect();
    assert_eq!(first, second);
}

#[test]
fn random_map_trims_mixed_sizes_to_free_runs() {
    // fio marks an I/O's blocks and trims it at the first block already used: per loop the
    // bytes add up to the region and no byte is written twice.
    let mut p = pattern("rw=randwrite\nsize=8m\nbssplit=4k/50:64k/50", 7, GIB);
    p.set_loop_bytes(8 << 20);
    let mut covered = vec![0u8; 2048];
    let mut bytes = 0u64;
    while bytes < 8 << 20 {
        let io = p.next_io().unwrap();
        bytes += u64::from(io.len_bytes);
        for b in io.offset_bytes / 4096..(io.offset_bytes + u64::from(io.len_bytes)) / 4096 {
            covered[b as usize] += 1;
        }
    }
    assert_eq!(bytes, 8 << 20);
    assert!(covered.iter().all(|&c| c == 1));
}

#[test]
fn random_map_leaves_sequential_share_unmarked() {
    // percentage_random: random draws never repeat within a pass, while the sequential I/Os do
    // not use up blocks (fio issues them "busy ok"), so random draws land on them too.
    let mut p = pattern("rw=randwrite\nsize=4m\npercentage_random=50", 3, GIB);
    let ios = draw(&mut p, 1024);
    let (mut random, mut sequential) = (Vec::new(), std::collections::HashSet::new());
    for w in ios.windows(2) {
        let (prev, io) = (w[0].offset_bytes, w[1].offset_bytes);
        if io == prev + 4096 {
            sequential.insert(io);
        } else if io != 0 {
            random.push(io);
        }
    }
    let distinct: std::collections::HashSet<u64> = random.iter().copied().collect();
    assert!(random.len() > 300, "{}", random.len());
    assert_eq!(distinct.len(), random.len(), "random draws never repeat within the pass");
    let on_sequential = random.iter().filter(|o| sequential.contains(o)).count();
    assert!(on_sequential > 50, "{on_sequential}");
}

/// A size-based job's I/Os as the runner issues them on a 16 MiB file: the pattern's loops,
/// bytes up to size (or io_size) x loops. Each I/O as direction letter and 4 KiB block
/// relative to `base`.
fn job_blocks(body: &str, base: u64) -> Vec<String> {
    let spec = spec(body);
    let mut p = IoPattern::new(&spec, 0, RngStreams::new(1).stream(StreamId::Host, 0), 16 << 20, 512).unwrap();
    let per_loop = spec.io_size.map_or(p.region().1, |s| s.resolve(16 << 20, 512));
    p.set_loop_bytes(per_loop);
    p.set_loops(spec.loops, spec.io_size.is_some());
    let (mut out, mut bytes) = (Vec::new(), 0);
    while bytes < per_loop * u64::from(spec.loops) {
        let Some(io) = p.next_io() else { break };
        bytes += u64::from(io.len_bytes);
        let d = match io.dir {
            IoDir::Read => 'r',
            IoDir::Write => 'w',
            IoDir::Trim => 't',
        };
        out.push(format!("{d}{}", (io.offset_bytes - base) / 4096));
    }
    out
}

fn blocks(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

#[test]
fn offset_modifiers_walk_as_fio_does() {
    // Sequences from fio 3.33's write_iolog for the same job on a 16 MiB file.
    let m = 1 << 20;
    assert_eq!(job_blocks("rw=write:4k\nbs=4k\nsize=64k", 0), blocks("w0 w2 w4 w6 w8 w10 w12 w14"));
    assert_eq!(
        job_blocks("rw=read:-8k\nbs=4k\nsize=64k", 0),
        blocks("r0 r14 r13 r12 r11 r10 r9 r8 r7 r6 r5 r4 r3 r2 r1 r0")
    );
    assert_eq!(
        job_blocks("rw=read:-8k\nbs=4k\nsize=64k\noffset=1m", m),
        blocks("r14 r13 r12 r11 r10 r9 r8 r7 r6 r5 r4 r3 r2 r1 r0 r14"),
        "from a nonzero offset fio first rewinds to size, then steps back"
    );
    assert_eq!(job_blocks("rw=write:8k\nbs=4k\nsize=64k\noffset=1m", m), blocks("w0 w3 w6 w9 w12 w15"));
    assert_eq!(
        job_blocks("rw=write:8k\nbs=4k\nsize=64k\noffset=1m\nloops=2", m),
        blocks("w0 w3 w6 w9 w12 w15 w0 w3 w6 w9 w12 w15"),
        "a loop that runs off the region ends early; the next loop starts over"
    );
    assert_eq!(
        job_blocks("rw=write:4k\nbs=4k\nsize=32k\nio_size=64k", 0),
        blocks("w0 w2 w4 w6 w0 w2 w4 w6 w0 w2 w4 w6 w0 w2 w4 w6"),
        "with io_size the job makes new passes until io_size is done"
    );
    assert_eq!(job_blocks("rw=write\nbs=4k\nsize=32k\nnumber_ios=16", 0).len(), 8, "fio stops at the region end");
}

#[test]
fn mixed_sequential_directions_keep_their_own_positions() {
    let ios = job_blocks("rw=rw\nbs=4k\nsize=256k", 0);
    for d in ['r', 'w'] {
        let mine: Vec<u64> = ios.iter().filter(|s| s.starts_with(d)).map(|s| s[1..].parse().unwrap()).collect();
        assert!(mine.len() > 20, "{ios:?}");
        assert_eq!(mine, (0..mine.len() as u64).collect::<Vec<_>>(), "{d}: each direction walks from 0");
    }
}

#[test]
fn random_offset_every_nth_io() {
    // rw=randread:4: three sequential I/Os (fio starts them at the region start), then a random one.
    let ios = job_blocks("rw=randread:4\nbs=4k\nsize=8m", 0);
    let b: Vec<u64> = ios.iter().map(|s| s[1..].parse().unwrap()).collect();
    assert_eq!(&b[..3], &[0, 1, 2]);
    let jumps: Vec<usize> = (1..b.len().min(4000)).filter(|&i| b[i] != b[i - 1] + 1).collect();
    assert!(jumps.len() > 20, "{}", jumps.len());
    // As in fio, a sequential follower that reaches the region end ends the job early.
    assert!(b.len() == 2048 || *b.last().unwrap() == 2047, "{} I/Os, last {:?}", b.len(), b.last());
    let odd: Vec<&usize> = jumps.iter().filter(|&&i| (i + 1) % 4 != 0).collect();
    assert!(
        odd.is_empty(),
        "only every 4th I/O jumps: {:?} {:?}",
        &odd[..odd.len().min(5)],
        odd.first().map(|&&i| &b[i - 4..i + 2])
    );
    // rw_sequencer=identical: the I/Os in between repeat the previous offset.
    let ios = job_blocks("rw=randread:4\nrw_sequencer=identical\nbs=4k\nsize=8m", 0);
    assert_eq!(&ios[..3], &blocks("r0 r0 r0")[..]);
    assert_eq!(ios.len(), 2048, "identical followers never reach the region end");
    for run in ios[3..].chunks(4).take(500) {
        assert!(run.iter().all(|s| *s == run[0]), "{run:?}");
    }
}

#[test]
fn strided_zones_as_fio_walks_them() {
    let z = "zonemode=strided\nbs=4k\n";
    let seq: Vec<String> = (0..16).flat_map(|k| (0..4).map(move |i| format!("r{}", 16 * k + i))).collect();
    assert_eq!(job_blocks(&format!("{z}rw=read\nzonesize=16k\nzonerange=64k\nsize=256k"), 0), seq);
    // zonesize above zonerange: each zone's range is read again until zonesize is done.
    let again: Vec<String> =
        (0..4).flat_map(|k| (0..4).flat_map(move |_| (0..4).map(move |i| format!("r{}", 4 * k + i)))).collect();
    assert_eq!(job_blocks(&format!("{z}rw=read\nzonesize=64k\nzonerange=16k\nsize=256k"), 0), again);
    // zoneskip, and the wrap back to offset at the end of the device.
    let skip =
        job_blocks(&format!("{z}rw=write\nbs=1m\nzonesize=1m\nzonerange=2m\nzoneskip=2m\nsize=8m\noffset=4m"), 4 << 20);
    assert_eq!(
        skip.iter().map(|s| s[1..].parse::<u64>().unwrap() / 256).collect::<Vec<_>>(),
        vec![0, 4, 8, 0, 4, 8, 0, 4]
    );
    // Random: the map works per zone range, so each zone gets distinct blocks of its own.
    let ios = job_blocks(&format!("{z}rw=randread\nzonesize=16k\nzonerange=64k\nsize=256k"), 0);
    for (k, zone) in ios.chunks(4).enumerate() {
        let b: std::collections::BTreeSet<u64> = zone.iter().map(|s| s[1..].parse().unwrap()).collect();
        assert_eq!(b.len(), 4, "{zone:?}");
        assert!(b.iter().all(|&x| x / 16 == k as u64), "zone {k}: {zone:?}");
    }
}
