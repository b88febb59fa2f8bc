//! The subcommands, each taking a plain settings struct (no clap types) and doing one job.
//!
//! A command loads its scene, turns its settings into the library's options, calls the library
//! (the [`crate::pipeline`] jobs, the golden check in [`crate::compare::golden`]) with a
//! [`ProgressReporter`] on stderr, and prints the result. Only this layer prints.

/// `println!` for the commands: one line on standard output. When standard output cannot take
/// it (a closed pipe, a full disk), the function it is used in returns [`Error::Stdout`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::commands::write_stdout(format!($($arg)*).as_bytes(), true)?
    };
}

mod check;
mod info;
mod maps;
mod progress;
mod quality;
mod render;
mod scene_show;
mod serve;
mod sheet;
mod simulate;
mod still;
mod validate;
mod watch;

use crate::Error;
use crate::error::RequestError;
use crate::frame::View;
use crate::gpu::{BackendChoice, Compositor, GpuContext, GpuOptions};
use crate::scene::{self, FogResolution, LoadedScene, Scene};
use crate::timeline::{Chunk, FrameSet};
use std::path::PathBuf;

pub use crate::compare::ToleranceFlags;
pub use crate::pipeline::FrameFormat;
pub use progress::{Progress, ProgressGroup, ProgressMode, ProgressReporter};

/// Which scene and which overrides.
#[derive(Debug, Clone, Default)]
pub struct SceneChoice {
    /// Scene file; the embedded temple when `None`.
    pub path: Option<PathBuf>,
    /// `PATH=VALUE` overrides, applied in order.
    pub sets: Vec<String>,
    /// Simulation cache folder (`--cache`): start from its latest snapshot at or before the
    /// first frame (and, for `simulate`, write snapshots into it).
    pub cache: Option<PathBuf>,
    /// `--stamp`: replaces the scene's `output.stamp` when given.
    pub stamp: Option<scene::StampPlace>,
    /// `--caption`: replaces the scene's `output.caption` when given.
    pub caption: Option<String>,
}

/// Which GPU.
#[derive(Debug, Clone)]
pub struct GpuChoice {
    /// Backend preference.
    pub backend: BackendChoice,
    /// Substring of the adapter name.
    pub adapter_name: Option<String>,
    /// Index in `fogbank info`'s list (`--gpu`, `FOGBANK_GPU`).
    pub adapter_index: Option<usize>,
    /// How the fog sheets are put over the scene.
    pub compositor: Compositor,
    /// `--fog-resolution`: replaces the scene's `output.fog_resolution` when given.
    pub fog_resolution: Option<FogResolution>,
    /// `--samples`: replaces the scene's `output.samples` when given.
    pub samples: Option<u32>,
    /// `--shutter`: replaces the scene's `output.shutter` when given.
    pub shutter: Option<f32>,
    /// `--edge-samples`: replaces the scene's `output.edge_samples` when given.
    pub edge_samples: Option<u32>,
}

impl GpuChoice {
    /// `scene` with this choice's `--fog-resolution`, `--samples` and `--shutter` applied,
    /// or unchanged.
    pub fn apply_to(&self, mut scene: Scene) -> Scene {
        if let Some(resolution) = self.fog_resolution {
            scene.output.fog_resolution = resolution;
        }
        // Each flag names the whole sampling: `--samples` draws no more at the edges than
        // everywhere, and `--edge-samples` draws one sample off them.
        if let Some(samples) = self.samples {
            scene.output.samples = Some(samples);
            scene.output.edge_samples = None;
        }
        if let Some(shutter) = self.shutter {
            scene.output.shutter = shutter;
        }
        if let Some(edge_samples) = self.edge_samples {
            scene.output.edge_samples = Some(edge_samples);
            scene.output.samples = None;
        }
        scene
    }
}

