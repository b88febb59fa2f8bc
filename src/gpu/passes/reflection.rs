//! The `reflection` pass: the hall mirrored in the wet floor (shaders/reflection.wgsl).
//!
//! Built only for scenes with weather, and recorded only while the ground is wet: a scene
//! without weather never pays for it and keeps its bytes. Per frame it
//!
//! 1. records the `scene`, `flame` and `bolt` passes a second time into a reflection picture
//!    of a fifth of the picture's width and height, with a frame binding of its own whose
//!    camera is mirrored about the floor plane (`y = FLOOR_Y_WORLD`). The mirrored picture is
//!    also flipped left to right, so the two flips make a rotation and the triangles keep their
//!    winding (the passes' culling stays right), and its near plane is turned into the floor
//!    plane (an oblique projection), so nothing under the floor shows in it. Its window is
//!    narrowed to where the floor lies on screen ([`floor_window_ndc`]), so the few texels it
//!    has all land on the floor: a 25th of the picture's pixels, shaded a second time,
//!    instead of a quarter — the mirrored hall is the frame's dearest extra on GPUs whose
//!    fragment work is slow;
//! 2. draws one full-picture triangle over the scene's picture that finds the floor's pixels
//!    from the scene's depth and lays the reflection over them, broken up by the stones, with
//!    a Fresnel term and a little blur (see the shader). With a per-pixel fog compositor
//!    (GPUs whose fragment work is slow) a compute pass does it instead over the floor's
//!    window only, reading the picture from a copy of that window (`cs_reflection`).
//!
//! It runs right after the `scene` pass, so the ground fog, drawn next, lies over it.
//!
//! The later samples of `--edge-samples` keep the first sample's mirrored picture and record
//! only the composite. Where they are drawn in one go (`passes/edge_batch.rs`) the pass keeps
//! instead the mirror over each listed pixel once, after the first sample, for the batch to
//! lay over the samples that see the floor (`cs_reflection_keep_edges`). They see the same moment, and their sub-pixel offsets move the mirrored
//! picture by a fifth of its texel or less. Drawing it again cost each later sample the
//! mirrored hall, flames and bolt. Keeping it also keeps the flames' fog grid, which the
//! mirrored flames cross (`passes/flame.rs`).
//!
//! The mirrored picture has a depth target of its own, and its scene is always the raster
//! `scene` pass. The flames and the bolt are recorded into it through pipelines that test that
//! target (`record_mirrored`), whatever the picture's own passes do. Its frame binding shares
//! the picture's fires, their flicker and the fog's noise lattice (`FrameBinding::sharing_fires`),
//! so the `fire_flicker` and `fog_lattice` passes serve both.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};

use crate::gpu::GpuError;
use crate::gpu::capsule_geometry::CapsuleMesh;
use crate::gpu::common::{FrameBinding, FrameUniforms};
use crate::gpu::distance_fog::DistanceFogParams;
use crate::gpu::lamp_lights::LampResources;
use crate::gpu::passes::bolt::BoltPass;
use crate::gpu::passes::builder::{
    PREMULTIPLIED_OVER, PassBuilder, PassContext, RasterPipeline, begin_render_pass,
    read_write_storage_buffer, storage_buffer, storage_texture, texture, uniform,
};
use crate::gpu::passes::flame::FlamePass;
use crate::gpu::passes::scene::ScenePass;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Gathering, Targets, texture_2d, view_of};

/// Height of the floor plane the hall is mirrored about (world; common.wgsl: the floor at
/// y = 0).
pub(crate) const FLOOR_Y_WORLD: f32 = 0.0;
/// The reflection's strength at full wetness (the 0.7 · wetness).
pub(crate) const STRENGTH_PER_WETNESS: f32 = 0.7;
/// How far under the floor the mirrored picture's near plane lies (world): the floor itself,
/// seen from below, is culled, and nothing under it shows.
const CLIP_BELOW_FLOOR_WORLD: f32 = 0.001;
/// The reflection picture's width and height are the picture's divided by this.
const REFLECTION_DIVISOR: u32 = 5;
/// How far the floor's window reaches past the floor's outline on screen (NDC, 2 across the
/// picture): room for the stones' tilt, the ripple and the blur to read past the floor's edge.
const WINDOW_MARGIN_NDC: f32 = 0.1;

