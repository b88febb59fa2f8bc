//! The scene: everything a render depends on, as read from a RON file.
//!
//! Every value the temple example hard-codes is a field here with a unit, a default (the
//! example's value) and a one-line doc. The structs are plain data: the simulation and the
//! renderer read them, nothing here knows about the GPU. Parsing, `--set` overrides and the
//! `file:line:col` diagnostics live in [`diagnostics`] and [`overrides`]; range checks live in
//! [`validate`].
//!
//! Conventions: world Y is up, the floor is at y = 0, lengths are world units (the hall is 24
//! across), times are seconds, angles say their unit in the name, and colours are display
//! (sRGB) components in 0..=1, converted to linear light by the renderer.

pub mod diagnostics;
pub mod fires;
pub mod load;
pub mod overrides;
pub mod validate;

use serde::{Deserialize, Serialize};

pub use crate::sim::FluidParams;
pub use diagnostics::{SceneError, SourceText};
pub use fires::{Fire, FireKind, TorchMount};
pub use load::{LoadedScene, SceneErrors, load};

/// The default scene, embedded in the binary: the temple example spelt out in full.
pub const TEMPLE_RON: &str = include_str!("../../scenes/temple.ron");

/// A colour as display (sRGB) red, green, blue in 0..=1.
pub type Rgb = [f32; 3];

/// A complete scene: the hall, its lights and camera, the ball and its script, and the fog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scene {
    /// Name used for the default output folder (`out/<name>/`). Default: "temple".
    pub name: String,
    /// Picture size, frame rate and clip length.
    pub output: Output,
    /// How the camera moves.
    pub camera: Camera,
    /// Ambient, directional and the ball's point light.
    pub lights: Lights,
    /// The engine's linear distance fog that darkens the far end (not the ground fog).
    pub distance_fog: DistanceFog,
    /// Floor, pillars and altar.
    pub hall: Hall,
    /// The glowing ball and its script.
    pub ball: Ball,
    /// The fog sheets and how they read the fluid.
    pub fog: Fog,
    /// The 2D fluid under the fog.
    pub fluid: FluidParams,
    /// Torches and braziers: flames that burn and light the hall and the fog (at most
    /// [`fires::MAX_FIRES`]). Default: none. Left out of the serialized scene when empty, so a
    /// scene without fires keeps its scene hash.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fires: Vec<Fire>,
    /// Clear colour behind everything (sRGB). Default: #0b0f1a.
    pub background: Rgb,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            name: "temple".into(),
            output: Output::default(),
            camera: Camera::default(),
            lights: Lights::default(),
            distance_fog: DistanceFog::default(),
            hall: Hall::default(),
            ball: Ball::default(),
            fog: Fog::default(),
            fluid: FluidParams::default(),
            fires: Vec::new(),
            background: hex(0x0b0f1a),
        }
    }
}

/// Picture size, frame rate and clip length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// How the camera moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Camera {
    /// Follows the ball from above and behind with a lag, as the example does.
    Follow(FollowCamera),
    /// Stays where it is put.
    Fixed(FixedCamera),
    /// Moves through keyframes, linearly interpolated.
    Keyframed(KeyframedCamera),
}

impl Default for Camera {
    fn default() -> Self {
        Camera::Follow(FollowCamera::default())
    }
}

/// The example's camera: it eases toward a point behind the ball and looks at the ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FollowCamera {
    /// Where the camera starts (world). Default: (0, 7.5, 8).
    pub start: [f32; 3],
    /// How fast it catches up, 1/s: each step it covers 1 - exp(-lag_rate·dt) of the gap. Default: 2.5.
    pub lag_rate: f32,
    /// Fraction of the ball's offset from the centre that the camera follows. Default: 0.6.
    pub track: f32,
    /// How far behind (+z) the followed point the camera sits, world units. Default: 9.
    pub back: f32,
    /// Height of the point looked at, world units. Default: 0.4.
    pub look_height: f32,
    /// Vertical field of view in degrees. Default: 50.
    pub fov_y_deg: f32,
}

impl Default for FollowCamera {
    fn default() -> Self {
        FollowCamera {
            start: [0.0, 7.5, 8.0],
            lag_rate: 2.5,
            track: 0.6,
            back: 9.0,
            look_height: 0.4,
            fov_y_deg: 50.0,
        }
    }
}