/// Refuses a shutter with fewer than two samples a pixel, and more samples both at the edges
/// and on every pixel, as the flags left the scene.
pub(crate) fn check_shutter(scene: &Scene) -> Result<(), Error> {
    let output = &scene.output;
    let (samples, edge_samples) = (output.samples_everywhere(), output.samples_at_edges());
    if edge_samples > 1 && samples > 1 {
        return Err(RequestError::EdgeSamplesWithSamples {
            samples,
            edge_samples,
        }
        .into());
    }
    if output.shutter > 0.0 && samples < 2 {
        let shutter = output.shutter;
        return Err(RequestError::ShutterWithoutSamples { shutter, samples }.into());
    }
    Ok(())
}

/// `fogbank simulate`.
#[derive(Debug, Clone)]
pub struct SimulateSettings {
    /// The scene.
    pub scene: SceneChoice,
    /// Frames to report; all when `None`.
    pub frames: Option<FrameSet>,
    /// One JSON object per line.
    pub json: bool,
    /// Floor points to sample, world (x, z).
    pub probes_world: Vec<[f32; 2]>,
    /// With `scene.cache`, write a snapshot every this many frames.
    pub cache_every_frames: u32,
    /// CPU threads for the simulation; every core when `None`.
    pub threads: Option<usize>,
    /// No progress.
    pub quiet: bool,
}

/// `fogbank maps`.
#[derive(Debug, Clone)]
pub struct MapsSettings {
    /// The scene.
    pub scene: SceneChoice,
    /// Folder for the maps.
    pub out_dir: PathBuf,
    /// Frames to write; all when `None`.
    pub frames: Option<FrameSet>,
    /// No progress.
    pub quiet: bool,
}

/// `fogbank validate`.
#[derive(Debug, Clone)]
pub struct ValidateSettings {
    /// The scene.
    pub scene: SceneChoice,
}

/// `fogbank render`.
#[derive(Debug, Clone)]
pub struct RenderSettings {
    /// The scene.
    pub scene: SceneChoice,
    /// Output folder; `out/<scene name>/` when `None`.
    pub out_dir: Option<PathBuf>,
    /// Frames to render; all when `None`.
    pub frames: Option<FrameSet>,
    /// Picture size overriding the scene's.
    pub size: Option<(u32, u32)>,
    /// What to show.
    pub view: View,
    /// Also write debug maps under `maps/`.
    pub maps: bool,
    /// Format of the frame sequence.
    pub format: FrameFormat,
    /// How EXR files are compressed.
    pub exr_compression: crate::output::exr::ExrCompression,
    /// With [`FrameFormat::Exr`], also write the fog alone as `fog_NNNN.exr` (premultiplied,
    /// transparent where there is no fog, cut out by the pillars; no flames). An error with
    /// PNG or without frames.
    pub layers: bool,
    /// Also encode this video file.
    pub video: Option<PathBuf>,
    /// Video quality.
    pub crf: Option<u32>,
    /// Video encoder speed.
    pub preset: Option<String>,
    /// Skip the frame sequence (video only).
    pub no_frames: bool,
    /// Render only this slice of the frames (`--chunk`).
    pub chunk: Option<Chunk>,
    /// Keep complete frame files already there (`--skip-existing`).
    pub skip_existing: bool,
    /// CPU threads: half simulate, all encode (at a lower priority); every core when `None`.
    pub threads: Option<usize>,
    /// Print a JSON summary.
    pub json: bool,
    /// Print where the time went on stderr (`--stats`).
    pub stats: bool,
    /// Which GPU.
    pub gpu: GpuChoice,
    /// No progress.
    pub quiet: bool,
}

/// `fogbank sheet`.
#[derive(Debug, Clone)]
pub struct SheetSettings {
    /// The scene.
    pub scene: SceneChoice,
    /// Frames to show.
    pub frames: FrameSet,
    /// The PNG to write.
    pub out_file: PathBuf,
    /// Stills per row.
    pub columns: u32,
    /// Render size overriding the scene's.
    pub size: Option<(u32, u32)>,
    /// Width of each still on the sheet.
    pub thumb_width_px: u32,
    /// What to show.
    pub view: View,
    /// Which GPU.
    pub gpu: GpuChoice,
    /// No progress.
    pub quiet: bool,
}

