//! The library's error type, and the one place that maps a failure to a process exit code.
//!
//! Every failure is a typed variant that keeps its cause as a source chain (an
//! `std::io::Error`, a [`GpuError`], a snapshot's checksum…), so a caller can tell a full disk
//! from a typo in a scene. [`Error::kind`] sorts the variants into the four outcomes the
//! command line promises (see the README's exit codes): a failure while working, bad input,
//! differences found by `check`/`compare`, and an interruption. Nothing in the library exits
//! the process; the binary prints [`Error::report`] and exits with [`Error::exit_code`].

use crate::compare::CompareError;
use crate::gpu::GpuError;
use crate::output::sheet::SheetError;
use crate::output::video::VideoError;
use crate::playback::CacheError;
use crate::scene::SceneErrors;
use crate::timeline::RangeError;
use std::path::PathBuf;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for a failure while working (GPU, disk, encoder).
pub const EXIT_FAILURE: i32 = 1;
/// Exit code for bad input: scene file, flags, ranges, missing references, a stale cache.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code of `check` and `compare` when images differ beyond the tolerance.
pub const EXIT_DIFFERENCES: i32 = 3;
/// Exit code after SIGINT (Ctrl-C): 128 + 2, as shells report it. Every stop signal exits
/// with 128 + its number: SIGTERM 143, SIGHUP 129 (see [`ErrorKind::Interrupted`]).
pub const EXIT_INTERRUPTED: i32 = 128 + crate::interrupt::SIGINT;

/// The four outcomes of a failed command, each with its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Something failed while working: the GPU, the disk, an encoder (exit 1).
    Failure,
    /// The input cannot work: scene file, flags, ranges, references, cache (exit 2).
    BadInput,
    /// `check` or `compare` found differences beyond the tolerance (exit 3).
    Differences,
    /// The run was stopped by this signal (exit 128 + its number: SIGINT 130, SIGTERM 143,
    /// SIGHUP 129).
    Interrupted(i32),
}

impl ErrorKind {
    /// The process exit code of this outcome.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Failure => EXIT_FAILURE,
            ErrorKind::BadInput => EXIT_BAD_INPUT,
            ErrorKind::Differences => EXIT_DIFFERENCES,
            ErrorKind::Interrupted(signal) => 128 + signal,
        }
    }
}

