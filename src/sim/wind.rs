//! The weather's wind as a force on the air: each step the open air is dragged toward the
//! wind's velocity, and the fog the wind carries into a pillar or wall is pressed against its
//! windward face while its lee is stripped. The pressure projection that follows makes the air
//! flow round the solids like any other flow, so the fog streams downwind, piles against the
//! pillars and curls behind them.
//!
//! The drag is quadratic in the wind speed (`drag · |wind|` per second, the bulk formula of
//! wind stress): a breeze barely stirs the air in the hall, a gale carries it. Both parts touch
//! every cell once, in a fixed order, reading only the solids and the cell itself, so the
//! result does not depend on the thread count. A wind of zero speed changes nothing at all.

use super::FluidSim;

/// How far upwind of a pillar or wall the wind piles the fog (and how far into its lee it
/// strips it), world units: about a pillar's radius, the size of the stagnant air in front
/// of it.
const PILE_REACH_WORLD: f32 = 0.7;

/// Steps of `step` from cell `i` (1 to `reach`) to the first solid cell, if any within reach.
fn nearest_solid(solid: &[u8], i: usize, step: isize, reach: usize) -> Option<usize> {
    (1..=reach).find(|&k| solid[i.wrapping_add_signed(step * k as isize)] != 0)
}

/// Weight of a solid `k` cells away within `reach`: 1 next to it, falling linearly.
fn closeness(k: usize, reach: usize) -> f32 {
    (reach + 1 - k) as f32 / reach as f32
}

/// The weather's wind for one step, as the fluid takes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindPush {
    /// The wind on the floor (x, z), world units per second.
    pub wind_world_per_s: [f32; 2],
    /// Drag per world unit of wind speed: the air closes `1 − exp(−drag · |wind| · dt)` of the
    /// gap to the wind's velocity per step.
    pub drag: f32,
    /// Share of the fog carried into a solid face that piles against it (and is stripped from
    /// a lee face), 0 to 1.
    pub pile_share: f32,
}

impl FluidSim {
    /// Applies the wind for the coming step of `dt_s` seconds (call before [`FluidSim::step`]).
    pub fn apply_wind(&mut self, push: &WindPush, dt_s: f32) {
        let [wind_x_world, wind_z_world] = push.wind_world_per_s;
        let speed_world = wind_x_world.hypot(wind_z_world);
        if !(speed_world.is_finite() && dt_s.is_finite()) || speed_world == 0.0 || dt_s <= 0.0 {
            return;
        }
        let cells = self.mapping.cells;
        let cell_world = self.mapping.cell_size_world();
        // The wind in cells per second, the grid's unit of velocity.
        let wind_x = wind_x_world / cell_world;
        let wind_y = wind_z_world / cell_world;
        let take_up = 1.0 - (-push.drag.max(0.0) * speed_world * dt_s).exp();
        let pile = push.pile_share.clamp(0.0, 1.0);
        // Fraction of a cell's fog the wind moves across one face per step (capped at 1).
        let across_x = (wind_x.abs() * dt_s * pile).min(1.0);
        let across_y = (wind_y.abs() * dt_s * pile).min(1.0);
        let max_density = self.params.max_density;
        let solid = &self.solid;
        // How far upwind of a solid the fog piles, in cells (at least one), kept inside the
        // grid's border so every look-ahead stays on the grid.
        let reach_cells = ((PILE_REACH_WORLD / cell_world).round() as usize).clamp(1, cells / 4);
        let cells_signed = cells as isize;
        let step_x: isize = if wind_x >= 0.0 { 1 } else { -1 };
        let step_y: isize = if wind_y >= 0.0 {
            cells_signed
        } else {
            -cells_signed
        };
        for y in reach_cells..cells - reach_cells {
            for x in reach_cells..cells - reach_cells {
                let i = y * cells + x;
                if solid[i] != 0 {
                    continue;
                }
                self.u[i] += (wind_x - self.u[i]) * take_up;
                self.v[i] += (wind_y - self.v[i]) * take_up;
                // The nearest solid the wind blows into from this cell within the reach, and
                // the nearest it blows away from, along each axis: the nearer, the more fog
                // piles (or is stripped).
                let mut change = 0.0;
                for (step, across) in [(step_x, across_x), (step_y, across_y)] {
                    if let Some(k) = nearest_solid(solid, i, step, reach_cells) {
                        change += across * closeness(k, reach_cells);
                    }
                    if let Some(k) = nearest_solid(solid, i, -step, reach_cells) {
                        change -= across * closeness(k, reach_cells);
                    }
                }
                if change != 0.0 {
                    let density = self.density[i];
                    self.density[i] = (density * (1.0 + change)).clamp(0.0, max_density);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{FluidParams, GridMapping};

    fn fluid_with_pillar() -> FluidSim {
        let mut fluid = FluidSim::new(&FluidParams::default(), GridMapping::new(48, 22.0));
        fluid.mark_solid_circle([0.0, 0.0], 0.8);
        fluid
    }

    #[test]
    fn a_still_sky_changes_nothing() {
        let mut fluid = fluid_with_pillar();
        let before = fluid.state_hash();
        let push = WindPush {
            wind_world_per_s: [0.0, 0.0],
            drag: 0.1,
            pile_share: 0.2,
        };
        for _ in 0..60 {
            fluid.apply_wind(&push, 1.0 / 60.0);
            fluid.step(1.0 / 60.0);
        }
        assert_eq!(fluid.state_hash(), before);
    }

    #[test]
    fn the_wind_moves_the_air_round_a_pillar_and_piles_fog_on_its_windward_face() {
        let mut fluid = fluid_with_pillar();
        let push = WindPush {
            wind_world_per_s: [9.0, 0.0],
            drag: 0.1,
            pile_share: 0.2,
        };
        for _ in 0..180 {
            fluid.apply_wind(&push, 1.0 / 60.0);
            fluid.step(1.0 / 60.0);
        }
        let open = fluid.probe(-6.0, 6.0);
        assert!(open.speed > 3.0, "air speed in the open: {}", open.speed);
        let windward = fluid.probe(-1.2, 0.0).density;
        let lee = fluid.probe(1.2, 0.0).density;
        assert!(windward > 1.2, "windward {windward}");
        assert!(lee < windward - 0.3, "lee {lee}, windward {windward}");
        // The air goes round the pillar, not through it: it is slow just upwind of it.
        assert!(fluid.probe(-1.0, 0.0).speed < open.speed);
    }
}
