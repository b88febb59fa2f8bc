//! Why a video could not be written: one typed error for every format, each message saying
//! how to fix it, with the underlying I/O or encoder error kept as its source.
//!
//! [`VideoError::is_bad_input`] tells the two kinds apart: a request that can never work
//! (unknown extension, a flag out of range; exit code 2) and a failure while working (disk,
//! encoder, ffmpeg missing or dying; exit code 1).

use std::io;
use std::path::PathBuf;

use super::FFMPEG_ENV;

/// Why a video could not be written. Each message says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    /// The extension names no supported format.
    #[error(
        "cannot tell the video format of {}: use a file name ending in .mp4, .webm, .gif or \
         .png (animated PNG)",
        path.display()
    )]
    UnknownFormat {
        /// The path given.
        path: PathBuf,
    },
    /// No ffmpeg on `PATH`.
    #[error(
        "ffmpeg was not found on PATH; it is needed to write .mp4 and .webm. Install it \
         (Debian/Ubuntu: `sudo apt-get install ffmpeg`, Fedora: `sudo dnf install ffmpeg`, \
         macOS: `brew install ffmpeg`) or set {FFMPEG_ENV} to its path; or write .gif or .png \
         (animated PNG), which need no ffmpeg"
    )]
    FfmpegNotFound,
    /// `FOGBANK_FFMPEG` names something that is not an executable file.
    #[error(
        "{FFMPEG_ENV} is {}, which is not an executable file: point it at ffmpeg or unset it",
        path.display()
    )]
    FfmpegEnvInvalid {
        /// The value of the variable.
        path: PathBuf,
    },
    /// ffmpeg lacks the encoder the format needs.
    #[error(
        "{} has no {encoder} encoder, which {format} needs: install an ffmpeg built with it \
         (Debian/Ubuntu's `sudo apt-get install ffmpeg` has it) or write .gif or .png instead",
        ffmpeg.display()
    )]
    EncoderMissing {
        /// The ffmpeg asked.
        ffmpeg: PathBuf,
        /// The encoder missing, e.g. `libx264`.
        encoder: &'static str,
        /// The format's name.
        format: &'static str,
    },
    /// ffmpeg could not be started.
    #[error("cannot run {}: {source}", ffmpeg.display())]
    FfmpegStart {
        /// The program.
        ffmpeg: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// ffmpeg failed; nothing was left under the target name.
    #[error(
        "ffmpeg {status} while writing {}, so no video was written. ffmpeg said:\n{stderr_tail}",
        path.display()
    )]
    FfmpegFailed {
        /// The video that was being made.
        path: PathBuf,
        /// How it ended: "exited with code 1", "was killed by signal 9", …
        status: String,
        /// The last lines of ffmpeg's error output.
        stderr_tail: String,
    },
    /// A file operation failed.
    #[error("cannot {action} {}: {source} (is the folder there and writable, the disk not full?)", path.display())]
    Io {
        /// What was being done: "create", "write", "rename into place".
        action: &'static str,
        /// The video being made.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A native encoder (GIF, animated PNG) refused the data.
    #[error("cannot encode {}: {source}", path.display())]
    Encode {
        /// The video being made.
        path: PathBuf,
        /// The encoder's own error.
        #[source]
        source: EncoderError,
    },
    /// `--fps`, `--crf` or `--preset` do not fit the format.
    #[error("{0}")]
    Settings(String),
    /// A frame of another size than the video.
    #[error(
        "frame {frame_index} is {frame_width}×{frame_height} but the video is {width}×{height}: \
         every frame of a video must have the same size"
    )]
    FrameSize {
        /// The frame's number.
        frame_index: u32,
        /// The frame's width.
        frame_width: u32,
        /// The frame's height.
        frame_height: u32,
        /// The video's width.
        width: u32,
        /// The video's height.
        height: u32,
    },
    /// The picture is too large for the format.
    #[error(
        "{} would be {width}×{height}, but the format allows at most {max} pixels each way: \
         render smaller (--size) or choose .mp4, .webm or .png",
        path.display()
    )]
    TooLarge {
        /// The video being made.
        path: PathBuf,
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// Largest width or height allowed.
        max: u32,
    },
    /// `finish` with fewer frames pushed than the video was opened for (an animated PNG
    /// states its frame count before the first frame).
    #[error(
        "{} was opened for {expected} frames but {pushed} were rendered, so it was not written",
        path.display()
    )]
    FrameCount {
        /// The video that would have been made.
        path: PathBuf,
        /// Frames announced when the video was opened.
        expected: u32,
        /// Frames pushed.
        pushed: u32,
    },
    /// `finish` with no frame pushed.
    #[error("no frames were rendered, so {} was not written", path.display())]
    NoFrames {
        /// The video that would have been made.
        path: PathBuf,
    },
    /// The sink was used after it had failed or finished (a bug in the caller).
    #[error("the video encoder was used after it had stopped")]
    AlreadyFinished,
}

impl VideoError {
    /// True when the request itself was wrong (the file's extension names no format, or
    /// `--fps`, `--crf` or `--preset` do not fit it): fixing the command line fixes it, and
    /// nothing was started. False for failures while working: the disk, an encoder, a
    /// missing or failing ffmpeg, a frame of the wrong size from the renderer.
    pub fn is_bad_input(&self) -> bool {
        match self {
            VideoError::UnknownFormat { .. } | VideoError::Settings(_) => true,
            VideoError::FfmpegNotFound
            | VideoError::FfmpegEnvInvalid { .. }
            | VideoError::EncoderMissing { .. }
            | VideoError::FfmpegStart { .. }
            | VideoError::FfmpegFailed { .. }
            | VideoError::Io { .. }
            | VideoError::Encode { .. }
            | VideoError::FrameSize { .. }
            | VideoError::FrameCount { .. }
            | VideoError::TooLarge { .. }
            | VideoError::NoFrames { .. }
            | VideoError::AlreadyFinished => false,
        }
    }
}

/// The error of the native encoder that refused a frame or the file's end. I/O failures do
/// not come here: they become [`VideoError::Io`], with the hint about folders and disk space.
#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    /// From the `png` crate (animated PNG).
    #[error(transparent)]
    Png(png::EncodingError),
    /// From the `gif` crate.
    #[error(transparent)]
    Gif(gif::EncodingError),
    /// A thread compressing frames stopped with this message (a bug in fogbank).
    #[error("an encoder thread stopped: {0}")]
    Worker(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn only_requests_that_can_never_work_are_bad_input() {
        let path = PathBuf::from("clip.mov");
        assert!(VideoError::UnknownFormat { path: path.clone() }.is_bad_input());
        assert!(VideoError::Settings("--crf 99".into()).is_bad_input());
        assert!(!VideoError::FfmpegNotFound.is_bad_input());
        let io = VideoError::Io {
            action: "write",
            path: path.clone(),
            source: io::Error::other("disk full"),
        };
        assert!(!io.is_bad_input());
        assert!(io.source().is_some(), "the io::Error is kept as the source");
        assert!(!VideoError::NoFrames { path }.is_bad_input());
    }

    #[test]
    fn encoder_errors_keep_their_cause() {
        let err = VideoError::Encode {
            path: PathBuf::from("clip.gif"),
            source: EncoderError::Gif(gif::EncodingError::OutOfMemory),
        };
        let text = err.to_string();
        assert!(text.starts_with("cannot encode clip.gif: "), "{text}");
        let source = err.source().expect("the encoder error is the source");
        assert!(source.to_string().len() > 3, "{source}");
    }
}
