//! The two fluid maps on the GPU, as the example's shader reads them: `fluid` (density / 2,
//! drift x, drift z) and `lift` (lift, air speed), RGBA8, grid × grid, refreshed every frame.
//!
//! Texel (i, j) is fluid cell (i, j): row j = 0 is the fog square's edge at the smallest z, so
//! `uv = (pos.xz - area_min) / area_size` reads a world point's cell with the texel centres at
//! the cell centres (the sim's `GridMapping`). The fog shaders filter them bilinearly by hand
//! from single texels, clamped to the edge (`sample_map` in shaders/fog.wgsl: a sampler's
//! filtering weights differ between GPUs); the `overlay` pass reads single texels.

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

    /// Queues both maps for upload (applied at the next submit). Call [`FluidMaps::check`]
    /// first.
    pub(crate) fn write(&self, queue: &wgpu::Queue, inputs: &FrameInputs<'_>) {
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
        queue.write_texture(self.fluid.as_image_copy(), inputs.fluid_map, layout, size);
        queue.write_texture(self.lift.as_image_copy(), inputs.lift_map, layout, size);
    }
}
