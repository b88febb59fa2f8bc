//! MP4 (H.264) and WebM (VP9) through an ffmpeg child process: its command line (Rec. 709
//! colour, quality flags), odd sizes padded to even, raw RGBA frames fed through its standard
//! input, and its exit status and last lines of error output turned into [`VideoError`]s.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

use super::settings::{DEFAULT_VP9_CRF, DEFAULT_VP9_SPEED, DEFAULT_X264_CRF, DEFAULT_X264_PRESET};
use super::{
    PendingFile, VideoError, VideoFormat, VideoReport, VideoSettings, VideoSink, check_frame,
};
use crate::frame::Frame;

/// Lines of ffmpeg's error output kept for error messages.
const STDERR_TAIL_LINES: usize = 20;

/// The size ffmpeg is fed: odd dimensions rounded up to even (yuv420p's 2×2 chroma blocks).
pub fn even_size(width: u32, height: u32) -> (u32, u32) {
    (width + width % 2, height + height % 2)
}

/// ffmpeg's command line (without the program) for raw RGBA frames of `width` × `height`
/// (already even) on standard input, written to `output` in `format`.
pub fn ffmpeg_args(
    format: VideoFormat,
    width: u32,
    height: u32,
    settings: &VideoSettings,
    output: &Path,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut push = |items: &[&str]| args.extend(items.iter().map(OsString::from));
    push(&["-hide_banner", "-nostats", "-loglevel", "error", "-y"]);
    // Input: tightly packed 8-bit sRGB RGBA, one frame after another.
    let size = format!("{width}x{height}");
    let fps = settings.fps.to_string();
    push(&["-f", "rawvideo", "-pix_fmt", "rgba", "-video_size", &size]);
    push(&["-framerate", &fps, "-i", "pipe:0", "-an"]);
    // RGB to Rec. 709 limited-range YUV 4:2:0; swscale's default matrix would be Rec. 601.
    push(&[
        "-vf",
        "scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd+full_chroma_int,\
         format=yuv420p",
    ]);
    match format {
        VideoFormat::Mp4 => {
            let crf = settings.crf.unwrap_or(DEFAULT_X264_CRF).to_string();
            let preset = settings.preset.as_deref().unwrap_or(DEFAULT_X264_PRESET);
            push(&["-c:v", "libx264", "-preset", preset, "-crf", &crf]);
        }
        VideoFormat::WebM => {
            let crf = settings.crf.unwrap_or(DEFAULT_VP9_CRF).to_string();
            let speed = settings
                .preset
                .clone()
                .unwrap_or_else(|| DEFAULT_VP9_SPEED.to_string());
            push(&["-c:v", "libvpx-vp9", "-crf", &crf, "-b:v", "0"]);
            push(&["-deadline", "good", "-cpu-used", &speed, "-row-mt", "1"]);
        }
        VideoFormat::Gif | VideoFormat::Apng => {}
    }
    push(&["-pix_fmt", "yuv420p", "-color_range", "tv"]);
    push(&[
        "-colorspace",
        "bt709",
        "-color_primaries",
        "bt709",
        "-color_trc",
        "bt709",
    ]);
    match format {
        VideoFormat::Mp4 => push(&["-movflags", "+faststart", "-f", "mp4"]),
        _ => push(&["-f", "webm"]),
    }
    args.push(output.as_os_str().to_os_string());
    args
}

/// Copies `rgba8` (`width` × `height`) into `out` at `padded_width` × `padded_height`,
/// repeating the last column and row into the padding.
fn pad_frame(
    rgba8: &[u8],
    width: u32,
    height: u32,
    padded_width: u32,
    padded_height: u32,
    out: &mut Vec<u8>,
) {
    out.clear();
    let row_bytes = width as usize * 4;
    let mut last_row_start = 0;
    for row in rgba8.chunks_exact(row_bytes) {
        last_row_start = out.len();
        out.extend_from_slice(row);
        let last_pixel = &row[row_bytes - 4..];
        for _ in width..padded_width {
            out.extend_from_slice(last_pixel);
        }
    }
    let padded_row_bytes = padded_width as usize * 4;
    for _ in height..padded_height {
        out.extend_from_within(last_row_start..last_row_start + padded_row_bytes);
    }
}

/// Feeds frames to an ffmpeg child process writing the temporary file.
pub struct FfmpegSink {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    stderr_reader: Option<JoinHandle<Vec<String>>>,
    width: u32,
    height: u32,
    padded_width: u32,
    padded_height: u32,
    fps: u32,
    frames: u32,
    scratch: Vec<u8>,
    /// Last, so ffmpeg is stopped before an unfinished file is deleted.
    pending: PendingFile,
}

impl FfmpegSink {
    /// Starts `ffmpeg` encoding `format` into `pending`'s temporary path. The temporary file
    /// is created first, so an unwritable folder fails here, before any frame is rendered.
    pub(crate) fn spawn(
        ffmpeg: &Path,
        pending: PendingFile,
        format: VideoFormat,
        width: u32,
        height: u32,
        settings: &VideoSettings,
    ) -> Result<Self, VideoError> {
        let (padded_width, padded_height) = even_size(width, height);
        let args = ffmpeg_args(
            format,
            padded_width,
            padded_height,
            settings,
            pending.temp(),
        );
        Self::spawn_with_args(ffmpeg, pending, &args, width, height, settings.fps)
    }

