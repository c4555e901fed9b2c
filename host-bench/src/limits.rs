//! Which limit binds a simulated run: each resource's share of its capacity over a span, read
//! from the drive's counters and the profile's rates. A what-if answer shows it so the user
//! sees *why* a configuration is faster or slower (more OP -> less WA -> fewer programs; a
//! lower power state -> operations held by the governor).

use ftl::device::Counters;
use ftl::profile::ValidatedProfile;
use serde::{Deserialize, Serialize};

/// Utilisation of each resource over a span, 0..=1 (GC stall and power-held are shares of the
/// span's time). Shares are not exclusive: a program-bound run also shows busy dies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LimitShares {
    /// Share of die time spent programming: NAND programs (host + GC, i.e. x WA) x tPROG over
    /// dies x span.
    pub nand_program: f64,
    /// Share of die time busy with any array operation (reads, programs, erases).
    pub nand_busy: f64,
    /// Share of the span host writes waited for GC to free blocks.
    pub gc_stall: f64,
    /// Share of the span the power governor held NAND operations back.
    pub power_held: f64,
    /// Host commands per second over the controller's command rate.
    pub controller_cmd: f64,
    /// The busier PCIe direction's bytes per second over the link's rate.
    pub pcie: f64,
    /// Write amplification over the span (0 without writes).
    pub write_amplification: f64,
}

/// The limit named as binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    NandProgram,
    NandArray,
    GcStall,
    PowerCap,
    ControllerCmdRate,
    Pcie,
    /// No resource near saturation: latency-bound (low queue depth).
    Latency,
}

impl Limit {
    pub fn describe(self) -> &'static str {
        match self {
            Limit::NandProgram => "NAND program bandwidth (x WA)",
            Limit::NandArray => "NAND array (die time)",
            Limit::GcStall => "GC stall (no free blocks)",
            Limit::PowerCap => "power cap (governor holds ops)",
            Limit::ControllerCmdRate => "controller command rate",
            Limit::Pcie => "PCIe bandwidth",
            Limit::Latency => "latency (no resource saturated)",
        }
    }
}

/// A share at or above this counts as saturated (dies of a program-bound random write run
/// ~80% busy: the rest is channel transfers and the gaps GC pacing leaves).
const SATURATED: f64 = 0.75;
/// A time share (stall, held) above this is what the host waits on.
const WAITED: f64 = 0.25;

impl LimitShares {
    /// Shares over the counter delta `d` of a span of `span_ns` on `profile`'s drive.
    pub fn from_delta(d: &Counters, span_ns: u64, p: &ValidatedProfile, power_held_ns: u64) -> LimitShares {
        if span_ns == 0 {
            return LimitShares::default();
        }
        let span = span_ns as f64;
        let dies = p.geometry.dies().max(1) as f64;
        let unit = p.geometry.program_unit_bytes().max(1) as f64;
        let t_prog = p.timing.program_array_ns(p.geometry.planes_per_die).ns() as f64;
        let programs = d.nand_write_bytes as f64 / unit;
        let ctrl = &p.profile.controller;
        // Command-processor time: reads at the command or read-bandwidth limit, writes at the
        // write-command or write-bandwidth limit (the device charges each command the larger of
        // its two; for the totals the larger of the sums, exact when commands are one size).
        let write_ns = (d.host_writes as f64 * 1e6 / ctrl.write_cmd_limit_kiops.unwrap_or(ctrl.cmd_limit_kiops))
            .max(ctrl.write_bandwidth_mbps.map_or(0.0, |bw| d.host_write_bytes as f64 * 1e3 / bw));
        let read_ns = (d.host_reads as f64 * 1e6 / ctrl.cmd_limit_kiops)
            .max(ctrl.read_bandwidth_mbps.map_or(0.0, |bw| d.host_read_bytes as f64 * 1e3 / bw));
        let cmd_ns = read_ns + write_ns;
        let pcie_per_ns = p.profile.host.pcie_bytes_per_s() / 1e9;
        let busiest_dir = d.host_read_bytes.max(d.host_write_bytes) as f64;
        LimitShares {
            nand_program: programs * t_prog / (dies * span),
            nand_busy: d.die_busy_ns as f64 / (dies * span),
            gc_stall: d.gc_stall_ns as f64 / span,
            power_held: power_held_ns as f64 / span,
            controller_cmd: cmd_ns / span,
            pcie: busiest_dir / span / pcie_per_ns,
            write_amplification: d.wa(),
        }
    }

    /// The binding limit: the governor when operations wait on it a good share of the time;
    /// else the most saturated rate (dies, controller, PCIe); else GC when host writes wait for
    /// free blocks while the dies have time to spare (GC pacing, not bandwidth); else latency.
    pub fn binding(&self) -> Limit {
        if self.power_held >= WAITED {
            return Limit::PowerCap;
        }
        let nand = if self.nand_program >= 0.5 * self.nand_busy { Limit::NandProgram } else { Limit::NandArray };
        let rates = [(self.controller_cmd, Limit::ControllerCmdRate), (self.pcie, Limit::Pcie), (self.nand_busy, nand)];
        let (share, limit) = rates.iter().copied().fold((0.0, Limit::Latency), |a, b| if b.0 > a.0 { b } else { a });
        if share >= SATURATED {
            limit
        } else if self.gc_stall >= WAITED {
            Limit::GcStall
        } else {
            Limit::Latency
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_prefers_waits_then_the_busiest_rate() {
        let mut s = LimitShares { nand_busy: 0.95, nand_program: 0.9, controller_cmd: 0.3, ..Default::default() };
        assert_eq!(s.binding(), Limit::NandProgram);
        s.power_held = 0.4;
        assert_eq!(s.binding(), Limit::PowerCap);
        let s = LimitShares { controller_cmd: 0.99, nand_busy: 0.5, ..Default::default() };
        assert_eq!(s.binding(), Limit::ControllerCmdRate);
        let s = LimitShares { controller_cmd: 0.1, nand_busy: 0.2, ..Default::default() };
        assert_eq!(s.binding(), Limit::Latency);
        // Host writes waiting on GC with busy dies: program bandwidth; with idle dies: GC.
        let s = LimitShares { gc_stall: 0.9, nand_busy: 0.83, nand_program: 0.76, ..Default::default() };
        assert_eq!(s.binding(), Limit::NandProgram);
        let s = LimitShares { gc_stall: 0.9, nand_busy: 0.4, nand_program: 0.3, ..Default::default() };
        assert_eq!(s.binding(), Limit::GcStall);
    }
}