/// `fogbank still`.
#[derive(Debug, Clone)]
pub struct StillSettings {
    /// The scene.
    pub scene: SceneChoice,
    /// The frame to render.
    pub frame: u32,
    /// The PNG to write.
    pub out_file: PathBuf,
    /// Picture size overriding the scene's.
    pub size: Option<(u32, u32)>,
    /// What to show.
    pub view: View,
    /// Which GPU.
    pub gpu: GpuChoice,
    /// No progress.
    pub quiet: bool,
}

/// `fogbank watch`.
#[derive(Debug, Clone)]
pub struct WatchSettings {
    /// The scene; its path is the file watched.
    pub scene: SceneChoice,
    /// The still or the clip rendered at each turn, and where it goes.
    pub target: WatchTarget,
    /// `--serve`: the address of the live preview page, if any.
    pub serve: Option<std::net::SocketAddr>,
    /// Picture size overriding the scene's.
    pub size: Option<(u32, u32)>,
    /// What to show.
    pub view: View,
    /// Which GPU.
    pub gpu: GpuChoice,
    /// No progress bars (the turns' lines are still printed).
    pub quiet: bool,
}

/// What `fogbank watch` renders at each turn.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchTarget {
    /// `--frame N --out FILE.png`: one still.
    Still {
        /// The frame to render.
        frame: u32,
        /// The PNG written at each turn.
        out_file: PathBuf,
    },
    /// `--frames RANGE --out DIR`: a short clip, as `frame_NNNN.png` files.
    Clip {
        /// The frames to render.
        frames: FrameSet,
        /// The folder of the frame files.
        out_dir: PathBuf,
    },
}

/// `fogbank quality`.
#[derive(Debug, Clone)]
pub struct QualitySettings {
    /// The scene.
    pub scene: SceneChoice,
    /// Frames to measure.
    pub frames: FrameSet,
    /// Sheet counts to measure, ascending.
    pub sheet_counts: Vec<u32>,
    /// Steps per ray of the reference.
    pub steps: u32,
    /// Picture size overriding the scene's.
    pub size: Option<(u32, u32)>,
    /// Folder for the pictures and the chart.
    pub out_dir: Option<PathBuf>,
    /// Print JSON instead of the table.
    pub json: bool,
    /// Which GPU (its compositor is not used: every sheet compositor is measured).
    pub gpu: GpuChoice,
    /// No progress.
    pub quiet: bool,
}

/// `fogbank check`.
#[derive(Debug, Clone)]
pub struct CheckSettings {
    /// The scene.
    pub scene: SceneChoice,
    /// Folder of golden frames.
    pub golden_dir: PathBuf,
    /// Frames to check; when `None`, those golden.json lists (comparing) or the whole clip.
    pub frames: Option<FrameSet>,
    /// Picture size overriding the scene's; when `None`, golden.json's (comparing) or the
    /// scene's.
    pub size: Option<(u32, u32)>,
    /// What to show; when `None`, golden.json's view (comparing) or the fog.
    pub view: Option<View>,
    /// Write the references instead of comparing.
    pub bless: bool,
    /// Make the last failed check's actual pictures the references, rendering nothing.
    pub accept: bool,
    /// Also compare the fluid's shader maps as numbers.
    pub maps: bool,
    /// Print a JSON report.
    pub json: bool,
    /// Also write the report as JUnit XML here.
    pub junit: Option<PathBuf>,
    /// Also write a static HTML report into this folder.
    pub report: Option<PathBuf>,
    /// Leave the white pixels of this mask out of the comparison.
    pub mask: Option<PathBuf>,
    /// The references' format; when `None`, golden.json's (comparing) or PNG.
    pub format: Option<crate::compare::GoldenFormat>,
    /// Stops of exposure for EXR references; when `None`, golden.json's (comparing) or 0.
    pub exposure_ev: Option<f32>,
    /// Threshold overrides.
    pub tolerance: ToleranceFlags,
    /// Which GPU.
    pub gpu: GpuChoice,
    /// No progress.
    pub quiet: bool,
}

