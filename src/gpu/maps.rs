//! The two fluid maps on the GPU, as the example's shader reads them: `fluid` (density / 2,
//! drift x, drift z) and `lift` (lift, air speed), RGBA8, grid × grid, refreshed every frame.
//!
//! The fluid map's fourth channel was free; on the GPU it carries the lift too. The fog's
//! density needs the amount, the drift and the lift, so it reads one map, not two: four texels
//! a sample instead of eight. The physical medium takes up to three density samples a slab.
//! Only the seed medium's colour (the air speed) and the `overlay` pass read the lift map. The
//! same bytes reach the shader either way, so the pictures keep theirs.
//!
//! Texel (i, j) is fluid cell (i, j): row j = 0 is the fog square's edge at the smallest z, so
//! `uv = (pos.xz - area_min) / area_size` reads a world point's cell with the texel centres at
//! the cell centres (the sim's `GridMapping`). The fog shaders filter them bilinearly by hand
//! from the four texels a gather picks, clamped to the edge (`sample_map` in
//! shaders/fog.wgsl: a sampler's filtering weights differ between GPUs); the `overlay` pass
//! reads single texels.

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::targets::{texture_2d, view_of};

/// The fluid maps.
pub(crate) struct FluidMaps {
    fluid: wgpu::Texture,
    lift: wgpu::Texture,
    pub fluid_view: wgpu::TextureView,
    pub lift_view: wgpu::TextureView,
    grid: u32,
    /// The fluid map as uploaded: its bytes with the lift in the fourth channel.
    packed: Vec<u8>,
}

impl FluidMaps {
    /// Empty maps of `grid` × `grid` texels (all zero until the first upload).
    pub(crate) fn new(device: &wgpu::Device, grid: u32) -> Self {
        let texture = |label: &str| {
            // Not sRGB: the bytes are data, read back as byte / 255.
            let format = wgpu::TextureFormat::Rgba8Unorm;
            let usage = wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST;
            texture_2d(device, label, (grid, grid), format, usage)
        };
        let fluid = texture("maps.fluid");
        let lift = texture("maps.lift");
        FluidMaps {
            fluid_view: view_of(&fluid, "maps.fluid.view"),
            lift_view: view_of(&lift, "maps.lift.view"),
            fluid,
            lift,
            grid,
            packed: Vec::new(),
        }
    }

    /// Bytes one map must have.
    pub(crate) fn expected_len(&self) -> usize {
        self.grid as usize * self.grid as usize * 4
    }

    /// Checks both maps of `inputs` have `grid × grid × 4` bytes.
    pub(crate) fn check(&self, inputs: &FrameInputs<'_>) -> Result<(), GpuError> {
        let expected = self.expected_len();
        for (map, bytes) in [("fluid", inputs.fluid_map), ("lift", inputs.lift_map)] {
            if bytes.len() != expected {
                return Err(GpuError::MapSize {
                    map,
                    expected,
                    actual: bytes.len(),
                });
            }
        }
        Ok(())
    }

    /// Queues both maps for upload (applied at the next submit), the fluid map with the lift in
    /// its fourth channel. Call [`FluidMaps::check`] first.
    pub(crate) fn write(&mut self, queue: &wgpu::Queue, inputs: &FrameInputs<'_>) {
        pack_lift(inputs.fluid_map, inputs.lift_map, &mut self.packed);
        // `write_texture` takes tightly packed rows: the 256-byte row alignment applies only to
        // copies between buffers and textures (see readback.rs).
        let layout = wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(self.grid * 4),
            rows_per_image: Some(self.grid),
        };
        let size = wgpu::Extent3d {
            width: self.grid,
            height: self.grid,
            depth_or_array_layers: 1,
        };
        queue.write_texture(self.fluid.as_image_copy(), &self.packed, layout, size);
        queue.write_texture(self.lift.as_image_copy(), inputs.lift_map, layout, size);
    }
}

/// `fluid` (RGBA8) with each texel's fourth byte replaced by the lift, the first byte of the
/// same texel of `lift`, into `packed`.
fn pack_lift(fluid: &[u8], lift: &[u8], packed: &mut Vec<u8>) {
    packed.clear();
    packed.extend_from_slice(fluid);
    for (texel, lift) in packed.chunks_exact_mut(4).zip(lift.chunks_exact(4)) {
        texel[3] = lift[0];
    }
}

#[cfg(test)]
mod tests {
    use super::pack_lift;

    #[test]
    fn the_lift_rides_in_the_fluid_maps_fourth_channel() {
        let fluid = [10, 20, 30, 255, 11, 21, 31, 255];
        let lift = [7, 99, 0, 255, 8, 98, 0, 255];
        let mut packed = vec![1, 2, 3];
        pack_lift(&fluid, &lift, &mut packed);
        assert_eq!(packed, [10, 20, 30, 7, 11, 21, 31, 8]);
    }
}
