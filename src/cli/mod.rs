//! The command line: clap's raw flags, turned into plain validated settings before any work.
//!
//! Nothing outside this module sees a clap type. Each subcommand's flags become a settings
//! struct in [`crate::commands`]; sizes, ranges and views are parsed here so a typo fails before
//! the first step is simulated.

use crate::commands::{
    CheckSettings, Command, CompareSettings, FrameFormat, GpuChoice, InfoSettings, MapsSettings,
    QualitySettings, RenderSettings, SceneChoice, SceneSettings, SheetSettings, SimulateSettings,
    StillSettings, ToleranceFlags, ValidateSettings, WatchSettings, WatchTarget,
};
use crate::frame::View;
use crate::gpu::{BackendChoice, Compositor, DEFAULT_RAYMARCH_STEPS};
use crate::output::exr::ExrCompression;
use crate::pipeline::MAX_WATCH_FRAMES;
use crate::scene::{FogResolution, StampPlace};
use crate::timeline::FrameSet;
use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

mod args;
mod docs;
mod values;

pub use crate::error::FlagError;
use args::*;
pub use docs::{Shell, completion_script, man_pages};
pub use values::{parse_chunk, parse_probe, parse_sheet_counts, parse_size};

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
    /// Render one frame to a PNG file, and again each time the scene file is saved.
    Watch(WatchArgs),
    /// Render chosen frames as a contact sheet with frame numbers, for documentation.
    Sheet(SheetArgs),
    /// Render frames and compare them with golden references (exit 3 when any differs).
    Check(CheckArgs),
    /// Compare two PNG images with the same rules as `check` (exit 3 when they differ).
    Compare(CompareArgs),
    /// Measure the fog sheets against the raymarch reference: error, SSIM and frame time per
    /// sheet count, with the raster and the compute compositor.
    Quality(QualityArgs),
    /// List GPU adapters, backends and limits.
    Info(InfoArgs),
    /// Print the resolved scene (after --set) as RON, or the scene format's JSON Schema.
    Scene(SceneShowArgs),
    /// Print a shell completion script: `fogbank completions bash > ~/.local/share/bash-completion/completions/fogbank`.
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one page per command into a folder.
    Man(ManArgs),
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
                threads: a.threads.map(|n| n as usize),
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
                scene: stamped(scene_choice(a.scene), a.stamp)?,
                out_dir: a.out,
                frames: parse_frames(a.frames)?,
                size: a.size.as_deref().map(parse_size).transpose()?,
                view: view(a.view),
                maps: a.maps,
                format: match a.format {
                    FormatArg::Png => FrameFormat::Png,
                    FormatArg::Exr => FrameFormat::Exr,
                },
                exr_compression: match a.exr_compression {
                    ExrCompressionArg::None => ExrCompression::None,
                    ExrCompressionArg::Rle => ExrCompression::Rle,
                    ExrCompressionArg::Zip => ExrCompression::Zip,
                    ExrCompressionArg::Piz => ExrCompression::Piz,
                },
                layers: a.layers,
                video: a.video,
                crf: a.crf,
                preset: a.preset,
                no_frames: a.no_frames,
                chunk: a
                    .chunk
                    .as_deref()
                    .map(|text| parse_chunk(text, a.chunks, |name| std::env::var(name).ok()))
                    .transpose()?,
                skip_existing: a.skip_existing,
                threads: a.threads.map(|n| n as usize),
                json: a.json,
                stats: a.stats,
                gpu: gpu_choice(a.gpu)?,
                quiet: a.quiet.quiet,
            }),
            CliCommand::Still(a) => Command::Still(StillSettings {
                scene: stamped(scene_choice(a.scene), a.stamp)?,
                frame: a.frame,
                out_file: a.out,
                size: a.size.as_deref().map(parse_size).transpose()?,
                view: view(a.view),
                gpu: gpu_choice(a.gpu)?,
                quiet: a.quiet.quiet,
            }),
            CliCommand::Watch(a) => Command::Watch(WatchSettings {
                scene: stamped(
                    SceneChoice {
                        path: Some(a.scene),
                        sets: a.sets,
                        cache: a.cache,
                        ..SceneChoice::default()
                    },
                    a.stamp,
                )?,
                target: watch_target(a.frame, a.frames, a.out)?,
                serve: a
                    .serve
                    .map(|text| {
                        text.parse().map_err(|_| FlagError {
                            flag: "--serve",
                            value: text.clone(),
                            reason: "write an address and port, e.g. --serve 127.0.0.1:8080 \
                                     (port 0 picks a free one)"
                                .into(),
                        })
                    })
                    .transpose()?,
                size: a.size.as_deref().map(parse_size).transpose()?,
                view: view(a.view),
                gpu: gpu_choice(a.gpu)?,
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
                gpu: gpu_choice(a.gpu)?,
                quiet: a.quiet.quiet,
            }),
            CliCommand::Check(a) => Command::Check(CheckSettings {
                scene: scene_choice(a.scene),
                golden_dir: a.golden,
                frames: parse_frames(a.frames)?,
                size: a.size.as_deref().map(parse_size).transpose()?,
                view: a.view.map(view),
                bless: a.bless,
                accept: a.accept,
                maps: a.maps,
                json: a.json,
                junit: a.junit,
                report: a.report,
                mask: a.mask,
                format: a.format.map(|f| match f {
                    FormatArg::Png => crate::compare::GoldenFormat::Png,
                    FormatArg::Exr => crate::compare::GoldenFormat::Exr,
                }),
                exposure_ev: a.exposure,
                tolerance: tolerance(a.tolerance),
                gpu: gpu_choice(a.gpu)?,
                quiet: a.quiet.quiet,
            }),
            CliCommand::Compare(a) => Command::Compare(CompareSettings {
                expected: a.expected,
                actual: a.actual,
                diff: a.diff,
                exact: a.exact,
                exposure_ev: a.exposure,
                tolerance: tolerance(a.tolerance),
                json: a.json,
                report: a.report,
                mask: a.mask,
            }),
            CliCommand::Quality(a) => Command::Quality(QualitySettings {
                scene: scene_choice(a.scene),
                frames: FrameSet::parse(&a.frames)?,
                sheet_counts: parse_sheet_counts(&a.sheets)?,
                steps: a.steps,
                size: a.size.as_deref().map(parse_size).transpose()?,
                out_dir: a.out,
                json: a.json,
                gpu: gpu_choice(GpuArgs {
                    backend: a.backend,
                    adapter: a.adapter,
                    gpu: a.gpu,
                    compositor: CompositorArg::Auto,
                    steps: None,
                    fog_resolution: None,
                    samples: a.samples,
                    shutter: None,
                    edge_samples: None,
                })?,
                quiet: a.quiet.quiet,
            }),
            CliCommand::Info(a) => Command::Info(InfoSettings { json: a.json }),
            CliCommand::Scene(a) => Command::Scene(SceneSettings {
                scene: SceneChoice {
                    path: a.scene,
                    sets: a.sets,
                    ..SceneChoice::default()
                },
                schema: a.schema,
            }),
            CliCommand::Completions(a) => Command::Print(completion_script(a.shell)),
            CliCommand::Man(a) => match a.out {
                None => Command::Print(docs::man_page(&Cli::command())?),
                Some(dir) => Command::WriteFiles(man_pages(&dir)?),
            },
        })
    }
}

