//! What the frame loop hands the renderer for one output frame, and what comes back.
//!
//! This is the only meeting point of the simulation and the GPU (see ARCHITECTURE.md, "Data flow"):
//! the loop fills [`FrameInputs`] from the ball, the camera and the fluid maps, the renderer
//! turns it into a [`Frame`]. Nothing here refers to the scene file.

use crate::frame_pool::FrameBytes;
use crate::samples::SampleOffset;

/// The picture variants a render can show (`--view`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// The fog as it is.
    #[default]
    Fog,
    /// The fog's sheets in wireframe (they never move: all motion is in the shader).
    Sheets,
    /// The fluid as a mesh of lines whose points follow the air; the fog thins to a veil.
    Flow,
    /// The fluid shown on the fog: red the fog, green and blue where it moved.
    Fluid,
}

impl View {
    /// Every view, in the order the CLI lists them.
    pub const ALL: [View; 4] = [View::Fog, View::Sheets, View::Flow, View::Fluid];

    /// The name used on the command line and in file names.
    pub fn name(self) -> &'static str {
        match self {
            View::Fog => "fog",
            View::Sheets => "sheets",
            View::Flow => "flow",
            View::Fluid => "fluid",
        }
    }
}

/// Where the camera is and what it looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraPose {
    /// Eye position, world units.
    pub eye_world: [f32; 3],
    /// Point looked at, world units.
    pub target_world: [f32; 3],
    /// Vertical field of view, degrees.
    pub fov_y_deg: f32,
}

/// A solid capsule in world units: the segment from `a_world` to `b_world` swept by a sphere of
/// `radius_world` (a sphere when the two ends meet). People are drawn as a few of these (body,
/// head, legs); the scene pass shades them and the lamps' shadow maps draw them as casters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    /// One end of the axis, world units.
    pub a_world: [f32; 3],
    /// The other end of the axis, world units.
    pub b_world: [f32; 3],
    /// Radius round the axis, world units.
    pub radius_world: f32,
    /// Surface colour, linear RGB in 0..=1.
    pub albedo_linear: [f32; 3],
}

/// What the weather shows in one frame: the state of the world's weather at the frame's step,
/// with what the renderer needs already worked out on the CPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeatherFrame {
    /// Distance-fog density (exponential modes), 1/world unit.
    pub fog_density: f32,
    /// Gloom, 0..=1.
    pub gloom: f32,
    /// How hard it rains, 0..=1.
    pub rain: f32,
    /// How wet the ground is, 0..=1.
    pub wetness: f32,
    /// The lightning flash, 0..=1.
    pub flash: f32,
    /// The wind on the floor (x, z), world units per second.
    pub wind_world_per_s: [f32; 2],
    /// How far the wind has carried something since time 0 (x, z), world units (the rain).
    pub drift_world: [f32; 2],
    /// How far the fog's noise has drifted since time 0 (x, y, z), world units: the wind's
    /// accumulated drift times `weather.wind.noise_share` across, `fog.wind`'s y times the
    /// time up.
    pub noise_drift_world: [f32; 3],
    /// Factor on the fog sheets' colour: below 1 under gloom (the storm's ambient over the
    /// clear one), above 1 in a flash.
    pub fog_light: f32,
    /// The latest lightning strike: its number (1 for the first) and time in seconds.
    pub last_strike: Option<(u32, f64)>,
}

/// Everything that changes from one frame to the next.
#[derive(Debug, Clone, Copy)]
pub struct FrameInputs<'a> {
    /// Output frame number (frame N is the picture at time N / fps).
    pub frame_index: u32,
    /// Time of the frame in seconds: drives the noise wind and the flicker.
    pub time_s: f32,
    /// The camera for this frame.
    pub camera: CameraPose,
    /// Centre of the ball, world units.
    pub ball_pos_world: [f32; 3],
    /// The ball's spin about y, radians (for its surface pattern).
    pub ball_spin_rad: f32,
    /// Intensity of the ball's point light this frame (flicker applied).
    pub ball_light_intensity: f32,
    /// The fluid map, RGBA8, grid × grid, row j = 0 first: density/2, drift x, drift z, 255.
    pub fluid_map: &'a [u8],
    /// The lift map, RGBA8, grid × grid: lift, speed / speed_scale, 0, 255.
    pub lift_map: &'a [u8],
    /// The weather in this frame; `None` for a scene without weather.
    pub weather: Option<WeatherFrame>,
    /// Solid capsules drawn in the hall this frame (the people's bodies, heads and legs), in
    /// a fixed order; empty for a scene without people.
    pub capsules: &'a [Capsule],
    /// Where this picture's sample falls in its pixel and between the fog's steps:
    /// [`SampleOffset::CENTRE`] for a single-sample frame. The renderer sets it for each of a
    /// frame's samples (`crate::samples`).
    pub sample: SampleOffset,
    /// With a shutter (`output.shutter` above 0): what each of the frame's samples sees at
    /// its own moment, in the schedule's order. Empty without one: every sample sees the
    /// frame's moment.
    pub motion: &'a [MotionSample],
}

