//! The command line: clap's raw flags, turned into plain validated settings before any work.
//!
//! Nothing outside this module sees a clap type. Each subcommand's flags become a settings
//! struct in [`crate::commands`]; sizes, ranges and views are parsed here so a typo fails before
//! the first step is simulated.

use crate::commands::{
    CheckSettings, Command, CompareSettings, FrameFormat, GpuChoice, InfoSettings, MapsSettings,
    RenderSettings, SceneChoice, SheetSettings, SimulateSettings, StillSettings, ToleranceFlags,
    ValidateSettings,
};
use crate::frame::View;
use crate::gpu::{BackendChoice, Compositor};
use crate::timeline::FrameSet;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Offline renderer and video exporter for ground fog that behaves like a fluid.
///
/// Scenes are RON files (see scenes/README.md); without a SCENE argument the embedded temple
/// scene is used. Every frame N is the picture at time N/fps, and the same scene always gives
/// the same bytes.
#[derive(Debug, Parser)]
#[command(name = "fogbank", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: CliCommand,
}

#[derive(Debug, Subcommand)]
enum CliCommand {
    /// Step the scene's fluid and print one line (or JSON object) per output frame.
    Simulate(SimulateArgs),
    /// Write the fluid's shader maps and colourised debug maps per frame.
    Maps(MapsArgs),
    /// Check a scene file and print its warnings.
    Validate(ValidateArgs),
    /// Render frames to a PNG sequence.
    Render(RenderArgs),
    /// Render one frame to a PNG file.
    Still(StillArgs),
    /// Render chosen frames as a contact sheet with frame numbers, for documentation.
    Sheet(SheetArgs),
    /// Render frames and compare them with golden references (exit 3 when any differs).
    Check(CheckArgs),
    /// Compare two PNG images with the same rules as `check` (exit 3 when they differ).
    Compare(CompareArgs),
    /// List GPU adapters, backends and limits.
    Info(InfoArgs),
}

#[derive(Debug, Args)]
struct ToleranceArgs {
    /// Largest channel difference (8-bit levels) that does not count. Default: 8, or the
    /// references' golden.json; looser (24) when checking on another adapter.
    #[arg(long = "max-diff", value_name = "LEVELS")]
    max_diff: Option<u8>,
    /// Fraction of pixels allowed over --max-diff. Default: 0.002 (0.2 %).
    #[arg(long = "pixel-budget", value_name = "FRACTION")]
    pixel_budget: Option<f64>,
    /// Lowest structural similarity (SSIM, 1 = identical) that passes. Default: 0.98.
    #[arg(long = "min-ssim", value_name = "SSIM")]
    min_ssim: Option<f64>,
}

#[derive(Debug, Args)]
struct CheckArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Folder of golden frames (frame_NNNN.png and golden.json).
    #[arg(long, value_name = "DIR")]
    golden: PathBuf,
    /// Frames to check: A..B, A..=B, A-B or a comma list. Default: the whole clip.
    #[arg(long, value_name = "RANGE")]
    frames: Option<String>,
    /// Picture size, e.g. 160x90. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    size: Option<String>,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    view: ViewArg,
    /// Write or replace the references (and golden.json) instead of comparing.
    #[arg(long)]
    bless: bool,
    /// Also compare the fluid's shader maps (DIR/maps/) as numbers.
    #[arg(long)]
    maps: bool,
    /// Print a JSON report on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    tolerance: ToleranceArgs,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    quiet: QuietArg,
}

#[derive(Debug, Args)]
struct CompareArgs {
    /// The reference image.
    expected: PathBuf,
    /// The image to judge.
    actual: PathBuf,
    /// Write the difference heat map here.
    #[arg(long, value_name = "OUT.png")]
    diff: Option<PathBuf>,
    /// Compare as data: only --max-diff counts (default 0), SSIM is reported but not gating.
    #[arg(long)]
    exact: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    tolerance: ToleranceArgs,
}

