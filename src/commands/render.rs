//! `fogbank render`: the frame loop. Simulate to each chosen frame, render it on the GPU, and
//! hand the pixels to encoder threads, so simulation, GPU and PNG compression overlap.
//!
//! The renderer reads frames back through a ring of staging buffers and returns the oldest
//! finished one while the next renders; the writer pool's bounded queue keeps memory flat on
//! long clips. Files are written atomically, so an interrupted run leaves only whole frames.

use super::{
    FrameFormat, GpuChoice, RenderSettings, create_dir, frames_in_clip, load_scene, start_playback,
};
use crate::Error;
use crate::frame::{Frame, View};
use crate::gpu::{Compositor, GpuContext, GpuError, GpuOptions, Readback, RenderConfig, Renderer};
use crate::output::maps::map_jobs;
use crate::output::png::frame_file_name;
use crate::output::progress::{ProgressGroup, ProgressMode};
use crate::output::video::{VideoFormat, VideoSettings, VideoSink, open_video, preflight};
use crate::output::writer::{ImageFormat, WriteJob, WriterPool};
use crate::scene::Scene;
use crate::timeline::FrameSet;
use crate::world::fnv1a64;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a render did, for `--json` and for tests.
#[derive(Debug, Clone, Serialize)]
pub struct RenderSummary {
    /// Scene name.
    pub scene: String,
    /// Hash of the scene after overrides (16 hex digits).
    pub scene_hash: String,
    /// The adapter that rendered, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)".
    pub adapter: String,
    /// Picture size in pixels.
    pub size: [u32; 2],
    /// What was shown.
    pub view: View,
    /// The compositor that put the fog over the scene (`auto` resolved).
    pub compositor: Compositor,
    /// Output folder.
    pub out_dir: PathBuf,
    /// Number of frames written.
    pub frames: usize,
    /// Seconds spent stepping the simulation.
    pub simulate_s: f64,
    /// Seconds spent submitting frames and waiting for the GPU.
    pub render_s: f64,
    /// Seconds the encoder threads spent compressing and writing, summed over threads.
    pub encode_s: f64,
    /// Wall-clock seconds for the whole run.
    pub total_s: f64,
    /// The video written, if any.
    pub video: Option<PathBuf>,
    /// Per frame: its number and the state hash shown in it.
    pub hashes: Vec<FrameHash>,
}

/// A frame's number and state hash.
#[derive(Debug, Clone, Serialize)]
pub struct FrameHash {
    /// Output frame number.
    pub frame: u32,
    /// World state hash, 16 hex digits.
    pub hash: String,
}

/// The scene with the command's size applied.
pub(super) fn sized_scene(scene: &Scene, size: Option<(u32, u32)>) -> Scene {
    let mut scene = scene.clone();
    if let Some((width, height)) = size {
        scene.output.width = width;
        scene.output.height = height;
    }
    scene
}

/// Hash naming a scene's content: the same file and overrides give the same hash.
pub(super) fn scene_hash(scene: &Scene) -> String {
    let text = serde_json::to_string(scene).unwrap_or_default();
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

/// What a render loop needs besides the scene.
pub(super) struct RenderJob<'a> {
    /// The scene, size already applied.
    pub scene: &'a Scene,
    /// Frames to render, in increasing order.
    pub frames: &'a FrameSet,
    /// What to show.
    pub view: View,
    /// How the fog sheets are put over the scene.
    pub compositor: Compositor,
    /// Which pictures come back besides the 8-bit sRGB frame.
    pub readback: Readback,
    /// The GPU to render on.
    pub context: &'a GpuContext,
    /// Where debug maps go, if anywhere.
    pub maps_dir: Option<&'a Path>,
    /// Progress display.
    pub progress: ProgressMode,
    /// Simulation cache to start from (`--cache`), if any.
    pub cache_dir: Option<&'a Path>,
}

/// What the render loop measured.
pub(super) struct RenderStats {
    /// The adapter, as "name (backend, driver)".
    pub adapter: String,
    /// The compositor that ran (`Auto` resolved).
    pub compositor: Compositor,
    /// Seconds stepping the simulation.
    pub simulate_s: f64,
    /// Seconds submitting to and waiting for the GPU.
    pub render_s: f64,
    /// Encoder seconds, summed over threads.
    pub encode_s: f64,
    /// Per-frame state hashes.
    pub hashes: Vec<FrameHash>,
}

