//! io_uring engine: the file and the buffer pool are registered once, SQEs are accumulated and
//! handed to the kernel with the next wait, so a closed loop costs about one syscall per
//! batch of completions rather than one per I/O.

use std::collections::VecDeque;
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

use io_uring::{opcode, squeue, types, IoUring};

use super::buf::BufPool;
use super::engine::{Cmd, Op, Raw};

/// Setup tuning; each flag is dropped again if the kernel rejects it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UringFlags {
    /// SINGLE_ISSUER + DEFER_TASKRUN: completions run in our task on the next wait, which saves
    /// interrupts and context switches. The ring binds to the first thread that does I/O.
    pub single_issuer: bool,
}

/// IORING_ENTER_GETEVENTS.
const ENTER_GETEVENTS: u32 = 1;

pub(crate) struct UringEngine {
    ring: IoUring<squeue::Entry>,
    fixed_buffers: bool,
    /// Ring was created disabled (single issuer); enabled by the first thread that submits.
    needs_enable: bool,
    pending: usize,
    ext_arg: bool,
}

fn build(entries: u32, flags: UringFlags) -> io::Result<(IoUring<squeue::Entry>, bool)> {
    if flags.single_issuer {
        let mut b = IoUring::builder();
        b.setup_single_issuer().setup_defer_taskrun().setup_r_disabled();
        if let Ok(r) = b.build(entries) {
            return Ok((r, true));
        }
    }
    let mut b = IoUring::builder();
    b.setup_coop_taskrun();
    match b.build(entries) {
        Ok(r) => Ok((r, false)),
        Err(_) => Ok((IoUring::new(entries)?, false)),
    }
}

/// True when this kernel and sandbox let us create an io_uring.
pub fn io_uring_available() -> bool {
    IoUring::new(2).is_ok()
}

impl UringEngine {
    /// A ring of `queue_depth` entries with `fd` registered as fixed file 0 and every pool slot
    /// registered as fixed buffer `slot`. Buffer registration failing (RLIMIT_MEMLOCK) is not
    /// fatal: plain reads/writes are used then.
    pub(crate) fn new(fd: RawFd, queue_depth: u32, pool: &BufPool, flags: UringFlags) -> io::Result<Self> {
        let (ring, needs_enable) = build(queue_depth.next_power_of_two(), flags)?;
        ring.submitter().register_files(&[fd])?;
        let iovecs = pool.iovecs();
        // SAFETY: the iovecs point into `pool`, which the owning `RealTarget` keeps alive (and
        // drains all I/O on) until after this ring is dropped.
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        let ext_arg = ring.params().is_feature_ext_arg();
        Ok(UringEngine { ring, fixed_buffers, needs_enable, pending: 0, ext_arg })
    }

    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    pub(crate) fn push(&mut self, cmd: Cmd) -> io::Result<()> {
        if self.needs_enable {
            self.ring.submitter().register_enable_rings()?;
            self.needs_enable = false;
        }
        let fd = types::Fixed(0);
        let idx = cmd.slot;
        let entry = match (cmd.op, self.fixed_buffers) {
            (Op::Read, true) => opcode::ReadFixed::new(fd, cmd.buf, cmd.len, idx).offset(cmd.offset).build(),
            (Op::Write, true) => opcode::WriteFixed::new(fd, cmd.buf, cmd.len, idx).offset(cmd.offset).build(),
            (Op::Read, false) => opcode::Read::new(fd, cmd.buf, cmd.len).offset(cmd.offset).build(),
            (Op::Write, false) => opcode::Write::new(fd, cmd.buf, cmd.len).offset(cmd.offset).build(),
            (Op::Trim, _) => opcode::Fallocate::new(fd, u64::from(cmd.len))
                .offset(cmd.offset)
                .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                .build(),
        };
        let entry = entry.user_data(u64::from(cmd.slot));
        // The SQ has >= queue_depth entries and the target never has more than queue_depth
        // commands pushed or in flight, so a full SQ only happens if that invariant broke.
        // SAFETY: the buffer is a pool slot that stays valid and untouched until the CQE.
        if unsafe { self.ring.submission().push(&entry) }.is_err() {
            self.flush()?;
            // SAFETY: as above.
            unsafe { self.ring.submission().push(&entry) }
                .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        }
        self.pending += 1;
        Ok(())
    }

    /// Submits pending SQEs and runs deferred completions, without waiting.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.enter(0, None)
    }

    #[allow(clippy::cast_possible_truncation)] // user_data is a u16 slot we set; the SQ holds at most qd entries
    pub(crate) fn reap(&mut self, out: &mut VecDeque<Raw>) {
        for cqe in self.ring.completion() {
            out.push_back(Raw { slot: cqe.user_data() as u16, result: i64::from(cqe.result()) });
        }
    }

    pub(crate) fn wait(&mut self, timeout: Option<Duration>, out: &mut VecDeque<Raw>) -> io::Result<()> {
        let before = out.len();
        self.reap(out);
        if out.len() > before {
            return Ok(());
        }
        match timeout {
            Some(t) if !self.ext_arg => {
                // Old kernel: no timed wait; poll in short sleeps.
                self.enter(0, None)?;
                std::thread::sleep(t.min(Duration::from_micros(50)));
            }
            t => {
                self.enter(1, t)?;
            }
        }
        self.reap(out);
        Ok(())
    }

    /// io_uring_enter: submits every pending SQE and waits for `want` completions.
    #[allow(clippy::cast_possible_truncation)] // user_data is a u16 slot we set; the SQ holds at most qd entries
    fn enter(&mut self, want: usize, timeout: Option<Duration>) -> io::Result<()> {
        loop {
            let res = match timeout {
                Some(t) => {
                    let ts = types::Timespec::from(t);
                    let args = types::SubmitArgs::new().timespec(&ts);
                    self.ring.submitter().submit_with_args(want, &args)
                }
                None if want == 0 => {
                    // Submit with GETEVENTS even when not waiting: under DEFER_TASKRUN that is
                    // what posts finished commands to the CQ for the following reap.
                    let to_submit = self.ring.submission().len() as u32;
                    // SAFETY: raw io_uring_enter on our own ring with no argument pointer.
                    unsafe { self.ring.submitter().enter::<libc::sigset_t>(to_submit, 0, ENTER_GETEVENTS, None) }
                }
                None => self.ring.submit_and_wait(want),
            };
            match res {
                Ok(_) => {
                    self.pending = self.ring.submission().len();
                    return Ok(());
                }
                Err(e) if e.raw_os_error() == Some(libc::ETIME) => {
                    self.pending = self.ring.submission().len();
                    return Ok(());
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // EBUSY: the CQ is backed up; reaping in the caller makes room.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    self.pending = self.ring.submission().len();
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
    }
}
