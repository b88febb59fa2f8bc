//! Animated GIF (`--video clip.gif`): the format that plays everywhere, chat and issue trackers
//! included, at the price of 256 colours a frame ([`crate::output::gif`] makes them).
//!
//! Timing: GIF delays are whole centiseconds, so each frame's delay is rounded such that the
//! running total stays on the exact clock (at 30 fps: 3, 4, 3, 3, 4, 3 … hundredths). Browsers
//! treat delays under 2 cs as 10 cs, so above 50 fps frames are dropped to keep exactly 50 a
//! second, each lasting 2 cs; the clip's length is unchanged. See [`frame_delay_cs`].
//! The animation loops forever. The `gif` crate writes the file.
//!
//! Each frame has its own palette, so frames are quantised and LZW-compressed in parallel, one
//! frame per frame thread, the colour count and the mapping in bands of rows on the row pool
//! (`ordered.rs`), and appended in order by the `gif` crate
//! (`Encoder::write_lzw_pre_encoded_frame`): the same bytes as compressing them one by one,
//! whatever the number of threads.

use std::fs::File;
use std::io::BufWriter;

use super::ordered::{InOrder, Rows, Workers};
use super::{PendingFile, VideoError, VideoReport, VideoSettings, VideoSink, check_frame};
use crate::frame::Frame;
use crate::output::gif::{Quantized, choose_palette, count_colours_banded, map_pixels, quantize};

/// Delay of the frame at `position` in the stream (0 = first frame pushed), in centiseconds,
/// or `None` when the frame is dropped because GIF cannot show it (above 50 fps).
///
/// Up to 50 fps every frame is kept and frame `n` starts at `round(n × 100 / fps)` cs, so
/// rounding never accumulates. Above 50 fps the first frame of each 1/50 s slot is kept and
/// lasts 2 cs, the shortest delay browsers honour.
pub fn frame_delay_cs(position: u32, fps: u32) -> Option<u16> {
    let fps = fps.max(1) as u64;
    let n = position as u64;
    if fps <= 50 {
        let start = |n: u64| (200 * n + fps) / (2 * fps);
        return Some((start(n + 1) - start(n)) as u16);
    }
    let slot = |n: u64| n * 50 / fps;
    if n == 0 || slot(n) != slot(n - 1) {
        Some(2)
    } else {
        None
    }
}

/// Streams frames into an animated GIF at a temporary path; [`VideoSink::finish`] completes it
/// and renames it into place. Dropping it unfinished deletes the temporary file.
pub struct GifSink {
    encoder: Option<gif::Encoder<BufWriter<File>>>,
    /// Frames being quantised and compressed, handed back in order.
    jobs: InOrder<gif::Frame<'static>>,
    width: u32,
    height: u32,
    fps: u32,
    pushed: u32,
    encoded: u32,
    total_delay_cs: u64,
    /// Last, so the file is closed before an unfinished one is deleted.
    pending: PendingFile,
}

impl GifSink {
    /// The largest width or height a GIF can have.
    pub const MAX_SIZE: u32 = u16::MAX as u32;

    /// Starts a GIF at the temporary path for `pending`'s target, compressing frames on
    /// `workers`.
    pub(crate) fn create(
        pending: PendingFile,
        width: u32,
        height: u32,
        settings: &VideoSettings,
        workers: Workers,
    ) -> Result<Self, VideoError> {
        if width > Self::MAX_SIZE || height > Self::MAX_SIZE {
            return Err(VideoError::TooLarge {
                path: pending.target().to_path_buf(),
                width,
                height,
                max: Self::MAX_SIZE,
            });
        }
        let file = pending.create()?;
        let mut encoder = gif::Encoder::new(
            BufWriter::with_capacity(1 << 20, file),
            width as u16,
            height as u16,
            &[],
        )
        .map_err(|e| pending.gif_error(e))?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| pending.gif_error(e))?;
        let jobs = InOrder::new(workers, pending.target());
        Ok(GifSink {
            encoder: Some(encoder),
            jobs,
            width,
            height,
            fps: settings.fps,
            pushed: 0,
            encoded: 0,
            total_delay_cs: 0,
            pending,
        })
    }
}

impl GifSink {
    /// Appends compressed frames to the file, in order.
    fn write_ready(
        &mut self,
        ready: Vec<Result<gif::Frame<'static>, VideoError>>,
    ) -> Result<(), VideoError> {
        for gif_frame in ready {
            let gif_frame = gif_frame?;
            let encoder = self.encoder.as_mut().ok_or(VideoError::AlreadyFinished)?;
            encoder
                .write_lzw_pre_encoded_frame(&gif_frame)
                .map_err(|e| self.pending.gif_error(e))?;
            self.encoded += 1;
            self.total_delay_cs += gif_frame.delay as u64;
        }
        Ok(())
    }
}

