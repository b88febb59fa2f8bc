//! The `flame` pass: one procedural flame per torch and brazier (shaders/flame.wgsl), added to
//! the picture after the `fog` pass, in the same linear colour target.
//!
//! Each fire is one instance of a six-vertex quad that the vertex shader stands on the flame's
//! foot and turns to face the eye; the fires themselves come from the frame's bind group
//! ([`crate::gpu::fire_lights`]), so the pass has no vertex buffers. Blending is additive
//! (a flame only adds light) and order-free; the quads are depth tested against the scene, so
//! a pillar hides a flame behind it, and write no depth. Draw order is the scene's list order,
//! so sums happen in the same order every frame. Where the compute `scene` pass leaves no depth
//! target (a per-pixel compositor and nothing else after the scene tests depth), the flames
//! read the scene's depths and hide themselves behind it (`FLAME_READS_SCENE_DEPTH`), the same
//! test.
//!
//! The ground fog is in the picture already, so each flame fragment is dimmed by the fog
//! between the eye and it, as the compositor crossed it: the sheets for `raster` and
//! `compute`, the continuous fog in the raymarch's steps for `raymarch`. The pass binds the
//! fog's knobs (its own copy, set the same way) and the fluid maps for it.
//!
//! Each frame the flames' fog crosses only the sheets under the fog's ceiling, as the
//! compositors do (`fog_ceiling_world`, `sheets_under`: above it every sheet lets all the light
//! through, exactly), so the bytes are those of crossing every sheet.
//!
//! With the sheet compositors the fog in front of the flames is crossed on a grid, not per
//! pixel: before drawing, a compute step (`cs_flame_fog`) crosses the sheets at the
//! [`FOG_GRID_COLUMNS`] + 1 by [`FOG_GRID_ROWS`] + 1 points of a grid over each fire's quad
//! into a small buffer, and each fragment blends the four points round it. The fog in front of
//! a flame changes slowly across it, and crossing it per pixel was most of the pass's work
//! (a fifth of the temple's frame on lavapipe). The raymarch, the reference, marches per pixel
//! as before.
//!
//! The later samples of `--edge-samples` keep sample 0's grid, as they keep its sheets' fog
//! (`passes/edges.rs`: the fog is shaded once a pixel), and as the batched edge samples draw
//! their flames. Crossing it again cost lavapipe 3.5 ms a sample at 640×360. The `reflection`
//! pass's mirrored flames use the same grid, but only in sample 0: the later edge samples keep
//! its mirrored picture too.

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::common::FrameBinding;
use crate::gpu::fire_lights::MAX_FIRE_LIGHTS;
use crate::gpu::maps::FluidMaps;
use crate::gpu::passes::builder::{
    DepthTest, PassBuilder, PassContext, RasterPipeline, SamplePass, SampleRecording,
    begin_over_read_only_depth, filterable_texture, read_write_storage_buffer, storage_buffer,
    texture, uniform,
};
use crate::gpu::passes::fog::{FogKnobs, fog_ceiling_world, sheet_heights, sheets_under};
use crate::gpu::passes::fog_compute::Compositor;
use crate::gpu::passes::scene_compute;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets};

/// The label part of the pipelines the `reflection` pass records with a depth target of its
/// own (`flame.mirrored`, `bolt.mirrored`).
pub(crate) const MIRRORED: &str = "mirrored";

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

/// Cells across each fire's grid of the fog in front of its flame.
///
/// keep in sync with shaders/flame.wgsl: FOG_GRID_COLUMNS
pub(crate) const FOG_GRID_COLUMNS: u32 = 6;
/// Cells up each fire's grid, from the flame's foot to the top of its quad.
///
/// keep in sync with shaders/flame.wgsl: FOG_GRID_ROWS
pub(crate) const FOG_GRID_ROWS: u32 = 12;
/// Points of one fire's grid.
const FOG_GRID_POINTS: u32 = (FOG_GRID_COLUMNS + 1) * (FOG_GRID_ROWS + 1);
/// Invocations of a workgroup of `cs_flame_fog` (its `@workgroup_size`).
const FOG_GRID_WORKGROUP: u32 = 64;

