//! `fogbank sheet`: chosen frames rendered as stills and laid out on one PNG with their frame
//! numbers, for documentation.

use super::render::{RenderJob, open_gpu, render_frames, sized_scene};
use super::{SheetSettings, create_dir, frames_in_clip, load_scene};
use crate::Error;
use crate::output::progress::ProgressMode;
use crate::output::sheet::{contact_sheet, thumbnail};
use crate::output::{atomic, png};

/// Most stills one sheet takes; beyond it the page becomes unwieldy and memory grows.
pub const MAX_STILLS: usize = 1024;

pub(super) fn run(settings: &SheetSettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let scene = sized_scene(&loaded.scene, settings.size);
    let frames = frames_in_clip(&Some(settings.frames.clone()), &scene)?;
    if frames.len() > MAX_STILLS {
        return Err(Error::Usage(format!(
            "--frames chooses {} stills; a sheet takes at most {MAX_STILLS}: choose fewer, e.g. every tenth frame with a comma list",
            frames.len()
        )));
    }
    if settings.columns == 0 {
        return Err(Error::Usage("--columns must be at least 1".into()));
    }
    if settings.thumb_width_px == 0 {
        return Err(Error::Usage(
            "--thumb-width must be at least 1 pixel".into(),
        ));
    }
    let context = open_gpu(&settings.gpu)?;
    let job = RenderJob {
        scene: &scene,
        frames: &frames,
        view: settings.view,
        compositor: settings.gpu.compositor,
        readback: crate::gpu::Readback::default(),
        context: &context,
        maps_dir: None,
        progress: ProgressMode::detect(settings.quiet),
        cache_dir: settings.scene.cache.as_deref(),
    };
    let mut stills = Vec::with_capacity(frames.len());
    render_frames(&job, |frame, _| {
        stills.push(thumbnail(&frame, settings.thumb_width_px));
        Ok(())
    })?;
    let fps = scene.output.fps;
    let sheet = contact_sheet(&stills, settings.columns, |frame| {
        format!(
            "{}  {:.2} S",
            frame.frame_index,
            f64::from(frame.frame_index) / f64::from(fps)
        )
    })?;
    let bytes = png::encode_rgba8(sheet.width, sheet.height, &sheet.rgba8, true).map_err(|e| {
        Error::Encode {
            path: settings.out_file.clone(),
            message: e.to_string(),
        }
    })?;
    if let Some(parent) = settings.out_file.parent()
        && !parent.as_os_str().is_empty()
    {
        create_dir(parent)?;
    }
    atomic::write_atomic(&settings.out_file, &bytes).map_err(|source| Error::Write {
        path: settings.out_file.clone(),
        source,
    })?;
    if !settings.quiet {
        eprintln!(
            "wrote a sheet of {} stills ({}x{}) to {}",
            stills.len(),
            sheet.width,
            sheet.height,
            settings.out_file.display()
        );
    }
    Ok(())
}
