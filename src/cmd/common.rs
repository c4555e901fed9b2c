//! Options shared by every command that runs a workload on a simulated drive, parsed in two
//! stages: raw strings from clap, then validated values with errors naming the flag.

use super::CliError;
use clap::Args;
use host_bench::real::RealOptions;
use host_bench::simrun::SimConfig;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The simulated scale and the master seed: every command that simulates takes these two.
#[derive(Debug, Args, Clone)]
pub struct SimArgs {
    /// Simulate 1/N of the drive (same channels, dies, planes, timing and OP), e.g. 1/64.
    /// Default: automatic, at most 64 GiB of simulated NAND.
    #[arg(long)]
    pub scale: Option<String>,
    /// Master seed of every random stream (several seeds, as `--seeds N`, derive from it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl SimArgs {
    /// `--scale` as a divisor; `None` = automatic.
    pub fn scale_divisor(&self) -> Result<Option<u32>, CliError> {
        match &self.scale {
            Some(s) => Ok(Some(parse_scale(s).map_err(|e| CliError::bad_input(format!("--scale {s}: {e}")))?)),
            None => Ok(None),
        }
    }
}

/// Which drive profile: an embedded name or a profile TOML path.
#[derive(Debug, Args, Clone)]
pub struct DriveName {
    /// Drive profile: an embedded name (`ssdlab drives`) or a profile TOML path.
    #[arg(long, default_value = "generic-tlc")]
    pub drive: String,
}

/// OP as a fraction and the GC policy: drive settings that every workload command takes (a
/// sweep holds them fixed across its grid).
#[derive(Debug, Args, Clone)]
pub struct FtlArgs {
    /// Over-provisioning (raw - user) / user, e.g. 28% or 0.28.
    #[arg(long, conflicts_with = "user_capacity")]
    pub op: Option<String>,
    /// GC victim policy (overrides the profile): greedy or cost-benefit.
    #[arg(long)]
    pub gc_policy: Option<String>,
}

impl FtlArgs {
    /// `--op` as a fraction.
    pub fn op(&self) -> Result<Option<f64>, CliError> {
        self.op
            .as_ref()
            .map(|o| parse_fraction(o).map_err(|e| CliError::bad_input(format!("--op {o}: {e}"))))
            .transpose()
    }

    /// `--gc-policy`.
    pub fn gc_policy(&self) -> Result<Option<ftl::GcPolicy>, CliError> {
        self.gc_policy
            .as_ref()
            .map(|p| match p.as_str() {
                "greedy" => Ok(ftl::GcPolicy::Greedy),
                "cost-benefit" => Ok(ftl::GcPolicy::CostBenefit),
                _ => Err(CliError::bad_input(format!("--gc-policy {p}: allowed greedy or cost-benefit"))),
            })
            .transpose()
    }
}

/// Which drive, at which capacity and scale, with which seed.
#[derive(Debug, Args, Clone)]
pub struct DriveArgs {
    #[command(flatten)]
    pub name: DriveName,
    /// User capacity at full scale, e.g. 6.4TB, 7680GB, 500GiB (raises OP by shrinking the
    /// namespace, as reviewers do).
    #[arg(long)]
    pub user_capacity: Option<String>,
    #[command(flatten)]
    pub ftl: FtlArgs,
    #[command(flatten)]
    pub sim: SimArgs,
    /// NVMe power state N (`ssdlab drives` lists them): its maximum power becomes the cap that
    /// the drive's power governor holds. Default: uncapped.
    #[arg(long)]
    pub power_state: Option<usize>,
    /// Power cap in W, e.g. 11 or 11W (with --power-state too, the lower cap holds).
    #[arg(long)]
    pub power_cap: Option<String>,
}

impl DriveArgs {
    pub fn to_config(&self) -> Result<SimConfig, CliError> {
        let mut c = SimConfig::new(self.name.drive.clone(), self.sim.seed);
        if let Some(u) = &self.user_capacity {
            c.user_capacity_bytes =
                Some(parse_capacity(u).map_err(|e| CliError::bad_input(format!("--user-capacity {u}: {e}")))?);
        }
        c.op = self.ftl.op()?;
        c.scale_divisor = self.sim.scale_divisor()?;
        c.gc_policy = self.ftl.gc_policy()?;
        c.power_state = self.power_state;
        if let Some(w) = &self.power_cap {
            c.power_cap_w = Some(parse_watts(w).map_err(|e| CliError::bad_input(format!("--power-cap {w}: {e}")))?);
        }
        Ok(c)
    }
}

/// "11", "11W" or "11.5 w" -> 11.0.
pub fn parse_watts(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let t = t.strip_suffix(['W', 'w']).unwrap_or(t).trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1000.0 => Ok(v),
        _ => Err("allowed a power in watts, 0 < W <= 1000 (e.g. 11 or 11W)".into()),
    }
}

