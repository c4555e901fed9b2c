//! Each trace format on a small sample written in that exact format: exact times, directions,
//! offsets and lengths; bad lines counted with file:line, fatal with strict; compressed input.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use std::io::Write;
use std::path::PathBuf;

use host_bench::device::IoDir::{self, Read, Trim, Write as Wr};
use host_bench::trace::reader::{read_all, ReadOptions};
use host_bench::trace::{TraceError, TraceFormat, TraceReader, TraceRecord};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces").join(name)
}

fn read(name: &str, format: &str) -> Vec<TraceRecord> {
    let f = TraceFormat::parse(format).unwrap();
    let (recs, counts) = read_all(&[data(name)], &f, ReadOptions::default()).unwrap();
    assert_eq!(counts.bad_lines, 0, "{name}: {:?}", counts.first_bad_lines);
    recs
}

/// (time ns, dir, offset, len, volume)
type Row = (u64, IoDir, u64, u64, Option<u64>);

fn rows(recs: &[TraceRecord]) -> Vec<Row> {
    recs.iter().map(|r| (r.time_ns, r.dir, r.offset_bytes, r.len_bytes, r.volume)).collect()
}

#[test]
fn msr_cambridge() {
    let f = TraceFormat::Msr;
    let (recs, counts) = read_all(&[data("msr.csv")], &f, ReadOptions::default()).unwrap();
    assert_eq!(
        rows(&recs),
        vec![
            (0, Read, 7_014_609_920, 24_576, Some(1)),
            (1_332_052_600, Wr, 1_317_441_536, 8192, Some(1)),
            (2_332_061_600, Wr, 3_597_836_288, 4096, Some(0)),
        ]
    );
    // The Flush line is bad: counted, reported with file:line.
    assert_eq!(counts.bad_lines, 1);
    let b = &counts.first_bad_lines[0];
    assert_eq!(b.line, 3);
    assert!(b.file.ends_with("msr.csv") && b.message.contains("Flush"), "{b}");
    // --volume keeps one disk.
    let o = ReadOptions { volume: Some(0), ..Default::default() };
    let (recs, counts) = read_all(&[data("msr.csv")], &f, o).unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(counts.filtered, 2);
    // --strict makes the bad line fatal, naming it.
    let o = ReadOptions { strict: true, ..Default::default() };
    match read_all(&[data("msr.csv")], &f, o) {
        Err(TraceError::Strict(b)) => assert_eq!(b.line, 3),
        other => panic!("expected a strict error, got {other:?}"),
    }
}

#[test]
fn systor17() {
    assert_eq!(
        rows(&read("systor.csv", "systor")),
        vec![
            (0, Wr, 3_204_096, 4096, Some(1)),
            (184_000, Read, 147_456, 65_536, Some(0)),
            (953_000, Wr, 3_208_192, 8192, Some(1)),
        ]
    );
}

#[test]
fn tencent_cbs() {
    assert_eq!(
        rows(&read("tencent.csv", "tencent")),
        vec![
            (0, Wr, 12_345 * 512, 4096, Some(1063)),
            (0, Read, 1_048_576, 8192, Some(1063)),
            (1_000_000_000, Wr, 51_200, 512, Some(77)),
        ]
    );
}

#[test]
fn alibaba() {
    assert_eq!(
        rows(&read("alibaba.csv", "alibaba")),
        vec![
            (0, Wr, 8_317_067_264, 4096, Some(419)),
            (103_000, Read, 7_516_192_768, 16_384, Some(419)),
            (953_000, Wr, 4096, 512, Some(12)),
        ]
    );
}

#[test]
fn umass_spc() {
    assert_eq!(
        rows(&read("umass.spc", "umass")),
        vec![
            (0, Wr, 303_567 * 512, 3584, Some(0)),
            (551_000, Read, 55_590 * 512, 3072, Some(1)),
            (26_214_000, Wr, 303_574 * 512, 3584, Some(0)),
        ]
    );
}

#[test]
fn blkparse_text_q_and_d() {
    let dev = Some((8 << 20) | 16);
    assert_eq!(
        rows(&read("blkparse.txt", "blkparse")),
        vec![
            (0, Wr, 274_432 * 512, 4096, dev),
            (72_623_606, Read, 524_288, 131_072, dev),
            (72_723_606, Trim, 4_194_304, 1_048_576, dev),
        ]
    );
    assert_eq!(rows(&read("blkparse.txt", "blkparse:D")), vec![(0, Wr, 274_432 * 512, 4096, dev)]);
}

