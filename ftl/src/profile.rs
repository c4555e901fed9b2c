//! Drive profiles: one TOML file per drive, embedded in the binary and loadable from a path.
//! Loading parses with unknown keys rejected, then validates every section; any error names the
//! file, the key, the value and the allowed range in one line.

use crate::config::{ControllerConfig, FtlConfig, HostConfig, PowerConfig};
use nand_model::{ConfigError, Energy, EnergyConfig, Geometry, GeometryConfig, Timing, TimingConfig};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// A whole drive as written in its profile file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveProfile {
    /// Short name, used on the command line.
    pub name: String,
    /// One line on what the drive is.
    #[serde(default)]
    pub description: String,
    pub geometry: GeometryConfig,
    pub timing: TimingConfig,
    #[serde(default)]
    pub nand_energy: EnergyConfig,
    pub host: HostConfig,
    pub controller: ControllerConfig,
    pub ftl: FtlConfig,
    pub power: PowerConfig,
}

/// A profile with every section checked and the derived NAND values computed.
#[derive(Clone, Debug)]
pub struct ValidatedProfile {
    pub profile: DriveProfile,
    pub geometry: Geometry,
    pub timing: Timing,
    pub energy: Energy,
    /// Where it came from: `embedded:NAME` or the file path.
    pub source: String,
}

impl ValidatedProfile {
    pub fn raw_bytes(&self) -> u64 {
        self.geometry.raw_bytes()
    }

    /// OP at the stock user capacity: (raw - user) / user.
    pub fn stock_op(&self) -> f64 {
        let user = self.profile.host.user_capacity_bytes as f64;
        (self.raw_bytes() as f64 - user) / user
    }
}

/// Why a profile could not be loaded.
#[derive(Debug, Clone, PartialEq)]
pub enum ProfileError {
    /// No embedded profile of that name and no such file.
    NotFound {
        name: String,
        known: Vec<&'static str>,
    },
    Io {
        file: String,
        message: String,
    },
    /// TOML syntax or type error, or an unknown key.
    Parse {
        file: String,
        key: String,
        message: String,
    },
    /// A value out of its allowed range or inconsistent with others.
    Invalid {
        file: String,
        error: ConfigError,
    },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::NotFound { name, known } => {
                write!(f, "no drive profile `{name}`: not an embedded name ({}) nor a readable file", known.join(", "))
            }
            ProfileError::Io { file, message } => write!(f, "{file}: {message}"),
            ProfileError::Parse { file, key, message } => {
                if key.is_empty() || key == "." {
                    write!(f, "{file}: {message}")
                } else {
                    write!(f, "{file}: key `{key}`: {message}")
                }
            }
            ProfileError::Invalid { file, error } => write!(f, "{file}: {error}"),
        }
    }
}

impl std::error::Error for ProfileError {}

/// The profiles compiled into the binary, by name.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("generic-tlc", include_str!("../../profiles/generic-tlc.toml")),
    ("generic-qlc", include_str!("../../profiles/generic-qlc.toml")),
    ("tiny", include_str!("../../profiles/tiny.toml")),
    ("solidigm-d5-p5430", include_str!("../../profiles/solidigm-d5-p5430.toml")),
    ("intel-d5-p4420", include_str!("../../profiles/intel-d5-p4420.toml")),
    ("solidigm-d7-p5520", include_str!("../../profiles/solidigm-d7-p5520.toml")),
    ("solidigm-d7-ps1010", include_str!("../../profiles/solidigm-d7-ps1010.toml")),
    ("memblaze-pblaze7-7a40", include_str!("../../profiles/memblaze-pblaze7-7a40.toml")),
];

/// Names of the embedded profiles, in listing order.
pub fn embedded_names() -> Vec<&'static str> {
    EMBEDDED.iter().map(|(n, _)| *n).collect()
}

/// Loads an embedded profile by name, or a file by path.
pub fn load(name_or_path: &str) -> Result<ValidatedProfile, ProfileError> {
    if let Some((name, text)) = EMBEDDED.iter().find(|(n, _)| *n == name_or_path) {
        return parse(text, &format!("embedded:{name}"));
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        return Err(ProfileError::NotFound { name: name_or_path.to_string(), known: embedded_names() });
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| ProfileError::Io { file: name_or_path.to_string(), message: e.to_string() })?;
    parse(&text, name_or_path)
}

/// Parses and validates profile text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<ValidatedProfile, ProfileError> {
    let de = toml::Deserializer::new(text);
    let profile: DriveProfile = serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let mut message = inner.message().trim().to_string();
        if let Some(span) = inner.span() {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            message = format!("{message} (line {line})");
        }
        ProfileError::Parse { file: file.to_string(), key, message }
    })?;
    validate(profile, file)
}

/// Validates an already-deserialised profile.
pub fn validate(profile: DriveProfile, file: &str) -> Result<ValidatedProfile, ProfileError> {
    let inv = |error| ProfileError::Invalid { file: file.to_string(), error };
    let geometry = profile.geometry.validate().map_err(inv)?;
    let timing = profile.timing.validate(&geometry).map_err(inv)?;
    let energy = profile.nand_energy.validate().map_err(inv)?;
    profile.host.validate().map_err(inv)?;
    profile.controller.validate().map_err(inv)?;
    profile.ftl.validate().map_err(inv)?;
    profile.power.validate().map_err(inv)?;
    let raw = geometry.raw_bytes();
    let usable = raw as f64 * (1.0 - profile.ftl.reserved_blocks_pct / 100.0);
    if profile.host.user_capacity_bytes as f64 >= usable {
        return Err(inv(ConfigError::new(
            "host.user_capacity_bytes",
            profile.host.user_capacity_bytes,
            format!("less than the raw NAND minus reserved blocks ({} bytes)", nand_model::cast::sat_u64(usable)),
        )));
    }
    if !profile.host.user_capacity_bytes.is_multiple_of(profile.controller.mapping_unit_bytes as u64) {
        return Err(inv(ConfigError::new(
            "host.user_capacity_bytes",
            profile.host.user_capacity_bytes,
            format!("a multiple of controller.mapping_unit_bytes ({})", profile.controller.mapping_unit_bytes),
        )));
    }
    Ok(ValidatedProfile { profile, geometry, timing, energy, source: file.to_string() })
}

/// The resolved profile (defaults filled in) as TOML.
pub fn to_toml(p: &DriveProfile) -> String {
    toml::to_string_pretty(p).unwrap_or_else(|e| format!("# cannot render profile: {e}\n"))
}
