//! Passes that repeat, as in real fio (Debian's fio 3.33). With `randrepeat` (fio's default) a
//! job that is not time-based reseeds its generators whenever a pass ends because its offsets
//! ran out (the random map full, a sequential walk at the region's end) and another pass
//! follows (`loops`, `io_size` above `size`): that pass issues the same I/Os as the first, so
//! `loops=2` of random writes writes one permutation twice. Draws with replacement never run
//! out, and fio runs all their loops as one stream; `randrepeat=0` never reseeds. Each job runs
//! through fio and `ssdlab run --target` on the same file with `write_iolog`; the test compares
//! whether the passes repeat, and with the random map that every pass covers each block once.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::path::Path;

mod common;
use common::{fio_and_ssdlab_target, fio_scratch, iolog_ios};

/// The I/Os of `log` as (action, offset, length), cut into passes of `pass_bytes` each.
fn passes(log: &Path, pass_bytes: u64) -> Vec<Vec<(String, u64, u64)>> {
    let mut out = vec![Vec::new()];
    let mut bytes = 0;
    for io in iolog_ios(log) {
        bytes += io.2;
        out.last_mut().unwrap().push(io);
        if bytes >= pass_bytes {
            out.push(Vec::new());
            bytes = 0;
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// Whether every pass is the first one again.
fn repeats(p: &[Vec<(String, u64, u64)>]) -> bool {
    p.iter().all(|x| x == &p[0])
}

#[test]
fn passes_repeat_where_fio_reseeds_and_only_there() {
    let Some((dir, data)) = fio_scratch("loops", 1 << 20) else { return };
    // (tag, options, passes expected to repeat)
    let cases = [
        ("map-loops", "rw=randwrite\nloops=3", true),
        ("map-randrw", "rw=randrw\nloops=3", true),
        ("map-io-size", "rw=randread\nio_size=192k", true),
        ("seq-bssplit", "rw=write\nbssplit=4k/50:8k/50\nloops=3", true),
        ("norandommap", "rw=randread\nnorandommap\nloops=3", false),
        ("randrepeat-0", "rw=randread\nloops=3\nrandrepeat=0", false),
    ];
    for (tag, opts, want) in cases {
        let job = |log: &Path| {
            format!(
                "[j]\nfilename={}\nioengine=psync\ndirect=1\nbs=4k\nsize=64k\n{opts}\nwrite_iolog={}\n",
                data.display(),
                log.display()
            )
        };
        let (fio_log, ssd_log) = fio_and_ssdlab_target(&dir, &data, tag, job);
        let (fio, ssd) = (passes(&fio_log, 64 << 10), passes(&ssd_log, 64 << 10));
        assert_eq!((fio.len(), ssd.len()), (3, 3), "{tag}: passes of fio and ssdlab");
        assert_eq!((repeats(&fio), repeats(&ssd)), (want, want), "{tag}: fio {fio:?}\nssdlab {ssd:?}");
        if !opts.contains("norandommap") && opts.contains("rw=rand") {
            for p in &ssd {
                let mut blocks: Vec<u64> = p.iter().map(|io| io.1 / 4096).collect();
                blocks.sort_unstable();
                assert_eq!(blocks, (0..16).collect::<Vec<_>>(), "{tag}: a pass covers each block once");
            }
        }
    }
}
