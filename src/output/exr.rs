//! OpenEXR frames: linear half-float RGBA for compositing (`--format exr`).
//!
//! PNG and video carry display-ready 8-bit sRGB; a compositor (Nuke, Blender, Resolve) wants
//! the light itself, linear and with headroom above 1.0, so fog can be graded, relit and
//! layered without banding. fogbank shades in linear light into a half-float target, so EXR
//! is the natural export of that target.
//!
//! The files are single-part scanline EXRs written by the `exr` crate: four `HALF` channels
//! `A`, `B`, `G`, `R` (the format stores channels sorted by name), lossless ZIP compression in
//! blocks of 16 scanlines, increasing Y, premultiplied alpha as the format expects, and a
//! `chromaticities` attribute naming the Rec. 709 primaries and D65 white the values are in.
//! The half-float bits the GPU produced are stored as they are: reading a file back gives
//! exactly the bits that were written ([`decode_exr_rgba_f16`]).
//! Bytes are returned; [`super::atomic::write_atomic`] puts them on disk.
//!
//! Half-float conversions go through the `half` crate ([`f32_to_f16_bits`],
//! [`f16_bits_to_f32`]): round to nearest, ties to even, as the GPU does.

use std::io::Cursor;

// `Result` is named here because the `exr` prelude has its own.
use std::result::Result;

use exr::prelude::*;
use half::f16;

/// File name of EXR frame `frame`: `frame_0042.exr`, at least four digits, numbered like the
/// PNG sequence.
pub fn frame_file_name(prefix: &str, frame: u32) -> String {
    format!("{prefix}_{frame:04}.exr")
}

/// Why an EXR could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum ExrError {
    /// The pixel slice does not match the size.
    #[error("EXR of {width}×{height} needs {expected} half values (RGBA), got {got}")]
    PixelCount {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// `width * height * 4`.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// Zero or more than `i32::MAX` pixels across or down.
    #[error("EXR size {width}×{height} is out of range (1 to 2147483647 each way)")]
    Size {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The encoder failed.
    #[error("cannot encode EXR: {source}")]
    Encode {
        /// The `exr` crate's error.
        #[source]
        source: exr::error::Error,
    },
    /// A file that is not an EXR, is damaged, or has no RGB channels.
    #[error("cannot read EXR: {source}")]
    Decode {
        /// The `exr` crate's error.
        #[source]
        source: exr::error::Error,
    },
}

/// Rec. 709 primaries with a D65 white point (x, y on the CIE 1931 diagram): the primaries of
/// sRGB, in which fogbank renders.
pub const REC709_CHROMATICITIES: exr::meta::attribute::Chromaticities =
    exr::meta::attribute::Chromaticities {
        red: Vec2(0.64, 0.33),
        green: Vec2(0.30, 0.60),
        blue: Vec2(0.15, 0.06),
        white: Vec2(0.3127, 0.3290),
    };

/// How an EXR's pixels are compressed. Every choice is lossless and read by every EXR reader;
/// they trade file size against encoding time (sizes and times of a 1920×1080 temple frame
/// are in the benchmark records, `benches/runs/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExrCompression {
    /// Uncompressed: the fastest to write, the largest (16.6 MB at 1920×1080).
    None,
    /// Run-length: fast, about a third of the uncompressed size on fog.
    Rle,
    /// Deflate over blocks of 16 scanlines: the smallest of the common choices (the default).
    #[default]
    Zip,
    /// Wavelet (PIZ): about as small as ZIP on fog, faster to write.
    Piz,
}

impl ExrCompression {
    /// Every choice, in the order the command line lists them.
    pub const ALL: [ExrCompression; 4] = [
        ExrCompression::None,
        ExrCompression::Rle,
        ExrCompression::Zip,
        ExrCompression::Piz,
    ];

    fn encoding(self) -> Encoding {
        let compression = match self {
            ExrCompression::None => Compression::Uncompressed,
            ExrCompression::Rle => Compression::RLE,
            ExrCompression::Zip => Compression::ZIP16,
            ExrCompression::Piz => Compression::PIZ,
        };
        // Scanlines top to bottom, as the frame is read back.
        Encoding {
            compression,
            blocks: Blocks::ScanLines,
            line_order: LineOrder::Increasing,
        }
    }
}

