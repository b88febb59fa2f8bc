//! The `scene` pass: the temple's opaque geometry and the glowing ball, lit and seen through
//! the distance fog, into the linear colour target and the depth target (shaders/scene.wgsl).
//!
//! The geometry is static and built once ([`crate::gpu::geometry`]); only the frame uniforms
//! (camera, ball position, light intensity) change per frame. With a per-pixel fog compositor
//! the picture's scene is drawn in compute instead ([`super::scene_compute`], the same
//! shading); the raster pipeline stays for the mirrored hall of the `reflection` pass. The
//! raster compositor's later edge samples are cast in compute too, in one batch
//! (`passes/edge_batch.rs`).
//!
//! scene.wgsl's `WEATHER_IN_SCENE` compiles the wet floor (`wet_stone`) out of scenes without
//! weather. On a CPU adapter the raster pass draws the floor last, so the depth test spares the
//! floor's noise behind pillars and terrain; the depth test `Less` keeps the same nearest
//! surface either way.

use bytemuck::{Pod, Zeroable};

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::capsule_geometry::{CapsuleMesh, VERTICES_PER_CAPSULE};
use crate::gpu::common::{FrameBinding, extend, srgb_to_linear};
use crate::gpu::geometry::{Material, Mesh, SceneVertex, build_scene_mesh};
use crate::gpu::passes::builder::{
    ALL_STAGES, DepthTest, PassBuilder, PassContext, RasterPipeline, begin_render_pass, uniform,
};
use crate::gpu::passes::scene_compute::{self, SceneCompute, SceneRole};
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::sky::sky_constants;
use crate::gpu::targets::{COLOR_FORMAT, Targets};
use crate::scene::Scene;

/// The example paints its stone slab as a 32-pixel tile; joints run along texel 0 and 16.
const FLOOR_TEXELS_PER_SLAB: f32 = 32.0;
/// Noise lattice cells across a slab in the first octave: the example's noise scale of 6
/// pixels on a 32-pixel tile, rounded so the noise repeats from slab to slab.
const FLOOR_NOISE_CELLS: f32 = 5.0;
/// The example's noise seed for the floor.
const FLOOR_NOISE_SEED: u32 = 3;

/// Static shading knobs of the `scene` pass.
///
/// keep in sync with shaders/scene.wgsl: SceneKnobs
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct SceneKnobs {
    /// rgb: darker stone (linear).
    pub floor_dark: [f32; 4],
    /// rgb: lighter stone (linear).
    pub floor_light: [f32; 4],
    /// rgb: joints (linear).
    pub joint_color: [f32; 4],
    /// rgb: the ball's emitted colour (linear).
    pub ball_emissive: [f32; 4],
    /// x: slab side; y: half the floor side; z: texels per slab; w: noise cells per slab.
    pub floor_layout: [f32; 4],
    /// x: noise seed.
    pub floor_seed: [u32; 4],
}

impl SceneKnobs {
    pub(crate) fn new(scene: &Scene) -> Self {
        let hall = &scene.hall;
        SceneKnobs {
            floor_dark: extend(srgb_to_linear(hall.floor_colors[0]), 0.0),
            floor_light: extend(srgb_to_linear(hall.floor_colors[1]), 0.0),
            joint_color: extend(srgb_to_linear(hall.joint_color), 0.0),
            ball_emissive: extend(srgb_to_linear(scene.ball.emissive), 0.0),
            floor_layout: [
                hall.tile_size.max(1e-3),
                hall.floor_size * 0.5,
                FLOOR_TEXELS_PER_SLAB,
                FLOOR_NOISE_CELLS,
            ],
            floor_seed: [FLOOR_NOISE_SEED, 0, 0, 0],
        }
    }
}

/// The `scene` pass's pipeline and geometry.
pub(crate) struct ScenePass {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    vertex_count: u32,
    /// On a CPU adapter, the floor's vertices (the first of the mesh), drawn after everything
    /// else: a CPU adapter tests the depth before shading and skips a block of pixels that
    /// all fail, so the pillars, altar and terrain drawn first spare it the floor's noise
    /// behind them. The depth test `Less` keeps the same nearest surface either way (the
    /// floor meets what stands on it only along edges; `adapter_forms.rs` compares bytes).
    /// `None`: the mesh in its order (GPUs).
    floor_last: Option<u32>,
    bind_group: wgpu::BindGroup,
    clear_color: wgpu::Color,
    /// The sky behind the hall (sky.wgsl's `fs_sky`), drawn after it where nothing is: scenes
    /// with clouds or water only.
    sky: Option<wgpu::RenderPipeline>,
    /// The picture's scene drawn in compute (targets with a storage picture: the per-pixel
    /// compositors); `None` draws it with the raster pipeline.
    compute: Option<SceneCompute>,
}

