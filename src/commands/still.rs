//! `fogbank still`: simulate up to one frame and render just that frame to a PNG file.

use super::render::sized_scene;
use super::{StillSettings, create_dir, load_scene, start_playback};
use crate::Error;
use crate::gpu::{GpuContext, GpuOptions, Readback, RenderConfig, Renderer};
use crate::output::progress::{Progress, ProgressMode};
use crate::output::{atomic, png};

pub(super) fn run(settings: &StillSettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let mut scene = sized_scene(&loaded.scene, settings.size);
    // A still may be past the clip's nominal end: the clip length only bounds sequences.
    let needed = settings.frame.saturating_add(1);
    if scene.output.frame_count() < needed {
        scene.output.frames = Some(needed);
    }
    let context = GpuContext::new(&GpuOptions {
        backend: settings.gpu.backend,
        adapter_name: settings.gpu.adapter_name.clone(),
    })?;
    let mut renderer = Renderer::new(
        &context,
        &scene,
        &RenderConfig {
            width: scene.output.width,
            height: scene.output.height,
            view: settings.view,
            compositor: settings.gpu.compositor,
            readback: Readback::default(),
        },
    )?;
    if let Some(parent) = settings.out_file.parent()
        && !parent.as_os_str().is_empty()
    {
        create_dir(parent)?;
    }
    let mut playback = start_playback(settings.scene.cache.as_deref(), &scene, settings.frame)?;
    let steps = playback.timeline().steps_before(settings.frame);
    let mut progress = Progress::new("simulate", steps, ProgressMode::detect(settings.quiet));
    let state = playback.advance_to(settings.frame, || progress.advance(1));
    progress.finish();
    let frame = renderer.render_one(&playback.frame_inputs(&state))?;
    let bytes = png::encode_rgba8(frame.width, frame.height, &frame.rgba8, true).map_err(|e| {
        Error::Encode {
            path: settings.out_file.clone(),
            message: e.to_string(),
        }
    })?;
    atomic::write_atomic(&settings.out_file, &bytes).map_err(|source| Error::Write {
        path: settings.out_file.clone(),
        source,
    })?;
    if !settings.quiet {
        eprintln!(
            "wrote frame {} (hash {:016x}) to {}",
            settings.frame,
            state.hash,
            settings.out_file.display()
        );
    }
    Ok(())
}
