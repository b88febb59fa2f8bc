//! `fogbank watch`: render a still (or a short clip), then again each time its scene file is
//! saved.
//!
//! The scene file's folder is watched with `notify`. A save arrives as a burst of events
//! (write, truncate, rename, metadata), so a turn starts once the file has been quiet for
//! [`QUIET`]. Each turn loads the scene; when it does not load, the report is printed as
//! every command prints it and the last good picture (or clip) stays where it is. Otherwise
//! [`pipeline::StillSession`] renders the still, or [`pipeline::ClipSession`] the clip's
//! frames, starting from the world kept in memory when only look fields changed; each file
//! replaces the last one whole. Each turn prints one line with its steps and timings, and
//! `--serve` shows the same on a live page (`serve.rs`). Ctrl-C (or SIGTERM, SIGHUP) ends the
//! watch between or inside turns with the signal's exit code; the files on disk are then whole.

use super::serve::{Picture, Preview};
use super::{ProgressMode, ProgressReporter, WatchSettings, WatchTarget, load_scene};
use crate::Error;
use crate::error::{ErrorKind, FlagError};
use crate::pipeline::{self, ClipSession, RenderOptions, StillOptions, StillSession};
use crate::scene::Scene;
use crate::timeline::FrameSet;
use notify::{EventKind, RecursiveMode, Watcher};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long the scene file must stay untouched before a turn starts: editors write a save as
/// several events within a few milliseconds.
const QUIET: Duration = Duration::from_millis(150);
/// How often the wait looks at the stop signal.
const POLL: Duration = Duration::from_millis(50);

type Events = Receiver<notify::Result<notify::Event>>;

pub(super) fn run(settings: &WatchSettings) -> Result<(), Error> {
    let Some(path) = settings.scene.path.clone() else {
        return Err(crate::error::FlagError {
            flag: "SCENE",
            value: String::new(),
            reason: "watch needs a scene file to watch, e.g. `fogbank watch scenes/temple.ron`"
                .into(),
        }
        .into());
    };
    check_out(&settings.target)?;
    let context = settings.gpu.open()?;
    if let WatchTarget::Still { out_file, .. } = &settings.target {
        pipeline::create_parent(out_file)?;
    }
    let (sender, events) = std::sync::mpsc::channel();
    let watch_error = |source| Error::Watch {
        path: path.clone(),
        source,
    };
    let mut watcher = notify::recommended_watcher(move |event| {
        // The receiver is gone only when the watch is over.
        let _ = sender.send(event);
    })
    .map_err(watch_error)?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    watcher
        .watch(folder, RecursiveMode::NonRecursive)
        .map_err(watch_error)?;
    let name = path.file_name().map(OsString::from).unwrap_or_default();
    let what = match &settings.target {
        WatchTarget::Still { frame, out_file } => {
            format!("frame {frame} to {}", out_file.display())
        }
        WatchTarget::Clip { frames, out_dir } => {
            format!("{} to {}", describe(frames.frames()), out_dir.display())
        }
    };
    eprintln!(
        "watching {}: each save renders {what} again (Ctrl-C stops)",
        path.display()
    );
    let preview = settings.serve.map(Preview::start).transpose()?;
    if let Some(preview) = &preview {
        eprintln!("serving the preview page on http://{}/", preview.addr());
    }
    let mut session = match settings.target.clone() {
        WatchTarget::Still { frame, out_file } => Session::Still {
            kept: StillSession::new(),
            frame,
            out_file,
        },
        WatchTarget::Clip { frames, out_dir } => Session::Clip {
            kept: ClipSession::new(),
            frames,
            out_dir,
        },
    };
    let (mut turn, mut saves, mut written) = (1, 0, 0);
    loop {
        let turn_result = render_turn(settings, &context, &mut session, turn, saves);
        match turn_result.map(|outcome| show(outcome, preview.as_ref(), turn)) {
            Ok(wrote) => written += wrote,
            Err(Error::Interrupted { written: now, .. }) => {
                return Err(Error::interrupted(written + now));
            }
            Err(error) => return Err(error),
        }
        saves = match wait_for_saves(&events, &name) {
            Ok(saves) => saves,
            Err(None) => return Err(Error::interrupted(written)),
            Err(Some(source)) => return Err(watch_error(source)),
        };
        turn += 1;
    }
}

