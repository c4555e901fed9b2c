//! Every shipped example job file parses as it stands, with no warning: the README and the docs
//! point users at them, so an option the parser stops accepting must fail here, not for them.

use host_bench::job::{parse_str, ParseOptions};

#[test]
fn every_example_job_file_parses_without_warnings() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/jobs");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("examples/jobs") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_none_or(|e| e != "fio") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable example");
        let name = path.display().to_string();
        let file = parse_str(&text, &name, &ParseOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(file.warnings.is_empty(), "{name}: warnings {:?}", file.warnings);
        assert!(!file.jobs.is_empty(), "{name}: no job");
        seen += 1;
    }
    assert!(seen >= 7, "only {seen} example job files found in {dir}");
}
