//! The `output` section: picture size, frame rate, clip length, the fog's resolution and the
//! samples a pixel.
//!
//! Kept apart from everything else because it only chooses which states are shown, never the
//! states themselves: the simulation's hash leaves it out (see [`super::canonical`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Picture size, frame rate, clip length, the fog's resolution and the samples a pixel.
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
    /// Samples a pixel, 1..=256 (`--samples`): each frame is drawn this many times with
    /// sub-pixel and fog-step offsets and averaged in linear light (see `crate::samples`).
    /// 1 is the single-sample picture. Default: left out, the anti-aliased picture of
    /// `edge_samples`. Left out of the serialized scene when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// Samples a pixel at an edge, 1..=256 (`--edge-samples`), with `samples` at 1 or absent:
    /// the frame's first sample is drawn everywhere, and only the pixels whose colour stands
    /// out from a neighbour's (a silhouette, a flame's rim, a streak of rain) draw the rest of
    /// the schedule and average them (see `crate::samples`). Default: left out, which is
    /// [`crate::samples::DEFAULT_EDGE_SAMPLES`] when `samples` is absent too (the anti-aliased
    /// default), and 1 when `samples` is given. Left out of the serialized scene when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_samples: Option<u32>,
    /// The share of a frame's interval the shutter is open, 0..=1 (`--shutter`), centred on
    /// the frame's moment: 0.5 is a 180° shutter. The samples spread over it, each seeing the
    /// world at its own moment: motion blur. Needs `samples` of 2 or more. Default: 0, the
    /// instant. Left out of the serialized scene when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub shutter: f32,
    /// A caption strip burnt into each 8-bit picture (`--stamp`): `Bottom` or `Top`, with the
    /// scene's name, the frame, its time, view, compositor, samples and the state hash (see
    /// `crate::output::caption`). EXR frames and layers never carry it. Default: `Off`. Left
    /// out of the serialized scene when `Off`.
    #[serde(skip_serializing_if = "StampPlace::is_off")]
    pub stamp: StampPlace,
    /// Free text for the caption strip (`--caption`), at most [`MAX_CAPTION_CHARS`]
    /// characters on one line; it shows even with `stamp` off (then along the bottom).
    /// Default: none. Left out of the serialized scene when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
}

/// The longest `output.caption`, in characters.
pub const MAX_CAPTION_CHARS: usize = 200;

/// Where the caption strip goes (`output.stamp`, `--stamp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum StampPlace {
    /// No strip: the picture as rendered.
    #[default]
    Off,
    /// Along the bottom edge.
    Bottom,
    /// Along the top edge.
    Top,
}

impl StampPlace {
    /// Whether this is the default, no strip.
    pub fn is_off(&self) -> bool {
        *self == StampPlace::Off
    }
}

fn is_zero(value: &f32) -> bool {
    *value == 0.0
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
    /// `Half` on a CPU adapter (lavapipe), where the fog is most of a frame's work, and `Full`
    /// on a GPU. Opt-in, not the default: a farm mixing CPU and GPU nodes would get frames of
    /// two kinds. A render reports which one ran (`render --stats`, `--json`).
    Auto,
}

impl FogResolution {
    /// Whether this is the default (`Full`), left out when a scene is written.
    pub fn is_full(&self) -> bool {
        *self == FogResolution::Full
    }

    /// The name `--fog-resolution` takes and reports (`full`, `half`, `auto`).
    pub fn name(self) -> &'static str {
        match self {
            FogResolution::Full => "full",
            FogResolution::Half => "half",
            FogResolution::Auto => "auto",
        }
    }

    /// The resolution this asks for on an adapter that is (`cpu_adapter`) or is not a CPU
    /// adapter: `Auto` resolved, `Full` and `Half` kept.
    pub fn for_adapter(self, cpu_adapter: bool) -> FogResolution {
        match self {
            FogResolution::Auto if cpu_adapter => FogResolution::Half,
            FogResolution::Auto => FogResolution::Full,
            chosen => chosen,
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
            samples: None,
            edge_samples: None,
            shutter: 0.0,
            stamp: StampPlace::Off,
            caption: None,
        }
    }
}

impl Output {
    /// Clip length used when neither `frames` nor `seconds` is given, in seconds.
    pub const DEFAULT_SECONDS: f64 = 10.0;

    /// How each frame is sampled: `samples` and `edge_samples` as the renderer reads them.
    pub fn sampling(&self) -> crate::samples::Sampling {
        crate::samples::Sampling::new(self.samples_everywhere(), self.samples_at_edges())
    }

    /// Samples on every pixel: `samples`, or 1 when it is left out.
    pub fn samples_everywhere(&self) -> u32 {
        self.samples.unwrap_or(1)
    }

    /// Samples at an edge: `edge_samples`; left out, 1 where `samples` is given, else the
    /// anti-aliased default ([`crate::samples::DEFAULT_EDGE_SAMPLES`]).
    pub fn samples_at_edges(&self) -> u32 {
        match (self.samples, self.edge_samples) {
            (_, Some(count)) => count,
            (Some(_), None) => 1,
            (None, None) => crate::samples::DEFAULT_EDGE_SAMPLES,
        }
    }

    /// Number of output frames in the clip.
    pub fn frame_count(&self) -> u32 {
        match (self.frames, self.seconds) {
            (Some(frames), _) => frames,
            (None, Some(seconds)) => (seconds * f64::from(self.fps)).round() as u32,
            (None, None) => (Self::DEFAULT_SECONDS * f64::from(self.fps)).round() as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_half_on_a_cpu_adapter_and_full_on_a_gpu() {
        assert_eq!(FogResolution::Auto.for_adapter(true), FogResolution::Half);
        assert_eq!(FogResolution::Auto.for_adapter(false), FogResolution::Full);
        for chosen in [FogResolution::Full, FogResolution::Half] {
            assert_eq!(chosen.for_adapter(true), chosen);
            assert_eq!(chosen.for_adapter(false), chosen);
        }
    }

    #[test]
    fn auto_reads_from_a_scene_and_is_written_back() {
        let output: Output = ron::from_str("(fog_resolution: Auto)").expect("parses");
        assert_eq!(output.fog_resolution, FogResolution::Auto);
        let written = ron::to_string(&output).expect("writes");
        assert!(written.contains("Auto"), "{written}");
    }
}
