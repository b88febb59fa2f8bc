//! The `fog_shadow` pass (shaders/fog_shadow.wgsl): the fog's shadow on its own light. Each
//! moment it fills a grid over the fog's box with the optical depth from each cell's centre to
//! the moon, the ball's light, the fires and the lamps. The physical medium (`medium_in_scattering` in
//! shaders/fog.wgsl) and the hall's surfaces (`incoming_light` in shaders/scene.wgsl) dim those
//! lights by it (`fog_light_depths` in shaders/common.wgsl): light that crossed a dense bank
//! arrives dimmer, so the bank shadows the thinner fog and the floor behind it.
//!
//! Why a grid: the fog's density is a 2D field (the fluid's maps) times a height profile, so
//! the depth toward a light changes slowly through the box. [`GRID_CELLS`] cells, each marched
//! once a moment in at most 32 steps, stand for the marches every fog sample would otherwise
//! make toward every light. The march reads the density without its 3D noise (the noise's mean
//! instead): over a light's path of metres the wisps average out.
//!
//! Which lights: all but the ambient. The moon and the ball's light have a depth each. The fires
//! share one, the mean of their depths weighted by how much of each one's light reaches the
//! cell, and so do the lamps: exact where one fire outshines the others, a blend between two
//! fires of like strength. The pass runs only for a physical medium with `self_shadowing` (its
//! default); the grid is then bound at group 0, binding 9, of every pass that reads the fog or
//! lights the hall, and its box rides in the frame uniforms
//! ([`FrameBinding::fog_shadow`](crate::gpu::common::FrameBinding::fog_shadow)).

use bytemuck::{Pod, Zeroable};

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::passes::builder::{
    ALL_STAGES, PassBuilder, PassContext, filterable_texture, storage_texture, uniform,
};
use crate::gpu::passes::fog::FogKnobs;
use crate::gpu::shaders::ShaderName;
use crate::scene::Scene;

/// Cells of the grid along x, y (height) and z: 64 × 16 × 64, a MiB of depths.
///
/// keep in sync with shaders/fog.wgsl: FOG_SHADOW_GRID
pub(crate) const GRID_CELLS: [u32; 3] = [64, 16, 64];

/// Invocations in one workgroup, one cell each.
///
/// keep in sync with shaders/fog_shadow.wgsl: FOG_SHADOW_WORKGROUP
const WORKGROUP_CELLS: u32 = 64;

/// The texture format of the depths: four half floats a cell (the moon's, the ball's, the
/// fires', the lamps'), so a sampler filters them: each read takes two bilinear reads, one a
/// layer, instead of eight loads (common.wgsl, `fog_light_depths`). Half floats hold a depth to
/// about a thousandth of itself; the sampler's weights may differ between adapters by 1/256.
const DEPTHS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// The box the grid spans, in its own small buffer, written by [`FogShadowPass::prepare`].
///
/// keep in sync with shaders/common.wgsl: FogShadowBox
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct GridBox {
    /// xyz: the lowest corner (world).
    low: [f32; 4],
    /// xyz: the size (world).
    size: [f32; 4],
}

impl GridBox {
    /// The fog's box of `knobs`: its square, from the floor to the highest the fog or a sheet
    /// reaches (as fog.wgsl's `fog_box_span`).
    fn new(knobs: &FogKnobs) -> Self {
        let [x, z, width, depth] = knobs.area;
        let floor_world = knobs.layer[0];
        let top_world = (knobs.layer[1] + knobs.layer[2]).max(knobs.sampling[3]);
        GridBox {
            low: [x, floor_world, z, 0.0],
            size: [width, (top_world - floor_world).max(1e-3), depth, 0.0],
        }
    }
}

/// Cells in the whole grid.
fn grid_cells() -> u32 {
    GRID_CELLS.iter().product()
}

/// Whether `scene`'s fog shadows itself: a physical medium with `self_shadowing`.
pub(crate) fn shadows_itself(scene: &Scene) -> bool {
    scene
        .fog
        .medium
        .physical()
        .is_some_and(|physical| physical.self_shadowing)
}