/// Opens the chosen GPU.
pub(super) fn open_gpu(choice: &GpuChoice) -> Result<GpuContext, Error> {
    Ok(GpuContext::new(&GpuOptions {
        backend: choice.backend,
        adapter_name: choice.adapter_name.clone(),
    })?)
}

/// The frame loop shared by `render` and `check`: simulate to each frame, render it, and hand
/// each finished frame to `on_frame` in frame order, with the writer pool for any files it
/// wants written. The GPU context and renderer are created before the first step, so a
/// missing adapter or an oversize frame fails before anything is written.
pub(super) fn render_frames(
    job: &RenderJob<'_>,
    mut on_frame: impl FnMut(Frame, &mut WriterPool) -> Result<(), Error>,
) -> Result<RenderStats, Error> {
    let scene = job.scene;
    let context = job.context;
    let mut renderer = Renderer::new(
        context,
        scene,
        &RenderConfig {
            width: scene.output.width,
            height: scene.output.height,
            view: job.view,
            compositor: job.compositor,
            readback: job.readback,
        },
    )?;
    let compositor = renderer.compositor();
    if let Some(dir) = job.maps_dir {
        create_dir(dir)?;
    }
    let group = ProgressGroup::new(job.progress);
    let count = job.frames.len() as u64;
    let mut simulate_bar = group.stage("simulate", count);
    let mut render_bar = group.stage("render", count);
    let mut encode_bar = group.stage("encode", count);
    let first_frame = job.frames.frames().first().copied().unwrap_or(0);
    let mut playback = start_playback(job.cache_dir, scene, first_frame)?;
    let mut pool = WriterPool::for_this_machine();
    let mut hashes = Vec::with_capacity(job.frames.len());
    let (mut simulate_s, mut render_s) = (0.0, 0.0);

    for &frame in job.frames.frames() {
        if crate::interrupt::requested() {
            drop(renderer);
            let written = pool.files_written();
            pool.finish()?;
            return Err(Error::Interrupted(written));
        }
        let t = Instant::now();
        let state = playback.advance_to(frame, || {});
        simulate_s += t.elapsed().as_secs_f64();
        simulate_bar.advance(1);
        hashes.push(FrameHash {
            frame,
            hash: format!("{:016x}", state.hash),
        });
        if let Some(dir) = job.maps_dir {
            let (fluid, fluid_map, lift_map) = playback.packed_maps();
            for map in map_jobs(dir, frame, fluid, fluid_map, lift_map) {
                pool.submit(map)?;
            }
        }
        let t = Instant::now();
        let finished = renderer.submit(&playback.frame_inputs(&state))?;
        render_s += t.elapsed().as_secs_f64();
        render_bar.advance(1);
        if let Some(done) = finished {
            on_frame(done, &mut pool)?;
            encode_bar.advance(1);
        }
    }
    let t = Instant::now();
    let rest = renderer.finish()?;
    render_s += t.elapsed().as_secs_f64();
    for done in rest {
        on_frame(done, &mut pool)?;
        encode_bar.advance(1);
    }
    let report = pool.finish()?;
    simulate_bar.finish();
    render_bar.finish();
    encode_bar.finish();
    let summary = context.summary();
    Ok(RenderStats {
        adapter: format!(
            "{} ({}, {})",
            summary.name, summary.backend, summary.driver_info
        ),
        compositor,
        simulate_s,
        render_s,
        encode_s: report.busy_s,
        hashes,
    })
}

/// Refuses flag combinations that cannot work, before anything is loaded or rendered.
fn check_flags(settings: &RenderSettings) -> Result<(), Error> {
    if settings.layers && settings.format != FrameFormat::Exr {
        return Err(Error::Usage(
            "--layers writes the fog as a linear layer with alpha (fog_NNNN.exr), which PNG \
             cannot hold: add --format exr"
                .into(),
        ));
    }
    if settings.layers && settings.no_frames {
        return Err(Error::Usage(
            "--layers writes fog_NNNN.exr beside the frames and --no-frames writes no frames: \
             drop --no-frames (or --layers)"
                .into(),
        ));
    }
    Ok(())
}

