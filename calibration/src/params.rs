//! The declared set of fittable profile parameters, their physical bounds and which measured
//! figures each one can move. Only these are ever changed by a fit: geometry, capacity and
//! firmware policy are physics or published facts, not knobs.

use crate::plan::{Metric, Phase, Plan};
use ftl::DriveProfile;
use host_bench::job::RwMode;
use std::fmt;

/// A fittable parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    CmdLimitKiops,
    ReadOverheadUs,
    WriteAckUs,
    /// Word-line program time (all planes, all passes).
    TProgUs,
    /// Mean array read time; a per-page-type list is scaled as a whole, keeping its shape.
    TRUs,
    IccReadMa,
    IccProgMa,
    IccEraseMa,
    /// Power-governor averaging window: moves only figures measured under a power cap, so it is
    /// not among the defaults.
    PowerWindowUs,
    /// The controller's write datapath (MB/s; unset: no limit but the link and the NAND).
    WriteBandwidthMbps,
    /// The controller's read datapath, shared with writes (MB/s; unset: no limit).
    ReadBandwidthMbps,
    /// The controller's write-command limit (k/s; unset: the command limit).
    WriteCmdLimitKiops,
}

pub const ALL: [Param; 12] = [
    Param::CmdLimitKiops,
    Param::ReadOverheadUs,
    Param::WriteAckUs,
    Param::TProgUs,
    Param::TRUs,
    Param::IccReadMa,
    Param::IccProgMa,
    Param::IccEraseMa,
    Param::PowerWindowUs,
    Param::WriteBandwidthMbps,
    Param::ReadBandwidthMbps,
    Param::WriteCmdLimitKiops,
];

/// The default fit: controller and NAND timing (what the embedded profiles are calibrated on)
/// and the controller's write and read datapaths, which bind a drive's sequential figures below
/// its NAND and link (the P5520's writes, the P4420's reads).
pub const DEFAULT: [Param; 7] = [
    Param::CmdLimitKiops,
    Param::ReadOverheadUs,
    Param::WriteAckUs,
    Param::TProgUs,
    Param::TRUs,
    Param::WriteBandwidthMbps,
    Param::ReadBandwidthMbps,
];

