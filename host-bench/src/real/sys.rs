//! Thin wrappers over the few Linux calls the target needs beyond std: block-device ioctls,
//! hole punching, discard, and positioned I/O on raw buffers. Each returns `io::Result` and
//! leaves naming the path to the caller.

use std::io;
use std::os::fd::RawFd;

// Linux <linux/fs.h> ioctl numbers (stable ABI).
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKSSZGET: libc::c_ulong = 0x1268;
const BLKDISCARD: libc::c_ulong = 0x1277;

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// This process's CPU time and scheduling counts (`getrusage(RUSAGE_SELF)`).
pub(crate) fn process_usage() -> io::Result<crate::device::HostUsage> {
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one rusage through the pointer, which is valid for the call.
    cvt(unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) })?;
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    Ok(crate::device::HostUsage {
        usr_ns: ns(ru.ru_utime),
        sys_ns: ns(ru.ru_stime),
        ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
        majf: ru.ru_majflt as u64,
        minf: ru.ru_minflt as u64,
    })
}

/// Size in bytes of a block device.
pub(crate) fn block_size_bytes(fd: RawFd) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is valid for the call.
    cvt(unsafe { libc::ioctl(fd, BLKGETSIZE64 as _, &mut size as *mut u64) })?;
    Ok(size)
}

/// Logical sector size of a block device.
pub(crate) fn block_logical_bytes(fd: RawFd) -> io::Result<u32> {
    let mut ssz: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer, which is valid for the call.
    cvt(unsafe { libc::ioctl(fd, BLKSSZGET as _, &mut ssz as *mut libc::c_int) })?;
    u32::try_from(ssz).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "negative sector size"))
}

/// The offset alignment the kernel requires of O_DIRECT I/O on a regular file (`statx` with
/// `STATX_DIOALIGN`, Linux 6.1+): the filesystem's device's logical block, 512 bytes on most
/// disks. `None` where the kernel or the filesystem does not report it.
pub(crate) fn dio_offset_align(fd: RawFd) -> Option<u32> {
    // SAFETY: an all-zero statx is a valid value of the plain C struct.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: with AT_EMPTY_PATH and an empty path statx describes `fd` and writes one statx
    // through the pointer, which is valid for the call.
    let r = unsafe { libc::statx(fd, c"".as_ptr(), libc::AT_EMPTY_PATH, libc::STATX_DIOALIGN, &mut st) };
    (r == 0 && st.stx_mask & libc::STATX_DIOALIGN != 0 && st.stx_dio_offset_align > 0)
        .then_some(st.stx_dio_offset_align)
}

/// Discards `[offset, offset+len)` on a block device.
pub(crate) fn blkdiscard(fd: RawFd, offset: u64, len: u64) -> io::Result<()> {
    let range: [u64; 2] = [offset, len];
    // SAFETY: BLKDISCARD reads two u64 through the pointer, valid for the call.
    cvt(unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) })?;
    Ok(())
}

/// Deallocates `[offset, offset+len)` in a file without changing its size.
pub(crate) fn punch_hole(fd: RawFd, offset: u64, len: u64) -> io::Result<()> {
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    // SAFETY: plain syscall on an fd we own; no pointers.
    cvt(unsafe { libc::fallocate64(fd, mode, offset as i64, len as i64) })?;
    Ok(())
}

/// `pread` into a raw buffer; returns bytes read.
///
/// # Safety
/// `buf` must be valid for writes of `len` bytes for the duration of the call.
pub(crate) unsafe fn pread_raw(fd: RawFd, buf: *mut u8, len: usize, offset: u64) -> io::Result<usize> {
    let n = libc::pread64(fd, buf.cast(), len, offset as i64);
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// `pwrite` from a raw buffer; returns bytes written.
///
/// # Safety
/// `buf` must be valid for reads of `len` bytes for the duration of the call.
pub(crate) unsafe fn pwrite_raw(fd: RawFd, buf: *const u8, len: usize, offset: u64) -> io::Result<usize> {
    let n = libc::pwrite64(fd, buf.cast(), len, offset as i64);
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// NVMe admin passthrough command (`struct nvme_passthru_cmd` from <linux/nvme_ioctl.h>).
#[repr(C)]
#[derive(Default)]
struct NvmeAdminCmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    result: u32,
}

/// _IOWR('N', 0x41, struct nvme_admin_cmd), 72-byte argument.
const NVME_IOCTL_ADMIN_CMD: libc::c_ulong = 0xC048_4E41;

/// NVMe Identify Controller (opcode 0x06, CNS=1): the 4096-byte data structure.
pub(crate) fn nvme_identify_controller(fd: RawFd) -> io::Result<Vec<u8>> {
    let mut data = vec![0u8; 4096];
    let mut cmd = NvmeAdminCmd {
        opcode: 0x06,
        addr: data.as_mut_ptr() as u64,
        data_len: 4096,
        cdw10: 1,
        ..NvmeAdminCmd::default()
    };
    // SAFETY: the command struct matches the kernel ABI (72 bytes) and `addr` points to a
    // 4096-byte buffer that outlives the synchronous ioctl.
    cvt(unsafe { libc::ioctl(fd, NVME_IOCTL_ADMIN_CMD as _, &mut cmd as *mut NvmeAdminCmd) })?;
    Ok(data)
}

#[cfg(test)]
mod tests {
    #[test]
    fn nvme_cmd_matches_kernel_abi_size() {
        assert_eq!(std::mem::size_of::<super::NvmeAdminCmd>(), 72);
    }
}