/// A camera that does not move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FixedCamera {
    /// Eye position (world). Default: (0, 7.5, 11).
    pub position: [f32; 3],
    /// Point looked at (world). Default: (0, 0.4, 0).
    pub target: [f32; 3],
    /// Vertical field of view in degrees. Default: 50.
    pub fov_y_deg: f32,
}

impl Default for FixedCamera {
    fn default() -> Self {
        FixedCamera {
            position: [0.0, 7.5, 11.0],
            target: [0.0, 0.4, 0.0],
            fov_y_deg: 50.0,
        }
    }
}

/// A camera path through keyframes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KeyframedCamera {
    /// Keys in increasing time; before the first and after the last the camera holds still.
    pub keys: Vec<CameraKey>,
}

impl Default for KeyframedCamera {
    fn default() -> Self {
        let fixed = FixedCamera::default();
        KeyframedCamera {
            keys: vec![CameraKey {
                time_s: 0.0,
                position: fixed.position,
                target: fixed.target,
                fov_y_deg: fixed.fov_y_deg,
            }],
        }
    }
}

/// One camera keyframe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CameraKey {
    /// Time of the key in seconds. Default: 0.
    pub time_s: f32,
    /// Eye position (world). Default: (0, 7.5, 11).
    pub position: [f32; 3],
    /// Point looked at (world). Default: (0, 0.4, 0).
    pub target: [f32; 3],
    /// Vertical field of view in degrees. Default: 50.
    pub fov_y_deg: f32,
}

impl Default for CameraKey {
    fn default() -> Self {
        let fixed = FixedCamera::default();
        CameraKey {
            time_s: 0.0,
            position: fixed.position,
            target: fixed.target,
            fov_y_deg: fixed.fov_y_deg,
        }
    }
}

/// The lights of the hall.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Lights {
    /// Light from everywhere.
    pub ambient: AmbientLight,
    /// A moonlight-like directional light.
    pub directional: DirectionalLight,
    /// The point light the ball carries.
    pub ball: BallLight,
}

/// Light from everywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AmbientLight {
    /// Colour (sRGB). Default: #6a7aa8.
    pub color: Rgb,
    /// Intensity, multiplies the colour. Default: 0.35.
    pub intensity: f32,
}

impl Default for AmbientLight {
    fn default() -> Self {
        AmbientLight {
            color: hex(0x6a7aa8),
            intensity: 0.35,
        }
    }
}

/// A directional light, aimed by two rotations of the -z axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DirectionalLight {
    /// Colour (sRGB). Default: #b8c8ff.
    pub color: Rgb,
    /// Intensity. Default: 0.55.
    pub intensity: f32,
    /// Rotation about x in radians (negative points down). Default: -1.0.
    pub pitch_rad: f32,
    /// Rotation about y in radians. Default: 0.6.
    pub yaw_rad: f32,
}

impl Default for DirectionalLight {
    fn default() -> Self {
        DirectionalLight {
            color: hex(0xb8c8ff),
            intensity: 0.55,
            pitch_rad: -1.0,
            yaw_rad: 0.6,
        }
    }
}

impl DirectionalLight {
    /// Unit vector the light travels along (world), from rotating -z by pitch then yaw.
    pub fn direction_world(&self) -> [f32; 3] {
        let (sp, cp) = self.pitch_rad.sin_cos();
        let (sy, cy) = self.yaw_rad.sin_cos();
        // -z rotated about x by pitch: (0, sin p, -cos p); then about y by yaw.
        let (x, y, z) = (0.0, sp, -cp);
        [x * cy + z * sy, y, -x * sy + z * cy]
    }
}

/// The point light that follows the ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BallLight {
    /// Colour (sRGB). Default: #ffa860.
    pub color: Rgb,
    /// Mean intensity. Default: 2.0.
    pub intensity: f32,
    /// Reach in world units; the light fades to zero there. Default: 6.
    pub range: f32,
    /// Height of the light above the ball's centre, world units. Default: 0.4.
    pub height_above_ball: f32,
    /// Flicker amplitude added to the intensity. Default: 0.15.
    pub flicker: f32,
    /// Flicker angular rate in radians per second (sin(rate·t)). Default: 7.
    pub flicker_rate: f32,
}