/// Refuses an `--out` that exists as the wrong kind: a folder where the still's PNG goes, or
/// a file where the clip's folder goes. (The command line has already checked the name.)
fn check_out(target: &WatchTarget) -> Result<(), Error> {
    let (path, reason) = match target {
        WatchTarget::Still { out_file, .. } if out_file.is_dir() => (
            out_file,
            "is a folder; with --frame, --out is the PNG file to write, e.g. --out \
             out/still.png (use --frames RANGE to render a clip into a folder)",
        ),
        WatchTarget::Clip { out_dir, .. } if out_dir.exists() && !out_dir.is_dir() => (
            out_dir,
            "is a file; with --frames, --out is the folder for the clip's frame_NNNN.png \
             files, e.g. --out out/clip",
        ),
        _ => return Ok(()),
    };
    Err(FlagError {
        flag: "--out",
        value: path.display().to_string(),
        reason: reason.into(),
    }
    .into())
}

/// "3 frames (6 to 8)", "frame 6" or "2 frames (6, 9)": a clip's frames in a turn's line.
fn describe(frames: &[u32]) -> String {
    match frames {
        [] => "no frames".to_string(),
        [only] => format!("frame {only}"),
        [first, .., last] if (last - first) as usize + 1 == frames.len() => {
            format!("{} frames ({first} to {last})", frames.len())
        }
        [a, b] => format!("2 frames ({a}, {b})"),
        [first, .., last] => format!("{} frames ({first} … {last})", frames.len()),
    }
}

/// What each turn renders, with the world kept between turns.
enum Session {
    Still {
        kept: StillSession,
        frame: u32,
        out_file: PathBuf,
    },
    Clip {
        kept: ClipSession,
        frames: FrameSet,
        out_dir: PathBuf,
    },
}

/// What a turn gave: what it wrote (for the page) and how many files, or the scene's error
/// report; and its line.
enum Outcome {
    Wrote {
        picture: Picture,
        files: usize,
        line: String,
    },
    Failed {
        report: String,
        line: String,
    },
}

/// Prints a turn's outcome and hands it to the preview page; returns the files it wrote.
fn show(outcome: Outcome, preview: Option<&Preview>, turn: u64) -> usize {
    match outcome {
        Outcome::Wrote {
            picture,
            files,
            line,
        } => {
            // The page first: whoever reads the line finds the page already showing it.
            if let Some(preview) = preview {
                preview.picture(turn, picture, line.clone());
            }
            eprintln!("{line}");
            files
        }
        Outcome::Failed { report, line } => {
            if let Some(preview) = preview {
                preview.error(turn, report.clone(), line.clone());
            }
            eprintln!("{report}");
            eprintln!("{line}");
            0
        }
    }
}

/// One turn: load, render and write. A scene that does not load, or a request that does not
/// fit it, is a failed turn that leaves the last picture or clip; other failures and a stop
/// signal end the watch.
fn render_turn(
    settings: &WatchSettings,
    context: &crate::gpu::GpuContext,
    session: &mut Session,
    turn: u64,
    saves: usize,
) -> Result<Outcome, Error> {
    let clock = Instant::now();
    let after = match saves {
        0 => String::new(),
        1 => " after 1 save".to_string(),
        n => format!(" after {n} saves"),
    };
    let result = load_scene(&settings.scene).and_then(|loaded| {
        let scene = settings
            .gpu
            .apply_to(pipeline::sized_scene(&loaded.scene, settings.size));
        super::check_shutter(&scene)?;
        let mut reporter = ProgressReporter::new(ProgressMode::detect(settings.quiet));
        match session {
            Session::Still {
                kept,
                frame,
                out_file,
            } => {
                let options = StillOptions {
                    frame: *frame,
                    view: settings.view,
                    compositor: settings.gpu.compositor,
                    cache_dir: settings.scene.cache.clone(),
                };
                let done = kept.render(context, &scene, &options, &mut reporter)?;
                write_still(&done, *frame, out_file, &after, turn, clock)
            }
            Session::Clip {
                kept,
                frames,
                out_dir,
            } => {
                let options = RenderOptions {
                    frames: Some(frames.clone()),
                    view: settings.view,
                    compositor: settings.gpu.compositor,
                    cache_dir: settings.scene.cache.clone(),
                    ..RenderOptions::new(out_dir.clone())
                };
                let done = kept.render(context, &scene, &options, &mut reporter)?;
                Ok(clip_outcome(&done, &scene, frames.frames(), &after, turn))
            }
        }
    });
    match result {
        Err(error) if error.kind() == ErrorKind::BadInput => {
            let kept = match &settings.target {
                WatchTarget::Still { out_file, .. } => {
                    format!("the last good picture {}", out_file.display())
                }
                WatchTarget::Clip { out_dir, .. } => {
                    format!("the last good clip in {}", out_dir.display())
                }
            };
            Ok(Outcome::Failed {
                report: error.report(),
                line: format!("turn {turn}{after}: failed; keeping {kept}"),
            })
        }
        other => other,
    }
}

