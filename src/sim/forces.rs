//! What stirs the fluid from outside: solids rasterised once (pillars, the altar), the ball as a
//! moving obstacle each step, and blasts (take-off, landing). All take world coordinates and
//! convert through the one [`GridMapping`](super::GridMapping). They touch small regions, so
//! they run sequentially in a fixed order.

use std::f32::consts::PI;

use super::FluidSim;

/// The ball as the fluid sees it for one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallPush {
    /// Ball centre in world units (x, y, z); only x and z place it on the grid.
    pub pos_world: [f32; 3],
    /// Ball velocity in world units per second (x, y, z); x and z drive the air, a positive y
    /// (rising) lifts the fog.
    pub vel_world: [f32; 3],
    /// Ball radius in world units.
    pub radius_world: f32,
    /// How deep the ball is in the fog, 0 (above it: no effect) to 1; see
    /// [`FluidParams::fog_depth_weight`](super::FluidParams::fog_depth_weight).
    pub weight: f32,
}

/// The inclusive cell range `[lo, hi]` of `center ± reach` along one axis, kept off the grid's
/// border as the example does; `None` when empty (off the grid, or non-finite input).
fn interior_span(center: f32, reach: f32, cells: usize) -> Option<(usize, usize)> {
    let lo = (center - reach).floor().max(1.0);
    let hi = (center + reach).ceil().min((cells - 2) as f32);
    // Written so NaN fails the test.
    if lo <= hi {
        Some((lo as usize, hi as usize))
    } else {
        None
    }
}

impl FluidSim {
    /// Marks as solid every cell whose centre lies within `radius_world + solid_margin` of
    /// `center_world` (world x, z): a pillar seen from above.
    pub fn mark_solid_circle(&mut self, center_world: [f32; 2], radius_world: f32) {
        let cells = self.mapping.cells;
        let [center_x, center_y] = self.mapping.world_to_grid(center_world[0], center_world[1]);
        let radius = (radius_world + self.params.solid_margin) / self.mapping.cell_size_world();
        if !(center_x.is_finite() && center_y.is_finite() && radius > 0.0) {
            return;
        }
        let limit = cells as f32;
        let x0 = (center_x - radius - 1.0).floor().max(0.0).min(limit) as usize;
        let x1 = (center_x + radius + 1.0).ceil().max(0.0).min(limit) as usize;
        let y0 = (center_y - radius - 1.0).floor().max(0.0).min(limit) as usize;
        let y1 = (center_y + radius + 1.0).ceil().max(0.0).min(limit) as usize;
        for y in y0..y1 {
            for x in x0..x1 {
                let distance = (x as f32 + 0.5 - center_x).hypot(y as f32 + 0.5 - center_y);
                if distance < radius {
                    self.solid[y * cells + x] = 1;
                }
            }
        }
    }

    /// Marks as solid every cell the axis-aligned box `[min_world, max_world]` (world x, z)
    /// touches: the altar seen from above.
    pub fn mark_solid_box(&mut self, min_world: [f32; 2], max_world: [f32; 2]) {
        let cells = self.mapping.cells;
        let limit = cells as f32;
        let low = self.mapping.world_to_grid(min_world[0], min_world[1]);
        let high = self.mapping.world_to_grid(max_world[0], max_world[1]);
        let x0 = low[0].floor().max(0.0).min(limit) as usize;
        let y0 = low[1].floor().max(0.0).min(limit) as usize;
        let x1 = high[0].ceil().max(0.0).min(limit) as usize;
        let y1 = high[1].ceil().max(0.0).min(limit) as usize;
        for y in y0..y1 {
            self.solid[y * cells + x0.min(x1)..y * cells + x1].fill(1);
        }
    }

