//! The weather as it evolves: the sky's quantities easing toward what the current kind of sky
//! asks for, the ground's wetness, the one wind with the distance it has carried things, and
//! lightning strikes at seeded gaps.
//!
//! [`WeatherState`] is part of the world ([`crate::world::World`]) and advances exactly once per
//! 60 Hz step. Everything in it is a function of the scene and the step count: the kind of sky
//! comes from `weather.changes` and the step's time, the wind from [`wind::sample`] (periodic in
//! whole steps), and the gap after strike `n` from a generator seeded by the lightning seed and
//! `n` alone, so a replay, a render at another frame rate or a restart from a snapshot strikes
//! at the same steps.

pub mod bolt;
pub mod debris;
pub mod maps;
pub mod rain;
pub mod wind;

use crate::rng::SplitMix64;
use crate::scene::weather::{SkyKind, Weather};
use crate::sim::{SnapshotError, get_f32, get_f64, get_u64, put_u64, take};
use crate::timeline::{STEP_S, STEPS_PER_SECOND};

/// Rain above which the ground gets wetter; at or below it, the ground dries.
pub const WETTING_RAIN: f32 = 0.05;

/// `value` moved toward `target` by at most `rate_per_s · dt_s`, never past it.
pub fn toward(value: f32, target: f32, rate_per_s: f32, dt_s: f32) -> f32 {
    let reach = rate_per_s * dt_s;
    if value < target {
        (value + reach).min(target)
    } else {
        (value - reach).max(target)
    }
}

/// A whole number of steps (at least 1) for a duration in seconds.
fn steps_for(seconds: f32) -> u64 {
    let steps = (f64::from(seconds) * f64::from(STEPS_PER_SECOND)).round();
    if steps.is_finite() && steps >= 1.0 {
        steps as u64
    } else {
        1
    }
}

/// The gap after strike number `strikes` (1 for the gap after the first), in steps: uniform in
/// `gap_min_s..gap_max_s`, drawn from the lightning seed and the strike count alone.
pub fn gap_steps(weather: &Weather, strikes: u32) -> u64 {
    let lightning = &weather.lightning;
    let mut rng = SplitMix64::new(
        lightning
            .seed
            .wrapping_add(u64::from(strikes).wrapping_mul(0xd1b5_4a32_d192_ed03)),
    );
    let gap_s = rng.range(
        f64::from(lightning.gap_min_s),
        f64::from(lightning.gap_max_s),
    );
    steps_for(gap_s as f32)
}

/// A lightning strike: its number (1 for the first) and the step it struck on (the world had
/// taken `step` steps when it struck, so it struck at time `step / 60` seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strike {
    /// 1 for the first strike of the clip, 2 for the second, …
    pub number: u32,
    /// Steps taken when it struck.
    pub step: u64,
}

impl Strike {
    /// When it struck, seconds.
    pub fn time_s(&self) -> f64 {
        self.step as f64 / f64::from(STEPS_PER_SECOND)
    }
}

/// The weather at one step.
#[derive(Debug, Clone, PartialEq)]
pub struct WeatherState {
    /// The kind of sky now.
    pub sky: SkyKind,
    /// Distance-fog density (exponential modes), 1/world unit.
    pub fog_density: f32,
    /// Gloom, 0..=1.
    pub gloom: f32,
    /// How hard it rains, 0..=1.
    pub rain: f32,
    /// The wind's base speed (before gusts), world units per second.
    pub wind_base: f32,
    /// How wet the ground is, 0..=1.
    pub wetness: f32,
    /// The lightning flash, 1 at a strike, fading to 0.
    pub flash: f32,
    /// The wind's velocity on the floor (x, z) in the last step, world units per second.
    pub wind_world_per_s: [f32; 2],
    /// How far the wind has carried something since time 0 (x, z), world units.
    pub drift_world: [f64; 2],
    /// Strikes so far.
    pub strikes: u32,
    /// Storm steps left before the next strike; `None` until the sky has been `Storm`.
    countdown_steps: Option<u64>,
    /// The latest strike, if any.
    pub last_strike: Option<Strike>,
}

impl WeatherState {
    /// The weather at time 0: every quantity at what the first sky asks for, the ground dry,
    /// the wind as it blows in the first step, nothing carried yet.
    pub fn new(weather: &Weather) -> Self {
        let sky = weather.sky_at(0.0);
        let targets = weather.targets(sky);
        WeatherState {
            sky,
            fog_density: targets.fog_density,
            gloom: targets.gloom,
            rain: targets.rain,
            wind_base: targets.wind,
            wetness: 0.0,
            flash: 0.0,
            wind_world_per_s: wind::sample(&weather.wind, targets.wind, 0),
            drift_world: [0.0; 2],
            strikes: 0,
            countdown_steps: None,
            last_strike: None,
        }
    }

