//! Videos from finished frames (`--video FILE`): MP4 and WebM through ffmpeg, GIF and animated
//! PNG natively.
//!
//! The format follows the file's extension ([`VideoFormat::from_path`]). Frames are pushed in
//! order into a [`VideoSink`] while the clip renders, so nothing waits for the whole clip and
//! no temporary PNGs are written:
//!
//! - `.mp4` (H.264, libx264) and `.webm` (VP9, libvpx-vp9) are encoded by an `ffmpeg` found on
//!   `PATH` (or named by `FOGBANK_FFMPEG`), fed raw RGBA frames through its standard input
//!   ([`ffmpeg`]). The picture is converted to `yuv420p` with the Rec. 709 matrix, limited
//!   range, and tagged as Rec. 709 (primaries, transfer, matrix) so players show the colours
//!   fogbank rendered. `yuv420p` needs even sizes: an odd width or height is padded by one
//!   pixel that repeats the last column or row (no black line, nothing cropped);
//!   [`VideoReport`] gives the size written. MP4s get `+faststart` so they play while
//!   downloading. Find ffmpeg with [`preflight()`] before rendering, so a missing ffmpeg is
//!   reported before any work is done.
//! - `.gif` ([`gif`], with the palettes of [`crate::output::gif`]) and `.png` (animated PNG,
//!   [`apng`]) need nothing installed.
//!
//! Every format writes to the hidden temporary path of
//! [`crate::output::atomic::temp_path_for`] and renames it into place only when the encode
//! succeeded (module `pending`). A failed encode (ffmpeg exits with an error or is killed, the disk
//! fills up) and a sink dropped without [`VideoSink::finish`] (an error or Ctrl-C in the frame
//! loop) remove the temporary file and stop ffmpeg: no truncated video is ever left under the
//! requested name. ffmpeg runs in its own process group, so Ctrl-C reaches only fogbank, which
//! then decides whether to finish the clip or drop it.
//!
//! The parts: [`mod@format`] (which video a file name asks for), [`settings`] (flags, defaults,
//! limits), [`mod@preflight`] (finding ffmpeg), [`error`] (what can go wrong), and one module per
//! sink.

pub mod apng;
pub mod error;
pub mod ffmpeg;
pub mod format;
pub mod gif;
pub(crate) mod ordered;
pub(crate) mod pending;
pub mod preflight;
pub mod settings;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod tests_pinned;

use std::path::{Path, PathBuf};

use crate::frame::Frame;

use ordered::Workers;

pub use apng::ApngSink;
pub use error::{EncoderError, VideoError};
pub use ffmpeg::{FfmpegSink, even_size, ffmpeg_args};
pub use format::VideoFormat;
pub use gif::{GifSink, frame_delay_cs};
pub(crate) use pending::{PendingFile, check_frame};
pub use preflight::{
    FFMPEG_ENV, check_encoder, find_ffmpeg, find_ffmpeg_in, find_program_in, preflight,
};
pub use settings::{
    DEFAULT_VP9_CRF, DEFAULT_VP9_SPEED, DEFAULT_X264_CRF, DEFAULT_X264_PRESET, MAX_FPS,
    VideoSettings, X264_PRESETS,
};

/// What a finished video holds.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoReport {
    /// The file written.
    pub path: PathBuf,
    /// Frames stored in the file (a GIF above 50 fps stores fewer than were pushed).
    pub frames_written: u32,
    /// Width of the stored picture (odd sizes are padded to even for MP4 and WebM).
    pub width: u32,
    /// Height of the stored picture.
    pub height: u32,
    /// Playing time, seconds.
    pub duration_s: f64,
    /// Size of the file, bytes.
    pub bytes: u64,
}

/// Where frames go, in order. Formats implement it; [`open_video`] picks one.
pub trait VideoSink {
    /// Adds the next frame. Frames must all have the size the sink was opened with.
    fn push(&mut self, frame: &Frame) -> Result<(), VideoError>;
    /// Completes the file and renames it into place. On error nothing is left behind.
    fn finish(self: Box<Self>) -> Result<VideoReport, VideoError>;
}