/// Everything that can stop a fogbank command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The scene could not be loaded (its own rendering names file, line, field and fix).
    #[error("{0}")]
    Scene(#[from] SceneErrors),
    /// A `--frames` value could not be read.
    #[error("{0}")]
    Range(#[from] RangeError),
    /// Another flag could not be read.
    #[error("{0}")]
    Flag(#[from] FlagError),
    /// A request that does not fit the scene or the other flags, e.g. a frame past the clip's
    /// end or `--layers` with PNG.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The golden folder does not exist and `CI=true` forbids creating it.
    #[error(
        "the golden folder {} does not exist, and under CI=true references are never \
         created; bless them locally with `fogbank check … --golden {} --bless` and commit them",
        dir.display(), dir.display()
    )]
    GoldenFolderMissing {
        /// The folder named by `--golden`.
        dir: PathBuf,
    },
    /// Reference frames are missing and `CI=true` forbids creating them.
    #[error(
        "{} reference frame{} missing in {} ({}); under CI=true references are never created: \
         bless them locally with --bless and commit them",
        files.len(), if files.len() == 1 { " is" } else { "s are" }, dir.display(), files.join(", ")
    )]
    MissingReferences {
        /// The golden folder.
        dir: PathBuf,
        /// The missing file names.
        files: Vec<String>,
    },
    /// `check --accept` refused: no failed check is recorded, its pictures are missing, or
    /// they were made with other settings.
    #[error("cannot accept the actual pictures in {}: {reason}", dir.display())]
    Accept {
        /// The golden folder.
        dir: PathBuf,
        /// Why, and what to do.
        reason: String,
    },
    /// Standard output could not take what a command printed: its reader went away (see
    /// [`Error::is_closed_pipe`]) or a write failed, e.g. on a full disk.
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] std::io::Error),
    /// The GPU failed or is missing.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The simulation cache could not be read or written, or holds a stale or damaged snapshot.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// An image given to `check` or `compare` could not be read, or a result not written.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// `fogbank watch` could not watch its scene file for changes.
    #[error("cannot watch {} for changes: {source}", path.display())]
    Watch {
        /// The scene file.
        path: PathBuf,
        /// Why.
        source: notify::Error,
    },
    /// `fogbank watch --serve` could not listen on its address.
    #[error("cannot serve the preview page on {addr}: {source}; give another address to --serve")]
    Serve {
        /// The address asked for.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file or folder could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An image could not be encoded.
    #[error("cannot encode {}: {source}", path.display())]
    Encode {
        /// The file being made.
        path: PathBuf,
        /// The encoder's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A value could not be written out as text (the resolved scene as RON).
    #[error("cannot write the {what} as text: {source}")]
    Serialize {
        /// What was being written.
        what: &'static str,
        /// The serializer's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The encoder threads stopped before every frame was handed to them.
    #[error("the image encoder threads stopped before the last frame was written")]
    EncoderStopped,
    /// A video could not be written.
    #[error(transparent)]
    Video(#[from] VideoError),
    /// A contact sheet could not be made.
    #[error(transparent)]
    Sheet(#[from] SheetError),
    /// `check` or `compare` found differences beyond the tolerance (details already printed).
    #[error("{0}")]
    Differences(String),
    /// The run was stopped by a signal; finished files are kept, no partial file is left.
    #[error(
        "interrupted by {}: {written} files were written completely, none partially",
        crate::interrupt::signal_name(*signal)
    )]
    Interrupted {
        /// Files written before the interruption.
        written: usize,
        /// The signal that stopped the run (SIGINT, SIGTERM, SIGHUP).
        signal: i32,
    },
}

/// A flag value that could not be read: the flag, the value given, and how to write it.
///
/// It lives here, not in `cli`, so that the library's errors do not depend on the command
/// line: `cli` builds it, and nothing below `cli` imports `cli`.
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

/// A request that cannot work with this scene or with the other flags. Each message says how
/// to fix it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// `--frames` reaches past the clip.
    #[error(
        "--frames asks for frame {last}, but the clip has {count} frames (0..{count}); ask for \
         fewer or lengthen it with --set output.frames={}", u64::from(*last) + 1
    )]
    FrameBeyondClip {
        /// The last frame asked for.
        last: u32,
        /// Frames in the clip.
        count: u32,
    },
    /// `--layers` without `--format exr`.
    #[error(
        "--layers writes the fog (fog_NNNN.exr) and the weather (weather_NNNN.exr) as linear \
         layers with alpha, which PNG cannot hold: add --format exr"
    )]
    LayersNeedExr,
    /// `--layers` with `--no-frames`.
    #[error(
        "--layers writes fog_NNNN.exr (and weather_NNNN.exr) beside the frames and --no-frames \
         writes no frames: drop --no-frames (or --layers)"
    )]
    LayersWithoutFrames,
    /// `--layers` with the fog at half resolution.
    #[error(
        "--layers writes the fog alone at full resolution and `output.fog_resolution` (or \
         --fog-resolution) is Half: use --fog-resolution full with --layers"
    )]
    LayersAtHalfFog,
    /// A shutter open with fewer than two samples a pixel.
    #[error(
        "the shutter is open for {shutter} of each frame with {samples} sample a pixel: motion \
         blur spreads a frame's samples over the shutter's interval, so it needs at least two; \
         add --samples 16 (or --shutter 0)"
    )]
    ShutterWithoutSamples {
        /// The shutter asked for.
        shutter: f32,
        /// Samples a pixel asked for.
        samples: u32,
    },
    /// More samples at the edges and on every pixel, both.
    #[error(
        "{samples} samples on every pixel and {edge_samples} at the edges: choose one, \
         --samples for every pixel or --edge-samples for the edges alone"
    )]
    EdgeSamplesWithSamples {
        /// Samples a pixel asked for.
        samples: u32,
        /// Samples a pixel at an edge asked for.
        edge_samples: u32,
    },
    /// `--layers` with more than one sample a pixel.
    #[error(
        "--layers writes the fog and the weather as single-sample layers and `output.samples` \
         or `output.edge_samples` (--samples, --edge-samples) is {samples}: render the layers \
         with --samples 1 and no --edge-samples"
    )]
    LayersWithSamples {
        /// Samples a pixel asked for.
        samples: u32,
    },
    /// A contact sheet of too many stills.
    #[error(
        "--frames chooses {count} stills; a sheet takes at most {max}: choose fewer, e.g. every \
         tenth frame with a comma list"
    )]
    TooManyStills {
        /// Stills asked for.
        count: usize,
        /// The most a sheet takes.
        max: usize,
    },
    /// `--columns 0`.
    #[error("--columns must be at least 1")]
    NoColumns,
    /// `--thumb-width 0`.
    #[error("--thumb-width must be at least 1 pixel")]
    NoThumbWidth,
    /// `--max-diff`, `--pixel-budget` or `--min-ssim` out of range.
    #[error("tolerance flags: {0}")]
    Tolerance(String),
    /// A mask that does not fit its pictures.
    #[error("{0}")]
    Mask(String),
    /// A check asks for another reference format than its folder's golden.json records.
    #[error(
        "{sidecar} records {recorded} references, but this check asks for --format {asked}: \
         give --format {recorded} (or leave --format out) to check them, or bless the folder \
         again with --bless --format {asked}",
        sidecar = sidecar.display()
    )]
    GoldenFormat {
        /// The folder's golden.json.
        sidecar: std::path::PathBuf,
        /// The format it records.
        recorded: &'static str,
        /// The format asked for.
        asked: &'static str,
    },
    /// A `--chunk` value that is not `I/N` or `auto`.
    #[error(
        "--chunk {text}: write the slice as I/N, counting I from 0 (e.g. --chunk 0/4 .. 3/4), \
         or --chunk auto inside a Slurm job array or a Kubernetes Indexed Job"
    )]
    ChunkSyntax {
        /// The text given.
        text: String,
    },
    /// `--chunk I/N` with `I >= N` or `N = 0`.
    #[error(
        "--chunk {index}/{count}: {}",
        if *count == 0 {
            "the number of chunks must be at least 1, e.g. --chunk 0/4".to_string()
        } else {
            format!("chunks count from 0, so with {count} chunks the index runs 0..={}", count - 1)
        }
    )]
    ChunkOutOfRange {
        /// The chunk asked for.
        index: u64,
        /// The number of chunks.
        count: u64,
    },
    /// `--chunk auto` outside a job array.
    #[error(
        "--chunk auto: neither SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (a Slurm job \
         array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; run inside one, or \
         give the chunk as --chunk I/N"
    )]
    ChunkAutoOutsideArray,
    /// `--chunk auto` in a Kubernetes Indexed Job without `--chunks`.
    #[error(
        "--chunk auto: JOB_COMPLETION_INDEX gives this task's index but not the number of \
         chunks: add --chunks N with the job's `completions`"
    )]
    ChunkAutoNeedsCount,
    /// `simulate --probe X,Z` outside the square the fluid covers.
    #[error(
        "--probe {x},{z} is outside the fog area: the fluid covers x and z in -{half}..={half} \
         (fog.area = {}); probe a point inside, or widen the area with --set fog.area={}",
        half * 2.0, (x.abs().max(z.abs()) * 2.0).ceil()
    )]
    ProbeOutsideFog {
        /// The point's x, world units.
        x: f32,
        /// The point's z, world units.
        z: f32,
        /// Half the fog area's side, world units.
        half: f32,
    },
    /// `--skip-existing` with a video or without frame files.
    #[error(
        "--skip-existing keeps frame files that are already there, but a video needs every \
         frame rendered: drop --video (encode the finished frames afterwards) or \
         --skip-existing"
    )]
    SkipExistingWithVideo,
    /// `--gpu INDEX` past the adapters there are.
    #[error(
        "--gpu {index}: there is no adapter {index}{}; pick one of `fogbank info`'s \
         indexes (also through FOGBANK_GPU)",
        if adapters.is_empty() {
            " (no adapter at all)".to_string()
        } else {
            format!(", the adapters are: {}", adapters.iter().enumerate()
                .map(|(i, name)| format!("{i}: {name}")).collect::<Vec<_>>().join(", "))
        }
    )]
    NoSuchGpu {
        /// The index asked for.
        index: usize,
        /// The adapters there are, in `fogbank info` order.
        adapters: Vec<String>,
    },
    /// `--chunk auto` with an environment variable that is not a whole number.
    #[error(
        "--chunk auto: {variable}={value} is not a whole number; run inside a job array that sets it, or give --chunk I/N"
    )]
    ChunkAutoBadVariable {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
}