/// The composite's uniforms.
///
/// keep in sync with shaders/reflection.wgsl: ReflectionKnobs
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct ReflectionKnobs {
    /// Clip to world space of the picture's camera.
    pub world_from_clip: [[f32; 4]; 4],
    /// x: floor height; y: strength (0.7 · wetness); z: slab side; w: half the floor side.
    pub floor: [f32; 4],
    /// xy: the picture's size; zw: the reflection picture's size (pixels).
    pub sizes: [f32; 4],
    /// The window of the mirrored picture the reflection picture holds (NDC): x: left edge;
    /// y: top edge; z: width; w: height.
    pub window: [f32; 4],
    /// The floor's window in the picture (pixels: x, y, width, height).
    pub window_px: [u32; 4],
}

/// Where the floor (the square of half side `half_floor_world` at `FLOOR_Y_WORLD`) lies in the
/// picture of `clip_from_world`, as `[x_min, y_min, x_max, y_max]` in NDC, widened by
/// `WINDOW_MARGIN_NDC` and clamped to the picture; `None` when none of it is on screen.
///
/// The square is cut at the near plane (clip z ≥ 0, wgpu's 0..1 depth) before it is projected,
/// so a floor running under the camera gives the bounds of the part in front of it.
pub(crate) fn floor_window_ndc(clip_from_world: Mat4, half_floor_world: f32) -> Option<[f32; 4]> {
    let h = half_floor_world;
    let corners = [(-h, -h), (h, -h), (h, h), (-h, h)]
        .map(|(x, z)| clip_from_world * Vec4::new(x, FLOOR_Y_WORLD, z, 1.0));
    // Sutherland–Hodgman against the near plane: keep z ≥ 0.
    let mut kept: Vec<Vec4> = Vec::with_capacity(8);
    for i in 0..corners.len() {
        let a = corners[i];
        let b = corners[(i + 1) % corners.len()];
        if a.z >= 0.0 {
            kept.push(a);
        }
        if (a.z >= 0.0) != (b.z >= 0.0) {
            let t = a.z / (a.z - b.z);
            kept.push(a + (b - a) * t);
        }
    }
    let mut bounds = [
        f32::INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
    ];
    for point in kept.iter().filter(|p| p.w > 1e-6) {
        let (x, y) = (point.x / point.w, point.y / point.w);
        bounds = [
            bounds[0].min(x),
            bounds[1].min(y),
            bounds[2].max(x),
            bounds[3].max(y),
        ];
    }
    let m = WINDOW_MARGIN_NDC;
    let window = [
        (bounds[0] - m).max(-1.0),
        (bounds[1] - m).max(-1.0),
        (bounds[2] + m).min(1.0),
        (bounds[3] + m).min(1.0),
    ];
    (window.iter().all(|v| v.is_finite()) && window[0] < window[2] && window[1] < window[3])
        .then_some(window)
}

/// `clip` followed by the map that stretches the NDC window `[x_min, y_min, x_max, y_max]` over
/// the whole target (depth untouched).
fn crop_to_window(clip: Mat4, window: [f32; 4]) -> Mat4 {
    let [x_min, y_min, x_max, y_max] = window;
    let (scale_x, scale_y) = (2.0 / (x_max - x_min), 2.0 / (y_max - y_min));
    let crop = Mat4::from_cols(
        Vec4::new(scale_x, 0.0, 0.0, 0.0),
        Vec4::new(0.0, scale_y, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 1.0, 0.0),
        Vec4::new(
            -(x_min + x_max) * 0.5 * scale_x,
            -(y_min + y_max) * 0.5 * scale_y,
            0.0,
            1.0,
        ),
    );
    crop * clip
}

/// `clip_from_world` for the camera mirrored about the floor plane and flipped left to right,
/// its near plane moved onto the floor (Lengyel's oblique near plane, for depth 0..1): only
/// what lies above the floor is drawn. `None` when the eye is not above the floor.
pub(crate) fn mirrored_clip_from_world(clip_from_world: Mat4, eye_y_world: f32) -> Option<Mat4> {
    if eye_y_world <= FLOOR_Y_WORLD + CLIP_BELOW_FLOOR_WORLD {
        return None;
    }
    let mirror = Mat4::from_translation(Vec3::new(0.0, 2.0 * FLOOR_Y_WORLD, 0.0))
        * Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0));
    let flip_x = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let mut clip = flip_x * clip_from_world * mirror;
    // The plane kept side up: y − (floor − ε) ≥ 0.
    let plane_world = Vec4::new(0.0, 1.0, 0.0, -(FLOOR_Y_WORLD - CLIP_BELOW_FLOOR_WORLD));
    let world_from_clip = clip.inverse();
    let plane_clip = world_from_clip.transpose() * plane_world;
    let corner_clip = Vec4::new(plane_clip.x.signum(), plane_clip.y.signum(), 1.0, 1.0);
    let corner_world = world_from_clip * corner_clip;
    let along = plane_world.dot(corner_world);
    if !along.is_finite() || along.abs() < 1e-12 {
        return Some(clip);
    }
    let row = plane_world / along;
    clip.x_axis.z = row.x;
    clip.y_axis.z = row.y;
    clip.z_axis.z = row.z;
    clip.w_axis.z = row.w;
    clip.is_finite().then_some(clip)
}