/// `fogbank compare`.
#[derive(Debug, Clone)]
pub struct CompareSettings {
    /// The reference image.
    pub expected: PathBuf,
    /// The image to judge.
    pub actual: PathBuf,
    /// Where to write the difference picture.
    pub diff: Option<PathBuf>,
    /// Compare as data: only `--max-diff` counts (default 0), no SSIM gate.
    pub exact: bool,
    /// Stops of exposure for EXR files (`--exposure`).
    pub exposure_ev: f32,
    /// Threshold overrides.
    pub tolerance: ToleranceFlags,
    /// Print JSON.
    pub json: bool,
    /// Also write a static HTML report into this folder.
    pub report: Option<PathBuf>,
    /// Leave the white pixels of this mask out of the comparison.
    pub mask: Option<PathBuf>,
}

/// `fogbank info`.
#[derive(Debug, Clone)]
pub struct InfoSettings {
    /// JSON output.
    pub json: bool,
}

/// `fogbank scene`.
#[derive(Debug, Clone)]
pub struct SceneSettings {
    /// The scene and its overrides.
    pub scene: SceneChoice,
    /// Print the JSON Schema of the scene format instead.
    pub schema: bool,
}

/// One command with its settings.
#[derive(Debug, Clone)]
pub enum Command {
    /// Step and report.
    Simulate(SimulateSettings),
    /// Write fluid maps.
    Maps(MapsSettings),
    /// Check a scene.
    Validate(ValidateSettings),
    /// Render a PNG sequence.
    Render(RenderSettings),
    /// Render one frame.
    Still(StillSettings),
    /// Render a still at each save of its scene.
    Watch(WatchSettings),
    /// Render a contact sheet.
    Sheet(SheetSettings),
    /// Compare renders with golden frames.
    Check(CheckSettings),
    /// Compare two images.
    Compare(CompareSettings),
    /// Measure the sheets against the raymarch.
    Quality(QualitySettings),
    /// List adapters.
    Info(InfoSettings),
    /// Print the resolved scene or the scene schema.
    Scene(SceneSettings),
    /// Print generated text (completions, a manual page) on stdout.
    Print(Vec<u8>),
    /// Write generated files (manual pages), each atomically, creating their folders.
    WriteFiles(Vec<(PathBuf, Vec<u8>)>),
}

/// Runs one command.
pub fn run(command: Command) -> Result<(), Error> {
    match command {
        Command::Simulate(s) => simulate::run(&s),
        Command::Maps(s) => maps::run(&s),
        Command::Validate(s) => validate::run(&s),
        Command::Render(s) => render::run(&s),
        Command::Still(s) => still::run(&s),
        Command::Watch(s) => watch::run(&s),
        Command::Sheet(s) => sheet::run(&s),
        Command::Quality(s) => quality::run(&s),
        Command::Check(s) => {
            passed_or_differences(check::run(&s)?, "frames differ from their references")
        }
        Command::Compare(s) => passed_or_differences(
            check::run_compare(&s)?,
            "the images differ beyond the tolerance",
        ),
        Command::Info(s) => info::run(&s),
        Command::Scene(s) => scene_show::run(&s),
        Command::Print(bytes) => write_stdout(&bytes, false),
        Command::WriteFiles(files) => {
            for (path, bytes) in files {
                crate::pipeline::create_parent(&path)?;
                crate::output::atomic::write_atomic(&path, &bytes)
                    .map_err(|source| Error::Write { path, source })?;
            }
            Ok(())
        }
    }
}

fn passed_or_differences(passed: bool, what: &str) -> Result<(), Error> {
    if passed {
        Ok(())
    } else {
        Err(Error::Differences(what.to_string()))
    }
}