impl Param {
    /// The profile key, `section.field`.
    pub fn key(self) -> &'static str {
        match self {
            Param::CmdLimitKiops => "controller.cmd_limit_kiops",
            Param::ReadOverheadUs => "controller.read_overhead_us",
            Param::WriteAckUs => "controller.write_ack_us",
            Param::TProgUs => "timing.t_prog_us",
            Param::TRUs => "timing.t_r_us",
            Param::IccReadMa => "nand_energy.icc_read_ma",
            Param::IccProgMa => "nand_energy.icc_prog_ma",
            Param::IccEraseMa => "nand_energy.icc_erase_ma",
            Param::PowerWindowUs => "power.window_us",
            Param::WriteBandwidthMbps => "controller.write_bandwidth_mbps",
            Param::ReadBandwidthMbps => "controller.read_bandwidth_mbps",
            Param::WriteCmdLimitKiops => "controller.write_cmd_limit_kiops",
        }
    }

    pub fn from_key(s: &str) -> Option<Param> {
        ALL.into_iter().find(|p| p.key() == s || p.key().split('.').nth(1) == Some(s))
    }

    pub fn get(self, p: &DriveProfile) -> f64 {
        match self {
            Param::CmdLimitKiops => p.controller.cmd_limit_kiops,
            Param::ReadOverheadUs => p.controller.read_overhead_us,
            Param::WriteAckUs => p.controller.write_ack_us,
            Param::TProgUs => p.timing.t_prog_us,
            Param::TRUs => p.timing.t_r_us.iter().sum::<f64>() / p.timing.t_r_us.len().max(1) as f64,
            Param::IccReadMa => p.nand_energy.icc_read_ma,
            Param::IccProgMa => p.nand_energy.icc_prog_ma,
            Param::IccEraseMa => p.nand_energy.icc_erase_ma,
            Param::PowerWindowUs => p.power.window_us,
            Param::WriteBandwidthMbps => p.controller.write_bandwidth_mbps.unwrap_or(LIMIT_NONE.1),
            Param::ReadBandwidthMbps => p.controller.read_bandwidth_mbps.unwrap_or(LIMIT_NONE.1),
            Param::WriteCmdLimitKiops => p.controller.write_cmd_limit_kiops.unwrap_or(WRITE_CMD_NONE.1),
        }
    }

    /// Whether `p` leaves this parameter unset: an optional limit with no value, which the fit
    /// reads as its upper bound (a limit there binds nothing) and writes back unset.
    pub fn is_unset_in(self, p: &DriveProfile) -> bool {
        match self {
            Param::WriteBandwidthMbps => p.controller.write_bandwidth_mbps.is_none(),
            Param::ReadBandwidthMbps => p.controller.read_bandwidth_mbps.is_none(),
            Param::WriteCmdLimitKiops => p.controller.write_cmd_limit_kiops.is_none(),
            _ => false,
        }
    }

    /// Sets the parameter; an optional limit at its upper bound (or, for the write-command
    /// limit, at or above the command limit, which it may not exceed) is unset.
    pub fn set(self, p: &mut DriveProfile, v: f64) {
        let limit = |v: f64, upper: f64| (v < upper * 0.999).then_some(v);
        match self {
            Param::CmdLimitKiops => p.controller.cmd_limit_kiops = v,
            Param::ReadOverheadUs => p.controller.read_overhead_us = v,
            Param::WriteAckUs => p.controller.write_ack_us = v,
            Param::TProgUs => p.timing.t_prog_us = v,
            Param::TRUs => {
                let k = v / Param::TRUs.get(p);
                p.timing.t_r_us = scaled_t_r(&p.timing.t_r_us, k);
            }
            Param::IccReadMa => p.nand_energy.icc_read_ma = v,
            Param::IccProgMa => p.nand_energy.icc_prog_ma = v,
            Param::IccEraseMa => p.nand_energy.icc_erase_ma = v,
            Param::PowerWindowUs => p.power.window_us = v,
            Param::WriteBandwidthMbps => p.controller.write_bandwidth_mbps = limit(v, LIMIT_NONE.1),
            Param::ReadBandwidthMbps => p.controller.read_bandwidth_mbps = limit(v, LIMIT_NONE.1),
            Param::WriteCmdLimitKiops => {
                p.controller.write_cmd_limit_kiops = limit(v, WRITE_CMD_NONE.1.min(p.controller.cmd_limit_kiops));
            }
        }
    }

    /// Physical bounds for a cell type ("slc", "mlc", "tlc", "qlc").
    ///
    /// tR: TLC 30-90 us (ISSCC 2021 176L table ~40-55 us; older 3D generations slower), QLC
    /// 60-200 us. tPROG per word line on all planes: TLC 700-4000 us (160-184 MB/s/die for
    /// 176L at 4 planes down to ~48 MB/s/die, the planar-TLC era), QLC 2-25 ms (40 MB/s/die
    /// for 144L down to 12 MB/s/die for 64L, ISSCC 2018/2021). Controller: command limits of
    /// 0.1-6 M/s, firmware/ECC read overhead 2-60 us, write acknowledgement 2-60 us (spec-sheet
    /// write latencies are 5-20 us). Currents: 5-60 mA (SimpleSSD/Amber ~25 mA). Datapaths
    /// 10 MB/s-32 GB/s (32 GB/s, above a Gen5 x8 link, is no limit), write commands 10-6000 k/s.
    /// TLC tPROG up to 6 ms: the P5520's floating-gate TLC fits 5.0 ms on its random writes.
    pub fn bounds(self, cell: &str) -> (f64, f64) {
        let qlc = cell == "qlc";
        match self {
            Param::CmdLimitKiops => (100.0, 6000.0),
            Param::ReadOverheadUs => (2.0, 60.0),
            Param::WriteAckUs => (2.0, 60.0),
            Param::TProgUs if qlc => (2000.0, 25_000.0),
            Param::TProgUs => (700.0, 6000.0),
            Param::TRUs if qlc => (60.0, 200.0),
            Param::TRUs => (30.0, 90.0),
            Param::IccReadMa | Param::IccProgMa | Param::IccEraseMa => (5.0, 60.0),
            Param::PowerWindowUs => (100.0, 1_000_000.0),
            Param::WriteBandwidthMbps | Param::ReadBandwidthMbps => LIMIT_NONE,
            Param::WriteCmdLimitKiops => WRITE_CMD_NONE,
        }
    }

    /// Can this parameter move the plan's figure?
    pub fn affects(self, p: &Plan) -> bool {
        let reads = p.phase == Phase::Read || p.workload.rwmixread.is_some() || p.workload.rw == RwMode::RandRw;
        let writes = p.phase != Phase::Read;
        // Under a cap the governor admits NAND operations by their energy, so the currents and
        // its window move throughput figures there, not only power readings.
        let capped = p.power_cap_w.is_some();
        match self {
            Param::CmdLimitKiops => p.metric != Metric::Power,
            Param::ReadOverheadUs | Param::TRUs => reads,
            Param::WriteAckUs | Param::TProgUs | Param::WriteBandwidthMbps | Param::WriteCmdLimitKiops => writes,
            Param::ReadBandwidthMbps => reads,
            Param::IccReadMa | Param::IccProgMa | Param::IccEraseMa => p.metric == Metric::Power || capped,
            Param::PowerWindowUs => capped,
        }
    }
}

