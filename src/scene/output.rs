//! The `output` section: picture size, frame rate, clip length and the fog's resolution.
//!
//! Kept apart from everything else because it only chooses which states are shown, never the
//! states themselves: the simulation's hash leaves it out (see [`super::canonical`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Picture size, frame rate, clip length and the fog's resolution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Output {
    /// Frame width in pixels. Default: 640.
    pub width: u32,
    /// Frame height in pixels. Default: 360.
    pub height: u32,
    /// Output frames per second; the simulation always steps at 60 Hz. Default: 60.
    pub fps: u32,
    /// Clip length in frames; takes precedence over `seconds`. Default: none.
    pub frames: Option<u32>,
    /// Clip length in seconds, used when `frames` is not given. Default: 10.
    pub seconds: Option<f64>,
    /// How finely the fog sheets are drawn (see [`FogResolution`]). Default: `Full`. Left out
    /// of the serialized scene when `Full`, so scenes without it keep their hash.
    #[serde(skip_serializing_if = "FogResolution::is_full")]
    pub fog_resolution: FogResolution,
}

/// How finely the fog sheets are drawn over the picture (`output.fog_resolution`,
/// `--fog-resolution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum FogResolution {
    /// Every pixel: the reference picture.
    #[default]
    Full,
    /// Half the width and half the height (a quarter of the fog's pixels), then brought up to
    /// the picture's size with weights that follow the scene's depth, so pillar edges stay
    /// sharp. About four times less fog work; the fog's fine grain is a little softer.
    Half,
}

impl FogResolution {
    /// Whether this is the default (`Full`), left out when a scene is written.
    pub fn is_full(&self) -> bool {
        *self == FogResolution::Full
    }

    /// The name `--fog-resolution` takes and reports (`full`, `half`).
    pub fn name(self) -> &'static str {
        match self {
            FogResolution::Full => "full",
            FogResolution::Half => "half",
        }
    }
}

impl Default for Output {
    fn default() -> Self {
        Output {
            width: 640,
            height: 360,
            fps: 60,
            frames: None,
            seconds: Some(Self::DEFAULT_SECONDS),
            fog_resolution: FogResolution::Full,
        }
    }
}

impl Output {
    /// Clip length used when neither `frames` nor `seconds` is given, in seconds.
    pub const DEFAULT_SECONDS: f64 = 10.0;

    /// Number of output frames in the clip.
    pub fn frame_count(&self) -> u32 {
        match (self.frames, self.seconds) {
            (Some(frames), _) => frames,
            (None, Some(seconds)) => (seconds * f64::from(self.fps)).round() as u32,
            (None, None) => (Self::DEFAULT_SECONDS * f64::from(self.fps)).round() as u32,
        }
    }
}
