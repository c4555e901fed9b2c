//! Seeded randomness. One master seed per simulation, split into named, independent ChaCha8
//! streams (one per component) so that adding randomness to one component never shifts the
//! numbers another component sees. Never seeded from the clock or the OS.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The generator every component uses.
pub type RngStream = ChaCha8Rng;

/// The named streams. Each has a fixed ChaCha stream number, so results stay reproducible when
/// new streams are added at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum StreamId {
    /// Host-side draws: the runner's I/O pattern of each job instance (index: job number << 20
    /// | clone), and the host drivers of tests and benches (index 0: the generator's default
    /// stream, as `ChaCha8Rng::seed_from_u64(seed)` draws).
    Host = 0,
    /// Sweep point seeds (index: the point's index in the grid).
    Sweep = 5,
    /// Master seeds of a calibration or validate group's measured rows (index: the row's
    /// position in its group), so that no row replays another's offsets.
    CalibrationRow = 6,
    /// Master seeds of repeated runs (`predict --seeds N`; index: the repeat, 0..N).
    Repeat = 7,
    /// Master seeds of the unmeasured warm-up before a scaled time-based job group (index: the
    /// group's number in the run), so the measured jobs do not replay the warm-up's offsets.
    Warmup = 8,
    /// The runner's rate schedule (`rate_process=poisson` arrivals) of each job instance (index
    /// as for [`StreamId::Host`]); stream 1 << 62, as the runner numbered it before it was named.
    HostRate = 0x4000,
    /// A `startdelay` range's draw for each job instance (index as for [`StreamId::Host`]).
    StartDelay = 9,
}

/// Factory of independent streams derived from one master seed.
#[derive(Clone, Copy, Debug)]
pub struct RngStreams {
    master_seed: u64,
}

impl RngStreams {
    pub fn new(master_seed: u64) -> Self {
        RngStreams { master_seed }
    }

    pub fn master_seed(&self) -> u64 {
        self.master_seed
    }

    /// The stream for `id`, sub-stream `index` (e.g. the job number).
    pub fn stream(&self, id: StreamId, index: u64) -> RngStream {
        let mut rng = ChaCha8Rng::seed_from_u64(self.master_seed);
        // ChaCha's 64-bit stream parameter makes the sequences independent for the same key.
        rng.set_stream(((id as u64) << 48) | (index & 0xFFFF_FFFF_FFFF));
        rng
    }

    /// A master seed derived for `(id, index)`: the stream's first draw.
    pub fn seed_for(&self, id: StreamId, index: u64) -> u64 {
        rand::RngCore::next_u64(&mut self.stream(id, index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn derived_seeds_are_the_streams_first_draws_and_differ_by_index_and_name() {
        let s = RngStreams::new(7);
        assert_eq!(s.seed_for(StreamId::Repeat, 3), s.stream(StreamId::Repeat, 3).next_u64());
        assert_eq!(s.seed_for(StreamId::Repeat, 3), RngStreams::new(7).seed_for(StreamId::Repeat, 3));
        assert_ne!(s.seed_for(StreamId::Repeat, 0), s.seed_for(StreamId::Repeat, 1));
        assert_ne!(s.seed_for(StreamId::Repeat, 0), s.seed_for(StreamId::CalibrationRow, 0));
        assert_ne!(s.seed_for(StreamId::Sweep, 0), s.seed_for(StreamId::CalibrationRow, 0));
    }

    #[test]
    fn same_seed_same_numbers_different_streams_differ() {
        let s = RngStreams::new(42);
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream(StreamId::Host, 0);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream(StreamId::Host, 0);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream(StreamId::Host, 1);
                move |_| r.next_u64()
            })
            .collect();
        let d = RngStreams::new(43).stream(StreamId::Host, 0).next_u64();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a[0], d);
    }
}
