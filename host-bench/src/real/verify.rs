//! Data verification: every written logical block carries a header (magic, LBA, write
//! sequence number, checksum) and a body derived from (LBA, seq), so a read can be checked
//! against the last write the target completed to that LBA without keeping the data.
//!
//! Block layout (little-endian u64 words): word 0 magic, word 1 LBA, word 2 = seq (low 32
//! bits) | checksum (high 32 bits), words 3.. deterministic fill. The checksum covers every
//! word except its own half of word 2.

use serde::Serialize;

/// "SSDLABv1".
pub const MAGIC: u64 = u64::from_le_bytes(*b"SSDLABv1");
/// Per-LBA state: never written (or trimmed), so a read is not checked.
pub(crate) const SEQ_UNKNOWN: u32 = 0;
/// Per-LBA state: overlapping writes raced, the content is one of them; not checked.
pub(crate) const SEQ_AMBIGUOUS: u32 = u32::MAX;
/// Mismatches kept in detail; the rest are only counted.
pub const MISMATCHES_KEPT: usize = 8;

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn fill_word(state: &mut u64) -> u64 {
    // xorshift64: cheap and good enough to make every block's body distinct.
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn word(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i * 8..i * 8 + 8]);
    u64::from_le_bytes(w)
}

#[allow(clippy::cast_possible_truncation)] // the 64-bit hash is folded into 32 bits
fn checksum(block: &[u8], seq: u32) -> u32 {
    let mut h = mix(mix(0, word(block, 0)), word(block, 1));
    h = mix(h, u64::from(seq));
    for i in 3..block.len() / 8 {
        h = mix(h, word(block, i));
    }
    (h ^ (h >> 32)) as u32
}

fn seed(lba: u64, seq: u32) -> u64 {
    splitmix(lba ^ (u64::from(seq) << 40) ^ u64::from(seq)) | 1
}

/// Fills `block` (a multiple of 8 bytes, at least 32) with the pattern for (`lba`, `seq`).
pub fn stamp_block(block: &mut [u8], lba: u64, seq: u32) {
    let mut st = seed(lba, seq);
    for chunk in block[24..].chunks_exact_mut(8) {
        chunk.copy_from_slice(&fill_word(&mut st).to_le_bytes());
    }
    block[0..8].copy_from_slice(&MAGIC.to_le_bytes());
    block[8..16].copy_from_slice(&lba.to_le_bytes());
    let sum = checksum(block, seq);
    block[16..24].copy_from_slice(&(u64::from(seq) | (u64::from(sum) << 32)).to_le_bytes());
}

/// What was wrong with one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    BadMagic,
    WrongLba { found: u64 },
    WrongSeq { found: u32 },
    BadChecksum,
    BadContent,
}

/// Checks `block` against the pattern of (`lba`, `expected_seq`).
#[allow(clippy::cast_possible_truncation)] // the word holds two 32-bit fields
pub fn check_block(block: &[u8], lba: u64, expected_seq: u32) -> Result<(), Fault> {
    if word(block, 0) != MAGIC {
        return Err(Fault::BadMagic);
    }
    let found_lba = word(block, 1);
    let w2 = word(block, 2);
    let (seq, sum) = (w2 as u32, (w2 >> 32) as u32);
    if checksum(block, seq) != sum {
        return Err(Fault::BadChecksum);
    }
    if found_lba != lba {
        return Err(Fault::WrongLba { found: found_lba });
    }
    if seq != expected_seq {
        return Err(Fault::WrongSeq { found: seq });
    }
    let mut st = seed(lba, seq);
    let body_ok = block[24..].chunks_exact(8).all(|c| c == fill_word(&mut st).to_le_bytes());
    if body_ok {
        Ok(())
    } else {
        Err(Fault::BadContent)
    }
}

/// One failed block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// Logical block address within the target's window.
    pub lba: u64,
    pub expected_seq: u32,
    pub fault: Fault,
}