/// Encodes linear, premultiplied RGBA as a ZIP-compressed EXR. `rgba_f16_bits` holds IEEE 754
/// half floats as raw bits, pixel by pixel, rows top to bottom (as read back from an
/// `Rgba16Float` texture).
pub fn encode_exr_rgba_f16(
    width: u32,
    height: u32,
    rgba_f16_bits: &[u16],
) -> Result<Vec<u8>, ExrError> {
    encode_exr_rgba_f16_with(width, height, rgba_f16_bits, ExrCompression::Zip)
}

/// [`encode_exr_rgba_f16`] with the compression chosen.
pub fn encode_exr_rgba_f16_with(
    width: u32,
    height: u32,
    rgba_f16_bits: &[u16],
    compression: ExrCompression,
) -> Result<Vec<u8>, ExrError> {
    if width == 0 || height == 0 || width > i32::MAX as u32 || height > i32::MAX as u32 {
        return Err(ExrError::Size { width, height });
    }
    let expected = width as usize * height as usize * 4;
    if rgba_f16_bits.len() != expected {
        return Err(ExrError::PixelCount {
            width,
            height,
            expected,
            got: rgba_f16_bits.len(),
        });
    }
    let row = width as usize;
    let mut pixels = SpecificChannels::rgba(|position: Vec2<usize>| {
        let at = (position.y() * row + position.x()) * 4;
        let [r, g, b, a] = [0, 1, 2, 3].map(|c| f16::from_bits(rgba_f16_bits[at + c]));
        (r, g, b, a)
    });
    // The crate guesses "perceptually linear" for A; like OpenEXR's own RGBA files, fogbank
    // marks no channel so (the flag only steers lossy B44 compression).
    pixels.channels.3.quantize_linearly = false;
    let size = (width as usize, height as usize);
    let layer = Layer::new(
        size,
        LayerAttributes::default(),
        compression.encoding(),
        pixels,
    );
    let mut image = Image::from_layer(layer);
    image.attributes.chromaticities = Some(REC709_CHROMATICITIES);

    let mut out = Cursor::new(Vec::with_capacity(expected + 1024));
    image
        .write()
        .to_buffered(&mut out)
        .map_err(|source| ExrError::Encode { source })?;
    Ok(out.into_inner())
}

/// Encodes linear, premultiplied RGBA given as `f32` (rounded to the nearest half; values
/// past ±65504 become ±infinity, as in any half-float pipeline).
pub fn encode_exr_rgba_f32(width: u32, height: u32, rgba_f32: &[f32]) -> Result<Vec<u8>, ExrError> {
    let bits: Vec<u16> = rgba_f32.iter().map(|&v| f32_to_f16_bits(v)).collect();
    encode_exr_rgba_f16(width, height, &bits)
}

/// Converts an 8-bit sRGB RGBA frame (straight alpha) into linear, premultiplied half-float
/// RGBA for [`encode_exr_rgba_f16`]: the way to export EXR from frames that were already
/// quantised to 8 bits (their precision, not the renderer's, is what the file then holds).
pub fn srgb8_to_linear_f16(rgba8: &[u8]) -> Vec<u16> {
    let table: Vec<f32> = (0..=255u8).map(srgb8_to_linear).collect();
    let mut out = Vec::with_capacity(rgba8.len());
    for pixel in rgba8.chunks_exact(4) {
        let alpha = pixel[3] as f32 / 255.0;
        for &channel in &pixel[..3] {
            out.push(f32_to_f16_bits(table[channel as usize] * alpha));
        }
        out.push(f32_to_f16_bits(alpha));
    }
    out
}

pub use crate::color::srgb8_to_linear;

/// Converts `f32` to IEEE 754 binary16 bits, rounding to nearest, ties to even; NaN stays NaN
/// (quiet), overflow becomes infinity, tiny values become subnormals or zero.
pub fn f32_to_f16_bits(value: f32) -> u16 {
    f16::from_f32(value).to_bits()
}

/// Converts IEEE 754 binary16 bits to `f32` (exact: every half is an `f32`).
pub fn f16_bits_to_f32(bits: u16) -> f32 {
    f16::from_bits(bits).to_f32()
}

