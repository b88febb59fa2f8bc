//! Outputs: where finished frames and fluid maps go.
//!
//! Exporters turn pixels into bytes ([`png`], [`exr`]); one place writes bytes to disk
//! ([`atomic`]); [`writer`] runs that on worker threads; [`maps`] lays out the per-frame debug
//! maps; [`video`] streams frames into MP4/WebM through ffmpeg or natively into GIF (with the
//! palettes of [`gif`]) and animated PNG; [`sheet`] lays stills out as a contact sheet and
//! [`chart`] draws report charts (with `plotters`). [`text`] letters pictures in the bundled
//! typeface, and [`caption`] burns the `--stamp` strip into 8-bit frames.

pub mod atomic;
pub mod caption;
pub mod chart;
pub mod exr;
pub mod gif;
pub mod maps;
pub mod png;
pub mod sheet;
pub mod text;
pub mod video;
pub mod writer;
