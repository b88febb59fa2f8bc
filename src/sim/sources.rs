//! Where the fog comes from and what keeps it drifting: the `fluid.fog` model (the rest level
//! the fog relaxes toward, or fixed sources that add fog while all of it fades) and the
//! `fluid.streams`, slow steady or swinging force streams. Every number here is in world units
//! and seconds; the grid's own units (cells, cells per second) appear only where they are
//! applied, through the one [`GridMapping`](super::GridMapping).
//!
//! Both touch cells in a fixed order: the sources are summed once, source by source in list
//! order, into a per-cell rate when the fluid is built (the carry stage then adds
//! `rate · dt` row by row), and a stream pushes the air of its small disc cell by cell, stream
//! by stream, so the result does not depend on the thread count. Each stream's falloff over
//! its disc is also found once, when the fluid is built ([`StreamDisc`]): a step only scales it
//! by the stream's swung direction.

use std::f32::consts::TAU;

use serde::{Deserialize, Serialize};

use super::FluidSim;
use super::grid::GridMapping;

/// Where the fog comes from: `fluid.fog`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum FogModel {
    /// Fog everywhere, relaxing back toward the rest density 1 at `fluid.refill` (holes) and
    /// `fluid.spill` (piles): the temple's fog. The default.
    #[default]
    Relax,
    /// Fog only where sources put it: each step every source adds fog and all fog fades by
    /// `exp(-fade · dt)`, so the field settles at a level and grows back after a cut.
    Sources {
        /// The fog sources, applied in list order. At least one.
        sources: Vec<FogSource>,
        /// How fast all fog fades, per second: each step keeps `exp(-fade · dt)` of it.
        /// 0 or more (0: fog only piles up, to `fluid.max_density`). Default 0.5.
        #[serde(default = "default_fade_per_s")]
        fade: f32,
    },
}

fn default_fade_per_s() -> f32 {
    0.5
}

/// One fixed source of fog in [`FogModel::Sources`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FogSource {
    /// Centre on the floor, world (x, z); it must lie inside the fog's area.
    pub position: [f32; 2],
    /// Radius in world units, more than 0: the rate falls smoothly from the centre to 0 here
    /// (`(1 - (d/r)²)²`).
    pub radius: f32,
    /// Fog density added per second at the centre, 0 or more. Alone and with no air moving, a
    /// source's middle settles at `rate / fade` (capped at `fluid.max_density`).
    pub rate: f32,
}

/// One slow force stream, `fluid.streams`: it accelerates the open air of a disc along its
/// direction, so the fog keeps drifting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FluidStream {
    /// Centre on the floor, world (x, z); it must lie inside the fog's area.
    pub position: [f32; 2],
    /// Direction on the floor (x, z), any non-zero length (it is normalised).
    pub direction: [f32; 2],
    /// Radius in world units, more than 0: the push falls smoothly from the centre to 0 here.
    pub radius: f32,
    /// Acceleration at the centre, world units per second², 0 or more. Against the air's own
    /// slowing (`fluid.velocity_decay`), the air in the stream's core tends to about
    /// `strength / velocity_decay` world units per second.
    pub strength: f32,
    /// Period of the direction's swing, seconds; 0 (the default) holds the direction steady.
    /// When set, the direction turns by `swing_deg · sin(2π · t / period_s)`, with `t` the
    /// step count times 1/60 s (so it does not depend on the output frame rate).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub period_s: f32,
    /// Half-angle of the swing, degrees, 0 to 180. Default 45. Unused when `period_s` is 0.
    #[serde(
        default = "default_swing_deg",
        skip_serializing_if = "is_default_swing_deg"
    )]
    pub swing_deg: f32,
}

fn is_zero(value: &f32) -> bool {
    value.to_bits() == 0
}

fn default_swing_deg() -> f32 {
    45.0
}

fn is_default_swing_deg(value: &f32) -> bool {
    value.to_bits() == default_swing_deg().to_bits()
}

/// Weight of a point `distance` from a disc's centre of radius `radius`: `(1 - (d/r)²)²`
/// inside, 0 outside (both in the same unit).
#[inline]
fn falloff(distance: f32, radius: f32) -> f32 {
    if distance >= radius {
        return 0.0;
    }
    let k = distance / radius;
    let inner = 1.0 - k * k;
    inner * inner
}

/// The inclusive cell range of `center ± reach` (grid coordinates) along one axis, on the
/// grid; `None` when empty or not finite.
fn span(center: f32, reach: f32, cells: usize) -> Option<(usize, usize)> {
    let lo = (center - reach).floor().max(0.0);
    let hi = (center + reach).ceil().min((cells - 1) as f32);
    if lo <= hi {
        Some((lo as usize, hi as usize))
    } else {
        None
    }
}

