use host_bench::job::{
    parse_str, BsSplitEntry, Distribution, JobError, JobFile, ParseOptions, RwMode, SizeSpec, SsMetric, Zone,
    DEFAULT_PERCENTILES,
};
use proptest::prelude::*;

fn parse(text: &str) -> Result<JobFile, JobError> {
    parse_str(text, "jobs/x.fio", &ParseOptions::default())
}

/// Parses one job with `body` as its options and returns it.
fn job(body: &str) -> host_bench::job::JobSpec {
    let text = format!("[j]\n{body}\n");
    match parse(&text) {
        Ok(mut f) => f.jobs.remove(0),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("expected an error for {text:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn whole_file_with_globals_comments_and_flags() {
    let text = "\
; a comment
# another
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=32
size=1g
group_reporting

[seq-write]
rw=write
bs=128k
numjobs=2

[rand-read]
stonewall
rw=randread
name=rr
";
    let f = parse(text).unwrap();
    assert_eq!(f.file, "jobs/x.fio");
    assert_eq!(f.global_options[0], ("ioengine".to_string(), "libaio".to_string()));
    // As fio 3.33 echoes them: the bare `group_reporting` is left out.
    assert_eq!(f.global_options.len(), 5);
    assert!(f.global_options.iter().all(|(k, _)| k != "group_reporting"));
    assert_eq!(f.jobs.len(), 2);
    let a = &f.jobs[0];
    assert_eq!((a.name.as_str(), a.line, a.rw), ("seq-write", 11, RwMode::Write));
    assert_eq!(a.bs_bytes, [131072; 3]);
    assert_eq!((a.iodepth, a.numjobs), (32, 2));
    assert_eq!(a.size, Some(SizeSpec::Bytes(1 << 30)));
    assert!(a.group_reporting && !a.stonewall);
    assert_eq!(
        a.options,
        vec![("rw".into(), "write".into()), ("bs".into(), "128k".into()), ("numjobs".into(), "2".into())]
    );
    let b = &f.jobs[1];
    assert_eq!((b.name.as_str(), b.rw, b.bs_bytes[0], b.numjobs), ("rr", RwMode::RandRead, 4096, 1));
    assert!(b.stonewall);
    assert_eq!(b.percentile_list, DEFAULT_PERCENTILES.to_vec());
}

#[test]
fn globals_after_a_job_apply_only_to_later_jobs() {
    let f = parse("[a]\n[global]\niodepth=8\n[b]\n").unwrap();
    assert_eq!((f.jobs[0].iodepth, f.jobs[1].iodepth), (1, 8));
}

#[test]
fn rw_modes() {
    for (v, m) in [
        ("read", RwMode::Read),
        ("write", RwMode::Write),
        ("trim", RwMode::Trim),
        ("randread", RwMode::RandRead),
        ("randwrite", RwMode::RandWrite),
        ("randtrim", RwMode::RandTrim),
        ("rw", RwMode::ReadWrite),
        ("readwrite", RwMode::ReadWrite),
        ("randrw", RwMode::RandRw),
    ] {
        assert_eq!(job(&format!("rw={v}")).rw, m, "{v}");
    }
    assert_eq!(job("readwrite=randrw").rw, RwMode::RandRw);
}

#[test]
fn rw_offset_modifiers_and_sequencer() {
    use host_bench::job::Sequencing;
    let seq = |body: &str| job(body).sequencing;
    assert_eq!(seq("rw=write"), Sequencing::default());
    assert_eq!(seq("rw=write:4k").add_bytes, 4096);
    assert_eq!(seq("rw=read:-8k").add_bytes, -8192);
    assert_eq!(seq("rw=randread:8"), Sequencing { add_bytes: 0, every_nr: 8, identical: false });
    assert!(seq("rw=randread:4\nrw_sequencer=identical").identical);
    assert!(seq("rw_sequencer=identical\nrw=randread:4").identical, "rw= keeps the sequencer");
    assert_eq!(seq("rw=randread:8\nrw=randread").every_nr, 1, "a later rw= without modifier clears it");
    for (body, needle) in [
        ("rw=randread:0", "rw' = randread:0 has an offset modifier out of range"),
        ("rw=read:x", "rw' = read:x has a bad offset modifier"),
        ("rw=randread:4\nrw_sequencer=same", "rw_sequencer' = same is not a sequencer (allowed sequential, identical)"),
    ] {
        assert!(err(&format!("[j]\n{body}\n")).contains(needle), "{body}: {}", err(&format!("[j]\n{body}\n")));
    }
}

#[test]
fn strided_zones_as_fio_checks_them() {
    use host_bench::job::StridedZones;
    let z = job("zonemode=strided\nzonesize=16k\nzonerange=64k\nzoneskip=1m").zones;
    assert_eq!(z, Some(StridedZones { size_bytes: 16384, range_bytes: 65536, skip_bytes: 1 << 20 }));
    assert_eq!(
        job("zonesize=16k\nzonemode=strided").zones.unwrap().range_bytes,
        16384,
        "zonerange defaults to zonesize"
    );
    assert_eq!(job("zonemode=none").zones, None);
    // fio 3.33: "--zonemode=none and --zonesize are not compatible", "--zonesize must be specified".
    assert_eq!(
        err("[j]\nzonesize=16k\n"),
        "jobs/x.fio:1: option 'zonesize' = 16384 needs zonemode=strided (allowed zonemode=strided with zonesize > 0)"
    );
    assert!(err("[j]\nzonemode=strided\n").contains("option 'zonemode' = strided needs a zonesize"));
}

#[test]
fn sizes_and_suffixes() {
    for (v, b) in [
        ("4096", 4096u64),
        ("4k", 4096),
        ("4K", 4096),
        // fio 3.33 (default kb_base=1024) reads the IEC suffixes as powers of 1000.
        ("4KiB", 4000),
        ("4kb", 4096),
        ("2m", 2 << 20),
        ("1MiB", 1_000_000),
        ("3g", 3 << 30),
        ("1GiB", 1_000_000_000),
        ("2t", 2 << 40),
        ("1TiB", 1_000_000_000_000),
        ("1.5k", 1536),
    ] {
        assert_eq!(job(&format!("size={v}")).size, Some(SizeSpec::Bytes(b)), "{v}");
    }
    assert_eq!(job("size=50%").size, Some(SizeSpec::Percent(50.0)));
    assert_eq!(job("offset=25%").offset, SizeSpec::Percent(25.0));
    assert_eq!(job("offset=1m").offset, SizeSpec::Bytes(1 << 20));
    assert_eq!(job("io_size=10g").io_size, Some(SizeSpec::Bytes(10 << 30)));
    assert_eq!(job("number_ios=1000").number_ios, Some(1000));
}

#[test]
fn block_sizes_comma_form_and_bssplit() {
    assert_eq!(job("bs=4k,8k,16k").bs_bytes, [4096, 8192, 16384]);
    assert_eq!(job("bs=4k,8k").bs_bytes, [4096, 8192, 8192]);
    assert_eq!(job("bs=,64k").bs_bytes, [4096, 65536, 65536]);
    assert_eq!(job("blocksize=512").bs_bytes, [512; 3]);
    let j = job("bssplit=4k/50:8k/30:64k/");
    let want = vec![
        BsSplitEntry { bytes: 4096, percent: 50 },
        BsSplitEntry { bytes: 8192, percent: 30 },
        BsSplitEntry { bytes: 65536, percent: 20 },
    ];
    assert_eq!(j.bssplit[0], want);
    assert_eq!(j.bssplit[2], want);
    let j = job("bssplit=4k/10:16k/:32k/");
    assert_eq!(j.bssplit[0].iter().map(|e| e.percent).collect::<Vec<_>>(), vec![10, 45, 45]);
    let j = job("bssplit=4k/100,8k/40:128k/60");
    assert_eq!(j.bssplit[0], vec![BsSplitEntry { bytes: 4096, percent: 100 }]);
    assert_eq!(j.bssplit[1][1], BsSplitEntry { bytes: 131072, percent: 60 });
    assert_eq!(job("blockalign=4k").blockalign_bytes, Some(4096));
}

#[test]
fn mix_depth_jobs_loops() {
    assert_eq!(job("rwmixread=70").rwmixread_percent, 70);
    assert_eq!(job("rwmixwrite=30").rwmixread_percent, 70);
    assert_eq!(job("").rwmixread_percent, 50);
    assert_eq!(job("iodepth=65536").iodepth, 65536);
    assert_eq!(job("numjobs=4").numjobs, 4);
    assert_eq!(job("loops=3").loops, 3);
    assert_eq!(job("rate_iops=1500").rate_iops, [1500; 3]);
    assert_eq!(job("rate=1m,500k").rate_bytes, [1 << 20, 500 << 10, 500 << 10]);
    assert!(job("rate_process=poisson").rate_poisson);
}

#[test]
fn times() {
    assert_eq!(job("runtime=30").runtime_ns, Some(30_000_000_000));
    assert_eq!(job("runtime=250ms").runtime_ns, Some(250_000_000));
    assert_eq!(job("runtime=2m").runtime_ns, Some(120_000_000_000));
    assert_eq!(job("runtime=1h").runtime_ns, Some(3_600_000_000_000));
    assert_eq!(job("runtime=500us").runtime_ns, Some(500_000));
    assert_eq!(job("ramp_time=5s").ramp_time_ns, 5_000_000_000);
    let j = job("runtime=10\ntime_based");
    assert!(j.time_based);
    assert!(!job("runtime=10\ntime_based=0").time_based);
}

#[test]
fn flags_and_misc() {
    assert!(job("stonewall").stonewall);
    assert!(job("wait_for_previous").stonewall);
    assert!(job("norandommap").norandommap);
    assert!(!job("randrepeat=0").randrepeat);
    assert!(job("group_reporting").group_reporting);
    assert_eq!(job("filename=/dev/nvme0n1").filename.as_deref(), Some("/dev/nvme0n1"));
    assert_eq!(job("verify=crc32c\nverify_fatal=1\ndo_verify=1").verify.as_deref(), Some("crc32c"));
    assert_eq!(job("description=hello world").description.as_deref(), Some("hello world"));
    assert_eq!(job("percentile_list=50:99:99.9").percentile_list, vec![50.0, 99.0, 99.9]);
    assert_eq!(job("percentage_random=80").percentage_random, [80; 3]);
    assert_eq!(job("percentage_random=80,20").percentage_random, [80, 20, 20]);
}

#[test]
fn recorded_options_are_accepted_and_kept() {
    let body = "direct=1\nioengine=io_uring\nthread\nbuffered=0\ninvalidate=1\nwrite_bw_log=x\nlog_avg_msec=1000\nrefill_buffers\nexitall\ncpus_allowed=0-3\nrandom_generator=tausworthe64\nfadvise_hint=0\nallow_mounted_write=1\ngtod_reduce=1\nclat_percentiles=1\nlat_percentiles=1\nunified_rw_reporting=1\ndisable_lat=1\ndisable_clat=1\nper_job_logs=0";
    let j = job(body);
    // Bare flags (thread, refill_buffers, exitall) are applied but not echoed, as fio 3.33.
    assert_eq!(j.options.len(), 17);
    assert_eq!(j.options[2], ("buffered".to_string(), "0".to_string()));
    assert!(j.options.iter().all(|(k, _)| !["thread", "refill_buffers", "exitall"].contains(&k.as_str())));
}

#[test]
fn distributions() {
    assert_eq!(job("random_distribution=random").distribution, Distribution::Uniform);
    assert_eq!(job("random_distribution=zipf:1.2").distribution, Distribution::Zipf { theta: 1.2 });
    assert_eq!(job("random_distribution=pareto:0.2").distribution, Distribution::Pareto { h: 0.2 });
    assert_eq!(job("random_distribution=normal:10").distribution, Distribution::Normal { sigma_percent: 10.0 });
    assert_eq!(
        job("random_distribution=zoned:60/10:30/20:10/70").distribution,
        Distribution::Zoned(vec![
            Zone { access_percent: 60, size: SizeSpec::Percent(10.0) },
            Zone { access_percent: 30, size: SizeSpec::Percent(20.0) },
            Zone { access_percent: 10, size: SizeSpec::Percent(70.0) },
        ])
    );
    assert_eq!(
        job("random_distribution=zoned_abs:80/1g:20/10g").distribution,
        Distribution::Zoned(vec![
            Zone { access_percent: 80, size: SizeSpec::Bytes(1 << 30) },
            Zone { access_percent: 20, size: SizeSpec::Bytes(10 << 30) },
        ])
    );
}

#[test]
fn steady_state() {
    let j = job("steadystate=iops_slope:0.3%\nss_dur=60\nss_ramp=10");
    let ss = j.steadystate.unwrap();
    assert_eq!((ss.metric, ss.limit, ss.limit_is_percent), (SsMetric::IopsSlope, 0.3, true));
    assert_eq!((ss.dur_ns, ss.ramp_ns), (60_000_000_000, 10_000_000_000));
    let ss = job("ss_dur=30\nss=iops:10%").steadystate.unwrap();
    assert_eq!((ss.metric, ss.limit, ss.dur_ns), (SsMetric::Iops, 10.0, 30_000_000_000));
    let ss = job("ss=bw:10m").steadystate.unwrap();
    assert_eq!((ss.metric, ss.limit, ss.limit_is_percent), (SsMetric::Bw, 10485760.0, false));
    assert_eq!(job("ss=bw_slope:1%").steadystate.unwrap().metric, SsMetric::BwSlope);
}

#[test]
fn error_messages_are_one_line_and_exact() {
    assert_eq!(
        err("[j]\nrw=read\nfoo=bar\n"),
        "jobs/x.fio:3: unknown option 'foo' (neither a fio 3.33 option of `fio --cmdhelp=all` nor one of an ioengine ssdlab takes; see docs/fio-options.md; --ignore-unsupported skips it with a warning)"
    );
    assert_eq!(
        err("[j]\nsize=12q\n"),
        "jobs/x.fio:2: option 'size' = 12q is not a size (allowed a number with optional suffix k/m/g/t/p or kb/mb/gb/tb/pb (powers of kb_base, 1024 by default), or KiB/MiB/GiB/TiB/PiB (powers of 1000 under fio's default kb_base, of 1024 under kb_base=1000))"
    );
    assert_eq!(
        err("[j]\nbssplit=4k/50:8k/30\n"),
        "jobs/x.fio:2: option 'bssplit' = 4k/50:8k/30 sums to 80%, not 100% (allowed size/percent entries separated by ':' summing to 100, e.g. 4k/50:8k/30:64k/)"
    );
    assert_eq!(
        err("[global]\n\n\n\n\n\niodepth=0\n[j]\n"),
        "jobs/x.fio:7: option 'iodepth' = 0 is out of range (allowed 1..=65536)"
    );
    assert_eq!(
        err("[j]\nrw=randomread\n"),
        "jobs/x.fio:2: option 'rw' = randomread is not a known pattern (allowed read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw)"
    );
    assert_eq!(err("[j]\nnumjobs=0\n"), "jobs/x.fio:2: option 'numjobs' = 0 is out of range (allowed 1..=4096)");
    assert_eq!(
        err("[global]\nbs=4k\n"),
        "jobs/x.fio: no job sections (expected at least one [name] section besides [global])"
    );
    assert_eq!(
        err("bs=4k\n[j]\n"),
        "jobs/x.fio:1: option 'bs' is outside any section (put it under [global] or a [job] section)"
    );
    assert_eq!(
        err("[j]\nruntime=5 parsecs\n"),
        "jobs/x.fio:2: option 'runtime' = 5 parsecs is not a time (allowed a number with optional suffix us/ms/s/m/h/d (default s))"
    );
    assert_eq!(
        err("[j]\nrandom_distribution=zipf:0\n"),
        "jobs/x.fio:2: option 'random_distribution' = zipf:0 has a parameter out of range (allowed zipf parameter in (0, 100))"
    );
    assert!(err("[j]\nrwmixread=101\n").contains("allowed 0..=100"));
    assert!(err("[j]\nbs=0\n").contains("allowed 1..=1GiB"));
    assert!(err("[j]\nrandom_distribution=zoned:60/10:30/20\n").contains("summing to 90"));
}

#[test]
fn ignore_unsupported_collects_warnings() {
    let opts = ParseOptions { ignore_unsupported: true, host: None };
    let f = parse_str("[j]\nfoo=1\nrw=write\nbar\n", "a.fio", &opts).unwrap();
    assert_eq!(
        f.warnings,
        vec!["a.fio:2: ignoring unsupported option 'foo'", "a.fio:4: ignoring unsupported option 'bar'"]
    );
    assert_eq!(f.jobs[0].rw, RwMode::Write);
    // Bad values of known options stay errors.
    assert!(parse_str("[j]\niodepth=0\n", "a.fio", &opts).is_err());
}

const OPTION_WORDS: &[&str] = &[
    "rw",
    "bs",
    "bssplit",
    "iodepth",
    "size",
    "offset",
    "runtime",
    "random_distribution",
    "steadystate",
    "percentile_list",
    "rwmixread",
    "numjobs",
    "ss_dur",
    "rate_iops",
    "time_based",
    "zzz",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// Arbitrary text never panics.
    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = parse(&text);
    }

    /// Known keys with arbitrary values never panic, and errors are single lines.
    #[test]
    fn random_values_never_panic(
        key in proptest::sample::select(OPTION_WORDS),
        value in "[0-9a-zA-Z%:/,.\\-]{0,24}",
    ) {
        let text = format!("[global]\n{key}={value}\n[job]\n");
        if let Err(e) = parse(&text) {
            prop_assert!(!e.to_string().contains('\n'));
        }
    }
}

#[test]
fn verify_methods_and_phase() {
    assert!(job("rw=write\nverify=md5").verifies());
    assert!(!job("rw=write\nverify=null").verifies(), "fio's null only pretends");
    assert_eq!(job("verify=0").verify, None);
    assert!(err("[j]\nverify=crc99\n").contains("'verify' = crc99 is not a verify method (allowed md5, crc64"));
    let w = job("rw=randwrite\nbs=8k\nsize=4m\noffset=1m\niodepth=16\nverify=crc32c");
    let v = w.verify_phase().unwrap();
    assert_eq!((v.rw, v.bs_bytes[0], v.size, v.offset, v.iodepth), (RwMode::Read, 8192, w.size, w.offset, 16));
    assert!(job("rw=randwrite\nverify=crc32c\ndo_verify=0").verify_phase().is_none());
    assert!(job("rw=randread\nverify=crc32c").verify_phase().is_none(), "nothing written to read back");
    let f = parse("[a]\nrw=write\nverify=md5\n[b]\nrw=read\n").unwrap();
    let phase = f.verify_phase().unwrap();
    assert_eq!(phase.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["a-verify"]);
    assert!(parse("[a]\nrw=write\n").unwrap().verify_phase().is_none());
}

#[test]
fn unified_rw_reporting_values() {
    use host_bench::job::UnifiedRw;
    assert_eq!(job("unified_rw_reporting=mixed").unified_rw, UnifiedRw::Mixed);
    assert_eq!(job("unified_rw_reporting=2").unified_rw, UnifiedRw::Both);
    assert_eq!(job("unified_rw_reporting=0").unified_rw, UnifiedRw::None);
    assert!(err("[j]\nunified_rw_reporting=all\n").contains("allowed none, mixed, both, 0, 1, 2"));
}

#[test]
fn latency_target_and_flow_options() {
    // fio: these times have no is_seconds, so a bare number is microseconds.
    let j = job("latency_target=500\nlatency_window=2s\nlatency_percentile=99.5\nlatency_run=1");
    assert_eq!(
        (j.latency.target_ns, j.latency.window_ns, j.latency.percentile, j.latency.run),
        (500_000, 2_000_000_000, 99.5, true)
    );
    assert_eq!(job("latency_target=2ms").latency.target_ns, 2_000_000);
    assert_eq!(job("").latency.percentile, 100.0);
    let j = job("flow_id=3\nflow=7\nflow_sleep=100");
    assert_eq!((j.flow.id, j.flow.weight, j.flow.sleep_us), (3, 7, 100));
    assert!(err("[j]\nflow=1001\n").contains("allowed 0..=1000"));
    assert!(err("[j]\nflow=-1\n").contains("'flow'"));
    let e = err("[j]\nlatency_target=1ms\nrate_iops=100\n");
    assert!(e.contains("'latency_target'") && e.contains("cannot be combined with rate_iops"), "{e}");
    let e = err("[j]\nflow=2\nread_iolog=x.log\n");
    assert!(e.contains("'flow'") && e.contains("read_iolog"), "{e}");
}

#[test]
fn time_based_without_runtime_warns_and_runs_size_based_as_fio() {
    let f = parse("[j]\ntime_based\nsize=1m\n").unwrap();
    assert!(!f.jobs[0].time_based);
    assert_eq!(f.warnings, vec!["jobs/x.fio:1: job 'j': time_based requires a runtime; time_based is off, as in fio"]);
}

#[test]
fn comments_after_options_and_headers_are_cut_as_fio_cuts_them() {
    let f = parse("[j] ; first\nblocksize=8k # eight\nsize=1m;x#y\niodepth=4#\n").unwrap();
    let j = &f.jobs[0];
    assert_eq!(j.name, "j");
    // An alias is echoed by its option's name, as fio 3.33 echoes it.
    assert_eq!(
        j.options,
        vec![("bs".into(), "8k".into()), ("size".into(), "1m".into()), ("iodepth".into(), "4".into())]
    );
}

#[test]
fn substitutions_only_with_host_values() {
    // Without host values (generated text) `$ncpus` stays as written and is no number.
    assert!(err("[j]\nnumjobs=$ncpus\n").contains("numjobs"));
    let host =
        host_bench::job::HostVars { ncpus: 3, mb_memory: 1024, pagesize: 4096, env: [("D".into(), "8".into())].into() };
    let opts = ParseOptions { ignore_unsupported: false, host: Some(host) };
    let f = parse_str("[j]\nnumjobs=$ncpus\niodepth=${D}\nsize=$pagesize*2\n", "jobs/x.fio", &opts).unwrap();
    assert_eq!(f.jobs.len(), 1);
    let j = &f.jobs[0];
    assert_eq!((j.numjobs, j.iodepth), (3, 8));
    assert_eq!(j.options[2], ("size".into(), "8192".into()));
    assert_eq!(f.warnings.len(), 2, "{:?}", f.warnings);
}

#[test]
fn engines_without_data_io_are_refused_and_data_engines_taken() {
    assert_eq!(
        err("[j]\nioengine=cpuio\n"),
        "jobs/x.fio:2: option 'ioengine' = cpuio burns CPU, not reads and writes of a drive's blocks (allowed an engine that reads and writes data, e.g. psync, libaio, io_uring (any of them drives the simulator))"
    );
    assert!(err("[j]\nioengine=net\n").contains("network socket"));
    for e in ["psync", "libaio", "io_uring", "pvsync2", "mmap", "sg", "null", "rbd"] {
        job(&format!("ioengine={e}\nnowait=1\nuserspace_reap\nnonvectored=1"));
    }
}

#[test]
fn bsrange_per_direction_either_order_and_below_bssplit() {
    let j = job("bsrange=16k-4k,8k:64k\nbs=128k");
    assert_eq!(j.bs_range, [Some((4096, 16384)), Some((8192, 65536)), Some((8192, 65536))]);
    assert_eq!(j.block_sizes(0).collect::<Vec<_>>(), vec![4096, 16384], "bsrange wins over bs, as fio's min_bs/max_bs");
    let j = job("bsrange=4k-16k\nbssplit=8k/100");
    assert_eq!(j.block_sizes(1).collect::<Vec<_>>(), vec![8192], "bssplit takes precedence");
    assert!(err("[j]\nbsrange=4k\n").contains("is not a range"));
}

#[test]
fn thinktime_units_and_combinations_as_fio() {
    let j =
        job("thinktime=250\nthinktime_spin=1ms\nthinktime_blocks=8\nthinktime_blocks_type=issue\nthinktime_iotime=2");
    let t = j.think;
    assert_eq!(
        (t.ns, t.spin_ns, t.blocks, t.by_issue, t.iotime_ns),
        (250_000, 1_000_000, Some(8), true, 2_000_000_000)
    );
    assert!(err("[j]\nthinktime=10\nrate_iops=100\n").contains("cannot be combined with rate_iops"));
    assert!(err("[j]\nthinktime_blocks_type=both\n").contains("complete, issue"));
}

#[test]
fn startdelay_seconds_and_ranges() {
    assert_eq!(job("startdelay=2").start_delay_ns, (2_000_000_000, 0));
    assert_eq!(job("startdelay=300ms-100ms").start_delay_ns, (100_000_000, 300_000_000));
}

#[test]
fn filesize_is_one_size_as_fio_reads_it() {
    assert_eq!(job("filesize=16m").filesize_bytes, Some(16 << 20));
    // fio's range with equal ends is one size.
    assert_eq!(job("filesize=8m-8m").filesize_bytes, Some(8 << 20));
    let e = err("[j]\nfilesize=8m-16m\n");
    assert!(e.contains("jobs/x.fio:2") && e.contains("filesize") && e.contains("range"), "{e}");
    assert!(err("[j]\nfilesize=0\n").contains("zero"));
}

#[test]
fn size_prefixes_read_as_fio_reads_them() {
    // fio 3.33's default kb_base=1024 inverts IEC and SI: KiB/MiB are powers of 1000.
    let size = |body: &str| job(body).size;
    assert_eq!(size("size=1m"), Some(SizeSpec::Bytes(1 << 20)));
    assert_eq!(size("size=1MB"), Some(SizeSpec::Bytes(1 << 20)));
    assert_eq!(size("size=1Mi"), Some(SizeSpec::Bytes(1 << 20)));
    assert_eq!(size("size=1MiB"), Some(SizeSpec::Bytes(1_000_000)));
    assert_eq!(size("size=2GiB"), Some(SizeSpec::Bytes(2_000_000_000)));
    // kb_base=1000, read first in its section wherever it is written: the other way round.
    assert_eq!(size("size=1m\nkb_base=1000"), Some(SizeSpec::Bytes(1_000_000)));
    assert_eq!(size("size=1MiB\nkb_base=1000"), Some(SizeSpec::Bytes(1 << 20)));
    // From [global] to its jobs.
    let f = parse("[global]\nkb_base=1000\n[j]\nsize=3k\n").unwrap();
    assert_eq!(f.jobs[0].size, Some(SizeSpec::Bytes(3000)));
    assert!(err("[j]\nkb_base=512\n").contains("1024 (fio's default) or 1000"));
}
