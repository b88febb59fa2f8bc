//! The command line's [`Reporter`]: progress on stderr as a bar on a terminal, plain lines
//! otherwise, nothing when quiet; warnings and notes always.
//!
//! Long runs (thousands of frames) must show they are alive, but logs in CI and farms must not
//! fill with carriage returns, so the mode follows whether stderr is a terminal. The library
//! never prints; this is where its reports reach the user.

use crate::pipeline::{Reporter, Stage};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// An indicatif bar (stderr is a terminal).
    Bar,
    /// A line every few seconds and one at the end.
    Lines,
    /// Nothing (`--quiet`).
    Quiet,
}

impl ProgressMode {
    /// The mode for this process: quiet when asked, a bar on a terminal, lines otherwise.
    pub fn detect(quiet: bool) -> Self {
        if quiet {
            ProgressMode::Quiet
        } else if std::io::stderr().is_terminal() {
            ProgressMode::Bar
        } else {
            ProgressMode::Lines
        }
    }
}

/// Several stages shown together, one bar each (simulate, render, encode).
pub struct ProgressGroup {
    mode: ProgressMode,
    multi: MultiProgress,
}

impl ProgressGroup {
    /// A group drawing on stderr in `mode`.
    pub fn new(mode: ProgressMode) -> Self {
        ProgressGroup {
            mode,
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
        }
    }

    /// Adds a stage of `total` items.
    pub fn stage(&self, stage: &'static str, total: u64) -> Progress {
        Progress::with_bar(stage, total, self.mode, |bar| self.multi.add(bar))
    }
}

/// Progress of one stage (simulate, render, encode) over a known number of items.
pub struct Progress {
    stage: &'static str,
    total: u64,
    done: u64,
    mode: ProgressMode,
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
}

/// Seconds between plain progress lines.
const LINE_INTERVAL: Duration = Duration::from_secs(5);

impl Progress {
    /// Starts showing progress of `stage` over `total` items.
    pub fn new(stage: &'static str, total: u64, mode: ProgressMode) -> Self {
        Self::with_bar(stage, total, mode, |bar| bar)
    }

    fn with_bar(
        stage: &'static str,
        total: u64,
        mode: ProgressMode,
        attach: impl FnOnce(ProgressBar) -> ProgressBar,
    ) -> Self {
        let bar = (mode == ProgressMode::Bar).then(|| {
            let bar = attach(ProgressBar::with_draw_target(
                Some(total),
                ProgressDrawTarget::stderr(),
            ));
            let style = ProgressStyle::with_template(
                "{prefix:>9} [{bar:32}] {pos}/{len} frames  {per_sec}  ETA {eta}",
            )
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_prefix(stage);
            bar
        });
        let now = Instant::now();
        Progress {
            stage,
            total,
            done: 0,
            mode,
            bar,
            started: now,
            last_line: now,
        }
    }

    /// Marks `n` more items done.
    pub fn advance(&mut self, n: u64) {
        self.done += n;
        match self.mode {
            ProgressMode::Bar => {
                if let Some(bar) = &self.bar {
                    bar.inc(n);
                }
            }
            ProgressMode::Lines => {
                if self.last_line.elapsed() >= LINE_INTERVAL {
                    self.last_line = Instant::now();
                    eprintln!("{}", self.line());
                }
            }
            ProgressMode::Quiet => {}
        }
    }

    fn line(&self) -> String {
        let seconds = self.started.elapsed().as_secs_f64();
        let rate = if seconds > 0.0 {
            self.done as f64 / seconds
        } else {
            0.0
        };
        format!(
            "{}: {}/{} frames, {rate:.1} frames/s, {seconds:.1} s",
            self.stage, self.done, self.total
        )
    }

    /// Seconds since the stage started.
    pub fn elapsed_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Ends the stage, printing its last line, and returns its duration in seconds.
    pub fn finish(self) -> f64 {
        match self.mode {
            ProgressMode::Bar => {
                if let Some(bar) = &self.bar {
                    bar.finish();
                }
            }
            ProgressMode::Lines => eprintln!("{}", self.line()),
            ProgressMode::Quiet => {}
        }
        self.elapsed_s()
    }
}

/// Shows the pipeline's stages as a [`ProgressGroup`] and prints warnings and notes on stderr.
pub struct ProgressReporter {
    group: ProgressGroup,
    /// One slot per [`Stage`], in [`Stage::ALL`] order.
    stages: [Option<Progress>; 3],
    /// Overrides the stage names (e.g. `maps` for the maps command).
    label: Option<&'static str>,
}

impl ProgressReporter {
    /// A reporter drawing in `mode`.
    pub fn new(mode: ProgressMode) -> Self {
        ProgressReporter {
            group: ProgressGroup::new(mode),
            stages: [None, None, None],
            label: None,
        }
    }

    /// A reporter for a command that has one stage, shown under `label`.
    pub fn labelled(mode: ProgressMode, label: &'static str) -> Self {
        ProgressReporter {
            label: Some(label),
            ..ProgressReporter::new(mode)
        }
    }
}

impl Reporter for ProgressReporter {
    fn begin(&mut self, stage: Stage, total: u64) {
        let name = self.label.unwrap_or(stage.name());
        self.stages[stage as usize] = Some(self.group.stage(name, total));
    }

    fn advance(&mut self, stage: Stage, count: u64) {
        if let Some(progress) = &mut self.stages[stage as usize] {
            progress.advance(count);
        }
    }

    fn end(&mut self, stage: Stage) {
        if let Some(progress) = self.stages[stage as usize].take() {
            progress.finish();
        }
    }

    fn warning(&mut self, message: &str) {
        eprintln!("warning: {message}");
    }

    fn note(&mut self, message: &str) {
        eprintln!("note: {message}");
    }
}
