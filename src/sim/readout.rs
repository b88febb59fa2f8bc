//! Reading the fluid back out: the two RGBA8 maps the fog shader samples, point probes and
//! summary statistics for tests and logs, and derived fields (divergence, curl, speed) for the
//! debug views. Nothing here changes the state.
//!
//! The maps are packed a run of texels at a time, each texel worked out as one `u32`, so the
//! arithmetic vectorises; the result is the same with every `Lanes`.

use rayon::prelude::*;

use super::FluidSim;
use super::grid::Bilinear;
use super::lanes::Lanes;
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

/// `value` in `[0, 1]` (clamped) as a byte (in a `u32`, 0 to 255), rounded to nearest with
/// halves up, as the example's `Math.round`. NaN gives 0. Written without `f32::round`, which
/// is a library call here, and with an unchecked signed conversion (the same value from 0 to
/// 255), which vectorises where the saturating one does not.
#[inline(always)]
fn unit_to_byte(value: f32) -> u32 {
    let scaled = value * 255.0;
    let held = if scaled > 0.0 { scaled } else { 0.0 };
    let held = if held < 255.0 { held } else { 255.0 };
    // SAFETY: `held` is finite and in `[0, 255]` (NaN failed the first comparison), so the
    // truncation is in range; unchecked, it is one instruction that vectorises.
    let whole: i32 = unsafe { held.to_int_unchecked() };
    // Exact: `held` is below 2^23, so its fractional part is representable.
    let rounded = if held - whole as f32 >= 0.5 {
        whole + 1
    } else {
        whole
    };
    rounded as u32
}

/// Texels packed together: enough to vectorise, few enough to stay in registers and L1.
const MAP_RUN: usize = 32;

/// One row of the fields the maps show, and the scales of [`FluidSim::write_maps`].
struct MapFields<'a> {
    density: &'a [f32],
    off_x: &'a [f32],
    off_z: &'a [f32],
    lift: &'a [f32],
    /// `u`, `v`, `su`, `sv`.
    air: [&'a [f32]; 4],
    offset_range_world: f32,
    speed_scale: f32,
}

