//! A deterministic mock device: `servers` identical servers with a fixed service time, first
//! come first served. With iodepth Q <= servers, latency is the service time and IOPS = Q / S;
//! above that, IOPS = servers / S (Little's law gives latency = Q / IOPS).
#![allow(clippy::cast_possible_truncation)] // casts are of the test's own small values

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use host_bench::device::{Device, DeviceError, DeviceInfo, HostUsage, IoCompletion, IoDir, IoRequest};

/// (complete time, sequence, tag, direction code, length, submit time), earliest first.
type Pending = (u64, u64, u64, u8, u32, u64);

pub struct MockDevice {
    pub capacity_bytes: u64,
    pub block_bytes: u32,
    pub service_ns: u64,
    now_ns: u64,
    servers_free_ns: Vec<u64>,
    pending: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    /// Every request in submission order: (submit time, request).
    pub log: Vec<(u64, IoRequest)>,
    /// When set, reports host CPU like a real target: this much user time (and half as much
    /// system time, one context switch) per completed command.
    pub cpu_ns_per_io: Option<u64>,
    completed: u64,
}

impl MockDevice {
    pub fn new(capacity_bytes: u64, servers: usize, service_ns: u64) -> Self {
        MockDevice {
            capacity_bytes,
            block_bytes: 512,
            service_ns,
            now_ns: 1_000,
            servers_free_ns: vec![0; servers],
            pending: BinaryHeap::new(),
            seq: 0,
            log: Vec::new(),
            cpu_ns_per_io: None,
            completed: 0,
        }
    }
}

fn dir_code(d: IoDir) -> u8 {
    d.index() as u8
}

fn code_dir(c: u8) -> IoDir {
    match c {
        0 => IoDir::Read,
        1 => IoDir::Write,
        _ => IoDir::Trim,
    }
}

impl Device for MockDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            capacity_bytes: self.capacity_bytes,
            logical_block_bytes: self.block_bytes,
            kind: "simulated",
            name: "mock".into(),
        }
    }

    fn now_ns(&self) -> u64 {
        self.now_ns
    }

    fn submit(&mut self, req: IoRequest) -> Result<(), DeviceError> {
        let b = u64::from(self.block_bytes);
        if !req.offset_bytes.is_multiple_of(b) || u64::from(req.len_bytes) % b != 0 || req.len_bytes == 0 {
            return Err(DeviceError::Misaligned {
                offset_bytes: req.offset_bytes,
                len_bytes: req.len_bytes,
                block_bytes: self.block_bytes,
            });
        }
        if req.offset_bytes + u64::from(req.len_bytes) > self.capacity_bytes {
            return Err(DeviceError::OutOfRange {
                offset_bytes: req.offset_bytes,
                len_bytes: req.len_bytes,
                capacity_bytes: self.capacity_bytes,
            });
        }
        let (idx, free) = self
            .servers_free_ns
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(i, f)| (f, i))
            .ok_or_else(|| DeviceError::Other("no servers".into()))?;
        let start = free.max(self.now_ns);
        let done = start + self.service_ns;
        self.servers_free_ns[idx] = done;
        self.seq += 1;
        self.pending.push(Reverse((done, self.seq, req.tag, dir_code(req.dir), req.len_bytes, self.now_ns)));
        self.log.push((self.now_ns, req));
        Ok(())
    }

    fn wait(&mut self, deadline_ns: Option<u64>) -> Result<Option<IoCompletion>, DeviceError> {
        match (self.pending.peek(), deadline_ns) {
            (Some(Reverse(top)), Some(d)) if top.0 > d => {
                self.now_ns = self.now_ns.max(d);
                Ok(None)
            }
            (Some(_), _) => {
                let Some(Reverse((done, _, tag, dir, len, submit))) = self.pending.pop() else {
                    return Ok(None);
                };
                self.now_ns = self.now_ns.max(done);
                self.completed += 1;
                Ok(Some(IoCompletion { tag, dir: code_dir(dir), len_bytes: len, submit_ns: submit, complete_ns: done }))
            }
            (None, Some(d)) => {
                self.now_ns = self.now_ns.max(d);
                Ok(None)
            }
            (None, None) => Ok(None),
        }
    }

    fn outstanding(&self) -> usize {
        self.pending.len()
    }

    fn host_usage(&self) -> Option<HostUsage> {
        let per_io = self.cpu_ns_per_io?;
        let n = self.completed;
        Some(HostUsage { usr_ns: n * per_io, sys_ns: n * per_io / 2, ctx: n, majf: 0, minf: 0 })
    }
}

impl MockDevice {
    /// Commands still queued (must be 0 after a run drains).
    pub fn outstanding_after_run(&self) -> usize {
        self.pending.len()
    }
}