impl Error {
    /// The error of a run the loops stopped after `written` files because a stop signal
    /// arrived ([`crate::interrupt::signal`]; SIGINT if none is recorded).
    pub fn interrupted(written: usize) -> Self {
        Error::Interrupted {
            written,
            signal: crate::interrupt::signal().unwrap_or(crate::interrupt::SIGINT),
        }
    }

    /// Which of the four outcomes this failure is: the only place that decides it.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Scene(_)
            | Error::Range(_)
            | Error::Flag(_)
            | Error::Request(_)
            | Error::GoldenFolderMissing { .. }
            | Error::MissingReferences { .. }
            | Error::Accept { .. } => ErrorKind::BadInput,
            Error::Cache(e) => match e {
                // A snapshot of another scene, another format version, or a damaged one: the
                // farm should know its cache is stale rather than silently re-simulate.
                CacheError::Snapshot { .. } => ErrorKind::BadInput,
                CacheError::Read { .. } | CacheError::Write { .. } => ErrorKind::Failure,
            },
            Error::Compare(e) => match e {
                CompareError::Encode { .. } | CompareError::Write { .. } => ErrorKind::Failure,
                CompareError::Missing { .. }
                | CompareError::Unreadable { .. }
                | CompareError::NotPng { .. }
                | CompareError::NotExr { .. }
                | CompareError::BadBuffer { .. }
                | CompareError::Sidecar { .. } => ErrorKind::BadInput,
            },
            Error::Video(e) if e.is_bad_input() => ErrorKind::BadInput,
            Error::Sheet(e) if e.is_bad_input() => ErrorKind::BadInput,
            Error::Differences(_) => ErrorKind::Differences,
            Error::Interrupted { signal, .. } => ErrorKind::Interrupted(*signal),
            Error::Gpu(_)
            | Error::Watch { .. }
            | Error::Serve { .. }
            | Error::Stdout(_)
            | Error::Write { .. }
            | Error::Encode { .. }
            | Error::Serialize { .. }
            | Error::EncoderStopped
            | Error::Video(_)
            | Error::Sheet(_) => ErrorKind::Failure,
        }
    }

    /// The process exit code for this error: 0 for a closed pipe (see
    /// [`Error::is_closed_pipe`]), else its kind's.
    pub fn exit_code(&self) -> i32 {
        if self.is_closed_pipe() {
            return EXIT_OK;
        }
        self.kind().exit_code()
    }

    /// Whether standard output's reader went away (`| head`, `| true`): the command stops
    /// quietly, with no message, and exits 0, as ripgrep does. A verdict is kept: `check`
    /// and `compare` still exit 3 when pictures differ.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, Error::Stdout(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// The text the binary prints: `error: …` and each cause the message does not already
    /// quote, one per line. Scene errors come rendered with their own `error:` headers and
    /// source excerpts.
    pub fn report(&self) -> String {
        let message = self.to_string();
        let mut text = match self {
            Error::Scene(_) => message.clone(),
            _ => format!("error: {message}"),
        };
        let mut cause = std::error::Error::source(self);
        // `#[error(transparent)]` variants share their source's text: skip it.
        let mut seen = message;
        while let Some(source) = cause {
            let line = source.to_string();
            if !seen.contains(&line) {
                text.push_str("\n  caused by: ");
                text.push_str(&line);
                seen.push_str(&line);
            }
            cause = source.source();
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_exit_code() {
        let codes = [
            ErrorKind::Failure,
            ErrorKind::BadInput,
            ErrorKind::Differences,
            ErrorKind::Interrupted(crate::interrupt::SIGINT),
            ErrorKind::Interrupted(crate::interrupt::SIGTERM),
            ErrorKind::Interrupted(crate::interrupt::SIGHUP),
        ]
        .map(ErrorKind::exit_code);
        assert_eq!(codes, [1, 2, 3, 130, 143, 129]);
    }

    #[test]
    fn disk_and_encoder_failures_are_failures_not_bad_input() {
        let disk = Error::Write {
            path: "out/frame_0000.png".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert_eq!(disk.exit_code(), EXIT_FAILURE);
        assert_eq!(Error::EncoderStopped.exit_code(), EXIT_FAILURE);
        let cache_write = Error::Cache(CacheError::Write {
            path: "cache/step_00000060.snap".into(),
            source: std::io::Error::from(std::io::ErrorKind::StorageFull),
        });
        assert_eq!(cache_write.exit_code(), EXIT_FAILURE);
        let diff_write = Error::Compare(CompareError::Write {
            path: "golden/frame_0000.diff.png".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        });
        assert_eq!(diff_write.exit_code(), EXIT_FAILURE);
    }

    #[test]
    fn unreadable_inputs_are_bad_input() {
        let missing = Error::Compare(CompareError::Missing {
            path: "a.png".into(),
        });
        assert_eq!(missing.exit_code(), EXIT_BAD_INPUT);
        let refs = Error::MissingReferences {
            dir: "golden".into(),
            files: vec!["frame_0000.png".into()],
        };
        assert_eq!(refs.exit_code(), EXIT_BAD_INPUT);
        assert_eq!(
            Error::from(RequestError::NoColumns).exit_code(),
            EXIT_BAD_INPUT
        );
    }

    #[test]
    fn report_adds_causes_the_message_does_not_quote() {
        let inner = std::io::Error::other("disk quota exceeded");
        let error = Error::Encode {
            path: "out/a.exr".into(),
            source: Box::new(inner),
        };
        // The message quotes its source: no second line.
        assert_eq!(
            error.report(),
            "error: cannot encode out/a.exr: disk quota exceeded"
        );
        let cache = Error::Cache(CacheError::Read {
            path: "cache".into(),
            source: std::io::Error::other("input/output error"),
        });
        let report = cache.report();
        assert!(report.starts_with("error: cannot read the simulation cache cache"));
        assert_eq!(report.matches("input/output error").count(), 1, "{report}");
    }
}
