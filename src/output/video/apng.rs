//! Animated PNG (`--video clip.png`): lossless, full alpha, plays in every current browser.
//!
//! The file is `IHDR`, `sRGB`, `acTL`, then `fcTL` + `IDAT` for the first frame and `fcTL` +
//! `fdAT` for each one after, and `IEND`, streamed to disk as frames arrive, so a long clip
//! never sits in memory. `acTL` states the frame count before any image data, which is why
//! [`super::open_video`] is told how many frames the clip has; finishing with fewer is an error
//! ([`VideoError::FrameCount`]) and leaves no file.
//!
//! Every frame covers the whole canvas, replaces what was there (`APNG_BLEND_OP_SOURCE`) and
//! lasts exactly `1 / fps` seconds (`delay_num / delay_den = 1 / fps`). The animation loops
//! forever. Pixels are 8-bit sRGB RGBA, tagged with an `sRGB` chunk like fogbank's stills, and
//! compressed at zlib level 2 with adaptive row filters ([`COMPRESSION`]).
//!
//! Each frame's image data is its own zlib stream, so frames are filtered and deflated in
//! parallel (`ordered.rs`) by the `png` crate itself (as a still PNG, whose one `IDAT`
//! holds exactly the stream the crate's animation writer would store), and this module writes
//! the chunks around them in order. The bytes are those of the `png` crate's own animation
//! writer, whatever the number of threads (a test compares them).

use std::fs::File;
use std::io::{BufWriter, Write};

use super::ordered::{InOrder, Workers};
use super::{
    EncoderError, PendingFile, VideoError, VideoReport, VideoSettings, VideoSink, check_frame,
};
use crate::frame::Frame;

/// How frames are deflated: zlib level 2 over adaptive row filters. On rendered fog at
/// 1920×1080 this is 6× faster than the `png` crate's balanced setting (level 6) for files
/// about a fifth larger; balanced cost 0.28 s a frame, which capped a 16-core machine below
/// 60 frames/s, and the `png` crate's fast setting (fdeflate) is faster still but makes files
/// 44 % larger. The figures are in the benchmark records, `benches/runs/`.
pub const COMPRESSION: png::DeflateCompression = png::DeflateCompression::Level(2);
/// The row filter chosen per row by the `png` crate.
const FILTER: png::Filter = png::Filter::Adaptive;
/// The PNG file signature.
const SIGNATURE: [u8; 8] = [137, 80, 78, 71, 13, 10, 26, 10];

/// Streams frames into an animated PNG at a temporary path; [`VideoSink::finish`] completes
/// it and renames it into place. Dropping it unfinished deletes the temporary file.
pub struct ApngSink {
    out: Option<BufWriter<File>>,
    /// Frames being deflated, handed back in order.
    jobs: InOrder<Vec<u8>>,
    width: u32,
    height: u32,
    fps: u32,
    /// Frames announced in `acTL`.
    expected: u32,
    /// Frames pushed.
    frames: u32,
    /// Frames written to the file.
    written: u32,
    /// The next `fcTL` / `fdAT` sequence number.
    sequence: u32,
    /// Last, so the file is closed before an unfinished one is deleted.
    pending: PendingFile,
}

impl ApngSink {
    /// Starts an animated PNG of `frame_count` frames at the temporary path for `pending`'s
    /// target, deflating frames on `workers`.
    pub(crate) fn create(
        pending: PendingFile,
        width: u32,
        height: u32,
        frame_count: u32,
        settings: &VideoSettings,
        workers: Workers,
    ) -> Result<Self, VideoError> {
        let file = pending.create()?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let mut ihdr = Vec::with_capacity(13);
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        // 8 bits, RGBA (colour type 6), deflate, adaptive filtering, not interlaced.
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        let mut actl = Vec::with_capacity(8);
        actl.extend_from_slice(&frame_count.to_be_bytes());
        actl.extend_from_slice(&0u32.to_be_bytes()); // 0 plays: loop forever
        let header = out
            .write_all(&SIGNATURE)
            .and_then(|()| write_chunk(&mut out, b"IHDR", &[&ihdr]))
            // Rendering intent 0: perceptual.
            .and_then(|()| write_chunk(&mut out, b"sRGB", &[&[0]]))
            .and_then(|()| write_chunk(&mut out, b"acTL", &[&actl]));
        header.map_err(|e| pending.io_error("write", e))?;
        let jobs = InOrder::new(workers, pending.target());
        Ok(ApngSink {
            out: Some(out),
            jobs,
            width,
            height,
            fps: settings.fps,
            expected: frame_count,
            frames: 0,
            written: 0,
            sequence: 0,
            pending,
        })
    }

