//! Brushes: soft round touches on the fluid in world coordinates, for anything that walks
//! through the fog (the people of `scene.walkers`).
//!
//! [`FluidSim::push_brush`] drags the air toward a velocity, [`FluidSim::clear_brush`] takes
//! fog away. Both weigh each cell by `1 - (d/r)²` (full in the middle, nothing at the rim),
//! skip solid cells and the grid's border, and visit cells row by row in a fixed order on one
//! thread, so they are deterministic. The grid keeps its velocity in cells per second; the
//! brushes take world units per second and convert through [`GridMapping`](super::GridMapping).

use super::FluidSim;

impl FluidSim {
    /// The cells within `radius_world` of `center_world` (world x, z), each with its weight
    /// `1 - (d/r)²`, in row order; none for a non-finite or non-positive input.
    fn brush_cells(&self, center_world: [f32; 2], radius_world: f32) -> Vec<(usize, f32)> {
        let cells = self.mapping.cells;
        let [cx, cy] = self.mapping.world_to_grid(center_world[0], center_world[1]);
        let radius = radius_world / self.mapping.cell_size_world();
        if !(cx.is_finite() && cy.is_finite() && radius.is_finite() && radius > 0.0) {
            return Vec::new();
        }
        // Cell centres sit at i + 0.5; keep off the border row and column, as the ball does.
        let span = |c: f32| {
            let lo = (c - 0.5 - radius).ceil().max(1.0);
            let hi = (c - 0.5 + radius).floor().min((cells - 2) as f32);
            (lo <= hi).then_some((lo as usize, hi as usize))
        };
        let (Some((x0, x1)), Some((y0, y1))) = (span(cx), span(cy)) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity((x1 - x0 + 1) * (y1 - y0 + 1));
        for y in y0..=y1 {
            for x in x0..=x1 {
                let i = y * cells + x;
                if self.solid[i] != 0 {
                    continue;
                }
                let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
                let ratio_sq = (dx * dx + dy * dy) / (radius * radius);
                if ratio_sq < 1.0 {
                    out.push((i, 1.0 - ratio_sq));
                }
            }
        }
        out
    }

    /// Drags the air within `radius_world` of `center_world` (world x, z) toward
    /// `velocity_world_per_s` (x, z, world units per second): each cell closes
    /// `1 - exp(-rate_per_s · weight · dt_s)` of the gap between its velocity and that one.
    /// A drag, not a force: the air in the brush is never made faster than the velocity given
    /// or than it already was, so a walker's wake cannot outrun it. A rate of 0 does nothing.
    pub fn push_brush(
        &mut self,
        center_world: [f32; 2],
        radius_world: f32,
        velocity_world_per_s: [f32; 2],
        rate_per_s: f32,
        dt_s: f32,
    ) {
        let amount = rate_per_s * dt_s;
        let finite = velocity_world_per_s.iter().all(|v| v.is_finite());
        if !(finite && amount.is_finite() && amount > 0.0) {
            return;
        }
        let cell_world = self.mapping.cell_size_world();
        let vel_x = velocity_world_per_s[0] / cell_world;
        let vel_y = velocity_world_per_s[1] / cell_world;
        for (i, weight) in self.brush_cells(center_world, radius_world) {
            let close = 1.0 - (-amount * weight).exp();
            self.u[i] += (vel_x - self.u[i]) * close;
            self.v[i] += (vel_y - self.v[i]) * close;
        }
    }

    /// Takes fog away within `radius_world` of `center_world` (world x, z): each cell keeps
    /// `exp(-rate_per_s · weight · dt_s)` of its density. The fog is gone, not moved (it
    /// refills at `fluid.refill` and flows back in with the air). A rate of 0 does nothing.
    pub fn clear_brush(
        &mut self,
        center_world: [f32; 2],
        radius_world: f32,
        rate_per_s: f32,
        dt_s: f32,
    ) {
        let amount = rate_per_s * dt_s;
        if !(amount.is_finite() && amount > 0.0) {
            return;
        }
        for (i, weight) in self.brush_cells(center_world, radius_world) {
            self.density[i] *= (-amount * weight).exp();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FluidParams, GridMapping};
    use super::*;

    fn sim() -> FluidSim {
        FluidSim::new(&FluidParams::default(), GridMapping::new(32, 8.0))
    }

    #[test]
    fn clear_brush_empties_the_middle_and_leaves_the_rest() {
        let mut fluid = sim();
        fluid.clear_brush([0.0, 0.0], 1.0, 30.0, 0.1);
        // Centre cells (the mapping's cell 16 runs 0..0.25) lose most, far cells nothing.
        let near = fluid.probe(0.125, 0.125).density;
        assert!(near < 0.06, "{near}");
        assert_eq!(fluid.probe(3.0, 3.0).density, 1.0);
        let total: f32 = fluid.density().iter().sum();
        assert!(total < 32.0 * 32.0 - 5.0);
    }

    #[test]
    fn push_brush_never_exceeds_the_velocity_it_is_given() {
        let mut fluid = sim();
        let cell_world = fluid.mapping().cell_size_world();
        for _ in 0..200 {
            fluid.push_brush([0.0, 0.0], 1.0, [1.3, 0.0], 50.0, 1.0 / 60.0);
        }
        let (u, v) = fluid.velocity();
        let fastest = u.iter().map(|x| x.abs()).fold(0.0_f32, f32::max) * cell_world;
        assert!((fastest - 1.3).abs() < 1e-3, "{fastest}");
        assert!(v.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn brushes_ignore_nonsense_and_solids() {
        let mut fluid = sim();
        let before = fluid.state_hash();
        fluid.push_brush([f32::NAN, 0.0], 1.0, [1.0, 0.0], 5.0, 0.1);
        fluid.push_brush([0.0, 0.0], -1.0, [1.0, 0.0], 5.0, 0.1);
        fluid.push_brush([0.0, 0.0], 1.0, [f32::INFINITY, 0.0], 5.0, 0.1);
        fluid.clear_brush([0.0, 0.0], 1.0, 0.0, 0.1);
        fluid.clear_brush([99.0, 0.0], 1.0, 5.0, 0.1);
        assert_eq!(fluid.state_hash(), before);
        fluid.mark_solid_circle([0.0, 0.0], 2.0);
        let walled = fluid.density().to_vec();
        fluid.clear_brush([0.0, 0.0], 1.0, 50.0, 0.1);
        assert_eq!(fluid.density(), walled);
    }
}
