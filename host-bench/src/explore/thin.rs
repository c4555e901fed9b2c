//! Thinning the recorder's frames: neighbouring frames merge pairwise, exactly (the later
//! frame's counters, both frames' completions, victims, block changes and latency counts).
//! Done in place, column by column, so a thinning allocates nothing but its index maps (a run
//! thins about once per doubling of its length).

use super::model::{BlockRec, Frames};

/// Merges `frames` pairwise (1 with 2, 3 with 4, ...; frame 0, the start, and single-write
/// frames stay), renumbering the block changes `deltas` (frame, block, record) and latency
/// counts `lat` (frame, bucket, count), both in frame order, to the merged frames. `seen` is
/// scratch, `blocks` the sampled blocks.
#[allow(clippy::cast_possible_truncation)] // frame indices are far below u32 (MAX_FRAMES)
pub(super) fn thin(
    frames: &mut Frames,
    deltas: &mut Vec<(u32, u32, BlockRec)>,
    lat: &mut Vec<(u32, u16, u32)>,
    seen: &mut Vec<(u32, usize)>,
    blocks: usize,
) {
    let n = frames.t_ns.len();
    // The last old frame of each new frame, and each old frame's new index.
    let (mut keep, mut map) = (Vec::with_capacity(n / 2 + 1), Vec::with_capacity(n));
    let mut open = 0usize; // old frames in the new frame being built
    for i in 0..n {
        map.push(keep.len() as u32);
        open += 1;
        let alone = i == 0 || frames.fine[i];
        let next_alone = i + 1 < n && frames.fine[i + 1];
        if alone || open == 2 || next_alone || i + 1 == n {
            keep.push(i);
            open = 0;
        }
    }
    // New frame j covers old frames (previous kept + 1)..=keep[j], so j <= the first of them:
    // writing j never overwrites an old frame still to be read.
    // The columns a kept frame takes as they are at its last old frame (once, for both uses).
    macro_rules! per_frame_columns {
        ($m:ident) => {
            $m!(
                t_ns,
                calls,
                host_writes,
                host_reads,
                host_write_bytes,
                host_trim_bytes,
                nand_write_bytes,
                gc_write_bytes,
                gc_victims,
                erases,
                free_blocks,
                gc_stall_ns,
                energy_j,
                throttled_ns,
                fine,
                writes
            )
        };
    }
    let f = frames;
    let mut from = 0usize;
    for (j, &k) in keep.iter().enumerate() {
        macro_rules! take {
            ($($col:ident),*) => { $( f.$col[j] = f.$col[k]; )* };
        }
        per_frame_columns!(take);
        f.completions[j] = f.completions[from..=k].iter().sum();
        let mut v = std::mem::take(&mut f.victims[from]);
        for i in from + 1..=k {
            v.append(&mut f.victims[i]);
        }
        f.victims[j] = v;
        if !f.hist.is_empty() {
            f.hist.swap(j, k);
        }
        from = k + 1;
    }
    let m = keep.len();
    macro_rules! cut {
        ($($col:ident),*) => { $( f.$col.truncate(m); )* };
    }
    per_frame_columns!(cut);
    cut!(completions, victims, hist);
    // A block changed in both frames of a pair keeps its first place and its later record.
    seen.clear();
    seen.resize(blocks, (0, 0));
    let mut w = 0;
    for r in 0..deltas.len() {
        let (i, b, rec) = deltas[r];
        let m = map[i as usize];
        match seen[b as usize] {
            (f, pos) if f == m + 1 => deltas[pos] = (m, b, rec),
            _ => {
                seen[b as usize] = (m + 1, w);
                deltas[w] = (m, b, rec);
                w += 1;
            }
        }
    }
    deltas.truncate(w);
    // Latency counts of a bucket in both frames of a pair add up, in its first place.
    let (mut w, mut start) = (0, 0);
    for r in 0..lat.len() {
        let (i, b, c) = lat[r];
        let m = map[i as usize];
        if w > 0 && lat[w - 1].0 != m {
            start = w;
        }
        match lat[start..w].iter_mut().find(|e| e.1 == b) {
            Some(e) => e.2 += c,
            None => {
                lat[w] = (m, b, c);
                w += 1;
            }
        }
    }
    lat.truncate(w);
}