    /// The ball as a moving obstacle for the coming step: within `ball_reach` radii the air is
    /// pulled to the ball's speed and the fog is taken away, and what was taken is piled evenly
    /// on the open cells of the ring out to `ball_ring` radii. Rising inside the fog, it lifts
    /// the fog too. Everything is scaled by `weight` (0 to 1).
    pub fn push_ball(&mut self, ball: &BallPush) {
        let weight = ball.weight.min(1.0);
        if weight.is_nan() || weight <= 0.0 {
            return;
        }
        let numbers = ball.pos_world.iter().chain(&ball.vel_world);
        let finite = numbers.chain([&ball.radius_world]).all(|c| c.is_finite());
        if !finite || ball.radius_world <= 0.0 {
            return;
        }

        let cells = self.mapping.cells;
        let cell_world = self.mapping.cell_size_world();
        let [center_x, center_y] = self
            .mapping
            .world_to_grid(ball.pos_world[0], ball.pos_world[2]);
        let radius = ball.radius_world / cell_world;
        let vel_x = ball.vel_world[0] / cell_world;
        let vel_y = ball.vel_world[2] / cell_world;
        let rising = ball.vel_world[1].max(0.0);
        let params = &self.params;
        let reach = radius * params.ball_reach;
        let ring = radius * params.ball_ring;

        let (Some((x0, x1)), Some((y0, y1))) = (
            interior_span(center_x, ring, cells),
            interior_span(center_y, ring, cells),
        ) else {
            return;
        };

        let mut removed = 0.0_f64;
        let mut ring_cells = 0_u32;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let i = y * cells + x;
                let distance = (x as f32 + 0.5 - center_x).hypot(y as f32 + 0.5 - center_y);
                if distance < reach {
                    let ratio = distance / reach;
                    let w = (1.0 - ratio * ratio) * weight;
                    self.u[i] += (vel_x - self.u[i]) * w;
                    self.v[i] += (vel_y - self.v[i]) * w;
                    let taken = self.density[i] * w * params.ball_take;
                    self.density[i] -= taken;
                    removed += f64::from(taken);
                    self.lift[i] = (self.lift[i] + rising * w * params.ball_rise_lift).min(1.0);
                } else if distance < ring && self.solid[i] == 0 {
                    ring_cells += 1;
                }
            }
        }

        if ring_cells == 0 || removed == 0.0 {
            return;
        }
        let share = (removed / f64::from(ring_cells)) as f32;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let i = y * cells + x;
                let distance = (x as f32 + 0.5 - center_x).hypot(y as f32 + 0.5 - center_y);
                if distance >= reach && distance < ring && self.solid[i] == 0 {
                    self.density[i] = (self.density[i] + share).min(params.max_density);
                }
            }
        }
    }

    /// A blow at a floor point: within `radius_world` the air is thrown outward (all of it into
    /// the shock wave, `shock_to_air` of it into the ordinary air too), peaking half-way out,
    /// and the fog is lifted by up to `raise` (0 to 1), most in the middle.
    /// `strength_world_per_s` is the peak outward speed in world units per second.
    pub fn blast(
        &mut self,
        center_world: [f32; 2],
        radius_world: f32,
        strength_world_per_s: f32,
        raise: f32,
    ) {
        // The grid's unit of velocity: cells per second.
        let strength = strength_world_per_s / self.mapping.cell_size_world();
        if !(strength.is_finite() && raise.is_finite()) {
            return;
        }
        let cells = self.mapping.cells;
        let [center_x, center_y] = self.mapping.world_to_grid(center_world[0], center_world[1]);
        let radius = radius_world / self.mapping.cell_size_world();
        if !(center_x.is_finite() && center_y.is_finite() && radius > 0.0) {
            return;
        }
        let (Some((x0, x1)), Some((y0, y1))) = (
            interior_span(center_x, radius, cells),
            interior_span(center_y, radius, cells),
        ) else {
            return;
        };
        let to_air = self.params.shock_to_air;

        for y in y0..=y1 {
            for x in x0..=x1 {
                let dx = x as f32 + 0.5 - center_x;
                let dy = y as f32 + 0.5 - center_y;
                let distance = dx.hypot(dy);
                let i = y * cells + x;
                if distance >= radius || distance < 0.001 || self.solid[i] != 0 {
                    continue;
                }
                let k = distance / radius;
                let push = strength * (k * PI).sin() * (1.0 - k * 0.4) / distance;
                self.su[i] += dx * push;
                self.sv[i] += dy * push;
                self.u[i] += dx * push * to_air;
                self.v[i] += dy * push * to_air;
                self.lift[i] = (self.lift[i] + raise * (1.0 - k).powf(1.5)).min(1.0);
            }
        }
    }
}