    /// Advances the step that starts after `step` steps. Returns the strike of this step, if
    /// lightning struck (at its end, after `step + 1` steps).
    pub fn step(&mut self, weather: &Weather, step: u64) -> Option<Strike> {
        let dt_s = STEP_S;
        let time_s = step as f64 / f64::from(STEPS_PER_SECOND);
        self.sky = weather.sky_at(time_s);
        let targets = weather.targets(self.sky);
        let rates = &weather.rates;
        self.fog_density = toward(
            self.fog_density,
            targets.fog_density,
            rates.fog_density,
            dt_s,
        );
        self.gloom = toward(self.gloom, targets.gloom, rates.gloom, dt_s);
        self.rain = toward(self.rain, targets.rain, rates.rain, dt_s);
        self.wind_base = toward(self.wind_base, targets.wind, rates.wind, dt_s);
        self.wetness = if self.rain > WETTING_RAIN {
            toward(self.wetness, 1.0, rates.wetting, dt_s)
        } else {
            toward(self.wetness, 0.0, rates.drying, dt_s)
        };
        self.flash = (self.flash - rates.flash_decay * dt_s).max(0.0);

        let wind = wind::sample(&weather.wind, self.wind_base, step);
        self.wind_world_per_s = wind;
        for (drift, speed) in self.drift_world.iter_mut().zip(wind) {
            *drift += f64::from(speed) * f64::from(dt_s);
        }

        if self.sky != SkyKind::Storm {
            return None;
        }
        let left = self
            .countdown_steps
            .unwrap_or_else(|| steps_for(weather.lightning.first_after_s));
        if left > 1 {
            self.countdown_steps = Some(left - 1);
            return None;
        }
        self.strikes += 1;
        self.countdown_steps = Some(gap_steps(weather, self.strikes));
        self.flash = 1.0;
        let strike = Strike {
            number: self.strikes,
            step: step + 1,
        };
        self.last_strike = Some(strike);
        Some(strike)
    }

    /// The whole state as little-endian bytes, for the world's hash and snapshots.
    pub fn write_bytes(&self, out: &mut Vec<u8>) {
        let sky: u8 = match self.sky {
            SkyKind::Clear => 0,
            SkyKind::Rain => 1,
            SkyKind::Storm => 2,
        };
        out.push(sky);
        for v in [
            self.fog_density,
            self.gloom,
            self.rain,
            self.wind_base,
            self.wetness,
            self.flash,
            self.wind_world_per_s[0],
            self.wind_world_per_s[1],
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in self.drift_world {
            out.extend_from_slice(&v.to_le_bytes());
        }
        put_u64(out, u64::from(self.strikes));
        put_u64(out, self.countdown_steps.map_or(u64::MAX, |c| c));
        let (number, step) = self
            .last_strike
            .map_or((u64::MAX, u64::MAX), |s| (u64::from(s.number), s.step));
        put_u64(out, number);
        put_u64(out, step);
    }

    /// Reads what [`WeatherState::write_bytes`] wrote.
    pub fn read_bytes(input: &mut &[u8]) -> Result<WeatherState, SnapshotError> {
        let sky = match take(input, 1, "weather")?[0] {
            0 => SkyKind::Clear,
            1 => SkyKind::Rain,
            2 => SkyKind::Storm,
            other => {
                return Err(SnapshotError::Corrupt(format!(
                    "unknown kind of sky {other} in the weather"
                )));
            }
        };
        let mut f = [0.0_f32; 8];
        for v in f.iter_mut() {
            *v = get_f32(input, "weather")?;
        }
        let drift_world = [get_f64(input, "weather")?, get_f64(input, "weather")?];
        let strikes = get_u64(input, "weather")?;
        let countdown = get_u64(input, "weather")?;
        let number = get_u64(input, "weather")?;
        let step = get_u64(input, "weather")?;
        let strikes = u32::try_from(strikes)
            .map_err(|_| SnapshotError::Corrupt(format!("{strikes} strikes")))?;
        let last_strike = match (u32::try_from(number), step) {
            (_, u64::MAX) => None,
            (Ok(number), step) => Some(Strike { number, step }),
            (Err(_), _) => {
                return Err(SnapshotError::Corrupt(format!("strike number {number}")));
            }
        };
        Ok(WeatherState {
            sky,
            fog_density: f[0],
            gloom: f[1],
            rain: f[2],
            wind_base: f[3],
            wetness: f[4],
            flash: f[5],
            wind_world_per_s: [f[6], f[7]],
            drift_world,
            strikes,
            countdown_steps: (countdown != u64::MAX).then_some(countdown),
            last_strike,
        })
    }
}