/// Bounds of a datapath limit, MB/s; the upper one stands for none.
const LIMIT_NONE: (f64, f64) = (10.0, 32_000.0);
/// Bounds of the write-command limit, k/s; the upper one stands for none.
const WRITE_CMD_NONE: (f64, f64) = (10.0, 6000.0);

/// `t_r_us` scaled by `k`, rounded to 0.1 us.
pub fn scaled_t_r(t: &[f64], k: f64) -> Vec<f64> {
    t.iter().map(|x| (x * k * 10.0).round() / 10.0).collect()
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{map_row, DriveFacts, Mapping};

    fn plan(line: &str) -> Plan {
        let text = format!("{}\n{line}\n", crate::measured::COLUMNS.join(","));
        let row = crate::measured::parse(&text, "t.csv").unwrap().remove(0);
        let facts = |name: &str| (name == "tiny").then_some(DriveFacts { ps0_w: 8.0, states_w: vec![8.0, 6.0, 4.0] });
        match map_row(&row, &facts) {
            Mapping::Run(p) => *p,
            Mapping::Skip(why) => panic!("{line}: {why}"),
        }
    }

    #[test]
    fn currents_and_the_window_move_capped_throughput_only() {
        let capped = plan("a,tiny,,,vdbench,steady,SQL profile,,68,80%,,,relative_iops,0.85,ratio,power mode 1");
        let free = plan("b,tiny,,,fio,steady,4k random write,4k,0,yes,32,4,iops,1000,iops,");
        let power = plan("c,tiny,,,fio,steady,4k random write,4k,0,yes,32,4,power,5,W,");
        for q in [Param::IccReadMa, Param::IccProgMa, Param::IccEraseMa] {
            assert!(q.affects(&capped) && q.affects(&power) && !q.affects(&free), "{q}");
        }
        assert!(Param::PowerWindowUs.affects(&capped) && !Param::PowerWindowUs.affects(&free));
    }

    #[test]
    fn an_optional_limit_at_its_upper_bound_is_unset() {
        let mut p = ftl::profile::load("tiny").unwrap().profile;
        assert!(Param::WriteBandwidthMbps.is_unset_in(&p));
        assert_eq!(Param::WriteBandwidthMbps.get(&p), LIMIT_NONE.1, "unset reads as no limit");
        Param::WriteBandwidthMbps.set(&mut p, 850.0);
        assert_eq!(p.controller.write_bandwidth_mbps, Some(850.0));
        Param::WriteBandwidthMbps.set(&mut p, LIMIT_NONE.1);
        assert_eq!(p.controller.write_bandwidth_mbps, None);
        // The write-command limit may not exceed the command limit: at or above it, none.
        let cmd = p.controller.cmd_limit_kiops;
        Param::WriteCmdLimitKiops.set(&mut p, cmd / 2.0);
        assert_eq!(p.controller.write_cmd_limit_kiops, Some(cmd / 2.0));
        Param::WriteCmdLimitKiops.set(&mut p, cmd);
        assert_eq!(p.controller.write_cmd_limit_kiops, None);
    }
}
