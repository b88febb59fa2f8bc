//! What every pass sets up the same way: labelled buffers, bind-group layouts, bind groups,
//! pipelines and render passes. A pass file says only what is its own (its bindings, its
//! shader's entry points, its depth test and blend); the descriptors' other fields, the same
//! in every pass, are filled in here once.
//!
//! Every wgpu object a [`PassBuilder`] makes is labelled after its pass: `NAME` for the
//! pipeline and the pass, `NAME.layout`, `NAME.bind_group`, `NAME.pipeline_layout`, and
//! `NAME.WHAT` for buffers, so a validation error or a GPU capture names the pass.

use bytemuck::Pod;

use crate::frame::View;
use crate::gpu::common::FrameBinding;
use crate::gpu::context::ErrorSink;
use crate::gpu::maps::FluidMaps;
use crate::gpu::passes::edge_batch::EdgeBatch;
use crate::gpu::targets::{DEPTH_FORMAT, Targets};
use crate::scene::Scene;

/// The vertex and fragment stages: what the raster passes' own bindings are seen by.
pub(crate) const DRAW_STAGES: wgpu::ShaderStages =
    wgpu::ShaderStages::VERTEX.union(wgpu::ShaderStages::FRAGMENT);

/// Every stage: the frame's group 0 is bound by the raster passes and the `fog_compute` pass.
pub(crate) const ALL_STAGES: wgpu::ShaderStages = DRAW_STAGES.union(wgpu::ShaderStages::COMPUTE);

/// Premultiplied-alpha "over" blending, for everything drawn on top of the scene.
pub(crate) const PREMULTIPLIED_OVER: wgpu::BlendState =
    wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING;

/// A uniform buffer at `binding`.
pub(crate) fn uniform(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    buffer(binding, visibility, wgpu::BufferBindingType::Uniform)
}

/// A read-only storage buffer at `binding`.
pub(crate) fn storage_buffer(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BufferBindingType::Storage { read_only: true };
    buffer(binding, visibility, ty)
}

/// A read-write storage buffer at `binding`.
pub(crate) fn read_write_storage_buffer(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BufferBindingType::Storage { read_only: false };
    buffer(binding, visibility, ty)
}

/// A buffer of kind `ty` at `binding`, bound whole (no dynamic offset, no minimum size).
fn buffer(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    entry(binding, visibility, ty)
}

/// A 2D texture of `sample_type` at `binding`.
pub(crate) fn texture(
    binding: u32,
    visibility: wgpu::ShaderStages,
    sample_type: wgpu::TextureSampleType,
) -> wgpu::BindGroupLayoutEntry {
    entry(
        binding,
        visibility,
        wgpu::BindingType::Texture {
            sample_type,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
    )
}

/// A filterable float 2D texture at `binding`.
pub(crate) fn filterable_texture(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    texture(
        binding,
        visibility,
        wgpu::TextureSampleType::Float { filterable: true },
    )
}

/// A write-only 2D storage texture of `format` at `binding`.
pub(crate) fn storage_texture(
    binding: u32,
    visibility: wgpu::ShaderStages,
    format: wgpu::TextureFormat,
) -> wgpu::BindGroupLayoutEntry {
    entry(
        binding,
        visibility,
        wgpu::BindingType::StorageTexture {
            access: wgpu::StorageTextureAccess::WriteOnly,
            format,
            view_dimension: wgpu::TextureViewDimension::D2,
        },
    )
}

fn entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty,
        count: None,
    }
}

/// What every pass of a renderer is built from: the device and its error scope, the frame's
/// bind group, the fluid maps, the targets, the scene and the view. The renderer makes one and
/// hands it to each pass's constructor, which takes its own settings after it.
#[derive(Clone, Copy)]
pub(crate) struct PassContext<'a> {
    pub device: &'a wgpu::Device,
    pub errors: &'a ErrorSink,
    pub frame: &'a FrameBinding,
    pub maps: &'a FluidMaps,
    pub targets: &'a Targets,
    pub scene: &'a Scene,
    pub view: View,
    /// The later edge samples drawn in one go, where the renderer batches them.
    pub edge_batch: Option<&'a EdgeBatch>,
}

