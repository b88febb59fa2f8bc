//! Animated PNG (`--video clip.png`): lossless, full alpha, plays in every current browser.
//!
//! Frames are streamed to disk as they arrive, so a long clip never sits in memory. The `png`
//! crate's own animation writer needs the frame count before the first frame (the `acTL`
//! chunk precedes the image data), which a streaming render does not know up front; so each
//! frame is compressed by the `png` crate as an ordinary PNG, and this module moves its
//! compressed image data into APNG frame chunks (`fcTL` + `IDAT` for the first frame,
//! `fcTL` + `fdAT` after), then fills in the frame count in `acTL` when the clip is finished.
//! See the APNG specification (now part of PNG, Third Edition) for the chunk layout.
//!
//! Every frame covers the whole canvas, replaces what was there (`APNG_BLEND_OP_SOURCE`) and
//! lasts exactly `1 / fps` seconds (`delay_num / delay_den = 1 / fps`). The animation loops
//! forever. Pixels are 8-bit sRGB RGBA, tagged with an `sRGB` chunk like fogbank's stills.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};

use super::video::{PendingFile, VideoError, VideoReport, VideoSettings, VideoSink};
use crate::frame::Frame;

/// The eight bytes every PNG starts with.
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// Streams frames into an animated PNG at a temporary path; [`VideoSink::finish`] completes
/// it and renames it into place. Dropping it unfinished deletes the temporary file.
pub struct ApngSink {
    out: Option<BufWriter<File>>,
    width: u32,
    height: u32,
    fps: u32,
    /// Position in the file of the `acTL` chunk's data, patched at the end.
    actl_data_pos: u64,
    frames: u32,
    /// Next `fcTL`/`fdAT` sequence number.
    sequence: u32,
    bytes_written: u64,
    /// Last, so the file is closed before an unfinished one is deleted.
    pending: PendingFile,
}

impl ApngSink {
    /// Starts an animated PNG at the temporary path for `pending`'s target.
    pub(crate) fn create(
        pending: PendingFile,
        width: u32,
        height: u32,
        settings: &VideoSettings,
    ) -> Result<Self, VideoError> {
        let file = pending.create()?;
        let mut sink = ApngSink {
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            width,
            height,
            fps: settings.fps,
            actl_data_pos: 0,
            frames: 0,
            sequence: 0,
            bytes_written: 0,
            pending,
        };
        let mut head = Vec::new();
        head.extend_from_slice(&SIGNATURE);
        let mut ihdr = Vec::with_capacity(13);
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]); // 8-bit RGBA, deflate, adaptive, no interlace
        write_chunk(&mut head, b"IHDR", &ihdr);
        write_chunk(&mut head, b"sRGB", &[0]); // perceptual
        sink.actl_data_pos = head.len() as u64 + 8;
        write_chunk(&mut head, b"acTL", &actl(0));
        sink.write(&head)?;
        Ok(sink)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), VideoError> {
        let out = self.out.as_mut().ok_or(VideoError::AlreadyFinished)?;
        out.write_all(bytes)
            .map_err(|source| self.pending.io_error("write", source))?;
        self.bytes_written += bytes.len() as u64;
        Ok(())
    }

    /// The `fcTL` payload for the next frame.
    fn frame_control(&mut self) -> Vec<u8> {
        let mut fctl = Vec::with_capacity(26);
        fctl.extend_from_slice(&self.next_sequence().to_be_bytes());
        fctl.extend_from_slice(&self.width.to_be_bytes());
        fctl.extend_from_slice(&self.height.to_be_bytes());
        fctl.extend_from_slice(&0u32.to_be_bytes()); // x offset
        fctl.extend_from_slice(&0u32.to_be_bytes()); // y offset
        let (delay_num, delay_den) = frame_delay(self.fps);
        fctl.extend_from_slice(&delay_num.to_be_bytes());
        fctl.extend_from_slice(&delay_den.to_be_bytes());
        fctl.push(0); // APNG_DISPOSE_OP_NONE
        fctl.push(0); // APNG_BLEND_OP_SOURCE
        fctl
    }

    fn next_sequence(&mut self) -> u32 {
        let s = self.sequence;
        self.sequence += 1;
        s
    }
}