impl Default for BallLight {
    fn default() -> Self {
        BallLight {
            color: hex(0xffa860),
            intensity: 2.0,
            range: 6.0,
            height_above_ball: 0.4,
            flicker: 0.15,
            flicker_rate: 7.0,
        }
    }
}

impl BallLight {
    /// Intensity at time `time_s`: the mean plus the flicker.
    pub fn intensity_at(&self, time_s: f64) -> f32 {
        self.intensity + (time_s * f64::from(self.flicker_rate)).sin() as f32 * self.flicker
    }
}

/// The engine's distance fog that fades the far end, over everything drawn (floor, pillars,
/// blocks, terrain, ball, flames and the fog sheets alike).
///
/// `mode` picks the curve: `linear` (nothing nearer than `near`, all of it at `far`),
/// `exponential` (1 − exp(−density·d)) or `exponential_squared` (1 − exp(−(density·d)²)).
/// With `height_falloff` above 0 the air thins with altitude, density · exp(−falloff·(y − base)),
/// integrated along the view ray: the distance `d` becomes the optical distance, so mist pools
/// in low ground in every mode. The default is the example's linear fog, the same at every
/// height.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DistanceFog {
    /// Colour the far end fades to (sRGB). Default: #0b0f1a.
    pub color: Rgb,
    /// Distance where it starts, world units (`linear` mode). Default: 9.
    pub near: f32,
    /// Distance where it is complete, world units (`linear` mode). Default: 24.
    pub far: f32,
    /// The curve: `linear`, `exponential` or `exponential_squared`. Default: linear.
    #[serde(skip_serializing_if = "is_linear")]
    pub mode: FogMode,
    /// Extinction at `base_height`, 1/world unit (exponential modes). Default: 0.05.
    #[serde(skip_serializing_if = "is_default_density")]
    pub density: f32,
    /// How fast the fog thins with height, 1/world unit; 0 is the same at every height.
    /// Default: 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub height_falloff: f32,
    /// Height where the density is `density` (below it the fog is denser), world units.
    /// Default: 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub base_height: f32,
    /// Clear air along the view ray before the haze begins, world units (exponential modes;
    /// `linear` has `near`). Default: 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub start: f32,
    /// The most of the fog colour that may cover anything, 0..=1. Default: 1.
    #[serde(skip_serializing_if = "is_one")]
    pub max_opacity: f32,
}

// The fields height fog added are left out of the serialized scene while they hold their
// defaults, so a scene that does not use them keeps its scene hash.
fn is_linear(mode: &FogMode) -> bool {
    *mode == FogMode::Linear
}

fn is_default_density(density: &f32) -> bool {
    *density == DistanceFog::default().density
}

fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

fn is_one(value: &f32) -> bool {
    *value == 1.0
}

impl Default for DistanceFog {
    fn default() -> Self {
        DistanceFog {
            color: hex(0x0b0f1a),
            near: 9.0,
            far: 24.0,
            mode: FogMode::Linear,
            density: 0.05,
            height_falloff: 0.0,
            base_height: 0.0,
            start: 0.0,
            max_opacity: 1.0,
        }
    }
}

/// How the distance fog grows with distance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FogMode {
    /// Nothing nearer than `near`, a straight ramp to all of it at `far`.
    #[default]
    Linear,
    /// 1 − exp(−density · distance): a uniform haze.
    Exponential,
    /// 1 − exp(−(density · distance)²): clear near the eye, then closing in fast.
    ExponentialSquared,
}

/// The temple: floor, pillars and altar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Hall {
    /// Side of the square floor centred on the origin, world units. Default: 24.
    pub floor_size: f32,
    /// Side of one stone slab, world units (each slab is cut into four by joints). Default: 2.
    pub tile_size: f32,
    /// Dark and light stone colours of the floor (sRGB). Default: #2a2f3d, #4a5164.
    pub floor_colors: [Rgb; 2],
    /// Colour of the joints between stones (sRGB). Default: #191c26.
    pub joint_color: Rgb,
    /// Pillar positions on the floor as (x, z), world units.
    pub pillars: Vec<[f32; 2]>,
    /// Pillar shaft radius, world units. Default: 0.38.
    pub pillar_radius: f32,
    /// Pillar shaft height, world units. Default: 3.2.
    pub pillar_height: f32,
    /// Side of the square base and capital blocks, world units. Default: 1.1.
    pub capital_size: f32,
    /// Height of the base and capital blocks, world units. Default: 0.3.
    pub capital_height: f32,
    /// Shaft, capital and base colours (sRGB). Default: #8c8aa0, #a6a3b8, #6f6d82.
    pub pillar_colors: [Rgb; 3],
    /// The altar in the middle.
    pub altar: Altar,
    /// Boxes standing in or round the hall: steps, terraces, walls, plinths. Those standing on
    /// the floor (bottom at or below `fog.bottom`) and reaching above it are solid to the fog.
    /// Default: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    /// Seeded hills round the hall: a valley and ridges beyond the floor. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terrain: Option<Terrain>,
}

