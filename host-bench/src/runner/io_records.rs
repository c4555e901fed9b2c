//! What the runner hands per-I/O log writers: submitted and measured completed I/Os, in batches.

/// Receives submitted I/Os in batches (see [`super::RunOptions::on_submit`]).
pub type SubmitHook<'a> = &'a mut dyn FnMut(&[SubmittedIo]);
/// Receives measured completions in batches (see [`super::RunOptions::on_complete`]).
pub type CompleteHook<'a> = &'a mut dyn FnMut(&[CompletedIo]);

/// One measured completion, for fio's per-I/O logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletedIo {
    /// Index of the job section in the file, and the `numjobs` clone.
    pub job: u32,
    pub clone: u32,
    /// Submission and completion, ns since the job instance started.
    pub submit_ns: u64,
    pub complete_ns: u64,
    pub dir: crate::device::IoDir,
    pub len_bytes: u32,
    /// Where the I/O went, when its job logs offsets (fio `log_offset`); 0 otherwise.
    pub offset_bytes: u64,
}

/// One submitted I/O, for I/O logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubmittedIo {
    /// Index of the job section in the file, and the `numjobs` clone.
    pub job: u32,
    pub clone: u32,
    /// Device time of the submission, ns since the run started.
    pub time_ns: u64,
    pub dir: crate::device::IoDir,
    pub offset_bytes: u64,
    pub len_bytes: u32,
}
