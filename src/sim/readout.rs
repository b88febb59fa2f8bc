//! Reading the fluid back out: the two RGBA8 maps the fog shader samples, point probes and
//! summary statistics for tests and logs, and derived fields (divergence, curl, speed) for the
//! debug views. Nothing here changes the state.

use rayon::prelude::*;

use super::FluidSim;
use super::grid::Bilinear;
use super::stencil::{curl_into, divergence_into};

/// The fluid at one floor point, read bilinearly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    /// Fog density (1 at rest).
    pub density: f32,
    /// Air speed, ordinary plus shock wave, in world units per second.
    pub speed: f32,
    /// How high the fog has been thrown, 0 to 1.
    pub lift: f32,
}

/// Whole-grid summaries, over every cell (solid ones included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldStats {
    /// Mean fog density.
    pub density_mean: f32,
    /// Least fog density.
    pub density_min: f32,
    /// Most fog density.
    pub density_max: f32,
    /// Fastest air (ordinary plus shock wave), in world units per second.
    pub speed_max: f32,
    /// Highest lift.
    pub lift_max: f32,
}

/// `value` in `[0, 1]` (clamped) as a byte, rounded to nearest with halves up, as the example's
/// `Math.round`. NaN gives 0. Written without `f32::round`, which is a library call here.
#[inline(always)]
fn unit_to_byte(value: f32) -> u8 {
    let scaled = value * 255.0;
    let held = if scaled > 0.0 { scaled } else { 0.0 };
    let held = if held < 255.0 { held } else { 255.0 };
    let whole = held as u32;
    // Exact: `held` is below 2^23, so its fractional part is representable.
    let rounded = if held - whole as f32 >= 0.5 {
        whole + 1
    } else {
        whole
    };
    rounded as u8
}

/// Length of `(x, y)`; plain `sqrt` (`f32::hypot` guards against overflow that cannot happen at
/// fluid speeds, at several times the cost).
#[inline(always)]
fn length(x: f32, y: f32) -> f32 {
    (x * x + y * y).sqrt()
}

impl FluidSim {
    /// Fills the shader's two maps, each `cells × cells` RGBA8 in row-major order (row `j = 0`
    /// first):
    /// - `fluid_rgba`: R = density / 2, G = off_x / range + 0.5, B = off_z / range + 0.5,
    ///   A = 255;
    /// - `lift_rgba`: R = lift, G = speed / `speed_scale` (speed of the ordinary plus shock air
    ///   in world units per second), B = 0, A = 255;
    ///
    /// each channel clamped to `[0, 1]` and rounded to the nearest byte. `offset_range_world` is
    /// the drift span in world units the G and B channels cover. Buffers must hold
    /// `cells * cells * 4` bytes; shorter ones are filled as far as they go.
    pub fn write_maps(&self, fluid_rgba: &mut [u8], lift_rgba: &mut [u8], offset_range_world: f32) {
        let cells = self.mapping.cells;
        debug_assert!(fluid_rgba.len() >= cells * cells * 4);
        debug_assert!(lift_rgba.len() >= cells * cells * 4);
        let speed_scale = self.speed_scale_cells();
        fluid_rgba
            .par_chunks_mut(cells * 4)
            .zip(lift_rgba.par_chunks_mut(cells * 4))
            .enumerate()
            .with_min_len(self.min_rows_per_task)
            .for_each(|(y, (fluid_row, lift_row))| {
                let row = y * cells;
                let texels = fluid_row
                    .chunks_exact_mut(4)
                    .zip(lift_row.chunks_exact_mut(4));
                for (x, (fluid_texel, lift_texel)) in texels.enumerate() {
                    let i = row + x;
                    fluid_texel[0] = unit_to_byte(self.density[i] / 2.0);
                    fluid_texel[1] = unit_to_byte(self.off_x[i] / offset_range_world + 0.5);
                    fluid_texel[2] = unit_to_byte(self.off_z[i] / offset_range_world + 0.5);
                    fluid_texel[3] = 255;
                    let speed = length(self.u[i] + self.su[i], self.v[i] + self.sv[i]);
                    lift_texel[0] = unit_to_byte(self.lift[i]);
                    lift_texel[1] = unit_to_byte(speed / speed_scale);
                    lift_texel[2] = 0;
                    lift_texel[3] = 255;
                }
            });
    }