impl Default for Hall {
    fn default() -> Self {
        Hall {
            floor_size: 24.0,
            tile_size: 2.0,
            floor_colors: [hex(0x2a2f3d), hex(0x4a5164)],
            joint_color: hex(0x191c26),
            pillars: vec![
                [-3.5, -3.5],
                [3.5, -3.5],
                [-3.5, 3.5],
                [3.5, 3.5],
                [0.0, -5.5],
                [-5.5, 0.0],
                [5.5, 0.0],
            ],
            pillar_radius: 0.38,
            pillar_height: 3.2,
            capital_size: 1.1,
            capital_height: 0.3,
            pillar_colors: [hex(0x8c8aa0), hex(0xa6a3b8), hex(0x6f6d82)],
            altar: Altar::default(),
            blocks: Vec::new(),
            terrain: None,
        }
    }
}

/// A box: a step, a terrace, a wall or a plinth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Block {
    /// Centre of its bottom face as (x, y_bottom, z), world units. Default: (0, 0, 0).
    pub bottom_center: [f32; 3],
    /// Size along x, y and z, world units. Default: (1, 1, 1).
    pub size: [f32; 3],
    /// Colour (sRGB). Default: #6f6d82.
    pub color: Rgb,
}

impl Default for Block {
    fn default() -> Self {
        Block {
            bottom_center: [0.0, 0.0, 0.0],
            size: [1.0, 1.0, 1.0],
            color: hex(0x6f6d82),
        }
    }
}

impl Block {
    /// Height of its top face, world units.
    pub fn top(&self) -> f32 {
        self.bottom_center[1] + self.size[1]
    }
}

/// Hills round the hall, as a heightfield from seeded value noise (see [`crate::terrain`]):
/// flat ground next to the floor, then a valley that rings the hall, then ridges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Terrain {
    /// Seed of the noise; the same seed always gives the same land. Default: 1.
    pub seed: u64,
    /// Side of the square of land centred on the hall, world units (the camera sees 100
    /// units far). Default: 160.
    pub size: f32,
    /// Cells along each side of the mesh, 8..=512. Default: 160.
    pub resolution: u32,
    /// Height of the highest ridges above the hall floor, world units. Default: 14.
    pub height: f32,
    /// Depth of the valley floor below the hall floor, world units. Default: 5.
    pub valley_depth: f32,
    /// Distance from the edge of the hall floor to the middle of the valley, world units.
    /// Default: 14.
    pub valley_distance: f32,
    /// Width of the valley, world units. Default: 14.
    pub valley_width: f32,
    /// Flat ground kept round the hall floor, just below it, world units. Default: 1.
    pub margin: f32,
    /// Wavelength of the largest hills, world units. Default: 36.
    pub feature_size: f32,
    /// Octaves of noise, each half the size of the last, 1..=8. Default: 4.
    pub octaves: u32,
    /// Colours of the valley floor and of the ridge tops (sRGB). Default: #2c3328, #6a6c74.
    pub colors: [Rgb; 2],
}

impl Default for Terrain {
    fn default() -> Self {
        Terrain {
            seed: 1,
            size: 160.0,
            resolution: 160,
            height: 14.0,
            valley_depth: 5.0,
            valley_distance: 14.0,
            valley_width: 14.0,
            margin: 1.0,
            feature_size: 36.0,
            octaves: 4,
            colors: [hex(0x2c3328), hex(0x6a6c74)],
        }
    }
}