/// Running verify totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    pub blocks_written: u64,
    pub blocks_checked: u64,
    /// Never written, trimmed, or raced with an overlapping write: nothing to expect.
    pub blocks_unchecked: u64,
    pub mismatches: u64,
    /// The first [`MISMATCHES_KEPT`] mismatches.
    pub first: Vec<Mismatch>,
}

impl VerifyReport {
    /// `Err` with a summary when any block mismatched.
    pub fn to_result(&self) -> Result<(), String> {
        if self.mismatches == 0 {
            return Ok(());
        }
        let detail: Vec<String> = self
            .first
            .iter()
            .map(|m| format!("lba {} expected seq {} got {:?}", m.lba, m.expected_seq, m.fault))
            .collect();
        Err(format!("{} of {} blocks mismatched; first: {}", self.mismatches, self.blocks_checked, detail.join("; ")))
    }
}

/// Per-LBA expectations: the sequence number of the last completed write (4 bytes per block).
pub(crate) struct Verifier {
    pub(crate) last_seq: Vec<u32>,
    next_seq: u32,
    pub(crate) report: VerifyReport,
}

impl Verifier {
    pub(crate) fn new(blocks: usize) -> Self {
        Verifier { last_seq: vec![SEQ_UNKNOWN; blocks], next_seq: 1, report: VerifyReport::default() }
    }

    /// A fresh sequence number, skipping the two sentinels on wrap-around.
    pub(crate) fn next_seq(&mut self) -> u32 {
        let s = self.next_seq;
        self.next_seq = if s >= SEQ_AMBIGUOUS - 1 { 1 } else { s + 1 };
        s
    }

    /// Records completed writes (`seq`) or makes the range unknown (`SEQ_UNKNOWN`,
    /// `SEQ_AMBIGUOUS`).
    pub(crate) fn set_range(&mut self, first_lba: u64, blocks: u64, seq: u32) {
        let (a, b) = (nand_model::cast::usize_from(first_lba), nand_model::cast::usize_from(first_lba + blocks));
        if let Some(r) = self.last_seq.get_mut(a..b) {
            r.fill(seq);
        }
    }

    /// Checks a completed read of `blocks` blocks of `block_bytes` starting at `first_lba`.
    pub(crate) fn check_read(&mut self, data: &[u8], first_lba: u64, block_bytes: usize) {
        for (i, block) in data.chunks_exact(block_bytes).enumerate() {
            let lba = first_lba + i as u64;
            let expected = self.last_seq.get(nand_model::cast::usize_from(lba)).copied().unwrap_or(SEQ_UNKNOWN);
            if expected == SEQ_UNKNOWN || expected == SEQ_AMBIGUOUS {
                self.report.blocks_unchecked += 1;
                continue;
            }
            self.report.blocks_checked += 1;
            if let Err(fault) = check_block(block, lba, expected) {
                self.report.mismatches += 1;
                if self.report.first.len() < MISMATCHES_KEPT {
                    self.report.first.push(Mismatch { lba, expected_seq: expected, fault });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_then_check_round_trips_and_detects_flips() {
        let mut b = vec![0u8; 4096];
        stamp_block(&mut b, 77, 5);
        assert_eq!(check_block(&b, 77, 5), Ok(()));
        assert_eq!(check_block(&b, 77, 6), Err(Fault::WrongSeq { found: 5 }));
        assert_eq!(check_block(&b, 78, 5), Err(Fault::WrongLba { found: 77 }));
        b[1000] ^= 1;
        assert_eq!(check_block(&b, 77, 5), Err(Fault::BadChecksum));
        assert_eq!(check_block(&[0u8; 512], 0, 1), Err(Fault::BadMagic));
    }

    #[test]
    fn seq_skips_sentinels() {
        let mut v = Verifier::new(1);
        v.next_seq = SEQ_AMBIGUOUS - 1;
        assert_eq!(v.next_seq(), SEQ_AMBIGUOUS - 1);
        assert_eq!(v.next_seq(), 1);
    }
}
