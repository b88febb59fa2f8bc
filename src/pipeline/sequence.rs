//! Rendering a frame sequence: PNG or EXR files, the fluid's debug maps, and a video, from one
//! pass of the frame loop.
//!
//! Everything that can be checked before rendering is checked first ([`RenderOptions::check`]:
//! flag combinations, the video's extension and settings, ffmpeg and its encoder), so a typo
//! never costs a simulation. Files are written atomically by the writer pool, so an interrupted
//! run leaves only whole frames.

use super::frame_loop::{FrameHash, FrameJob, GpuSource, LoopOptions, run_frames_from};
use super::report::Reporter;
use super::stats::{Measured, RenderStats};
use super::{create_dir, create_parent, frames_in_clip};
use crate::Error;
use crate::error::RequestError;
use crate::frame::{Frame, View};
use crate::frame_pool::FrameBytes;
use crate::gpu::{Compositor, GpuContext, GpuError, Readback};
use crate::output::exr::ExrCompression;
use crate::output::png::frame_file_name;
use crate::output::video::{
    VideoFormat, VideoReport, VideoSettings, VideoSink, open_video, preflight,
};
use crate::output::writer::{ImageFormat, WriteJob};
use crate::playback::Playback;
use crate::scene::{FogResolution, Scene};
use crate::timeline::FrameSet;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Format of a rendered frame sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrameFormat {
    /// `frame_0000.png`, 8-bit sRGB.
    #[default]
    Png,
    /// `frame_0000.exr`: the renderer's linear half-float colour target itself (read back
    /// before the sRGB encode), values above 1.0 kept, alpha 1.
    Exr,
}

/// A video to encode while rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoRequest {
    /// The file; its extension chooses the format (`.mp4`, `.webm`, `.gif`, `.png`).
    pub path: PathBuf,
    /// Constant-quality factor (MP4, WebM).
    pub crf: Option<u32>,
    /// Encoder speed preset (MP4, WebM).
    pub preset: Option<String>,
}

/// What [`render`] renders and where it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// Folder for `frame_NNNN.png` (and `maps/`).
    pub out_dir: PathBuf,
    /// Frames to render; the whole clip when `None`.
    pub frames: Option<FrameSet>,
    /// What to show.
    pub view: View,
    /// How the fog sheets are put over the scene.
    pub compositor: Compositor,
    /// Format of the frame files.
    pub format: FrameFormat,
    /// How EXR files are compressed (lossless either way).
    pub exr_compression: ExrCompression,
    /// With [`FrameFormat::Exr`], also write the fog alone as `fog_NNNN.exr` (premultiplied,
    /// transparent where there is no fog, cut out by the pillars; no flames).
    pub layers: bool,
    /// Write the frame files (false: video only).
    pub write_frames: bool,
    /// Also write the fluid's debug maps under `out_dir/maps/`.
    pub maps: bool,
    /// Also encode a video.
    pub video: Option<VideoRequest>,
    /// Start from this simulation cache (`--cache`).
    pub cache_dir: Option<PathBuf>,
    /// Keep frame files already in `out_dir` that are complete (they decode at the right
    /// size); render only the others (`--skip-existing`). Not with a video or without frames.
    pub skip_existing: bool,
    /// Encoder threads; one per core when `None` (`--threads`).
    pub encoder_threads: Option<usize>,
}

impl RenderOptions {
    /// Every frame of the clip as PNG files in `out_dir`, fog view, compositor chosen for the
    /// adapter, no maps, no video, no cache.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        RenderOptions {
            out_dir: out_dir.into(),
            frames: None,
            view: View::Fog,
            compositor: Compositor::Auto,
            format: FrameFormat::Png,
            exr_compression: ExrCompression::Zip,
            layers: false,
            write_frames: true,
            maps: false,
            video: None,
            cache_dir: None,
            skip_existing: false,
            encoder_threads: None,
        }
    }

    /// Refuses what cannot work for `scene`, before anything is simulated or rendered: flag
    /// combinations, frames past the clip, the video's format and settings, a missing ffmpeg.
    pub fn check(&self, scene: &Scene) -> Result<(), Error> {
        if self.layers && self.format != FrameFormat::Exr {
            return Err(RequestError::LayersNeedExr.into());
        }
        if self.layers && !self.write_frames {
            return Err(RequestError::LayersWithoutFrames.into());
        }
        // `Auto` draws a full-size fog with --layers, on any adapter.
        if self.layers && scene.output.fog_resolution == FogResolution::Half {
            return Err(RequestError::LayersAtHalfFog.into());
        }
        // The layers are single-sample pictures: the anti-aliased default gives way to them,
        // samples asked for by name are refused.
        let asked = [scene.output.samples, scene.output.edge_samples];
        let samples = asked.into_iter().flatten().max().unwrap_or(1);
        if self.layers && samples > 1 {
            return Err(RequestError::LayersWithSamples { samples }.into());
        }
        if self.skip_existing && (self.video.is_some() || !self.write_frames) {
            return Err(RequestError::SkipExistingWithVideo.into());
        }
        frames_in_clip(self.frames.as_ref(), scene)?;
        if let Some((format, settings)) = self.video_format(scene)? {
            preflight(format, &settings)?;
        }
        Ok(())
    }

    fn video_format(&self, scene: &Scene) -> Result<Option<(VideoFormat, VideoSettings)>, Error> {
        let Some(video) = &self.video else {
            return Ok(None);
        };
        let format = VideoFormat::from_path(&video.path)?;
        let settings = VideoSettings {
            fps: scene.output.fps,
            crf: video.crf,
            preset: video.preset.clone(),
        };
        Ok(Some((format, settings)))
    }
}

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
    /// The fog's resolution as drawn, `Full` or `Half` (`output.fog_resolution: Auto`
    /// resolved for the adapter).
    pub fog_resolution: FogResolution,
    /// Output folder.
    pub out_dir: PathBuf,
    /// Number of frames rendered.
    pub frames: usize,
    /// Number of frames whose complete files were already there and kept (`--skip-existing`).
    pub skipped: usize,
    /// Seconds spent stepping the simulation.
    pub simulate_s: f64,
    /// Seconds spent submitting frames and waiting for the GPU.
    pub render_s: f64,
    /// Seconds the encoder threads spent compressing and writing, summed over threads.
    pub encode_s: f64,
    /// Wall-clock seconds for the whole run.
    pub total_s: f64,
    /// Where the time went: seconds per stage, the GPU passes, the stage that bounds the run
    /// and frames per second (`--stats`).
    pub stats: RenderStats,
    /// The video written, if any.
    pub video: Option<PathBuf>,
    /// What the video encoder wrote, if anything.
    #[serde(skip)]
    pub video_report: Option<VideoReport>,
    /// Per frame: its number and the state hash shown in it.
    pub hashes: Vec<FrameHash>,
}

