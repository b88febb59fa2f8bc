//! The `encode` pass: the one place linear light becomes 8-bit sRGB (shaders/encode.wgsl).
//!
//! A full-screen triangle copies the half-float picture pixel for pixel into the
//! Rgba8UnormSrgb output; the output format applies the sRGB curve as it stores. Everything
//! before this pass is linear, so a linear EXR or a separate fog layer can later read the
//! half-float target instead.

use crate::gpu::GpuError;
use crate::gpu::context::ErrorSink;
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
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("encode.layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("encode.bind_group"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&targets.color_linear_view),
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("encode.pipeline_layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("encode"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_encode"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_encode"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: OUTPUT_FORMAT,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        Ok(EncodePass {
            pipeline,
            bind_group,
        })
    }

    /// Records the pass: every output pixel from the linear picture.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("encode"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &targets.output_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}
