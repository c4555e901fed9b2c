//! Streaming reader over one or more trace files: decompresses .gz and .zst (recognised by
//! their magic bytes) as streams, parses line by line with the format's parser, rebases times on
//! the first record, filters by volume and time window, and keeps bad-line accounting. Memory
//! is one line buffer whatever the trace's size.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::formats::blktrace;
use super::{LineOut, LineParser, TraceFormat, TraceRecord};

/// Bad lines kept with their message for the report; the rest are only counted.
pub const BAD_LINES_KEPT: usize = 5;

/// A line that did not parse.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BadLine {
    pub file: String,
    pub line: u64,
    pub message: String,
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{file}: {source}")]
    Io { file: String, source: io::Error },
    #[error("{0} (--strict makes bad lines fatal)")]
    Strict(BadLine),
}

/// Which records to keep, and whether a bad line is fatal.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    pub strict: bool,
    /// Keep only this volume (disk, LUN, device) where the format has one.
    pub volume: Option<u64>,
    /// Keep records with `start <= time < end` (ns since the first record).
    pub window_start_ns: Option<u64>,
    pub window_end_ns: Option<u64>,
}

/// Counts of what the reader read and dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadCounts {
    pub lines: u64,
    pub records: u64,
    pub bad_lines: u64,
    pub first_bad_lines: Vec<BadLine>,
    /// Records dropped by `--volume` or `--window`.
    pub filtered: u64,
    /// Records with a zero length (dropped).
    pub empty: u64,
}

/// Iterator of [`TraceRecord`]s over the given files in order.
pub struct TraceReader {
    files: Vec<PathBuf>,
    next_file: usize,
    input: Option<Box<dyn BufRead + Send>>,
    file_name: String,
    line_no: u64,
    buf: Vec<u8>,
    /// `None` for binary formats.
    parser: Option<Box<dyn LineParser>>,
    binary: bool,
    /// Byte order of the current binary file, from its first event.
    order: Option<blktrace::Order>,
    header_allowed: bool,
    base_ns: Option<u64>,
    opts: ReadOptions,
    pub counts: ReadCounts,
    done: bool,
}

/// Opens `path`, decompressing gzip or zstd by the first bytes.
pub fn open_stream(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    let f = File::open(path)?;
    let mut r = BufReader::with_capacity(1 << 16, f);
    let head = r.fill_buf()?;
    Ok(if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(r)))
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Box::new(BufReader::with_capacity(1 << 16, zstd::stream::read::Decoder::with_buffer(r)?))
    } else {
        Box::new(r)
    })
}

impl TraceReader {
    pub fn new(files: &[PathBuf], format: &TraceFormat, opts: ReadOptions) -> TraceReader {
        TraceReader {
            files: files.to_vec(),
            next_file: 0,
            input: None,
            file_name: String::new(),
            line_no: 0,
            buf: Vec::with_capacity(256),
            parser: format.parser(),
            binary: format.parser().is_none(),
            order: None,
            header_allowed: format.header_allowed(),
            base_ns: None,
            opts,
            counts: ReadCounts::default(),
            done: false,
        }
    }

    /// File and line of the record returned last.
    pub fn location(&self) -> (String, u64) {
        (self.file_name.clone(), self.line_no)
    }

    /// Where the record returned last came from, cheaply: (file index, line).
    pub fn file_line(&self) -> (usize, u64) {
        (self.next_file.saturating_sub(1), self.line_no)
    }

    /// The name of file `index` as given.
    pub fn file_name(&self, index: usize) -> String {
        self.files.get(index).map_or_else(String::new, |p| p.display().to_string())
    }

    fn bad(&mut self, message: String) -> Result<(), TraceError> {
        let b = BadLine { file: self.file_name.clone(), line: self.line_no, message };
        self.counts.bad_lines += 1;
        if self.opts.strict {
            return Err(TraceError::Strict(b));
        }
        if self.counts.first_bad_lines.len() < BAD_LINES_KEPT {
            self.counts.first_bad_lines.push(b);
        }
        Ok(())
    }

    /// The next record, `Ok(None)` at the end of the last file.
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        loop {
            if self.done {
                return Ok(None);
            }
            if self.input.is_none() {
                let Some(p) = self.files.get(self.next_file) else {
                    self.done = true;
                    return Ok(None);
                };
                self.file_name = p.display().to_string();
                self.next_file += 1;
                self.line_no = 0;
                self.order = None;
                let s = open_stream(p).map_err(|source| TraceError::Io { file: self.file_name.clone(), source })?;
                self.input = Some(s);
            }
            let item = if self.binary { self.next_event()? } else { self.next_line()? };
            let (raw, dir, offset_bytes, len_bytes, volume) = match item {
                Item::Eof => {
                    self.input = None;
                    continue;
                }
                Item::Skip => continue,
                Item::Bad(m) => {
                    self.bad(m)?;
                    continue;
                }
                Item::Io(LineOut::Io { raw_time_ns, dir, offset_bytes, len_bytes, volume }) => {
                    (raw_time_ns, dir, offset_bytes, len_bytes, volume)
                }
                Item::Io(LineOut::Skip) => continue,
            };
            let base = *self.base_ns.get_or_insert(raw);
            let rec = TraceRecord { time_ns: raw.saturating_sub(base), dir, offset_bytes, len_bytes, volume };
            if len_bytes == 0 {
                self.counts.empty += 1;
                continue;
            }
            let keep = self.opts.volume.is_none_or(|v| volume == Some(v))
                && self.opts.window_start_ns.is_none_or(|s| rec.time_ns >= s)
                && self.opts.window_end_ns.is_none_or(|e| rec.time_ns < e);
            if !keep {
                self.counts.filtered += 1;
                continue;
            }
            self.counts.records += 1;
            return Ok(Some(rec));
        }
    }
}