/// Renders `options.frames` of `scene` (size already applied) into files and an optional
/// video. The GPU context is the caller's, so several renders can share one device.
pub fn render(
    context: &GpuContext,
    scene: &Scene,
    options: &RenderOptions,
    reporter: &mut dyn Reporter,
) -> Result<RenderSummary, Error> {
    render_from(GpuSource::Opened(context), scene, options, None, reporter)
}

/// [`render`] with a GPU context of its own, opened by `open` once the world has started
/// stepping: the driver's start overlaps the first steps. `fogbank render` runs this way.
pub fn render_opening(
    open: impl FnOnce() -> Result<GpuContext, Error>,
    scene: &Scene,
    options: &RenderOptions,
    reporter: &mut dyn Reporter,
) -> Result<RenderSummary, Error> {
    let source = GpuSource::Opening(Box::new(open));
    render_from(source, scene, options, None, reporter)
}

/// [`render`] stepping `start` (a playback of `scene` at or before the first frame's earliest
/// step) instead of one from time 0 or the cache: the clips of `fogbank watch`.
pub(super) fn render_from(
    gpu: GpuSource<'_>,
    scene: &Scene,
    options: &RenderOptions,
    start: Option<Playback>,
    reporter: &mut dyn Reporter,
) -> Result<RenderSummary, Error> {
    let started = Instant::now();
    options.check(scene)?;
    let frames = frames_in_clip(options.frames.as_ref(), scene)?;
    let video = options.video_format(scene)?;
    let maps_dir = options.out_dir.join("maps");
    let job = FrameJob {
        scene,
        frames: &frames,
        view: options.view,
        compositor: options.compositor,
        readback: Readback {
            linear_f16: options.format == FrameFormat::Exr && options.write_frames,
            fog_layer_f16: options.layers,
            weather_layer_f16: options.layers,
        },
        maps_dir: options.maps.then_some(maps_dir.as_path()),
        cache_dir: options.cache_dir.as_deref(),
    };
    let skip: Vec<u32> = if options.skip_existing {
        // Decoding every file is the slow part of a resume: one file per rayon task, the
        // result in frame order whatever the threads.
        use rayon::prelude::*;
        frames
            .frames()
            .par_iter()
            .copied()
            .filter(|&frame| frame_is_complete(frame, scene, options))
            .collect()
    } else {
        Vec::new()
    };
    let loop_options = LoopOptions {
        skip: &skip,
        encoder_threads: options.encoder_threads,
    };
    let mut created = false;
    let mut sink: Option<Box<dyn VideoSink>> = None;
    let mut video_s = 0.0;
    let stats = run_frames_from(gpu, &job, loop_options, start, reporter, |frame, pool| {
        let pushing = Instant::now();
        if let (Some((format, settings)), Some(request)) = (&video, &options.video) {
            if sink.is_none() {
                create_parent(&request.path)?;
                sink = Some(open_video(
                    &request.path,
                    *format,
                    frame.width,
                    frame.height,
                    frames.len(),
                    settings,
                )?);
            }
            if let Some(sink) = sink.as_mut() {
                sink.push(&frame)?;
            }
            video_s += pushing.elapsed().as_secs_f64();
        }
        if !options.write_frames {
            return Ok(());
        }
        if !created {
            create_dir(&options.out_dir)?;
            created = true;
        }
        for job in frame_files(frame, options, scene, &options.out_dir)? {
            pool.submit(job)?;
        }
        Ok(())
    })?;
    let finishing = Instant::now();
    let video_report = match sink {
        Some(sink) => Some(sink.finish()?),
        None => None,
    };
    video_s += finishing.elapsed().as_secs_f64();
    let render_stats = RenderStats::new(&Measured {
        frames: stats.rendered,
        wall_s: stats.wall_s + finishing.elapsed().as_secs_f64(),
        setup: stats.setup,
        simulate_s: stats.simulate_s,
        gpu: stats.gpu.clone(),
        video_s,
        encode_s: stats.writer.encode_s,
        write_s: stats.writer.write_s,
        encoder_threads: stats.writer.threads,
        queue_wait_s: stats.writer.queue_wait_s,
    });
    Ok(RenderSummary {
        scene: scene.name.clone(),
        scene_hash: format!("{:016x}", scene.content_hash()),
        adapter: stats.adapter,
        size: [scene.output.width, scene.output.height],
        view: options.view,
        compositor: stats.compositor,
        fog_resolution: stats.fog_resolution,
        out_dir: options.out_dir.clone(),
        frames: frames.len() - skip.len(),
        skipped: skip.len(),
        simulate_s: stats.simulate_s,
        render_s: stats.render_s,
        encode_s: stats.encode_s,
        total_s: started.elapsed().as_secs_f64(),
        stats: render_stats,
        video: video_report.as_ref().map(|r| r.path.clone()),
        video_report,
        hashes: stats.hashes,
    })
}

