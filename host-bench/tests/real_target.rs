//! RealTarget on plain files in the temp dir: data round trips, request checks, destroy
//! refusal, verify, and both engines. io_uring-only tests skip with a note where io_uring is
//! unavailable; the psync engine is always tested.
#![allow(clippy::cast_possible_truncation)] // casts are of the test's own small values

use std::fs::{self, OpenOptions};
use std::io::{Seek, SeekFrom, Write};

use host_bench::device::{Device, DeviceError, IoDir, IoRequest};
use host_bench::real::verify::{check_block, Fault};
use host_bench::real::{io_uring_available, EngineChoice, EngineKind, RealError, RealOptions, RealTarget, TargetKind};

mod tmp;
use tmp::TempPath;

const BLOCK: u64 = 4096;

/// A file path in a fresh temporary directory, removed with it on drop.
struct TempFile(TempPath);

impl TempFile {
    fn new(name: &str) -> Self {
        TempFile(TempPath::new(name))
    }
}

fn engines() -> Vec<EngineChoice> {
    let mut v = vec![EngineChoice::Psync];
    if io_uring_available() {
        v.push(EngineChoice::IoUring);
    } else {
        println!("note: io_uring unavailable here; testing the psync engine only");
    }
    v
}

fn options(f: &TempFile, engine: EngineChoice, size: u64) -> RealOptions {
    let mut o = RealOptions::new(&*f.0);
    // These tests count in 4 KiB blocks; a file's default block is the kernel's O_DIRECT
    // alignment, often 512 (`a_files_default_block_is_the_kernels_direct_io_alignment`).
    o.logical_block_bytes = Some(BLOCK as u32);
    o.engine = engine;
    o.size_bytes = Some(size);
    o.queue_depth = 8;
    o.max_block_bytes = 64 * 1024;
    o
}

fn req(tag: u64, dir: IoDir, block: u64, blocks: u32) -> IoRequest {
    IoRequest { tag, dir, offset_bytes: block * BLOCK, len_bytes: blocks * BLOCK as u32 }
}

/// Waits for everything outstanding, returning the tags seen.
fn drain(t: &mut RealTarget) -> Vec<u64> {
    let mut tags = Vec::new();
    while t.outstanding() > 0 {
        match t.wait(None) {
            Ok(Some(c)) => tags.push(c.tag),
            Ok(None) => break,
            Err(e) => panic!("I/O failed: {e}"),
        }
    }
    tags
}

#[test]
fn write_then_read_back_lands_data_and_round_trips_tags() {
    for engine in engines() {
        let f = TempFile::new("roundtrip");
        let mut o = options(&f, engine, 256 * BLOCK);
        o.verify = true;
        let mut t = RealTarget::open(o).expect("open");
        assert_eq!(t.info().capacity_bytes, 256 * BLOCK);
        assert_eq!(t.info().kind, "real");
        assert_eq!(t.description().kind, TargetKind::File);
        for i in 0..32u64 {
            t.submit(req(1000 + i, IoDir::Write, i * 4, 1 + (i % 4) as u32)).expect("submit write");
        }
        let mut tags = drain(&mut t);
        tags.sort_unstable();
        assert_eq!(tags, (1000..1032).collect::<Vec<_>>(), "{engine:?}");
        for i in 0..32u64 {
            t.submit(req(i, IoDir::Read, i * 4, 4)).expect("submit read");
        }
        assert_eq!(drain(&mut t).len(), 32);
        let rep = t.verify_report().expect("verify on").clone();
        assert_eq!(rep.mismatches, 0, "{engine:?}: {rep:?}");
        assert_eq!(rep.blocks_checked, (0..32u64).map(|i| 1 + i % 4).sum::<u64>());
        drop(t);
        // The data really is in the file: block i*4 was written by the (i+1)-th write, seq i+1.
        let data = fs::read(&*f.0).expect("read file");
        for i in 0..32u64 {
            let b = (i * 4) as usize * BLOCK as usize;
            assert_eq!(check_block(&data[b..b + BLOCK as usize], i * 4, i as u32 + 1), Ok(()));
        }
    }
}