impl VideoSink for ApngSink {
    fn push(&mut self, frame: &Frame) -> Result<(), VideoError> {
        super::video::check_frame(frame, self.width, self.height)?;
        let png = encode_frame(frame).map_err(|e| self.pending.encode_error(e.to_string()))?;
        let mut chunks = Vec::with_capacity(png.len() + 64);
        let fctl = self.frame_control();
        write_chunk(&mut chunks, b"fcTL", &fctl);
        for data in idat_payloads(&png).map_err(|why| self.pending.encode_error(why))? {
            if self.frames == 0 {
                write_chunk(&mut chunks, b"IDAT", data);
            } else {
                let mut fdat = Vec::with_capacity(data.len() + 4);
                fdat.extend_from_slice(&self.next_sequence().to_be_bytes());
                fdat.extend_from_slice(data);
                write_chunk(&mut chunks, b"fdAT", &fdat);
            }
        }
        self.write(&chunks)?;
        self.frames += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<VideoReport, VideoError> {
        if self.frames == 0 {
            return Err(VideoError::NoFrames {
                path: self.pending.target().to_path_buf(),
            });
        }
        let mut tail = Vec::new();
        write_chunk(&mut tail, b"IEND", &[]);
        self.write(&tail)?;
        let out = self.out.take().ok_or(VideoError::AlreadyFinished)?;
        let mut file = out
            .into_inner()
            .map_err(|e| self.pending.io_error("write", e.into_error()))?;
        // Now that the count is known, fill in acTL (data and CRC; the length is unchanged).
        let mut actl_chunk = Vec::new();
        write_chunk(&mut actl_chunk, b"acTL", &actl(self.frames));
        let patch = (|| {
            file.seek(SeekFrom::Start(self.actl_data_pos - 8))?;
            file.write_all(&actl_chunk)?;
            file.sync_all()
        })();
        patch.map_err(|source| self.pending.io_error("write", source))?;
        drop(file);
        let path = self.pending.commit()?;
        Ok(VideoReport {
            path,
            frames_written: self.frames,
            width: self.width,
            height: self.height,
            duration_s: self.frames as f64 / self.fps as f64,
            bytes: self.bytes_written,
        })
    }
}

/// `delay_num / delay_den` for one frame at `fps`: exactly `1 / fps` (fps is at most 65535,
/// checked by [`VideoSettings::validate`]).
fn frame_delay(fps: u32) -> (u16, u16) {
    (1, fps.min(u16::MAX as u32) as u16)
}

/// The `acTL` payload: frame count, and 0 plays meaning "loop forever".
fn actl(frames: u32) -> [u8; 8] {
    let mut data = [0u8; 8];
    data[0..4].copy_from_slice(&frames.to_be_bytes());
    data
}

/// Compresses one frame as a standalone PNG (best compression the `png` crate offers at a
/// reasonable speed: animations are written once and watched many times).
fn encode_frame(frame: &Frame) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::with_capacity(frame.rgba8.len() / 2 + 1024);
    let mut encoder = png::Encoder::new(&mut bytes, frame.width, frame.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&frame.rgba8)?;
    writer.finish()?;
    Ok(bytes)
}

/// The payloads of all `IDAT` chunks of a PNG, in order: together, one zlib stream.
fn idat_payloads(png: &[u8]) -> Result<Vec<&[u8]>, String> {
    if png.get(0..8) != Some(&SIGNATURE[..]) {
        return Err("the png encoder returned no PNG signature".into());
    }
    let mut at = 8;
    let mut payloads = Vec::new();
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]) as usize;
        let kind = &png[at + 4..at + 8];
        let data = png
            .get(at + 8..at + 8 + len)
            .ok_or("the png encoder returned a truncated chunk")?;
        if kind == b"IDAT" {
            payloads.push(data);
        }
        at += 12 + len;
    }
    if payloads.is_empty() {
        return Err("the png encoder returned no image data".into());
    }
    Ok(payloads)
}

/// Appends one PNG chunk: length, type, data, CRC-32 of type and data.
fn write_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&[kind, data]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// CRC-32 (ISO 3309, the one PNG uses) over the concatenation of `parts`.
fn crc32(parts: &[&[u8]]) -> u32 {
    const fn make_table() -> [u32; 256] {
        let mut table = [0u32; 256];
        let mut n = 0;
        while n < 256 {
            let mut c = n as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[n] = c;
            n += 1;
        }
        table
    }
    const TABLE: [u32; 256] = make_table();
    let mut crc = 0xFFFF_FFFFu32;
    for part in parts {
        for &byte in *part {
            crc = TABLE[((crc ^ byte as u32) & 0xFF) as usize] ^ (crc >> 8);
        }
    }
    crc ^ 0xFFFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::video::{VideoFormat, open_video};
    use std::io::Cursor;

    #[test]
    fn crc_matches_known_values() {
        assert_eq!(crc32(&[b"IEND"]), 0xAE42_6082);
        assert_eq!(crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[b"1234", b"56789"]), 0xCBF4_3926);
    }

    pub(crate) fn moving_gradient(index: u32, width: u32, height: u32) -> Frame {
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

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("fogbank-apng-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn writes_an_animation_that_decodes_frame_by_frame() {
        let dir = temp_dir("decode");
        let path = dir.join("clip.png");
        let settings = VideoSettings {
            fps: 24,
            crf: None,
            preset: None,
        };
        let mut sink = open_video(&path, VideoFormat::Apng, 33, 17, &settings).unwrap();
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
        let animation = info.animation_control.unwrap();
        assert_eq!((animation.num_frames, animation.num_plays), (6, 0));
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        for (i, frame) in frames.iter().enumerate() {
            let output = reader.next_frame(&mut buffer).unwrap();
            assert_eq!((output.width, output.height), (33, 17));
            let control = reader.info().frame_control.unwrap();
            assert_eq!((control.delay_num, control.delay_den), (1, 24), "frame {i}");
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
        let dir = temp_dir("drop");
        let path = dir.join("clip.png");
        let settings = VideoSettings {
            fps: 30,
            crf: None,
            preset: None,
        };
        let mut sink = open_video(&path, VideoFormat::Apng, 8, 8, &settings).unwrap();
        sink.push(&moving_gradient(0, 8, 8)).unwrap();
        drop(sink);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wrong_frame_size_and_empty_clip_are_errors() {
        let dir = temp_dir("errors");
        let path = dir.join("clip.png");
        let settings = VideoSettings {
            fps: 30,
            crf: None,
            preset: None,
        };
        let mut sink = open_video(&path, VideoFormat::Apng, 8, 8, &settings).unwrap();
        let err = sink.push(&moving_gradient(0, 9, 8)).unwrap_err();
        assert!(matches!(err, VideoError::FrameSize { .. }), "{err}");
        let err = sink.finish().unwrap_err();
        assert!(matches!(err, VideoError::NoFrames { .. }), "{err}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
