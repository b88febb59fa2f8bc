//! The `shadow` pass: the lamps' shadow maps, drawn each frame before the `scene` pass
//! (shaders/shadow.wgsl). One render pass per shadow-map face (a spot lamp's one, a point
//! lamp's six), each clearing the face's layer and drawing the casters into it: the hall's
//! static geometry and the ball from the scene's own mesh ([`build_scene_mesh`], the floor
//! and the embers left out by the shader), then any [`ExtraCasters`] the caller hands
//! [`ShadowPass::record`] (the people's capsule mesh, built per frame elsewhere).
//!
//! Each texel keeps the distance from the lamp to the nearest caster over the lamp's range, so
//! the lookups (shaders/lamps.wgsl) compare distances and need no projection per face kind.
//! Where the scene casts the moon's shadows (`lights.directional.shadows`) one more render pass
//! draws the same casters into the moon's orthographic map (`gpu/moon_shadow.rs`), keeping the
//! rasteriser's depth. A scene without shadowing lamps or moon shadows has no `shadow` pass.

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
    /// The pipelines for [`ExtraCasters`] into the lamps' faces and into the moon's map, made
    /// for the stride they were first asked for.
    extra_pipelines: Option<(u64, ExtraPipelines)>,
    bind_group: wgpu::BindGroup,
    vertices: wgpu::Buffer,
    vertex_count: u32,
    face_views: Vec<wgpu::TextureView>,
    /// The moon's map and its pipeline (scenes with moon shadows).
    moon: Option<(wgpu::TextureView, wgpu::RenderPipeline)>,
}

/// The pipelines drawing [`ExtraCasters`] of one stride: into the lamps' faces, and into the
/// moon's map where the scene has one.
struct ExtraPipelines {
    faces: wgpu::RenderPipeline,
    moon: Option<wgpu::RenderPipeline>,
}

impl ShadowPass {
    /// The pass for `scene`'s lamps and moon, or `None` when nothing casts shadows.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        frame: &FrameBinding,
        lamps: &LampResources,
        scene: &Scene,
    ) -> Result<Option<Self>, GpuError> {
        if lamps.face_views.is_empty() && lamps.moon_view.is_none() {
            return Ok(None);
        }
        let name = ShaderName::Shadow.name();
        let module = ShaderName::Shadow.create_module(device, errors, &[])?;
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
        let stride = std::mem::size_of::<SceneVertex>() as u64;
        let pipeline = casters_pipeline(
            (device, &module, &layout),
            name,
            ("vs_shadow", Some("fs_shadow")),
            stride,
            &attributes,
        );
        let moon = lamps.moon_view.clone().map(|view| {
            let label = build.label("moon");
            let entries = ("vs_moon_shadow", Some("fs_moon_shadow"));
            let pipeline = casters_pipeline(
                (device, &module, &layout),
                &label,
                entries,
                stride,
                &attributes,
            );
            (view, pipeline)
        });
        Ok(Some(ShadowPass {
            module,
            layout,
            pipeline,
            extra_pipelines: None,
            bind_group,
            vertices,
            vertex_count: mesh.vertices.len() as u32,
            face_views: lamps.face_views.clone(),
            moon,
        }))
    }

    /// Records one render pass per face, and one for the moon's map: clear, the hall and the
    /// ball, then `extra`.
    pub(crate) fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        extra: Option<ExtraCasters<'_>>,
    ) {
        let extra = extra.filter(|extra| extra.vertex_count > 0);
        if let Some(extra) = extra
            && self.extra_pipelines.as_ref().map(|(stride, _)| *stride) != Some(extra.stride_bytes)
        {
            let pipelines = self.extra_pipelines_for(device, extra.stride_bytes);
            self.extra_pipelines = Some((extra.stride_bytes, pipelines));
        }
        let extra_pipelines = self
            .extra_pipelines
            .as_ref()
            .map(|(_, pipelines)| pipelines);
        for (face, view) in (0u32..).zip(&self.face_views) {
            let mut pass = begin_depth_pass(encoder, ShaderName::Shadow.name(), view);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_pipeline(&self.pipeline);
            pass.set_vertex_buffer(0, self.vertices.slice(..));
            pass.draw(0..self.vertex_count, face..face + 1);
            if let (Some(extra), Some(pipelines)) = (extra, extra_pipelines) {
                pass.set_pipeline(&pipelines.faces);
                pass.set_vertex_buffer(0, extra.buffer.slice(..));
                pass.draw(0..extra.vertex_count, face..face + 1);
            }
        }
        if let Some((view, pipeline)) = &self.moon {
            let mut pass = begin_depth_pass(encoder, ShaderName::Shadow.name(), view);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_pipeline(pipeline);
            pass.set_vertex_buffer(0, self.vertices.slice(..));
            pass.draw(0..self.vertex_count, 0..1);
            if let (Some(extra), Some(pipeline)) =
                (extra, extra_pipelines.and_then(|p| p.moon.as_ref()))
            {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, extra.buffer.slice(..));
                pass.draw(0..extra.vertex_count, 0..1);
            }
        }
    }

    /// The pipelines for extra casters whose vertices are `stride` bytes apart.
    fn extra_pipelines_for(&self, device: &wgpu::Device, stride: u64) -> ExtraPipelines {
        let attributes = [wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        }];
        let build = PassBuilder::new(device, ShaderName::Shadow.name());
        let shared = (device, &self.module, &self.layout);
        let faces = casters_pipeline(
            shared,
            &build.label("extra"),
            ("vs_shadow_extra", Some("fs_shadow")),
            stride,
            &attributes,
        );
        let moon = self.moon.as_ref().map(|_| {
            let entries = ("vs_moon_shadow_extra", Some("fs_moon_shadow"));
            casters_pipeline(
                shared,
                &build.label("moon_extra"),
                entries,
                stride,
                &attributes,
            )
        });
        ExtraPipelines { faces, moon }
    }
}

/// A depth-only pipeline drawing triangles with `entries` (the vertex entry, and the fragment
/// entry that writes the depth, or none to keep the rasteriser's) from vertices `stride` bytes
/// apart, both sides (a caster's back faces shadow as well as its front).
fn casters_pipeline(
    (device, module, layout): (&wgpu::Device, &wgpu::ShaderModule, &wgpu::PipelineLayout),
    label: &str,
    (vertex_entry, fragment_entry): (&str, Option<&str>),
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
        fragment: fragment_entry.map(|entry| wgpu::FragmentState {
            module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    })
}