/// What a pass records one sample of a frame into: the targets, the frame's bind group, and
/// whether the sample draws the pixels at an edge alone (`passes/edges.rs`).
#[derive(Clone, Copy)]
pub(crate) struct SampleRecording<'a> {
    pub targets: &'a Targets,
    pub frame: &'a FrameBinding,
    pub edges_only: bool,
}

/// A pass drawn once for each sample of a frame (`renderer/sample_passes.rs` records them in
/// order). The passes that need more than the frame's pictures to draw (the `scene` pass with
/// the walkers, the `reflection` with what it mirrors, the layers) have methods of their own.
pub(crate) trait SamplePass {
    /// Records the pass for one sample.
    fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, sample: &SampleRecording<'_>);
}

/// How a raster pipeline meets the depth target ([`DEPTH_FORMAT`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DepthTest {
    /// Whether what passes writes its depth.
    pub write: bool,
    /// The test against the depth already there.
    pub compare: wgpu::CompareFunction,
}

impl DepthTest {
    /// Opaque geometry: nearer than what is there, and writes its depth.
    pub(crate) const OPAQUE: DepthTest = DepthTest {
        write: true,
        compare: wgpu::CompareFunction::Less,
    };
    /// Drawn over the scene: hidden behind it, writes no depth.
    pub(crate) const OVER: DepthTest = DepthTest {
        write: false,
        compare: wgpu::CompareFunction::Less,
    };
    /// Lines over the scene: as [`DepthTest::OVER`], and also where they touch it.
    pub(crate) const OVER_OR_ON: DepthTest = DepthTest {
        write: false,
        compare: wgpu::CompareFunction::LessEqual,
    };
}

/// What is particular to one raster pipeline; [`PassBuilder::raster_pipeline`] fills in the
/// rest (one colour target, no multisampling, default stencil and bias).
pub(crate) struct RasterPipeline<'a> {
    /// Which of the pass's pipelines: `None` for its only one (labelled as the pass), or a
    /// name for one of several (labelled `PASS.NAME`).
    pub part: Option<&'a str>,
    pub module: &'a wgpu::ShaderModule,
    pub vertex_entry: &'a str,
    pub fragment_entry: &'a str,
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    /// Group 0, 1, … in order.
    pub bind_group_layouts: &'a [&'a wgpu::BindGroupLayout],
    pub topology: wgpu::PrimitiveTopology,
    pub cull_mode: Option<wgpu::Face>,
    pub depth: Option<DepthTest>,
    pub format: wgpu::TextureFormat,
    pub blend: Option<wgpu::BlendState>,
}

/// Makes the wgpu objects of one pass, each labelled after it.
#[derive(Clone, Copy)]
pub(crate) struct PassBuilder<'a> {
    device: &'a wgpu::Device,
    name: &'a str,
}

impl<'a> PassBuilder<'a> {
    /// The builder of the pass `name` (the name of its WGSL file, module and field).
    pub(crate) fn new(device: &'a wgpu::Device, name: &'a str) -> Self {
        PassBuilder { device, name }
    }

