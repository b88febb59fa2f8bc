//! Golden-image comparison: decides whether a rendered frame still matches its blessed
//! reference, on the CPU, without a GPU.
//!
//! Frames from two GPU drivers (or a GPU and Mesa's lavapipe) are never bit-identical, so a
//! byte comparison would fail on every machine but the one that blessed the image. This module
//! gives the numbers a reviewer needs instead: the largest channel difference, how many pixels
//! exceed a [`Tolerance`], the mean difference, SSIM (structure) and FLIP (what a viewer would
//! see), with one pass/fail verdict in a [`Comparison`]. It also draws a [`diff_heatmap`] and a side-by-side [`strip`] for
//! failures, and keeps a [`GoldenSidecar`] (`golden.json`) next to the references saying which
//! adapter made them and which tolerance applies. Fluid maps are data, not pictures, and use
//! [`compare_exact_within`], where SSIM is reported but does not decide.
//!
//! EXR frames are judged in linear light ([`hdr`]): the 8-bit gates after a stated exposure,
//! and HDR-FLIP ([`hdr_flip`]) in place of FLIP. [`GoldenFormat`] says which a golden folder
//! holds.
//!
//! [`accept()`] makes a failed check's actual pictures the references without rendering.
//! [`golden`] runs the frame loop into these comparisons: the `fogbank check` job (render,
//! compare or bless, write failure pictures) and `fogbank compare` of two files. It serves both
//! fogbank's own CI (tests/) and users' CI.

mod accept;
mod diff;
mod flip;
mod flip_hdr;
mod github;
pub mod golden;
mod hdr;
mod html;
mod judge;
mod junit;
mod mask;
mod metrics;
mod raster;
mod reference;
mod sidecar;
mod ssim;
mod tolerance;

pub use accept::{ACTUALS_FILE, AcceptReport, ActualsRecord, RenderSettings, accept};
pub use diff::{GAP_PX, SATURATION_DIFF, diff_heatmap, strip};
pub use flip::{FlipFigures, FlipMap, PIXELS_PER_DEGREE, flip};
pub use flip_hdr::{
    ExposureBracket, HdrFlip, LinearPicture, MAX_EXPOSURES, exposure_bracket, hdr_flip, tone_map,
};
pub use github::{STEP_SUMMARY_LIMIT_BYTES, annotations, step_summary};
pub use golden::{
    CheckOptions, CheckReport, CompareFiles, FilesVerdict, FrameReport, MAP_MAX_CHANNEL_DIFF,
    check, compare_files,
};
pub use hdr::{HdrComparison, HdrFrame, compare_hdr, is_exr, load_picture};
pub use html::{HtmlCase, HtmlPage, render_html, write_html};
pub use junit::junit_xml;
pub use mask::{apply_mask, load_mask, mask_file_name, mask_for};
pub use metrics::{Comparison, Failure, Gate, compare, compare_exact_within};
pub use raster::{Image, load_png, save_png};
pub use reference::{GoldenFormat, artifact_paths};
pub use sidecar::{GoldenSidecar, SIDECAR_FILE};
pub use ssim::ssim;
pub use tolerance::{
    AppliedLimit, LimitSource, LimitSources, Tolerance, ToleranceFlags, applied_limits,
};

use std::path::PathBuf;

/// Why an image or a sidecar could not be read or written. A size mismatch is not an error:
/// it is a failed [`Comparison`].
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The file does not exist (for a golden image or sidecar: nothing has been blessed yet).
    #[error("{} does not exist", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// The file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file was read but is not a PNG that can be decoded.
    #[error("{} is not a readable PNG: {message}", path.display())]
    NotPng {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        message: String,
    },
    /// The file was read but is not an EXR that can be decoded.
    #[error("{} is not a readable EXR: {message}", path.display())]
    NotExr {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        message: String,
    },
    /// The pixel buffer does not hold `width × height` RGBA8 pixels.
    #[error("image buffer holds {len} bytes, but {width}×{height} RGBA8 needs {needed}")]
    BadBuffer {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bytes present.
        len: usize,
        /// Bytes needed.
        needed: usize,
    },
    /// An image could not be encoded as PNG.
    #[error("cannot encode {}: {message}", path.display())]
    Encode {
        /// The file being made.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The sidecar exists but its JSON or its values are wrong.
    #[error("{}: {message}", path.display())]
    Sidecar {
        /// The sidecar file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
}
