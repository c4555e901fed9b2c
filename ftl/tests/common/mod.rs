//! Host loops the FTL's integration tests share.

use ftl::device::{HostOp, SimSsd};

/// Runs `n` commands with `qd` outstanding, command `i` being `next(i)` = (op, offset, length),
/// submitted as an earlier one completes; returns the completions seen.
pub fn closed_loop(d: &mut SimSsd, qd: u64, n: u64, mut next: impl FnMut(u64) -> (HostOp, u64, u32)) -> u64 {
    let mut issued = 0u64;
    let mut submit = |d: &mut SimSsd, i: u64| {
        let (op, offset, len) = next(i);
        d.submit(i, op, offset, len).unwrap();
    };
    while issued < n.min(qd) {
        submit(d, issued);
        issued += 1;
    }
    let mut done = 0u64;
    while d.next_completion(None).is_some() {
        done += 1;
        if issued < n {
            submit(d, issued);
            issued += 1;
        }
    }
    done
}

/// Fills the drive sequentially (128 KiB writes, QD8).
pub fn fill_sequential(d: &mut SimSsd) {
    const BS: u64 = 128 * 1024;
    let n = d.capacity().user_bytes_sim / BS;
    closed_loop(d, 8, n, |i| (HostOp::Write, i * BS, BS as u32));
}
