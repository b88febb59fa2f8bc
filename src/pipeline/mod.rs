//! The frame pipeline: everything between a loaded scene and finished files.
//!
//! ```text
//! Scene ─► Playback (60 Hz world) ─► FrameInputs ─► gpu::Renderer ─► Frame ─► sink
//!                                                                          ├─ files (writer pool)
//!                                                                          ├─ video
//!                                                                          └─ golden check
//! ```
//!
//! [`run_frames`] is the loop itself; [`render`] (frame sequences, maps, video), [`still`] and
//! [`sheet`] are the jobs the command line offers ([`StillSession`] and [`ClipSession`] render `watch`'s turns), and [`maps`] the fluid's maps alone (no GPU); each taking plain settings and a
//! [`Reporter`] for progress, so a program renders a scene without clap:
//!
//! ```no_run
//! use fogbank::gpu::{GpuContext, GpuOptions};
//! use fogbank::pipeline::{self, RenderOptions, Silent};
//!
//! let scene = fogbank::scene::load(None, &[])?.scene; // the embedded temple
//! let gpu = GpuContext::new(&GpuOptions::default())?;
//! let mut options = RenderOptions::new("out/temple");
//! options.frames = Some(fogbank::timeline::FrameSet::parse("0..60")?);
//! let summary = pipeline::render(&gpu, &scene, &options, &mut Silent)?;
//! println!("{} frames in {:.1} s", summary.frames, summary.total_s);
//! # Ok::<(), fogbank::Error>(())
//! ```
//!
//! The golden check, which runs the same loop into a comparison, lives beside the comparison
//! code it uses ([`crate::compare::golden`]).

mod ahead;
mod frame_loop;
mod maps;
mod quality;
mod report;
mod sequence;
mod sheet;
mod stats;
mod still;
mod watch;

pub use frame_loop::{
    FrameHash, FrameJob, LoopOptions, LoopStats, Setup, run_frames, run_frames_with, start_playback,
};
pub use maps::{MapsOptions, maps};
pub use quality::{
    DEFAULT_SHEET_COUNTS, ErrorHistogram, PAYING_LEVELS, QualityOptions, QualityReport, QualityRow,
    enough_sheets, quality,
};
pub use report::{Recorded, Reporter, Silent, Stage};
pub use sequence::{
    FrameFormat, RenderOptions, RenderSummary, VideoRequest, render, render_opening,
};
pub use sheet::{MAX_STILLS, SheetOptions, sheet};
pub use stats::{
    GPU_CPU_FALLBACK, GPU_TIMESTAMPS, Measured, PassTime, RenderStats, StageKind, StageTime,
};
pub use still::{Still, StillOptions, still};
pub use watch::{ClipSession, ClipTurn, MAX_WATCH_FRAMES, StillSession, Turn};

use crate::Error;
use crate::error::RequestError;
use crate::gpu::GpuContext;
use crate::scene::Scene;
use crate::timeline::{FrameSet, Timeline};
use std::path::Path;

/// The scene with a picture size applied (`--size`), or unchanged.
pub fn sized_scene(scene: &Scene, size: Option<(u32, u32)>) -> Scene {
    let mut scene = scene.clone();
    if let Some((width, height)) = size {
        scene.output.width = width;
        scene.output.height = height;
    }
    scene
}

/// The chosen frames, checked against the clip; the whole clip when none are chosen.
pub fn frames_in_clip(frames: Option<&FrameSet>, scene: &Scene) -> Result<FrameSet, Error> {
    let count = scene.output.frame_count();
    let timeline = Timeline {
        fps: scene.output.fps,
        frame_count: count,
    };
    match frames {
        None => Ok(timeline.all_frames()),
        Some(set) => {
            if let Some(last) = set.last()
                && last >= count
            {
                return Err(RequestError::FrameBeyondClip { last, count }.into());
            }
            Ok(set.clone())
        }
    }
}

/// The adapter as one short line, "name (backend, driver)", for summaries and reports.
pub fn adapter_line(context: &GpuContext) -> String {
    let summary = context.summary();
    format!(
        "{} ({}, {})",
        summary.name, summary.backend, summary.driver_info
    )
}

/// Creates a folder and its parents for output.
pub(crate) fn create_dir(path: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(path).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Creates the folder a file goes in, if the path names one.
pub(crate) fn create_parent(path: &Path) -> Result<(), Error> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => create_dir(parent),
        _ => Ok(()),
    }
}

/// Encodes 8-bit sRGB pixels as a PNG and writes it atomically, creating its folder.
pub(crate) fn save_png(path: &Path, width: u32, height: u32, rgba8: &[u8]) -> Result<(), Error> {
    let bytes = crate::output::png::encode_rgba8(width, height, rgba8, true).map_err(|e| {
        Error::Encode {
            path: path.to_path_buf(),
            source: Box::new(e),
        }
    })?;
    create_parent(path)?;
    crate::output::atomic::write_atomic(path, &bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}
