//! What a real target is, for result files: path, kind, size, block size and, for NVMe
//! namespaces, the identity and power-state table. Everything beyond size is best effort.

use std::fs;
use std::os::fd::RawFd;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::sys;

/// Regular file or block device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    File,
    Block,
}

/// One NVMe power state descriptor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerState {
    pub index: u8,
    /// Maximum power in milliwatts (MP scaled by MXPS: 0.01 W or 0.0001 W units).
    pub max_power_mw: f64,
    /// Non-operational state (the controller processes no I/O in it).
    pub non_operational: bool,
    pub entry_latency_us: u32,
    pub exit_latency_us: u32,
}

/// Identity of an NVMe namespace's controller, from sysfs and Identify Controller.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NvmeDescription {
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware_rev: Option<String>,
    /// Empty when Identify Controller was not permitted (needs CAP_SYS_ADMIN).
    pub power_states: Vec<PowerState>,
}

/// Serializable description of a real target, recorded with results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetDescription {
    pub path: String,
    pub kind: TargetKind,
    /// Size of the whole file or device.
    pub size_bytes: u64,
    pub logical_block_bytes: u32,
    pub nvme: Option<NvmeDescription>,
}

fn read_trim(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// Power states from a 4096-byte Identify Controller structure: NPSS (0-based count) at byte
/// 263, descriptors of 32 bytes from byte 2048.
pub fn parse_power_states(id_ctrl: &[u8]) -> Vec<PowerState> {
    let Some(&npss) = id_ctrl.get(263) else {
        return Vec::new();
    };
    let u32_at = |d: &[u8], o: usize| u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]]);
    (0..=npss)
        .filter_map(|i| {
            let off = 2048 + usize::from(i) * 32;
            let d = id_ctrl.get(off..off + 32)?;
            let mp = u16::from_le_bytes([d[0], d[1]]);
            let mxps = d[3] & 1 != 0;
            let unit_mw = if mxps { 0.1 } else { 10.0 };
            Some(PowerState {
                index: i,
                max_power_mw: f64::from(mp) * unit_mw,
                non_operational: d[3] & 2 != 0,
                entry_latency_us: u32_at(d, 4),
                exit_latency_us: u32_at(d, 8),
            })
        })
        .collect()
}

/// NVMe facts for the block device whose sysfs directory is `sys` (e.g. /sys/block/nvme0n1).
pub(crate) fn nvme_description(sys: &Path, fd: RawFd) -> Option<NvmeDescription> {
    let name = sys.file_name()?.to_string_lossy().into_owned();
    if !name.starts_with("nvme") {
        return None;
    }
    let dev = sys.join("device");
    Some(NvmeDescription {
        model: read_trim(&dev.join("model")),
        serial: read_trim(&dev.join("serial")),
        firmware_rev: read_trim(&dev.join("firmware_rev")),
        power_states: sys::nvme_identify_controller(fd).map(|d| parse_power_states(&d)).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_states_scale_by_mxps() {
        let mut id = vec![0u8; 4096];
        id[263] = 1; // two states
        id[2048..2050].copy_from_slice(&900u16.to_le_bytes()); // 9.00 W
        id[2048 + 32..2050 + 32].copy_from_slice(&5000u16.to_le_bytes());
        id[2048 + 32 + 3] = 0b11; // MXPS (0.0001 W) + non-operational
        id[2048 + 32 + 4..2048 + 32 + 8].copy_from_slice(&2000u32.to_le_bytes());
        let ps = parse_power_states(&id);
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].max_power_mw, 9000.0);
        assert!(!ps[0].non_operational);
        assert_eq!(ps[1].max_power_mw, 500.0);
        assert!(ps[1].non_operational);
        assert_eq!(ps[1].entry_latency_us, 2000);
    }
}