#[derive(Debug, Args)]
struct SceneArgs {
    /// Scene file (RON). Default: the embedded temple scene.
    scene: Option<PathBuf>,
    /// Override a scene field, e.g. `--set fog.sheets=32` (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    sets: Vec<String>,
    /// Simulation cache folder: start from its latest snapshot at or before the first frame
    /// (`simulate --cache` also writes snapshots there). One folder per scene.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct QuietArg {
    /// Show no progress on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct GpuArgs {
    /// Graphics backend to use.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Pick the adapter whose name contains this text (see `fogbank info`).
    #[arg(long, value_name = "NAME")]
    adapter: Option<String>,
    /// How the fog sheets are put over the scene (the same picture either way, within the
    /// golden tolerance). The default picks compute on discrete GPUs, raster elsewhere.
    #[arg(long, value_enum, default_value_t = CompositorArg::Auto)]
    compositor: CompositorArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CompositorArg {
    /// Sheets drawn as blended quads by the raster pipeline.
    Raster,
    /// Sheets crossed per pixel by a compute shader: much faster where fragment work is slow
    /// (datacentre GPUs).
    Compute,
    /// Compute on a discrete GPU, raster otherwise.
    Auto,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum BackendArg {
    /// A real GPU if there is one, else lavapipe, else GL.
    Auto,
    /// Vulkan (GPU drivers or Mesa's lavapipe).
    Vulkan,
    /// OpenGL / GLES through EGL.
    Gl,
    /// Metal (macOS).
    Metal,
    /// Direct3D 12 (Windows).
    Dx12,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ViewArg {
    /// The fog as it is.
    Fog,
    /// The sheets in wireframe.
    Sheets,
    /// The fluid as a mesh of lines following the air; the fog thinned to a veil.
    Flow,
    /// The fluid shown on the fog.
    Fluid,
}

#[derive(Debug, Args)]
struct SimulateArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Frames to report: A..B, A..=B, A-B or a comma list. Default: the whole clip.
    #[arg(long, value_name = "RANGE")]
    frames: Option<String>,
    /// Print one JSON object per line.
    #[arg(long)]
    json: bool,
    /// Report the fluid at this floor point, world units (repeatable).
    #[arg(long, value_name = "X,Z", allow_hyphen_values = true)]
    probe: Vec<String>,
    /// With --cache, write a snapshot every N frames (1 s at 60 fps by default).
    #[arg(long = "cache-every", value_name = "N", default_value_t = 60,
          value_parser = clap::value_parser!(u32).range(1..))]
    cache_every: u32,
    #[command(flatten)]
    quiet: QuietArg,
}

#[derive(Debug, Args)]
struct MapsArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Folder to write the maps into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Frames to write: A..B, A..=B, A-B or a comma list. Default: the whole clip.
    #[arg(long, value_name = "RANGE")]
    frames: Option<String>,
    #[command(flatten)]
    quiet: QuietArg,
}

#[derive(Debug, Args)]
struct ValidateArgs {
    #[command(flatten)]
    scene: SceneArgs,
}

#[derive(Debug, Args)]
struct RenderArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Output folder. Default: out/<scene name>/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Frames to render: A..B, A..=B, A-B or a comma list. Default: the whole clip.
    #[arg(long, value_name = "RANGE")]
    frames: Option<String>,
    /// Picture size, e.g. 1920x1080. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    size: Option<String>,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    view: ViewArg,
    /// Also write the fluid debug maps of each frame under DIR/maps/.
    #[arg(long)]
    maps: bool,
    /// Format of the frame sequence: 8-bit sRGB PNG, or linear half-float OpenEXR (the
    /// renderer's linear picture itself, opaque, with values above 1.0 kept).
    #[arg(long, value_enum, default_value_t = FormatArg::Png)]
    format: FormatArg,
    /// With --format exr, also write the fog alone as DIR/fog_NNNN.exr for compositing:
    /// linear half-float with premultiplied alpha, transparent where there is no fog, cut out
    /// by the pillars, without the flames. Over a render made with `--set fog.sigma=0` it
    /// gives back the frame, except that there the flames sit under the fog instead of over it.
    #[arg(long)]
    layers: bool,
    /// Also encode a video; the format follows the extension: .mp4 (H.264) and .webm (VP9)
    /// through ffmpeg, .gif and .png (animated PNG) natively.
    #[arg(long, value_name = "FILE")]
    video: Option<PathBuf>,
    /// Video quality for .mp4 (0-51, default 18) and .webm (0-63, default 28); lower is better.
    #[arg(long, value_name = "N")]
    crf: Option<u32>,
    /// Encoder speed: an x264 preset for .mp4 (default medium), 0-8 for .webm (default 4).
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
    /// Write only the video, no frame sequence.
    #[arg(long, requires = "video")]
    no_frames: bool,
    /// Print a JSON summary on stdout when done.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    quiet: QuietArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    /// frame_0000.png: 8-bit sRGB.
    Png,
    /// frame_0000.exr: the linear half-float picture for compositing (alpha 1).
    Exr,
}

