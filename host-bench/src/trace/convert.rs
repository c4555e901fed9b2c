//! `ssdlab trace convert`: any trace format to fio's iolog v3, so fio can replay it
//! (`read_iolog=`). Times are kept (to the microsecond, fio's resolution); one file name for every record.

use std::io::Write;

use super::{TraceError, TraceReader};
use crate::report::iolog::IologWriter;
use crate::runner::SubmittedIo;

#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("writing the iolog: {0}")]
    Write(#[from] std::io::Error),
    #[error("record at {file}:{line} is {len} bytes long; fio's iolog lengths are 32-bit")]
    TooLong { file: String, line: u64, len: u64 },
}

/// Writes every record of `reader` as an iolog v3 for `file_name`; returns the records written.
pub fn to_fio_iolog<W: Write>(reader: &mut TraceReader, out: W, file_name: &str) -> Result<u64, ConvertError> {
    let mut w = IologWriter::new(out, file_name)?;
    let (mut n, mut last) = (0u64, 0u64);
    while let Some(r) = reader.next_record()? {
        let len_bytes = u32::try_from(r.len_bytes).map_err(|_| {
            let (file, line) = reader.location();
            ConvertError::TooLong { file, line, len: r.len_bytes }
        })?;
        w.record(&SubmittedIo {
            job: 0,
            clone: 0,
            time_ns: r.time_ns,
            dir: r.dir,
            offset_bytes: r.offset_bytes,
            len_bytes,
        })?;
        last = last.max(r.time_ns);
        n += 1;
    }
    w.finish(last)?;
    Ok(n)
}