    /// Appends deflated frames to the file, in order: `fcTL`, then `IDAT` (the first frame)
    /// or `fdAT`.
    fn write_ready(&mut self, ready: Vec<Result<Vec<u8>, VideoError>>) -> Result<(), VideoError> {
        for zlib in ready {
            let zlib = zlib?;
            let out = self.out.as_mut().ok_or(VideoError::AlreadyFinished)?;
            let (delay_num, delay_den) = frame_delay(self.fps);
            let mut fctl = Vec::with_capacity(26);
            fctl.extend_from_slice(&self.sequence.to_be_bytes());
            fctl.extend_from_slice(&self.width.to_be_bytes());
            fctl.extend_from_slice(&self.height.to_be_bytes());
            fctl.extend_from_slice(&0u32.to_be_bytes()); // x offset
            fctl.extend_from_slice(&0u32.to_be_bytes()); // y offset
            fctl.extend_from_slice(&delay_num.to_be_bytes());
            fctl.extend_from_slice(&delay_den.to_be_bytes());
            fctl.push(png::DisposeOp::None as u8);
            fctl.push(png::BlendOp::Source as u8);
            let written = write_chunk(out, b"fcTL", &[&fctl]).and_then(|()| {
                if self.written == 0 {
                    write_chunk(out, b"IDAT", &[&zlib])
                } else {
                    let sequence = (self.sequence + 1).to_be_bytes();
                    write_chunk(out, b"fdAT", &[&sequence, &zlib])
                }
            });
            written.map_err(|e| self.pending.io_error("write", e))?;
            self.sequence += if self.written == 0 { 1 } else { 2 };
            self.written += 1;
        }
        Ok(())
    }
}

impl VideoSink for ApngSink {
    fn push(&mut self, frame: &Frame) -> Result<(), VideoError> {
        check_frame(frame, self.width, self.height)?;
        if self.out.is_none() {
            return Err(VideoError::AlreadyFinished);
        }
        if self.frames == self.expected {
            return Err(VideoError::FrameCount {
                path: self.pending.target().to_path_buf(),
                expected: self.expected,
                pushed: self.frames + 1,
            });
        }
        let (width, height, rgba8) = (self.width, self.height, frame.rgba8.clone());
        let target = self.pending.target().to_path_buf();
        let ready = self.jobs.submit(move |_rows| {
            deflate_frame(width, height, &rgba8).map_err(|source| VideoError::Encode {
                path: target,
                source: EncoderError::Png(source),
            })
        });
        self.frames += 1;
        self.write_ready(ready)
    }

