//! Embedded profiles load, and their capacity arithmetic is what the geometry says.
#![allow(clippy::cast_possible_truncation)] // casts are of the test's own small values

use ftl::profile;

/// Raw NAND of every embedded profile from facts outside the simulator (package counts and
/// sizes in drives.csv, REFERENCE.md), and the relative error allowed: a profile added without
/// such a fact fails here.
const RAW_FACTS: [(&str, f64, f64); 8] = [
    ("tiny", (96u64 << 20) as f64, 0.0),
    ("generic-tlc", 8.0 * TIB, 0.002),
    ("generic-qlc", 8.0 * TIB, 0.002),
    ("solidigm-d5-p5430", 17.6e12, 0.005),
    ("intel-d5-p4420", 12288.0 * GIB, 0.0),
    ("solidigm-d7-p5520", 8.0 * TIB, 0.002),
    ("solidigm-d7-ps1010", 8.0 * TIB, 0.002),
    ("memblaze-pblaze7-7a40", 8.0 * TIB, 0.002),
];

#[test]
fn every_embedded_profile_loads_with_its_known_raw_nand_and_positive_op() {
    for name in profile::embedded_names() {
        let p = profile::load(name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.profile.name, name);
        let (_, raw, tol) =
            RAW_FACTS.iter().find(|f| f.0 == name).unwrap_or_else(|| panic!("{name}: no known raw capacity"));
        let got = p.raw_bytes() as f64;
        assert!((got - raw).abs() <= tol * raw, "{name}: raw {got:.5e} B vs known {raw:.5e} B");
        assert!(p.stock_op() > 0.0, "{name}: OP {}", p.stock_op());
    }
}

#[test]
fn tiny_is_tiny() {
    let p = profile::load("tiny").unwrap();
    assert_eq!(p.raw_bytes(), 96 << 20);
    assert!((p.stock_op() - 0.2).abs() < 1e-9);
}

#[test]
fn generic_tlc_is_8_tib_behind_7_68_tb() {
    let p = profile::load("generic-tlc").unwrap();
    assert_eq!(p.geometry.dies(), 128);
    let raw_tib = p.raw_bytes() as f64 / (1u64 << 40) as f64;
    assert!((raw_tib - 8.0).abs() < 0.01, "{raw_tib}");
    assert!((p.stock_op() - 0.146).abs() < 0.002, "{}", p.stock_op());
}

#[test]
fn bad_profiles_name_file_key_value_and_range() {
    let good = profile::EMBEDDED.iter().find(|(n, _)| *n == "tiny").unwrap().1;
    let cases = [
        ("channels = 1", "channels = 0", "x.toml: key `geometry.channels` = 0 is invalid (allowed: 1..=64)"),
        (
            "t_prog_us = 1200.0",
            "t_prog_us = 5.0",
            "x.toml: key `timing.t_prog_us` = 5 is invalid (allowed: 10..=50000)",
        ),
        (
            "pages_per_block = 48",
            "pages_per_block = 47",
            "x.toml: key `geometry.pages_per_block` = 47 is invalid (allowed: a multiple of 3",
        ),
        (
            "cmd_limit_kiops = 200.0",
            "cmd_limit_kiops = 200.0\nturbo = true",
            "x.toml: key `controller.turbo`: unknown field `turbo`",
        ),
    ];
    for (from, to, want) in cases {
        assert!(good.contains(from), "{from}");
        let text = good.replacen(from, to, 1);
        let e = profile::parse(&text, "x.toml").unwrap_err().to_string();
        assert!(e.starts_with(want), "got: {e}\nwant: {want}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
}

/// Raw capacity and stock OP of a real drive, against what is known of its NAND.
struct Known {
    name: &'static str,
    dies: u32,
    user_tb: f64,
    /// Known (or REFERENCE.md-derived) raw NAND, bytes.
    raw_bytes: f64,
    /// Allowed relative error of the raw capacity.
    raw_tol: f64,
    /// Stock OP, (raw - user) / user.
    op: f64,
    op_tol: f64,
}

fn check_known(k: &Known) {
    let p = profile::load(k.name).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.geometry.dies(), k.dies, "{}: dies", k.name);
    assert_eq!(p.profile.host.user_capacity_bytes, (k.user_tb * 1e12).round() as u64, "{}: user capacity", k.name);
    let raw = p.raw_bytes() as f64;
    let rel = (raw - k.raw_bytes).abs() / k.raw_bytes;
    assert!(rel <= k.raw_tol, "{}: raw {raw:.4e} vs known {:.4e} ({:.2}% off)", k.name, k.raw_bytes, rel * 100.0);
    assert!((p.stock_op() - k.op).abs() <= k.op_tol, "{}: stock OP {:.4} vs {}", k.name, p.stock_op(), k.op);
}

const TIB: f64 = (1u64 << 40) as f64;
const GIB: f64 = (1u64 << 30) as f64;

#[test]
fn p5430_is_96_dies_and_17_6_tb_raw() {
    // drives.csv: 8 x 4-die + 8 x 8-die packages = 96 dies; REFERENCE.md: ~17.6 TB raw, 14.5% OP.
    check_known(&Known {
        name: "solidigm-d5-p5430",
        dies: 96,
        user_tb: 15.36,
        raw_bytes: 17.6e12,
        raw_tol: 0.005,
        op: 0.145,
        op_tol: 0.003,
    });
}

#[test]
fn p4420_is_24_packages_of_4_tb() {
    // drives.csv: 24 x 29F02T2AMCQH2 of 512 GiB = 12288 GiB raw, i.e. 96 dies of 1 Tb.
    check_known(&Known {
        name: "intel-d5-p4420",
        dies: 96,
        user_tb: 7.68,
        raw_bytes: 12288.0 * GIB,
        raw_tol: 1e-9,
        op: (12288.0 * GIB - 7.68e12) / 7.68e12,
        op_tol: 1e-6,
    });
}

#[test]
fn tlc_7_68_tb_drives_have_8_tib_raw() {
    // 8 TiB behind 7.68 TB (REFERENCE.md): 14.5-14.6% OP at stock.
    for (name, dies) in [("solidigm-d7-p5520", 128), ("solidigm-d7-ps1010", 128), ("memblaze-pblaze7-7a40", 64)] {
        check_known(&Known {
            name,
            dies,
            user_tb: 7.68,
            raw_bytes: 8.0 * TIB,
            raw_tol: 0.002,
            op: 0.146,
            op_tol: 0.003,
        });
    }
}

#[test]
fn generic_qlc_is_8_tib_class_behind_7_68_tb() {
    check_known(&Known {
        name: "generic-qlc",
        dies: 48,
        user_tb: 7.68,
        raw_bytes: 8.0 * TIB,
        raw_tol: 0.002,
        op: 0.145,
        op_tol: 0.003,
    });
}

#[test]
fn qlc_profiles_are_qlc_with_two_pass_programs() {
    for name in ["generic-qlc", "solidigm-d5-p5430", "intel-d5-p4420"] {
        let p = profile::load(name).unwrap();
        assert_eq!(p.geometry.bits_per_cell, 4, "{name}");
        assert_eq!(p.timing.program_passes, 2, "{name}");
    }
}

#[test]
fn p5430_op_at_12_75_tb_is_about_38_pct() {
    // REFERENCE.md: 38% OP when the namespace is shrunk to 12.75 TB.
    let p = profile::load("solidigm-d5-p5430").unwrap();
    let op = (p.raw_bytes() as f64 - 12.75e12) / 12.75e12;
    assert!((op - 0.38).abs() < 0.005, "{op}");
}