    /// The fluid at floor point (`x_world`, `z_world`), bilinear between cell centres and held
    /// at the grid's edge.
    pub fn probe(&self, x_world: f32, z_world: f32) -> Probe {
        let cells = self.mapping.cells;
        let [x_grid, z_grid] = self.mapping.world_to_grid(x_world, z_world);
        // Values sit at cell centres, `i + 0.5` in grid coordinates.
        let at = Bilinear::at(cells, x_grid - 0.5, z_grid - 0.5);
        let wind_x = at.read(&self.u) + at.read(&self.su);
        let wind_y = at.read(&self.v) + at.read(&self.sv);
        Probe {
            density: at.read(&self.density),
            speed: length(wind_x, wind_y) * self.mapping.cell_size_world(),
            lift: at.read(&self.lift),
        }
    }

    /// Summaries of the whole grid, reduced sequentially in index order with `f64` sums.
    pub fn stats(&self) -> FieldStats {
        let mut density_sum = 0.0_f64;
        let mut density_min = f32::INFINITY;
        let mut density_max = f32::NEG_INFINITY;
        let mut speed_max_sq = 0.0_f32;
        let mut lift_max = f32::NEG_INFINITY;
        for i in 0..self.density.len() {
            let density = self.density[i];
            density_sum += f64::from(density);
            density_min = density_min.min(density);
            density_max = density_max.max(density);
            let wind_x = self.u[i] + self.su[i];
            let wind_y = self.v[i] + self.sv[i];
            speed_max_sq = speed_max_sq.max(wind_x * wind_x + wind_y * wind_y);
            lift_max = lift_max.max(self.lift[i]);
        }
        FieldStats {
            density_mean: (density_sum / self.density.len() as f64) as f32,
            density_min,
            density_max,
            speed_max: speed_max_sq.sqrt() * self.mapping.cell_size_world(),
            lift_max,
        }
    }

    /// Divergence of the ordinary air per cell, with the projection's own discrete operator
    /// (central differences, cells per second per cell); 0 on the grid's border.
    pub fn divergence_field(&self) -> Vec<f32> {
        let mut out = vec![0.0; self.mapping.cell_count()];
        divergence_into(
            &mut out,
            &self.u,
            &self.v,
            self.mapping.cells,
            self.min_rows_per_task,
        );
        out
    }

    /// Curl of the ordinary air per cell, with vorticity confinement's discrete operator
    /// (positive turns from +x toward +z); 0 on the grid's border.
    pub fn curl_field(&self) -> Vec<f32> {
        let mut out = vec![0.0; self.mapping.cell_count()];
        curl_into(
            &mut out,
            &self.u,
            &self.v,
            self.mapping.cells,
            self.min_rows_per_task,
        );
        out
    }

    /// Air speed per cell, ordinary plus shock wave, in cells per second.
    pub fn speed_field(&self) -> Vec<f32> {
        (0..self.mapping.cell_count())
            .map(|i| length(self.u[i] + self.su[i], self.v[i] + self.sv[i]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_to_byte_rounds_like_round_then_clamp() {
        for step in -2000..=6000 {
            let value = step as f32 / 4000.0;
            let expected = (value * 255.0).round().clamp(0.0, 255.0) as u8;
            assert_eq!(unit_to_byte(value), expected, "{value}");
        }
        // Exact halves round up, as JavaScript's Math.round does for positive numbers.
        assert_eq!(unit_to_byte(0.5), 128);
        assert_eq!(unit_to_byte(1.5 / 255.0), 2);
        assert_eq!(unit_to_byte(f32::NAN), 0);
        assert_eq!(unit_to_byte(f32::INFINITY), 255);
    }
}
