//! I/O sizes drawn as real fio (Debian's fio 3.33) draws them. `bsrange`: min + max x U,
//! aligned down to a multiple of min and capped at max. Both run the same random-write job on
//! the same file with `write_iolog`; the share of each length agrees within 3 points, and the
//! lengths used are the same set. With 8k-20k that is 8k 40%, 16k 40%, 20k 20% (not a uniform
//! pick of the range). Sizes that vary are drawn after the offset, from those that fit before
//! the region's end (fio's `fill_io_u` and `get_next_buflen`), which changes both the sizes
//! near the end and how many I/Os a random-map pass takes.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)] // test code; shares of a few thousand I/Os

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod common;
use common::{fio_and_ssdlab_target, fio_scratch, iolog_ios, TestDir};

const FILE_BYTES: u64 = 96 << 20;

/// Share of I/Os per length in a fio iolog v3.
fn length_shares(log: &Path) -> BTreeMap<u64, f64> {
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for (_, _, len) in iolog_ios(log).into_iter().filter(|(act, ..)| act == "write") {
        *counts.entry(len).or_default() += 1;
    }
    let n: u64 = counts.values().sum();
    assert!(n > 3000, "{}: {n} writes", log.display());
    counts.into_iter().map(|(len, c)| (len, c as f64 / n as f64)).collect()
}

/// Runs the job `[r]` with `opts` (psync, O_DIRECT, `write_iolog`) through fio and `ssdlab run
/// --target` on a scratch file of `file_bytes`: the directory holding them, fio's log and
/// ssdlab's. `None` when fio is missing and the test may skip.
fn both_logs(tag: &str, file_bytes: u64, opts: &str) -> Option<(TestDir, PathBuf, PathBuf)> {
    let (dir, data) = fio_scratch(tag, file_bytes)?;
    let job = |log: &Path| {
        format!("[r]\nfilename={}\nioengine=psync\ndirect=1\n{opts}\nwrite_iolog={}\n", data.display(), log.display())
    };
    let (fio_log, ssd_log) = fio_and_ssdlab_target(&dir, &data, tag, job);
    Some((dir, fio_log, ssd_log))
}

#[test]
fn bsrange_lengths_as_fio_draws_them() {
    let opts = format!("rw=randwrite\nbsrange=8k-20k\nnorandommap\nsize={FILE_BYTES}");
    let Some((_dir, fio_log, ssd_log)) = both_logs("bsrange", FILE_BYTES, &opts) else { return };
    let (fio, ssd) = (length_shares(&fio_log), length_shares(&ssd_log));
    assert_eq!(fio.keys().collect::<Vec<_>>(), ssd.keys().collect::<Vec<_>>(), "fio {fio:?}, ssdlab {ssd:?}");
    for (len, share) in &fio {
        assert!((share - ssd[len]).abs() < 0.03, "{len}: fio {share:.3}, ssdlab {:.3}", ssd[len]);
    }
    let want = [(8192, 0.4), (16384, 0.4), (20480, 0.2)];
    for (len, share) in want {
        assert!((ssd[&len] - share).abs() < 0.03, "{len}: {:.3} against {share}", ssd[&len]);
    }
}

/// Share of the I/Os of `log` whose length is `len`, and whether every I/O ends within `end`.
fn share_and_bound(log: &Path, len: u64, end: u64) -> (f64, bool) {
    let ios = iolog_ios(log);
    assert!(ios.len() > 2000, "{}: {} I/Os", log.display(), ios.len());
    let n = ios.iter().filter(|(_, _, l)| *l == len).count();
    (n as f64 / ios.len() as f64, ios.iter().all(|(_, off, l)| off + l <= end))
}

#[test]
fn a_size_is_drawn_after_the_offset_and_fits_before_the_regions_end() {
    // 128 KiB, sizes 4k or 64k at 50% each, offsets drawn over the 32 4k blocks: fio takes 64k
    // only at the 17 offsets where it fits (26.6% of I/Os); a size drawn first (the
    // offset then drawn where it fits) would give 50%.
    let Some((_dir, fio_log, ssd_log)) = both_logs(
        "bssplit-fit",
        1 << 20,
        "rw=randread\nbssplit=4k/50:64k/50\nnorandommap\nsize=128k\nio_size=1g\nnumber_ios=4000",
    ) else {
        return;
    };
    let ((fio, fio_in), (ssd, ssd_in)) =
        (share_and_bound(&fio_log, 65536, 128 << 10), share_and_bound(&ssd_log, 65536, 128 << 10));
    assert!(fio_in && ssd_in, "an I/O past the region: fio {fio_in}, ssdlab {ssd_in}");
    assert!((fio - ssd).abs() < 0.03, "64k share: fio {fio:.3}, ssdlab {ssd:.3}");
    assert!((ssd - 17.0 / 64.0).abs() < 0.03, "64k share {ssd:.3} against 0.266");
}

#[test]
fn a_random_map_pass_takes_as_many_ios_as_in_fio() {
    // 1 MiB under the random map, sizes 4k or 64k: a 64k I/O is cut at the first block already
    // used, so a pass takes more than size / mean size I/Os; how many depends on where sizes are
    // drawn (fio 3.33: 60 per pass on average, 52 when the size was drawn before the offset).
    // 400 loops with randrepeat=0 (fio repeats a loop's draws otherwise) give the mean to ~1%.
    let Some((_dir, fio_log, ssd_log)) =
        both_logs("bssplit-map", 1 << 20, "rw=randread\nbssplit=4k/50:64k/50\nsize=1m\nloops=400\nrandrepeat=0")
    else {
        return;
    };
    let per_pass = |log: &Path| {
        let ios = iolog_ios(log);
        assert_eq!(ios.iter().map(|io| io.2).sum::<u64>(), 400 << 20, "{}: bytes", log.display());
        ios.len() as f64 / 400.0
    };
    let (fio, ssd) = (per_pass(&fio_log), per_pass(&ssd_log));
    assert!((ssd / fio - 1.0).abs() < 0.05, "I/Os per pass: fio {fio:.1}, ssdlab {ssd:.1}");
}

#[test]
fn a_size_that_does_not_fit_gives_way_to_the_next_entry_in_fios_order() {
    // fio sorts a bssplit by percentage (64k/10, 4k/30, 16k/60 here) and a drawn size that does
    // not fit falls to the next entry that does. On 80 KiB (20 blocks of 4k; 64k fits at 5
    // offsets, 16k at 17): 64k 2.5%, 16k 51%, 4k 46.5%. In the order written (64k, 16k, 4k) a
    // 64k that does not fit would become 16k: 16k 57%.
    let Some((_dir, fio_log, ssd_log)) = both_logs(
        "bssplit-order",
        1 << 20,
        "rw=randread\nbssplit=64k/10:16k/60:4k/30\nnorandommap\nsize=80k\nio_size=1g\nnumber_ios=20000",
    ) else {
        return;
    };
    for (len, want) in [(65536, 0.025), (16384, 0.51), (4096, 0.465)] {
        let ((fio, _), (ssd, in_region)) =
            (share_and_bound(&fio_log, len, 80 << 10), share_and_bound(&ssd_log, len, 80 << 10));
        assert!(in_region, "ssdlab: an I/O past the region");
        assert!(
            (fio - want).abs() < 0.015 && (ssd - want).abs() < 0.015,
            "{len}: fio {fio:.3}, ssdlab {ssd:.3}, want {want}"
        );
    }
}