#[test]
fn out_of_range_misaligned_and_oversize_are_refused() {
    let f = TempFile::new("range");
    let mut t = RealTarget::open(options(&f, EngineChoice::Auto, 16 * BLOCK)).expect("open");
    let r = t.submit(req(0, IoDir::Write, 15, 2));
    assert!(matches!(r, Err(DeviceError::OutOfRange { .. })), "{r:?}");
    let r = t.submit(IoRequest { tag: 0, dir: IoDir::Read, offset_bytes: u64::MAX - 4095, len_bytes: 8192 });
    assert!(matches!(r, Err(DeviceError::OutOfRange { .. })), "{r:?}");
    let r = t.submit(IoRequest { tag: 0, dir: IoDir::Read, offset_bytes: 512, len_bytes: 4096 });
    assert!(matches!(r, Err(DeviceError::Misaligned { .. })), "{r:?}");
    let r = t.submit(IoRequest { tag: 0, dir: IoDir::Read, offset_bytes: 0, len_bytes: 100 });
    assert!(matches!(r, Err(DeviceError::Misaligned { .. })), "{r:?}");
    let r = t.submit(IoRequest { tag: 0, dir: IoDir::Read, offset_bytes: 0, len_bytes: 0 });
    assert!(matches!(r, Err(DeviceError::Misaligned { .. })), "{r:?}");
    let r = t.submit(req(0, IoDir::Read, 0, 16)); // 64 KiB: equals max_block_bytes, fine
    assert!(r.is_ok(), "{r:?}");
    drain(&mut t);
    assert_eq!(t.outstanding(), 0);
}

#[test]
fn window_offset_shifts_every_io_and_reads_outside_are_refused() {
    let f = TempFile::new("window");
    let mut o = options(&f, EngineChoice::Auto, 8 * BLOCK);
    o.offset_bytes = 4 * BLOCK;
    o.verify = true;
    let mut t = RealTarget::open(o).expect("open");
    t.submit(req(7, IoDir::Write, 0, 1)).expect("write");
    drain(&mut t);
    assert!(matches!(t.submit(req(0, IoDir::Write, 8, 1)), Err(DeviceError::OutOfRange { .. })));
    drop(t);
    let data = fs::read(&*f.0).expect("read");
    assert_eq!(data.len() as u64, 12 * BLOCK);
    assert!(data[..4 * BLOCK as usize].iter().all(|&b| b == 0), "nothing before the window");
    assert_eq!(check_block(&data[4 * BLOCK as usize..5 * BLOCK as usize], 0, 1), Ok(()));
}

