//! The option registry against fio 3.33's own list, and docs/fio-options.md against the registry.

use host_bench::job::registry::{lookup, options_markdown, Support, OPTIONS};
use host_bench::job::{parse_str, ParseOptions};

/// `fio --cmdhelp=all` of Debian's fio 3.33, checked in.
const CMDHELP: &str = include_str!("data/fio-3.33-cmdhelp-all.txt");

fn cmdhelp_names() -> Vec<&'static str> {
    CMDHELP.lines().filter_map(|l| l.split_once(':')).map(|(n, _)| n.trim()).collect()
}

#[test]
fn every_fio_option_is_accounted_for() {
    let names = cmdhelp_names();
    assert_eq!(names.len(), 217, "the checked-in list is fio 3.33's");
    let missing: Vec<&str> = names.iter().copied().filter(|n| lookup(n).is_none()).collect();
    assert!(missing.is_empty(), "fio options without an entry in the registry: {missing:?}");
    // And the registry claims no fio 3.33 option that fio does not list.
    for o in OPTIONS.iter().filter(|o| o.source == "fio 3.33") {
        assert!(names.contains(&o.name), "{} is not in fio --cmdhelp=all", o.name);
    }
}

#[test]
fn docs_table_is_generated_from_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/fio-options.md");
    let want = options_markdown();
    if std::env::var_os("SSDLAB_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/fio-options.md is stale: run SSDLAB_BLESS=1 cargo test -p host-bench --test fio registry"
    );
    for o in OPTIONS {
        assert!(have.contains(&format!("| `{}` |", o.name)), "{}", o.name);
    }
}

fn parse(body: &str) -> Result<host_bench::job::JobFile, String> {
    parse_str(&format!("[j]\n{body}\n"), "jobs/x.fio", &ParseOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn aliases_resolve_exactly_and_prefixes_do_not() {
    // fio 3.33 (checked): aliases from options.c work, prefixes are "Bad option".
    let j = parse("readwrite=randread\nblocksize=8k\nblockalign=8k\ntimeout=5\nio_limit=1m\nss=iops:5%\nss_dur=10")
        .unwrap()
        .jobs
        .remove(0);
    assert_eq!((j.bs_bytes[0], j.blockalign_bytes, j.runtime_ns), (8192, Some(8192), Some(5_000_000_000)));
    assert_eq!(j.steadystate.map(|s| s.dur_ns), Some(10_000_000_000));
    assert!(parse("iodep=2").unwrap_err().contains("unknown option 'iodep'"));
    assert!(parse("norandom=1").unwrap_err().contains("unknown option 'norandom'"));
}

#[test]
fn options_fio_accepts_are_accepted_with_a_meaning() {
    // threads= is fio's tiobench profile option: fio 3.33 accepts it and stays a process.
    for body in [
        "threads=1",
        "directory=/mnt/x",
        "io_submit_mode=offload",
        "create_serialize=0",
        "log_prio=1",
        "thread",
        "lockfile=readwrite",
        "random_distribution=zoned:50/5:30/15:20/",
        "random_distribution=zoned_abs:60/10m:40/",
    ] {
        match body {
            "random_distribution=zoned_abs:60/10m:40/" => assert!(parse(body).is_err(), "zoned_abs zones need sizes"),
            _ => assert!(parse(body).is_ok(), "{body}: {:?}", parse(body).err()),
        }
    }
    assert_eq!(lookup("threads").map(|o| o.support), Some(Support::Accepted));
}

#[test]
fn refused_options_name_file_line_option_and_alternative() {
    let cases = [
        ("verify_only=1", "verify runs inline"),
        ("sg_write_mode=verify", "passthrough commands are not issued"),
        ("file_append=1", "own offset= and size="),
        ("zonecapacity=1g", "zonemode=strided"),
        ("cmdprio_percentage=10", "leave the option out"),
    ];
    for (body, alternative) in cases {
        let e = parse(body).unwrap_err();
        let option = body.split('=').next().unwrap();
        assert!(e.starts_with(&format!("jobs/x.fio:2: option '{option}' is not supported: ")), "{e}");
        assert!(e.contains(alternative), "{e}");
    }
    // io_uring_cmd's NVMe reads and writes are what the drive serves; fio knows no other type.
    assert!(parse("ioengine=io_uring_cmd\ncmd_type=nvme").is_ok());
    let e = parse("cmd_type=scsi").unwrap_err();
    assert!(
        e.contains("jobs/x.fio:2: option 'cmd_type' = scsi is not a command type of fio 3.33 (allowed nvme)"),
        "{e}"
    );
    let e = parse("zonemode=zbd").unwrap_err();
    assert!(e.contains("'zonemode' = zbd is not supported (allowed none, strided"), "{e}");
    let lenient =
        parse_str("[j]\nlog_hist_msec=10\n", "x.fio", &ParseOptions { ignore_unsupported: true, host: None }).unwrap();
    assert_eq!(lenient.warnings.len(), 1);
    assert!(lenient.warnings[0].contains("ignoring refused option 'log_hist_msec'"), "{:?}", lenient.warnings);
}