fn tolerance(args: ToleranceArgs) -> ToleranceFlags {
    ToleranceFlags {
        max_channel_diff: args.max_diff,
        pixel_budget: args.pixel_budget,
        min_ssim: args.min_ssim,
        max_flip: args.max_flip,
    }
}

fn scene_choice(args: SceneArgs) -> SceneChoice {
    SceneChoice {
        path: args.scene,
        sets: args.sets,
        cache: args.cache,
        stamp: None,
        caption: None,
    }
}

/// `choice` with `--stamp` and `--caption`; a caption that cannot be one is refused here,
/// before any work.
fn stamped(mut choice: SceneChoice, args: StampArgs) -> Result<SceneChoice, FlagError> {
    choice.stamp = args.stamp.map(|place| match place {
        StampArg::Bottom => StampPlace::Bottom,
        StampArg::Top => StampPlace::Top,
        StampArg::Off => StampPlace::Off,
    });
    if let Some(text) = &args.caption
        && let Err(why) = crate::output::caption::check_text(text)
    {
        return Err(FlagError {
            flag: "--caption",
            value: text.clone(),
            reason: format!("the caption {why}"),
        });
    }
    choice.caption = args.caption;
    Ok(choice)
}

fn gpu_choice(args: GpuArgs) -> Result<GpuChoice, FlagError> {
    // `--gpu` wins over FOGBANK_GPU; `--adapter` over FOGBANK_GPU too.
    let adapter_index = match (args.gpu, &args.adapter) {
        (Some(index), _) => Some(index),
        (None, Some(_)) => None,
        (None, None) => match std::env::var("FOGBANK_GPU") {
            Ok(text) if !text.trim().is_empty() => {
                Some(text.trim().parse().map_err(|_| FlagError {
                    flag: "FOGBANK_GPU",
                    value: text.clone(),
                    reason:
                        "write the adapter's index in `fogbank info`, e.g. FOGBANK_GPU=0".into(),
                })?)
            }
            _ => None,
        },
    };
    let compositor = match (args.compositor, args.steps) {
        (CompositorArg::Raymarch, steps) => Compositor::Raymarch {
            steps: steps.unwrap_or(DEFAULT_RAYMARCH_STEPS),
        },
        (_, Some(steps)) => {
            return Err(FlagError {
                flag: "--steps",
                value: steps.to_string(),
                reason: "only the raymarch has steps: add `--compositor raymarch`, or drop \
                         `--steps`"
                    .into(),
            });
        }
        (CompositorArg::Raster, None) => Compositor::Raster,
        (CompositorArg::Compute, None) => Compositor::Compute,
        (CompositorArg::Auto, None) => Compositor::Auto,
    };
    Ok(GpuChoice {
        backend: match args.backend {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Vulkan => BackendChoice::Vulkan,
            BackendArg::Gl => BackendChoice::Gl,
            BackendArg::Metal => BackendChoice::Metal,
            BackendArg::Dx12 => BackendChoice::Dx12,
        },
        adapter_name: args.adapter,
        adapter_index,
        compositor,
        fog_resolution: args.fog_resolution.map(|arg| match arg {
            FogResolutionArg::Full => FogResolution::Full,
            FogResolutionArg::Half => FogResolution::Half,
            FogResolutionArg::Auto => FogResolution::Auto,
        }),
        samples: args.samples,
        shutter: args.shutter,
        edge_samples: args.edge_samples,
    })
}