/// Reads the first RGB(A) layer of an EXR back into RGBA half bits, rows top to bottom, with
/// its width and height. Half channels come back bit for bit; other sample types are
/// converted; a missing alpha channel reads as 1. For tests and comparisons.
pub fn decode_exr_rgba_f16(bytes: &[u8]) -> Result<(u32, u32, Vec<u16>), ExrError> {
    let image = read()
        .no_deep_data()
        .largest_resolution_level()
        .specific_channels()
        .required("R")
        .required("G")
        .required("B")
        .optional("A", f16::ONE)
        .collect_pixels(
            |resolution: Vec2<usize>, _channels| {
                (resolution.width(), vec![0u16; resolution.area() * 4])
            },
            |(width, pixels): &mut (usize, Vec<u16>),
             position: Vec2<usize>,
             (r, g, b, a): (f16, f16, f16, f16)| {
                let at = (position.y() * *width + position.x()) * 4;
                pixels[at..at + 4].copy_from_slice(&[r, g, b, a].map(f16::to_bits));
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_buffered(Cursor::new(bytes))
        .map_err(|source| ExrError::Decode { source })?;
    let size = image.layer_data.size;
    let (_, pixels) = image.layer_data.channel_data.pixels;
    Ok((size.width() as u32, size.height() as u32, pixels))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversion_known_values() {
        let cases: [(f32, u16); 14] = [
            (0.0, 0x0000),
            (-0.0, 0x8000),
            (1.0, 0x3C00),
            (-2.0, 0xC000),
            (0.5, 0x3800),
            (65504.0, 0x7BFF),
            (65520.0, 0x7C00), // halfway past the largest finite half rounds to infinity
            (1.0e6, 0x7C00),
            (f32::INFINITY, 0x7C00),
            (f32::NEG_INFINITY, 0xFC00),
            (5.960_464_5e-8, 0x0001), // smallest subnormal
            (6.097_555e-5, 0x03FF),   // largest subnormal
            (6.103_515_6e-5, 0x0400), // smallest normal
            (1.0e-9, 0x0000),
        ];
        for (value, bits) in cases {
            assert_eq!(f32_to_f16_bits(value), bits, "{value}");
        }
        // Ties go to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
        assert_eq!(f32_to_f16_bits(1.0 + 2f32.powi(-11)), 0x3C00);
        assert_eq!(f32_to_f16_bits(1.0 + 3.0 * 2f32.powi(-11)), 0x3C02);
        assert!(f16_bits_to_f32(f32_to_f16_bits(f32::NAN)).is_nan());
    }

    #[test]
    fn every_half_round_trips_through_f32() {
        for bits in 0..=u16::MAX {
            let value = f16_bits_to_f32(bits);
            if value.is_nan() {
                assert!(f16_bits_to_f32(f32_to_f16_bits(value)).is_nan());
            } else {
                assert_eq!(f32_to_f16_bits(value), bits, "{bits:#06x} = {value}");
            }
        }
        assert_eq!(f16_bits_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_bits_to_f32(0x3555), 0.333_251_95);
    }

    #[test]
    fn rounding_is_to_the_nearest_half() {
        // Between neighbouring halves, the result is whichever is nearer.
        for bits in [0x0001u16, 0x02FF, 0x3C00, 0x4A3D, 0x7BFE] {
            let low = f16_bits_to_f32(bits) as f64;
            let high = f16_bits_to_f32(bits + 1) as f64;
            let just_below_mid = (low + (high - low) * 0.49) as f32;
            let just_above_mid = (low + (high - low) * 0.51) as f32;
            assert_eq!(f32_to_f16_bits(just_below_mid), bits);
            assert_eq!(f32_to_f16_bits(just_above_mid), bits + 1);
        }
    }

    fn test_image(width: u32, height: u32) -> Vec<f32> {
        let mut values = Vec::new();
        for y in 0..height {
            for x in 0..width {
                values.push(x as f32 / width as f32 * 4.0); // headroom above 1
                values.push(y as f32 * 0.125);
                values.push(-0.25 + (x * y) as f32 * 1.0e-3);
                values.push(if x % 2 == 0 { 1.0 } else { 0.5 });
            }
        }
        values
    }

    #[test]
    fn every_half_bit_pattern_reads_back_unchanged() {
        // 128×128 pixels of four channels hold each of the 65536 half values once, NaNs,
        // infinities and subnormals included; 37 lines are not a whole number of ZIP blocks.
        let bits: Vec<u16> = (0..=u16::MAX).map(|v| v.rotate_left(5)).collect();
        let bytes = encode_exr_rgba_f16(128, 128, &bits).unwrap();
        let (w, h, back) = decode_exr_rgba_f16(&bytes).unwrap();
        assert_eq!((w, h), (128, 128));
        assert!(back == bits, "half bits changed in the round trip");
        let odd: Vec<u16> = bits[..7 * 37 * 4].to_vec();
        let bytes = encode_exr_rgba_f16(7, 37, &odd).unwrap();
        assert_eq!(decode_exr_rgba_f16(&bytes).unwrap(), (7, 37, odd));
    }

    #[test]
    fn every_compression_is_lossless_and_recorded() {
        let bits: Vec<u16> = (0..=u16::MAX).map(|v| v.rotate_left(3)).collect();
        for compression in ExrCompression::ALL {
            let bytes = encode_exr_rgba_f16_with(128, 128, &bits, compression).unwrap();
            assert_eq!(
                decode_exr_rgba_f16(&bytes).unwrap(),
                (128, 128, bits.clone()),
                "{compression:?}"
            );
            let meta = exr::meta::MetaData::read_from_buffered(Cursor::new(&bytes), false).unwrap();
            assert_eq!(
                meta.headers[0].compression,
                compression.encoding().compression
            );
        }
        // A smooth picture: every compression beats none.
        let smooth: Vec<u16> = (0..256 * 64 * 4)
            .map(|i| f32_to_f16_bits((i / 4 % 256) as f32 / 256.0))
            .collect();
        let size = |c| encode_exr_rgba_f16_with(256, 64, &smooth, c).unwrap().len();
        let none = size(ExrCompression::None);
        for compressed in [
            ExrCompression::Rle,
            ExrCompression::Zip,
            ExrCompression::Piz,
        ] {
            assert!(size(compressed) < none, "{compressed:?}");
        }
    }

    #[test]
    fn f32_values_are_stored_as_their_nearest_halves() {
        let (width, height) = (7, 5);
        let values = test_image(width, height);
        let bytes = encode_exr_rgba_f32(width, height, &values).unwrap();
        let (w, h, bits) = decode_exr_rgba_f16(&bytes).unwrap();
        assert_eq!((w, h), (width, height));
        let expected: Vec<u16> = values.iter().map(|&v| f32_to_f16_bits(v)).collect();
        assert_eq!(bits, expected);
    }

    #[test]
    fn header_says_half_rgba_zip_and_rec709() {
        use exr::meta::attribute::{ChannelDescription, SampleType};
        let bits = srgb8_to_linear_f16(&[200, 100, 50, 255].repeat(40 * 20));
        let bytes = encode_exr_rgba_f16(40, 20, &bits).unwrap();
        assert_eq!(
            &bytes[0..4],
            &[0x76, 0x2f, 0x31, 0x01],
            "OpenEXR magic number"
        );
        let meta = exr::meta::MetaData::read_from_buffered(Cursor::new(&bytes), true).unwrap();
        assert_eq!(meta.headers.len(), 1, "single part");
        let header = &meta.headers[0];
        let channels: Vec<(String, SampleType)> = header
            .channels
            .list
            .iter()
            .map(|c: &ChannelDescription| (c.name.to_string(), c.sample_type))
            .collect();
        let half = SampleType::F16;
        let names = ["A", "B", "G", "R"].map(String::from);
        assert_eq!(channels, names.map(|n| (n, half)).to_vec());
        assert!(header.channels.list.iter().all(|c| !c.quantize_linearly));
        assert_eq!(header.compression, Compression::ZIP16);
        assert_eq!(header.blocks, exr::meta::BlockDescription::ScanLines);
        assert_eq!(header.line_order, LineOrder::Increasing);
        assert_eq!(header.own_attributes.layer_position, Vec2(0, 0));
        assert_eq!(header.layer_size, Vec2(40, 20));
        assert_eq!(
            header.shared_attributes.chromaticities,
            Some(REC709_CHROMATICITIES)
        );
        assert_eq!(header.shared_attributes.pixel_aspect, 1.0);
    }

    #[test]
    fn zip_makes_smooth_frames_much_smaller() {
        let (width, height) = (160u32, 90u32);
        let mut rgba8 = Vec::new();
        for y in 0..height {
            for x in 0..width {
                rgba8.extend_from_slice(&[(x / 2) as u8, (y * 2) as u8, 120, 255]);
            }
        }
        let bytes = encode_exr_rgba_f16(width, height, &srgb8_to_linear_f16(&rgba8)).unwrap();
        let raw = (width * height * 8) as usize;
        assert!(
            bytes.len() < raw / 3,
            "{} bytes for {raw} of pixels",
            bytes.len()
        );
    }

    #[test]
    fn ffmpeg_reads_the_same_values() {
        // An independent reader: ffmpeg's EXR decoder, as planar float G, B, R, A.
        let Some((ffmpeg, _)) =
            crate::output::video::test_support::ffmpeg_tools("exr::ffmpeg_reads_the_same_values")
        else {
            return;
        };
        let (width, height) = (6u32, 19u32);
        let values = test_image(width, height);
        let bytes = encode_exr_rgba_f32(width, height, &values).unwrap();
        let dir = std::env::temp_dir().join(format!("fogbank-exr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("frame_0000.exr");
        std::fs::write(&path, &bytes).unwrap();
        let output = std::process::Command::new(ffmpeg)
            .args(["-v", "error", "-i"])
            .arg(&path)
            .args(["-f", "rawvideo", "-pix_fmt", "gbrapf32le", "-"])
            .output()
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let floats: Vec<f32> = output
            .stdout
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let plane = (width * height) as usize;
        assert_eq!(floats.len(), plane * 4);
        // Planes in ffmpeg's gbrap order: G, B, R, A.
        for (plane_index, channel) in [1usize, 2, 0, 3].into_iter().enumerate() {
            for pixel in 0..plane {
                let expected = f16_bits_to_f32(f32_to_f16_bits(values[pixel * 4 + channel]));
                let got = floats[plane_index * plane + pixel];
                assert_eq!(got, expected, "channel {channel} pixel {pixel}");
            }
        }
    }

    #[test]
    fn srgb_frames_become_linear_premultiplied() {
        let bits = srgb8_to_linear_f16(&[255, 188, 0, 255, 255, 255, 255, 0]);
        let values: Vec<f32> = bits.iter().map(|&b| f16_bits_to_f32(b)).collect();
        assert_eq!(values[0], 1.0);
        assert!((values[1] - 0.502_886).abs() < 1.0e-3, "{}", values[1]);
        assert_eq!(values[2], 0.0);
        assert_eq!(values[3], 1.0);
        assert_eq!(
            &values[4..8],
            &[0.0, 0.0, 0.0, 0.0],
            "transparent is premultiplied to 0"
        );
        assert!((srgb8_to_linear(10) - 10.0 / 255.0 / 12.92).abs() < 1.0e-7);
    }

    #[test]
    fn rejects_wrong_sizes_and_foreign_files() {
        assert!(matches!(
            encode_exr_rgba_f16(2, 2, &[0; 15]),
            Err(ExrError::PixelCount {
                expected: 16,
                got: 15,
                ..
            })
        ));
        assert!(matches!(
            encode_exr_rgba_f16(0, 2, &[]),
            Err(ExrError::Size { .. })
        ));
        let err = decode_exr_rgba_f16(b"\x89PNG\r\n\x1a\n").unwrap_err();
        assert!(matches!(err, ExrError::Decode { .. }), "{err}");
        assert!(
            std::error::Error::source(&err).is_some(),
            "the cause is kept"
        );
        let bytes = encode_exr_rgba_f16(3, 3, &[0x3C00; 36]).unwrap();
        assert!(decode_exr_rgba_f16(&bytes[..bytes.len() - 1]).is_err());
        assert_eq!(frame_file_name("frame", 42), "frame_0042.exr");
    }
}