/// How `render` uses its CPU threads (`--threads`, every core when `None`): the simulation's
/// pool takes half, at least one, and the encoders take them all, at a lower priority
/// (`output::writer`), so the simulation comes first on a busy core.
///
/// Both at full count and the same priority oversubscribe the cores twice over. The walkway,
/// bound by its simulation, rendered at 166 and 204 frames/s on the 16-core GPU host that way,
/// and at 243 and 314 this way. Encoders on only half the cores held back the storm and the
/// valley instead (`benches/runs/2026-12-05-h100-f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ThreadShare {
    simulation: usize,
    encoders: usize,
}

impl ThreadShare {
    fn of(threads: Option<usize>) -> ThreadShare {
        let total = threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
            .max(1);
        ThreadShare {
            simulation: (total / 2).max(1),
            encoders: total,
        }
    }
}

/// Caps rayon's global pool, where the simulation's rows run, at `threads` (`--threads`). The
/// pool can be built once per process; a program that built it already keeps its own.
fn limit_threads(threads: Option<usize>) {
    if let Some(threads) = threads {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
}

/// Loads the scene, applies `--stamp` and `--caption`, and prints its warnings on stderr.
fn load_scene(choice: &SceneChoice) -> Result<LoadedScene, Error> {
    let mut loaded = scene::load(choice.path.as_deref(), &choice.sets)?;
    if let Some(stamp) = choice.stamp {
        loaded.scene.output.stamp = stamp;
    }
    if let Some(caption) = &choice.caption {
        loaded.scene.output.caption = Some(caption.clone());
    }
    for warning in &loaded.warnings {
        eprintln!("{warning}");
    }
    Ok(loaded)
}

impl GpuChoice {
    /// Opens the chosen GPU.
    fn open(&self) -> Result<GpuContext, Error> {
        if let Some(index) = self.adapter_index {
            let adapters = crate::gpu::list_adapters_of(self.backend);
            if index >= adapters.len() {
                return Err(RequestError::NoSuchGpu {
                    index,
                    adapters: adapters.into_iter().map(|a| a.name).collect(),
                }
                .into());
            }
        }
        Ok(GpuContext::new(&GpuOptions {
            backend: self.backend,
            adapter_name: self.adapter_name.clone(),
            adapter_index: self.adapter_index,
        })?)
    }
}

/// Prints `value` as pretty JSON on stdout (plain structs: serialising cannot fail).
fn print_json(value: &impl serde::Serialize) -> Result<(), Error> {
    outln!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
    Ok(())
}

/// `result`, with a closed standard output counted as printed: for commands whose exit code is
/// a verdict, which a reader that went away must not turn into a pass.
fn unless_closed_pipe(result: Result<(), Error>) -> Result<(), Error> {
    match result {
        Err(e) if e.is_closed_pipe() => Ok(()),
        other => other,
    }
}

/// Writes `bytes` (and a line end when `newline`) to standard output and flushes them. A
/// failure is [`Error::Stdout`]: `main` ends quietly when the reader went away (a closed
/// pipe) and reports any other failure (e.g. a full disk) with exit code 1.
pub(crate) fn write_stdout(bytes: &[u8], newline: bool) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush())
        .map_err(Error::Stdout)
}

#[cfg(test)]
mod thread_share_tests {
    use super::ThreadShare;

    #[test]
    fn render_simulates_on_half_the_threads_and_encodes_on_all() {
        let share = |total| {
            let s = ThreadShare::of(Some(total));
            (s.simulation, s.encoders)
        };
        assert_eq!(share(16), (8, 16));
        assert_eq!(share(3), (1, 3));
        assert_eq!(share(2), (1, 2));
        assert_eq!(share(1), (1, 1));
        let every_core = ThreadShare::of(None);
        assert!(every_core.simulation >= 1 && every_core.encoders >= every_core.simulation);
    }
}
