//! A job file's absolute sizes on a scaled drive (`job::full_scale`): shrunk by the run's
//! scale so that they cover the same share of the drive; percentages, block sizes and the
//! suites' own (device-sized) jobs untouched.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::build::JobFileBuilder;
use host_bench::job::{parse_str, Distribution, JobSpec, ParseOptions, RwMode, ScaledUnit, SizeSpec};
use host_bench::runner::{run, RunOptions, SubmittedIo};

use crate::mock::MockDevice;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

fn job(body: &str) -> JobSpec {
    parse_str(&format!("[j]\n{body}\n"), "t.fio", &ParseOptions::default()).unwrap().jobs.remove(0)
}

#[test]
fn absolute_sizes_shrink_with_the_drive() {
    let j = job(
        "rw=randwrite\nbs=4k\nsize=50g\noffset=1g\noffset_increment=10g\nio_size=20g\nnumber_ios=1000\n\
                 zonemode=strided\nzonesize=1g\nzonerange=4g\nzoneskip=2g\nrandom_distribution=zoned_abs:60/10g:40/20g",
    );
    let (s, changed) = j.at_scale(1.0 / 256.0).unwrap();
    assert_eq!(s.size, Some(SizeSpec::Bytes(200 * MIB)));
    assert_eq!(s.offset, SizeSpec::Bytes(4 * MIB));
    assert_eq!(s.offset_increment, SizeSpec::Bytes(40 * MIB));
    assert_eq!(s.io_size, Some(SizeSpec::Bytes(80 * MIB)));
    assert_eq!(s.number_ios, Some(4));
    let z = s.zones.unwrap();
    assert_eq!((z.size_bytes, z.range_bytes, z.skip_bytes), (4 * MIB, 16 * MIB, 8 * MIB));
    let Distribution::Zoned(zones) = &s.distribution else { panic!("{:?}", s.distribution) };
    assert_eq!(
        zones.iter().map(|z| z.size).collect::<Vec<_>>(),
        [SizeSpec::Bytes(40 * MIB), SizeSpec::Bytes(80 * MIB)]
    );
    // Each change is stated, as written and as run.
    let size = changed.iter().find(|c| c.option == "size").unwrap();
    assert_eq!((size.full_scale, size.simulated, size.unit), (50 * GIB, 200 * MIB, ScaledUnit::Bytes));
    assert!(changed.iter().any(|c| c.option == "number_ios" && c.unit == ScaledUnit::Ios));
    assert_eq!(changed.len(), 10, "{changed:?}");
    // What is not a size of the drive stays.
    assert_eq!(s.bs_bytes, j.bs_bytes);
}

#[test]
fn sizes_round_to_blocks_and_keep_one_io() {
    // 1 MiB at 1/256 is 4 KiB: less than one 128 KiB I/O, so the region keeps one block.
    let j = job("rw=write\nbs=128k\nsize=1m\noffset=100k");
    let (s, _) = j.at_scale(1.0 / 256.0).unwrap();
    assert_eq!(s.size, Some(SizeSpec::Bytes(128 << 10)));
    // An offset keeps its place within the MiB: 100 KiB stays, and 1 GiB + 2 KiB (4 KiB writes
    // straddling two units) becomes 4 MiB + 2 KiB, still misaligned.
    assert_eq!(s.offset, SizeSpec::Bytes(100 << 10));
    let (s, _) = job("rw=randwrite\nbs=4k\noffset=1048578k\nsize=1g").at_scale(1.0 / 256.0).unwrap();
    assert_eq!(s.offset, SizeSpec::Bytes((4 << 20) + 2048));
    // Zones of a MiB or less are an access pattern and stay as written.
    let j = job("rw=read\nbs=16k\nzonemode=strided\nzonesize=64k\nzonerange=1m\nsize=2g");
    let z = j.at_scale(1.0 / 256.0).unwrap().0.zones.unwrap();
    assert_eq!((z.size_bytes, z.range_bytes), (64 << 10, 1 << 20));
}

#[test]
fn percentages_unscaled_runs_and_device_sized_jobs_are_left_alone() {
    assert!(job("rw=randwrite\nsize=50%\noffset=25%").at_scale(1.0 / 256.0).is_none());
    assert!(job("rw=randwrite\nsize=50g").at_scale(1.0).is_none());
    // The suites build their jobs in the simulated drive's bytes.
    let mut b = JobFileBuilder::new("suite");
    b.job("w").rw(RwMode::RandWrite).io_size(GIB);
    assert!(b.build().unwrap().jobs[0].at_scale(1.0 / 256.0).is_none());
}

#[test]
fn a_scaled_run_addresses_the_same_share_of_the_drive() {
    // The second half of a 64 GiB drive, written once in 1 MiB I/Os, on the drive at 1/64.
    let text = "[w]\nrw=write\nbs=1m\noffset=32g\nsize=32g\n";
    let file = parse_str(text, "t.fio", &ParseOptions::default()).unwrap();
    let mut dev = MockDevice::new(GIB, 8, 10_000);
    let mut seen: Vec<(u64, u32)> = Vec::new();
    let mut hook = |ios: &[SubmittedIo]| seen.extend(ios.iter().map(|i| (i.offset_bytes, i.len_bytes)));
    let mut opts = RunOptions::new(1);
    opts.time_scale = 1.0 / 64.0;
    opts.on_submit = Some(&mut hook);
    let r = run(&file, &mut dev, &mut opts).unwrap();
    assert_eq!(r.jobs[0].dirs[1].io_bytes, GIB / 2);
    assert_eq!(seen.first().map(|s| s.0), Some(GIB / 2));
    assert_eq!(seen.last().map(|s| s.0 + u64::from(s.1)), Some(GIB));
    let scaled = &r.jobs[0].scaled_sizes;
    assert_eq!(
        scaled.iter().map(|c| (c.option.as_str(), c.simulated)).collect::<Vec<_>>(),
        [("size", GIB / 2), ("offset", GIB / 2)]
    );
}

#[test]
fn the_full_size_write_amount_of_a_size_based_job() {
    assert_eq!(job("rw=randwrite\nio_size=10g").full_scale_write_bytes(), Some(10 * GIB));
    assert_eq!(job("rw=write\nsize=2g\nloops=3").full_scale_write_bytes(), Some(6 * GIB));
    assert_eq!(job("rw=randrw\nrwmixread=75\nsize=4g").full_scale_write_bytes(), Some(GIB));
    assert_eq!(job("rw=randwrite\nbs=8k\nnumber_ios=1000").full_scale_write_bytes(), Some(8_192_000));
    // Not an absolute amount, or no writes: no figure.
    assert_eq!(job("rw=randwrite\nsize=50%").full_scale_write_bytes(), None);
    assert_eq!(job("rw=randread\nsize=10g").full_scale_write_bytes(), None);
    assert_eq!(job("rw=randwrite\nsize=10g\ntime_based\nruntime=10").full_scale_write_bytes(), None);
}

#[test]
fn a_filesize_shrinks_and_bounds_the_amount() {
    let j = job("rw=randwrite\nfilesize=16g");
    assert_eq!(j.full_scale_write_bytes(), Some(16 * GIB));
    let (s, changed) = j.at_scale(1.0 / 256.0).unwrap();
    assert_eq!(s.filesize_bytes, Some(64 * MIB));
    assert_eq!(changed[0].option, "filesize");
    // An absolute size is the amount, at most the file.
    assert_eq!(job("rw=write\nfilesize=4g\nsize=10g").full_scale_write_bytes(), Some(4 * GIB));
}
