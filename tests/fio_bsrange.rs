//! `bsrange` draws lengths as real fio (Debian's fio 3.33) does: min + max x U, aligned down to a
//! multiple of min and capped at max. Both run the same random-write job on the same file with
//! `write_iolog`; the share of each length agrees within 3 points, and the lengths used are the
//! same set. With 8k-20k that is 8k 40%, 16k 40%, 20k 20% (not a uniform pick of the range).
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)] // test code; shares of a few thousand I/Os

use std::collections::BTreeMap;
use std::path::Path;

mod common;
use common::{fio_and_ssdlab_target, fio_scratch, iolog_ios};

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

#[test]
fn bsrange_lengths_as_fio_draws_them() {
    let Some((dir, data)) = fio_scratch("bsrange", FILE_BYTES) else { return };
    let job = |log: &Path| {
        format!(
            "[r]\nfilename={}\nioengine=psync\ndirect=1\nrw=randwrite\nbsrange=8k-20k\nnorandommap\nsize={FILE_BYTES}\nwrite_iolog={}\n",
            data.display(),
            log.display()
        )
    };
    let (fio_log, ssd_log) = fio_and_ssdlab_target(&dir, &data, "r", job);
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