/// Whether every file of `frame` is in `options.out_dir` and complete: it decodes, as a PNG or
/// with [`crate::output::exr::decode_exr_rgba_f16`], at the scene's picture size. A truncated
/// or damaged file (or a missing one) means the frame is rendered again.
fn frame_is_complete(frame: u32, scene: &Scene, options: &RenderOptions) -> bool {
    let size = (scene.output.width, scene.output.height);
    let dir = &options.out_dir;
    let read = |name: String| std::fs::read(dir.join(name)).ok();
    match options.format {
        FrameFormat::Png => read(frame_file_name("frame", frame))
            .and_then(|bytes| crate::output::png::decode_rgba8(&bytes).ok())
            .is_some_and(|(w, h, _)| (w, h) == size),
        FrameFormat::Exr => {
            let exr_ok = |prefix: &str| {
                read(crate::output::exr::frame_file_name(prefix, frame))
                    .and_then(|bytes| crate::output::exr::decode_exr_rgba_f16(&bytes).ok())
                    .is_some_and(|(w, h, _)| (w, h) == size)
            };
            let layers = || layers_of(scene).iter().all(|layer| exr_ok(layer.prefix()));
            exr_ok("frame") && (!options.layers || layers())
        }
    }
}

/// A layer `--layers` writes beside each EXR frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    /// `fog_NNNN.exr`: the fog alone.
    Fog,
    /// `weather_NNNN.exr`: the rain, debris and lightning alone (scenes with weather).
    Weather,
}

impl Layer {
    /// The file name's prefix.
    fn prefix(self) -> &'static str {
        match self {
            Layer::Fog => "fog",
            Layer::Weather => "weather",
        }
    }

    /// The picture's name in an error.
    fn picture(self) -> &'static str {
        match self {
            Layer::Fog => "fog layer",
            Layer::Weather => "weather layer",
        }
    }

    /// Takes the layer's half floats out of `frame`.
    fn take(self, frame: &mut Frame) -> Option<Vec<u16>> {
        match self {
            Layer::Fog => frame.fog_f16.take(),
            Layer::Weather => frame.weather_f16.take(),
        }
    }
}

/// The layers `--layers` writes for `scene`: the fog always, the weather when the scene has
/// weather.
fn layers_of(scene: &Scene) -> &'static [Layer] {
    match scene.weather {
        Some(_) => &[Layer::Fog, Layer::Weather],
        None => &[Layer::Fog],
    }
}

/// The files of one frame: `frame_NNNN.png` from the 8-bit picture, or `frame_NNNN.exr` from
/// the linear half-float target as rendered and, with `layers`, `fog_NNNN.exr` from the fog
/// layer and, for a scene with weather, `weather_NNNN.exr` from the weather layer. The
/// renderer must have been asked for the pictures the format needs.
fn frame_files(
    mut frame: Frame,
    options: &RenderOptions,
    scene: &Scene,
    out_dir: &Path,
) -> Result<Vec<WriteJob>, Error> {
    let (frame_index, width, height) = (frame.frame_index, frame.width, frame.height);
    if options.format == FrameFormat::Png {
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
            rgba8: FrameBytes::default(),
            srgb: false,
            format: ImageFormat::ExrF16 {
                bits,
                compression: options.exr_compression,
            },
        })
    };
    let mut jobs = vec![exr("frame", frame.linear_f16.take(), "linear picture")?];
    if options.layers {
        for &layer in layers_of(scene) {
            jobs.push(exr(
                layer.prefix(),
                layer.take(&mut frame),
                layer.picture(),
            )?);
        }
    }
    Ok(jobs)
}
