//! Checks of the `clouds` and `water` sections: shares in 0..=1, sizes and heights positive,
//! the water's density not negative and its transition depth greater than 0, colours.

use super::Checker;
use crate::scene::Scene;

pub(super) fn check_sky(c: &mut Checker, scene: &Scene) {
    if let Some(clouds) = &scene.clouds {
        c.range("clouds.coverage", clouds.coverage, 0.0..=1.0);
        c.color("clouds.color", clouds.color);
        c.color("clouds.storm_color", clouds.storm_color);
        c.positive("clouds.altitude", clouds.altitude);
        c.range("clouds.scale", clouds.scale, 0.01..=100_000.0);
        c.range("clouds.softness", clouds.softness, 0.01..=1.0);
    }
    if let Some(water) = &scene.water {
        c.range(
            "water.surface_height",
            water.surface_height,
            -1000.0..=1000.0,
        );
        c.color("water.color", water.color);
        c.non_negative("water.density", water.density);
        c.positive("water.transition_depth", water.transition_depth);
    }
}