/// The grid the frame binds: its depths at binding 9, a 2D array texture of [`GRID_CELLS`]
/// texels (x, z, and one layer a cell of height) when the fog shadows itself, else one texel
/// that nothing reads.
///
/// The depths are a texture, not a storage buffer: CPU adapters (lavapipe) fetch texels as
/// vectors but load a storage buffer lane by lane, and each fog sample reads eight cells. The
/// moonlit scene's fog pass takes 0.72 times as long on lavapipe (985 against 1372 ms a frame
/// at 640×360, `benches/runs/2026-12-05-dev-fog-costs`). The box rides in the frame uniforms
/// ([`FogShadowPass::grid_box`]): a storage buffer costs lavapipe a load a lane at every fog
/// sample, and one more uniform buffer in the frame's group corrupted its heap (Mesa 22.3.6)
/// in about one run in six.
#[derive(Clone)]
pub(crate) struct Grid {
    /// The depths, written by the pass as a storage texture, read by the frame's passes.
    pub depths_view: wgpu::TextureView,
}

impl Grid {
    /// The grid of a scene whose fog shadows itself or not.
    pub(crate) fn new(device: &wgpu::Device, shadows_itself: bool) -> Self {
        let build = PassBuilder::new(device, ShaderName::FogShadow.name());
        let [width, layers, depth] = if shadows_itself { GRID_CELLS } else { [1; 3] };
        let depths = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(&build.label("depths")),
            size: wgpu::Extent3d {
                width,
                height: depth,
                depth_or_array_layers: layers,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTHS_FORMAT,
            usage: if shadows_itself {
                wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING
            } else {
                wgpu::TextureUsages::TEXTURE_BINDING
            },
            view_formats: &[],
        });
        let depths_view = depths.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        Grid { depths_view }
    }
}

/// `entry`, a texture or storage texture binding, seen as a 2D array: the grid's depths.
pub(crate) fn as_array(mut entry: wgpu::BindGroupLayoutEntry) -> wgpu::BindGroupLayoutEntry {
    if let wgpu::BindingType::Texture { view_dimension, .. }
    | wgpu::BindingType::StorageTexture { view_dimension, .. } = &mut entry.ty
    {
        *view_dimension = wgpu::TextureViewDimension::D2Array;
    }
    entry
}

/// The pass: its pipeline, its three bind groups (the frame's uniforms, the fog's knobs and
/// maps, the grid written), and the fog's knobs for the moment.
pub(crate) struct FogShadowPass {
    pipeline: wgpu::ComputePipeline,
    bind_groups: [wgpu::BindGroup; 3],
    knobs: FogKnobs,
    knobs_buffer: wgpu::Buffer,
}

