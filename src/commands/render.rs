//! `fogbank render`: a frame sequence, maps and a video through [`pipeline::render`], then a
//! summary line (or `--json`).

use super::{
    ProgressMode, ProgressReporter, RenderSettings, limit_threads, load_scene, print_json,
};
use crate::Error;
use crate::pipeline::{self, RenderOptions, VideoRequest};
use std::path::Path;

pub(super) fn run(settings: &RenderSettings) -> Result<(), Error> {
    let threads = super::ThreadShare::of(settings.threads);
    limit_threads(Some(threads.simulation));
    let loaded = load_scene(&settings.scene)?;
    let scene = settings
        .gpu
        .apply_to(pipeline::sized_scene(&loaded.scene, settings.size));
    super::check_shutter(&scene)?;
    let frames = match settings.chunk {
        None => settings.frames.clone(),
        Some(chunk) => {
            let all = pipeline::frames_in_clip(settings.frames.as_ref(), &scene)?;
            let part = all.chunk(chunk);
            if part.is_empty() {
                // More chunks than frames: this one has nothing to do, and that is fine.
                eprintln!(
                    "chunk {chunk} has no frames: {} split into {} chunks leaves some empty; \
                     nothing to render",
                    all,
                    chunk.count()
                );
                return Ok(());
            }
            if !settings.quiet {
                eprintln!("chunk {chunk}: {part} of {all}");
            }
            Some(part)
        }
    };
    let options = RenderOptions {
        out_dir: settings
            .out_dir
            .clone()
            .unwrap_or_else(|| Path::new("out").join(&scene.name)),
        frames,
        view: settings.view,
        compositor: settings.gpu.compositor,
        format: settings.format,
        exr_compression: settings.exr_compression,
        layers: settings.layers,
        write_frames: !settings.no_frames,
        maps: settings.maps,
        video: settings.video.as_ref().map(|path| VideoRequest {
            path: path.clone(),
            crf: settings.crf,
            preset: settings.preset.clone(),
        }),
        cache_dir: settings.scene.cache.clone(),
        skip_existing: settings.skip_existing,
        encoder_threads: Some(threads.encoders),
    };
    // Everything that can be checked is checked before the GPU opens: flags, frames, the
    // video's extension and settings, ffmpeg and its encoder.
    options.check(&scene)?;
    let mut reporter = ProgressReporter::new(ProgressMode::detect(settings.quiet));
    // The GPU opens once the world has started stepping, so the two overlap.
    let open = || settings.gpu.open();
    let summary = pipeline::render_opening(open, &scene, &options, &mut reporter)?;
    if settings.stats {
        // Always on stderr, even with --quiet or --json: it was asked for.
        eprint!("{}", summary.stats.table());
        let asked = scene.output.fog_resolution;
        let drawn = summary.fog_resolution.name();
        eprintln!("fog resolution: {drawn} (asked: {})", asked.name());
    }
    if settings.json {
        print_json(&summary)?;
    } else if !settings.quiet {
        if let Some(report) = &summary.video_report {
            eprintln!(
                "wrote {} ({} frames, {}x{}, {:.2} s, {} bytes)",
                report.path.display(),
                report.frames_written,
                report.width,
                report.height,
                report.duration_s,
                report.bytes
            );
        }
        let place = if settings.no_frames {
            "the video".to_string()
        } else {
            summary.out_dir.display().to_string()
        };
        let kept = if summary.skipped > 0 {
            format!(" ({} already complete, kept)", summary.skipped)
        } else {
            String::new()
        };
        eprintln!(
            "rendered {} frames{kept} to {} on {} in {:.1} s ({:.1} frames/s)",
            summary.frames,
            place,
            summary.adapter,
            summary.total_s,
            summary.frames as f64 / summary.total_s.max(1e-9)
        );
    }
    Ok(())
}