#[test]
fn device_like_file_with_ext4_superblock_is_refused_unless_allow_destroy() {
    let f = TempFile::new("ext4");
    let mut img = vec![0u8; 64 * BLOCK as usize];
    img[1080] = 0x53;
    img[1081] = 0xEF;
    fs::write(&*f.0, &img).expect("write image");
    let mut o = options(&f, EngineChoice::Auto, 64 * BLOCK);
    o.device_like = true;
    match RealTarget::open(o.clone()) {
        Err(RealError::Refused { reason, path }) => {
            assert!(reason.contains("ext"), "{reason}");
            assert_eq!(path, *f.0);
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("an ext4 image was opened for writing without allow_destroy"),
    }
    let msg = RealTarget::open(o.clone()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains(&f.0.display().to_string()) && msg.contains("allow_destroy"), "{msg}");
    // Read-only opens are harmless and allowed.
    let mut ro = o.clone();
    ro.writable = false;
    assert!(RealTarget::open(ro).is_ok());
    // Explicit consent, or a plain (non-device-like) file: allowed.
    let mut ok = o.clone();
    ok.allow_destroy = true;
    assert!(RealTarget::open(ok).is_ok());
    o.device_like = false;
    assert!(RealTarget::open(o).is_ok());
}

#[test]
fn blank_device_like_file_is_accepted() {
    let f = TempFile::new("blank");
    fs::write(&*f.0, vec![0u8; 64 * BLOCK as usize]).expect("write");
    let mut o = options(&f, EngineChoice::Auto, 64 * BLOCK);
    o.device_like = true;
    assert!(RealTarget::open(o).is_ok());
}

#[test]
fn verify_reports_corruption_written_behind_the_targets_back() {
    for engine in engines() {
        let f = TempFile::new("corrupt");
        let mut o = options(&f, engine, 64 * BLOCK);
        o.verify = true;
        let mut t = RealTarget::open(o).expect("open");
        for i in 0..16u64 {
            t.submit(req(i, IoDir::Write, i * 4, 4)).expect("write");
        }
        drain(&mut t);
        {
            let mut raw = OpenOptions::new().write(true).open(&*f.0).expect("open raw");
            raw.seek(SeekFrom::Start(5 * BLOCK + 100)).expect("seek");
            raw.write_all(b"garbage garbage garbage").expect("corrupt");
            raw.seek(SeekFrom::Start(9 * BLOCK)).expect("seek");
            raw.write_all(&[0u8; 8]).expect("wipe magic");
            raw.sync_all().expect("sync");
        }
        for i in 0..16u64 {
            t.submit(req(i, IoDir::Read, i * 4, 4)).expect("read");
        }
        drain(&mut t);
        let rep = t.verify_report().expect("verify on").clone();
        assert_eq!(rep.mismatches, 2, "{engine:?}: {rep:?}");
        let mut lbas: Vec<(u64, Fault)> = rep.first.iter().map(|m| (m.lba, m.fault)).collect();
        lbas.sort_by_key(|x| x.0);
        assert_eq!(lbas, vec![(5, Fault::BadChecksum), (9, Fault::BadMagic)]);
        let err = rep.to_result().expect_err("mismatches reported");
        assert!(err.contains("lba 5"), "{err}");
    }
}

#[test]
fn clean_random_mixed_run_reports_no_mismatches() {
    for engine in engines() {
        let f = TempFile::new("clean");
        let blocks = 512u64;
        let mut o = options(&f, engine, blocks * BLOCK);
        o.verify = true;
        o.queue_depth = 16;
        let mut t = RealTarget::open(o).expect("open");
        let mut x: u64 = 0x1234_5678_9ABC_DEF1;
        let mut rnd = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for tag in 0..3000u64 {
            let len = 1 + rnd(4) as u32;
            let start = rnd(blocks - u64::from(len) + 1);
            let dir = match rnd(10) {
                0 => IoDir::Trim,
                1..=4 => IoDir::Write,
                _ => IoDir::Read,
            };
            if t.outstanding() >= 16 {
                t.wait(None).expect("wait").expect("completion");
            }
            t.submit(req(tag, dir, start, len)).expect("submit");
        }
        drain(&mut t);
        let rep = t.verify_report().expect("verify on");
        assert_eq!(rep.mismatches, 0, "{engine:?}: {rep:?}");
        assert!(rep.blocks_checked > 500, "{engine:?}: {rep:?}");
    }
}

#[test]
fn forced_psync_engine_works_including_trim() {
    let f = TempFile::new("psync");
    let mut o = options(&f, EngineChoice::Psync, 32 * BLOCK);
    o.verify = true;
    let mut t = RealTarget::open(o).expect("open");
    assert_eq!(t.engine_kind(), EngineKind::Psync);
    t.submit(req(1, IoDir::Write, 0, 8)).expect("write");
    drain(&mut t);
    t.submit(req(2, IoDir::Trim, 0, 4)).expect("trim");
    t.submit(req(3, IoDir::Read, 4, 4)).expect("read");
    let mut tags = drain(&mut t);
    tags.sort_unstable();
    assert_eq!(tags, vec![2, 3]);
    let rep = t.verify_report().expect("verify");
    assert_eq!((rep.mismatches, rep.blocks_checked), (0, 4));
    drop(t);
    let data = fs::read(&*f.0).expect("read");
    assert!(data[..4 * BLOCK as usize].iter().all(|&b| b == 0), "hole punched");
}

#[test]
fn io_uring_engine_is_used_when_available() {
    if !io_uring_available() {
        println!("note: skipping io_uring engine test: io_uring unavailable on this machine");
        return;
    }
    let f = TempFile::new("uring");
    let mut t = RealTarget::open(options(&f, EngineChoice::IoUring, 32 * BLOCK)).expect("open");
    assert_eq!(t.engine_kind(), EngineKind::IoUring);
    assert!(t.fallback_reason().is_none());
    t.submit(req(9, IoDir::Write, 0, 16)).expect("write");
    t.submit(req(10, IoDir::Trim, 16, 16)).expect("trim");
    let mut tags = drain(&mut t);
    tags.sort_unstable();
    assert_eq!(tags, vec![9, 10]);
}

#[test]
fn deadline_wait_returns_none_at_the_deadline() {
    let f = TempFile::new("deadline");
    let mut t = RealTarget::open(options(&f, EngineChoice::Auto, 16 * BLOCK)).expect("open");
    let deadline = t.now_ns() + 2_000_000;
    assert!(t.wait(Some(deadline)).expect("wait").is_none());
    assert!(t.now_ns() >= deadline);
    t.submit(req(1, IoDir::Read, 0, 1)).expect("read");
    let c = t.wait(Some(t.now_ns() + 5_000_000_000)).expect("wait").expect("completion");
    assert_eq!(c.tag, 1);
    assert!(c.complete_ns >= c.submit_ns);
    assert!(t.wait(None).expect("wait").is_none(), "nothing outstanding");
}

#[test]
fn read_only_target_refuses_writes_and_needs_an_existing_file() {
    let f = TempFile::new("ro");
    let mut o = options(&f, EngineChoice::Auto, 16 * BLOCK);
    o.writable = false;
    assert!(matches!(RealTarget::open(o.clone()), Err(RealError::Open { .. })));
    fs::write(&*f.0, vec![0u8; 16 * BLOCK as usize]).expect("write");
    let mut t = RealTarget::open(o).expect("open ro");
    assert!(matches!(t.submit(req(0, IoDir::Write, 0, 1)), Err(DeviceError::Other(_))));
}

/// The offset alignment the kernel reports for O_DIRECT on `path` (`statx` STATX_DIOALIGN).
fn kernel_dio_align(path: &std::path::Path) -> Option<u32> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero statx is a valid value of the plain C struct.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statx the call writes once, both valid for the call.
    let r = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_DIOALIGN, &mut st) };
    (r == 0 && st.stx_mask & libc::STATX_DIOALIGN != 0 && st.stx_dio_offset_align > 0)
        .then_some(st.stx_dio_offset_align)
}

