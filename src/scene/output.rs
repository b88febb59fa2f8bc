//! The `output` section: picture size, frame rate and clip length.
//!
//! Kept apart from everything else because it only chooses which states are shown, never the
//! states themselves: the simulation's hash leaves it out (see [`super::canonical`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Picture size, frame rate and clip length.
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
}

impl Default for Output {
    fn default() -> Self {
        Output {
            width: 640,
            height: 360,
            fps: 60,
            frames: None,
            seconds: Some(Self::DEFAULT_SECONDS),
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