impl FogShadowPass {
    /// The pass for `ctx`'s scene, or `None` when its fog does not shadow itself.
    pub(crate) fn new(ctx: &PassContext<'_>) -> Result<Option<Self>, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            maps,
            scene,
            view,
            ..
        } = *ctx;
        if !shadows_itself(scene) {
            return Ok(None);
        }
        let constants = frame.lamp_constants();
        let module = ShaderName::FogShadow.create_module(device, errors, &constants)?;
        let build = PassBuilder::new(device, ShaderName::FogShadow.name());
        let knobs = FogKnobs::new(scene, view);
        let knobs_buffer = build.uniform_buffer::<FogKnobs>("knobs");
        let compute = wgpu::ShaderStages::COMPUTE;
        // Group 0: the frame's uniforms, the fires and the lamps, as the frame's own group binds
        // them; not that group itself, which binds the grid to read.
        let frame_layout = build.bind_group_layout(&[
            uniform(0, ALL_STAGES),
            uniform(1, compute),
            uniform(3, compute),
            uniform(5, compute),
            // The fluid map's gathers (fog.wgsl, `sample_map`).
            wgpu::BindGroupLayoutEntry {
                binding: 10,
                visibility: compute,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::NonFiltering),
                count: None,
            },
        ]);
        let fog_layout = build.bind_group_layout(&[
            uniform(0, ALL_STAGES),
            filterable_texture(1, compute),
            filterable_texture(2, compute),
        ]);
        let grid_layout =
            build.bind_group_layout(&[as_array(storage_texture(0, compute, DEPTHS_FORMAT))]);
        let bind_groups = [
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&build.label("frame")),
                layout: &frame_layout,
                entries: &[
                    (0, &frame.buffer),
                    (1, &frame.fire_lights),
                    (3, &frame.lamp_lights),
                    (5, &frame.fire_flicker),
                ]
                .map(|(binding, buffer)| wgpu::BindGroupEntry {
                    binding,
                    resource: buffer.as_entire_binding(),
                })
                .into_iter()
                .chain([wgpu::BindGroupEntry {
                    binding: 10,
                    resource: wgpu::BindingResource::Sampler(&frame.texel_gather),
                }])
                .collect::<Vec<_>>(),
            }),
            build.bind_group(
                &fog_layout,
                [
                    knobs_buffer.as_entire_binding(),
                    wgpu::BindingResource::TextureView(&maps.fluid_view),
                    wgpu::BindingResource::TextureView(&maps.lift_view),
                ],
            ),
            build.bind_group(
                &grid_layout,
                [wgpu::BindingResource::TextureView(
                    &frame.fog_shadow.depths_view,
                )],
            ),
        ];
        let layouts = [&frame_layout, &fog_layout, &grid_layout];
        let pipeline = build.compute_pipeline(&module, "cs_fog_shadow", &layouts);
        Ok(Some(FogShadowPass {
            pipeline,
            bind_groups,
            knobs,
            knobs_buffer,
        }))
    }

    /// Queues the fog's knobs for this moment (applied at the next submit). The frame's
    /// uniforms (the moon's direction, the ball's light, the grid's box) are the frame's own.
    pub(crate) fn prepare(&self, queue: &wgpu::Queue, inputs: &FrameInputs<'_>) {
        let knobs = self.knobs.for_frame(inputs);
        queue.write_buffer(&self.knobs_buffer, 0, bytemuck::bytes_of(&knobs));
    }

    /// The box the grid spans for the moment of `inputs`, for the frame uniforms
    /// (`fog_shadow_low`, `fog_shadow_size`): its lowest corner and its size.
    pub(crate) fn grid_box(&self, inputs: &FrameInputs<'_>) -> [[f32; 4]; 2] {
        let GridBox { low, size } = GridBox::new(&self.knobs.for_frame(inputs));
        [low, size]
    }

    /// Records the pass: one invocation a cell.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(ShaderName::FogShadow.name()),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        for (index, group) in self.bind_groups.iter().enumerate() {
            pass.set_bind_group(index as u32, group, &[]);
        }
        pass.dispatch_workgroups(grid_cells().div_ceil(WORKGROUP_CELLS), 1, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{FogMedium, PhysicalMedium};

    #[test]
    fn only_a_physical_medium_that_asks_shadows_itself() {
        let mut scene = Scene::default();
        assert!(!shadows_itself(&scene));
        scene.fog.medium = FogMedium::Physical(PhysicalMedium::default());
        assert!(shadows_itself(&scene));
        scene.fog.medium = FogMedium::Physical(PhysicalMedium {
            self_shadowing: false,
            ..PhysicalMedium::default()
        });
        assert!(!shadows_itself(&scene));
        // One workgroup row covers the grid (a dispatch's x is at most 65 535).
        assert!(grid_cells().div_ceil(WORKGROUP_CELLS) <= 65_535);
    }

    #[test]
    fn the_box_matches_wgsl_and_spans_the_fog() {
        // Two vec4, as the frame uniforms lay them out.
        assert_eq!(std::mem::size_of::<GridBox>(), 32);
        let scene = Scene::default();
        let grid_box = GridBox::new(&FogKnobs::new(&scene, crate::frame::View::Fog));
        let half = 0.5 * scene.fog.area;
        assert_eq!(grid_box.low, [-half, scene.fog.bottom, -half, 0.0]);
        let top = (scene.fog.top + scene.fog.lift_height).max(scene.fog.sheets_top);
        assert_eq!(grid_box.size[0], scene.fog.area);
        assert!((grid_box.size[1] - (top - scene.fog.bottom)).abs() < 1e-6);
    }
}
