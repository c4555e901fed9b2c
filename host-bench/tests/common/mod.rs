//! Job text shared by the integration tests.

/// A drive filled twice with 128 KiB sequential writes at QD32, then a quarter of it overwritten
/// by 4 KiB random writes (QD32 x 4): the data layout random writes leave, as PTS-E's rounds
/// find it. Jobs appended after it inherit `bs=128k` and `iodepth=32`.
pub const FILLED_THEN_QUARTER_SCATTERED: &str = "\
[global]
bs=128k
iodepth=32
[fill]
rw=write
loops=2
[scatter]
stonewall
rw=randwrite
bs=4k
numjobs=4
io_size=25%
";