#[cfg(test)]
thread_local! {
    /// Tests only: flame passes made on this thread cross the fog in front of each fragment
    /// themselves, as the raymarch does, whatever the compositor.
    pub(crate) static FORCE_FLAME_FOG_PER_PIXEL: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
    /// Tests only: flame passes made on this thread cross the fog's grid in every sample.
    pub(crate) static FORCE_GRID_EACH_SAMPLE: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// How far a flame's tip leans per unit of wind across the view: flame heights per world unit
/// per second (a storm's 9 units/s bends it by about half its height).
pub(crate) const LEAN_PER_WIND: f32 = 0.05;
/// The most a flame's tip leans, in flame heights.
pub(crate) const MOST_LEAN: f32 = 0.6;

/// The wind the flames lean with (zero without weather: they stand as before).
///
/// keep in sync with shaders/flame.wgsl: FlameWind
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct FlameWind {
    /// xy: the wind (x, z), world units per second; z: [`LEAN_PER_WIND`]; w: [`MOST_LEAN`].
    pub wind: [f32; 4],
}

impl FlameWind {
    /// The flames' wind in `inputs`: the one wind of the weather, or none.
    pub(crate) fn for_frame(inputs: &FrameInputs<'_>) -> Self {
        match &inputs.weather {
            Some(weather) => {
                let [x, z] = weather.wind_world_per_s;
                FlameWind {
                    wind: [x, z, LEAN_PER_WIND, MOST_LEAN],
                }
            }
            None => FlameWind { wind: [0.0; 4] },
        }
    }
}

/// The `flame` pass's pipeline, the fog's knobs and how many fires it draws.
pub(crate) struct FlamePass {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    knobs_buffer: wgpu::Buffer,
    knobs: FogKnobs,
    /// The wind the flames lean with ([`FlameWind`]).
    wind_buffer: wgpu::Buffer,
    fire_count: u32,
    /// Whether the flames read the scene's depths instead of a depth target (no depth
    /// attachment then).
    reads_scene_depth: bool,
    /// With `reads_scene_depth`, for scenes with weather: the same flames depth tested
    /// against a depth target, for the `reflection` pass's mirrored hall.
    mirrored_pipeline: Option<wgpu::RenderPipeline>,
    /// The sheets' heights (world), lowest first: each frame the flames' fog crosses those
    /// under the fog's ceiling.
    heights_world: Vec<f32>,
    /// The compute step that crosses the fog on each fire's grid (the sheet compositors), or
    /// `None`: each fragment marches (the raymarch).
    fog_grid: Option<FogGridStep>,
    /// Whether a later edge sample keeps the grid sample 0 crossed (always, but in tests that
    /// force a crossing each sample).
    edge_samples_keep_grid: bool,
    /// `fs_flame_edge_batch` and its group 2: the later edge samples' flames in one draw
    /// (`passes/edge_batch.rs`); `None` where the renderer draws them one by one.
    edge_batch: Option<(wgpu::RenderPipeline, wgpu::BindGroup)>,
}

/// The compute step of the `flame` pass that crosses the sheets in front of the flames on
/// each fire's grid (`cs_flame_fog`).
struct FogGridStep {
    pipeline: wgpu::ComputePipeline,
    /// Group 1: the fog's knobs, the fluid maps, the wind and the grid as storage.
    bind_group: wgpu::BindGroup,
}

impl FlamePass {
    /// The pass for `fire_count` fires (those in the frame's fire lights) of `scene` in `view`,
    /// dimmed by the fog as `compositor` (resolved) draws it.
    pub(crate) fn new(
        ctx: &PassContext<'_>,
        compositor: Compositor,
        fire_count: u32,
    ) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            maps,
            targets,
            scene,
            view,
            edge_batch,
        } = *ctx;
        let reads_scene_depth = scene_compute::reads_hit_depths(targets, view);
        let fog = frame.fog_constants(scene, view);
        // The reflection's mirrored flames (below) set five of them alone, by name.
        let [lamps, _moon, lattice, glow, fires, distance_fog, ..] = fog;
        let reads = (
            "FLAME_READS_SCENE_DEPTH",
            f64::from(u8::from(reads_scene_depth)),
        );
        let per_pixel = matches!(compositor, Compositor::Raymarch { .. });
        #[cfg(test)]
        let per_pixel = per_pixel || FORCE_FLAME_FOG_PER_PIXEL.get();
        // Each form of the fog in front is its own entry point, not a pipeline constant: a CPU
        // adapter compiles both sides of a branch on a constant before it drops one.
        let (fragment_entry, batch_entry) = if per_pixel {
            (
                "fs_flame_fog_per_pixel",
                "fs_flame_edge_batch_fog_per_pixel",
            )
        } else {
            ("fs_flame", "fs_flame_edge_batch")
        };
        let constants: Vec<_> = fog.into_iter().chain([reads]).collect();
        let module = ShaderName::Flame.create_module(device, errors, &constants)?;
        let build = PassBuilder::new(device, ShaderName::Flame.name());
        let knobs = match compositor {
            Compositor::Raymarch { steps } => FogKnobs::new(scene, view).raymarched(steps),
            _ => FogKnobs::new(scene, view),
        };
        #[cfg(test)]
        let edge_samples_keep_grid = !FORCE_GRID_EACH_SAMPLE.get();
        #[cfg(not(test))]
        let edge_samples_keep_grid = true;
        let knobs_buffer = build.uniform_buffer::<FogKnobs>("knobs");
        let wind_buffer = build.uniform_buffer::<FlameWind>("wind");
        let fragment = wgpu::ShaderStages::FRAGMENT;
        // Binding 3 is fog.wgsl's scene depth, read only with `FLAME_READS_SCENE_DEPTH`.
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let layout = build.bind_group_layout(&[
            uniform(0, fragment),
            filterable_texture(1, fragment),
            filterable_texture(2, fragment),
            texture(3, fragment, unfilterable),
            uniform(4, wgpu::ShaderStages::VERTEX_FRAGMENT),
            storage_buffer(5, fragment),
        ]);
        let grid_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&build.label("fog_grid")),
            size: u64::from(FOG_GRID_POINTS) * MAX_FIRE_LIGHTS as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let fog_grid = (!per_pixel).then(|| {
            FogGridStep::new(
                (&build, &module, &frame.layout),
                (&knobs_buffer, &wind_buffer, &grid_buffer),
                maps,
            )
        });
        let resources = [
            (0, knobs_buffer.as_entire_binding()),
            (1, wgpu::BindingResource::TextureView(&maps.fluid_view)),
            (2, wgpu::BindingResource::TextureView(&maps.lift_view)),
            (
                3,
                wgpu::BindingResource::TextureView(targets.scene_depth_view()),
            ),
            (4, wind_buffer.as_entire_binding()),
            (5, grid_buffer.as_entire_binding()),
        ];
        let bind_group = build.bind_group_at("bind_group", &layout, resources);
        let groups = [&frame.layout, &layout];
        let raster = |part, reads_scene_depth: bool| RasterPipeline {
            part,
            module: &module,
            vertex_entry: "vs_flame",
            fragment_entry,
            buffers: &[],
            bind_group_layouts: &groups,
            topology: wgpu::PrimitiveTopology::TriangleList,
            // The quad turns to face the eye, but either side may end up toward it.
            cull_mode: None,
            depth: (!reads_scene_depth).then_some(DepthTest::OVER),
            format: COLOR_FORMAT,
            blend: Some(ADDITIVE),
        };
        let pipeline = build.raster_pipeline(&raster(None, reads_scene_depth));
        // The reflection's mirrored flames test its own depth target (scenes with weather).
        let mirrored_pipeline = if reads_scene_depth && scene.weather.is_some() {
            let tested = [lamps, lattice, glow, fires, distance_fog];
            let module = ShaderName::Flame.create_module(device, errors, &tested)?;
            let mirrored = RasterPipeline {
                module: &module,
                ..raster(Some(MIRRORED), false)
            };
            Some(build.raster_pipeline(&mirrored))
        } else {
            None
        };
        let edge_batch = match edge_batch.filter(|_| fire_count > 0) {
            Some(batch) => {
                let batch_layout = build
                    .bind_group_layout(&[storage_buffer(0, fragment), storage_buffer(1, fragment)]);
                let batch_group = build.bind_group_at(
                    "edge_batch",
                    &batch_layout,
                    [
                        (0, batch.offsets.as_entire_binding()),
                        (1, batch.depths.as_entire_binding()),
                    ],
                );
                let constants = batch.constants_with(&constants);
                let module = ShaderName::Flame.create_module(device, errors, &constants)?;
                let groups = [&frame.layout, &layout, &batch_layout];
                // Over the picture with no depth target: each sample tests its own depth.
                let pipeline = build.raster_pipeline(&RasterPipeline {
                    part: Some("edge_batch"),
                    module: &module,
                    fragment_entry: batch_entry,
                    bind_group_layouts: &groups,
                    depth: None,
                    ..raster(None, true)
                });
                Some((pipeline, batch_group))
            }
            None => None,
        };
        Ok(FlamePass {
            edge_batch,
            reads_scene_depth,
            pipeline,
            mirrored_pipeline,
            bind_group,
            knobs_buffer,
            knobs,
            wind_buffer,
            fire_count,
            heights_world: sheet_heights(&scene.fog),
            fog_grid,
            edge_samples_keep_grid,
        })
    }

    /// Queues this frame's fog knobs (applied at the next submit); nothing without fires.
    pub(crate) fn prepare(&self, queue: &dyn BufferWrites, inputs: &FrameInputs<'_>) {
        if self.fire_count == 0 {
            return;
        }
        let mut knobs = self.knobs.for_frame(inputs);
        let ceiling_world = fog_ceiling_world(&knobs, inputs.lift_map);
        let crossed = sheets_under(&self.heights_world, knobs.layer[3], ceiling_world);
        knobs.optics[3] = crossed as f32;
        queue.write_buffer(&self.knobs_buffer, 0, bytemuck::bytes_of(&knobs));
        let wind = FlameWind::for_frame(inputs);
        queue.write_buffer(&self.wind_buffer, 0, bytemuck::bytes_of(&wind));
    }

    /// Turns the counting of partial slabs on or off from the next frame (tests compare both).
    #[cfg(test)]
    pub(crate) fn set_partial_slabs(&mut self, on: bool) {
        self.knobs = self.knobs.with_partial_slabs(on);
    }

    /// Records the later edge samples' flames (`fs_flame_edge_batch`) into `pass`, a render
    /// pass over the linear picture with no depth target. Nothing without the batch.
    pub(crate) fn record_edge_batch(&self, pass: &mut wgpu::RenderPass<'_>, frame: &FrameBinding) {
        let Some((pipeline, batch_group)) = &self.edge_batch else {
            return;
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_bind_group(2, batch_group, &[]);
        pass.draw(0..6, 0..self.fire_count);
    }

    /// Records the pass into the `reflection` pass's mirrored targets, which have a depth
    /// target of their own: always tested against it (`mirrored_pipeline`), whatever the
    /// picture's flames do.
    pub(crate) fn record_mirrored(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        if self.fire_count == 0 {
            return;
        }
        let pipeline = self.mirrored_pipeline.as_ref().unwrap_or(&self.pipeline);
        self.record_with(encoder, (targets, frame), (pipeline, false), true);
    }

    /// The flames with `pipeline`, the depth target attached unless `reads_scene_depth`; the
    /// fog's grid crossed first where there is one and `cross_grid`.
    fn record_with(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (targets, frame): (&Targets, &FrameBinding),
        (pipeline, reads_scene_depth): (&wgpu::RenderPipeline, bool),
        cross_grid: bool,
    ) {
        if let (Some(fog_grid), true) = (&self.fog_grid, cross_grid) {
            fog_grid.record(encoder, frame, self.fire_count);
        }
        let depth = (!reads_scene_depth).then_some(&targets.depth_view);
        let mut pass = begin_over_read_only_depth(
            encoder,
            ShaderName::Flame.name(),
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            depth,
        );
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.draw(0..6, 0..self.fire_count);
    }
}

