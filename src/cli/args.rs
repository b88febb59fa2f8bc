//! The flags of each subcommand as clap sees them: `///` docs are the help text.
//!
//! These types stay inside [`crate::cli`]; [`super::Cli::into_command`] turns them into the
//! plain settings of [`crate::commands`].

use super::values::parse_exposure;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct ToleranceArgs {
    /// Largest channel difference (8-bit levels) that does not count. Default: 8, or the
    /// references' golden.json; looser (24) when checking on another adapter.
    #[arg(long = "max-diff", value_name = "LEVELS")]
    pub(super) max_diff: Option<u8>,
    /// Fraction of pixels allowed over --max-diff. Default: 0.002 (0.2 %).
    #[arg(long = "pixel-budget", value_name = "FRACTION")]
    pub(super) pixel_budget: Option<f64>,
    /// Lowest structural similarity (SSIM, 1 = identical) that passes. Default: 0.98.
    #[arg(long = "min-ssim", value_name = "SSIM")]
    pub(super) min_ssim: Option<f64>,
    /// Highest mean FLIP error (0 = identical, 1 = as far as green from blue; HDR-FLIP for EXR)
    /// that passes. Default: none (FLIP is reported, not gating), or the references' golden.json.
    #[arg(long = "max-flip", value_name = "ERROR")]
    pub(super) max_flip: Option<f64>,
}

#[derive(Debug, Args)]
pub(super) struct CheckArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
    /// Folder of golden frames (frame_NNNN.png and golden.json).
    #[arg(long, value_name = "DIR")]
    pub(super) golden: PathBuf,
    /// Frames to check: A..B, A..=B, A-B or a comma list. Default: the frames golden.json
    /// lists (when comparing), else the whole clip.
    #[arg(long, value_name = "RANGE")]
    pub(super) frames: Option<String>,
    /// Picture size, e.g. 160x90. Default: the size in golden.json (when comparing), else the
    /// scene's output size.
    #[arg(long, value_name = "WxH")]
    pub(super) size: Option<String>,
    /// What to show. Default: the view in golden.json (when comparing), else fog.
    #[arg(long, value_enum)]
    pub(super) view: Option<ViewArg>,
    /// Write or replace the references (and golden.json) instead of comparing.
    #[arg(long, conflicts_with = "accept")]
    pub(super) bless: bool,
    /// Make the actual pictures of the last failed check the references, without rendering.
    /// Give the same scene and flags as that check.
    #[arg(long)]
    pub(super) accept: bool,
    /// Also compare the fluid's shader maps (DIR/maps/) as numbers.
    #[arg(long)]
    pub(super) maps: bool,
    /// The references' format: png (8-bit sRGB) or exr (linear light, judged by the gates after
    /// --exposure and by HDR-FLIP). Default: the format in golden.json, else png.
    #[arg(long, value_enum)]
    pub(super) format: Option<FormatArg>,
    /// Stops of exposure for EXR references before the 8-bit gates. Default: golden.json's, else 0.
    #[arg(long, value_name = "EV", allow_negative_numbers = true, value_parser = parse_exposure)]
    pub(super) exposure: Option<f32>,
    /// Print a JSON report on stdout.
    #[arg(long)]
    pub(super) json: bool,
    /// Also write the report as JUnit XML, one test case per frame, with the failures'
    /// pictures as [[ATTACHMENT|path]] lines.
    #[arg(long, value_name = "FILE")]
    pub(super) junit: Option<PathBuf>,
    /// Also write a static HTML report, DIR/index.html: failures first, pictures side by side
    /// and the command that accepts them. Needs no network.
    #[arg(long, value_name = "DIR")]
    pub(super) report: Option<PathBuf>,
    /// A mask PNG of the pictures' size: its white pixels are not compared. For check, frames
    /// with their own DIR/mask_NNNN.png use that instead.
    #[arg(long, value_name = "FILE")]
    pub(super) mask: Option<PathBuf>,
    #[command(flatten)]
    pub(super) tolerance: ToleranceArgs,
    #[command(flatten)]
    pub(super) gpu: GpuArgs,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Args)]
