//! MP4 (H.264) and WebM (VP9) through an ffmpeg child process: its command line (Rec. 709
//! colour, quality flags), odd sizes padded to even, raw RGBA frames fed through its standard
//! input, and its exit status and last lines of error output turned into [`VideoError`]s.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
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
        let sync = File::open(self.pending.temp()).and_then(|file| {
            file.sync_all()?;
            Ok(file.metadata()?.len())
        });
        let bytes = sync.map_err(|source| self.pending.io_error("write", source))?;
        let path = self.pending.commit()?;
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
mod tests {
    use super::*;
    #[cfg(unix)]
    use crate::output::video::test_support::fake_ffmpeg;
    use crate::output::video::test_support::{
        ffmpeg_tools, moving_gradient, names_in, settings, temp_dir,
    };
    use crate::output::video::{VideoReport, open_video};
    use std::fs;

    /// `ffprobe -count_frames` as JSON.
    fn probe(ffprobe: &Path, file: &Path) -> serde_json::Value {
        let output = Command::new(ffprobe)
            .args([
                "-v",
                "error",
                "-count_frames",
                "-show_streams",
                "-show_format",
            ])
            .args(["-of", "json"])
            .arg(file)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn encode_clip(path: &Path, format: VideoFormat, width: u32, height: u32) -> VideoReport {
        let mut sink = open_video(path, format, width, height, 10, &settings(10)).unwrap();
        for i in 0..10 {
            sink.push(&moving_gradient(i, width, height)).unwrap();
        }
        sink.finish().unwrap()
    }

    fn check_probe(ffprobe: &Path, path: &Path, codec: &str, width: u32, height: u32) {
        let info = probe(ffprobe, path);
        let stream = &info["streams"][0];
        assert_eq!(info["streams"].as_array().unwrap().len(), 1, "video only");
        assert_eq!(stream["codec_name"], codec);
        assert_eq!(stream["pix_fmt"], "yuv420p");
        assert_eq!(stream["width"], width);
        assert_eq!(stream["height"], height);
        assert_eq!(stream["nb_read_frames"], "10");
        assert_eq!(stream["color_space"], "bt709");
        assert_eq!(stream["color_primaries"], "bt709");
        assert_eq!(stream["color_transfer"], "bt709");
        let duration: f64 = info["format"]["duration"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((duration - 1.0).abs() < 0.15, "duration {duration}");
    }

    #[test]
    fn ffmpeg_arguments_carry_codec_colour_and_quality() {
        let out = Path::new("/tmp/.clip.mp4.1.tmp");
        let text = |args: Vec<OsString>| {
            args.iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mp4 = text(ffmpeg_args(VideoFormat::Mp4, 66, 38, &settings(24), out));
        for needle in [
            "-f rawvideo -pix_fmt rgba -video_size 66x38 -framerate 24 -i pipe:0",
            "out_color_matrix=bt709:out_range=tv",
            "-c:v libx264 -preset medium -crf 18",
            "-pix_fmt yuv420p",
            "-colorspace bt709 -color_primaries bt709 -color_trc bt709",
            "-movflags +faststart -f mp4 /tmp/.clip.mp4.1.tmp",
        ] {
            assert!(mp4.contains(needle), "{needle:?} missing from {mp4}");
        }
        let custom = VideoSettings {
            fps: 30,
            crf: Some(40),
            preset: Some("1".into()),
        };
        let webm = text(ffmpeg_args(VideoFormat::WebM, 64, 36, &custom, out));
        assert!(webm.contains("-c:v libvpx-vp9 -crf 40 -b:v 0"), "{webm}");
        assert!(webm.contains("-cpu-used 1") && webm.ends_with("-f webm /tmp/.clip.mp4.1.tmp"));
        assert!(!webm.contains("faststart"));
    }

    #[test]
    fn odd_sizes_are_padded_by_repeating_the_edge() {
        assert_eq!(even_size(65, 37), (66, 38));
        assert_eq!(even_size(64, 36), (64, 36));
        // 3×1 frame, pixels 1, 2, 3 (one byte value each) → 4×2.
        let frame: Vec<u8> = [1u8, 2, 3].iter().flat_map(|&v| [v, v, v, 255]).collect();
        let mut out = Vec::new();
        pad_frame(&frame, 3, 1, 4, 2, &mut out);
        let values: Vec<u8> = out.chunks_exact(4).map(|p| p[0]).collect();
        assert_eq!(values, vec![1, 2, 3, 3, 1, 2, 3, 3]);
    }

    #[cfg(unix)]
    #[test]
    fn a_failing_encoder_leaves_nothing_and_quotes_it() {
        // Stands in for ffmpeg failing late (disk full): it writes a partial file at its last
        // argument, reads all input, complains and exits 1.
        let dir = temp_dir("fake-fail");
        let tools = dir.join("tools");
        fs::create_dir_all(&tools).unwrap();
        let fake = fake_ffmpeg(
            &tools,
            "for a; do last=$a; done\n\
             echo partial > \"$last\"\n\
             cat > /dev/null\n\
             echo 'av_interleaved_write_frame(): No space left on device' >&2\n\
             exit 1",
        );
        let target = dir.join("clip.mp4");
        let pending = PendingFile::new(&target);
        let mut sink =
            FfmpegSink::spawn(&fake, pending, VideoFormat::Mp4, 9, 5, &settings(10)).unwrap();
        for i in 0..3 {
            sink.push(&moving_gradient(i, 9, 5)).unwrap();
        }
        let err = Box::new(sink).finish().unwrap_err();
        let text = err.to_string();
        assert!(text.contains("exited with code 1"), "{text}");
        assert!(text.contains("No space left on device"), "{text}");
        assert_eq!(names_in(&dir), vec!["tools".to_string()]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_killed_encoder_is_reported_and_cleaned_up() {
        let dir = temp_dir("fake-killed");
        let tools = dir.join("tools");
        fs::create_dir_all(&tools).unwrap();
        let fake = fake_ffmpeg(
            &tools,
            "for a; do last=$a; done\n\
             echo partial > \"$last\"\n\
             cat > /dev/null\n\
             kill -KILL $$",
        );
        let target = dir.join("clip.mp4");
        let mut sink = FfmpegSink::spawn(
            &fake,
            PendingFile::new(&target),
            VideoFormat::Mp4,
            8,
            8,
            &settings(10),
        )
        .unwrap();
        sink.push(&moving_gradient(0, 8, 8)).unwrap();
        let text = Box::new(sink).finish().unwrap_err().to_string();
        assert!(text.contains("was killed by signal 9"), "{text}");
        assert_eq!(names_in(&dir), vec!["tools".to_string()]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn an_encoder_that_dies_early_fails_the_next_push() {
        let dir = temp_dir("fake-die");
        let tools = dir.join("tools");
        fs::create_dir_all(&tools).unwrap();
        let fake = fake_ffmpeg(&tools, "echo 'Unknown encoder' >&2\nexit 8");
        let target = dir.join("clip.webm");
        let mut sink = FfmpegSink::spawn(
            &fake,
            PendingFile::new(&target),
            VideoFormat::WebM,
            64,
            64,
            &settings(10),
        )
        .unwrap();
        // The pipe holds some frames before the closed end shows; a few pushes reach it.
        let mut failure = None;
        for i in 0..50 {
            if let Err(err) = sink.push(&moving_gradient(i, 64, 64)) {
                failure = Some(err);
                break;
            }
        }
        let text = failure
            .expect("a push fails once ffmpeg is gone")
            .to_string();
        assert!(
            text.contains("exited with code 8") && text.contains("Unknown encoder"),
            "{text}"
        );
        drop(sink);
        assert_eq!(names_in(&dir), vec!["tools".to_string()]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mp4_and_webm_have_the_right_streams() {
        let Some((_, ffprobe)) = ffmpeg_tools("mp4_and_webm_have_the_right_streams") else {
            return;
        };
        let dir = temp_dir("encode");
        for (format, codec) in [(VideoFormat::Mp4, "h264"), (VideoFormat::WebM, "vp9")] {
            for (width, height) in [(64, 36), (65, 37)] {
                let path = dir.join(format!("clip_{width}.{}", format.extension()));
                let report = encode_clip(&path, format, width, height);
                let (even_w, even_h) = even_size(width, height);
                assert_eq!((report.width, report.height), (even_w, even_h));
                assert_eq!(report.frames_written, 10);
                assert_eq!(report.bytes, fs::metadata(&path).unwrap().len());
                check_probe(&ffprobe, &path, codec, even_w, even_h);
            }
        }
        assert_eq!(
            names_in(&dir),
            vec!["clip_64.mp4", "clip_64.webm", "clip_65.mp4", "clip_65.webm"]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mp4_colours_survive_the_rec709_round_trip() {
        let Some((ffmpeg, _)) = ffmpeg_tools("mp4_colours_survive_the_rec709_round_trip") else {
            return;
        };
        // A saturated colour: decoding with the wrong matrix (Rec. 601) moves it by > 10.
        let colour = [200u8, 30, 60, 255];
        let (width, height) = (32, 32);
        let dir = temp_dir("colour");
        let path = dir.join("flat.mp4");
        let mut sink =
            open_video(&path, VideoFormat::Mp4, width, height, 3, &settings(10)).unwrap();
        for i in 0..3 {
            sink.push(&Frame {
                frame_index: i,
                width,
                height,
                rgba8: colour.repeat((width * height) as usize),
                linear_f16: None,
                fog_f16: None,
            })
            .unwrap();
        }
        sink.finish().unwrap();
        let output = Command::new(&ffmpeg)
            .args(["-v", "error", "-i"])
            .arg(&path)
            .args([
                "-vf",
                "scale=in_color_matrix=bt709:in_range=tv",
                "-frames:v",
                "1",
            ])
            .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            .output()
            .unwrap();
        assert!(output.status.success());
        let centre = ((16 * width + 16) * 3) as usize;
        let decoded = &output.stdout[centre..centre + 3];
        for c in 0..3 {
            let diff = (decoded[c] as i32 - colour[c] as i32).abs();
            assert!(diff <= 4, "channel {c}: {decoded:?} vs {colour:?}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failing_ffmpeg_leaves_no_file_and_says_why() {
        let Some((ffmpeg, _)) = ffmpeg_tools("a_failing_ffmpeg_leaves_no_file_and_says_why") else {
            return;
        };
        let dir = temp_dir("bad-preset");
        let target = dir.join("clip.mp4");
        let bad = VideoSettings {
            fps: 10,
            crf: None,
            preset: Some("bogus".into()),
        };
        // open_video refuses this preset up front; go round it to see ffmpeg's own failure.
        assert!(open_video(&target, VideoFormat::Mp4, 64, 36, 10, &bad).is_err());
        let pending = PendingFile::new(&target);
        let mut sink = FfmpegSink::spawn(&ffmpeg, pending, VideoFormat::Mp4, 64, 36, &bad).unwrap();
        let mut result = Ok(());
        for i in 0..10 {
            result = sink.push(&moving_gradient(i, 64, 36));
            if result.is_err() {
                break;
            }
        }
        let err = match result {
            Err(err) => err,
            Ok(()) => Box::new(sink).finish().unwrap_err(),
        };
        let text = err.to_string();
        assert!(text.contains("ffmpeg exited with code"), "{text}");
        assert!(
            text.contains("bogus"),
            "ffmpeg's own message is quoted: {text}"
        );
        assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dropping_an_unfinished_video_stops_ffmpeg_and_cleans_up() {
        let Some(_) = ffmpeg_tools("dropping_an_unfinished_video_stops_ffmpeg_and_cleans_up")
        else {
            return;
        };
        let dir = temp_dir("drop");
        let target = dir.join("clip.mp4");
        let mut sink = open_video(&target, VideoFormat::Mp4, 64, 36, 10, &settings(10)).unwrap();
        for i in 0..3 {
            sink.push(&moving_gradient(i, 64, 36)).unwrap();
        }
        assert_eq!(
            names_in(&dir).len(),
            1,
            "the hidden temporary file exists meanwhile"
        );
        drop(sink);
        assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        let text = b"one\n\ntwo\nthree\nfour" as &[u8];
        assert_eq!(tail_lines(text, 2), vec!["three", "four"]);
        assert_eq!(tail_lines(text, 10), vec!["one", "two", "three", "four"]);
    }
}
