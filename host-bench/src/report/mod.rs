//! Reports of a [`crate::runner::RunResult`]: fio-compatible JSON, fio-like text, CSV series,
//! fio's I/O log and its bandwidth, IOPS and latency logs.

mod csv;
mod figures;
pub mod fio_logs;
pub mod iolog;
mod json;
mod summary;
mod text;

pub use csv::{csv_rows, csv_text, series_csv, series_file_names, ExtraColumn, SERIES_COLUMNS};
pub use figures::{
    job_figures, DirFigures, FioDirJson, FioJobJson, FioLatJson, FioReportJson, JobFigures, SsdlabJobJson,
    SsdlabTopJson,
};
pub use json::{fio_json, fio_json_string, JsonOptions};
pub use text::normal_text;
