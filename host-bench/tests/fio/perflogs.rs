//! fio's bandwidth, IOPS and latency logs: names, line format and averaging (formats as
//! fio 3.33 writes them: `msec, value, direction, bs, priority`).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use std::cell::RefCell;
use std::collections::BTreeMap;

use host_bench::device::IoDir;
use host_bench::job::{parse_str, ParseOptions};
use host_bench::report::fio_logs::FioLogs;
use host_bench::runner::CompletedIo;

fn io(job: u32, clone: u32, submit_us: u64, complete_us: u64, dir: IoDir, len: u32) -> CompletedIo {
    CompletedIo {
        job,
        clone,
        submit_ns: submit_us * 1000,
        complete_ns: complete_us * 1000,
        dir,
        len_bytes: len,
        offset_bytes: 0,
    }
}

thread_local! {
    static FILES: RefCell<BTreeMap<String, String>> = RefCell::default();
}

/// A writer appending to this thread's map under its file name.
struct Captured(String);

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        FILES.with(|f| f.borrow_mut().entry(self.0.clone()).or_default().push_str(std::str::from_utf8(b).unwrap()));
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The files a job file's logs hold after `ios`, by name.
fn logs(text: &str, ios: &[CompletedIo]) -> BTreeMap<String, String> {
    FILES.with(|f| f.borrow_mut().clear());
    let file = parse_str(text, "t.fio", &ParseOptions::default()).unwrap();
    let mut l = FioLogs::create(&file, |p| {
        FILES.with(|f| f.borrow_mut().insert(p.to_string(), String::new()));
        Ok(Captured(p.to_string()))
    })
    .unwrap();
    l.record(ios).unwrap();
    l.finish().unwrap();
    FILES.with(|f| f.borrow().clone())
}

#[test]
fn per_io_lines_and_fio_file_names() {
    let ios = [
        io(0, 0, 0, 100, IoDir::Read, 4096),
        io(0, 1, 1500, 1700, IoDir::Write, 8192),
        io(1, 0, 2_000, 2_500, IoDir::Read, 4096),
    ];
    let text = "[a]\nnumjobs=2\nwrite_bw_log=x\nwrite_iops_log\nwrite_lat_log=x\n[b]\nwrite_bw_log=x\nlog_prio=1\n";
    let f = logs(text, &ios);
    let names: Vec<&str> = f.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "a_iops.1.log",
            "a_iops.2.log",
            "x_bw.1.log",
            "x_bw.2.log",
            "x_bw.3.log",
            "x_clat.1.log",
            "x_clat.2.log",
            "x_lat.1.log",
            "x_lat.2.log",
            "x_slat.1.log",
            "x_slat.2.log"
        ],
        "N counts job instances; a bare write_iops_log takes the job's name"
    );
    // bw = bytes x 10^6 / clat ns (fio's add_bw_sample); times in ms of job time.
    assert_eq!(f["x_bw.1.log"], "0, 40960, 0, 4096, 0\n");
    assert_eq!(f["x_bw.2.log"], "1, 40960, 1, 8192, 0\n");
    assert_eq!(f["x_bw.3.log"], "2, 8192, 0, 4096, 0x0000\n", "log_prio prints the priority in hex");
    assert_eq!(f["a_iops.2.log"], "1, 1, 1, 8192, 0\n");
    assert_eq!(f["x_clat.2.log"], "1, 200000, 1, 8192, 0\n");
    assert_eq!(f["x_lat.2.log"], f["x_clat.2.log"], "slat is 0 here");
    assert_eq!(f["x_slat.2.log"], "1, 0, 1, 8192, 0\n", "at submission time");
    let f = logs("[a]\nnumjobs=2\nwrite_iops_log=y\nper_job_logs=0\n", &ios[..2]);
    assert_eq!(f.keys().collect::<Vec<_>>(), ["y_iops.log"]);
    assert_eq!(f["y_iops.log"], "0, 1, 0, 4096, 0\n1, 1, 1, 8192, 0\n");
}

#[test]
fn averaged_windows_as_fio_writes_them() {
    // 4 KiB reads every 100 ms, clat alternating 1 and 3 ms; writes only in the second window.
    let mut ios: Vec<CompletedIo> = (0..12)
        .map(|k| {
            let c = 100_000 * (k + 1);
            io(0, 0, c - if k % 2 == 0 { 1_000 } else { 3_000 }, c, IoDir::Read, 4096)
        })
        .collect();
    ios.insert(6, io(0, 0, 640_000, 650_000, IoDir::Write, 65536));
    let f = logs("[a]\nwrite_bw_log=a\nwrite_iops_log=a\nwrite_lat_log=a\nlog_avg_msec=500\n", &ios);
    // Bandwidth and IOPS at each multiple of the window; the last, partial window is dropped.
    // (Reads complete at 100, 200, ... 1200 ms: four in [0, 500), five in [500, 1000).)
    assert_eq!(f["a_bw.1.log"], "500, 32, 0, 0, 0\n1000, 40, 0, 0, 0\n1000, 128, 1, 0, 0\n");
    assert_eq!(f["a_iops.1.log"], "500, 8, 0, 0, 0\n1000, 10, 0, 0, 0\n1000, 2, 1, 0, 0\n");
    // Latency: the mean (rounded) of the samples until one lands a window after the last line,
    // then once more at the end.
    assert_eq!(
        f["a_clat.1.log"],
        "500, 1800000, 0, 0, 0\n650, 10000000, 1, 0, 0\n1000, 2200000, 0, 0, 0\n1200, 2000000, 0, 0, 0\n"
    );
    let f = logs("[a]\nwrite_lat_log=a\nlog_avg_msec=500\nlog_max_value=1\n", &ios);
    assert!(f["a_clat.1.log"].starts_with("500, 3000000, 0, 0, 0\n"), "{}", f["a_clat.1.log"]);
}

#[test]
fn log_offset_puts_the_offset_before_the_priority() {
    let mut ios = [io(0, 0, 0, 100, IoDir::Read, 4096), io(0, 0, 600_000, 700_000, IoDir::Write, 8192)];
    ios[0].offset_bytes = 1 << 20;
    ios[1].offset_bytes = 12_288;
    let f = logs("[a]\nwrite_bw_log=a\nlog_offset=1\nlog_prio=1\n", &ios);
    assert_eq!(f["a_bw.1.log"], "0, 40960, 0, 4096, 1048576, 0x0000\n700, 81, 1, 8192, 12288, 0x0000\n");
    // Averaged lines: fio logs no offset there (0), nor a block size.
    let f = logs("[a]\nwrite_iops_log=a\nlog_offset=1\nlog_avg_msec=500\n", &ios);
    assert_eq!(f["a_iops.1.log"], "500, 2, 0, 0, 0, 0\n");
}
