//! Job files built in code (`job::build`) are what the parser returns for the same options
//! written as text: every field, the options echo, the line numbers and the errors.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::build::JobFileBuilder;
use host_bench::job::{parse_str, resolve_sections, JobFile, ParseOptions, RawOption, RawSection, RwMode, SizeBasis};

/// `text` parsed, with its sizes counted as a built file's are: on the device (a parsed file's
/// are the full-size drive's, `job::full_scale`; the only difference the two may have).
fn parsed(text: &str, file: &str) -> JobFile {
    let mut f = parse_str(text, file, &ParseOptions::default()).unwrap();
    for j in &mut f.jobs {
        assert_eq!(j.sizes, SizeBasis::FullScale);
        j.sizes = SizeBasis::Device;
    }
    f
}

#[test]
fn every_setter_builds_what_its_text_parses_to() {
    let mut b = JobFileBuilder::new("all.fio");
    b.global().bs(128 << 10).iodepth(32).group_reporting();
    b.job("fill").rw(RwMode::Write).size_percent(100.0).loops(2).offset_percent(25.0);
    b.job("cell")
        .stonewall()
        .rw(RwMode::RandRw)
        .rwmixread(65)
        .bs(512)
        .numjobs(4)
        .fresh_uniform_offsets()
        .time_based_for(1.2345);
    b.job("mix")
        .rw(RwMode::RandRw)
        .percentage_random(80)
        .bssplit(&[(8192, 65), (65536, 35)], &[(4096, 31), (1536, 69)])
        .rate(1000, 2000)
        .runtime_ms(7)
        .io_size(12345);
    b.job("paced").rw(RwMode::RandRead).bs(1536).rate_iops(4000).bssplit(&[], &[(4096, 100)]);
    let text = "[global]\nbs=128k\niodepth=32\ngroup_reporting\n\
        [fill]\nrw=write\nsize=100%\nloops=2\noffset=25%\n\
        [cell]\nstonewall\nrw=randrw\nrwmixread=65\nbs=512\nnumjobs=4\nnorandommap=1\nrandrepeat=0\nruntime=1235ms\ntime_based\n\
        [mix]\nrw=randrw\npercentage_random=80\nbssplit=8k/65:64k/35,4k/31:1536/69\nrate=1000,2000\nruntime=7ms\nio_size=12345\n\
        [paced]\nrw=randread\nbs=1536\nrate_iops=4000\nbssplit=,4k/100\n";
    assert_eq!(b.build().unwrap(), parsed(text, "all.fio"));
}

#[test]
fn a_value_the_parser_refuses_is_refused_with_its_message_and_line() {
    type Case = (fn(&mut JobFileBuilder), &'static str);
    let cases: [Case; 4] = [
        (
            |b| {
                b.job("a").rw(RwMode::Write).iodepth(70000).bs(0);
            },
            "[a]\nrw=write\niodepth=70000\nbs=0\n",
        ),
        (
            |b| {
                b.job("a").numjobs(5000);
            },
            "[a]\nnumjobs=5000\n",
        ),
        (
            |b| {
                b.job("a").bs(0);
            },
            "[a]\nbs=0\n",
        ),
        (
            |b| {
                b.job("a").bssplit(&[(4096, 60), (8192, 30)], &[(4096, 100)]);
            },
            "[a]\nbssplit=4k/60:8k/30,4k/100\n",
        ),
    ];
    for (build, text) in cases {
        let mut b = JobFileBuilder::new("e.fio");
        b.job("ok").rw(RwMode::Read);
        build(&mut b);
        let want = parse_str(&format!("[ok]\nrw=read\n{text}"), "e.fio", &ParseOptions::default()).unwrap_err();
        assert_eq!(b.build().unwrap_err(), want, "{text}");
    }
    // A warning, not an error, in both: fio runs such a job size-based.
    let mut b = JobFileBuilder::new("w.fio");
    b.job("a").runtime_ms(0).time_based();
    assert_eq!(b.build().unwrap(), parsed("[a]\nruntime=0ms\ntime_based\n", "w.fio"));
    let mut b = JobFileBuilder::new("g.fio");
    b.global().bs(4096);
    assert_eq!(b.build().unwrap_err(), parse_str("[global]\nbs=4k\n", "g.fio", &ParseOptions::default()).unwrap_err());
}

#[test]
fn sections_of_echoed_options_resolve_as_the_same_file() {
    let echo = |line, k: &str, v: &str| RawOption::from_echo("j.json", line, k, v).unwrap();
    let sections = [
        RawSection { name: "global".into(), line: 1, options: vec![echo(2, "bs", "4k"), echo(3, " iodepth ", " 8 ")] },
        RawSection { name: "rr".into(), line: 4, options: vec![echo(5, "rw", "randread"), echo(6, "stonewall", "")] },
    ];
    let got = resolve_sections(&sections, "j.json", &ParseOptions::default()).unwrap();
    let want = "[global]\nbs=4k\niodepth=8\n[rr]\nrw=randread\nstonewall\n";
    assert_eq!(got, parse_str(want, "j.json", &ParseOptions::default()).unwrap());
    let bad = RawOption::from_echo("j.json", 7, "a b", "1").unwrap_err();
    assert_eq!(bad, parse_str("[x]\n\n\n\n\n\na b=1\n", "j.json", &ParseOptions::default()).unwrap_err());
}
