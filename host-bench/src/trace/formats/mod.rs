//! One parser per trace format (the columnar ones share `simple.rs`).

pub mod blkparse;
pub mod blktrace;
pub mod csv_user;
pub mod fio_iolog;
pub mod simple;