pub(super) struct CompareArgs {
    /// The reference image.
    pub(super) expected: PathBuf,
    /// The image to judge.
    pub(super) actual: PathBuf,
    /// Write the difference heat map here.
    #[arg(long, value_name = "OUT.png")]
    pub(super) diff: Option<PathBuf>,
    /// Compare as data: only --max-diff counts (default 0), SSIM is reported but not gating.
    #[arg(long)]
    pub(super) exact: bool,
    /// Stops of exposure for EXR files: their linear light is scaled by 2^EV, then clamped and
    /// encoded to 8-bit sRGB before the 8-bit gates apply. Two EXRs also get HDR-FLIP.
    #[arg(long, value_name = "EV", default_value_t = 0.0, allow_negative_numbers = true,
          value_parser = parse_exposure)]
    pub(super) exposure: f32,
    /// Print JSON.
    #[arg(long)]
    pub(super) json: bool,
    /// Also write a static HTML report, DIR/index.html, with both pictures and the heat map.
    #[arg(long, value_name = "DIR")]
    pub(super) report: Option<PathBuf>,
    /// A mask PNG of the pictures' size: its white pixels are not compared. For check, frames
    /// with their own DIR/mask_NNNN.png use that instead.
    #[arg(long, value_name = "FILE")]
    pub(super) mask: Option<PathBuf>,
    #[command(flatten)]
    pub(super) tolerance: ToleranceArgs,
}

#[derive(Debug, Args)]
pub(super) struct SceneArgs {
    /// Scene file (RON). Default: the embedded temple scene.
    pub(super) scene: Option<PathBuf>,
    /// Override a scene field, e.g. `--set fog.sheets=32` (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub(super) sets: Vec<String>,
    /// Simulation cache folder: start from its latest snapshot at or before the first frame
    /// (`simulate --cache` also writes snapshots there). One folder per scene.
    #[arg(long, value_name = "DIR")]
    pub(super) cache: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct StampArgs {
    /// Burn a caption strip into each PNG frame, still and video frame (not EXR): the scene's
    /// name, frame, time, view, compositor, samples and state hash, along the bottom (or the
    /// top). Default: the scene's output.stamp (off).
    #[arg(long, value_enum, value_name = "EDGE", num_args = 0..=1, default_missing_value = "bottom")]
    pub(super) stamp: Option<StampArg>,
    /// Free text for the caption strip, one line (it shows even without --stamp).
    #[arg(long, value_name = "TEXT")]
    pub(super) caption: Option<String>,
}

/// Where `--stamp` puts the strip.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum StampArg {
    /// Along the bottom edge.
    Bottom,
    /// Along the top edge.
    Top,
    /// No strip, whatever the scene says.
    Off,
}

#[derive(Debug, Args)]
pub(super) struct QuietArg {
    /// Show no progress on stderr.
    #[arg(long, short)]
    pub(super) quiet: bool,
}

#[derive(Debug, Args)]
pub(super) struct GpuArgs {
    /// Graphics backend to use.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub(super) backend: BackendArg,
    /// Pick the adapter whose name contains this text (see `fogbank info`).
    #[arg(long, value_name = "NAME")]
    pub(super) adapter: Option<String>,
    /// Use the adapter with this index in `fogbank info`'s list (env FOGBANK_GPU), e.g. one
    /// GPU per task on a machine with several.
    #[arg(long, value_name = "INDEX", conflicts_with = "adapter")]
    pub(super) gpu: Option<usize>,
    /// How the fog is put over the scene: the sheets by the raster or the compute pipeline
    /// (the same picture either way, within the golden tolerance), or the raymarch reference.
    /// The default picks compute on discrete GPUs, raster elsewhere.
    #[arg(long, value_enum, default_value_t = CompositorArg::Auto)]
    pub(super) compositor: CompositorArg,
    /// Steps per ray of `--compositor raymarch` through the fog (default 256): more is
    /// closer to the exact integral and slower.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub(super) steps: Option<u32>,
    /// Draw the fog sheets at full resolution or at half width and height, brought up to the
    /// picture's size along the scene's depth (about four times less fog work, a slightly
    /// softer fog), or `auto`: half on a CPU adapter (lavapipe), full on a GPU (the render
    /// reports which ran). Default: the scene's `output.fog_resolution` (full).
    #[arg(long, value_enum, value_name = "RES")]
    pub(super) fog_resolution: Option<FogResolutionArg>,
    /// Samples a pixel (1 to 256): each frame is drawn N times, each with its own sub-pixel
    /// offset and offset of the fog's sheets or raymarch steps, and the pictures are averaged
    /// in linear light. Default: the scene's `output.samples` (1).
    #[arg(long, value_name = "N", value_parser = samples_range())]
    pub(super) samples: Option<u32>,
    /// The share of each frame's interval the shutter is open, 0 to 1, centred on the frame's
    /// moment (0.5 is a 180° shutter): the samples spread over it, so what moves is blurred
    /// along its path. Needs --samples 2 or more. Default: the scene's `output.shutter` (0).
    #[arg(long, value_name = "S", value_parser = parse_shutter)]
    pub(super) shutter: Option<f32>,
    /// Samples a pixel at an edge (1 to 256), with one sample elsewhere: the pixels whose
    /// colour stands out from a neighbour's draw N samples and average them; every other pixel
    /// is the single-sample picture's. Cheaper than --samples N where edges are few. Default:
    /// the scene's `output.edge_samples` (1).
    #[arg(long, value_name = "N", value_parser = samples_range(), conflicts_with = "samples")]
    pub(super) edge_samples: Option<u32>,
}