/// The summed fog rate per cell, density per second, of `sources` on `mapping`'s grid (each
/// cell's centre weighted by [`falloff`]), source by source in list order.
pub(super) fn source_rates(sources: &[FogSource], mapping: &GridMapping) -> Vec<f32> {
    let cells = mapping.cells;
    let mut rates = vec![0.0_f32; mapping.cell_count()];
    for source in sources {
        let [cx, cy] = mapping.world_to_grid(source.position[0], source.position[1]);
        let radius = source.radius / mapping.cell_size_world();
        if !(cx.is_finite() && cy.is_finite() && radius > 0.0 && source.rate.is_finite()) {
            continue;
        }
        let (Some((x0, x1)), Some((y0, y1))) = (span(cx, radius, cells), span(cy, radius, cells))
        else {
            continue;
        };
        for y in y0..=y1 {
            for x in x0..=x1 {
                let distance = (x as f32 + 0.5 - cx).hypot(y as f32 + 0.5 - cy);
                rates[y * cells + x] += source.rate * falloff(distance, radius);
            }
        }
    }
    rates
}

/// The density each cell settles at in still air, `rate / fade` per cell capped at
/// `max_density`, the fog a `Sources` model starts with; 0 everywhere when `fade` is 0 (the
/// fog then piles up from nothing).
pub(super) fn settled_density(rates: &[f32], fade_per_s: f32, max_density: f32) -> Vec<f32> {
    rates
        .iter()
        .map(|&rate| {
            if fade_per_s > 0.0 {
                (rate / fade_per_s).min(max_density)
            } else {
                0.0
            }
        })
        .collect()
}

/// A stream's disc on the grid: its bounding cells and each one's falloff weight, row by
/// row, found once when the fluid is built (the same numbers every step would find).
#[derive(Debug, Clone)]
pub(super) struct StreamDisc {
    x0: usize,
    y0: usize,
    width: usize,
    /// `width` weights a row, from row `y0`.
    weights: Vec<f32>,
}

/// The disc of each of `streams` on `mapping`'s grid, `None` for one with no cells to push
/// (its centre or radius not finite or not positive, or off the grid).
pub(super) fn stream_discs(
    streams: &[FluidStream],
    mapping: &GridMapping,
) -> Vec<Option<StreamDisc>> {
    let (cells, cell_world) = (mapping.cells, mapping.cell_size_world());
    streams
        .iter()
        .map(|stream| {
            let [cx, cy] = mapping.world_to_grid(stream.position[0], stream.position[1]);
            let radius = stream.radius / cell_world;
            if !(cx.is_finite() && cy.is_finite() && radius > 0.0) {
                return None;
            }
            let ((x0, x1), (y0, y1)) = (span(cx, radius, cells)?, span(cy, radius, cells)?);
            let mut weights = Vec::with_capacity((x1 - x0 + 1) * (y1 - y0 + 1));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let distance = (x as f32 + 0.5 - cx).hypot(y as f32 + 0.5 - cy);
                    weights.push(falloff(distance, radius));
                }
            }
            Some(StreamDisc {
                x0,
                y0,
                width: x1 - x0 + 1,
                weights,
            })
        })
        .collect()
}

impl FluidSim {
    /// Applies `fluid.streams` for the coming step of `dt_s` seconds, at step `step` of the
    /// 60 Hz timeline (call before [`FluidSim::step`]; the world does). Each stream adds
    /// `strength · falloff · dt` along its (swung) direction to the open air of its disc,
    /// converted to cells per second, cell by cell in row order; the falloff of each cell of
    /// the disc is found once (`stream_discs`). No streams, nothing done.
    pub fn apply_streams(&mut self, step: u64, dt_s: f32) {
        if self.params.streams.is_empty() || !(dt_s.is_finite() && dt_s > 0.0) {
            return;
        }
        let cells = self.mapping.cells;
        let cell_world = self.mapping.cell_size_world();
        // The time of this step in f64, so a long run does not lose the swing's phase.
        let time_s = step as f64 * f64::from(dt_s);
        for (stream, disc) in self.params.streams.iter().zip(&self.stream_discs) {
            let [dx, dz] = stream.direction;
            let length = dx.hypot(dz);
            if !(length > 0.0 && length.is_finite() && stream.strength.is_finite()) {
                continue;
            }
            let Some(disc) = disc else {
                continue;
            };
            let (mut dir_x, mut dir_z) = (dx / length, dz / length);
            if stream.period_s > 0.0 {
                let phase = (time_s / f64::from(stream.period_s)).fract() as f32;
                let angle = stream.swing_deg.to_radians() * (TAU * phase).sin();
                let (sin, cos) = angle.sin_cos();
                (dir_x, dir_z) = (dir_x * cos - dir_z * sin, dir_x * sin + dir_z * cos);
            }
            // World units per second gained this step at the centre, in cells per second.
            let gain = stream.strength * dt_s / cell_world;
            let (push_x, push_y) = (dir_x * gain, dir_z * gain);
            for (row, weights) in disc.weights.chunks_exact(disc.width).enumerate() {
                let start = (disc.y0 + row) * cells + disc.x0;
                let cells_of = start..start + disc.width;
                let (u, v) = (&mut self.u[cells_of.clone()], &mut self.v[cells_of.clone()]);
                let solid = &self.solid[cells_of];
                for k in 0..weights.len() {
                    if solid[k] == 0 {
                        u[k] += push_x * weights[k];
                        v[k] += push_y * weights[k];
                    }
                }
            }
        }
    }
}
