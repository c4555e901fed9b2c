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
use std::process::Command;

mod common;
use common::{bin, disk_temp_dir, fio_or_skip, stderr};

const FILE_BYTES: u64 = 96 << 20;

/// Share of I/Os per length in a fio iolog v3.
fn length_shares(log: &Path) -> BTreeMap<u64, f64> {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if let [_, _, "write", _, len] = f.as_slice() {
            *counts.entry(len.parse().unwrap()).or_default() += 1;
        }
    }
    let n: u64 = counts.values().sum();
    assert!(n > 3000, "{}: {n} writes", log.display());
    counts.into_iter().map(|(len, c)| (len, c as f64 / n as f64)).collect()
}

#[test]
fn bsrange_lengths_as_fio_draws_them() {
    if !fio_or_skip() {
        return;
    }
    let dir = disk_temp_dir("bsrange");
    let data = dir.join("data.img");
    std::fs::File::create(&data).unwrap().set_len(FILE_BYTES).unwrap();
    let job = |log: &str| {
        format!(
            "[r]\nfilename={}\nioengine=psync\ndirect=1\nrw=randwrite\nbsrange=8k-20k\nnorandommap\nsize={FILE_BYTES}\nwrite_iolog={}\n",
            data.display(),
            dir.join(log).display()
        )
    };
    std::fs::write(dir.join("fio.fio"), job("fio.log")).unwrap();
    let out = Command::new("fio").arg(dir.join("fio.fio")).output().expect("run fio");
    assert!(out.status.success(), "fio: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.join("ssd.fio"), job("ssd.log")).unwrap();
    let out = Command::new(bin())
        .args(["run", dir.join("ssd.fio").to_str().unwrap(), "--target", data.to_str().unwrap()])
        .output()
        .expect("run ssdlab");
    assert!(out.status.success(), "ssdlab: {}", stderr(&out));

    let (fio, ssd) = (length_shares(&dir.join("fio.log")), length_shares(&dir.join("ssd.log")));
    assert_eq!(fio.keys().collect::<Vec<_>>(), ssd.keys().collect::<Vec<_>>(), "fio {fio:?}, ssdlab {ssd:?}");
    for (len, share) in &fio {
        assert!((share - ssd[len]).abs() < 0.03, "{len}: fio {share:.3}, ssdlab {:.3}", ssd[len]);
    }
    let want = [(8192, 0.4), (16384, 0.4), (20480, 0.2)];
    for (len, share) in want {
        assert!((ssd[&len] - share).abs() < 0.03, "{len}: {:.3} against {share}", ssd[&len]);
    }
}