impl ScenePass {
    pub(crate) fn new(ctx: &PassContext<'_>) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            targets,
            scene,
            view,
            ..
        } = *ctx;
        let [lamps, moon] = frame.lamp_constants();
        // scene.wgsl's `WEATHER_IN_SCENE`: `wet_stone` compiled out of scenes without weather.
        let weather = (
            "WEATHER_IN_SCENE",
            f64::from(u8::from(scene.weather.is_some())),
        );
        // Only the count: the scene's loops over the fires have one shape on every adapter.
        let [fires, _] = frame.fire_constants();
        let [distance_fog] = frame.distance_fog_constants();
        let [shadowing] = frame.fog_shadow_constants();
        // sky.wgsl's `WATER_IN_SCENE` and `SKY_CLOUDS` (`gpu/sky.rs`).
        let [water, clouds] = sky_constants(scene);
        let constants = [
            lamps,
            moon,
            weather,
            fires,
            distance_fog,
            shadowing,
            water,
            clouds,
        ];
        let module = ShaderName::Scene.create_module(device, errors, &constants)?;
        let build = PassBuilder::new(device, ShaderName::Scene.name());

        let mesh = build_scene_mesh(scene);
        let vertices = build.buffer_init(
            "vertices",
            bytemuck::cast_slice(&mesh.vertices),
            wgpu::BufferUsages::VERTEX,
        );
        let knobs =
            build.static_uniform_buffer("knobs", bytemuck::bytes_of(&SceneKnobs::new(scene)));
        let layout = build.bind_group_layout(&[uniform(0, ALL_STAGES)]);
        let bind_group = build.bind_group(&layout, [knobs.as_entire_binding()]);