fn view(arg: ViewArg) -> View {
    match arg {
        ViewArg::Fog => View::Fog,
        ViewArg::Sheets => View::Sheets,
        ViewArg::Flow => View::Flow,
        ViewArg::Fluid => View::Fluid,
    }
}

/// `watch`'s `--frame N --out FILE.png` or `--frames RANGE --out DIR` (clap keeps the two
/// apart); an `--out` of the wrong kind, or a clip too long to render at every save, is
/// refused here, before anything is rendered.
fn watch_target(
    frame: Option<u32>,
    frames: Option<String>,
    out: PathBuf,
) -> Result<WatchTarget, crate::Error> {
    let is_png = out
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("png"));
    let wrong_out = |reason: &str| FlagError {
        flag: "--out",
        value: out.display().to_string(),
        reason: reason.into(),
    };
    let Some(text) = frames else {
        if !is_png {
            return Err(wrong_out(
                "with --frame, --out is the PNG file to write, e.g. --out out/still.png; \
                 to render a clip into a folder, use --frames RANGE --out DIR",
            )
            .into());
        }
        return Ok(WatchTarget::Still {
            frame: frame.unwrap_or(0),
            out_file: out,
        });
    };
    let frames = FrameSet::parse(&text)?;
    if frames.len() > MAX_WATCH_FRAMES {
        return Err(FlagError {
            flag: "--frames",
            value: text,
            reason: format!(
                "watch renders every frame again at each save, so its clip is at most \
                 {MAX_WATCH_FRAMES} frames, not {}; choose a shorter range, or use \
                 `fogbank render` for a long clip",
                frames.len()
            ),
        }
        .into());
    }
    if is_png {
        return Err(wrong_out(
            "with --frames, --out is the folder for the clip's frame_NNNN.png files, e.g. \
             --out out/clip; to render one picture, use --frame N --out FILE.png",
        )
        .into());
    }
    Ok(WatchTarget::Clip {
        frames,
        out_dir: out,
    })
}

fn parse_frames(text: Option<String>) -> Result<Option<FrameSet>, crate::Error> {
    Ok(text.as_deref().map(FrameSet::parse).transpose()?)
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