/// What the next line or event of the current file is.
enum Item {
    Eof,
    Skip,
    Bad(String),
    Io(LineOut),
}

impl TraceReader {
    fn io_error(&self, source: io::Error) -> TraceError {
        TraceError::Io { file: self.file_name.clone(), source }
    }

    /// The next line of a text trace. A line that lies whole in the input's buffer is parsed
    /// in place (no copy); one that straddles the buffer's end is gathered in `buf`.
    fn next_line(&mut self) -> Result<Item, TraceError> {
        let Some(r) = self.input.as_mut() else {
            return Ok(Item::Eof);
        };
        // Errors (even `Interrupted`) go the slow way, where `read_until` handles them.
        if let Ok(avail) = r.fill_buf() {
            if let Some(i) = memchr::memchr(b'\n', avail) {
                self.line_no += 1;
                self.counts.lines += 1;
                let parser = self.parser.as_deref_mut();
                let item = line_item(&avail[..=i], self.line_no, self.header_allowed, parser);
                r.consume(i + 1);
                return Ok(item);
            }
        }
        self.buf.clear();
        let n = r
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| TraceError::Io { file: self.file_name.clone(), source })?;
        if n == 0 {
            return Ok(Item::Eof);
        }
        self.line_no += 1;
        self.counts.lines += 1;
        Ok(line_item(&self.buf, self.line_no, self.header_allowed, self.parser.as_deref_mut()))
    }

    /// The next event of a binary blktrace; "line" numbers count events. A broken stream (a
    /// wrong magic, a cut-off event) is one bad line and ends the file.
    fn next_event(&mut self) -> Result<Item, TraceError> {
        let Some(r) = self.input.as_mut() else {
            return Ok(Item::Eof);
        };
        let mut e = [0u8; blktrace::EVENT_BYTES];
        let got = read_full(r.as_mut(), &mut e).map_err(|err| self.io_error(err))?;
        if got == 0 {
            return Ok(Item::Eof);
        }
        self.line_no += 1;
        self.counts.lines += 1;
        let cut = |s: &mut Self, m: String| {
            s.input = None;
            Ok(Item::Bad(m))
        };
        if got < e.len() {
            return cut(self, format!("event cut off after {got} of {} bytes", e.len()));
        }
        let order = match self.order {
            Some(o) => o,
            None => match blktrace::detect(&e) {
                Ok(o) => *self.order.insert(o),
                Err(m) => return cut(self, m),
            },
        };
        match blktrace::parse_event(&e, order) {
            Ok((out, pdu)) => {
                let mut left = u64::from(pdu);
                if let Some(r) = self.input.as_mut() {
                    let skipped =
                        io::copy(&mut r.by_ref().take(left), &mut io::sink()).map_err(|err| self.io_error(err))?;
                    left -= skipped;
                }
                if left > 0 {
                    return cut(self, format!("payload cut off ({left} of {pdu} bytes missing)"));
                }
                Ok(Item::Io(out))
            }
            Err(m) => cut(self, m),
        }
    }
}

/// Reads until `buf` is full or the stream ends; returns the bytes read.
fn read_full(r: &mut dyn BufRead, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// What one text line (with its line ending, if any) is.
#[inline]
fn line_item(raw: &[u8], line_no: u64, header_allowed: bool, parser: Option<&mut (dyn LineParser + 'static)>) -> Item {
    let raw = trim_eol(raw);
    let line = if raw.is_ascii() {
        // SAFETY: ASCII is valid UTF-8. Trace lines nearly always are ASCII, and this check
        // runs word by word where `from_utf8` spends a visible share of a replay's parsing.
        unsafe { std::str::from_utf8_unchecked(raw) }
    } else {
        let Ok(line) = std::str::from_utf8(raw) else {
            return Item::Bad("not UTF-8 text".into());
        };
        line
    };
    if blank(line) || line.starts_with('#') {
        return Item::Skip;
    }
    let Some(parser) = parser else {
        return Item::Eof;
    };
    match parser.parse(line) {
        Ok(out) => Item::Io(out),
        // A column header on a file's first line.
        Err(_) if line_no == 1 && header_allowed && looks_like_header(line) => Item::Skip,
        Err(m) => Item::Bad(m),
    }
}

/// `line.trim().is_empty()`, answered from the first byte for the usual line (a printable
/// ASCII character: every whitespace character is either at most b' ' or non-ASCII).
#[inline]
fn blank(line: &str) -> bool {
    match line.as_bytes().first() {
        Some(&b) if b > b' ' && b < 0x80 => false,
        _ => line.trim().is_empty(),
    }
}

/// A line with a letter in every field (a header, not data with a typo).
fn looks_like_header(line: &str) -> bool {
    line.split([',', ' ', '\t']).filter(|f| !f.trim().is_empty()).all(|f| f.chars().any(|c| c.is_ascii_alphabetic()))
}

fn trim_eol(b: &[u8]) -> &[u8] {
    let b = b.strip_suffix(b"\n").unwrap_or(b);
    b.strip_suffix(b"\r").unwrap_or(b)
}

impl Iterator for TraceReader {
    type Item = Result<TraceRecord, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Reads a whole (small) trace into memory: for tests and tools, not for replay.
pub fn read_all(
    files: &[PathBuf],
    format: &TraceFormat,
    opts: ReadOptions,
) -> Result<(Vec<TraceRecord>, ReadCounts), TraceError> {
    let mut r = TraceReader::new(files, format, opts);
    let mut v = Vec::new();
    while let Some(rec) = r.next_record()? {
        v.push(rec);
    }
    Ok((v, r.counts))
}
