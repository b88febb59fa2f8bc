//! `fogbank watch`: render a still, then again each time its scene file is saved.
//!
//! The scene file's folder is watched with `notify`. A save arrives as a burst of events
//! (write, truncate, rename, metadata), so a turn starts once the file has been quiet for
//! [`QUIET`]. Each turn loads the scene; when it does not load, the report is printed as
//! every command prints it and the last good picture stays where it is. Otherwise
//! [`pipeline::StillSession`] renders it, starting from the world kept in memory when only look
//! fields changed, and the PNG replaces the last one whole. Each turn prints one line with its
//! steps and timings, and `--serve` shows the same on a live page (`serve.rs`). Ctrl-C (or SIGTERM, SIGHUP) ends the watch between or inside turns with
//! the signal's exit code; the picture on disk is then the last whole one.

use super::serve::Preview;
use super::{ProgressMode, ProgressReporter, WatchSettings, load_scene};
use crate::Error;
use crate::error::ErrorKind;
use crate::pipeline::{self, StillOptions, StillSession};
use notify::{EventKind, RecursiveMode, Watcher};
use std::ffi::OsString;
use std::path::Path;
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
    let context = settings.gpu.open()?;
    pipeline::create_parent(&settings.out_file)?;
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
    eprintln!(
        "watching {}: each save renders frame {} to {} again (Ctrl-C stops)",
        path.display(),
        settings.frame,
        settings.out_file.display()
    );
    let preview = settings.serve.map(Preview::start).transpose()?;
    if let Some(preview) = &preview {
        eprintln!("serving the preview page on http://{}/", preview.addr());
    }
    let mut session = StillSession::new();
    let (mut turn, mut saves, mut written) = (1, 0, 0);
    loop {
        let turn_result = render_turn(settings, &context, &mut session, turn, saves);
        match turn_result.map(|outcome| show(outcome, preview.as_ref(), turn)) {
            Ok(wrote) => written += usize::from(wrote),
            Err(Error::Interrupted { .. }) => return Err(Error::interrupted(written)),
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

/// What a turn gave: the picture's PNG bytes, or the scene's error report; and its line.
enum Outcome {
    Wrote { png: Vec<u8>, line: String },
    Failed { report: String, line: String },
}

/// Prints a turn's outcome and hands it to the preview page; true when it wrote a picture.
fn show(outcome: Outcome, preview: Option<&Preview>, turn: u64) -> bool {
    match outcome {
        Outcome::Wrote { png, line } => {
            eprintln!("{line}");
            if let Some(preview) = preview {
                preview.picture(turn, png, line);
            }
            true
        }
        Outcome::Failed { report, line } => {
            eprintln!("{report}");
            eprintln!("{line}");
            if let Some(preview) = preview {
                preview.error(turn, report, line);
            }
            false
        }
    }
}

/// One turn: load, render and write. A scene that does not load, or a request that does not
/// fit it, is a failed turn that leaves the last picture; other failures and a stop signal end
/// the watch.
fn render_turn(
    settings: &WatchSettings,
    context: &crate::gpu::GpuContext,
    session: &mut StillSession,
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
        let options = StillOptions {
            frame: settings.frame,
            view: settings.view,
            compositor: settings.gpu.compositor,
            cache_dir: settings.scene.cache.clone(),
        };
        let mut reporter = ProgressReporter::new(ProgressMode::detect(settings.quiet));
        session.render(context, &scene, &options, &mut reporter)
    });
    let done = match result {
        Ok(done) => done,
        Err(error) if error.kind() == ErrorKind::BadInput => {
            let line = format!(
                "turn {turn}{after}: failed; keeping the last good picture {}",
                settings.out_file.display()
            );
            return Ok(Outcome::Failed {
                report: error.report(),
                line,
            });
        }
        Err(error) => return Err(error),
    };
    let frame = &done.still.frame;
    let path = &settings.out_file;
    let png = crate::output::png::encode_rgba8(frame.width, frame.height, &frame.rgba8, true)
        .map_err(|e| Error::Encode {
            path: path.clone(),
            source: Box::new(e),
        })?;
    crate::output::atomic::write_atomic(path, &png).map_err(|source| Error::Write {
        path: path.clone(),
        source,
    })?;
    let line = format!(
        "turn {turn}{after}: simulated {} steps from step {} in {:.2} s, rendered in {:.2} s, \
         {:.2} s in all; wrote frame {} (hash {:016x}) to {}",
        done.steps_simulated,
        done.start_step,
        done.simulate_s,
        done.render_s,
        clock.elapsed().as_secs_f64(),
        settings.frame,
        done.still.state_hash,
        settings.out_file.display()
    );
    Ok(Outcome::Wrote { png, line })
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