/// Without `logical_block_bytes` a file target takes I/O as small and as aligned as the kernel
/// does (fio issues 512-byte O_DIRECT I/O on such a file; a fixed 4 KiB block refused those
/// job files): its block is the kernel's O_DIRECT alignment for the file, else 4 KiB.
#[test]
fn a_files_default_block_is_the_kernels_direct_io_alignment() {
    let f = TempFile::new("dioalign");
    let mut o = RealOptions::new(&*f.0);
    o.size_bytes = Some(16 * BLOCK);
    o.queue_depth = 4;
    o.max_block_bytes = 64 * 1024;
    let mut t = RealTarget::open(o).expect("open");
    let want = kernel_dio_align(&f.0).filter(|a| a.is_power_of_two() && (512..=65536).contains(a)).unwrap_or(4096);
    let lbs = t.info().logical_block_bytes;
    assert_eq!(lbs, want, "the kernel reports {:?}", kernel_dio_align(&f.0));
    // One block at an offset of one block: accepted and done, even where that is 512 bytes.
    let r = t.submit(IoRequest { tag: 1, dir: IoDir::Write, offset_bytes: u64::from(lbs), len_bytes: lbs });
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(drain(&mut t), vec![1]);
    let r = t.submit(IoRequest { tag: 2, dir: IoDir::Read, offset_bytes: u64::from(lbs) / 2, len_bytes: lbs });
    assert!(matches!(r, Err(DeviceError::Misaligned { .. })), "half a block off: {r:?}");
}
