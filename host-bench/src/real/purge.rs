//! Purge and over-provisioning helpers. They return the exact commands a user would run and
//! never run them: these operations erase drives and need a human to read them first.

use serde::Serialize;

/// Commands to run in order, plus notes on preconditions and caveats.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CommandPlan {
    pub commands: Vec<String>,
    pub notes: Vec<String>,
}

/// Splits an NVMe namespace path (`/dev/nvme0n1`) into its controller (`/dev/nvme0`) and
/// namespace id (1).
pub fn nvme_controller_of(namespace_dev: &str) -> Option<(String, u32)> {
    let name = namespace_dev.strip_prefix("/dev/").unwrap_or(namespace_dev);
    let rest = name.strip_prefix("nvme")?;
    let (ctrl, ns) = rest.split_once('n')?;
    if ctrl.is_empty() || !ctrl.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ns_digits: String = ns.chars().take_while(|c| c.is_ascii_digit()).collect();
    let nsid = ns_digits.parse().ok()?;
    Some((format!("/dev/nvme{ctrl}"), nsid))
}

/// NVMe Format with User Data Erase (`--ses=1`; `--ses=2` would be a crypto erase).
pub fn nvme_format(namespace_dev: &str) -> CommandPlan {
    CommandPlan {
        commands: vec![format!("nvme format {namespace_dev} --ses=1")],
        notes: vec!["Erases every block of the namespace; keeps the current LBA format.".into()],
    }
}

/// NVMe Sanitize (block erase) on the controller, then the log to watch progress.
pub fn nvme_sanitize(namespace_dev: &str) -> Option<CommandPlan> {
    let (ctrl, _) = nvme_controller_of(namespace_dev)?;
    Some(CommandPlan {
        commands: vec![format!("nvme sanitize {ctrl} --sanact=2"), format!("nvme sanitize-log {ctrl}")],
        notes: vec![
            "Sanitize acts on every namespace of the controller and continues across resets.".into(),
            "--sanact=4 is crypto erase, --sanact=3 overwrite, if block erase is unsupported.".into(),
        ],
    })
}

/// Discard the whole device (drive returns to a fresh-out-of-box-like state on most SSDs).
pub fn blkdiscard(dev: &str) -> CommandPlan {
    CommandPlan {
        commands: vec![format!("blkdiscard {dev}")],
        notes: vec!["Then confine the workload to the first X% of LBAs to emulate extra OP.".into()],
    }
}

/// Recreates namespace `nsid` with `user_capacity_bytes` of `lba_bytes` blocks, leaving the
/// rest of the NAND as extra over-provisioning. `controller_id` is `cntlid` from
/// `nvme id-ctrl`; `lba_format` the index of the LBA format with `lba_bytes` (`nvme id-ns`).
pub fn nvme_shrink_namespace(
    namespace_dev: &str,
    user_capacity_bytes: u64,
    lba_bytes: u32,
    lba_format: u8,
    controller_id: u16,
) -> Result<CommandPlan, String> {
    let (ctrl, nsid) = nvme_controller_of(namespace_dev)
        .ok_or_else(|| format!("{namespace_dev}: not an NVMe namespace path like /dev/nvme0n1"))?;
    if lba_bytes == 0 || !user_capacity_bytes.is_multiple_of(u64::from(lba_bytes)) {
        return Err(format!(
            "{namespace_dev}: user capacity {user_capacity_bytes} is not a multiple of the \
             {lba_bytes}-byte LBA size"
        ));
    }
    let blocks = user_capacity_bytes / u64::from(lba_bytes);
    if blocks == 0 {
        return Err(format!("{namespace_dev}: user capacity must be > 0"));
    }
    Ok(CommandPlan {
        commands: vec![
            format!("nvme delete-ns {ctrl} --namespace-id={nsid}"),
            format!("nvme create-ns {ctrl} --nsze={blocks} --ncap={blocks} --flbas={lba_format}"),
            format!("nvme attach-ns {ctrl} --namespace-id={nsid} --controllers={controller_id}"),
            format!("nvme ns-rescan {ctrl}"),
        ],
        notes: vec![
            "Needs namespace management (OACS bit 3 in nvme id-ctrl); destroys all data.".into(),
            "create-ns prints the new namespace id; use it in attach-ns if it differs.".into(),
        ],
    })
}

/// SATA Host Protected Area: `hdparm -N` sets the visible sector count.
pub fn hdparm_hpa(dev: &str, user_capacity_bytes: u64, sector_bytes: u32) -> CommandPlan {
    let sectors = user_capacity_bytes / u64::from(sector_bytes.max(1));
    CommandPlan {
        commands: vec![format!("hdparm -N p{sectors} --yes-i-know-what-i-am-doing {dev}")],
        notes: vec![
            "`p` makes it permanent; without it the limit lasts until the next power cycle.".into(),
            "Many drives need a power cycle afterwards and refuse when security-frozen.".into(),
            "Secure-erase or blkdiscard first so the hidden LBAs hold no valid data.".into(),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_builds_exact_commands() {
        let plan = nvme_shrink_namespace("/dev/nvme1n2", 400 << 30, 4096, 1, 5).unwrap();
        assert_eq!(
            plan.commands,
            vec![
                "nvme delete-ns /dev/nvme1 --namespace-id=2",
                "nvme create-ns /dev/nvme1 --nsze=104857600 --ncap=104857600 --flbas=1",
                "nvme attach-ns /dev/nvme1 --namespace-id=2 --controllers=5",
                "nvme ns-rescan /dev/nvme1",
            ]
        );
        assert!(nvme_shrink_namespace("/dev/sda", 4096, 4096, 0, 0).is_err());
        assert!(nvme_shrink_namespace("/dev/nvme0n1", 1000, 4096, 0, 0).is_err());
    }

    #[test]
    fn other_plans() {
        assert_eq!(nvme_format("/dev/nvme0n1").commands, vec!["nvme format /dev/nvme0n1 --ses=1"]);
        assert_eq!(nvme_sanitize("/dev/nvme0n1").unwrap().commands[0], "nvme sanitize /dev/nvme0 --sanact=2");
        assert_eq!(blkdiscard("/dev/sdb").commands, vec!["blkdiscard /dev/sdb"]);
        assert_eq!(
            hdparm_hpa("/dev/sdb", 1 << 30, 512).commands,
            vec!["hdparm -N p2097152 --yes-i-know-what-i-am-doing /dev/sdb"]
        );
    }
}