#[derive(Debug, Args)]
struct SheetArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Frames to show: A..B, A..=B, A-B or a comma list.
    #[arg(long, value_name = "RANGE")]
    frames: String,
    /// The PNG file to write.
    #[arg(long, value_name = "FILE.png")]
    out: PathBuf,
    /// Stills per row.
    #[arg(long, value_name = "N", default_value_t = 4)]
    columns: u32,
    /// Size each still is rendered at, e.g. 640x360. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    size: Option<String>,
    /// Width of each still on the sheet, pixels (stills are shrunk to it, never enlarged).
    #[arg(long, value_name = "PX", default_value_t = 320)]
    thumb_width: u32,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    view: ViewArg,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    quiet: QuietArg,
}

#[derive(Debug, Args)]
struct StillArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// The frame to render (frame N is the picture at time N/fps).
    #[arg(long, value_name = "N")]
    frame: u32,
    /// The PNG file to write.
    #[arg(long, value_name = "FILE.png")]
    out: PathBuf,
    /// Picture size, e.g. 1920x1080. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    size: Option<String>,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    view: ViewArg,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    quiet: QuietArg,
}

#[derive(Debug, Args)]
struct InfoArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// A flag value that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {value}: {reason}")]
pub struct FlagError {
    /// The flag, e.g. `--size`.
    pub flag: &'static str,
    /// The value given.
    pub value: String,
    /// What is wrong and how to write it.
    pub reason: String,
}

impl Cli {
    /// Turns parsed flags into the settings of one command.
    pub fn into_command(self) -> Result<Command, crate::Error> {
        Ok(match self.command {
            CliCommand::Simulate(a) => Command::Simulate(SimulateSettings {
                scene: scene_choice(a.scene),
                frames: parse_frames(a.frames)?,
                json: a.json,
                probes_world: a
                    .probe
                    .iter()
                    .map(|p| parse_probe(p))
                    .collect::<Result<_, _>>()?,
                cache_every_frames: a.cache_every,
                quiet: a.quiet.quiet,
            }),
            CliCommand::Maps(a) => Command::Maps(MapsSettings {
                scene: scene_choice(a.scene),
                out_dir: a.out,
                frames: parse_frames(a.frames)?,
                quiet: a.quiet.quiet,
            }),
            CliCommand::Validate(a) => Command::Validate(ValidateSettings {
                scene: scene_choice(a.scene),
            }),
            CliCommand::Render(a) => Command::Render(RenderSettings {
                scene: scene_choice(a.scene),
                out_dir: a.out,
                frames: parse_frames(a.frames)?,
                size: a.size.as_deref().map(parse_size).transpose()?,
                view: view(a.view),
                maps: a.maps,
                format: match a.format {
                    FormatArg::Png => FrameFormat::Png,
                    FormatArg::Exr => FrameFormat::Exr,
                },
                layers: a.layers,
                video: a.video,
                crf: a.crf,
                preset: a.preset,
                no_frames: a.no_frames,
                json: a.json,
                gpu: gpu_choice(a.gpu),
                quiet: a.quiet.quiet,
            }),
            CliCommand::Still(a) => Command::Still(StillSettings {
                scene: scene_choice(a.scene),
                frame: a.frame,
                out_file: a.out,
                size: a.size.as_deref().map(parse_size).transpose()?,
                view: view(a.view),
                gpu: gpu_choice(a.gpu),
                quiet: a.quiet.quiet,
            }),
            CliCommand::Sheet(a) => Command::Sheet(SheetSettings {
                scene: scene_choice(a.scene),
                frames: FrameSet::parse(&a.frames)?,
                out_file: a.out,
                columns: a.columns,
                size: a.size.as_deref().map(parse_size).transpose()?,
                thumb_width_px: a.thumb_width,
                view: view(a.view),
                gpu: gpu_choice(a.gpu),
                quiet: a.quiet.quiet,
            }),
            CliCommand::Check(a) => Command::Check(CheckSettings {
                scene: scene_choice(a.scene),
                golden_dir: a.golden,
                frames: parse_frames(a.frames)?,
                size: a.size.as_deref().map(parse_size).transpose()?,
                view: view(a.view),
                bless: a.bless,
                maps: a.maps,
                json: a.json,
                tolerance: tolerance(a.tolerance),
                gpu: gpu_choice(a.gpu),
                quiet: a.quiet.quiet,
            }),
            CliCommand::Compare(a) => Command::Compare(CompareSettings {
                expected: a.expected,
                actual: a.actual,
                diff: a.diff,
                exact: a.exact,
                tolerance: tolerance(a.tolerance),
                json: a.json,
            }),
            CliCommand::Info(a) => Command::Info(InfoSettings { json: a.json }),
        })
    }
}

