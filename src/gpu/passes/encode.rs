//! The `encode` pass: the one place linear light becomes 8-bit sRGB (shaders/encode.wgsl).
//!
//! A full-screen triangle copies the half-float picture pixel for pixel into the
//! Rgba8UnormSrgb output; the output format applies the sRGB curve as it stores. Everything
//! before this pass is linear, so a linear EXR or a separate fog layer can later read the
//! half-float target instead. With a per-pixel fog compositor (the targets then allow storage
//! writes) a compute shader does the copy and the curve instead (`cs_encode`): on GPUs whose
//! fragment work is slow a full-screen fragment pass costs more than the arithmetic.

use crate::gpu::GpuError;
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{
    PassBuilder, RasterPipeline, begin_render_pass, storage_texture, texture,
};
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{OUTPUT_FORMAT, OUTPUT_STORAGE_FORMAT, Targets};

/// Pixels a side of one workgroup of `cs_encode`.
const WORKGROUP_SIDE_PX: u32 = 8;

/// How the pass runs.
enum Encoder {
    /// A full-screen triangle into the sRGB view.
    Raster(wgpu::RenderPipeline),
    /// One invocation a pixel into the storage view, over a picture of this size (pixels).
    Compute(wgpu::ComputePipeline, (u32, u32)),
}

/// The `encode` pass's pipeline and its view of the linear picture.
pub(crate) struct EncodePass {
    encoder: Encoder,
    bind_group: wgpu::BindGroup,
}

impl EncodePass {
    /// The pass into `targets`: in a compute shader when they have a storage view of the
    /// picture, else raster.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        targets: &Targets,
    ) -> Result<Self, GpuError> {
        let module = ShaderName::Encode.create_module(device, errors, &[])?;
        let build = PassBuilder::new(device, ShaderName::Encode.name());
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let linear = wgpu::BindingResource::TextureView(&targets.color_linear_view);
        if let Some(storage_view) = &targets.output_storage_view {
            let compute = wgpu::ShaderStages::COMPUTE;
            let layout = build.bind_group_layout(&[
                texture(0, compute, unfilterable),
                storage_texture(1, compute, OUTPUT_STORAGE_FORMAT),
            ]);
            let bind_group = build.bind_group(
                &layout,
                [linear, wgpu::BindingResource::TextureView(storage_view)],
            );
            let pipeline = build.compute_pipeline(&module, "cs_encode", &[&layout]);
            let size = targets.output.size();
            return Ok(EncodePass {
                encoder: Encoder::Compute(pipeline, (size.width, size.height)),
                bind_group,
            });
        }
        let layout =
            build.bind_group_layout(&[texture(0, wgpu::ShaderStages::FRAGMENT, unfilterable)]);
        let bind_group = build.bind_group(&layout, [linear]);
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
            encoder: Encoder::Raster(pipeline),
            bind_group,
        })
    }

    /// Records the pass: every output pixel from the linear picture.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
        match &self.encoder {
            Encoder::Raster(pipeline) => {
                let mut pass = begin_render_pass(
                    encoder,
                    ShaderName::Encode.name(),
                    &targets.output_view,
                    wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    None,
                );
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.draw(0..3, 0..1);
            }
            Encoder::Compute(pipeline, (width, height)) => {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(ShaderName::Encode.name()),
                    timestamp_writes: None,
                });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.dispatch_workgroups(
                    width.div_ceil(WORKGROUP_SIDE_PX),
                    height.div_ceil(WORKGROUP_SIDE_PX),
                    1,
                );
            }
        }
    }
}
