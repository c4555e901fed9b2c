//! Which drive a snapshot belongs to: everything that shapes the drive's state or how a
//! continued run samples it. The power setting is not part of it (see the module above).

use crate::simrun::SimConfig;
use ftl::profile::ValidatedProfile;
use ftl::GcPolicy;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    /// ssdlab version that wrote it (the state's encoding follows the code).
    pub version: String,
    pub drive: String,
    /// FNV-1a 64 of the resolved profile (as JSON), hex: a profile edited since does not load.
    pub profile_hash: String,
    pub scale_divisor: u32,
    /// User capacity at full scale, bytes.
    pub user_capacity_bytes: u64,
    pub gc_policy: Option<GcPolicy>,
    pub hot_cold_separation: Option<bool>,
    pub plp: Option<bool>,
    /// Time-series interval, ns (also the power meter's interval, which the state holds).
    pub interval_ns: u64,
}

/// FNV-1a 64 of the resolved profile's JSON, as 16 hex digits.
pub fn profile_hash(p: &ValidatedProfile) -> String {
    fnv1a_hex(serde_json::to_string(&p.profile).unwrap_or_default().as_bytes())
}

/// FNV-1a 64 of a parsed job file (its global options and jobs as resolved, not its path), as
/// 16 hex digits: a run saved mid-way continues only with the job file it ran.
pub fn job_hash(f: &crate::job::JobFile) -> String {
    fnv1a_hex(format!("{:?}{:?}", f.global_options, f.jobs).as_bytes())
}

fn fnv1a_hex(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Identity {
    /// The identity of a drive built from `cfg` at `scale_divisor` with `user_capacity_bytes`.
    pub fn of(cfg: &SimConfig, p: &ValidatedProfile, scale_divisor: u32, user_capacity_bytes: u64) -> Identity {
        Identity {
            version: env!("CARGO_PKG_VERSION").to_string(),
            drive: p.profile.name.clone(),
            profile_hash: profile_hash(p),
            scale_divisor,
            user_capacity_bytes,
            gc_policy: cfg.gc_policy,
            hot_cold_separation: cfg.hot_cold_separation,
            plp: cfg.plp,
            interval_ns: cfg.interval_ns,
        }
    }

    /// `Ok` when a snapshot of `self` may load into a run that builds `want`; otherwise every
    /// difference, each with the flag that sets it.
    pub fn check(&self, want: &Identity) -> Result<(), String> {
        let mut diffs = Vec::new();
        let mut cmp = |what: &str, have: String, asked: String| {
            if have != asked {
                diffs.push(format!("{what}: snapshot {have}, this run {asked}"));
            }
        };
        cmp("ssdlab version", self.version.clone(), want.version.clone());
        cmp("drive (--drive)", self.drive.clone(), want.drive.clone());
        if self.drive == want.drive {
            cmp("profile contents", self.profile_hash.clone(), want.profile_hash.clone());
        }
        cmp("scale (--scale)", format!("1/{}", self.scale_divisor), format!("1/{}", want.scale_divisor));
        cmp(
            "user capacity (--user-capacity/--op)",
            format!("{} B", self.user_capacity_bytes),
            format!("{} B", want.user_capacity_bytes),
        );
        cmp("--gc-policy", format!("{:?}", self.gc_policy), format!("{:?}", want.gc_policy));
        cmp(
            "hot/cold separation",
            format!("{:?}", self.hot_cold_separation),
            format!("{:?}", want.hot_cold_separation),
        );
        cmp("PLP", format!("{:?}", self.plp), format!("{:?}", want.plp));
        cmp("series interval", format!("{} ns", self.interval_ns), format!("{} ns", want.interval_ns));
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(format!("made on another drive configuration, refused: {}", diffs.join("; ")))
        }
    }
}