/// A real file or block device instead of the simulator, with its safety switches.
#[derive(Debug, Args, Clone)]
pub struct TargetArgs {
    /// Run on a real file or block device instead of the simulator (O_DIRECT, io_uring).
    #[arg(long)]
    pub target: Option<std::path::PathBuf>,
    /// Size of the real target window (default: the whole device or file, or the job's size).
    #[arg(long, requires = "target")]
    pub target_size: Option<String>,
    /// Allow writing to a block device or file holding a partition table or filesystem.
    #[arg(long, requires = "target")]
    pub allow_destroy: bool,
}

impl TargetArgs {
    /// Options to open the real target with `qd` slots of `max_block_bytes`, or `None` for the
    /// simulator.
    pub fn real_options(&self, qd: u32, max_block_bytes: u32) -> Result<Option<RealOptions>, CliError> {
        let Some(path) = &self.target else { return Ok(None) };
        let mut o = RealOptions::new(path);
        o.allow_destroy = self.allow_destroy;
        // An image file holding a filesystem or partition table is as precious as a device.
        o.device_like = true;
        o.queue_depth = qd.clamp(1, 4096);
        o.max_block_bytes = max_block_bytes.max(4096).next_multiple_of(4096);
        if let Some(s) = &self.target_size {
            o.size_bytes = Some(parse_capacity(s).map_err(|e| CliError::bad_input(format!("--target-size {s}: {e}")))?);
        }
        Ok(Some(o))
    }
}

/// "6.4TB" (decimal), "500GiB" (binary), or plain bytes.
pub fn parse_capacity(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| "not a number with a unit like 6.4TB or 512GiB".to_string())?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1048576.0,
        "gib" => 1073741824.0,
        "tib" => 1099511627776.0,
        _ => return Err(format!("unknown unit '{unit}' (allowed B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)")),
    };
    let v = n * mult;
    if !(1.0..1e17).contains(&v) {
        return Err("out of range (allowed 1 B ..= 100 PB)".into());
    }
    Ok(nand_model::cast::sat_u64(v))
}

/// "28%" or "0.28" -> 0.28.
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map_err(|_| "not a percentage".to_string())? / 100.0
    } else {
        t.parse::<f64>().map_err(|_| "not a number".to_string())?
    };
    if !(v > 0.0 && v <= 10.0) {
        return Err("out of range (allowed 0% < OP <= 1000%)".into());
    }
    Ok(v)
}

/// "1/16" or "16" -> 16.
pub fn parse_scale(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let d = t.strip_prefix("1/").unwrap_or(t);
    match d.parse::<u32>() {
        Ok(n) if (1..=1 << 20).contains(&n) => Ok(n),
        _ => Err("allowed 1/N with N in 1..=1048576".into()),
    }
}

/// Ctrl-C (SIGINT), SIGTERM (Slurm's time limit, `kill`) or SIGHUP sets the returned flag,
/// which the command passes down as its stop token; a second signal exits at once.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let _ = ctrlc::set_handler(move || {
        if f.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: finishing the current step and writing partial results (signal again to abort)");
    });
    flag
}

/// A progress bar on stderr when it is a terminal, hidden otherwise.
pub fn progress_bar(label: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(1000);
    pb.set_style(
        ProgressStyle::with_template("{prefix} [{bar:40}] {percent:>3}% {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_prefix(label.to_string());
    pb
}

/// A simulated time given to `flag` with its unit (ns, us, ms, s, m, h: fio's time units,
/// plus ns), e.g. `1.5s`, `800ms`.
pub fn parse_sim_time(flag: &str, text: &str) -> Result<u64, CliError> {
    let bad = || {
        CliError::bad_input(format!(
            "{flag} {text}: allowed a time > 0 with a unit (ns, us, ms, s, m, h), e.g. 800ms, 1.5s, 2m"
        ))
    };
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(bad)?;
    let (num, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => return Err(bad()),
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    let ns = v * scale;
    if !(ns.is_finite() && ns > 0.0 && ns < 1e18) {
        return Err(bad());
    }
    Ok(nand_model::cast::sat_u64(ns.round()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_fractions_scales() {
        assert_eq!(parse_capacity("6.4TB").unwrap(), 6_400_000_000_000);
        assert_eq!(parse_capacity("1GiB").unwrap(), 1 << 30);
        assert!(parse_capacity("6.4XB").is_err());
        assert!((parse_fraction("28%").unwrap() - 0.28).abs() < 1e-12);
        assert!(parse_fraction("0%").is_err());
        assert_eq!(parse_scale("1/16").unwrap(), 16);
        assert!(parse_scale("1/0").is_err());
        assert_eq!(parse_watts("11W").unwrap(), 11.0);
        assert!(parse_watts("-1").is_err());
    }
}
