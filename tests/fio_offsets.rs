//! `offset_increment` and `offset_align` place `numjobs` clones as real fio (Debian's fio 3.33)
//! does: clone i starts at offset + i x increment, and a percentage (of the file) is aligned up
//! to offset_align or the job's smallest block size. Both write the same jobs to the same file
//! with `write_iolog`; the (offset, length) of every write are the same set.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in test code is a failed test

use std::path::Path;

mod common;
use common::{fio_and_ssdlab_target, fio_scratch, iolog_ios};

const FILE_BYTES: u64 = 64 << 20;

/// (offset, length) of every write in a fio iolog v3, sorted.
fn writes(log: &Path) -> Vec<(u64, u64)> {
    let mut w: Vec<(u64, u64)> =
        iolog_ios(log).into_iter().filter(|(act, ..)| act == "write").map(|(_, off, len)| (off, len)).collect();
    w.sort_unstable();
    w
}

#[test]
fn numjobs_clones_start_where_fio_starts_them() {
    let Some((dir, data)) = fio_scratch("offsets", FILE_BYTES) else { return };
    let cases = [
        // Percentages: 10% of 64 MiB is no multiple of 12 KiB, so fio aligns each start up.
        ("pct", "rw=write\nbs=12k\nsize=120k\nnumjobs=3\noffset=10%\noffset_increment=20%\n"),
        ("align", "rw=write\nbs=4k\nsize=64k\nnumjobs=2\noffset=7%\noffset_increment=1m\noffset_align=64k\n"),
        ("bytes", "rw=randwrite\nbs=64k\nsize=256k\nnumjobs=4\noffset=1m\noffset_increment=4m\n"),
    ];
    for (name, body) in cases {
        let job = |log: &Path| {
            format!(
                "[{name}]\nfilename={}\nioengine=psync\ndirect=1\n{body}write_iolog={}\n",
                data.display(),
                log.display()
            )
        };
        let (fio_log, ssd_log) = fio_and_ssdlab_target(&dir, &data, name, job);
        let (f, s) = (writes(&fio_log), writes(&ssd_log));
        assert!(f.len() >= 16, "{name}: {} writes", f.len());
        assert_eq!(s, f, "{name}");
    }
}
