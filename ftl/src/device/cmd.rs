//! A host command as the device tracks it, and which parts of its mapping units it covers:
//! what a read moves off NAND and which end units a write covers only partly.

use super::HostOp;
use nand_model::SimTime;

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(crate) struct Cmd {
    pub(super) tag: u64,
    pub(super) op: HostOp,
    pub(super) first_lpn: u32,
    pub(super) mus: u32,
    pub(super) len: u32,
    pub(super) submit: SimTime,
    pub(super) next_mu: u32,
    pub(super) pending: u32,
    pub(super) data_ready: SimTime,
    /// Writes and TRIMs: which end units the command covers only partly ([`PARTIAL_HEAD`], [`PARTIAL_TAIL`]).
    pub(super) partial: u8,
    /// Where the command starts in its first unit, bytes: a read moves only the codewords it
    /// covers over the channel ([`Cmd::unit_read_bytes`]).
    pub(super) head_off: u32,
}

/// User data per ECC codeword, bytes: what a read of part of a mapping unit transfers at the
/// least (est.: LDPC codewords of current controllers carry 2-4 KiB; every profile's mapping
/// unit is a multiple of it).
const CODEWORD_BYTES: u32 = 4096;

impl Cmd {
    /// The bytes `[lo, hi)` the command covers of its `i`-th unit of `mu` bytes, counted from
    /// the first unit's start.
    #[inline]
    fn unit_span(&self, i: u32, mu: u32) -> (u64, u64) {
        let end = u64::from(self.head_off) + u64::from(self.len);
        let unit_lo = u64::from(i) * u64::from(mu);
        let lo = if i == 0 { u64::from(self.head_off) } else { unit_lo };
        (lo, end.min(unit_lo + u64::from(mu)))
    }

    /// Bytes a read of this command moves out of NAND for its `i`-th unit of `mu` bytes: the
    /// codewords the command covers in it (all of a middle unit).
    #[inline]
    pub(super) fn unit_read_bytes(&self, i: u32, mu: u32) -> u32 {
        if mu <= CODEWORD_BYTES {
            return mu;
        }
        let (lo, hi) = self.unit_span(i, mu);
        let cw = u64::from(CODEWORD_BYTES);
        let bytes = (hi.div_ceil(cw) * cw - lo / cw * cw).min(u64::from(mu));
        u32::try_from(bytes).unwrap_or(mu) // at most `mu`
    }

    /// Bytes a read-modify-write of this write's `i`-th unit of `mu` bytes moves out of NAND:
    /// the codewords the write does not cover whole (their old sectors merge with the new), so
    /// a 4 KiB write into a 16 KiB unit reads 12 KiB and a 512 B write reads all 16 KiB.
    #[inline]
    pub(super) fn unit_rmw_bytes(&self, i: u32, mu: u32) -> u32 {
        if mu <= CODEWORD_BYTES {
            return mu;
        }
        let (lo, hi) = self.unit_span(i, mu);
        let cw = u64::from(CODEWORD_BYTES);
        let whole = (hi / cw).saturating_sub(lo.div_ceil(cw)) * cw;
        u32::try_from(u64::from(mu) - whole.min(u64::from(mu))).unwrap_or(mu) // at most `mu`
    }
}

/// The command's first unit is written only partly.
pub(super) const PARTIAL_HEAD: u8 = 1;
/// The command's last unit (not also its first) is written only partly.
pub(super) const PARTIAL_TAIL: u8 = 2;
