//! How to encode (`--fps`, `--crf`, `--preset`), with each format's defaults and limits.
//! [`VideoSettings::validate`] checks them against the format before anything renders.

use super::{VideoError, VideoFormat};

/// The x264 presets ffmpeg accepts for `--preset` with `.mp4`, fastest first.
pub const X264_PRESETS: [&str; 10] = [
    "ultrafast",
    "superfast",
    "veryfast",
    "faster",
    "fast",
    "medium",
    "slow",
    "slower",
    "veryslow",
    "placebo",
];
/// Default x264 preset.
pub const DEFAULT_X264_PRESET: &str = "medium";
/// Default x264 CRF: 18 is close to visually lossless, which fog's soft gradients need
/// (higher values band them).
pub const DEFAULT_X264_CRF: u32 = 18;
/// Default VP9 CRF (constant quality, `-b:v 0`); libvpx's scale runs to 63.
pub const DEFAULT_VP9_CRF: u32 = 28;
/// Default VP9 speed (`-cpu-used`, 0 slowest and best to 8 fastest).
pub const DEFAULT_VP9_SPEED: u32 = 4;
/// Highest frame rate accepted.
pub const MAX_FPS: u32 = 1000;

/// How to encode. Only `fps` applies to every format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoSettings {
    /// Frames per second of the clip (1 to [`MAX_FPS`]).
    pub fps: u32,
    /// Constant-quality factor, lower is better and larger: `.mp4` 0–51 (default
    /// [`DEFAULT_X264_CRF`]), `.webm` 0–63 (default [`DEFAULT_VP9_CRF`]). Not for GIF or PNG.
    pub crf: Option<u32>,
    /// Encoder speed: for `.mp4` an x264 preset ([`X264_PRESETS`], default `medium`); for
    /// `.webm` libvpx's speed 0 (slowest, best) to 8 (fastest), default
    /// [`DEFAULT_VP9_SPEED`]. Not for GIF or PNG.
    pub preset: Option<String>,
}

impl VideoSettings {
    /// Checks the settings against `format`, so a bad flag fails before rendering starts.
    pub fn validate(&self, format: VideoFormat) -> Result<(), VideoError> {
        if self.fps == 0 || self.fps > MAX_FPS {
            return Err(VideoError::Settings(format!(
                "the frame rate is {} fps; use 1 to {MAX_FPS}",
                self.fps
            )));
        }
        match format {
            VideoFormat::Mp4 => {
                if let Some(crf) = self.crf.filter(|&crf| crf > 51) {
                    return Err(VideoError::Settings(format!(
                        "--crf {crf} is out of range for .mp4 (H.264): use 0 (lossless) to 51; \
                         {DEFAULT_X264_CRF} is the default"
                    )));
                }
                if let Some(preset) = &self.preset
                    && !X264_PRESETS.contains(&preset.as_str())
                {
                    return Err(VideoError::Settings(format!(
                        "--preset {preset:?} is not an x264 preset: use one of {}",
                        X264_PRESETS.join(", ")
                    )));
                }
            }
            VideoFormat::WebM => {
                if let Some(crf) = self.crf.filter(|&crf| crf > 63) {
                    return Err(VideoError::Settings(format!(
                        "--crf {crf} is out of range for .webm (VP9): use 0 to 63; \
                         {DEFAULT_VP9_CRF} is the default"
                    )));
                }
                if let Some(preset) = &self.preset
                    && !matches!(preset.parse::<u32>(), Ok(0..=8))
                {
                    return Err(VideoError::Settings(format!(
                        "--preset {preset:?} is not a VP9 speed: for .webm use 0 (slowest, \
                         best) to 8 (fastest); {DEFAULT_VP9_SPEED} is the default"
                    )));
                }
            }
            VideoFormat::Gif | VideoFormat::Apng => {
                let flag = match (&self.crf, &self.preset) {
                    (Some(_), _) => "--crf",
                    (None, Some(_)) => "--preset",
                    (None, None) => return Ok(()),
                };
                return Err(VideoError::Settings(format!(
                    "{flag} applies to .mp4 and .webm only; {} is encoded without it \
                     (drop the flag or write .mp4 or .webm)",
                    format.name()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::video::test_support::settings;

    #[test]
    fn settings_are_checked_per_format() {
        let ok = |format, crf, preset: Option<&str>| {
            VideoSettings {
                fps: 30,
                crf,
                preset: preset.map(String::from),
            }
            .validate(format)
        };
        assert!(ok(VideoFormat::Mp4, Some(23), Some("slow")).is_ok());
        assert!(ok(VideoFormat::WebM, Some(63), Some("2")).is_ok());
        assert!(ok(VideoFormat::Gif, None, None).is_ok());
        let message = |r: Result<(), VideoError>| r.unwrap_err().to_string();
        assert!(message(ok(VideoFormat::Mp4, Some(52), None)).contains("0 (lossless) to 51"));
        assert!(message(ok(VideoFormat::Mp4, None, Some("fastest"))).contains("veryfast"));
        assert!(message(ok(VideoFormat::WebM, None, Some("slow"))).contains("0 (slowest"));
        assert!(message(ok(VideoFormat::WebM, Some(64), None)).contains("0 to 63"));
        assert!(message(ok(VideoFormat::Gif, Some(20), None)).contains("--crf applies"));
        assert!(message(ok(VideoFormat::Apng, None, Some("slow"))).contains("--preset applies"));
        assert!(settings(0).validate(VideoFormat::Gif).is_err());
        assert!(settings(1001).validate(VideoFormat::Mp4).is_err());
    }
}
