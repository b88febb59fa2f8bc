//! How the pipeline tells its caller what it is doing, without printing.
//!
//! Library code never writes to stdout or stderr: long work reports its stages through a
//! [`Reporter`] the caller supplies. The command line's reporter draws progress bars or plain
//! lines on stderr (`crate::commands`); a program embedding fogbank can log, count, or ignore
//! everything with [`Silent`].

/// A stage of the frame pipeline whose progress is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Stepping the world to each frame (counted in frames, or in 60 Hz steps for a still).
    Simulate,
    /// Submitting frames to the GPU and waiting for them.
    Render,
    /// Handing finished frames to their sinks (files, video, comparison).
    Encode,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 3] = [Stage::Simulate, Stage::Render, Stage::Encode];

    /// The stage's name in progress lines.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Simulate => "simulate",
            Stage::Render => "render",
            Stage::Encode => "encode",
        }
    }
}

/// Receives progress and remarks from long work. Every method has a default that ignores it.
pub trait Reporter {
    /// `stage` begins, with `total` items to do.
    fn begin(&mut self, stage: Stage, total: u64) {
        let _ = (stage, total);
    }

    /// `count` more items of `stage` are done.
    fn advance(&mut self, stage: Stage, count: u64) {
        let _ = (stage, count);
    }

    /// `stage` is over.
    fn end(&mut self, stage: Stage) {
        let _ = stage;
    }

    /// Something is probably wrong but the work goes on (e.g. references made on another GPU).
    fn warning(&mut self, message: &str) {
        let _ = message;
    }

    /// Something the user may want to know (e.g. a missing reference was created).
    fn note(&mut self, message: &str) {
        let _ = message;
    }
}

/// A reporter that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Reporter for Silent {}

/// A reporter that keeps what it was told, for tests and for callers that show it later.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recorded {
    /// `(stage, total)` of each `begin`.
    pub begun: Vec<(Stage, u64)>,
    /// Items done per stage, in [`Stage::ALL`] order.
    pub done: [u64; 3],
    /// Stages ended, in order.
    pub ended: Vec<Stage>,
    /// Warnings, in order.
    pub warnings: Vec<String>,
    /// Notes, in order.
    pub notes: Vec<String>,
}

impl Reporter for Recorded {
    fn begin(&mut self, stage: Stage, total: u64) {
        self.begun.push((stage, total));
    }

    fn advance(&mut self, stage: Stage, count: u64) {
        self.done[stage as usize] += count;
    }

    fn end(&mut self, stage: Stage) {
        self.ended.push(stage);
    }

    fn warning(&mut self, message: &str) {
        self.warnings.push(message.to_string());
    }

    fn note(&mut self, message: &str) {
        self.notes.push(message.to_string());
    }
}