        // keep in sync with shaders/scene.wgsl: VertexIn
        let attributes = wgpu::vertex_attr_array![
            0 => Float32x3,
            1 => Float32x3,
            2 => Float32x3,
            3 => Uint32,
        ];
        let pipeline = build.raster_pipeline(&RasterPipeline {
            part: None,
            module: &module,
            vertex_entry: "vs_scene",
            fragment_entry: "fs_scene",
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<SceneVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            })],
            bind_group_layouts: &[&frame.layout, &layout],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: Some(wgpu::Face::Back),
            depth: Some(DepthTest::OPAQUE),
            format: COLOR_FORMAT,
            blend: None,
        });

        let sky = (scene.clouds.is_some() || scene.water.is_some()).then(|| {
            build.raster_pipeline(&RasterPipeline {
                part: Some("sky"),
                module: &module,
                vertex_entry: "vs_sky",
                fragment_entry: "fs_sky",
                buffers: &[],
                bind_group_layouts: &[&frame.layout],
                topology: wgpu::PrimitiveTopology::TriangleList,
                cull_mode: None,
                // At depth 1 it passes only where the depth is still the cleared far end.
                depth: Some(DepthTest::OVER_OR_ON),
                format: COLOR_FORMAT,
                blend: None,
            })
        });
        // The picture's scene in compute (per-pixel compositors), or on the raster path the
        // batch of the later edge samples alone.
        let batch = ctx.edge_batch.zip(targets.edge_list.as_ref());
        let role = match &targets.hit_depth_view {
            Some(hit_depth_view) => Some(SceneRole::Picture {
                hit_depth_view,
                fill_depth: scene_compute::fills_depth_target(view),
            }),
            None => batch.map(|_| SceneRole::BatchOnly),
        };
        let compute = match role {
            Some(role) => {
                let capsules = scene.walkers.len() * crate::people::CAPSULES_PER_WALKER;
                Some(SceneCompute::new(
                    device,
                    errors,
                    frame,
                    targets,
                    role,
                    (&mesh.vertices, capsules * VERTICES_PER_CAPSULE),
                    (&knobs, &constants),
                    batch,
                )?)
            }
            None => None,
        };
        let [r, g, b] = srgb_to_linear(scene.background).map(f64::from);
        Ok(ScenePass {
            pipeline,
            vertices,
            vertex_count: mesh.vertices.len() as u32,
            floor_last: frame.cpu_adapter.then(|| floor_vertices(&mesh)),
            bind_group,
            clear_color: wgpu::Color { r, g, b, a: 1.0 },
            sky,
            compute,
        })
    }

    /// Clears to `rgb_linear` instead of the scene's background from now on (the weather's sky,
    /// see `gpu/weather.rs`).
    pub(crate) fn set_clear_color(&mut self, rgb_linear: [f32; 3]) {
        let [r, g, b] = rgb_linear.map(f64::from);
        self.clear_color = wgpu::Color { r, g, b, a: 1.0 };
    }

    /// Queues this frame's knobs of the compute pass, or of the raster path's batch (after the
    /// capsules' upload).
    pub(crate) fn prepare(
        &mut self,
        queue: &dyn BufferWrites,
        inputs: &FrameInputs<'_>,
        capsules: Option<&CapsuleMesh>,
    ) {
        if let Some(compute) = self.compute.as_mut() {
            compute.prepare(queue, inputs, self.clear_color, capsules);
        }
    }

    /// Records the picture's scene into `targets`: in compute where the pass has it, else
    /// with the raster pipeline. The raster pass clears the depth target, or with
    /// `depth_set` loads the depth an earlier pass wrote (`passes/edges.rs`: nearest where
    /// nothing is to be drawn). With `rebin` false the compute pass keeps the triangles
    /// the frame's previous sample binned (a later sample of the same moment).
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (targets, frame): (&Targets, &FrameBinding),
        (capsules, depth_set): (Option<&CapsuleMesh>, bool),
        rebin: bool,
    ) {
        let depth = match depth_set {
            true => wgpu::LoadOp::Load,
            false => wgpu::LoadOp::Clear(1.0),
        };
        match self.picture_in_compute() {
            Some(compute) => compute.record(encoder, (targets, frame), capsules, rebin),
            None => self.record_raster_over(encoder, targets, frame, (capsules, depth)),
        }
    }

    /// Records the later edge samples of the frame in one dispatch, `capsules` among the
    /// triangles (`SceneCompute::record_edge_batch`); nothing without the batch.
    pub(crate) fn record_edge_batch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
        capsules: Option<&CapsuleMesh>,
    ) {
        if let Some(compute) = &self.compute {
            compute.record_edge_batch(encoder, frame, capsules);
        }
    }

    /// The compute pass, where it draws the picture's scene.
    fn picture_in_compute(&self) -> Option<&SceneCompute> {
        self.compute
            .as_ref()
            .filter(|compute| compute.draws_picture())
    }

    /// Whether the picture's scene is drawn with the raster pipeline (not in compute).
    pub(crate) fn is_raster(&self) -> bool {
        self.picture_in_compute().is_none()
    }

    /// Whether the picture's scene is drawn in compute.
    #[cfg(test)]
    pub(crate) fn in_compute(&self) -> bool {
        self.picture_in_compute().is_some()
    }

    /// Records the raster pass: clears colour to the background and depth to far, draws
    /// everything, then the frame's capsules (the walkers), shaded alike, then the sky where
    /// nothing was drawn (scenes with clouds or water).
    pub(crate) fn record_raster(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
        capsules: Option<&CapsuleMesh>,
    ) {
        let depth = wgpu::LoadOp::Clear(1.0);
        self.record_raster_over(encoder, targets, frame, (capsules, depth));
    }

    /// [`Self::record_raster`], starting from the depth target as `depth` says.
    fn record_raster_over(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
        (capsules, depth): (Option<&CapsuleMesh>, wgpu::LoadOp<f32>),
    ) {
        let mut pass = begin_render_pass(
            encoder,
            ShaderName::Scene.name(),
            &targets.color_linear_view,
            wgpu::LoadOp::Clear(self.clear_color),
            Some((&targets.depth_view, depth)),
        );
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        let floor_end = self.floor_last.unwrap_or(0);
        pass.draw(floor_end..self.vertex_count, 0..1);
        if let Some(capsules) = capsules {
            capsules.draw(&mut pass);
        }
        if floor_end > 0 {
            // The capsules bound their own vertices.
            pass.set_vertex_buffer(0, self.vertices.slice(..));
            pass.draw(0..floor_end, 0..1);
        }
        if let Some(sky) = &self.sky {
            pass.set_pipeline(sky);
            pass.draw(0..3, 0..1);
        }
    }
}

/// How many of `mesh`'s first vertices are the floor's (`build_scene_mesh` lays it first).
fn floor_vertices(mesh: &Mesh) -> u32 {
    let floor = Material::Floor as u32;
    mesh.vertices
        .iter()
        .take_while(|vertex| vertex.material == floor)
        .count() as u32
}
