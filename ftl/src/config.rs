//! Drive-profile sections owned by the firmware and the drive around the NAND: host interface,
//! controller, FTL policy and power. Plain serde structs with defaults and units in the names;
//! `validate` turns them into checked values or a [`ConfigError`] naming the key.

use nand_model::config_error::{check_f64, check_u64};
use nand_model::{ConfigError, SimTime};
use serde::{Deserialize, Serialize};

/// `[host]`: what the host sees.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Stock user capacity in bytes (decimal, as on the label: 7.68 TB = 7_680_000_000_000).
    pub user_capacity_bytes: u64,
    /// PCIe generation (3, 4, 5, 6).
    pub pcie_gen: u32,
    /// PCIe lanes.
    pub pcie_lanes: u32,
    /// Logical block (sector) size the host addresses, bytes (512e is what enterprise drives
    /// ship with; PTS-E uses 0.5 KiB transfers).
    #[serde(default = "d_512")]
    pub logical_block_bytes: u32,
}

/// `[controller]`: the parts of the controller that bound performance besides the NAND.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerConfig {
    /// Command-processing limit of the controller (all queues, all cores), thousand commands/s.
    pub cmd_limit_kiops: f64,
    /// Write-command limit of the controller, thousand commands/s: a write holds the command
    /// processor longer than a read (mapping update, buffer allocation, journal entry), so a
    /// drive whose NAND could take more random writes (low WA at high OP) stops here. Unset =
    /// `cmd_limit_kiops` (writes cost what reads cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cmd_limit_kiops: Option<f64>,
    /// Write-data limit of the controller's datapath (DMA into DRAM, buffer management), MB/s:
    /// a write holds the command processor at least its bytes at this rate. Sequential writes
    /// stop here when the NAND could program faster. Unset = no such limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bandwidth_mbps: Option<f64>,
    /// Read-data limit of the controller's datapath (ECC decode, buffer, DMA to the host), MB/s:
    /// a read holds the command processor at least its bytes at this rate, in the same queue
    /// as writes, so reads and writes share it. For controllers whose sequential reads stop
    /// below the PCIe link while the NAND and channels could go faster. Unset = no such limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bandwidth_mbps: Option<f64>,
    /// Firmware, ECC decode and DMA time added to every NAND read on its way to the host, us.
    #[serde(default = "d_read_overhead")]
    pub read_overhead_us: f64,
    /// Time from a write command's arrival to its acknowledgement when the write buffer has room
    /// (DMA into DRAM + completion), us.
    #[serde(default = "d_write_ack")]
    pub write_ack_us: f64,
    /// Size of the power-loss-protected DRAM write buffer, MiB.
    #[serde(default = "d_write_buffer")]
    pub write_buffer_mib: u32,
    /// Power-loss protection (capacitors flush the write buffer on power loss).
    #[serde(default = "d_true")]
    pub plp: bool,
    /// Logical-to-physical mapping unit, bytes (4096 or 16384).
    #[serde(default = "d_4096")]
    pub mapping_unit_bytes: u32,
    /// Sequential read-ahead: after three host reads in a row continue one another, the
    /// controller keeps this much of the following data read into DRAM, KiB (0 = off).
    #[serde(default)]
    pub read_ahead_kib: u32,
}

/// GC victim selection policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    /// Fewest valid units first.
    Greedy,
    /// Max (1 - u) * age / (2u) (Rosenblum & Ousterhout 1992; Kawaguchi et al. 1995).
    CostBenefit,
}

/// `[ftl]`: firmware policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    #[serde(default = "d_policy")]
    pub gc_policy: GcPolicy,
    /// Background GC starts when free blocks fall below this share of all blocks, %.
    #[serde(default = "d_bg")]
    pub gc_bg_free_pct: f64,
    /// Foreground GC (host writes wait) below this share, %.
    #[serde(default = "d_fg")]
    pub gc_fg_free_pct: f64,
    /// Blocks set aside for bad-block replacement and firmware metadata, % of all blocks. They
    /// hold no user data and are not part of the GC spare space.
    #[serde(default = "d_reserved")]
    pub reserved_blocks_pct: f64,
    /// Separate write streams for host data and GC-relocated (colder) data.
    #[serde(default = "d_true")]
    pub hot_cold_separation: bool,
}