impl VideoSink for GifSink {
    fn push(&mut self, frame: &Frame) -> Result<(), VideoError> {
        check_frame(frame, self.width, self.height)?;
        if self.encoder.is_none() {
            return Err(VideoError::AlreadyFinished);
        }
        let position = self.pushed;
        self.pushed += 1;
        let Some(delay_cs) = frame_delay_cs(position, self.fps) else {
            return Ok(());
        };
        let (width, height, rgba8) = (self.width, self.height, frame.rgba8.clone());
        let ready = self
            .jobs
            .submit(move |rows| Ok(compress_frame_on(rows, width, height, &rgba8, delay_cs)));
        self.write_ready(ready)
    }

    fn finish(mut self: Box<Self>) -> Result<VideoReport, VideoError> {
        let ready = self.jobs.finish();
        self.write_ready(ready)?;
        if self.encoded == 0 {
            return Err(VideoError::NoFrames {
                path: self.pending.target().to_path_buf(),
            });
        }
        let encoder = self.encoder.take().ok_or(VideoError::AlreadyFinished)?;
        let buffered = encoder
            .into_inner()
            .map_err(|e| self.pending.gif_error(e))?;
        let file = buffered
            .into_inner()
            .map_err(|e| self.pending.io_error("write", e.into_error()))?;
        // Closed here; synced and measured by the commit.
        drop(file);
        let (path, bytes) = self.pending.sync_and_commit()?;
        Ok(VideoReport {
            path,
            frames_written: self.encoded,
            width: self.width,
            height: self.height,
            duration_s: self.total_delay_cs as f64 / 100.0,
            bytes,
        })
    }
}

/// One frame as the file stores it: quantised to its own palette ([`quantize`]), LZW-compressed,
/// lasting `delay_cs` hundredths of a second. The bands of rows of the quantiser run on the
/// current rayon pool.
pub fn compress_frame(width: u32, height: u32, rgba8: &[u8], delay_cs: u16) -> gif::Frame<'static> {
    lzw_frame(quantize(rgba8, width), width, height, delay_cs)
}

/// [`compress_frame`] as a frame thread runs it: the mapping, which splits into bands of rows,
/// on the row pool `rows`; the colour count too when bands pay there ([`Rows::bands_pay`]),
/// else in one pass on the calling thread, like the palette and the LZW. The same frame as
/// [`compress_frame`].
fn compress_frame_on(
    rows: &Rows<'_>,
    width: u32,
    height: u32,
    rgba8: &[u8],
    delay_cs: u16,
) -> gif::Frame<'static> {
    let count = if rows.bands_pay() {
        rows.pool.install(|| count_colours_banded(rgba8, true))
    } else {
        count_colours_banded(rgba8, false)
    };
    let choice = choose_palette(count);
    let quantized = rows.pool.install(|| map_pixels(&choice, rgba8, width));
    lzw_frame(quantized, width, height, delay_cs)
}