/// `--shutter`: a share of the frame's interval, 0 to 1.
fn parse_shutter(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
        _ => Err(format!(
            "the shutter is the share of a frame's interval it is open, from 0 to 1 (0.5 is a \
             180° shutter), not `{text}`"
        )),
    }
}

/// The range `--samples` takes: `output.samples`'s.
pub(super) fn samples_range() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=i64::from(crate::samples::MAX_SAMPLES))
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum FogResolutionArg {
    /// Every pixel (the reference).
    Full,
    /// Half width and height, upsampled along the scene's depth.
    Half,
    /// Half on a CPU adapter (lavapipe), full on a GPU.
    Auto,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum CompositorArg {
    /// Sheets drawn as blended quads by the raster pipeline.
    Raster,
    /// Sheets crossed per pixel by a compute shader: much faster where fragment work is slow
    /// (datacentre GPUs).
    Compute,
    /// Compute on a discrete GPU, raster otherwise.
    Auto,
    /// No sheets: the continuous fog integrated along each pixel's ray in `--steps` steps, the
    /// reference the sheets approximate (slow).
    Raymarch,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum BackendArg {
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
pub(super) enum ViewArg {
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
pub(super) struct SimulateArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
    /// Frames to report: A..B, A..=B, A-B or a comma list. Default: the whole clip.
    #[arg(long, value_name = "RANGE")]
    pub(super) frames: Option<String>,
    /// Print one JSON object per line.
    #[arg(long)]
    pub(super) json: bool,
    /// Report the fluid at this floor point, world units (repeatable).
    #[arg(long, value_name = "X,Z", allow_hyphen_values = true)]
    pub(super) probe: Vec<String>,
    /// With --cache, write a snapshot every N frames (1 s at 60 fps by default).
    #[arg(long = "cache-every", value_name = "N", default_value_t = 60,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) cache_every: u32,
    /// CPU threads for the simulation. Default: every core. The same hashes whatever the
    /// count.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) threads: Option<u32>,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Args)]
pub(super) struct MapsArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
    /// Folder to write the maps into.
    #[arg(long, value_name = "DIR")]
    pub(super) out: PathBuf,
    /// Frames to write: A..B, A..=B, A-B or a comma list. Default: the whole clip.
    #[arg(long, value_name = "RANGE")]
    pub(super) frames: Option<String>,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Args)]
pub(super) struct ValidateArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
}

#[derive(Debug, Args)]
pub(super) struct RenderArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
    /// Output folder. Default: out/<scene name>/.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Frames to render: A..B, A..=B, A-B or a comma list. Default: the whole clip.
    #[arg(long, value_name = "RANGE")]
    pub(super) frames: Option<String>,
    /// Picture size, e.g. 1920x1080. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    pub(super) size: Option<String>,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    pub(super) view: ViewArg,
    /// Also write the fluid debug maps of each frame under DIR/maps/.
    #[arg(long)]
    pub(super) maps: bool,
    /// Format of the frame sequence: 8-bit sRGB PNG, or linear half-float OpenEXR (the
    /// renderer's linear picture itself, opaque, with values above 1.0 kept).
    #[arg(long, value_enum, default_value_t = FormatArg::Png)]
    pub(super) format: FormatArg,
    /// How EXR files are compressed, all lossless: zip is the smallest, piz nearly as small
    /// and faster, rle faster still, none the fastest and largest.
    #[arg(long, value_enum, value_name = "KIND", default_value_t = ExrCompressionArg::Zip)]
    pub(super) exr_compression: ExrCompressionArg,
    /// With --format exr, also write the fog alone as DIR/fog_NNNN.exr for compositing:
    /// linear half-float with premultiplied alpha, transparent where there is no fog, cut out
    /// by the pillars, without the flames. Over a render made with `--set fog.sigma=0` it
    /// gives back the frame, except that there the flames sit under the fog instead of over it.
    /// On a scene with weather, also write the rain, debris and lightning alone as
    /// DIR/weather_NNNN.exr, premultiplied likewise and hidden behind the pillars.
    #[arg(long)]
    pub(super) layers: bool,
    /// Also encode a video; the format follows the extension: .mp4 (H.264) and .webm (VP9)
    /// through ffmpeg, .gif and .png (animated PNG) natively.
    #[arg(long, value_name = "FILE")]
    pub(super) video: Option<PathBuf>,
    /// Video quality for .mp4 (0-51, default 18) and .webm (0-63, default 28); lower is better.
    #[arg(long, value_name = "N")]
    pub(super) crf: Option<u32>,
    /// Encoder speed: an x264 preset for .mp4 (default medium), 0-8 for .webm (default 4).
    #[arg(long, value_name = "NAME")]
    pub(super) preset: Option<String>,
    /// Write only the video, no frame sequence.
    #[arg(long, requires = "video")]
    pub(super) no_frames: bool,
    /// Render only slice I (from 0) of N equal, contiguous slices of the frames (of --frames,
    /// or the whole clip), for a render farm: the N tasks together render every frame once.
    /// `auto` reads the slice from a Slurm job array (SLURM_ARRAY_TASK_ID and
    /// SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with
    /// --chunks).
    #[arg(long, value_name = "I/N|auto", conflicts_with = "video")]
    pub(super) chunk: Option<String>,
    /// The number of slices for --chunk auto (the Indexed Job's completions; under Slurm it
    /// overrides SLURM_ARRAY_TASK_COUNT).
    #[arg(long, value_name = "N", requires = "chunk")]
    pub(super) chunks: Option<u32>,
    /// Keep frame files that are already there and complete (they decode at the right size);
    /// render only the missing or damaged ones. For resuming an interrupted or resubmitted
    /// task: the fluid is still simulated up to each frame.
    #[arg(long, conflicts_with_all = ["video", "no_frames"])]
    pub(super) skip_existing: bool,
    /// CPU threads: the simulation runs on half of them, the encoders on all of them at a
    /// lower priority. Default: every core. The output is the same bytes whatever the count.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) threads: Option<u32>,
    /// Print a JSON summary on stdout when done.
    #[arg(long)]
    pub(super) json: bool,
    /// When done, print on stderr where the time went: seconds per stage (simulation, GPU
    /// passes, readback, encoding, writing), the stage that bounds the run, and frames/s.
    /// The JSON summary always has them, under "stats".
    #[arg(long)]
    pub(super) stats: bool,
    #[command(flatten)]
    pub(super) stamp: StampArgs,
    #[command(flatten)]
    pub(super) gpu: GpuArgs,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum FormatArg {
    /// frame_0000.png: 8-bit sRGB.
    Png,
    /// frame_0000.exr: the linear half-float picture for compositing (alpha 1).
    Exr,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum ExrCompressionArg {
    /// Uncompressed.
    None,
    /// Run-length.
    Rle,
    /// Deflate over 16-scanline blocks.
    Zip,
    /// Wavelet.
    Piz,
}

#[derive(Debug, Args)]
pub(super) struct SheetArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
    /// Frames to show: A..B, A..=B, A-B or a comma list.
    #[arg(long, value_name = "RANGE")]
    pub(super) frames: String,
    /// The PNG file to write.
    #[arg(long, value_name = "FILE.png")]
    pub(super) out: PathBuf,
    /// Stills per row.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub(super) columns: u32,
    /// Size each still is rendered at, e.g. 640x360. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    pub(super) size: Option<String>,
    /// Width of each still on the sheet, pixels (stills are shrunk to it, never enlarged).
    #[arg(long, value_name = "PX", default_value_t = 320)]
    pub(super) thumb_width: u32,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    pub(super) view: ViewArg,
    #[command(flatten)]
    pub(super) gpu: GpuArgs,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Args)]