    fn spawn_with_args(
        ffmpeg: &Path,
        pending: PendingFile,
        args: &[OsString],
        width: u32,
        height: u32,
        fps: u32,
    ) -> Result<Self, VideoError> {
        drop(pending.create()?);
        let mut command = Command::new(ffmpeg);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Own process group: Ctrl-C in the terminal goes to fogbank, not to ffmpeg.
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|source| VideoError::FfmpegStart {
            ffmpeg: ffmpeg.to_path_buf(),
            source,
        })?;
        let stdin = child.stdin.take();
        let stderr_reader = child.stderr.take().map(|stderr| {
            std::thread::Builder::new()
                .name("ffmpeg-stderr".into())
                .spawn(move || tail_lines(stderr, STDERR_TAIL_LINES))
        });
        let stderr_reader = match stderr_reader.transpose() {
            Ok(reader) => reader,
            Err(source) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(pending.io_error("start a thread for", source));
            }
        };
        let (padded_width, padded_height) = even_size(width, height);
        Ok(FfmpegSink {
            child: Some(child),
            stdin,
            stderr_reader,
            width,
            height,
            padded_width,
            padded_height,
            fps,
            frames: 0,
            scratch: Vec::new(),
            pending,
        })
    }

    /// Waits for ffmpeg to exit and collects its last lines of error output.
    fn wait(&mut self) -> Result<(ExitStatus, String), VideoError> {
        self.stdin = None; // end of input
        let child = self.child.as_mut().ok_or(VideoError::AlreadyFinished)?;
        let status = child.wait().map_err(|source| VideoError::FfmpegStart {
            ffmpeg: PathBuf::from("ffmpeg"),
            source,
        });
        self.child = None;
        let lines = self
            .stderr_reader
            .take()
            .and_then(|reader| reader.join().ok())
            .unwrap_or_default();
        Ok((status?, lines.join("\n")))
    }

    /// The error for an ffmpeg that stopped early or exited with an error.
    fn failure(&mut self) -> VideoError {
        match self.wait() {
            Ok((status, stderr_tail)) => VideoError::FfmpegFailed {
                path: self.pending.target().to_path_buf(),
                status: describe_status(status),
                stderr_tail: if stderr_tail.is_empty() {
                    "(nothing)".into()
                } else {
                    stderr_tail
                },
            },
            Err(err) => err,
        }
    }
}

impl VideoSink for FfmpegSink {
    fn push(&mut self, frame: &Frame) -> Result<(), VideoError> {
        check_frame(frame, self.width, self.height)?;
        let bytes: &[u8] = if (self.padded_width, self.padded_height) == (self.width, self.height) {
            &frame.rgba8
        } else {
            pad_frame(
                &frame.rgba8,
                self.width,
                self.height,
                self.padded_width,
                self.padded_height,
                &mut self.scratch,
            );
            &self.scratch
        };
        let stdin = self.stdin.as_mut().ok_or(VideoError::AlreadyFinished)?;
        match stdin.write_all(bytes) {
            Ok(()) => {
                self.frames += 1;
                Ok(())
            }
            // ffmpeg closed its input: it has stopped, and its exit status says why.
            Err(_) => Err(self.failure()),
        }
    }

    fn finish(mut self: Box<Self>) -> Result<VideoReport, VideoError> {
        if self.frames == 0 {
            return Err(VideoError::NoFrames {
                path: self.pending.target().to_path_buf(),
            });
        }
        let (status, stderr_tail) = self.wait()?;
        if !status.success() {
            return Err(VideoError::FfmpegFailed {
                path: self.pending.target().to_path_buf(),
                status: describe_status(status),
                stderr_tail,
            });
        }
        let (path, bytes) = self.pending.sync_and_commit()?;
        Ok(VideoReport {
            path,
            frames_written: self.frames,
            width: self.padded_width,
            height: self.padded_height,
            duration_s: self.frames as f64 / self.fps as f64,
            bytes,
        })
    }
}

impl Drop for FfmpegSink {
    /// An unfinished sink stops ffmpeg; the temporary file goes with `pending`.
    fn drop(&mut self) {
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
    }
}

/// "exited with code 1", "was killed by signal 9".
fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    "stopped abnormally".into()
}

/// Reads `source` to the end, keeping its last `keep` non-empty lines.
fn tail_lines(source: impl Read, keep: usize) -> Vec<String> {
    let mut reader = BufReader::new(source);
    let mut lines = VecDeque::with_capacity(keep + 1);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer).trim_end().to_string();
                if line.is_empty() {
                    continue;
                }
                lines.push_back(line);
                if lines.len() > keep {
                    lines.pop_front();
                }
            }
        }
    }
    lines.into()
}

#[cfg(test)]
mod tests;
