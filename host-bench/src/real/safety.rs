//! Refusing to destroy data: on-disk signature detection (a pure function over the first bytes
//! of a target, so it is testable on plain files) and "is this block device in use" checks
//! from /proc and /sys. The policy — refuse unless `allow_destroy` — lives in the opener.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Bytes of a target's head that [`detect_signatures`] looks at. 256 KiB rather than 128 KiB
/// so the ZFS uberblock ring (label offset 128 KiB) is covered too.
pub const HEAD_BYTES: usize = 256 * 1024;

/// Something on the target that says "there is data here".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Signature {
    /// DOS partition table: 0x55AA at 510 and at least one non-empty entry.
    Mbr,
    /// GPT header "EFI PART" at LBA 1 (512- or 4096-byte sectors).
    Gpt,
    /// ext2/3/4 superblock magic 0xEF53 at byte 1080.
    Ext,
    Xfs,
    Btrfs,
    Swap,
    Lvm2,
    Ntfs,
    Fat,
    Exfat,
    Iso9660,
    Zfs,
    Luks,
    /// Linux md RAID superblock v1.1 (at 0) or v1.2 (at 4096).
    MdRaid,
}

fn has(head: &[u8], off: usize, pat: &[u8]) -> bool {
    head.get(off..off + pat.len()) == Some(pat)
}

/// Every signature found in `head` (the first bytes of a target, ideally [`HEAD_BYTES`]).
/// Checks beyond the end of `head` are skipped.
pub fn detect_signatures(head: &[u8]) -> Vec<Signature> {
    let mut found = Vec::new();
    let mut push = |cond: bool, s: Signature| {
        if cond {
            found.push(s);
        }
    };
    let boot_sig = has(head, 510, &[0x55, 0xAA]);
    let fat = boot_sig
        && (has(head, 54, b"FAT12   ")
            || has(head, 54, b"FAT16   ")
            || has(head, 54, b"FAT     ")
            || has(head, 82, b"FAT32   "));
    let ntfs = has(head, 3, b"NTFS    ");
    let exfat = has(head, 3, b"EXFAT   ");
    // A volume boot record also ends in 0x55AA; its boot code is not a partition table.
    let mbr =
        boot_sig && !(fat || ntfs || exfat) && (0..4).any(|i| head.get(446 + 16 * i + 4).is_some_and(|&t| t != 0));
    push(mbr, Signature::Mbr);
    push(has(head, 512, b"EFI PART") || has(head, 4096, b"EFI PART"), Signature::Gpt);
    push(has(head, 1080, &[0x53, 0xEF]), Signature::Ext);
    push(has(head, 0, b"XFSB"), Signature::Xfs);
    push(has(head, 65600, b"_BHRfS_M"), Signature::Btrfs);
    let swap = [4096usize, 8192, 16384, 65536]
        .iter()
        .any(|&page| has(head, page - 10, b"SWAPSPACE2") || has(head, page - 10, b"SWAP-SPACE"));
    push(swap, Signature::Swap);
    push((0..4).any(|s| has(head, 512 * s, b"LABELONE")), Signature::Lvm2);
    push(ntfs, Signature::Ntfs);
    push(fat, Signature::Fat);
    push(exfat, Signature::Exfat);
    push(has(head, 32769, b"CD001"), Signature::Iso9660);
    // ZFS label 0: uberblock ring of 1 KiB slots at 128 KiB; magic 0x00bab10c in either order.
    let zfs_le = 0x00ba_b10c_u64.to_le_bytes();
    let zfs_be = 0x00ba_b10c_u64.to_be_bytes();
    let zfs = (0..128).any(|i| {
        let off = 128 * 1024 + i * 1024;
        has(head, off, &zfs_le) || has(head, off, &zfs_be)
    });
    push(zfs, Signature::Zfs);
    push(has(head, 0, b"LUKS\xba\xbe"), Signature::Luks);
    let md = 0xa92b_4efc_u32.to_le_bytes();
    push(has(head, 0, &md) || has(head, 4096, &md), Signature::MdRaid);
    found
}

/// A refusal message for `sigs`, or `None` when the head looks blank.
pub fn signature_refusal(sigs: &[Signature]) -> Option<String> {
    if sigs.is_empty() {
        return None;
    }
    let names: Vec<String> = sigs.iter().map(|s| format!("{s:?}").to_lowercase()).collect();
    Some(format!(
        "found {} signature(s) [{}]; set allow_destroy (ssdlab: --allow-destroy) to overwrite",
        names.len(),
        names.join(", ")
    ))
}

/// Reads up to [`HEAD_BYTES`] from the start of `path` (buffered; fine for a one-off check).
pub fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    fs::File::open(path)?.take(HEAD_BYTES as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// The sysfs directory of a block device number (`/sys/dev/block/MAJ:MIN`, resolved).
pub(crate) fn sysfs_dir(rdev: u64) -> Option<PathBuf> {
    let (maj, min) = (libc::major(rdev), libc::minor(rdev));
    fs::canonicalize(format!("/sys/dev/block/{maj}:{min}")).ok()
}

/// Kernel names of the device and, for a whole disk, its partitions.
fn names_of(sys: &Path) -> Vec<String> {
    let mut names: Vec<String> = sys.file_name().map(|n| n.to_string_lossy().into_owned()).into_iter().collect();
    if let Ok(rd) = fs::read_dir(sys) {
        for e in rd.flatten() {
            if e.path().join("partition").exists() {
                names.push(e.file_name().to_string_lossy().into_owned());
            }
        }
    }
    names
}

/// Why the block device `rdev` is in use (mounted, swap, or held by dm/md/LVM), if it is.
/// Covers the device itself and, for a whole disk, each of its partitions.
pub(crate) fn block_in_use(rdev: u64) -> Option<String> {
    let sys = sysfs_dir(rdev)?;
    let names = names_of(&sys);
    let sys_of = |n: &str| -> PathBuf {
        if sys.file_name().is_some_and(|f| f == n) {
            sys.clone()
        } else {
            sys.join(n)
        }
    };
    for n in &names {
        if let Ok(mut rd) = fs::read_dir(sys_of(n).join("holders")) {
            if let Some(Ok(h)) = rd.next() {
                return Some(format!("{n} is held by {}", h.file_name().to_string_lossy()));
            }
        }
    }
    let base = |src: &str| -> Option<String> {
        let p = fs::canonicalize(src).ok()?;
        Some(p.file_name()?.to_string_lossy().into_owned())
    };
    if let Ok(mounts) = fs::read_to_string("/proc/self/mounts") {
        for line in mounts.lines() {
            let mut it = line.split_whitespace();
            let (Some(src), Some(dir)) = (it.next(), it.next()) else {
                continue;
            };
            if src.starts_with("/dev/") && base(src).is_some_and(|b| names.contains(&b)) {
                return Some(format!("{src} is mounted at {dir}"));
            }
        }
    }
    if let Ok(swaps) = fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            if let Some(src) = line.split_whitespace().next() {
                if base(src).is_some_and(|b| names.contains(&b)) {
                    return Some(format!("{src} is in use as swap"));
                }
            }
        }
    }
    None
}