    /// The compilation options of every pipeline it builds: none, since each module was
    /// compiled for its pipelines' constants ([`ShaderName::create_module`]).
    ///
    /// [`ShaderName::create_module`]: crate::gpu::shaders::ShaderName::create_module
    fn compilation_options(&self) -> wgpu::PipelineCompilationOptions<'a> {
        wgpu::PipelineCompilationOptions::default()
    }

    /// The device the pass is built on.
    pub(crate) fn device(&self) -> &'a wgpu::Device {
        self.device
    }

    /// The label `NAME.part` of one of the pass's objects.
    pub(crate) fn label(&self, part: &str) -> String {
        format!("{}.{part}", self.name)
    }

    /// A uniform buffer `NAME.what` the size of `T`, written before each frame.
    pub(crate) fn uniform_buffer<T: Pod>(&self, what: &str) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&self.label(what)),
            size: std::mem::size_of::<T>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A uniform buffer `NAME.what` holding `contents`, written once.
    pub(crate) fn static_uniform_buffer(&self, what: &str, contents: &[u8]) -> wgpu::Buffer {
        self.buffer_init(
            what,
            contents,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )
    }

    /// A buffer `NAME.what` of `usage` holding `contents`.
    pub(crate) fn buffer_init(
        &self,
        what: &str,
        contents: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        use wgpu::util::DeviceExt;
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(&self.label(what)),
                contents,
                usage,
            })
    }

    /// The layout `NAME.layout` of the pass's own bind group.
    pub(crate) fn bind_group_layout(
        &self,
        entries: &[wgpu::BindGroupLayoutEntry],
    ) -> wgpu::BindGroupLayout {
        self.device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&self.label("layout")),
                entries,
            })
    }

    /// The layout and bind group of a pass drawn over the picture that reads its own uniforms
    /// (`uniforms`, binding 0, both stages) and the scene's depth (binding 1, the fragment
    /// stage, plain floats: [`Targets::scene_depth_view`]): the `bolt` and `rain` passes.
    pub(crate) fn uniforms_and_scene_depth(
        &self,
        uniforms: &wgpu::Buffer,
        targets: &Targets,
    ) -> (wgpu::BindGroupLayout, wgpu::BindGroup) {
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let layout = self.bind_group_layout(&[
            uniform(0, DRAW_STAGES),
            texture(1, wgpu::ShaderStages::FRAGMENT, unfilterable),
        ]);
        let resources = [
            uniforms.as_entire_binding(),
            wgpu::BindingResource::TextureView(targets.scene_depth_view()),
        ];
        let bind_group = self.bind_group(&layout, resources);
        (layout, bind_group)
    }

    /// The bind group `NAME.bind_group` of `layout`: `resources` at bindings 0, 1, 2, … in
    /// order.
    pub(crate) fn bind_group<'r>(
        &self,
        layout: &wgpu::BindGroupLayout,
        resources: impl IntoIterator<Item = wgpu::BindingResource<'r>>,
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry<'r>> = resources
            .into_iter()
            .zip(0..)
            .map(|(resource, binding)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.label("bind_group")),
            layout,
            entries: &entries,
        })
    }

    /// The bind group `NAME.part` of `layout`: each resource at the binding paired with it
    /// (for layouts whose bindings leave gaps).
    pub(crate) fn bind_group_at<'r>(
        &self,
        part: &str,
        layout: &wgpu::BindGroupLayout,
        resources: impl IntoIterator<Item = (u32, wgpu::BindingResource<'r>)>,
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry<'r>> = resources
            .into_iter()
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.label(part)),
            layout,
            entries: &entries,
        })
    }

    /// The pipeline layout of `bind_group_layouts` (group 0, 1, … in order) for the pipeline
    /// labelled `pipeline_label`.
    pub(crate) fn pipeline_layout(
        &self,
        pipeline_label: &str,
        bind_group_layouts: &[&wgpu::BindGroupLayout],
    ) -> wgpu::PipelineLayout {
        let groups: Vec<Option<&wgpu::BindGroupLayout>> =
            bind_group_layouts.iter().copied().map(Some).collect();
        self.device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&format!("{pipeline_label}.pipeline_layout")),
                bind_group_layouts: &groups,
                immediate_size: 0,
            })
    }

    /// The label of the pipeline `part` (see [`RasterPipeline::part`]).
    fn pipeline_label(&self, part: Option<&str>) -> String {
        match part {
            None => self.name.to_string(),
            Some(part) => self.label(part),
        }
    }

    /// A raster pipeline as `raster` describes it, drawing into one colour target.
    pub(crate) fn raster_pipeline(&self, raster: &RasterPipeline<'_>) -> wgpu::RenderPipeline {
        let label = self.pipeline_label(raster.part);
        let layout = self.pipeline_layout(&label, raster.bind_group_layouts);
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(&label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: raster.module,
                    entry_point: Some(raster.vertex_entry),
                    compilation_options: self.compilation_options(),
                    buffers: raster.buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: raster.topology,
                    cull_mode: raster.cull_mode,
                    ..Default::default()
                },
                depth_stencil: raster.depth.map(|depth| wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth.write),
                    depth_compare: Some(depth.compare),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: raster.module,
                    entry_point: Some(raster.fragment_entry),
                    compilation_options: self.compilation_options(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: raster.format,
                        blend: raster.blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
    }

    /// A depth-only pipeline `NAME.part` of `module`'s `vertex_entry` and `fragment_entry`
    /// with no vertex buffers, no colour target, and a depth always written: the full-screen
    /// triangles that set the depth target (`groups`: group 0, 1, …, `None` where unused).
    pub(crate) fn depth_only_pipeline(
        &self,
        part: &str,
        module: &wgpu::ShaderModule,
        (vertex_entry, fragment_entry): (&str, &str),
        groups: &[Option<&wgpu::BindGroupLayout>],
    ) -> wgpu::RenderPipeline {
        let label = self.label(part);
        let layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&label),
                bind_group_layouts: groups,
                immediate_size: 0,
            });
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(&label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some(vertex_entry),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: Default::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Always),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(fragment_entry),
                    compilation_options: Default::default(),
                    targets: &[],
                }),
                multiview_mask: None,
                cache: None,
            })
    }

    /// The compute pipeline `NAME` of `module`'s `entry_point`.
    pub(crate) fn compute_pipeline(
        &self,
        module: &wgpu::ShaderModule,
        entry_point: &str,
        bind_group_layouts: &[&wgpu::BindGroupLayout],
    ) -> wgpu::ComputePipeline {
        let layout = self.pipeline_layout(self.name, bind_group_layouts);
        self.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(self.name),
                layout: Some(&layout),
                module,
                entry_point: Some(entry_point),
                compilation_options: self.compilation_options(),
                cache: None,
            })
    }
}

