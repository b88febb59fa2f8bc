//! Animated PNG (`--video clip.png`): lossless, full alpha, plays in every current browser.
//!
//! The `png` crate writes the animation (`acTL`, then `fcTL` + `IDAT` for the first frame and
//! `fcTL` + `fdAT` for each one after), streaming every frame to disk as it arrives, so a
//! long clip never sits in memory. `acTL` states the frame count before any image data,
//! which is why [`super::open_video`] is told how many frames the clip has; finishing with
//! fewer is an error ([`VideoError::FrameCount`]) and leaves no file.
//!
//! Every frame covers the whole canvas, replaces what was there (`APNG_BLEND_OP_SOURCE`) and
//! lasts exactly `1 / fps` seconds (`delay_num / delay_den = 1 / fps`). The animation loops
//! forever. Pixels are 8-bit sRGB RGBA, tagged with an `sRGB` chunk like fogbank's stills, and
//! compressed with the `png` crate's balanced setting (animations are written once and
//! watched many times).

use std::fs::File;
use std::io::BufWriter;

use super::{PendingFile, VideoError, VideoReport, VideoSettings, VideoSink, check_frame};
use crate::frame::Frame;

/// Streams frames into an animated PNG at a temporary path; [`VideoSink::finish`] completes
/// it and renames it into place. Dropping it unfinished deletes the temporary file.
pub struct ApngSink {
    writer: Option<png::Writer<BufWriter<File>>>,
    width: u32,
    height: u32,
    fps: u32,
    /// Frames announced in `acTL`.
    expected: u32,
    frames: u32,
    /// Last, so the file is closed before an unfinished one is deleted.
    pending: PendingFile,
}

impl ApngSink {
    /// Starts an animated PNG of `frame_count` frames at the temporary path for `pending`'s
    /// target.
    pub(crate) fn create(
        pending: PendingFile,
        width: u32,
        height: u32,
        frame_count: u32,
        settings: &VideoSettings,
    ) -> Result<Self, VideoError> {
        let file = pending.create()?;
        let out = BufWriter::with_capacity(1 << 20, file);
        let mut encoder = png::Encoder::new(out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Balanced);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let (delay_num, delay_den) = frame_delay(settings.fps);
        let configured = encoder
            .set_animated(frame_count, 0) // 0 plays: loop forever
            .and_then(|()| encoder.set_frame_delay(delay_num, delay_den))
            .and_then(|()| encoder.set_blend_op(png::BlendOp::Source))
            .and_then(|()| encoder.set_dispose_op(png::DisposeOp::None));
        configured.map_err(|e| pending.png_error(e))?;
        let writer = encoder.write_header().map_err(|e| pending.png_error(e))?;
        Ok(ApngSink {
            writer: Some(writer),
            width,
            height,
            fps: settings.fps,
            expected: frame_count,
            frames: 0,
            pending,
        })
    }
}