fn tolerance(args: ToleranceArgs) -> ToleranceFlags {
    ToleranceFlags {
        max_channel_diff: args.max_diff,
        pixel_budget: args.pixel_budget,
        min_ssim: args.min_ssim,
    }
}

fn scene_choice(args: SceneArgs) -> SceneChoice {
    SceneChoice {
        path: args.scene,
        sets: args.sets,
        cache: args.cache,
    }
}

fn gpu_choice(args: GpuArgs) -> GpuChoice {
    GpuChoice {
        backend: match args.backend {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Vulkan => BackendChoice::Vulkan,
            BackendArg::Gl => BackendChoice::Gl,
            BackendArg::Metal => BackendChoice::Metal,
            BackendArg::Dx12 => BackendChoice::Dx12,
        },
        adapter_name: args.adapter,
        compositor: match args.compositor {
            CompositorArg::Raster => Compositor::Raster,
            CompositorArg::Compute => Compositor::Compute,
            CompositorArg::Auto => Compositor::Auto,
        },
    }
}

fn view(arg: ViewArg) -> View {
    match arg {
        ViewArg::Fog => View::Fog,
        ViewArg::Sheets => View::Sheets,
        ViewArg::Flow => View::Flow,
        ViewArg::Fluid => View::Fluid,
    }
}

fn parse_frames(text: Option<String>) -> Result<Option<FrameSet>, crate::Error> {
    Ok(text.as_deref().map(FrameSet::parse).transpose()?)
}

/// Parses `WxH` (also `W×H`), each side 1..=16384.
pub fn parse_size(text: &str) -> Result<(u32, u32), FlagError> {
    let fail = |reason: &str| FlagError {
        flag: "--size",
        value: text.to_string(),
        reason: reason.to_string(),
    };
    let (w, h) = text
        .split_once(['x', 'X', '×'])
        .ok_or_else(|| fail("write the size as WIDTHxHEIGHT, e.g. 640x360"))?;
    let side = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=crate::scene::validate::MAX_SIZE_PX).contains(v))
            .ok_or_else(|| fail("each side must be a whole number of pixels in 1..=16384"))
    };
    Ok((side(w)?, side(h)?))
}

/// Parses a probe point `X,Z` in world units.
pub fn parse_probe(text: &str) -> Result<[f32; 2], FlagError> {
    let fail = || FlagError {
        flag: "--probe",
        value: text.to_string(),
        reason: "write the floor point as X,Z in world units, e.g. --probe 2.5,-1".into(),
    };
    let (x, z) = text.split_once(',').ok_or_else(fail)?;
    let x: f32 = x.trim().parse().map_err(|_| fail())?;
    let z: f32 = z.trim().parse().map_err(|_| fail())?;
    if x.is_finite() && z.is_finite() {
        Ok([x, z])
    } else {
        Err(fail())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn sizes_and_probes_parse() {
        assert_eq!(parse_size("640x360").unwrap(), (640, 360));
        assert_eq!(parse_size("333×177").unwrap(), (333, 177));
        assert!(parse_size("640").is_err());
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("99999x10").is_err());
        assert_eq!(parse_probe("2.5,-1").unwrap(), [2.5, -1.0]);
        assert!(parse_probe("2.5").is_err());
        assert!(parse_probe("nan,1").is_err());
    }
}
