//! OpenEXR frames: linear half-float RGBA for compositing (`--format exr`).
//!
//! PNG and video carry display-ready 8-bit sRGB; a compositor (Nuke, Blender, Resolve) wants
//! the light itself, linear and with headroom above 1.0, so fog can be graded, relit and
//! layered without banding. fogbank shades in linear light into a half-float target, so EXR
//! is the natural export of that target.
//!
//! The files are minimal, valid single-part scanline EXRs (OpenEXR 2 file layout, see
//! "The OpenEXR File Layout" in the OpenEXR documentation): four `HALF` channels `A`, `B`,
//! `G`, `R` (the format stores channels sorted by name), no compression, one scanline per
//! chunk, increasing Y, Rec. 709 primaries (the default when no `chromaticities` attribute is
//! present), and premultiplied alpha as the format expects. Uncompressed files are larger
//! (8 bytes a pixel) but every reader supports them and writing them costs nothing.
//! Bytes are returned; [`super::atomic::write_atomic`] puts them on disk.
//! [`decode_exr_rgba_f16`] reads exactly this layout back, for tests and comparisons.

/// File name of EXR frame `frame`: `frame_0042.exr`, at least four digits, numbered like the
/// PNG sequence.
pub fn frame_file_name(prefix: &str, frame: u32) -> String {
    format!("{prefix}_{frame:04}.exr")
}

/// Why an EXR could not be made or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
    /// A file this reader does not understand (not an EXR, or not fogbank's layout).
    #[error("cannot read EXR: {0}")]
    Unsupported(String),
}

/// `HALF` in the EXR channel list.
const PIXEL_TYPE_HALF: i32 = 1;
/// `NO_COMPRESSION`.
const COMPRESSION_NONE: u8 = 0;
/// `INCREASING_Y`.
const LINE_ORDER_INCREASING_Y: u8 = 0;
/// The four bytes every EXR starts with.
const MAGIC: [u8; 4] = [0x76, 0x2f, 0x31, 0x01];
/// Version 2, single-part scanline, short names.
const VERSION: [u8; 4] = [2, 0, 0, 0];
/// Channel names in file order (sorted), and where each sits in an RGBA pixel.
const CHANNELS: [(&str, usize); 4] = [("A", 3), ("B", 2), ("G", 1), ("R", 0)];

/// Encodes linear, premultiplied RGBA as an EXR. `rgba_f16_bits` holds IEEE 754 half floats
/// as raw bits, pixel by pixel, rows top to bottom (as read back from an `Rgba16Float`
/// texture).
pub fn encode_exr_rgba_f16(
    width: u32,
    height: u32,
    rgba_f16_bits: &[u16],
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

    let mut out = Vec::with_capacity(expected * 2 + height as usize * 16 + 512);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION);
    write_header(&mut out, width, height);

    // Offset table: one absolute file offset per scanline chunk.
    let line_data_bytes = width as usize * 4 * 2;
    let chunk_bytes = 4 + 4 + line_data_bytes;
    let table_end = out.len() + height as usize * 8;
    for y in 0..height as usize {
        out.extend_from_slice(&((table_end + y * chunk_bytes) as u64).to_le_bytes());
    }

    // Chunks: y, byte count, then each channel's whole row in channel-list order.
    for y in 0..height as usize {
        out.extend_from_slice(&(y as i32).to_le_bytes());
        out.extend_from_slice(&(line_data_bytes as i32).to_le_bytes());
        let row = &rgba_f16_bits[y * width as usize * 4..(y + 1) * width as usize * 4];
        for (_, offset) in CHANNELS {
            for pixel in row.chunks_exact(4) {
                out.extend_from_slice(&pixel[offset].to_le_bytes());
            }
        }
    }
    Ok(out)
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