impl MapFields<'_> {
    /// The row's texels into `fluid_row` and `lift_row` (RGBA8, as far as they go): each
    /// texel is computed as one little-endian `u32` (R in the low byte), a run of them at a
    /// time, so the arithmetic vectorises, then the run's bytes are copied out.
    #[inline(always)]
    fn pack(self, fluid_row: &mut [u8], lift_row: &mut [u8]) {
        let texels = self
            .density
            .len()
            .min(fluid_row.len() / 4)
            .min(lift_row.len() / 4);
        let (range, speed_scale) = (self.offset_range_world, self.speed_scale);
        let (mut fluid, mut lift) = ([0u32; MAP_RUN], [0u32; MAP_RUN]);
        for start in (0..texels).step_by(MAP_RUN) {
            let len = MAP_RUN.min(texels - start);
            let run = start..start + len;
            // Equal-length runs: no bounds checks in the loop.
            let (density, lift_in) = (&self.density[run.clone()], &self.lift[run.clone()]);
            let (off_x, off_z) = (&self.off_x[run.clone()], &self.off_z[run.clone()]);
            let [u, v, su, sv] = self.air.map(|field| &field[run.clone()]);
            for k in 0..len {
                let red = unit_to_byte(density[k] / 2.0);
                let green = unit_to_byte(off_x[k] / range + 0.5);
                let blue = unit_to_byte(off_z[k] / range + 0.5);
                fluid[k] = (red | green << 8 | blue << 16 | 255 << 24).to_le();
                let speed = length(u[k] + su[k], v[k] + sv[k]);
                let red = unit_to_byte(lift_in[k]);
                let green = unit_to_byte(speed / speed_scale);
                lift[k] = (red | green << 8 | 255 << 24).to_le();
            }
            let bytes = 4 * start..4 * (start + len);
            fluid_row[bytes.clone()].copy_from_slice(bytemuck::cast_slice(&fluid[..len]));
            lift_row[bytes].copy_from_slice(bytemuck::cast_slice(&lift[..len]));
        }
    }

    /// [`MapFields::pack`] compiled for AVX2: IEEE divisions and square roots in every lane,
    /// so the same bytes.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn pack_avx2(self, fluid_row: &mut [u8], lift_row: &mut [u8]) {
        self.pack(fluid_row, lift_row);
    }
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
        let lanes = self.lanes;
        fluid_rgba
            .par_chunks_mut(cells * 4)
            .zip(lift_rgba.par_chunks_mut(cells * 4))
            .enumerate()
            .with_min_len(self.min_rows_per_task)
            .for_each(|(y, (fluid_row, lift_row))| {
                let row = y * cells..(y + 1) * cells;
                let fields = MapFields {
                    density: &self.density[row.clone()],
                    off_x: &self.off_x[row.clone()],
                    off_z: &self.off_z[row.clone()],
                    lift: &self.lift[row.clone()],
                    air: [
                        &self.u[row.clone()],
                        &self.v[row.clone()],
                        &self.su[row.clone()],
                        &self.sv[row],
                    ],
                    offset_range_world,
                    speed_scale,
                };
                match lanes {
                    Lanes::Plain => fields.pack(fluid_row, lift_row),
                    // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
                    #[cfg(target_arch = "x86_64")]
                    Lanes::Avx2 | Lanes::Avx512 => unsafe { fields.pack_avx2(fluid_row, lift_row) },
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
    use crate::sim::{FluidParams, GridMapping};

    /// The texels as first written, one channel at a time with `f32::round`.
    fn reference_maps(sim: &FluidSim, range: f32) -> (Vec<u8>, Vec<u8>) {
        let byte = |value: f32| (value * 255.0).round().clamp(0.0, 255.0) as u8;
        let speed_scale = sim.speed_scale_cells();
        let (mut fluid, mut lift) = (Vec::new(), Vec::new());
        for i in 0..sim.mapping.cell_count() {
            let density = if sim.density[i].is_nan() {
                0.0
            } else {
                sim.density[i]
            };
            let channel = |value: f32| if value.is_nan() { 0 } else { byte(value) };
            fluid.extend([
                channel(density / 2.0),
                channel(sim.off_x[i] / range + 0.5),
                channel(sim.off_z[i] / range + 0.5),
                255,
            ]);
            let speed = length(sim.u[i] + sim.su[i], sim.v[i] + sim.sv[i]);
            lift.extend([channel(sim.lift[i]), channel(speed / speed_scale), 0, 255]);
        }
        (fluid, lift)
    }

    #[test]
    fn every_lane_packs_the_maps_texel_for_texel() {
        // 45: rows of one whole run of texels and a partial one.
        let cells = 45;
        let mut sim = FluidSim::new(&FluidParams::default(), GridMapping::new(cells, 9.0));
        let value =
            |i: usize, seed: usize| ((i * 7919 + seed * 104_729) % 1013) as f32 / 400.0 - 0.6;
        for i in 0..cells * cells {
            sim.density[i] = value(i, 1) * 2.0;
            sim.off_x[i] = value(i, 2) * 6.0;
            sim.off_z[i] = value(i, 3) * 6.0;
            sim.lift[i] = value(i, 4);
            sim.u[i] = value(i, 5) * 80.0;
            sim.v[i] = value(i, 6) * 80.0;
            sim.su[i] = value(i, 7) * 20.0;
            sim.sv[i] = value(i, 8) * 20.0;
        }
        // Exact halves, ends, infinities and NaN.
        sim.density[3] = 1.0 / 255.0;
        sim.density[4] = f32::NAN;
        sim.lift[5] = 0.5 / 255.0;
        sim.lift[6] = f32::INFINITY;
        sim.off_x[7] = f32::NEG_INFINITY;
        sim.u[8] = f32::NAN;
        let expected = reference_maps(&sim, 6.0);
        for lanes in Lanes::available() {
            sim.lanes = lanes;
            let size = cells * cells * 4;
            let (mut fluid, mut lift) = (vec![7u8; size], vec![7u8; size]);
            sim.write_maps(&mut fluid, &mut lift, 6.0);
            assert!(fluid == expected.0, "{lanes:?}: fluid map");
            assert!(lift == expected.1, "{lanes:?}: lift map");
        }
    }

    #[test]
    fn unit_to_byte_rounds_like_round_then_clamp() {
        for step in -2000..=6000 {
            let value = step as f32 / 4000.0;
            let expected = (value * 255.0).round().clamp(0.0, 255.0) as u8;
            assert_eq!(unit_to_byte(value), u32::from(expected), "{value}");
        }
        // Exact halves round up, as JavaScript's Math.round does for positive numbers.
        assert_eq!(unit_to_byte(0.5), 128);
        assert_eq!(unit_to_byte(1.5 / 255.0), 2);
        assert_eq!(unit_to_byte(f32::NAN), 0);
        assert_eq!(unit_to_byte(f32::INFINITY), 255);
    }
}