#[test]
fn mqsim_and_disksim_ascii() {
    assert_eq!(
        rows(&read("mqsim.trace", "mqsim")),
        vec![(0, Wr, 1_048_576, 4096, Some(0)), (1500, Read, 2_097_152, 8192, Some(0))]
    );
    assert_eq!(
        rows(&read("disksim.trace", "disksim")),
        vec![(0, Read, 1_048_576, 4096, Some(0)), (750_000, Wr, 51_200, 8192, Some(0))]
    );
}

#[test]
fn fio_iolog_v2_and_v3() {
    assert_eq!(
        rows(&read("fio-v2.iolog", "fio-iolog")),
        // `wait 1500`: until 1.5 s after the start (fio 3.33 waits for that many ms).
        vec![(0, Wr, 0, 4096, None), (1_500_000_000, Read, 8192, 512, None)]
    );
    // Written by fio 3.33 (fio-3.33-randrw.fio with write_iolog): times in us.
    let recs = read("fio-3.33-randrw.iolog", "fio-iolog");
    assert_eq!(recs.len(), 40);
    assert_eq!(
        rows(&recs[..2]),
        vec![(0, Read, 503_808, 12_288, None), ((81_722 - 209) * 1000, Read, 6_209_536, 45_056, None)]
    );
    let last = recs[39];
    assert_eq!(
        (last.time_ns, last.dir, last.offset_bytes, last.len_bytes),
        ((84_958 - 209) * 1000, Wr, 4_485_120, 8192)
    );
}

#[test]
fn user_described_csv() {
    let fmt = "csv:ts=1:unit=us,op=4:w=W,offset=2:unit=512,size=3:unit=512";
    assert_eq!(rows(&read("user.csv", fmt)), vec![(0, Wr, 4096, 4096, None), (250_000, Read, 8192, 512, None)]);
    for bad in [
        "csv:ts=1,op=4:w=W,offset=2",
        "csv:ts=0,op=4:w=W,offset=2,size=3",
        "csv:ts=1:unit=min,op=4:w=W,offset=2,size=3",
    ] {
        assert!(TraceFormat::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn gzip_and_zstd_streams() {
    let plain = std::fs::read(data("alibaba.csv")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("t.csv.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&plain).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let zst = dir.path().join("t.csv.zst");
    std::fs::write(&zst, zstd::encode_all(&plain[..], 3).unwrap()).unwrap();
    let want = read("alibaba.csv", "alibaba");
    for p in [gz, zst] {
        let (got, _) = read_all(std::slice::from_ref(&p), &TraceFormat::Alibaba, ReadOptions::default()).unwrap();
        assert_eq!(got, want, "{}", p.display());
    }
    // Several files are one trace, times on the first one's clock.
    let mut r =
        TraceReader::new(&[data("alibaba.csv"), data("alibaba.csv")], &TraceFormat::Alibaba, ReadOptions::default());
    let n = std::iter::from_fn(|| r.next_record().unwrap()).count();
    assert_eq!(n, 6);
}

#[test]
fn binary_blktrace_both_byte_orders() {
    // 48-byte struct blk_io_trace events (version 7), read back by blkparse 1.2.0 as
    // Q W 2048+8, F (merge), Q R 4096+128 (8-byte payload), a notify, Q D 100+2048, Q FW.
    let dev = Some((8 << 20) | 16);
    let want = vec![
        (0, Wr, 2048 * 512, 4096, dev),
        (250_000, Read, 4096 * 512, 65_536, dev),
        (2_000_000, Trim, 100 * 512, 1_048_576, dev),
    ];
    assert_eq!(rows(&read("blktrace-le.bin", "blktrace")), want);
    assert_eq!(rows(&read("blktrace-be.bin", "blktrace")), want);
    // A cut-off stream is one bad "line" (event 4 of 6), not a panic.
    let bytes = std::fs::read(data("blktrace-le.bin")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.bin");
    std::fs::write(&cut, &bytes[..48 * 3 + 8 + 20]).unwrap();
    let (recs, counts) = read_all(&[cut], &TraceFormat::Blktrace, ReadOptions::default()).unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!((counts.bad_lines, counts.first_bad_lines[0].line), (1, 4));
}
