//! A contact sheet: chosen frames rendered through the frame loop, shrunk to thumbnails and
//! laid out on one picture with their frame numbers and times, for documentation.

use super::frame_loop::{FrameJob, run_frames};
use super::frames_in_clip;
use super::report::Reporter;
use crate::Error;
use crate::error::RequestError;
use crate::frame::View;
use crate::gpu::{Compositor, GpuContext, Readback};
use crate::output::sheet::{SheetImage, contact_sheet, thumbnail};
use crate::scene::Scene;
use crate::timeline::FrameSet;
use std::path::PathBuf;

/// Most stills one sheet takes; beyond it the page becomes unwieldy and memory grows.
pub const MAX_STILLS: usize = 1024;

/// What [`sheet`] shows and how it is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetOptions {
    /// Frames to show.
    pub frames: FrameSet,
    /// Stills per row.
    pub columns: u32,
    /// Width of each still on the sheet, pixels.
    pub thumb_width_px: u32,
    /// What to show.
    pub view: View,
    /// How the fog sheets are put over the scene.
    pub compositor: Compositor,
    /// Start from this simulation cache (`--cache`).
    pub cache_dir: Option<PathBuf>,
}

impl SheetOptions {
    /// Refuses a layout that cannot work, before anything is rendered.
    pub fn check(&self, scene: &Scene) -> Result<(), Error> {
        let frames = frames_in_clip(Some(&self.frames), scene)?;
        if frames.len() > MAX_STILLS {
            return Err(RequestError::TooManyStills {
                count: frames.len(),
                max: MAX_STILLS,
            }
            .into());
        }
        if self.columns == 0 {
            return Err(RequestError::NoColumns.into());
        }
        if self.thumb_width_px == 0 {
            return Err(RequestError::NoThumbWidth.into());
        }
        Ok(())
    }
}

/// Renders the chosen frames of `scene` (size already applied) and lays them out on one
/// picture, each labelled with its frame number and time. Returns the sheet and the number of
/// stills on it.
pub fn sheet(
    context: &GpuContext,
    scene: &Scene,
    options: &SheetOptions,
    reporter: &mut dyn Reporter,
) -> Result<(SheetImage, usize), Error> {
    options.check(scene)?;
    let job = FrameJob {
        scene,
        frames: &options.frames,
        view: options.view,
        compositor: options.compositor,
        readback: Readback::default(),
        maps_dir: None,
        cache_dir: options.cache_dir.as_deref(),
    };
    let mut stills = Vec::with_capacity(options.frames.len());
    run_frames(context, &job, reporter, |frame, _| {
        stills.push(thumbnail(&frame, options.thumb_width_px));
        Ok(())
    })?;
    let fps = scene.output.fps;
    let sheet = contact_sheet(&stills, options.columns, |frame| {
        format!(
            "frame {}  {:.2} s",
            frame.frame_index,
            f64::from(frame.frame_index) / f64::from(fps)
        )
    })?;
    Ok((sheet, stills.len()))
}
