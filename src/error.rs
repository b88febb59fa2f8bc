//! The library's error type and the process exit codes it maps to.
//!
//! Each failure says what went wrong and how to fix it; the binary prints the message and exits
//! with the code from [`Error::exit_code`]. Nothing in the library exits the process.

use crate::cli::FlagError;
use crate::gpu::GpuError;
use crate::scene::SceneErrors;
use crate::timeline::RangeError;
use std::path::PathBuf;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for a failure while working (GPU, disk).
pub const EXIT_FAILURE: i32 = 1;
/// Exit code for bad input: scene file, flags, ranges.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code of `check` and `compare` when images differ beyond the tolerance.
pub const EXIT_DIFFERENCES: i32 = 3;
/// Exit code after Ctrl-C.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Everything that can stop a fogbank command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The scene could not be loaded.
    #[error("{0}")]
    Scene(#[from] SceneErrors),
    /// A `--frames` value could not be read.
    #[error("{0}")]
    Range(#[from] RangeError),
    /// Another flag could not be read.
    #[error("{0}")]
    Flag(#[from] FlagError),
    /// A request that does not fit the scene, e.g. a frame past the clip's end.
    #[error("{0}")]
    Usage(String),
    /// The GPU failed or is missing.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An image could not be encoded.
    #[error("cannot encode {}: {message}", path.display())]
    Encode {
        /// The file being made.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A video could not be written.
    #[error(transparent)]
    Video(#[from] crate::output::video::VideoError),
    /// A contact sheet could not be made.
    #[error(transparent)]
    Sheet(#[from] crate::output::sheet::SheetError),
    /// `check` or `compare` found differences beyond the tolerance (details already printed).
    #[error("{0}")]
    Differences(String),
    /// The user pressed Ctrl-C; finished files are kept, no partial file is left.
    #[error("interrupted: {0} frames were written completely, none partially")]
    Interrupted(usize),
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Scene(_) | Error::Range(_) | Error::Flag(_) | Error::Usage(_) => EXIT_BAD_INPUT,
            Error::Interrupted(_) => EXIT_INTERRUPTED,
            Error::Differences(_) => EXIT_DIFFERENCES,
            Error::Video(
                crate::output::video::VideoError::UnknownFormat { .. }
                | crate::output::video::VideoError::Settings(_),
            ) => EXIT_BAD_INPUT,
            Error::Gpu(_)
            | Error::Write { .. }
            | Error::Encode { .. }
            | Error::Video(_)
            | Error::Sheet(_) => EXIT_FAILURE,
        }
    }
}