/// A quantised frame as a GIF frame with its own palette, LZW-compressed.
fn lzw_frame(quantized: Quantized, width: u32, height: u32, delay_cs: u16) -> gif::Frame<'static> {
    let palette: Vec<u8> = quantized.palette.iter().flatten().copied().collect();
    let mut gif_frame = gif::Frame::from_palette_pixels(
        width as u16,
        height as u16,
        quantized.indices,
        palette,
        None,
    );
    gif_frame.delay = delay_cs;
    gif_frame.make_lzw_pre_encoded();
    gif_frame
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::video::test_support::{gradient, settings, temp_dir};
    use crate::output::video::{VideoFormat, open_video, open_video_with};

    #[test]
    fn delays_follow_the_clock() {
        let delays = |fps: u32, frames: u32| -> Vec<Option<u16>> {
            (0..frames).map(|n| frame_delay_cs(n, fps)).collect()
        };
        let total = |d: &[Option<u16>]| d.iter().flatten().map(|&v| v as u32).sum::<u32>();
        assert_eq!(delays(10, 3), vec![Some(10); 3]);
        let thirty = delays(30, 30);
        assert_eq!(
            &thirty[..6],
            &[Some(3), Some(4), Some(3), Some(3), Some(4), Some(3)]
        );
        assert_eq!(total(&thirty), 100);
        assert_eq!(total(&delays(24, 24)), 100);
        assert_eq!(total(&delays(50, 50)), 100);
        let sixty = delays(60, 60);
        assert_eq!(
            sixty.iter().flatten().count(),
            50,
            "60 fps keeps 50 frames a second"
        );
        assert!(sixty.iter().flatten().all(|&d| d == 2));
        assert_eq!(total(&sixty), 100);
        assert_eq!(delays(120, 120).iter().flatten().count(), 50);
        assert!(delays(7, 50).iter().flatten().all(|&d| d >= 14));
    }

    #[test]
    fn writes_a_gif_that_decodes_to_the_right_frames() {
        let dir = std::env::temp_dir().join(format!("fogbank-gif-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("clip.gif");
        let settings = VideoSettings {
            fps: 30,
            crf: None,
            preset: None,
        };
        let (width, height) = (65u32, 37u32);
        let mut sink = open_video(&path, VideoFormat::Gif, width, height, 10, &settings).unwrap();
        let frames: Vec<Vec<u8>> = (0..10).map(|i| gradient(width, height, i * 4)).collect();
        for (i, rgba8) in frames.iter().enumerate() {
            sink.push(&Frame {
                frame_index: 100 + i as u32,
                width,
                height,
                rgba8: rgba8.clone().into(),
                linear_f16: None,
                fog_f16: None,
                weather_f16: None,
            })
            .unwrap();
        }
        let report = sink.finish().unwrap();
        assert_eq!(report.frames_written, 10);
        assert!(
            (report.duration_s - 0.33).abs() < 1e-9,
            "{}",
            report.duration_s
        );

        let file = std::fs::File::open(&path).unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(file).unwrap();
        assert_eq!((decoder.width(), decoder.height()), (65, 37));
        assert_eq!(decoder.repeat(), gif::Repeat::Infinite);
        let mut count = 0;
        let mut delays = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            assert_eq!((frame.width, frame.height), (65, 37));
            let original = &frames[count];
            let mut abs_error = 0u64;
            for (a, b) in frame.buffer.iter().zip(original.iter()) {
                abs_error += (*a as i64 - *b as i64).unsigned_abs();
            }
            let mean = abs_error as f64 / original.len() as f64;
            assert!(mean < 3.0, "frame {count} mean error {mean}");
            delays.push(frame.delay);
            count += 1;
        }
        assert_eq!(count, 10);
        assert_eq!(delays, vec![3, 4, 3, 3, 4, 3, 3, 4, 3, 3]);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("clip.gif")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The GIF the sink made before frames were compressed in parallel: every frame
    /// quantised and written by `Encoder::write_frame`, one after the other.
    fn sequential_gif(frames: &[Vec<u8>], width: u32, height: u32, fps: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        {
            let mut encoder =
                gif::Encoder::new(&mut bytes, width as u16, height as u16, &[]).unwrap();
            encoder.set_repeat(gif::Repeat::Infinite).unwrap();
            for (position, rgba8) in frames.iter().enumerate() {
                let Some(delay) = frame_delay_cs(position as u32, fps) else {
                    continue;
                };
                let quantized = quantize(rgba8, width);
                let palette: Vec<u8> = quantized.palette.iter().flatten().copied().collect();
                let mut frame = gif::Frame::from_palette_pixels(
                    width as u16,
                    height as u16,
                    quantized.indices,
                    palette,
                    None,
                );
                frame.delay = delay;
                encoder.write_frame(&frame).unwrap();
            }
        }
        bytes
    }

    #[test]
    fn parallel_frames_give_the_same_bytes_on_any_thread_count() {
        let dir = temp_dir("gif-threads");
        let (width, height, fps) = (57u32, 31u32, 60u32);
        let frames: Vec<Vec<u8>> = (0..12).map(|i| gradient(width, height, i * 3)).collect();
        let reference = sequential_gif(&frames, width, height, fps);
        for threads in [1, 4] {
            let path = dir.join(format!("clip-{threads}.gif"));
            let mut sink = open_video_with(
                &path,
                VideoFormat::Gif,
                width,
                height,
                frames.len(),
                &settings(fps),
                Some(threads),
            )
            .unwrap();
            for (i, rgba8) in frames.iter().enumerate() {
                sink.push(&Frame {
                    frame_index: i as u32,
                    width,
                    height,
                    rgba8: rgba8.clone().into(),
                    linear_f16: None,
                    fog_f16: None,
                    weather_f16: None,
                })
                .unwrap();
            }
            sink.finish().unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                bytes == reference,
                "{threads} threads differ from one by one"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn oversized_gif_is_refused_before_writing() {
        let dir = std::env::temp_dir().join(format!("fogbank-gif-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let settings = VideoSettings {
            fps: 30,
            crf: None,
            preset: None,
        };
        let err = open_video(
            &dir.join("big.gif"),
            VideoFormat::Gif,
            70_000,
            10,
            3,
            &settings,
        )
        .err()
        .unwrap();
        assert!(err.to_string().contains("65535"), "{err}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
