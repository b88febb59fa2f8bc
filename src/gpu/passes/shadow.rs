//! The `shadow` pass: the lamps' shadow maps, drawn each frame before the `scene` pass
//! (shaders/shadow.wgsl). One render pass per shadow-map face (a spot lamp's one, a point
//! lamp's six), each clearing the face's layer and drawing the casters into it: the hall's
//! static geometry and the ball from the scene's own mesh ([`build_scene_mesh`], the floor
//! and the embers left out by the shader), then any [`ExtraCasters`] the caller hands
//! [`ShadowPass::record`] (the people's capsule mesh, built per frame elsewhere).
//!
//! Each texel keeps the distance from the lamp to the nearest caster over the lamp's range, so
//! the lookups (shaders/lamps.wgsl) compare distances and need no projection per face kind.
//! A scene without shadowing lamps has no `shadow` pass at all.

use crate::gpu::GpuError;
use crate::gpu::common::FrameBinding;
use crate::gpu::context::ErrorSink;
use crate::gpu::geometry::{SceneVertex, build_scene_mesh};
use crate::gpu::lamp_lights::{LampResources, SHADOW_FORMAT};
use crate::gpu::passes::builder::{ALL_STAGES, PassBuilder, begin_depth_pass, uniform};
use crate::gpu::shaders::ShaderName;
use crate::scene::Scene;

/// Triangles drawn into every shadow map besides the hall and the ball: a vertex buffer whose
/// vertices each begin with a world position as three `f32` (location 0), `stride_bytes`
/// apart, `vertex_count` of them as a triangle list. The people's capsule mesh is meant to be
/// handed in as this.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExtraCasters<'a> {
    /// The vertices.
    pub buffer: &'a wgpu::Buffer,
    /// How many vertices to draw (a multiple of 3).
    pub vertex_count: u32,
    /// Bytes from one vertex to the next.
    pub stride_bytes: u64,
}

/// The `shadow` pass's pipelines, casters and face views.
pub(crate) struct ShadowPass {
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    pipeline: wgpu::RenderPipeline,
    /// The pipeline for [`ExtraCasters`], made for the stride it was first asked for.
    extra_pipeline: Option<(u64, wgpu::RenderPipeline)>,
    bind_group: wgpu::BindGroup,
    vertices: wgpu::Buffer,
    vertex_count: u32,
    face_views: Vec<wgpu::TextureView>,
}

impl ShadowPass {
    /// The pass for `scene`'s lamps, or `None` when no lamp casts shadows.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        frame: &FrameBinding,
        lamps: &LampResources,
        scene: &Scene,
    ) -> Result<Option<Self>, GpuError> {
        if lamps.face_views.is_empty() {
            return Ok(None);
        }
        let name = ShaderName::Shadow.name();
        let module = ShaderName::Shadow.create_module(device, errors)?;
        let build = PassBuilder::new(device, name);
        let mesh = build_scene_mesh(scene);
        let vertices = build.buffer_init(
            "vertices",
            bytemuck::cast_slice(&mesh.vertices),
            wgpu::BufferUsages::VERTEX,
        );
        // The frame uniforms (the ball) at 0 and the lamps at 3, as lamps.wgsl declares them;
        // not the frame's own bind group, which holds the maps this pass draws.
        let group_layout =
            build.bind_group_layout(&[uniform(0, ALL_STAGES), uniform(3, ALL_STAGES)]);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&build.label("bind_group")),
            layout: &group_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: frame.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: lamps.buffer.as_entire_binding(),
                },
            ],
        });
        let layout = build.pipeline_layout(name, &[&group_layout]);
        // keep in sync with shaders/shadow.wgsl: vs_shadow (SceneVertex's position and material)
        let attributes = [
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: 0,
            },
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Uint32,
                offset: std::mem::offset_of!(SceneVertex, material) as u64,
                shader_location: 3,
            },
        ];
        let pipeline = casters_pipeline(
            device,
            &module,
            &layout,
            name,
            "vs_shadow",
            std::mem::size_of::<SceneVertex>() as u64,
            &attributes,
        );
        Ok(Some(ShadowPass {
            module,
            layout,
            pipeline,
            extra_pipeline: None,
            bind_group,
            vertices,
            vertex_count: mesh.vertices.len() as u32,
            face_views: lamps.face_views.clone(),
        }))
    }

    /// Records one render pass per face: clear, the hall and the ball, then `extra`.
    pub(crate) fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        extra: Option<ExtraCasters<'_>>,
    ) {
        let extra = extra.filter(|extra| extra.vertex_count > 0);
        if let Some(extra) = extra
            && self.extra_pipeline.as_ref().map(|(stride, _)| *stride) != Some(extra.stride_bytes)
        {
            let attributes = [wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: 0,
            }];
            let label = PassBuilder::new(device, ShaderName::Shadow.name()).label("extra");
            let pipeline = casters_pipeline(
                device,
                &self.module,
                &self.layout,
                &label,
                "vs_shadow_extra",
                extra.stride_bytes,
                &attributes,
            );
            self.extra_pipeline = Some((extra.stride_bytes, pipeline));
        }
        for (face, view) in (0u32..).zip(&self.face_views) {
            let mut pass = begin_depth_pass(encoder, ShaderName::Shadow.name(), view);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_pipeline(&self.pipeline);
            pass.set_vertex_buffer(0, self.vertices.slice(..));
            pass.draw(0..self.vertex_count, face..face + 1);
            if let (Some(extra), Some((_, pipeline))) = (extra, &self.extra_pipeline) {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, extra.buffer.slice(..));
                pass.draw(0..extra.vertex_count, face..face + 1);
            }
        }
    }
}

/// A depth-only pipeline drawing triangles with `vertex_entry` from vertices `stride` bytes
/// apart, both sides (a caster's back faces shadow as well as its front).
fn casters_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::PipelineLayout,
    label: &str,
    vertex_entry: &str,
    stride: u64,
    attributes: &[wgpu::VertexAttribute],
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vertex_entry),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: stride,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: SHADOW_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_shadow"),
            compilation_options: Default::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    })
}