/// Writes a turn's still as `out_file`, whole, and says so.
fn write_still(
    done: &pipeline::Turn,
    frame_number: u32,
    path: &Path,
    after: &str,
    turn: u64,
    clock: Instant,
) -> Result<Outcome, Error> {
    let frame = &done.still.frame;
    let png = crate::output::png::encode_rgba8(frame.width, frame.height, &frame.rgba8, true)
        .map_err(|e| Error::Encode {
            path: path.to_path_buf(),
            source: Box::new(e),
        })?;
    crate::output::atomic::write_atomic(path, &png).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })?;
    let line = format!(
        "turn {turn}{after}: simulated {} steps from step {} in {:.2} s, rendered in {:.2} s, \
         {:.2} s in all; wrote frame {frame_number} (hash {:016x}) to {}",
        done.steps_simulated,
        done.start_step,
        done.simulate_s,
        done.render_s,
        clock.elapsed().as_secs_f64(),
        done.still.state_hash,
        path.display()
    );
    Ok(Outcome::Wrote {
        picture: Picture::Still(png),
        files: 1,
        line,
    })
}

/// A turn's clip (already written by the render) for the line and the page.
fn clip_outcome(
    done: &pipeline::ClipTurn,
    scene: &Scene,
    frames: &[u32],
    after: &str,
    turn: u64,
) -> Outcome {
    let summary = &done.summary;
    let line = format!(
        "turn {turn}{after}: simulated {} steps from step {} in {:.2} s, rendered {} frames in \
         {:.2} s, {:.2} s in all; wrote {} to {}",
        done.steps_simulated,
        done.start_step,
        done.simulate_s,
        summary.frames,
        summary.total_s,
        done.total_s,
        describe(frames),
        summary.out_dir.display()
    );
    Outcome::Wrote {
        picture: Picture::Clip {
            dir: summary.out_dir.clone(),
            frames: frames.to_vec(),
            fps: scene.output.fps,
        },
        files: summary.frames,
        line,
    }
}

/// Waits for the scene file named `name` to be saved, then for the burst of events to end;
/// returns how many events touched it. `Err(None)` is a stop signal (as
/// [`Error::interrupted`]), `Err(Some(_))` a failure of the watcher.
fn wait_for_saves(events: &Events, name: &OsString) -> Result<usize, Option<notify::Error>> {
    let touches = |event: &notify::Event| {
        !matches!(event.kind, EventKind::Access(_))
            && event
                .paths
                .iter()
                .any(|p| p.file_name() == Some(name.as_os_str()))
    };
    let mut count = 0;
    let mut last = None::<Instant>;
    loop {
        if crate::interrupt::requested() {
            return Err(None);
        }
        if let Some(at) = last
            && at.elapsed() >= QUIET
        {
            return Ok(count);
        }
        match events.recv_timeout(POLL) {
            Ok(Ok(event)) if touches(&event) => {
                count += 1;
                last = Some(Instant::now());
            }
            Ok(Ok(_)) | Err(RecvTimeoutError::Timeout) => {}
            Ok(Err(error)) => return Err(Some(error)),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Some(notify::Error::generic("the watcher stopped")));
            }
        }
    }
}
