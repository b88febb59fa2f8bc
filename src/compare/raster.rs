//! The picture being compared: tightly packed 8-bit RGBA, loaded from and saved to PNG.
//!
//! Loading accepts any PNG the decoder understands (grey, palette, 16-bit) and converts it to
//! RGBA8, so a reference re-saved by another tool still compares. Saving goes through
//! [`crate::output`]'s encoder and atomic write, so an interrupted `fogbank check` never leaves
//! a truncated actual or diff image behind.

use super::CompareError;
use crate::output::atomic::write_atomic;
use crate::output::png::encode_rgba8;
use std::io;
use std::path::Path;

/// An 8-bit RGBA picture, rows top to bottom, 4 bytes per pixel, no padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes: R, G, B, A per pixel (sRGB-encoded colour for pictures).
    pub rgba8: Vec<u8>,
}

impl Image {
    /// An image from its parts, checking that the buffer holds exactly `width × height` pixels.
    pub fn from_rgba8(width: u32, height: u32, rgba8: Vec<u8>) -> Result<Image, CompareError> {
        let image = Image {
            width,
            height,
            rgba8,
        };
        image.check()?;
        Ok(image)
    }

    /// An image of one colour.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Image {
        let rgba8 = rgba.repeat(width as usize * height as usize);
        Image {
            width,
            height,
            rgba8,
        }
    }

    /// Number of pixels, `width × height`.
    pub fn pixel_count(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// `Ok` when the buffer length matches the size; the fields are public, so callers that
    /// build an [`Image`] by hand can get this wrong.
    pub fn check(&self) -> Result<(), CompareError> {
        let needed = self.pixel_count() * 4;
        if self.rgba8.len() == needed {
            Ok(())
        } else {
            Err(CompareError::BadBuffer {
                width: self.width,
                height: self.height,
                len: self.rgba8.len(),
                needed,
            })
        }
    }

    /// The pixel at (`x`, `y`), or `None` outside the image (or past a short buffer).
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let start = (y as usize * self.width as usize + x as usize) * 4;
        let bytes = self.rgba8.get(start..start + 4)?;
        Some([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
}

/// Reads a PNG into RGBA8. Errors name the file and say whether it is missing, unreadable or
/// not a PNG.
pub fn load_png(path: &Path) -> Result<Image, CompareError> {
    let bytes = std::fs::read(path).map_err(|source| {
        if source.kind() == io::ErrorKind::NotFound {
            CompareError::Missing {
                path: path.to_path_buf(),
            }
        } else {
            CompareError::Unreadable {
                path: path.to_path_buf(),
                source,
            }
        }
    })?;
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .map_err(|e| CompareError::NotPng {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
        .to_rgba8();
    let (width, height) = decoded.dimensions();
    Ok(Image {
        width,
        height,
        rgba8: decoded.into_raw(),
    })
}

/// Writes `image` as an sRGB-tagged PNG, atomically: the bytes go to a hidden `.NAME.….tmp`
/// beside `path` and are renamed into place, so readers see no file or a whole one.
pub fn save_png(image: &Image, path: &Path) -> Result<(), CompareError> {
    image.check()?;
    let bytes = encode_rgba8(image.width, image.height, &image.rgba8, true).map_err(|e| {
        CompareError::Encode {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    write_atomic(path, &bytes).map_err(|source| CompareError::Write {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;

    fn scratch_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fogbank-compare-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn gradient(width: u32, height: u32) -> Image {
        let mut rgba8 = Vec::new();
        for y in 0..height {
            for x in 0..width {
                rgba8.extend_from_slice(&[(x * 7) as u8, (y * 5) as u8, ((x + y) * 3) as u8, 200]);
            }
        }
        Image::from_rgba8(width, height, rgba8).unwrap()
    }

    #[test]
    fn save_then_load_round_trips_and_leaves_no_temporary() {
        let dir = scratch_dir("save");
        let path = dir.join("frame_0001.png");
        let image = gradient(13, 9);
        save_png(&image, &path).unwrap();
        save_png(&image, &path).unwrap();
        assert_eq!(load_png(&path).unwrap(), image);
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["frame_0001.png".to_string()]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn load_errors_name_the_file_and_the_problem() {
        let dir = scratch_dir("load");
        let missing = dir.join("nothing.png");
        let err = load_png(&missing).unwrap_err();
        assert!(matches!(err, CompareError::Missing { .. }));
        assert!(err.to_string().contains("nothing.png"));

        let text = dir.join("notes.png");
        fs::write(&text, b"this is not a png").unwrap();
        let err = load_png(&text).unwrap_err();
        assert!(matches!(err, CompareError::NotPng { .. }));
        assert!(err.to_string().contains("notes.png"));

        let err = load_png(&dir).unwrap_err();
        assert!(matches!(err, CompareError::Unreadable { .. }), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_buffers_are_rejected_not_panicked_on() {
        assert!(matches!(
            Image::from_rgba8(2, 2, vec![0; 15]),
            Err(CompareError::BadBuffer {
                needed: 16,
                len: 15,
                ..
            })
        ));
        let short = Image {
            width: 2,
            height: 2,
            rgba8: vec![0; 12],
        };
        assert_eq!(short.pixel(1, 1), None);
        assert_eq!(short.pixel(0, 1), Some([0; 4]));
        assert!(save_png(&short, Path::new("/nonexistent/x.png")).is_err());
    }
}