/// The files of one frame: `frame_NNNN.png` from the 8-bit picture, or `frame_NNNN.exr` from
/// the linear half-float target as rendered and, with `layers`, `fog_NNNN.exr` from the fog
/// layer. The renderer must have been asked for the pictures the format needs.
fn frame_jobs(
    frame: Frame,
    format: FrameFormat,
    layers: bool,
    out_dir: &Path,
) -> Result<Vec<WriteJob>, Error> {
    let (frame_index, width, height) = (frame.frame_index, frame.width, frame.height);
    if format == FrameFormat::Png {
        return Ok(vec![WriteJob {
            path: out_dir.join(frame_file_name("frame", frame_index)),
            width,
            height,
            rgba8: frame.rgba8,
            srgb: true,
            format: ImageFormat::Png,
        }]);
    }
    let exr = |prefix: &str, bits: Option<Vec<u16>>, picture: &str| {
        let bits = bits.ok_or_else(|| GpuError::Readback {
            frame_index,
            message: format!("the renderer did not read back the {picture}"),
        })?;
        Ok::<_, Error>(WriteJob {
            path: out_dir.join(crate::output::exr::frame_file_name(prefix, frame_index)),
            width,
            height,
            rgba8: Vec::new(),
            srgb: false,
            format: ImageFormat::ExrF16 { bits },
        })
    };
    let mut jobs = vec![exr("frame", frame.linear_f16, "linear picture")?];
    if layers {
        jobs.push(exr("fog", frame.fog_f16, "fog layer")?);
    }
    Ok(jobs)
}

pub(super) fn run(settings: &RenderSettings) -> Result<RenderSummary, Error> {
    let started = Instant::now();
    check_flags(settings)?;
    let loaded = load_scene(&settings.scene)?;
    let scene = sized_scene(&loaded.scene, settings.size);
    let frames = frames_in_clip(&settings.frames, &scene)?;
    let out_dir = settings
        .out_dir
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&scene.name));
    let maps_dir = out_dir.join("maps");
    // Everything about the video that can be checked is checked before rendering: the
    // extension, the flags, and that ffmpeg and its encoder are there.
    let video = match &settings.video {
        Some(path) => {
            let format = VideoFormat::from_path(path)?;
            let video_settings = VideoSettings {
                fps: scene.output.fps,
                crf: settings.crf,
                preset: settings.preset.clone(),
            };
            preflight(format, &video_settings)?;
            Some((path.clone(), format, video_settings))
        }
        None => None,
    };
    let context = open_gpu(&settings.gpu)?;
    let job = RenderJob {
        scene: &scene,
        frames: &frames,
        view: settings.view,
        compositor: settings.gpu.compositor,
        readback: Readback {
            linear_f16: settings.format == FrameFormat::Exr && !settings.no_frames,
            fog_layer_f16: settings.layers,
        },
        context: &context,
        maps_dir: settings.maps.then_some(maps_dir.as_path()),
        progress: ProgressMode::detect(settings.quiet),
        cache_dir: settings.scene.cache.as_deref(),
    };
    let mut created = false;
    let mut sink: Option<Box<dyn VideoSink>> = None;
    let stats = render_frames(&job, |frame, pool| {
        if let Some((path, format, video_settings)) = &video {
            if sink.is_none() {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    create_dir(parent)?;
                }
                sink = Some(open_video(
                    path,
                    *format,
                    frame.width,
                    frame.height,
                    video_settings,
                )?);
            }
            if let Some(sink) = sink.as_mut() {
                sink.push(&frame)?;
            }
        }
        if settings.no_frames {
            return Ok(());
        }
        if !created {
            create_dir(&out_dir)?;
            created = true;
        }
        for job in frame_jobs(frame, settings.format, settings.layers, &out_dir)? {
            pool.submit(job)?;
        }
        Ok(())
    })?;
    let video_report = match sink {
        Some(sink) => Some(sink.finish()?),
        None => None,
    };

    let summary = RenderSummary {
        scene: scene.name.clone(),
        scene_hash: scene_hash(&scene),
        adapter: stats.adapter,
        size: [scene.output.width, scene.output.height],
        view: settings.view,
        compositor: stats.compositor,
        out_dir,
        frames: frames.len(),
        simulate_s: stats.simulate_s,
        render_s: stats.render_s,
        encode_s: stats.encode_s,
        total_s: started.elapsed().as_secs_f64(),
        video: video_report.as_ref().map(|r| r.path.clone()),
        hashes: stats.hashes,
    };
    if settings.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).unwrap_or_default()
        );
    } else if !settings.quiet {
        if let Some(report) = &video_report {
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
        eprintln!(
            "rendered {} frames to {} on {} in {:.1} s ({:.1} frames/s)",
            summary.frames,
            place,
            summary.adapter,
            summary.total_s,
            summary.frames as f64 / summary.total_s.max(1e-9)
        );
    }
    Ok(summary)
}