/// Opens a sink writing `path` in `format`, `width` × `height` pixels, for a clip of
/// `frame_count` frames (an animated PNG states its frame count before the first frame, so
/// exactly that many must be pushed; the other formats only need it to be at least 1). For
/// MP4 and WebM this finds and starts ffmpeg; all formats create their temporary file now, so
/// an unwritable folder is reported before the first frame.
///
/// GIF and animated PNG frames are compressed on as many threads as rayon's global pool has
/// (its size follows `--threads`); [`open_video_with`] picks another count.
pub fn open_video(
    path: &Path,
    format: VideoFormat,
    width: u32,
    height: u32,
    frame_count: usize,
    settings: &VideoSettings,
) -> Result<Box<dyn VideoSink>, VideoError> {
    open_video_with(path, format, width, height, frame_count, settings, None)
}

/// [`open_video`] with GIF and animated PNG frames compressed on `threads` threads (`None`: as
/// many as rayon's global pool has). The file is the same bytes whatever the count.
pub fn open_video_with(
    path: &Path,
    format: VideoFormat,
    width: u32,
    height: u32,
    frame_count: usize,
    settings: &VideoSettings,
    threads: Option<usize>,
) -> Result<Box<dyn VideoSink>, VideoError> {
    settings.validate(format)?;
    if width == 0 || height == 0 {
        return Err(VideoError::Settings(format!(
            "a video needs a picture at least 1×1, not {width}×{height}"
        )));
    }
    let frame_count = match u32::try_from(frame_count) {
        Ok(0) => {
            return Err(VideoError::NoFrames {
                path: path.to_path_buf(),
            });
        }
        Ok(count) => count,
        Err(_) => {
            return Err(VideoError::Settings(format!(
                "a video holds at most {} frames, not {frame_count}",
                u32::MAX
            )));
        }
    };
    let pending = PendingFile::new(path);
    // Frames are compressed on threads of their own, so the simulation's and the readback's
    // parallel work never queues behind a frame being compressed.
    let workers = || Workers::with_threads(threads.unwrap_or_else(rayon::current_num_threads));
    match format {
        VideoFormat::Mp4 | VideoFormat::WebM => {
            let ffmpeg = preflight(format, settings)?.ok_or(VideoError::FfmpegNotFound)?;
            let sink = FfmpegSink::spawn(&ffmpeg, pending, format, width, height, settings)?;
            Ok(Box::new(sink))
        }
        VideoFormat::Gif => Ok(Box::new(GifSink::create(
            pending,
            width,
            height,
            settings,
            workers()?,
        )?)),
        VideoFormat::Apng => Ok(Box::new(ApngSink::create(
            pending,
            width,
            height,
            frame_count,
            settings,
            workers()?,
        )?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::settings;

    #[test]
    fn unwritable_folder_fails_before_the_first_frame() {
        let missing = Path::new("/nonexistent-fogbank-dir/clip.gif");
        let err = open_video(missing, VideoFormat::Gif, 8, 8, 3, &settings(10))
            .err()
            .unwrap();
        let text = err.to_string();
        assert!(
            text.starts_with("cannot create /nonexistent-fogbank-dir/clip.gif"),
            "{text}"
        );
    }

    #[test]
    fn a_clip_needs_a_picture_and_frames() {
        let path = Path::new("/nonexistent-fogbank-dir/clip.png");
        let err = open_video(path, VideoFormat::Apng, 0, 8, 3, &settings(10)).err();
        assert!(matches!(err, Some(VideoError::Settings(_))), "{err:?}");
        let err = open_video(path, VideoFormat::Apng, 8, 8, 0, &settings(10)).err();
        assert!(matches!(err, Some(VideoError::NoFrames { .. })), "{err:?}");
    }
}