/// The sRGB transfer function, inverted: 8-bit code value to linear light in 0..=1.
pub fn srgb8_to_linear(value: u8) -> f32 {
    let v = value as f32 / 255.0;
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// Writes the header attributes (sorted by name, as the reference library does) and the
/// terminating zero byte.
fn write_header(out: &mut Vec<u8>, width: u32, height: u32) {
    let mut channels = Vec::new();
    for (name, _) in CHANNELS {
        channels.extend_from_slice(name.as_bytes());
        channels.push(0);
        channels.extend_from_slice(&PIXEL_TYPE_HALF.to_le_bytes());
        channels.push(0); // pLinear
        channels.extend_from_slice(&[0, 0, 0]); // reserved
        channels.extend_from_slice(&1i32.to_le_bytes()); // xSampling
        channels.extend_from_slice(&1i32.to_le_bytes()); // ySampling
    }
    channels.push(0);

    let mut window = Vec::new();
    for v in [0i32, 0, width as i32 - 1, height as i32 - 1] {
        window.extend_from_slice(&v.to_le_bytes());
    }

    attribute(out, "channels", "chlist", &channels);
    attribute(out, "compression", "compression", &[COMPRESSION_NONE]);
    attribute(out, "dataWindow", "box2i", &window);
    attribute(out, "displayWindow", "box2i", &window);
    attribute(out, "lineOrder", "lineOrder", &[LINE_ORDER_INCREASING_Y]);
    attribute(out, "pixelAspectRatio", "float", &1.0f32.to_le_bytes());
    let mut centre = Vec::new();
    centre.extend_from_slice(&0.0f32.to_le_bytes());
    centre.extend_from_slice(&0.0f32.to_le_bytes());
    attribute(out, "screenWindowCenter", "v2f", &centre);
    attribute(out, "screenWindowWidth", "float", &1.0f32.to_le_bytes());
    out.push(0);
}

/// One header attribute: name, type name, size, value.
fn attribute(out: &mut Vec<u8>, name: &str, type_name: &str, value: &[u8]) {
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.extend_from_slice(type_name.as_bytes());
    out.push(0);
    out.extend_from_slice(&(value.len() as i32).to_le_bytes());
    out.extend_from_slice(value);
}

/// Converts `f32` to IEEE 754 binary16 bits, rounding to nearest, ties to even; NaN stays NaN
/// (quiet), overflow becomes infinity, tiny values become subnormals or zero.
pub fn f32_to_f16_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xFF) as i32;
    let mantissa = bits & 0x007F_FFFF;

    if exponent == 0xFF {
        // Infinity or NaN (keep a quiet NaN's top mantissa bits, never turn NaN into infinity).
        let nan_bits = if mantissa != 0 {
            0x0200 | (mantissa >> 13) as u16
        } else {
            0
        };
        return sign | 0x7C00 | nan_bits;
    }
    let half_exponent = exponent - 127 + 15;
    if half_exponent >= 0x1F {
        return sign | 0x7C00;
    }
    if half_exponent <= 0 {
        // Subnormal half (or zero): shift the mantissa with its implicit bit into place.
        if half_exponent < -10 {
            return sign;
        }
        let full = mantissa | 0x0080_0000;
        let shift = (14 - half_exponent) as u32;
        let half_mantissa = full >> shift;
        let remainder = full & ((1 << shift) - 1);
        let halfway = 1 << (shift - 1);
        let round_up = remainder > halfway || (remainder == halfway && (half_mantissa & 1) == 1);
        return sign | (half_mantissa + round_up as u32) as u16;
    }
    let half_mantissa = mantissa >> 13;
    let remainder = mantissa & 0x1FFF;
    let mut result = ((half_exponent as u32) << 10) | half_mantissa;
    if remainder > 0x1000 || (remainder == 0x1000 && (half_mantissa & 1) == 1) {
        // May carry into the exponent, and from the largest finite value into infinity:
        // both are the correctly rounded results.
        result += 1;
    }
    sign | result as u16
}