pub(super) struct QualityArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
    /// Frames to measure: A..B, A..=B, A-B or a comma list.
    #[arg(long, value_name = "RANGE")]
    pub(super) frames: String,
    /// Sheet counts to measure, a comma list, each 1..=512.
    #[arg(long, value_name = "LIST", default_value = "8,16,24,32,48,64,96,128")]
    pub(super) sheets: String,
    /// Steps per ray of the raymarch reference.
    #[arg(long, value_name = "N", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub(super) steps: u32,
    /// Picture size, e.g. 640x360. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    pub(super) size: Option<String>,
    /// Write the reference, every render, its error heat map and chart.png here.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Print the report as JSON on stdout instead of the table.
    #[arg(long)]
    pub(super) json: bool,
    /// Graphics backend to use.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub(super) backend: BackendArg,
    /// Pick the adapter whose name contains this text (see `fogbank info`).
    #[arg(long, value_name = "NAME")]
    pub(super) adapter: Option<String>,
    /// Use the adapter with this index in `fogbank info`'s list (env FOGBANK_GPU).
    #[arg(long, value_name = "INDEX", conflicts_with = "adapter")]
    pub(super) gpu: Option<usize>,
    /// Samples a pixel (1 to 256) of every render, the raymarch reference's included, so the
    /// rows compare like with like. Default: the scene's `output.samples` (1).
    #[arg(long, value_name = "N", value_parser = samples_range())]
    pub(super) samples: Option<u32>,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Args)]