/// Begins the render pass `label` into `color` (loaded or cleared as `load` says) and, when
/// given, the depth target (likewise); both are stored.
pub(crate) fn begin_render_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    color: &wgpu::TextureView,
    load: wgpu::LoadOp<wgpu::Color>,
    depth: Option<(&wgpu::TextureView, wgpu::LoadOp<f32>)>,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: depth.map(|(view, load)| {
            wgpu::RenderPassDepthStencilAttachment {
                view,
                depth_ops: Some(wgpu::Operations {
                    load,
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// Begins the depth-only render pass `label` into `depth`, cleared to 1 (the far plane) and
/// stored: no colour target (the `shadow` pass's faces, the compute `scene` pass's depth copy).
pub(crate) fn begin_depth_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    depth: &wgpu::TextureView,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// Begins the render pass `label` into `color` (loaded or cleared as `load` says, stored) with
/// `depth`, when given, attached read only: for passes that test against the scene's depth
/// without writing it, and may bind that same depth as a texture meanwhile
/// ([`Targets::scene_depth_view`] is the depth target on the raster path). Without `depth` the
/// pass has no depth attachment: its pipelines test the scene's depth in their shaders.
pub(crate) fn begin_over_read_only_depth<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    color: &wgpu::TextureView,
    load: wgpu::LoadOp<wgpu::Color>,
    depth: Option<&wgpu::TextureView>,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: depth.map(|view| wgpu::RenderPassDepthStencilAttachment {
            view,
            depth_ops: None,
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// Begins the render pass `label` over what the passes before it left in `targets`: the
/// linear picture and the scene's depth, both loaded.
pub(crate) fn begin_over_picture<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    targets: &Targets,
) -> wgpu::RenderPass<'e> {
    begin_render_pass(
        encoder,
        label,
        &targets.color_linear_view,
        wgpu::LoadOp::Load,
        Some((&targets.depth_view, wgpu::LoadOp::Load)),
    )
}