/// The altar: a box standing on the floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Altar {
    /// Centre on the floor as (x, z), world units. Default: (0, 0).
    pub center: [f32; 2],
    /// Size along x, world units. Default: 1.6.
    pub width: f32,
    /// Size along y, world units. Default: 0.6.
    pub height: f32,
    /// Size along z, world units. Default: 1.0.
    pub depth: f32,
    /// Colour (sRGB). Default: #5d5a70.
    pub color: Rgb,
}

impl Default for Altar {
    fn default() -> Self {
        Altar {
            center: [0.0, 0.0],
            width: 1.6,
            height: 0.6,
            depth: 1.0,
            color: hex(0x5d5a70),
        }
    }
}

/// The glowing ball that stirs the fog, and the script that drives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ball {
    /// Radius, world units. Default: 0.5.
    pub radius: f32,
    /// Start position on the floor as (x, z), world units. Default: (2, 2).
    pub start: [f32; 2],
    /// Acceleration under full steering, world units/s². Default: 22.
    pub accel: f32,
    /// Gravity, world units/s². Default: 22.
    pub gravity: f32,
    /// Take-off speed of a jump, world units/s. Default: 8.5.
    pub jump: f32,
    /// How far from the centre it may roll along x and z, world units. Default: 7.5.
    pub limit: f32,
    /// Horizontal drag while steered, 1/s. Default: 3.5.
    pub drag: f32,
    /// Horizontal drag when let go, 1/s: it stops almost dead. Default: 9.
    pub stop_drag: f32,
    /// Extra radius added round pillars when the ball bumps into them, world units. Default: 0.07.
    pub pillar_clearance: f32,
    /// Extra radius added round the altar's circle (half its width), world units. Default: 0.1.
    pub altar_clearance: f32,
    /// Fraction of the inward speed reflected when bumping (1 stops, 2 bounces). Default: 1.6.
    pub bounce: f32,
    /// Surface tint (sRGB). Default: #ffd9a0.
    pub color: Rgb,
    /// Emitted colour (sRGB). Default: #ff9a3c.
    pub emissive: Rgb,
    /// The timed inputs that drive the ball, as a player would give them.
    pub script: Vec<Input>,
}

impl Default for Ball {
    fn default() -> Self {
        Ball {
            radius: 0.5,
            start: [2.0, 2.0],
            accel: 22.0,
            gravity: 22.0,
            jump: 8.5,
            limit: 7.5,
            drag: 3.5,
            stop_drag: 9.0,
            pillar_clearance: 0.07,
            altar_clearance: 0.1,
            bounce: 1.6,
            color: hex(0xffd9a0),
            emissive: hex(0xff9a3c),
            script: vec![Input::Auto(AutoDrive::default())],
        }
    }
}

/// One timed input of the ball's script.
///
/// Steering inputs (`Steer`, `Move`, `Stop`, `Auto`) hold from `at` for `duration` seconds (or
/// until a later steering input starts, when `duration` is not given); with no steering input
/// active the ball is let go. `Jump` fires once at `at`, if the ball is on the floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Input {
    /// Steer toward a point on the floor.
    Steer(Steer),
    /// Push along a fixed direction.
    Move(Move),
    /// Jump once.
    Jump(Jump),
    /// Let go: the ball stops almost dead, the air does not.
    Stop(Stop),
    /// Drive itself: the example's figure of eight with jumps drawn from a seeded generator.
    Auto(AutoDrive),
}

/// Steer toward a point on the floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Steer {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
    /// The point steered toward, (x, z) world units. Default: (0, 0).
    pub toward: [f32; 2],
}

impl Default for Steer {
    fn default() -> Self {
        Steer {
            at: 0.0,
            duration: None,
            toward: [0.0, 0.0],
        }
    }
}

/// Push along a fixed direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Move {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
    /// Direction on the floor as (x, z); longer than 1 is shortened to 1. Default: (0, -1).
    pub direction: [f32; 2],
}

impl Default for Move {
    fn default() -> Self {
        Move {
            at: 0.0,
            duration: None,
            direction: [0.0, -1.0],
        }
    }
}

/// Jump once at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Jump {
    /// Time of the jump in seconds. Default: 0.
    pub at: f64,
}

impl Default for Jump {
    fn default() -> Self {
        Jump { at: 0.0 }
    }
}

/// Let go of the ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Stop {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
}