impl VideoSink for ApngSink {
    fn push(&mut self, frame: &Frame) -> Result<(), VideoError> {
        check_frame(frame, self.width, self.height)?;
        let writer = self.writer.as_mut().ok_or(VideoError::AlreadyFinished)?;
        if self.frames == self.expected {
            return Err(VideoError::FrameCount {
                path: self.pending.target().to_path_buf(),
                expected: self.expected,
                pushed: self.frames + 1,
            });
        }
        writer
            .write_image_data(&frame.rgba8)
            .map_err(|e| self.pending.png_error(e))?;
        self.frames += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<VideoReport, VideoError> {
        if self.frames == 0 {
            return Err(VideoError::NoFrames {
                path: self.pending.target().to_path_buf(),
            });
        }
        if self.frames != self.expected {
            return Err(VideoError::FrameCount {
                path: self.pending.target().to_path_buf(),
                expected: self.expected,
                pushed: self.frames,
            });
        }
        let writer = self.writer.take().ok_or(VideoError::AlreadyFinished)?;
        // Writes IEND and flushes; the file is closed when the writer goes.
        writer.finish().map_err(|e| self.pending.png_error(e))?;
        let (path, bytes) = self.pending.sync_and_commit()?;
        Ok(VideoReport {
            path,
            frames_written: self.frames,
            width: self.width,
            height: self.height,
            duration_s: self.frames as f64 / self.fps as f64,
            bytes,
        })
    }
}

/// `delay_num / delay_den` for one frame at `fps`: exactly `1 / fps` (fps is at most
/// [`super::MAX_FPS`], checked by [`VideoSettings::validate`]).
fn frame_delay(fps: u32) -> (u16, u16) {
    (1, fps.min(u16::MAX as u32) as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::video::test_support::{settings, temp_dir};
    use crate::output::video::{VideoFormat, open_video};
    use std::io::Cursor;

    /// A gradient with a half-transparent strip, so alpha is checked too.
    fn moving_gradient(index: u32, width: u32, height: u32) -> Frame {
        let mut rgba8 = Vec::with_capacity((width * height * 4) as usize);
        for y in 0..height {
            for x in 0..width {
                rgba8.push(((x + index * 5) * 255 / (width + 50)) as u8);
                rgba8.push((y * 255 / height) as u8);
                rgba8.push(((x + y) * 2) as u8);
                rgba8.push(if x < 3 { 128 } else { 255 });
            }
        }
        Frame {
            frame_index: index,
            width,
            height,
            rgba8,
            linear_f16: None,
            fog_f16: None,
        }
    }

    fn count_in(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir).unwrap().count()
    }

    #[test]
    fn writes_an_animation_that_decodes_frame_by_frame() {
        let dir = temp_dir("apng-decode");
        let path = dir.join("clip.png");
        let mut sink = open_video(&path, VideoFormat::Apng, 33, 17, 6, &settings(24)).unwrap();
        let frames: Vec<Frame> = (0..6).map(|i| moving_gradient(i, 33, 17)).collect();
        for frame in &frames {
            sink.push(frame).unwrap();
        }
        let report = sink.finish().unwrap();
        assert_eq!(report.frames_written, 6);
        assert_eq!((report.width, report.height), (33, 17));
        assert!((report.duration_s - 0.25).abs() < 1e-9);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(report.bytes, bytes.len() as u64);

        let decoder = png::Decoder::new(Cursor::new(&bytes));
        let mut reader = decoder.read_info().unwrap();
        let info = reader.info();
        assert_eq!((info.width, info.height), (33, 17));
        assert_eq!(info.srgb, Some(png::SrgbRenderingIntent::Perceptual));
        let animation = info.animation_control.unwrap();
        assert_eq!((animation.num_frames, animation.num_plays), (6, 0));
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        for (i, frame) in frames.iter().enumerate() {
            let output = reader.next_frame(&mut buffer).unwrap();
            assert_eq!((output.width, output.height), (33, 17));
            let control = reader.info().frame_control.unwrap();
            assert_eq!((control.delay_num, control.delay_den), (1, 24), "frame {i}");
            assert_eq!((control.x_offset, control.y_offset), (0, 0), "frame {i}");
            assert_eq!(control.blend_op, png::BlendOp::Source, "frame {i}");
            assert_eq!(control.dispose_op, png::DisposeOp::None, "frame {i}");
            assert_eq!(
                &buffer[..output.buffer_size()],
                &frame.rgba8[..],
                "frame {i}"
            );
        }
        assert!(
            reader.next_frame(&mut buffer).is_err(),
            "exactly six frames"
        );
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("clip.png")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dropping_unfinished_leaves_nothing() {
        let dir = temp_dir("apng-drop");
        let path = dir.join("clip.png");
        let mut sink = open_video(&path, VideoFormat::Apng, 8, 8, 2, &settings(30)).unwrap();
        sink.push(&moving_gradient(0, 8, 8)).unwrap();
        drop(sink);
        assert_eq!(count_in(&dir), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wrong_frame_size_and_empty_clip_are_errors() {
        let dir = temp_dir("apng-errors");
        let path = dir.join("clip.png");
        let mut sink = open_video(&path, VideoFormat::Apng, 8, 8, 2, &settings(30)).unwrap();
        let err = sink.push(&moving_gradient(0, 9, 8)).unwrap_err();
        assert!(matches!(err, VideoError::FrameSize { .. }), "{err}");
        let err = sink.finish().unwrap_err();
        assert!(matches!(err, VideoError::NoFrames { .. }), "{err}");
        assert_eq!(count_in(&dir), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_frame_count_given_up_front_is_kept() {
        let dir = temp_dir("apng-count");
        let path = dir.join("clip.png");
        // Fewer frames than announced: no file.
        let mut sink = open_video(&path, VideoFormat::Apng, 8, 8, 3, &settings(30)).unwrap();
        sink.push(&moving_gradient(0, 8, 8)).unwrap();
        let err = sink.finish().unwrap_err();
        assert!(
            matches!(
                err,
                VideoError::FrameCount {
                    expected: 3,
                    pushed: 1,
                    ..
                }
            ),
            "{err}"
        );
        assert!(!err.is_bad_input());
        assert_eq!(count_in(&dir), 0);
        // More frames than announced: the extra one is refused.
        let mut sink = open_video(&path, VideoFormat::Apng, 8, 8, 1, &settings(30)).unwrap();
        sink.push(&moving_gradient(0, 8, 8)).unwrap();
        let err = sink.push(&moving_gradient(1, 8, 8)).unwrap_err();
        assert!(matches!(err, VideoError::FrameCount { .. }), "{err}");
        drop(sink);
        assert_eq!(count_in(&dir), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