impl FogGridStep {
    /// The step of the pass `build` of `module`, with the frame's group 0 (`frame_layout`),
    /// reading the pass's knobs, wind and `maps` and writing `grid`.
    fn new(
        (build, module, frame_layout): (
            &PassBuilder<'_>,
            &wgpu::ShaderModule,
            &wgpu::BindGroupLayout,
        ),
        (knobs, wind, grid): (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer),
        maps: &FluidMaps,
    ) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let layout = build.bind_group_layout(&[
            uniform(0, compute),
            filterable_texture(1, compute),
            filterable_texture(2, compute),
            uniform(4, compute),
            read_write_storage_buffer(6, compute),
        ]);
        let resources = [
            (0, knobs.as_entire_binding()),
            (1, wgpu::BindingResource::TextureView(&maps.fluid_view)),
            (2, wgpu::BindingResource::TextureView(&maps.lift_view)),
            (4, wind.as_entire_binding()),
            (6, grid.as_entire_binding()),
        ];
        let bind_group = build.bind_group_at("fog_grid_bind_group", &layout, resources);
        let pipeline = build.compute_pipeline(module, "cs_flame_fog", &[frame_layout, &layout]);
        FogGridStep {
            pipeline,
            bind_group,
        }
    }

    /// Records the step for `fire_count` fires seen through `frame`'s camera.
    fn record(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameBinding, fire_count: u32) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("flame.fog_grid"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.dispatch_workgroups(FOG_GRID_POINTS.div_ceil(FOG_GRID_WORKGROUP), fire_count, 1);
    }
}

impl SamplePass for FlamePass {
    /// Records the flames over what the `scene` and `fog` passes left; nothing when there are
    /// no fires. A later edge sample keeps the fog's grid of sample 0 (see the module doc).
    fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, sample: &SampleRecording<'_>) {
        if self.fire_count == 0 {
            return;
        }
        let cross_grid = !(sample.edges_only && self.edge_samples_keep_grid);
        // Over the picture; the depth target, where tested, read only: the pass also binds the
        // scene's depth as a texture (fog.wgsl's binding 3), which may be that same target.
        let pipeline = (&self.pipeline, self.reads_scene_depth);
        self.record_with(
            encoder,
            (sample.targets, sample.frame),
            pipeline,
            cross_grid,
        );
    }
}
