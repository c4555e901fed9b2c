//! Job-file errors: every message is one line naming the file, line and option.

/// Why a job file was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// An option this simulator does not know (or support).
    #[error("{file}:{line}: unknown option '{option}' (neither a fio 3.33 option of `fio --cmdhelp=all` nor one of an ioengine ssdlab takes; see docs/fio-options.md; --ignore-unsupported skips it with a warning)")]
    UnknownOption { file: String, line: usize, option: String },
    /// A fio option ssdlab refuses, with the alternative (docs/fio-options.md).
    #[error("{file}:{line}: option '{option}' is not supported: {reason}")]
    Refused { file: String, line: usize, option: String, reason: String },
    /// A known option with a value outside what is allowed (boxed: errors stay small).
    #[error("{0}")]
    BadValue(Box<BadValue>),
    /// A line that is neither a section header, an option nor a comment.
    #[error("{file}:{line}: cannot parse '{text}' (expected [section], key=value, a bare flag or a ; or # comment)")]
    Syntax { file: String, line: usize, text: String },
    /// An option before any section header.
    #[error("{file}:{line}: option '{option}' is outside any section (put it under [global] or a [job] section)")]
    OutsideSection { file: String, line: usize, option: String },
    /// Only `[global]` sections.
    #[error("{file}: no job sections (expected at least one [name] section besides [global])")]
    NoJobs { file: String },
    /// Reading the file failed.
    #[error("{file}: cannot read job file: {message}")]
    Read { file: String, message: String },
}

/// Details of [`JobError::BadValue`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: option '{option}' = {value} {problem} (allowed {allowed})")]
pub struct BadValue {
    pub file: String,
    pub line: usize,
    pub option: String,
    pub value: String,
    /// What is wrong, e.g. "is out of range".
    pub problem: String,
    /// What would be accepted, e.g. "1..=65536".
    pub allowed: String,
}

/// Where an option was written; threaded through value parsing so errors can name it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Loc<'a> {
    pub file: &'a str,
    pub line: usize,
    pub option: &'a str,
    pub value: &'a str,
    /// How size prefixes read here: the section's fio `kb_base`.
    pub kb: super::value::KbBase,
}

impl Loc<'_> {
    /// A [`JobError::BadValue`] for this location.
    pub fn bad(&self, problem: &str, allowed: &str) -> JobError {
        JobError::BadValue(Box::new(BadValue {
            file: self.file.to_string(),
            line: self.line,
            option: self.option.to_string(),
            value: self.value.to_string(),
            problem: problem.to_string(),
            allowed: allowed.to_string(),
        }))
    }
}
