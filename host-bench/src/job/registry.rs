//! The option registry: every option name the parser accepts, with what it means in ssdlab.
//!
//! Each entry is implemented (fio's meaning and default), accepted with a stated meaning on a
//! simulated drive (recorded, no effect), or refused with a reason naming what to use instead.
//! Names resolve exactly, by name or alias, as fio's parser does (fio does not take prefixes).

pub use super::options_table::OPTIONS;

/// What ssdlab does with an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// fio's meaning and default.
    Implemented,
    /// Accepted and recorded; its meaning on a simulated drive (or --target) is stated.
    Accepted,
    /// An error naming the alternative.
    Refused,
}

impl Support {
    pub const fn as_str(self) -> &'static str {
        match self {
            Support::Implemented => "implemented",
            Support::Accepted => "accepted",
            Support::Refused => "refused",
        }
    }
}

/// One option name (with its aliases).
#[derive(Clone, Copy, Debug)]
pub struct OptionDef {
    /// fio's canonical name; the parser applies options under this name.
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub support: Support,
    /// fio's meaning for implemented options, the stated meaning for accepted ones, the reason
    /// and alternative for refused ones.
    pub meaning: &'static str,
    /// Where the name comes from: "fio 3.33", "fio 3.33 (hidden)", an engine or profile.
    pub source: &'static str,
}

/// The entry for `key` (a name or an alias), exactly as written.
pub fn lookup(key: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|o| o.name == key || o.aliases.contains(&key))
}

/// docs/fio-options.md, rendered from [`OPTIONS`].
pub fn options_markdown() -> String {
    let mut s = String::from(
        "# fio options in ssdlab\n\n\
         Generated from the parser's option registry (`host-bench/src/job/options_table.rs`); a test keeps\n\
         this file and the registry equal, and holds the registry against `fio --cmdhelp=all` of fio 3.33\n\
         (`host-bench/tests/fio/data/fio-3.33-cmdhelp-all.txt`).\n\n\
         - **implemented**: fio's meaning and default.\n\
         - **accepted**: recorded in the report with the meaning stated here (no effect on the run).\n\
         - **refused**: an error naming the file, line and option, with the alternative below.\n\n\
         Names match exactly, by name or alias, as in fio's parser (no prefixes).\n",
    );
    let counts = |sup: Support| OPTIONS.iter().filter(|o| o.support == sup).count();
    s.push_str(&format!(
        "\n{} options: {} implemented, {} accepted, {} refused.\n\n",
        OPTIONS.len(),
        counts(Support::Implemented),
        counts(Support::Accepted),
        counts(Support::Refused)
    ));
    s.push_str("| option | aliases | ssdlab | meaning | source |\n|---|---|---|---|---|\n");
    for o in OPTIONS {
        let aliases: Vec<String> = o.aliases.iter().map(|a| format!("`{a}`")).collect();
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            o.name,
            aliases.join(", "),
            o.support.as_str(),
            o.meaning.replace('|', "\\|"),
            o.source
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::error::Loc;
    use crate::job::resolve::{apply_option, Applied};
    use crate::job::JobSpec;

    /// A valid value for every implemented option: each must reach its resolver.
    const SAMPLES: &[(&str, &str)] = &[
        ("description", "d"),
        ("name", "n"),
        ("rw", "randrw"),
        ("bs", "4k"),
        ("ba", "4k"),
        ("bssplit", "4k/50:8k/"),
        ("norandommap", "1"),
        ("iodepth", "8"),
        ("size", "1g"),
        ("io_size", "1g"),
        ("number_ios", "10"),
        ("random_generator", "lfsr"),
        ("random_distribution", "zoned:50/5:30/15:20/"),
        ("percentage_random", "50"),
        ("offset", "1m"),
        ("loops", "2"),
        ("numjobs", "2"),
        ("runtime", "10"),
        ("time_based", "1"),
        ("ramp_time", "1"),
        ("verify", "crc32c"),
        ("do_verify", "0"),
        ("write_iolog", "/tmp/x.log"),
        ("rwmixread", "70"),
        ("rwmixwrite", "30"),
        ("rate_iops", "1000"),
        ("rate", "1m,500k"),
        ("rate_process", "poisson"),
        ("filesize", "16m"),
        ("rate_min", "1m,500k"),
        ("rate_iops_min", "100"),
        ("rate_cycle", "500"),
        ("max_latency", "10ms,20ms"),
        ("stonewall", "1"),
        ("new_group", "1"),
        ("exitall", "1"),
        ("exit_what", "stonewall"),
        ("wait_for", "other"),
        ("group_reporting", "1"),
        ("percentile_list", "50:99"),
        ("unified_rw_reporting", "mixed"),
        ("steadystate", "iops_slope:0.3%"),
        ("steadystate_duration", "60"),
        ("steadystate_ramp_time", "5"),
        ("read_iolog", "/tmp/x.log"),
        ("replay_no_stall", "1"),
        ("replay_time_scale", "200"),
        ("replay_scale", "2"),
        ("replay_align", "4k"),
        ("write_bw_log", "x"),
        ("write_iops_log", "x"),
        ("write_lat_log", "x"),
        ("log_avg_msec", "500"),
        ("log_max_value", "1"),
        ("log_offset", "0"),
        ("log_prio", "1"),
        ("per_job_logs", "0"),
        ("zonemode", "strided"),
        ("zonesize", "16k"),
        ("zonerange", "64k"),
        ("zoneskip", "1m"),
        ("rw_sequencer", "identical"),
        ("kb_base", "1000"),
        ("latency_target", "2ms"),
        ("latency_window", "100ms"),
        ("latency_percentile", "99.9"),
        ("latency_run", "1"),
        ("flow_id", "2"),
        ("flow", "3"),
        ("flow_sleep", "100"),
        ("io_submit_mode", "offload"),
        ("bsrange", "4k-16k"),
        ("offset_increment", "1m"),
        ("offset_align", "64k"),
        ("thinktime", "100"),
        ("thinktime_spin", "10"),
        ("thinktime_blocks", "4"),
        ("thinktime_blocks_type", "issue"),
        ("thinktime_iotime", "1"),
        ("startdelay", "1-2"),
    ];

    #[test]
    fn every_implemented_option_has_a_resolver() {
        let mut implemented: Vec<&str> =
            OPTIONS.iter().filter(|o| o.support == Support::Implemented).map(|o| o.name).collect();
        let mut sampled: Vec<&str> = SAMPLES.iter().map(|s| s.0).collect();
        implemented.sort_unstable();
        sampled.sort_unstable();
        assert_eq!(implemented, sampled, "every implemented option needs a sample value here");
        for &(name, value) in SAMPLES {
            let mut spec = JobSpec::with_defaults("j", 1);
            let loc = Loc { file: "t.fio", line: 1, option: name, value, kb: Default::default() };
            let applied = apply_option(&mut spec, name, Some(value), &loc).unwrap();
            assert!(matches!(applied, Applied::Known), "{name}");
        }
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut all: Vec<&str> =
            OPTIONS.iter().flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied())).collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
        assert!(OPTIONS.iter().all(|o| !o.meaning.is_empty()));
    }
}
