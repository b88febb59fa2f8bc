//! Outputs: where finished frames and fluid maps go, and how progress is shown.
//!
//! Exporters turn pixels into bytes ([`png`]); one place writes bytes to disk ([`atomic`]);
//! [`writer`] runs that on worker threads; [`maps`] lays out the per-frame debug maps;
//! [`progress`] reports long work.

pub mod atomic;
pub mod maps;
pub mod png;
pub mod progress;
pub mod writer;
