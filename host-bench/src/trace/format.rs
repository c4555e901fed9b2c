//! The trace formats by name (`--format`), and the parser of each.

use super::formats::{blkparse, csv_user, fio_iolog, simple};
use super::LineParser;

/// A trace format. See docs/traces.md for the fields and units of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// MSR Cambridge: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`; Windows
    /// filetime (100 ns ticks), bytes, `Read`/`Write`.
    Msr,
    /// SNIA IOTTA SYSTOR'17: `Timestamp,Response,IOType,LUN,Offset,Size`; seconds, `R`/`W`, bytes.
    Systor,
    /// Tencent CBS: `Timestamp,Offset,Size,IOType,VolumeID`; seconds, 512 B sectors, 0 = read.
    Tencent,
    /// Alibaba block traces: `device_id,opcode,offset,length,timestamp`; `R`/`W`, bytes, us.
    Alibaba,
    /// UMass SPC: `ASU,LBA,Size,Opcode,Timestamp`; 512 B sectors, bytes, `r`/`w`, seconds.
    Umass,
    /// blkparse's default text output; `action` (Q or D) is the issue point taken.
    Blkparse { action: char },
    /// MQSim ASCII: `arrival_time device_no start_LBA size_in_sectors type`; ns, 512 B
    /// sectors, 0 = write, 1 = read.
    Mqsim,
    /// DiskSim ASCII: the same columns with the time in (decimal) milliseconds and flags bit 0
    /// set = read.
    Disksim,
    /// fio iolog, version 2 or 3 (what `write_iolog` writes).
    FioIolog,
    /// Binary blktrace events (`struct blk_io_trace`), as fio reads them: queue events only.
    Blktrace,
    /// A user-described delimited file (`csv:ts=1:unit=us,op=4:w=W,...`).
    Csv(csv_user::CsvSpec),
}

/// Names accepted by `--format`, for error messages.
pub const FORMAT_NAMES: &str =
    "msr, systor, tencent, alibaba, umass, blkparse (= blkparse:Q), blkparse:D, blktrace, mqsim, disksim, fio-iolog, csv:SPEC";

impl TraceFormat {
    pub fn parse(s: &str) -> Result<TraceFormat, String> {
        Ok(match s {
            "msr" => TraceFormat::Msr,
            "systor" => TraceFormat::Systor,
            "tencent" => TraceFormat::Tencent,
            "alibaba" => TraceFormat::Alibaba,
            "umass" => TraceFormat::Umass,
            "blkparse" | "blkparse:Q" => TraceFormat::Blkparse { action: 'Q' },
            "blkparse:D" => TraceFormat::Blkparse { action: 'D' },
            "mqsim" => TraceFormat::Mqsim,
            "disksim" => TraceFormat::Disksim,
            "fio-iolog" => TraceFormat::FioIolog,
            "blktrace" => TraceFormat::Blktrace,
            _ => match s.strip_prefix("csv:") {
                Some(spec) => TraceFormat::Csv(csv_user::CsvSpec::parse(spec)?),
                None => return Err(format!("unknown trace format '{s}' (allowed: {FORMAT_NAMES})")),
            },
        })
    }

    /// A fresh line parser for this format; `None` for the binary blktrace.
    pub fn parser(&self) -> Option<Box<dyn LineParser>> {
        Some(match self {
            TraceFormat::Blktrace => return None,
            TraceFormat::Msr => Box::new(simple::Msr),
            TraceFormat::Systor => Box::new(simple::Systor),
            TraceFormat::Tencent => Box::new(simple::Tencent),
            TraceFormat::Alibaba => Box::new(simple::Alibaba),
            TraceFormat::Umass => Box::new(simple::Umass),
            TraceFormat::Mqsim => Box::new(simple::Mqsim { disksim: false }),
            TraceFormat::Disksim => Box::new(simple::Mqsim { disksim: true }),
            TraceFormat::Blkparse { action } => Box::new(blkparse::Blkparse::new(*action)),
            TraceFormat::FioIolog => Box::new(fio_iolog::FioIolog::default()),
            TraceFormat::Csv(spec) => Box::new(csv_user::CsvUser::new(spec.clone())),
        })
    }

    /// Whether the first line may be a column header (skipped when it does not parse).
    pub fn header_allowed(&self) -> bool {
        !matches!(self, TraceFormat::Blkparse { .. } | TraceFormat::FioIolog | TraceFormat::Blktrace)
    }
}
