//! Colourised views of the fluid's fields for people, not for the shader: one RGBA8 image at
//! grid size per field, for the `maps/` output and for debugging. Magnitudes use an
//! inferno-like ramp with fixed scales (so frames of a clip compare); signed fields use a
//! blue-white-red ramp scaled by their largest magnitude over open cells. Solid cells are grey
//! in every view but the obstacle one.

use super::FluidSim;
use super::grid::hold;

/// A field that can be drawn as a debug image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DebugField {
    /// Fog density, 0 to `max_density`.
    Density,
    /// Air speed (ordinary plus shock wave), 0 to `speed_scale` world units per second.
    Speed,
    /// How high the fog was thrown, 0 to 1.
    Lift,
    /// Pressure from the last projection, signed.
    Pressure,
    /// Divergence of the ordinary air, signed.
    Divergence,
    /// Curl of the ordinary air, signed.
    Curl,
    /// Solid cells white on black.
    Obstacles,
}

impl DebugField {
    /// Every field, in the order outputs list them.
    pub const ALL: [DebugField; 7] = [
        DebugField::Density,
        DebugField::Speed,
        DebugField::Lift,
        DebugField::Pressure,
        DebugField::Divergence,
        DebugField::Curl,
        DebugField::Obstacles,
    ];

    /// The field's name in file names and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DebugField::Density => "density",
            DebugField::Speed => "speed",
            DebugField::Lift => "lift",
            DebugField::Pressure => "pressure",
            DebugField::Divergence => "divergence",
            DebugField::Curl => "curl",
            DebugField::Obstacles => "obstacles",
        }
    }
}

/// Grey for solid cells in the field views.
const SOLID_GREY: [u8; 4] = [128, 128, 128, 255];

/// Stops of the magnitude ramp (an approximation of matplotlib's "inferno"), evenly spaced.
const MAGNITUDE_STOPS: [[f32; 3]; 5] = [
    [0.0, 0.0, 4.0],
    [87.0, 16.0, 110.0],
    [188.0, 55.0, 84.0],
    [249.0, 142.0, 9.0],
    [252.0, 255.0, 164.0],
];

/// Stops of the diverging ramp at -1, 0 and +1.
const SIGNED_STOPS: [[f32; 3]; 3] = [
    [59.0, 76.0, 192.0],
    [245.0, 245.0, 245.0],
    [180.0, 4.0, 38.0],
];

/// Piecewise-linear colour through evenly spaced `stops` at `t` in `[0, 1]` (clamped; NaN
/// reads as 0).
fn ramp(stops: &[[f32; 3]], t: f32) -> [u8; 4] {
    let t = hold(t, 0.0, 1.0);
    let segments = (stops.len() - 1) as f32;
    let position = t * segments;
    let index = (position as usize).min(stops.len() - 2);
    let blend = position - index as f32;
    let (from, to) = (stops[index], stops[index + 1]);
    let channel = |c: usize| {
        (from[c] + (to[c] - from[c]) * blend)
            .round()
            .clamp(0.0, 255.0) as u8
    };
    [channel(0), channel(1), channel(2), 255]
}

/// Colour of a magnitude, `t` = 0 (dark) to 1 (bright).
fn magnitude_colour(t: f32) -> [u8; 4] {
    ramp(&MAGNITUDE_STOPS, t)
}

/// Colour of a signed value `s` in `[-1, 1]`: blue below 0, white at 0, red above.
fn signed_colour(s: f32) -> [u8; 4] {
    ramp(&SIGNED_STOPS, s * 0.5 + 0.5)
}

/// Largest `|value|` over open cells, or 0 when there is none finite.
fn max_abs_open(values: &[f32], solid: &[u8]) -> f32 {
    values
        .iter()
        .zip(solid)
        .filter(|(value, solid)| **solid == 0 && value.is_finite())
        .fold(0.0_f32, |most, (value, _)| most.max(value.abs()))
}

