//! Which video a file name asks for: the format follows the extension, case-insensitively
//! (`.mp4`, `.webm`, `.gif`, `.png` or `.apng`), and decides whether ffmpeg is needed.

use std::path::Path;

use super::VideoError;

/// The kinds of video fogbank writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VideoFormat {
    /// H.264 in MP4, through ffmpeg (`.mp4`).
    Mp4,
    /// VP9 in WebM, through ffmpeg (`.webm`).
    WebM,
    /// Animated GIF, native (`.gif`).
    Gif,
    /// Animated PNG, native (`.png`, `.apng`).
    Apng,
}

impl VideoFormat {
    /// Every format, in the order error messages list them.
    pub const ALL: [VideoFormat; 4] = [
        VideoFormat::Mp4,
        VideoFormat::WebM,
        VideoFormat::Gif,
        VideoFormat::Apng,
    ];

    /// The format for `path`'s extension (case-insensitive): `.mp4`, `.webm`, `.gif`, `.png`
    /// or `.apng`.
    pub fn from_path(path: &Path) -> Result<VideoFormat, VideoError> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("mp4") => Ok(VideoFormat::Mp4),
            Some("webm") => Ok(VideoFormat::WebM),
            Some("gif") => Ok(VideoFormat::Gif),
            Some("png" | "apng") => Ok(VideoFormat::Apng),
            _ => Err(VideoError::UnknownFormat {
                path: path.to_path_buf(),
            }),
        }
    }

    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            VideoFormat::Mp4 => "MP4 (H.264)",
            VideoFormat::WebM => "WebM (VP9)",
            VideoFormat::Gif => "GIF",
            VideoFormat::Apng => "animated PNG",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            VideoFormat::Mp4 => "mp4",
            VideoFormat::WebM => "webm",
            VideoFormat::Gif => "gif",
            VideoFormat::Apng => "png",
        }
    }

    /// True for the formats encoded by ffmpeg.
    pub fn needs_ffmpeg(self) -> bool {
        self.encoder().is_some()
    }

    /// The ffmpeg encoder used, if any.
    pub fn encoder(self) -> Option<&'static str> {
        match self {
            VideoFormat::Mp4 => Some("libx264"),
            VideoFormat::WebM => Some("libvpx-vp9"),
            VideoFormat::Gif | VideoFormat::Apng => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn formats_follow_the_extension() {
        let cases = [
            ("a/clip.mp4", VideoFormat::Mp4),
            ("clip.MP4", VideoFormat::Mp4),
            ("clip.webm", VideoFormat::WebM),
            ("clip.gif", VideoFormat::Gif),
            ("clip.png", VideoFormat::Apng),
            ("clip.apng", VideoFormat::Apng),
        ];
        for (path, format) in cases {
            assert_eq!(VideoFormat::from_path(Path::new(path)).unwrap(), format);
        }
        for path in ["clip.mov", "clip", "clip.mp4.bak"] {
            let err = VideoFormat::from_path(Path::new(path)).unwrap_err();
            let text = err.to_string();
            assert!(
                text.contains(path) && text.contains(".mp4, .webm, .gif or .png"),
                "{text}"
            );
        }
        assert!(VideoFormat::Mp4.needs_ffmpeg() && VideoFormat::WebM.needs_ffmpeg());
        assert!(!VideoFormat::Gif.needs_ffmpeg() && !VideoFormat::Apng.needs_ffmpeg());
        for format in VideoFormat::ALL {
            let path = PathBuf::from(format!("x.{}", format.extension()));
            assert_eq!(VideoFormat::from_path(&path).unwrap(), format);
        }
    }
}