/// `[power]`: drive-level power model, NVMe power states and the power governor's policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerConfig {
    /// Maximum power of each NVMe power state (PS0, PS1, ...), W.
    pub states_w: Vec<f64>,
    /// Controller, DRAM and PHY baseline while active but idle, W.
    pub controller_idle_w: f64,
    /// Controller datapath energy per byte a NAND operation moves to or from the controller
    /// (PCIe, DRAM staging, LDPC and NAND I/O), pJ/byte. Host reads and writes and GC's
    /// relocated bytes alike: GC data passes the same decode/encode path, though not PCIe, so
    /// for GC this is an upper bound. Reported energy and the governor charge the same bytes.
    #[serde(default = "d_host_pj")]
    pub host_pj_per_byte: f64,
    /// Averaging window of the power governor's token bucket, us. NVMe's Maximum Power is the
    /// *sustained* draw of a power state, so the bucket is what holds the cap: it refills at
    /// cap - baseline and is (cap - baseline) x window deep, so the average over any window and
    /// longer stays at the cap. 10 ms spans the longest NAND op (a QLC erase) and is short next to
    /// any measured phase, also a scaled one (est.; the patents of REFERENCE.md give no number).
    #[serde(default = "d_window")]
    pub window_us: f64,
    /// Peak credits as a multiple of the cap: the NAND may draw at most cap x peak_ratio -
    /// baseline at any instant (US 10509591: average + peak credits), so single operations may
    /// burst above the sustained cap while the bucket holds the average. 1 = the cap holds at every
    /// instant as well, which (credits are held over an op's whole span, channel waits included)
    /// throttles a drive far below its average budget.
    #[serde(default = "d_peak_ratio")]
    pub peak_ratio: f64,
    /// Host-interface power the governor keeps free at all times, W. Unset (the default): nothing
    /// is kept free; the datapath energy of each byte an operation moves (`host_pj_per_byte`) is
    /// charged to the bucket with the operation, as a power meter would see it.
    #[serde(default)]
    pub host_reserve_w: Option<f64>,
    /// Width of the power meter's bins, us: peak power is the highest bin (1 ms: as a
    /// drive's power-monitoring loop samples, est.).
    #[serde(default = "d_meter_bin")]
    pub meter_bin_us: f64,
}

fn d_512() -> u32 {
    512
}
fn d_4096() -> u32 {
    4096
}
fn d_read_overhead() -> f64 {
    8.0
}
fn d_write_ack() -> f64 {
    6.0
}
fn d_write_buffer() -> u32 {
    64
}
fn d_true() -> bool {
    true
}
fn d_policy() -> GcPolicy {
    GcPolicy::Greedy
}
fn d_bg() -> f64 {
    2.0
}
fn d_fg() -> f64 {
    1.0
}
fn d_reserved() -> f64 {
    1.0
}
fn d_host_pj() -> f64 {
    200.0
}
fn d_window() -> f64 {
    10_000.0
}
fn d_peak_ratio() -> f64 {
    1.5
}
fn d_meter_bin() -> f64 {
    1_000.0
}

impl HostConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_u64("host.user_capacity_bytes", self.user_capacity_bytes, 1 << 20, 1 << 50)?;
        check_u64("host.pcie_gen", self.pcie_gen.into(), 1, 6)?;
        if ![1, 2, 4, 8, 16].contains(&self.pcie_lanes) {
            return Err(ConfigError::new("host.pcie_lanes", self.pcie_lanes, "1, 2, 4, 8 or 16"));
        }
        if ![512, 4096].contains(&self.logical_block_bytes) {
            return Err(ConfigError::new("host.logical_block_bytes", self.logical_block_bytes, "512 or 4096"));
        }
        Ok(())
    }

    /// Usable PCIe bandwidth per direction, bytes/s: raw GT/s x lanes x line-code efficiency x
    /// 0.95 for the packet overhead of a 512 B max payload: each TLP carries ~24 B besides its
    /// data (framing 4, header 16, LCRC 4), 512 / 536 = 0.955, less ~0.5% for DLLPs and skip
    /// sets. A PCIe 4.0 x4 link gives 7.48 GB/s, 5.0 x4 14.96 GB/s. The measured sequential
    /// reads of two Gen5 drives (measured.csv p1010-seqr 14,848 MB/s, 7a40-seqr 14,310) need at
    /// least 0.943: a 256 B payload (0.905) cannot carry them.
    pub fn pcie_bytes_per_s(&self) -> f64 {
        let (gts, code) = match self.pcie_gen {
            1 => (2.5, 0.8),
            2 => (5.0, 0.8),
            3 => (8.0, 128.0 / 130.0),
            4 => (16.0, 128.0 / 130.0),
            5 => (32.0, 128.0 / 130.0),
            _ => (64.0, 242.0 / 256.0),
        };
        gts * 1e9 / 8.0 * code * self.pcie_lanes as f64 * 0.95
    }
}

