//! Fallback engine: `queue_depth` threads doing pread/pwrite (O_DIRECT is set on the shared
//! fd), for kernels or sandboxes without io_uring. Same semantics as the io_uring engine:
//! commands carry a slot, results come back as bytes or `-errno`.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::engine::{Cmd, Op, Raw};
use super::sys;

/// A command moved to a worker thread.
struct Job(Cmd);

// SAFETY: the raw buffer pointer refers to a pool slot owned by this command until its result
// is sent back; the target neither reads nor frees the slot meanwhile (it drains on drop).
unsafe impl Send for Job {}

pub(crate) struct PsyncEngine {
    jobs: Option<Sender<Job>>,
    done: Receiver<Raw>,
    workers: Vec<JoinHandle<()>>,
}

fn run(file: &File, is_block: bool, cmd: Cmd) -> i64 {
    let fd = file.as_raw_fd();
    let len = cmd.len as usize;
    let res = match cmd.op {
        // SAFETY: `cmd.buf` is a pool slot of at least `len` bytes owned by this command.
        Op::Read => unsafe { sys::pread_raw(fd, cmd.buf, len, cmd.offset) },
        // SAFETY: as above, read-only use.
        Op::Write => unsafe { sys::pwrite_raw(fd, cmd.buf, len, cmd.offset) },
        Op::Trim if is_block => sys::blkdiscard(fd, cmd.offset, u64::from(cmd.len)).map(|_| 0),
        Op::Trim => sys::punch_hole(fd, cmd.offset, u64::from(cmd.len)).map(|_| 0),
    };
    match res {
        Ok(n) => n as i64,
        Err(e) => -i64::from(e.raw_os_error().unwrap_or(libc::EIO)),
    }
}

impl PsyncEngine {
    pub(crate) fn new(file: Arc<File>, is_block: bool, threads: usize) -> io::Result<Self> {
        let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
        let (done_tx, done) = mpsc::channel::<Raw>();
        let jobs_rx = Arc::new(Mutex::new(jobs_rx));
        let mut workers = Vec::with_capacity(threads);
        for i in 0..threads.max(1) {
            let (file, jobs_rx, done_tx) = (file.clone(), jobs_rx.clone(), done_tx.clone());
            let h = std::thread::Builder::new().name(format!("psync-{i}")).spawn(move || loop {
                // A poisoned lock means another worker panicked; stop this one too.
                let job = match jobs_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok(Job(cmd)) = job else { return };
                let result = run(&file, is_block, cmd);
                if done_tx.send(Raw { slot: cmd.slot, result }).is_err() {
                    return;
                }
            })?;
            workers.push(h);
        }
        Ok(PsyncEngine { jobs: Some(jobs_tx), done, workers })
    }

    pub(crate) fn push(&mut self, cmd: Cmd) -> io::Result<()> {
        let tx = self.jobs.as_ref().ok_or_else(|| io::Error::other("psync engine stopped"))?;
        tx.send(Job(cmd)).map_err(|_| io::Error::other("psync workers exited"))
    }

    pub(crate) fn reap(&mut self, out: &mut VecDeque<Raw>) {
        while let Ok(r) = self.done.try_recv() {
            out.push_back(r);
        }
    }

    pub(crate) fn wait(&mut self, timeout: Option<Duration>, out: &mut VecDeque<Raw>) -> io::Result<()> {
        let first = match timeout {
            Some(t) => match self.done.recv_timeout(t) {
                Ok(r) => r,
                Err(RecvTimeoutError::Timeout) => return Ok(()),
                Err(RecvTimeoutError::Disconnected) => return Err(io::Error::other("psync workers exited")),
            },
            None => self.done.recv().map_err(|_| io::Error::other("psync workers exited"))?,
        };
        out.push_back(first);
        self.reap(out);
        Ok(())
    }
}

impl Drop for PsyncEngine {
    fn drop(&mut self) {
        self.jobs = None; // closes the channel; workers finish their job and exit
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
