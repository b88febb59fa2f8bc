//! Range checks and warnings for a parsed scene.
//!
//! Parsing only proves the file has the right shape; this module proves the values make sense:
//! sizes positive, numbers finite, pillars inside the hall, the fluid grid within 8..=2048, and
//! so on. Every problem names the field path (`fog.sheets`), the value and the allowed range,
//! so [`super::diagnostics`] can point at the line. The checks are split by theme: `view`
//! (picture, camera, lights), `hall`, `ball`, `fog` (the sheets and the fluid), `fluid_extras`
//! (the fluid's fog model, streams and optional stages), `fires`, `lamps`, `weather`,
//! `walkers` and `sky` (clouds and water). Warnings flag values that are legal but probably not what the author wanted ("no
//! lights: the frame will be black").

mod ball;
mod fires;
mod fluid_extras;
mod fog;
mod hall;
mod lamps;
mod sky;
mod view;
mod walkers;
mod weather;

#[cfg(test)]
mod tests;

use super::{Rgb, Scene};
use std::fmt::Display;
use std::ops::RangeInclusive;

use ball::check_ball;
use fires::check_fires;
use fluid_extras::check_fluid_extras;
use fog::{check_fluid, check_fog};
use hall::check_hall;
use lamps::check_lamps;
use sky::check_sky;
use view::{check_camera, check_lights, check_output};
use walkers::check_walkers;
use weather::check_weather;

/// One problem with a value: where it is, what is wrong, how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Dotted path of the field, e.g. `hall.pillars[2]`.
    pub field_path: String,
    /// What is wrong, naming the value.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// Everything the checks found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Values that make the scene unusable.
    pub errors: Vec<Problem>,
    /// Legal values that are probably mistakes.
    pub warnings: Vec<Problem>,
}

/// Largest picture side fogbank accepts before asking the GPU, pixels.
pub const MAX_SIZE_PX: u32 = 16384;

/// Checks every field of `scene`.
pub fn check(scene: &Scene) -> Report {
    let mut c = Checker::default();
    check_output(&mut c, scene);
    check_camera(&mut c, scene);
    check_lights(&mut c, scene);
    check_hall(&mut c, scene);
    check_ball(&mut c, scene);
    check_fog(&mut c, scene);
    check_fluid(&mut c, scene);
    check_fluid_extras(&mut c, scene);
    check_fires(&mut c, scene);
    check_lamps(&mut c, scene);
    check_weather(&mut c, scene);
    check_walkers(&mut c, scene);
    check_sky(&mut c, scene);
    c.color("background", scene.background);
    c.report
}

#[derive(Default)]
pub(super) struct Checker {
    report: Report,
}

impl Checker {
    pub(super) fn error(&mut self, field_path: impl Into<String>, message: String, help: String) {
        self.report.errors.push(Problem {
            field_path: field_path.into(),
            message,
            help,
        });
    }

    pub(super) fn warn(&mut self, field_path: impl Into<String>, message: String, help: String) {
        self.report.warnings.push(Problem {
            field_path: field_path.into(),
            message,
            help,
        });
    }

    /// A float that must be finite and inside `range`.
    pub(super) fn range(&mut self, path: &str, value: f32, range: RangeInclusive<f32>) {
        if !value.is_finite() {
            self.error(
                path,
                format!("`{path}` is {value}, which is not a finite number"),
                format!("set {path} to a number in {}", show_range(&range)),
            );
        } else if !range.contains(&value) {
            self.error(
                path,
                format!(
                    "`{path}` is {value}, allowed range is {}",
                    show_range(&range)
                ),
                format!("set {path} to a value in {}", show_range(&range)),
            );
        }
    }

    /// A float that must be finite and strictly positive.
    pub(super) fn positive(&mut self, path: &str, value: f32) {
        if !value.is_finite() || value <= 0.0 {
            self.error(
                path,
                format!("`{path}` is {value}, it must be a finite number greater than 0"),
                format!("set {path} to a positive number"),
            );
        }
    }

    /// A float that must be finite and not negative.
    pub(super) fn non_negative(&mut self, path: &str, value: f32) {
        self.range(path, value, 0.0..=f32::MAX);
    }

    /// An integer that must be inside `range`.
    pub(super) fn int_range<T: PartialOrd + Display + Copy>(
        &mut self,
        path: &str,
        value: T,
        range: RangeInclusive<T>,
    ) {
        if !range.contains(&value) {
            self.error(
                path,
                format!(
                    "`{path}` is {value}, allowed range is {}..={}",
                    range.start(),
                    range.end()
                ),
                format!(
                    "set {path} to a value in {}..={}",
                    range.start(),
                    range.end()
                ),
            );
        }
    }

    pub(super) fn color(&mut self, path: &str, value: Rgb) {
        for (i, c) in value.iter().enumerate() {
            self.range(&format!("{path}[{i}]"), *c, 0.0..=1.0);
        }
    }

    pub(super) fn point(&mut self, path: &str, value: &[f32]) {
        for (i, c) in value.iter().enumerate() {
            self.range(&format!("{path}[{i}]"), *c, -1.0e6..=1.0e6);
        }
    }

    pub(super) fn time(&mut self, path: &str, value: f64) {
        if !value.is_finite() || value < 0.0 {
            self.error(
                path,
                format!("`{path}` is {value}, it must be a time in seconds, 0 or more"),
                format!("set {path} to a number of seconds ≥ 0"),
            );
        }
    }

    pub(super) fn duration(&mut self, path: &str, value: Option<f64>) {
        if let Some(v) = value
            && (!v.is_finite() || v <= 0.0)
        {
            self.error(
                path,
                format!("`{path}` is {v}, it must be a positive number of seconds"),
                format!(
                    "set {path} to a positive number, or leave it out to hold until the next input"
                ),
            );
        }
    }
}

pub(super) fn show_range(range: &RangeInclusive<f32>) -> String {
    let show = |v: f32| {
        if v == f32::MAX {
            "∞".to_string()
        } else {
            format!("{v}")
        }
    };
    format!("{}..={}", show(*range.start()), show(*range.end()))
}