pub(super) struct StillArgs {
    #[command(flatten)]
    pub(super) scene: SceneArgs,
    /// The frame to render (frame N is the picture at time N/fps).
    #[arg(long, value_name = "N")]
    pub(super) frame: u32,
    /// The PNG file to write.
    #[arg(long, value_name = "FILE.png")]
    pub(super) out: PathBuf,
    /// Picture size, e.g. 1920x1080. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    pub(super) size: Option<String>,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    pub(super) view: ViewArg,
    #[command(flatten)]
    pub(super) stamp: StampArgs,
    #[command(flatten)]
    pub(super) gpu: GpuArgs,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Args)]
pub(super) struct WatchArgs {
    /// Scene file (RON) to watch: every save renders the still (or the clip) again.
    pub(super) scene: PathBuf,
    /// Override a scene field, e.g. `--set fog.sheets=32` (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub(super) sets: Vec<String>,
    /// Simulation cache folder: a turn that cannot start from the state kept in memory starts
    /// from its latest snapshot at or before the frame.
    #[arg(long, value_name = "DIR")]
    pub(super) cache: Option<PathBuf>,
    /// The frame to render as a still (frame N is the picture at time N/fps). Default: 0.
    #[arg(long, value_name = "N", conflicts_with = "frames")]
    pub(super) frame: Option<u32>,
    /// Render a short clip instead: these frames (A..B, A..=B, A-B or a comma list) as
    /// frame_NNNN.png files in the --out folder.
    #[arg(long, value_name = "RANGE")]
    pub(super) frames: Option<String>,
    /// The PNG file to write with --frame, or the folder of the clip's frames with --frames
    /// (each file replaced whole at each turn).
    #[arg(long, value_name = "FILE.png|DIR")]
    pub(super) out: PathBuf,
    /// Serve a live preview page on ADDR (default: 127.0.0.1 on a free port, which is
    /// printed): the latest picture or clip, the turn's timings and the scene's error.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub(super) serve: Option<String>,
    /// Picture size, e.g. 1920x1080. Default: the scene's output size.
    #[arg(long, value_name = "WxH")]
    pub(super) size: Option<String>,
    /// What to show.
    #[arg(long, value_enum, default_value_t = ViewArg::Fog)]
    pub(super) view: ViewArg,
    #[command(flatten)]
    pub(super) stamp: StampArgs,
    #[command(flatten)]
    pub(super) gpu: GpuArgs,
    #[command(flatten)]
    pub(super) quiet: QuietArg,
}

#[derive(Debug, Args)]
pub(super) struct InfoArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Debug, Args)]
pub(super) struct SceneShowArgs {
    /// Scene file (RON). Default: the embedded temple scene.
    pub(super) scene: Option<PathBuf>,
    /// Override a scene field, e.g. `--set fog.sheets=32` (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub(super) sets: Vec<String>,
    /// Print the JSON Schema of the scene format instead (for editors' completion and checks).
    #[arg(long, conflicts_with_all = ["scene", "sets"])]
    pub(super) schema: bool,
}

#[derive(Debug, Args)]
pub(super) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub(super) shell: super::Shell,
}

#[derive(Debug, Args)]
pub(super) struct ManArgs {
    /// Write fogbank.1 and one fogbank-COMMAND.1 per command into this folder instead of
    /// printing fogbank.1.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
}