#[cfg(test)]
thread_local! {
    /// Tests only: renderers on this thread draw the mirrored picture again in every later edge
    /// sample, as before the samples kept sample 0's.
    pub(crate) static FORCE_MIRROR_EACH_SAMPLE: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// What the mirrored picture is drawn with: the `scene` pass with the people's capsules, the
/// `flame` pass and the `bolt` pass (scenes with weather have one).
pub(crate) type MirroredPasses<'a> = (
    &'a ScenePass,
    Option<&'a CapsuleMesh>,
    &'a FlamePass,
    Option<&'a BoltPass>,
);

/// The `reflection` pass: its picture, its mirrored frame binding and the composite.
pub(crate) struct ReflectionPass {
    targets: Targets,
    frame: FrameBinding,
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    knobs_buffer: wgpu::Buffer,
    knobs: ReflectionKnobs,
    /// Whether this frame has a reflection to draw (wet ground, eye above the floor).
    active: bool,
    /// The floor's window in the picture (pixels: x, y, width, height): the composite's
    /// scissor, as no floor pixel lies outside it.
    scissor_px: [u32; 4],
    /// The composite in a compute shader, for the per-pixel fog compositors; `None`: raster.
    compute: Option<ComputeComposite>,
    /// Where the later edge samples are drawn in one go: `cs_reflection_keep_edges`, which
    /// keeps the mirror over each listed pixel for the batch, its group 2 and the list's
    /// indirect dispatch.
    keep_edges: Option<(wgpu::ComputePipeline, wgpu::BindGroup, wgpu::Buffer)>,
}

/// The composite as a compute pass (`cs_reflection`) over the picture and a copy of it.
struct ComputeComposite {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    /// `cs_reflection_keep`: the window copied into the picture before the reflection, which
    /// the composite reads. A compute copy: a texture-to-texture copy of a 1080p picture took
    /// ten times as long on the GPU host (`passes/accumulate.rs`).
    keep: wgpu::ComputePipeline,
    keep_group: wgpu::BindGroup,
}

/// Pixels a side of one workgroup of `cs_reflection`.
const WORKGROUP_SIDE_PX: u32 = 8;

/// The NDC window `[x_min, y_min, x_max, y_max]` as a pixel rectangle (x, y from the top left,
/// width, height) of a `width` × `height` picture, rounded outward and inside the picture.
fn window_pixels(window: [f32; 4], width: u32, height: u32) -> [u32; 4] {
    let [x_min, y_min, x_max, y_max] = window;
    let (w, h) = (width as f32, height as f32);
    let to_px = |v: f32, size: f32, up: bool| {
        let px = if up { v.ceil() } else { v.floor() };
        px.clamp(0.0, size) as u32
    };
    let left = to_px((x_min + 1.0) * 0.5 * w, w, false);
    let right = to_px((x_max + 1.0) * 0.5 * w, w, true);
    let top = to_px((1.0 - y_max) * 0.5 * h, h, false);
    let bottom = to_px((1.0 - y_min) * 0.5 * h, h, true);
    [
        left,
        top,
        right.saturating_sub(left),
        bottom.saturating_sub(top),
    ]
}

