//! The `encode` pass: the one place linear light becomes 8-bit sRGB (shaders/encode.wgsl).
//!
//! A full-screen triangle copies the half-float picture pixel for pixel into the
//! Rgba8UnormSrgb output; the output format applies the sRGB curve as it stores. Everything
//! before this pass is linear, so a linear EXR or a separate fog layer can later read the
//! half-float target instead.

use crate::gpu::GpuError;
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{PassBuilder, RasterPipeline, begin_render_pass, texture};
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{OUTPUT_FORMAT, Targets};

/// The `encode` pass's pipeline and its view of the linear picture.
pub(crate) struct EncodePass {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
}

impl EncodePass {
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        targets: &Targets,
    ) -> Result<Self, GpuError> {
        let module = ShaderName::Encode.create_module(device, errors)?;
        let build = PassBuilder::new(device, ShaderName::Encode.name());
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let layout =
            build.bind_group_layout(&[texture(0, wgpu::ShaderStages::FRAGMENT, unfilterable)]);
        let bind_group = build.bind_group(
            &layout,
            [wgpu::BindingResource::TextureView(
                &targets.color_linear_view,
            )],
        );
        let pipeline = build.raster_pipeline(&RasterPipeline {
            part: None,
            module: &module,
            vertex_entry: "vs_encode",
            fragment_entry: "fs_encode",
            buffers: &[],
            bind_group_layouts: &[&layout],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            depth: None,
            format: OUTPUT_FORMAT,
            blend: None,
        });
        Ok(EncodePass {
            pipeline,
            bind_group,
        })
    }

    /// Records the pass: every output pixel from the linear picture.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
        let mut pass = begin_render_pass(
            encoder,
            ShaderName::Encode.name(),
            &targets.output_view,
            wgpu::LoadOp::Clear(wgpu::Color::BLACK),
            None,
        );
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}