/// The colourised view of `field`, `cells × cells` RGBA8, row `j = 0` first.
pub fn debug_image(sim: &FluidSim, field: DebugField) -> Vec<u8> {
    let solid = sim.solid();
    let params = sim.params();
    let colours: Vec<[u8; 4]> = match field {
        DebugField::Obstacles => solid
            .iter()
            .map(|&s| {
                if s != 0 {
                    [255, 255, 255, 255]
                } else {
                    [0, 0, 0, 255]
                }
            })
            .collect(),
        DebugField::Density => {
            let scale = params.max_density;
            sim.density()
                .iter()
                .map(|d| magnitude_colour(d / scale))
                .collect()
        }
        DebugField::Speed => {
            let scale = sim.speed_scale_cells();
            sim.speed_field()
                .iter()
                .map(|s| magnitude_colour(s / scale))
                .collect()
        }
        DebugField::Lift => sim.lift().iter().map(|&l| magnitude_colour(l)).collect(),
        DebugField::Pressure => signed_view(sim.pressure(), solid),
        DebugField::Divergence => signed_view(&sim.divergence_field(), solid),
        DebugField::Curl => signed_view(&sim.curl_field(), solid),
    };
    let mark_solids = field != DebugField::Obstacles;
    colours
        .iter()
        .zip(solid)
        .flat_map(|(colour, &s)| {
            if mark_solids && s != 0 {
                SOLID_GREY
            } else {
                *colour
            }
        })
        .collect()
}

/// A signed field scaled by its largest magnitude over open cells.
fn signed_view(values: &[f32], solid: &[u8]) -> Vec<[u8; 4]> {
    let most = max_abs_open(values, solid);
    let inverse = if most > 0.0 { 1.0 / most } else { 0.0 };
    values.iter().map(|v| signed_colour(v * inverse)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{FluidParams, GridMapping};

    #[test]
    fn ramps_hit_their_end_stops() {
        assert_eq!(magnitude_colour(0.0), [0, 0, 4, 255]);
        assert_eq!(magnitude_colour(1.0), [252, 255, 164, 255]);
        assert_eq!(magnitude_colour(7.0), [252, 255, 164, 255]);
        assert_eq!(magnitude_colour(f32::NAN), [0, 0, 4, 255]);
        assert_eq!(signed_colour(-1.0), [59, 76, 192, 255]);
        assert_eq!(signed_colour(0.0), [245, 245, 245, 255]);
        assert_eq!(signed_colour(1.0), [180, 4, 38, 255]);
    }

    #[test]
    fn every_view_has_grid_size_and_marks_solids() {
        let mapping = GridMapping::new(16, 16.0);
        let mut sim = FluidSim::new(&FluidParams::default(), mapping);
        sim.mark_solid_box([-8.0, -8.0], [-7.0, -7.0]);
        sim.blast([2.0, 2.0], 4.0, 30.0, 0.5);
        sim.step(1.0 / 60.0);
        let names: Vec<&str> = DebugField::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            [
                "density",
                "speed",
                "lift",
                "pressure",
                "divergence",
                "curl",
                "obstacles"
            ]
        );
        for field in DebugField::ALL {
            let image = debug_image(&sim, field);
            assert_eq!(image.len(), 16 * 16 * 4, "{}", field.name());
            let corner = &image[0..4];
            let open = &image[(8 * 16 + 8) * 4..(8 * 16 + 8) * 4 + 4];
            if field == DebugField::Obstacles {
                assert_eq!(corner, [255, 255, 255, 255]);
                assert_eq!(open, [0, 0, 0, 255]);
            } else {
                assert_eq!(corner, SOLID_GREY, "{}", field.name());
                assert_ne!(open, SOLID_GREY, "{}", field.name());
            }
        }
        // Rest density 1 of max 2 sits mid-ramp, far from the centre of the blast.
        let density = debug_image(&sim, DebugField::Density);
        let far = (15 * 16 + 2) * 4;
        assert_eq!(&density[far..far + 4], magnitude_colour(0.5));
    }
}