impl ControllerConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_f64("controller.cmd_limit_kiops", self.cmd_limit_kiops, 1.0, 100_000.0)?;
        if let Some(w) = self.write_cmd_limit_kiops {
            check_f64("controller.write_cmd_limit_kiops", w, 1.0, self.cmd_limit_kiops)?;
        }
        if let Some(b) = self.write_bandwidth_mbps {
            check_f64("controller.write_bandwidth_mbps", b, 10.0, 1_000_000.0)?;
        }
        if let Some(b) = self.read_bandwidth_mbps {
            check_f64("controller.read_bandwidth_mbps", b, 10.0, 1_000_000.0)?;
        }
        check_f64("controller.read_overhead_us", self.read_overhead_us, 0.0, 1_000.0)?;
        check_f64("controller.write_ack_us", self.write_ack_us, 0.0, 1_000.0)?;
        check_u64("controller.write_buffer_mib", self.write_buffer_mib.into(), 1, 65_536)?;
        check_u64("controller.read_ahead_kib", self.read_ahead_kib.into(), 0, 1 << 20)?;
        if ![4096, 8192, 16384].contains(&self.mapping_unit_bytes) {
            return Err(ConfigError::new(
                "controller.mapping_unit_bytes",
                self.mapping_unit_bytes,
                "4096, 8192 or 16384",
            ));
        }
        Ok(())
    }
}

impl FtlConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_f64("ftl.gc_bg_free_pct", self.gc_bg_free_pct, 0.0, 50.0)?;
        check_f64("ftl.gc_fg_free_pct", self.gc_fg_free_pct, 0.0, self.gc_bg_free_pct)?;
        check_f64("ftl.reserved_blocks_pct", self.reserved_blocks_pct, 0.0, 50.0)?;
        Ok(())
    }
}

impl PowerConfig {
    /// Host-interface reserve kept out of the governor's budget, W (0 unless `host_reserve_w`).
    pub fn host_reserve_w(&self) -> f64 {
        self.host_reserve_w.unwrap_or(0.0)
    }

    /// The governor for a cap (or a meter only, `cap_w` = `None`): its baseline is the controller
    /// idle power + `standby_w` of the dies + the host-interface reserve; the datapath energy of
    /// the bytes each operation moves is charged with the operation.
    pub fn governor_config(
        &self,
        cap_w: Option<f64>,
        standby_w: f64,
        interval_ns: SimTime,
    ) -> nand_model::GovernorConfig {
        let us = |v: f64| nand_model::time::us_to_ns(v).max(SimTime::from_ns(1));
        nand_model::GovernorConfig {
            cap_w,
            baseline_w: self.controller_idle_w + standby_w + self.host_reserve_w(),
            window_ns: us(self.window_us),
            peak_ratio: self.peak_ratio,
            host_j_per_byte: if self.host_reserve_w.is_some() { 0.0 } else { self.host_pj_per_byte * 1e-12 },
            bin_ns: us(self.meter_bin_us),
            interval_ns,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.states_w.is_empty() || self.states_w.len() > 32 {
            return Err(ConfigError::new(
                "power.states_w",
                format!("{} entries", self.states_w.len()),
                "1..=32 entries",
            ));
        }
        for &w in &self.states_w {
            check_f64("power.states_w", w, 0.1, 1_000.0)?;
        }
        check_f64("power.controller_idle_w", self.controller_idle_w, 0.0, 100.0)?;
        check_f64("power.host_pj_per_byte", self.host_pj_per_byte, 0.0, 100_000.0)?;
        check_f64("power.window_us", self.window_us, 1.0, 10_000_000.0)?;
        check_f64("power.peak_ratio", self.peak_ratio, 1.0, 10.0)?;
        if let Some(w) = self.host_reserve_w {
            check_f64("power.host_reserve_w", w, 0.0, 100.0)?;
        }
        check_f64("power.meter_bin_us", self.meter_bin_us, 10.0, 1_000_000.0)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::HostConfig;

    fn link(pcie_gen: u32) -> f64 {
        HostConfig { user_capacity_bytes: 1, pcie_gen, pcie_lanes: 4, logical_block_bytes: 512 }.pcie_bytes_per_s()
    }

    #[test]
    fn a_gen5_x4_link_carries_the_sequential_reads_measured_on_gen5_drives() {
        // measured.csv: p1010-seqr 14,848 MB/s, 7a40-seqr 14,310 MB/s; the link's line rate after
        // 128b/130b coding is 15.75 GB/s, which packet headers keep it below.
        let gen5 = link(5);
        assert!(gen5 >= 14.848e9, "{gen5}");
        assert!(gen5 < 32e9 / 8.0 * 4.0 * 128.0 / 130.0, "{gen5}");
        // Gen4 x4 above the 7.1 GB/s a Gen4 drive's spec sheet gives (drives.csv: D7-P5520).
        assert!(link(4) >= 7.1e9, "{}", link(4));
    }
}