impl Default for Stop {
    fn default() -> Self {
        Stop {
            at: 0.0,
            duration: None,
        }
    }
}

/// The example's self-driving mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AutoDrive {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
    /// Phase speed of the figure of eight, radians of the path per second. Default: 0.55.
    pub speed: f32,
    /// Half-width of the figure along x, world units. Default: 5.2.
    pub amplitude_x: f32,
    /// Half-depth of the figure along z, world units. Default: 2.6.
    pub amplitude_z: f32,
    /// Centre of the figure along z, world units. Default: 1.2.
    pub center_z: f32,
    /// Seconds from `at` to the first jump. Default: 1.2.
    pub first_jump: f32,
    /// Range of seconds between later jumps, drawn uniformly. Default: (3, 4.5).
    pub jump_every: [f32; 2],
    /// Seed of the generator that draws the jump intervals. Default: 1.
    pub seed: u64,
}

impl Default for AutoDrive {
    fn default() -> Self {
        AutoDrive {
            at: 0.0,
            duration: None,
            speed: 0.55,
            amplitude_x: 5.2,
            amplitude_z: 2.6,
            center_z: 1.2,
            first_jump: 1.2,
            jump_every: [3.0, 4.5],
            seed: 1,
        }
    }
}

/// The ground fog: sheets from `bottom` to `sheets_top` reading the fluid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fog {
    /// Side of the fog's square round the centre, world units; the fluid covers it. Default: 22.
    pub area: f32,
    /// Number of horizontal sheets. Default: 48.
    pub sheets: u32,
    /// Height of the fog's floor, world units. Default: 0.02.
    pub bottom: f32,
    /// Height the fog reaches at rest, world units. Default: 1.7.
    pub top: f32,
    /// Height of the highest sheet region, leaving room for lifted fog, world units. Default: 3.4.
    pub sheets_top: f32,
    /// Extra height fully lifted fog reaches, world units. Default: 1.6.
    pub lift_height: f32,
    /// Extinction: how much light a unit of fog takes, 1/world unit. Default: 5.5.
    pub sigma: f32,
    /// Extinction in the `flow` view, where the fog thins to a veil, 1/world unit. Default: 1.2.
    pub veil_sigma: f32,
    /// How far the air can carry the wisps from where they started, world units. Default: 6.
    pub offset_range: f32,
    /// Fog colour (sRGB). Default: (0.62, 0.68, 0.82).
    pub color: Rgb,
    /// Strength of the ball's glow in the fog. Default: 0.4.
    pub glow: f32,
    /// Colour of the ball's glow (sRGB). Default: (1.0, 0.55, 0.25).
    pub glow_color: Rgb,
    /// Drift of the noise with time (x, y, z), world units per second. Default: (0.08, 0.03, 0.05).
    pub wind: [f32; 3],
    /// The flow view's mesh takes one fluid cell in this many each way. Default: 2.
    pub flow_every: u32,
}

impl Default for Fog {
    fn default() -> Self {
        Fog {
            area: 22.0,
            sheets: 48,
            bottom: 0.02,
            top: 1.7,
            sheets_top: 3.4,
            lift_height: 1.6,
            sigma: 5.5,
            veil_sigma: 1.2,
            offset_range: 6.0,
            color: [0.62, 0.68, 0.82],
            glow: 0.4,
            glow_color: [1.0, 0.55, 0.25],
            wind: [0.08, 0.03, 0.05],
            flow_every: 2,
        }
    }
}

impl Fog {
    /// Height of sheet `index` (0 = lowest), world units: the middle of its slab.
    pub fn sheet_height(&self, index: u32) -> f32 {
        self.bottom + (self.sheets_top - self.bottom) * (index as f32 + 0.5) / self.sheets as f32
    }

    /// Spacing between sheets, world units.
    pub fn sheet_spacing(&self) -> f32 {
        (self.sheets_top - self.bottom) / self.sheets as f32
    }
}

/// A colour from a 24-bit hex value such as 0x0b0f1a, as sRGB components in 0..=1.
pub const fn hex(value: u32) -> Rgb {
    [
        ((value >> 16) & 0xff) as f32 / 255.0,
        ((value >> 8) & 0xff) as f32 / 255.0,
        (value & 0xff) as f32 / 255.0,
    ]
}
