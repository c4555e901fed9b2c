//! Stage one: split a job file into sections of raw options; then resolve each job section.

use std::path::Path;

use super::error::{JobError, Loc};
use super::registry::{self, Support};
use super::resolve::{apply_option, finish_job, Applied};
use super::{JobFile, JobSpec};

/// How strict the parser is.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Turn unknown options into warnings (collected in [`JobFile::warnings`]) instead of errors.
    pub ignore_unsupported: bool,
}

/// One `key[=value]` as written (`None`: a bare flag).
#[derive(Clone, Debug)]
pub struct RawOption {
    pub key: String,
    pub value: Option<String>,
    /// Line in the file, for messages.
    pub line: usize,
}

impl RawOption {
    /// An option as fio echoes it in its JSON ("job options"): `""` is a bare flag; key and
    /// value are trimmed and the key is checked as a job file's line would be.
    pub fn from_echo(file: &str, line: usize, key: &str, value: &str) -> Result<Self, JobError> {
        let k = key.trim();
        if k.is_empty() || k.contains(char::is_whitespace) {
            let text = if value.is_empty() { key.to_string() } else { format!("{key}={value}") };
            return Err(JobError::Syntax { file: file.into(), line, text: text.trim().into() });
        }
        let value = (!value.is_empty()).then(|| value.trim().to_string());
        Ok(RawOption { key: k.to_string(), value, line })
    }
}

/// A section of raw options: `[global]` or a job.
#[derive(Clone, Debug)]
pub struct RawSection {
    pub name: String,
    /// Line of the header, for messages.
    pub line: usize,
    pub options: Vec<RawOption>,
}

/// Reads and parses a job file; `file` in messages is the path as given.
pub fn parse_path(path: &Path, opts: &ParseOptions) -> Result<JobFile, JobError> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| JobError::Read { file: file.clone(), message: e.to_string() })?;
    parse_str(&text, &file, opts)
}

/// Parses job-file text; `file` is only used in messages and reports.
pub fn parse_str(text: &str, file: &str, opts: &ParseOptions) -> Result<JobFile, JobError> {
    resolve_sections(&split_sections(text, file)?, file, opts)
}

/// Resolves sections of raw options as a job file holding them would be (for options that
/// come as data, e.g. from fio's JSON, rather than as a file).
pub fn resolve_sections(sections: &[RawSection], file: &str, opts: &ParseOptions) -> Result<JobFile, JobError> {
    let mut global = JobSpec::with_defaults("global", 0);
    let mut global_options = Vec::new();
    let mut jobs = Vec::new();
    let mut warnings = Vec::new();
    for section in sections {
        let is_global = section.name == "global";
        let mut spec = if is_global {
            global.clone()
        } else {
            let mut s = global.clone();
            s.name = section.name.clone();
            s.line = section.line;
            s.options.clear();
            s
        };
        for opt in &section.options {
            let value = opt.value.as_deref();
            let loc = Loc { file, line: opt.line, option: &opt.key, value: value.unwrap_or("") };
            let applied = match registry::lookup(&opt.key) {
                None => Applied::Unknown,
                Some(def) => match def.support {
                    Support::Implemented => match apply_option(&mut spec, def.name, value, &loc)? {
                        // The registry calls it implemented; the resolver must handle it.
                        Applied::Unknown => {
                            return Err(JobError::UnknownOption {
                                file: file.to_string(),
                                line: opt.line,
                                option: opt.key.clone(),
                            })
                        }
                        known => known,
                    },
                    Support::Accepted => {
                        // Some are kept in the spec (filename, randrepeat) though they change nothing.
                        apply_option(&mut spec, def.name, value, &loc)?;
                        Applied::Known
                    }
                    Support::Refused if opts.ignore_unsupported => {
                        warnings.push(format!(
                            "{file}:{}: ignoring refused option '{}': {}",
                            opt.line, opt.key, def.meaning
                        ));
                        continue;
                    }
                    Support::Refused => {
                        return Err(JobError::Refused {
                            file: file.to_string(),
                            line: opt.line,
                            option: opt.key.clone(),
                            reason: def.meaning.to_string(),
                        })
                    }
                },
            };
            match applied {
                Applied::Known => {
                    let pair = (opt.key.clone(), value.unwrap_or("").to_string());
                    if is_global {
                        global_options.push(pair);
                    } else {
                        spec.options.push(pair);
                    }
                }
                Applied::Unknown if opts.ignore_unsupported => {
                    warnings.push(format!("{file}:{}: ignoring unsupported option '{}'", opt.line, opt.key))
                }
                Applied::Unknown => {
                    return Err(JobError::UnknownOption {
                        file: file.to_string(),
                        line: opt.line,
                        option: opt.key.clone(),
                    })
                }
            }
        }
        if is_global {
            global = spec;
        } else {
            finish_job(&mut spec, file)?;
            jobs.push(spec);
        }
    }
    if jobs.is_empty() {
        return Err(JobError::NoJobs { file: file.to_string() });
    }
    Ok(JobFile { file: file.to_string(), global_options, jobs, warnings })
}

/// Lines into sections; comments and blank lines dropped.
fn split_sections(text: &str, file: &str) -> Result<Vec<RawSection>, JobError> {
    let mut sections: Vec<RawSection> = Vec::new();
    for (idx, raw) in text.lines().enumerate() {
        let line = idx + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with(';') || t.starts_with('#') {
            continue;
        }
        if let Some(rest) = t.strip_prefix('[') {
            let name = rest.strip_suffix(']').map(str::trim).unwrap_or("");
            if name.is_empty() {
                return Err(JobError::Syntax { file: file.into(), line, text: t.into() });
            }
            sections.push(RawSection { name: name.to_string(), line, options: Vec::new() });
            continue;
        }
        let (key, value) = match t.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
            None => (t, None),
        };
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(JobError::Syntax { file: file.into(), line, text: t.into() });
        }
        let Some(section) = sections.last_mut() else {
            return Err(JobError::OutsideSection { file: file.into(), line, option: key.into() });
        };
        section.options.push(RawOption { key: key.to_string(), value, line });
    }
    Ok(sections)
}
