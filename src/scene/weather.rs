//! The `weather` section: the sky at time 0 and its changes, what each kind of sky does to the
//! fog, the gloom, the rain and the wind, how fast each quantity eases, the one wind, the
//! lightning and the colours of a storm.
//!
//! Absent, the scene has no weather and renders byte for byte as it did before weather existed.
//! Present, [`crate::weather::WeatherState`] advances it once per 60 Hz step.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Rgb, hex};

/// A kind of sky. Every quantity a sky sets has its number for each kind in
/// [`SkyKind::default_targets`], a `match` with no catch-all: a kind added here does not
/// compile until it has its numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SkyKind {
    /// A clear evening: thin haze, a light breeze.
    #[default]
    Clear,
    /// Steady rain: thicker haze, some gloom.
    Rain,
    /// A storm: thick haze, full gloom, hard rain, a gale and lightning.
    Storm,
}

impl SkyKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [SkyKind; 3] = [SkyKind::Clear, SkyKind::Rain, SkyKind::Storm];

    /// The name used in scene files and in `simulate --json`.
    pub fn name(self) -> &'static str {
        match self {
            SkyKind::Clear => "Clear",
            SkyKind::Rain => "Rain",
            SkyKind::Storm => "Storm",
        }
    }

    /// What this kind of sky asks for when the scene does not override it.
    pub fn default_targets(self) -> SkyTargets {
        match self {
            SkyKind::Clear => SkyTargets {
                fog_density: 0.003,
                gloom: 0.0,
                rain: 0.0,
                wind: 3.0,
            },
            SkyKind::Rain => SkyTargets {
                fog_density: 0.012,
                gloom: 0.3,
                rain: 0.6,
                wind: 3.0,
            },
            SkyKind::Storm => SkyTargets {
                fog_density: 0.014,
                gloom: 1.0,
                rain: 1.0,
                wind: 9.0,
            },
        }
    }
}

/// The values a sky eases toward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkyTargets {
    /// Extinction of the distance fog in its exponential modes, 1/world unit.
    pub fog_density: f32,
    /// How dark the sky makes the scene, 0..=1.
    pub gloom: f32,
    /// How hard it rains, 0..=1.
    pub rain: f32,
    /// The wind's base speed, world units per second.
    pub wind: f32,
}

/// A scene's own numbers for one kind of sky; a field left out keeps the kind's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SkyOverride {
    /// Extinction of the distance fog in its exponential modes, 1/world unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fog_density: Option<f32>,
    /// How dark the sky makes the scene, 0..=1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gloom: Option<f32>,
    /// How hard it rains, 0..=1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rain: Option<f32>,
    /// The wind's base speed, world units per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wind: Option<f32>,
}

impl SkyOverride {
    /// `defaults` with this override's fields put over them.
    pub fn over(&self, defaults: SkyTargets) -> SkyTargets {
        SkyTargets {
            fog_density: self.fog_density.unwrap_or(defaults.fog_density),
            gloom: self.gloom.unwrap_or(defaults.gloom),
            rain: self.rain.unwrap_or(defaults.rain),
            wind: self.wind.unwrap_or(defaults.wind),
        }
    }
}

/// The scene's overrides of each kind of sky's targets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Skies {
    /// Overrides for `Clear`.
    pub clear: SkyOverride,
    /// Overrides for `Rain`.
    pub rain: SkyOverride,
    /// Overrides for `Storm`.
    pub storm: SkyOverride,
}

impl Skies {
    /// The override of `kind`.
    pub fn of(&self, kind: SkyKind) -> &SkyOverride {
        match kind {
            SkyKind::Clear => &self.clear,
            SkyKind::Rain => &self.rain,
            SkyKind::Storm => &self.storm,
        }
    }
}

/// The sky turning into another kind at a moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkyChange {
    /// When, seconds from the start (takes effect at the first 60 Hz step at or after it).
    pub at: f64,
    /// The kind of sky from then on.
    pub sky: SkyKind,
}

/// How fast each quantity eases toward its target, in its unit per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WeatherRates {
    /// Distance-fog density, 1/world unit per second. Default: 0.004.
    pub fog_density: f32,
    /// Gloom per second. Default: 0.3.
    pub gloom: f32,
    /// Rain per second. Default: 0.4.
    pub rain: f32,
    /// Wind speed, world units per second per second. Default: 2.
    pub wind: f32,
    /// How fast the ground gets wet while it rains (rain above 0.05), per second. Default: 0.3.
    pub wetting: f32,
    /// How fast the ground dries when it does not rain, per second. Default: 0.02.
    pub drying: f32,
    /// How fast a lightning flash fades, per second. Default: 4.
    pub flash_decay: f32,
}

impl Default for WeatherRates {
    fn default() -> Self {
        WeatherRates {
            fog_density: 0.004,
            gloom: 0.3,
            rain: 0.4,
            wind: 2.0,
            wetting: 0.3,
            drying: 0.02,
            flash_decay: 4.0,
        }
    }
}