/// What one sample of a frame sees at its own moment of the shutter's interval: the world
/// between the two 60 Hz steps round that moment, blended, and what is a function of the
/// absolute time (the walkers, the flicker, the rain, the bolt) at that moment itself.
#[derive(Debug, Clone, PartialEq)]
pub struct MotionSample {
    /// The sample's moment, seconds.
    pub time_s: f32,
    /// The camera, blended between the two steps.
    pub camera: CameraPose,
    /// Centre of the ball, world units, blended between the two steps.
    pub ball_pos_world: [f32; 3],
    /// The ball's spin, radians, blended between the two steps.
    pub ball_spin_rad: f32,
    /// The ball light's intensity at the moment.
    pub ball_light_intensity: f32,
    /// The fluid map, blended between the two steps' maps.
    pub fluid_map: Vec<u8>,
    /// The lift map, blended between the two steps' maps.
    pub lift_map: Vec<u8>,
    /// The weather, blended between the two steps; `None` without weather.
    pub weather: Option<WeatherFrame>,
    /// The walkers' capsules posed at the moment.
    pub capsules: Vec<Capsule>,
}

impl MotionSample {
    /// The inputs of the sample `sample` of `frame` that sees this moment.
    pub fn inputs<'a>(&'a self, frame: &FrameInputs<'a>, sample: SampleOffset) -> FrameInputs<'a> {
        FrameInputs {
            time_s: self.time_s,
            camera: self.camera,
            ball_pos_world: self.ball_pos_world,
            ball_spin_rad: self.ball_spin_rad,
            ball_light_intensity: self.ball_light_intensity,
            fluid_map: &self.fluid_map,
            lift_map: &self.lift_map,
            weather: self.weather,
            capsules: &self.capsules,
            sample,
            motion: &[],
            ..*frame
        }
    }
}

/// A finished frame read back from the GPU: 8-bit sRGB RGBA, rows top to bottom, tightly packed,
/// and, when the renderer was asked for them (`RenderConfig::readback`), the linear pictures
/// behind it as IEEE 754 half floats (raw bits), laid out the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Output frame number.
    pub frame_index: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes, in a buffer that goes back to the renderer's
    /// [`crate::frame_pool::FramePool`] when the last consumer drops it (`vec.into()` makes
    /// one that belongs to no pool).
    pub rgba8: FrameBytes,
    /// The linear colour target itself, before the sRGB encode: `width * height * 4` halves,
    /// RGBA, values above 1.0 kept (glow, flames), alpha 1 (the picture is opaque). `rgba8` is
    /// this picture clamped to 0..=1 and encoded to sRGB. `None` unless asked for.
    pub linear_f16: Option<Vec<u16>>,
    /// The fog alone (`--layers`): the fog sheets over transparent black, linear,
    /// premultiplied alpha, cut out by the scene's opaque geometry; no flames, no overlay.
    /// `width * height * 4` halves. `None` unless asked for.
    pub fog_f16: Option<Vec<u16>>,
    /// The weather alone (`--layers`, scenes with weather): the rain's streaks, splashes and
    /// debris and the lightning bolt over transparent black, linear, premultiplied alpha,
    /// hidden behind the scene's opaque geometry, fogged by the distance fog as in the
    /// picture. `width * height * 4` halves. `None` unless asked for, and always for a scene
    /// without weather.
    pub weather_f16: Option<Vec<u16>>,
}
