//! Embedded profiles load, and their capacity arithmetic is what the geometry says.

use ftl::profile;

#[test]
fn every_embedded_profile_loads_and_has_positive_op() {
    for name in profile::embedded_names() {
        let p = profile::load(name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.profile.name, name);
        let g = &p.geometry;
        assert_eq!(
            p.raw_bytes(),
            g.dies() as u64 * g.planes_per_die as u64 * g.blocks_per_plane as u64 * g.pages_per_block as u64 * g.page_bytes as u64
        );
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
        ("t_prog_us = 1200.0", "t_prog_us = 5.0", "x.toml: key `timing.t_prog_us` = 5 is invalid (allowed: 10..=50000)"),
        ("pages_per_block = 48", "pages_per_block = 47", "x.toml: key `geometry.pages_per_block` = 47 is invalid (allowed: a multiple of 3"),
        ("cmd_limit_kiops = 200.0", "cmd_limit_kiops = 200.0\nturbo = true", "x.toml: key `controller.turbo`: unknown field `turbo`"),
    ];
    for (from, to, want) in cases {
        assert!(good.contains(from), "{from}");
        let text = good.replacen(from, to, 1);
        let e = profile::parse(&text, "x.toml").unwrap_err().to_string();
        assert!(e.starts_with(want), "got: {e}\nwant: {want}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
}