/// The one wind: a prevailing direction, gusts on top of the sky's base speed and a wandering
/// direction, repeating exactly every `cycle_s`. It drives the fluid and the fog's noise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WindProfile {
    /// Prevailing direction on the floor (x, z); only its direction counts. Default: (1, 0.3).
    pub direction: [f32; 2],
    /// Gust speed as a share of the base speed (gusts add up to this on top). Default: 0.45.
    pub gust_share: f32,
    /// How far the direction wanders either side of the prevailing one, radians. Default: 0.3.
    pub wander_rad: f32,
    /// The whole signal repeats after this long, seconds (rounded to whole 60 Hz steps).
    /// Default: 40.
    pub cycle_s: f32,
    /// Where in the cycle time 0 falls, seconds. Default: 0.
    pub phase_s: f32,
    /// How hard the wind drags the air in the hall, per world unit of wind speed: the air
    /// takes up the wind at `drag · speed` per second (a breeze barely stirs it, a gale carries
    /// it). Default: 0.1.
    pub drag: f32,
    /// Share of the wind's travel by which the fog's noise drifts (the ground fog moves slower
    /// than the wind above it). Default: 0.1.
    pub noise_share: f32,
    /// How much fog the wind presses against the windward face of a pillar or wall, and strips
    /// from its lee, as a share of the fog the wind carries into it. Default: 0.2.
    pub pile_share: f32,
}

impl Default for WindProfile {
    fn default() -> Self {
        WindProfile {
            direction: [1.0, 0.3],
            gust_share: 0.45,
            wander_rad: 0.3,
            cycle_s: 40.0,
            phase_s: 0.0,
            drag: 0.1,
            noise_share: 0.1,
            pile_share: 0.2,
        }
    }
}

/// When lightning strikes (only while the sky is `Storm`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Lightning {
    /// Seed of the gaps between strikes and of every bolt's path. Default: 7.
    pub seed: u64,
    /// Delay from the moment the sky first turns `Storm` to the first strike, seconds.
    /// Default: 1.5.
    pub first_after_s: f32,
    /// Shortest gap between two strikes, seconds. Default: 2.
    pub gap_min_s: f32,
    /// Longest gap between two strikes, seconds. Default: 7.
    pub gap_max_s: f32,
    /// How much a flash at full strength adds to the ambient light (linear). Default: 0.9.
    pub flash_ambient: f32,
}

impl Default for Lightning {
    fn default() -> Self {
        Lightning {
            seed: 7,
            first_after_s: 1.5,
            gap_min_s: 2.0,
            gap_max_s: 7.0,
            flash_ambient: 0.9,
        }
    }
}

/// The weather of a scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Weather {
    /// The sky at time 0: `Clear`, `Rain` or `Storm`. Default: Clear.
    pub sky: SkyKind,
    /// Later skies, in time order: `[(at: 3.0, sky: Storm), …]`. Default: none.
    pub changes: Vec<SkyChange>,
    /// Each kind of sky's own numbers, overriding the documented ones. Default: none.
    pub skies: Skies,
    /// How fast each quantity eases toward its target.
    pub rates: WeatherRates,
    /// The one wind.
    pub wind: WindProfile,
    /// When lightning strikes.
    pub lightning: Lightning,
    /// Share of the distance fog's `far` that full gloom takes away (the far end closes in
    /// from `far` to `far · (1 − share)`, never nearer than `near`). Default: 0.36.
    pub gloom_far_share: f32,
    /// Colour the distance fog turns to at full gloom (sRGB). Default: #1a1d24.
    pub storm_fog_color: Rgb,
    /// Ambient colour at full gloom (sRGB). Default: #4a5468.
    pub storm_ambient_color: Rgb,
    /// Ambient intensity at full gloom. Default: 0.2.
    pub storm_ambient_intensity: f32,
}

impl Default for Weather {
    fn default() -> Self {
        Weather {
            sky: SkyKind::Clear,
            changes: Vec::new(),
            skies: Skies::default(),
            rates: WeatherRates::default(),
            wind: WindProfile::default(),
            lightning: Lightning::default(),
            gloom_far_share: 0.36,
            storm_fog_color: hex(0x1a1d24),
            storm_ambient_color: hex(0x4a5468),
            storm_ambient_intensity: 0.2,
        }
    }
}

impl Weather {
    /// What `kind` of sky asks for in this scene: its documented numbers with the scene's
    /// overrides put over them.
    pub fn targets(&self, kind: SkyKind) -> SkyTargets {
        self.skies.of(kind).over(kind.default_targets())
    }

    /// The kind of sky at `time_s`: the last change at or before it, else `sky`.
    pub fn sky_at(&self, time_s: f64) -> SkyKind {
        self.changes
            .iter()
            .take_while(|change| change.at <= time_s)
            .last()
            .map_or(self.sky, |change| change.sky)
    }

    /// When the sky first turns `Storm`, seconds; `None` if it never does.
    pub fn first_storm_s(&self) -> Option<f64> {
        if self.sky == SkyKind::Storm {
            return Some(0.0);
        }
        self.changes
            .iter()
            .find(|change| change.sky == SkyKind::Storm)
            .map(|change| change.at)
    }
}