impl ReflectionPass {
    /// The pass for a `width` × `height` picture of `scene`, over `targets`' depth.
    pub(crate) fn new(
        ctx: &PassContext<'_>,
        lamps: &LampResources,
        size: (u32, u32),
    ) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            targets,
            scene,
            ..
        } = *ctx;
        let (width, height) = size;
        let module = ShaderName::Reflection.create_module(device, errors, &[])?;
        let build = PassBuilder::new(device, ShaderName::Reflection.name());
        let size = (
            width.div_ceil(REFLECTION_DIVISOR).max(1),
            height.div_ceil(REFLECTION_DIVISOR).max(1),
        );
        let reflection_targets = Targets::new(device, size, false, Gathering::Single);
        let mirrored_frame =
            frame.sharing_fires(device, &DistanceFogParams::new(&scene.distance_fog), lamps);
        let knobs_buffer = build.uniform_buffer::<ReflectionKnobs>("knobs");
        let fragment = wgpu::ShaderStages::FRAGMENT | wgpu::ShaderStages::COMPUTE;
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let layout = build.bind_group_layout(&[
            uniform(0, fragment),
            texture(1, fragment, unfilterable),
            texture(2, fragment, unfilterable),
        ]);
        let bind_group = build.bind_group(
            &layout,
            [
                knobs_buffer.as_entire_binding(),
                wgpu::BindingResource::TextureView(&reflection_targets.color_linear_view),
                wgpu::BindingResource::TextureView(targets.scene_depth_view()),
            ],
        );
        let pipeline = build.raster_pipeline(&RasterPipeline {
            part: None,
            module: &module,
            vertex_entry: "vs_reflection",
            fragment_entry: "fs_reflection",
            buffers: &[],
            bind_group_layouts: &[&frame.layout, &layout],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            depth: None,
            format: COLOR_FORMAT,
            blend: Some(PREMULTIPLIED_OVER),
        });
        // The per-pixel compositors' targets take storage writes: composite in compute there.
        let compute = targets.output_storage_view.is_some().then(|| {
            let compute = wgpu::ShaderStages::COMPUTE;
            let picture_before = texture_2d(
                device,
                &build.label("picture_before"),
                (width, height),
                COLOR_FORMAT,
                wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING,
            );
            let before_view = view_of(&picture_before, &build.label("picture_before.view"));
            let keep_layout = build.bind_group_layout(&[
                texture(2, compute, unfilterable),
                storage_texture(3, compute, COLOR_FORMAT),
            ]);
            let keep_group = build.bind_group_at(
                "keep",
                &keep_layout,
                [
                    (
                        2,
                        wgpu::BindingResource::TextureView(&targets.color_linear_view),
                    ),
                    (3, wgpu::BindingResource::TextureView(&before_view)),
                ],
            );
            let composite_layout = build.bind_group_layout(&[
                texture(0, compute, unfilterable),
                storage_texture(1, compute, COLOR_FORMAT),
            ]);
            let bind_group = build.bind_group(
                &composite_layout,
                [
                    wgpu::BindingResource::TextureView(&before_view),
                    wgpu::BindingResource::TextureView(&targets.color_linear_view),
                ],
            );
            ComputeComposite {
                pipeline: build.compute_pipeline(
                    &module,
                    "cs_reflection",
                    &[&frame.layout, &layout, &composite_layout],
                ),
                bind_group,
                keep: build.compute_pipeline(
                    &module,
                    "cs_reflection_keep",
                    &[&frame.layout, &layout, &keep_layout],
                ),
                keep_group,
            }
        });
        let keep_edges = ctx
            .edge_batch
            .zip(targets.edge_list.as_ref())
            .map(|(batch, list)| {
                let compute = wgpu::ShaderStages::COMPUTE;
                let keep_layout = build.bind_group_layout(&[
                    storage_buffer(4, compute),
                    read_write_storage_buffer(5, compute),
                ]);
                let group = build.bind_group_at(
                    "keep_edges",
                    &keep_layout,
                    [
                        (4, list.pixels.as_entire_binding()),
                        (5, batch.mirror.as_entire_binding()),
                    ],
                );
                let groups = [&frame.layout, &layout, &keep_layout];
                let pipeline = build.compute_pipeline(&module, "cs_reflection_keep_edges", &groups);
                (pipeline, group, list.dispatch.clone())
            });
        let knobs = ReflectionKnobs {
            world_from_clip: Mat4::IDENTITY.to_cols_array_2d(),
            floor: [
                FLOOR_Y_WORLD,
                0.0,
                scene.hall.tile_size.max(1e-3),
                scene.hall.floor_size * 0.5,
            ],
            sizes: [width as f32, height as f32, size.0 as f32, size.1 as f32],
            window: [-1.0, 1.0, 2.0, 2.0],
            window_px: [0, 0, width, height],
        };
        Ok(ReflectionPass {
            targets: reflection_targets,
            frame: mirrored_frame,
            pipeline,
            bind_group,
            knobs_buffer,
            knobs,
            active: false,
            scissor_px: [0, 0, width, height],
            compute,
            keep_edges,
        })
    }

    /// Records the mirror kept over each pixel at an edge for the later edge samples' batch,
    /// after sample 0 and the edge list (transparent on a dry frame); nothing without the
    /// batch.
    pub(crate) fn record_edge_mirror(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
    ) {
        let Some((pipeline, group, dispatch)) = &self.keep_edges else {
            return;
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("reflection.keep_edges"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_bind_group(2, group, &[]);
        pass.dispatch_workgroups_indirect(dispatch, 0);
    }

    /// Queues this frame's mirrored uniforms, distance fog and knobs from the picture's
    /// `uniforms` (wetness in `ambient_color.w`) and `distance_fog`; the pass is skipped this
    /// frame when the ground is dry.
    pub(crate) fn prepare(
        &mut self,
        queue: &dyn BufferWrites,
        uniforms: &FrameUniforms,
        distance_fog: Option<&DistanceFogParams>,
    ) {
        let wetness = uniforms.ambient_color[3];
        let clip_from_world = Mat4::from_cols_array_2d(&uniforms.clip_from_world);
        let eye = uniforms.eye_world;
        let mirrored = mirrored_clip_from_world(clip_from_world, eye[1]);
        let window = floor_window_ndc(clip_from_world, self.knobs.floor[3]);
        self.active = wetness > 0.0 && mirrored.is_some() && window.is_some();
        let (true, Some(mirrored), Some([x_min, y_min, x_max, y_max])) =
            (self.active, mirrored, window)
        else {
            // A strength of 0: the later edge samples' batch lays nothing over the floor.
            self.knobs.floor[1] = 0.0;
            queue.write_buffer(&self.knobs_buffer, 0, bytemuck::bytes_of(&self.knobs));
            return;
        };
        // The mirrored picture is flipped left to right: the floor's window there is too.
        let mirrored_window = [-x_max, y_min, -x_min, y_max];
        let mut mirrored_uniforms = *uniforms;
        mirrored_uniforms.clip_from_world =
            crop_to_window(mirrored, mirrored_window).to_cols_array_2d();
        mirrored_uniforms.eye_world = [eye[0], 2.0 * FLOOR_Y_WORLD - eye[1], eye[2], eye[3]];
        // The mirrored picture is drawn whole in every sample: the edge mask is the picture's.
        mirrored_uniforms.sun_dir_world[3] = 0.0;
        self.frame.write(queue, &mirrored_uniforms);
        if let Some(fog) = distance_fog {
            self.frame.write_distance_fog(queue, fog);
        }
        self.knobs.world_from_clip = clip_from_world.inverse().to_cols_array_2d();
        self.knobs.floor[1] = STRENGTH_PER_WETNESS * wetness.clamp(0.0, 1.0);
        self.knobs.window = [-x_max, y_max, x_max - x_min, y_max - y_min];
        let (width, height) = (self.knobs.sizes[0] as u32, self.knobs.sizes[1] as u32);
        self.scissor_px = window_pixels([x_min, y_min, x_max, y_max], width, height);
        if self.scissor_px[2] == 0 || self.scissor_px[3] == 0 {
            self.active = false;
            self.knobs.floor[1] = 0.0;
        }
        self.knobs.window_px = self.scissor_px;
        queue.write_buffer(&self.knobs_buffer, 0, bytemuck::bytes_of(&self.knobs));
    }

    /// Records the mirrored hall (the `scene` pass with the people's capsules, the `flame` and
    /// `bolt` passes into the reflection picture) and the composite over `targets`; nothing on a
    /// dry frame. With `drawn` `None` (a later sample of `--edge-samples`) the mirrored picture
    /// of the frame's first sample is kept and only the composite is recorded.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
        drawn: Option<MirroredPasses<'_>>,
    ) {
        if !self.active {
            return;
        }
        if let Some((scene, capsules, flame, bolt)) = drawn {
            scene.record_raster(encoder, &self.targets, &self.frame, capsules);
            // Mirrored: tested against the reflection's own depth target.
            flame.record_mirrored(encoder, &self.targets, &self.frame);
            if let Some(bolt) = bolt {
                bolt.record_mirrored(encoder, &self.targets, &self.frame);
            }
        }
        let [x, y, width, height] = self.scissor_px;
        if let Some(composite) = &self.compute {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(ShaderName::Reflection.name()),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &frame.bind_group, &[]);
            pass.set_bind_group(1, &self.bind_group, &[]);
            let groups = (
                width.div_ceil(WORKGROUP_SIDE_PX),
                height.div_ceil(WORKGROUP_SIDE_PX),
            );
            pass.set_pipeline(&composite.keep);
            pass.set_bind_group(2, &composite.keep_group, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
            pass.set_pipeline(&composite.pipeline);
            pass.set_bind_group(2, &composite.bind_group, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
            return;
        }
        let mut pass = begin_render_pass(
            encoder,
            ShaderName::Reflection.name(),
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            None,
        );
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_scissor_rect(x, y, width, height);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests;
