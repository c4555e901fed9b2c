//! fio 3.33's rate limit (`rate`, `rate_iops`, `rate_process`; io_u.c `rate_ddir`,
//! backend.c `usec_for_io`): each direction has its own schedule, the next I/O of a direction
//! is due when the bytes issued so far would have taken that long at its rate (linear) or after
//! an exponential gap (poisson); a direction that is ahead of its schedule yields to the other
//! direction of a mixed job when that one is behind, else the job waits for whichever is due
//! first. Times are microseconds since the job instance started, as fio's.

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use crate::device::IoDir;
use crate::job::pattern::NextIo;
use crate::job::{JobSpec, RwMode};

#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct RateState {
    /// Bytes per second per direction (0: not limited).
    bps: [u64; 3],
    /// The block size fio divides by for poisson gaps (the direction's smallest).
    bs: [u64; 3],
    poisson: bool,
    #[serde(with = "crate::rng_serde")]
    rng: ChaCha8Rng,
    issued_bytes: [u64; 3],
    /// When each direction's next I/O is due (fio `rate_next_io_time`).
    next_us: [u64; 3],
    /// Poisson: the running sum of gaps (fio `last_usec`).
    last_us: [u64; 3],
    /// A mixed job and its read and write shares (fio `td_rw`, `rwmix`).
    mixed: bool,
    rwmix: [u32; 2],
    /// The I/O fetched and waiting for its time.
    pub pending: Option<NextIo>,
    /// The job's pattern has no more I/O.
    pub exhausted: bool,
}

impl RateState {
    /// The job's limits, or `None` when no direction is limited.
    pub fn new(spec: &JobSpec, rng: ChaCha8Rng) -> Option<Box<Self>> {
        if !spec.rate_limited() {
            return None;
        }
        let bs: [u64; 3] = std::array::from_fn(|d| u64::from(spec.block_sizes(d).min().unwrap_or(4096)));
        let bps = std::array::from_fn(|d| {
            if spec.rate_bytes[d] > 0 {
                spec.rate_bytes[d]
            } else {
                spec.rate_iops[d].saturating_mul(bs[d])
            }
        });
        Some(Box::new(RateState {
            bps,
            bs,
            poisson: spec.rate_poisson,
            rng,
            issued_bytes: [0; 3],
            next_us: [0; 3],
            last_us: [0; 3],
            mixed: matches!(spec.rw, RwMode::ReadWrite | RwMode::RandRw),
            rwmix: [spec.rwmixread_percent, 100 - spec.rwmixread_percent],
            pending: None,
            exhausted: false,
        }))
    }

    /// fio's `rate_ddir`: the direction to issue instead of `drawn` (if any) and how long to
    /// wait before issuing it, at `now_us`.
    pub fn choose(&self, drawn: IoDir, now_us: u64) -> (IoDir, u64) {
        let d = drawn.index();
        if self.next_us[d] <= now_us {
            return (drawn, 0);
        }
        let other = match drawn {
            IoDir::Read => Some(IoDir::Write),
            IoDir::Write => Some(IoDir::Read),
            IoDir::Trim => None,
        };
        match other {
            Some(o) if self.mixed && self.rwmix[o.index()] > 0 => {
                let od = o.index();
                if self.next_us[od] <= now_us {
                    (o, 0)
                } else if self.next_us[d] <= self.next_us[od] {
                    (drawn, self.next_us[d] - now_us)
                } else {
                    (o, self.next_us[od] - now_us)
                }
            }
            _ => (drawn, self.next_us[d] - now_us),
        }
    }

    /// fio's `usec_for_io` after an I/O of `len` bytes in `dir` was issued.
    pub fn issued(&mut self, dir: IoDir, len: u32) {
        let d = dir.index();
        self.issued_bytes[d] += u64::from(len);
        let bps = self.bps[d];
        self.next_us[d] = if bps == 0 {
            0
        } else if self.poisson {
            let iops = (bps / self.bs[d].max(1)).max(1);
            // (0, 1], as fio's __rand_0_1.
            let u = 1.0 - (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let gap = nand_model::cast::sat_u64((1_000_000 / iops) as f64 * -u.ln());
            self.last_us[d] += gap;
            self.last_us[d]
        } else {
            let (bytes, bps) = (u128::from(self.issued_bytes[d]), u128::from(bps));
            u64::try_from(bytes % bps * 1_000_000 / bps + bytes / bps * 1_000_000).unwrap_or(u64::MAX)
        };
    }
}