    fn finish(mut self: Box<Self>) -> Result<VideoReport, VideoError> {
        let ready = self.jobs.finish();
        self.write_ready(ready)?;
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
        let mut out = self.out.take().ok_or(VideoError::AlreadyFinished)?;
        write_chunk(&mut out, b"IEND", &[]).map_err(|e| self.pending.io_error("write", e))?;
        let file = out
            .into_inner()
            .map_err(|e| self.pending.io_error("write", e.into_error()))?;
        // Closed here; synced and measured by the commit.
        drop(file);
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

/// One frame's image data as the animation stores it: the zlib stream of its filtered rows,
/// made by the `png` crate as the one `IDAT` of a still PNG with the animation's settings.
pub fn deflate_frame(width: u32, height: u32, rgba8: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut still = Vec::with_capacity(rgba8.len() / 2 + 1024);
    {
        let mut encoder = png::Encoder::new(&mut still, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_deflate_compression(COMPRESSION);
        encoder.set_filter(FILTER);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgba8)?;
        writer.finish()?;
    }
    Ok(idat_stream(&still))
}

/// The data of every `IDAT` chunk of a PNG the `png` crate wrote, joined.
fn idat_stream(png_bytes: &[u8]) -> Vec<u8> {
    let mut stream = Vec::new();
    let mut at = SIGNATURE.len();
    while at + 8 <= png_bytes.len() {
        let length = u32::from_be_bytes([
            png_bytes[at],
            png_bytes[at + 1],
            png_bytes[at + 2],
            png_bytes[at + 3],
        ]) as usize;
        let kind = &png_bytes[at + 4..at + 8];
        let data =
            &png_bytes[(at + 8).min(png_bytes.len())..(at + 8 + length).min(png_bytes.len())];
        if kind == b"IDAT" {
            stream.extend_from_slice(data);
        }
        at += 12 + length; // length, type, data, CRC
    }
    stream
}

/// Writes one chunk whose data is `parts` joined: length, type, data, CRC-32 of type and data.
fn write_chunk(out: &mut impl Write, kind: &[u8; 4], parts: &[&[u8]]) -> std::io::Result<()> {
    let length: usize = parts.iter().map(|part| part.len()).sum();
    let length = u32::try_from(length)
        .ok()
        .filter(|&n| n <= i32::MAX as u32)
        .ok_or_else(|| std::io::Error::other("a PNG chunk holds at most 2^31 - 1 bytes"))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    out.write_all(&length.to_be_bytes())?;
    out.write_all(kind)?;
    for part in parts {
        crc.update(part);
        out.write_all(part)?;
    }
    out.write_all(&crc.finalize().to_be_bytes())
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
            rgba8: rgba8.into(),
            linear_f16: None,
            fog_f16: None,
            weather_f16: None,
        }
    }

    /// The animation as the `png` crate's own animation writer makes it, frame by frame.
    fn reference_apng(frames: &[Frame], fps: u32) -> Vec<u8> {
        let (width, height) = (frames[0].width, frames[0].height);
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_deflate_compression(COMPRESSION);
        encoder.set_filter(png::Filter::Adaptive);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        encoder.set_animated(frames.len() as u32, 0).unwrap();
        encoder.set_frame_delay(1, fps as u16).unwrap();
        encoder.set_blend_op(png::BlendOp::Source).unwrap();
        encoder.set_dispose_op(png::DisposeOp::None).unwrap();
        let mut writer = encoder.write_header().unwrap();
        for frame in frames {
            writer.write_image_data(&frame.rgba8).unwrap();
        }
        writer.finish().unwrap();
        bytes
    }

    /// Writes `frames` with `threads` encoder threads and returns the file's bytes.
    fn apng_on_threads(dir: &std::path::Path, frames: &[Frame], threads: usize) -> Vec<u8> {
        let path = dir.join(format!("clip-{threads}.png"));
        let (width, height) = (frames[0].width, frames[0].height);
        let mut sink = ApngSink::create(
            PendingFile::new(&path),
            width,
            height,
            frames.len() as u32,
            &settings(30),
            Workers::with_threads(threads).unwrap(),
        )
        .unwrap();
        for frame in frames {
            sink.push(frame).unwrap();
        }
        Box::new(sink).finish().unwrap();
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn parallel_frames_give_the_png_crates_bytes_on_any_thread_count() {
        let dir = temp_dir("apng-threads");
        let frames: Vec<Frame> = (0..9).map(|i| moving_gradient(i * 3, 61, 23)).collect();
        let one = apng_on_threads(&dir, &frames, 1);
        let four = apng_on_threads(&dir, &frames, 4);
        assert_eq!(one, four, "1 and 4 threads");
        assert_eq!(one, reference_apng(&frames, 30), "the png crate's writer");
        std::fs::remove_dir_all(&dir).unwrap();
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
