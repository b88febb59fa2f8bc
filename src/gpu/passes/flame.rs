//! The `flame` pass: one procedural flame per torch and brazier (shaders/flame.wgsl), added to
//! the picture after the `fog` pass, in the same linear colour target.
//!
//! Each fire is one instance of a six-vertex quad that the vertex shader stands on the flame's
//! foot and turns to face the eye; the fires themselves come from the frame's bind group
//! ([`crate::gpu::fire_lights`]), so the pass has no buffers of its own. Blending is additive
//! (a flame only adds light) and order-free; the quads are depth tested against the scene, so
//! a pillar hides a flame behind it, and write no depth. Draw order is the scene's list order,
//! so sums happen in the same order every frame.

use crate::gpu::GpuError;
use crate::gpu::common::FrameBinding;
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{DepthTest, PassBuilder, RasterPipeline, begin_over_picture};
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets};

/// Adds the colour, leaves the target's alpha alone (the `bolt` pass blends so too).
pub(crate) const ADDITIVE: wgpu::BlendState = wgpu::BlendState {
    color: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
    alpha: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::Zero,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
};

/// The `flame` pass's pipeline and how many fires it draws.
pub(crate) struct FlamePass {
    pipeline: wgpu::RenderPipeline,
    fire_count: u32,
}

impl FlamePass {
    /// The pass for `fire_count` fires (those in the frame's fire lights).
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        frame: &FrameBinding,
        fire_count: u32,
    ) -> Result<Self, GpuError> {
        let module = ShaderName::Flame.create_module(device, errors)?;
        let pipeline =
            PassBuilder::new(device, ShaderName::Flame.name()).raster_pipeline(&RasterPipeline {
                part: None,
                module: &module,
                vertex_entry: "vs_flame",
                fragment_entry: "fs_flame",
                buffers: &[],
                bind_group_layouts: &[&frame.layout],
                topology: wgpu::PrimitiveTopology::TriangleList,
                // The quad turns to face the eye, but either side may end up toward it.
                cull_mode: None,
                depth: Some(DepthTest::OVER),
                format: COLOR_FORMAT,
                blend: Some(ADDITIVE),
            });
        Ok(FlamePass {
            pipeline,
            fire_count,
        })
    }

    /// Records the pass over what the `scene` and `fog` passes left; nothing when there are no
    /// fires.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        if self.fire_count == 0 {
            return;
        }
        let mut pass = begin_over_picture(encoder, ShaderName::Flame.name(), targets);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.draw(0..6, 0..self.fire_count);
    }
}