/// Converts IEEE 754 binary16 bits to `f32` (exact: every half is an `f32`).
pub fn f16_bits_to_f32(bits: u16) -> f32 {
    let sign = ((bits & 0x8000) as u32) << 16;
    let exponent = ((bits >> 10) & 0x1F) as u32;
    let mantissa = (bits & 0x03FF) as u32;
    let out = match exponent {
        0 if mantissa == 0 => sign,
        0 => {
            // Subnormal: value = mantissa × 2^-24; normalise into an f32.
            let leading = mantissa.leading_zeros() - 22; // zeros within the 10-bit field
            let shifted = (mantissa << (leading + 1)) & 0x03FF;
            let f32_exponent = 127 - 15 - leading;
            sign | (f32_exponent << 23) | (shifted << 13)
        }
        0x1F => sign | 0x7F80_0000 | (mantissa << 13),
        _ => sign | ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(out)
}

/// Reads an EXR in exactly the layout [`encode_exr_rgba_f16`] writes (uncompressed scanline,
/// `HALF` channels A, B, G, R, data window from the origin) back into RGBA half bits.
pub fn decode_exr_rgba_f16(bytes: &[u8]) -> Result<(u32, u32, Vec<u16>), ExrError> {
    let bad = |why: &str| ExrError::Unsupported(why.to_string());
    if bytes.len() < 8 || bytes[0..4] != MAGIC {
        return Err(bad("not an OpenEXR file (wrong magic number)"));
    }
    if bytes[4] != 2 || bytes[5..8] != [0, 0, 0] {
        return Err(bad("only single-part scanline files are supported"));
    }
    let mut at = 8;
    let mut channels: Option<Vec<(String, i32)>> = None;
    let mut data_window: Option<[i32; 4]> = None;
    let mut compression = None;
    loop {
        let name = read_cstr(bytes, &mut at).ok_or_else(|| bad("header is cut short"))?;
        if name.is_empty() {
            break;
        }
        let _type_name = read_cstr(bytes, &mut at).ok_or_else(|| bad("header is cut short"))?;
        let size = read_i32(bytes, &mut at).ok_or_else(|| bad("header is cut short"))?;
        let end = at
            .checked_add(usize::try_from(size).map_err(|_| bad("negative attribute size"))?)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| bad("attribute runs past the end"))?;
        let value = &bytes[at..end];
        match name.as_str() {
            "channels" => {
                let mut list = Vec::new();
                let mut p = 0;
                loop {
                    let channel = read_cstr(value, &mut p).ok_or_else(|| bad("bad chlist"))?;
                    if channel.is_empty() {
                        break;
                    }
                    let pixel_type = read_i32(value, &mut p).ok_or_else(|| bad("bad chlist"))?;
                    p += 12; // pLinear, reserved, x and y sampling
                    list.push((channel, pixel_type));
                }
                channels = Some(list);
            }
            "dataWindow" => {
                let mut p = 0;
                let mut window = [0i32; 4];
                for v in &mut window {
                    *v = read_i32(value, &mut p).ok_or_else(|| bad("bad dataWindow"))?;
                }
                data_window = Some(window);
            }
            "compression" => compression = value.first().copied(),
            _ => {}
        }
        at = end;
    }
    let expected: Vec<(String, i32)> = CHANNELS
        .iter()
        .map(|(n, _)| (n.to_string(), PIXEL_TYPE_HALF))
        .collect();
    if channels.as_ref() != Some(&expected) {
        return Err(bad("expected HALF channels A, B, G, R"));
    }
    if compression != Some(COMPRESSION_NONE) {
        return Err(bad("only uncompressed files are supported"));
    }
    let [x_min, y_min, x_max, y_max] = data_window.ok_or_else(|| bad("no dataWindow"))?;
    if x_min != 0 || y_min != 0 || x_max < 0 || y_max < 0 {
        return Err(bad("data window must start at the origin"));
    }
    let width = x_max as u32 + 1;
    let height = y_max as u32 + 1;
    let line_values = width as usize * 4;
    let mut pixels = vec![0u16; line_values * height as usize];
    for y in 0..height as usize {
        let mut p = at + y * 8;
        let offset = read_u64(bytes, &mut p).ok_or_else(|| bad("offset table is cut short"))?;
        let mut chunk = usize::try_from(offset).map_err(|_| bad("offset out of range"))?;
        let line = read_i32(bytes, &mut chunk).ok_or_else(|| bad("chunk is cut short"))?;
        let size = read_i32(bytes, &mut chunk).ok_or_else(|| bad("chunk is cut short"))?;
        if line < 0 || line as u32 >= height || size as usize != line_values * 2 {
            return Err(bad("unexpected chunk"));
        }
        let data = bytes
            .get(chunk..chunk + line_values * 2)
            .ok_or_else(|| bad("chunk runs past the end"))?;
        let row = &mut pixels[line as usize * line_values..(line as usize + 1) * line_values];
        for (c, (_, offset)) in CHANNELS.iter().enumerate() {
            for x in 0..width as usize {
                let i = (c * width as usize + x) * 2;
                row[x * 4 + offset] = u16::from_le_bytes([data[i], data[i + 1]]);
            }
        }
    }
    Ok((width, height, pixels))
}

fn read_cstr(bytes: &[u8], at: &mut usize) -> Option<String> {
    let rest = bytes.get(*at..)?;
    let len = rest.iter().position(|&b| b == 0)?;
    let text = String::from_utf8_lossy(&rest[..len]).into_owned();
    *at += len + 1;
    Some(text)
}

fn read_i32(bytes: &[u8], at: &mut usize) -> Option<i32> {
    let v = i32::from_le_bytes(bytes.get(*at..*at + 4)?.try_into().ok()?);
    *at += 4;
    Some(v)
}

fn read_u64(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let v = u64::from_le_bytes(bytes.get(*at..*at + 8)?.try_into().ok()?);
    *at += 8;
    Some(v)
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
    fn round_trips_through_our_reader() {
        let (width, height) = (7, 5);
        let values = test_image(width, height);
        let bytes = encode_exr_rgba_f32(width, height, &values).unwrap();
        let (w, h, bits) = decode_exr_rgba_f16(&bytes).unwrap();
        assert_eq!((w, h), (width, height));
        for (i, (&v, &b)) in values.iter().zip(&bits).enumerate() {
            let back = f16_bits_to_f32(b);
            assert!(
                (back - v).abs() <= v.abs() * 1.0e-3 + 1.0e-6,
                "value {i}: {v} -> {back}"
            );
        }
        // Uncompressed: header + offsets + (8 + 8 bytes a pixel) per line.
        let data = (height * (8 + width * 8)) as usize;
        assert_eq!(
            bytes.len() - data - height as usize * 8,
            header_len(width, height)
        );
    }

    fn header_len(width: u32, height: u32) -> usize {
        let mut header = Vec::new();
        write_header(&mut header, width, height);
        header.len() + 8
    }

    #[test]
    fn ffmpeg_reads_the_same_values() {
        // An independent reader: ffmpeg's EXR decoder, as planar float G, B, R, A.
        let Some((ffmpeg, _)) =
            crate::output::video::tests::ffmpeg_tools("exr::ffmpeg_reads_the_same_values")
        else {
            return;
        };
        let (width, height) = (6u32, 3u32);
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
    fn header_has_the_required_attributes_in_order() {
        let bytes = encode_exr_rgba_f16(2, 1, &[0; 8]).unwrap();
        assert_eq!(&bytes[0..8], &[0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0]);
        let text = String::from_utf8_lossy(&bytes);
        let mut last = 0;
        for name in [
            "channels\0chlist\0",
            "compression\0compression\0",
            "dataWindow\0box2i\0",
            "displayWindow\0box2i\0",
            "lineOrder\0lineOrder\0",
            "pixelAspectRatio\0float\0",
            "screenWindowCenter\0v2f\0",
            "screenWindowWidth\0float\0",
        ] {
            let at = text
                .find(name)
                .unwrap_or_else(|| panic!("missing {name:?}"));
            assert!(at > last, "{name:?} out of order");
            last = at;
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
        assert!(decode_exr_rgba_f16(b"\x89PNG\r\n\x1a\n").is_err());
        let bytes = encode_exr_rgba_f16(3, 3, &[0x3C00; 36]).unwrap();
        assert!(decode_exr_rgba_f16(&bytes[..bytes.len() - 1]).is_err());
        assert_eq!(frame_file_name("frame", 42), "frame_0042.exr");
    }
}
