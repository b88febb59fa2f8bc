//! What every world-space pass shares: the per-frame uniforms (camera, lights), the group-0
//! bindings that also carry the fires and the distance fog, and the sRGB-to-linear conversion
//! of scene colours.
//!
//! Scene colours are display (sRGB) values; shading happens in linear light, so every colour
//! goes through [`srgb_to_linear`] ([`crate::color`]) once, here on the CPU, before it reaches a shader.
//!
//! Group 0 ([`FrameBinding`]): 0 the frame uniforms, 1 the fires, 2 the distance fog, 3 the
//! lamps, 4 their shadow maps, 5 each fire in this frame (`fire_flicker` pass), 6 the fog's
//! noise lattice (`fog_lattice` pass), 7 the edge mask, 9 the fog's shadow grid, 10 a
//! nearest sampler for gathers, 11 a bilinear sampler (the shadow grid, the noise's points), 12
//! a comparing one (the moon's shadow map), 13 the noise lattice's points.
//!
//! The shaders' forms per scene and adapter, and the pipeline constants that pick them, are
//! [`super::shader_forms`]'s.

use bytemuck::{Pod, Zeroable};

use crate::color;
use crate::frame::FrameInputs;
use crate::gpu::camera;
use crate::gpu::distance_fog::DistanceFogParams;
use crate::gpu::fire_lights::FireLights;
use crate::gpu::lamp_lights::{self, LampResources};
use crate::gpu::medium::MediumUniforms;
use crate::gpu::passes::builder::{ALL_STAGES, PassBuilder, storage_buffer, texture, uniform};
use crate::gpu::passes::fire_flicker::flicker_buffer;
use crate::gpu::passes::fog_lattice::{LatticeLayout, NoiseLattice, lattice_form};
use crate::gpu::passes::fog_shadow;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shader_forms::distance_fog_form;
#[cfg(test)]
use crate::gpu::shader_forms::{FORCE_DEVICE_TYPE, FORCE_LATTICE_CORNERS};
use crate::gpu::sky::{SkyLook, SkyParams};
use crate::scene::{Rgb, Scene};

/// The per-frame uniforms every world pass reads at group 0, binding 0.
///
/// keep in sync with shaders/common.wgsl: FrameUniforms
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct FrameUniforms {
    /// World to clip space.
    pub clip_from_world: [[f32; 4]; 4],
    /// xyz: camera position; w: time of the frame in seconds.
    pub eye_world: [f32; 4],
    /// xyz: centre of the ball; w: its radius.
    pub ball_world: [f32; 4],
    /// xyz: the ball's point light; w: its range.
    pub ball_light_world: [f32; 4],
    /// rgb: point light colour × intensity (linear); w: the ball's spin in radians.
    pub ball_light_color: [f32; 4],
    /// rgb: ambient colour × intensity (linear); w: how wet the ground is, 0..=1 (0 without
    /// weather; see `gpu/weather.rs`).
    pub ambient_color: [f32; 4],
    /// xyz: unit vector the directional light travels along; w: 1 while a later sample of
    /// `--edge-samples` draws the pixels at an edge alone (`passes/edges.rs`), else 0.
    pub sun_dir_world: [f32; 4],
    /// rgb: directional colour × intensity (linear); w: the sample's fog phase
    /// (`SampleOffset::depth_phase`, 0.5 for one sample), where the flames' sheets stand.
    pub sun_color: [f32; 4],
    /// rgb: the ambient light from below, colour × intensity (linear), or the ambient colour
    /// where the scene names none; w: 1 where it does, else 0 (surfaces then read
    /// `ambient_color` alone: the same bits as before it existed).
    pub ambient_ground: [f32; 4],
    /// The physical fog medium ([`MediumUniforms`]): x its albedo; y its multiple-scattering
    /// octaves; z the last octave's share of the extinction; w: unused. All 0 with the seed
    /// medium, which reads none of it.
    pub medium: [f32; 4],
    /// The physical medium's phase, two lobes an octave ([`MediumUniforms::octaves`]).
    pub medium_octaves: [[f32; 4]; 8],
    /// The clouds and the water in this sample (`gpu/sky.rs`); zeros in a scene with neither,
    /// whose shaders read none of it.
    pub sky: SkyParams,
    /// Where the fog's noise points lie this moment
    /// ([`FogLatticePass::noise_points`](crate::gpu::passes::fog_lattice::FogLatticePass::noise_points));
    /// zeros where the fog hashes its noise.
    pub noise_points: [[f32; 4]; 7],
    /// The box the fog's shadow grid spans this moment
    /// ([`FogShadowPass::grid_box`](crate::gpu::passes::fog_shadow::FogShadowPass::grid_box)):
    /// its lowest corner and its size; zeros where the fog does not shadow itself.
    pub fog_shadow_low: [f32; 4],
    pub fog_shadow_size: [f32; 4],
}

/// The parts of the scene the frame uniforms need, converted once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrameStatics {
    ball_radius_world: f32,
    lamp_color_linear: [f32; 3],
    lamp_range_world: f32,
    lamp_height_world: f32,
    ambient_linear: [f32; 3],
    ambient_ground: [f32; 4],
    sun_dir_world: [f32; 3],
    sun_linear: [f32; 3],
    medium: MediumUniforms,
    /// The clouds and the water (`gpu/sky.rs`); `None` for a scene with neither.
    pub(crate) sky: Option<SkyLook>,
}

impl FrameStatics {
    pub(crate) fn new(scene: &Scene) -> Self {
        let lights = &scene.lights;
        FrameStatics {
            ball_radius_world: scene.ball.radius,
            lamp_color_linear: srgb_to_linear(lights.ball.color),
            lamp_range_world: lights.ball.range,
            lamp_height_world: lights.ball.height_above_ball,
            ambient_linear: scale(
                srgb_to_linear(lights.ambient.color),
                lights.ambient.intensity,
            ),
            ambient_ground: match lights.ambient.ground {
                Some(ground) => {
                    extend(scale(srgb_to_linear(ground), lights.ambient.intensity), 1.0)
                }
                None => extend(
                    scale(
                        srgb_to_linear(lights.ambient.color),
                        lights.ambient.intensity,
                    ),
                    0.0,
                ),
            },
            sun_dir_world: lights.directional.direction_world(),
            sun_linear: scale(
                srgb_to_linear(lights.directional.color),
                lights.directional.intensity,
            ),
            medium: MediumUniforms::new(&scene.fog.medium),
            sky: SkyLook::new(scene),
        }
    }
}

impl FrameUniforms {
    /// The uniforms for one frame of a picture `width` by `height` pixels.
    pub(crate) fn new(
        statics: &FrameStatics,
        inputs: &FrameInputs<'_>,
        size_px: (u32, u32),
    ) -> Self {
        let ball = inputs.ball_pos_world;
        let lamp = [ball[0], ball[1] + statics.lamp_height_world, ball[2]];
        let lamp_color = scale(statics.lamp_color_linear, inputs.ball_light_intensity);
        FrameUniforms {
            clip_from_world: camera::frame_clip_from_world(inputs, size_px).to_cols_array_2d(),
            eye_world: extend(inputs.camera.eye_world, inputs.time_s),
            ball_world: extend(ball, statics.ball_radius_world),
            ball_light_world: extend(lamp, statics.lamp_range_world),
            ball_light_color: extend(lamp_color, inputs.ball_spin_rad),
            ambient_color: extend(statics.ambient_linear, 0.0),
            sun_dir_world: extend(statics.sun_dir_world, 0.0),
            sun_color: extend(statics.sun_linear, inputs.sample.depth_phase),
            ambient_ground: statics.ambient_ground,
            medium: statics.medium.medium,
            medium_octaves: statics.medium.octaves,
            sky: statics.sky.as_ref().map_or(SkyParams::zeroed(), |look| {
                look.params(inputs.camera.eye_world, inputs.weather.as_ref())
            }),
            noise_points: [[0.0; 4]; 7],
            fog_shadow_low: [0.0; 4],
            fog_shadow_size: [0.0; 4],
        }
    }
}

/// The frame uniforms on the GPU: the buffer, and the group-0 layout and bind group every
/// world pass shares. Binding 1 holds the scene's fires ([`FireLights`], written once);
/// binding 2 the distance fog ([`DistanceFogParams`], written once); binding 3 the lamps
/// (`LampLights`, written once) and binding 4 their shadow maps (drawn each frame by the
/// `shadow` pass, which does not bind this group); binding 5 each fire in this frame (flicker,
/// light, range; written each frame by the `fire_flicker` pass, `passes/fire_flicker.rs`);
/// binding 6 the fog's noise lattice (written each frame by the `fog_lattice` pass,
/// `passes/fog_lattice.rs`); binding 7 the edge mask; binding 9 the optical depths from the
/// fog to its lights (written each frame by the `fog_shadow` pass, `passes/fog_shadow.rs`,
/// their box in the frame uniforms); binding 10 a nearest sampler for gathers; binding 11 a bilinear
/// sampler for the shadow grid and binding 12 a comparing one for the moon's shadow map
/// (common.wgsl, `medium_filter` and `shadow_compare`); binding 13 the fog's noise lattice as
/// points (one texel unless the fog reads them).
pub(crate) struct FrameBinding {
    pub buffer: wgpu::Buffer,
    /// The scene's fires (`FireLights`, written once).
    pub fire_lights: wgpu::Buffer,
    /// Each fire in this frame (flicker, light, range), written by the `fire_flicker` pass.
    pub fire_flicker: wgpu::Buffer,
    /// How many fires the scene has.
    pub fire_count: u32,
    /// The scene's lamps (`LampLights`, written once), bound at binding 3.
    pub lamp_lights: wgpu::Buffer,
    /// The distance fog's buffer: written once, and again each frame when the scene has
    /// weather (see `gpu/weather.rs`).
    pub distance_fog: wgpu::Buffer,
    pub layout: wgpu::BindGroupLayout,
    pub bind_group: wgpu::BindGroup,
    /// The nearest sampler of binding 10, for passes that bind group 0 their own way
    /// (`fog_shadow`): fog.wgsl's `sample_map` gathers through it.
    pub texel_gather: wgpu::Sampler,
    /// Whether the scene has any lamp: lamps.wgsl's `LAMPS_IN_SCENE` (see [`Self::lamp_constants`]).
    pub lamps_in_scene: bool,
    /// Whether the moon casts shadows: lamps.wgsl's `MOON_SHADOWS`.
    pub moon_shadows: bool,
    /// The fog's noise lattice, written by the `fog_lattice` pass, and how the fog's passes
    /// read it: fog.wgsl's `FOG_NOISE_LATTICE` and `FOG_NOISE_POINTS` (see
    /// [`Self::fog_constants`]).
    pub fog_lattice: NoiseLattice,
    /// The optical depths from the fog to its lights, written by the `fog_shadow` pass (one
    /// cell when the fog does not shadow itself), and the box they span.
    pub fog_shadow: fog_shadow::Grid,
    /// Whether the fog shadows itself: common.wgsl's `FOG_SELF_SHADOWING` (see
    /// [`Self::fog_shadow_constants`]).
    pub fog_shadows_itself: bool,
    /// Whether the fog's glow loops over the fires in range by their bits (CPU adapters whose
    /// loops over the fires are not unrolled) or over every fire: fires.wgsl's
    /// `FIRE_GLOW_BY_MASK`.
    pub fire_glow_by_mask: bool,
    /// The fire count the shaders' loops over the fires are unrolled for (CPU adapters, up to
    /// [`MAX_FIRES_UNROLLED`](super::shader_forms::MAX_FIRES_UNROLLED) fires), 0 where they read it from the uniforms: fires.wgsl's
    /// `FIRES_UNROLLED` (see [`Self::fire_constants`]).
    pub fires_unrolled: u32,
    /// Whether the raster `fog` pass hands what all the fragments of a sheet read alike (fires,
    /// knobs, eye, projection, distance fog) to them as flat inputs, read once
    /// by its vertices: CPU adapters with the loops unrolled for at most
    /// [`MAX_FIRES_AS_INPUTS`](super::shader_forms::MAX_FIRES_AS_INPUTS) fires, or none, where [`FOG_INPUT_VARIABLES`](super::shader_forms::FOG_INPUT_VARIABLES) inter-stage
    /// variables fit. fog.wgsl's `vs_fog_with_uniforms`, and fires.wgsl's
    /// `FIRE_GLOW_FROM_INPUTS` with fires.
    pub fog_uniforms_as_inputs: bool,
    /// Whether the adapter is a CPU adapter (lavapipe): the raster `scene` pass then draws the
    /// floor last (`ScenePass::record_raster`).
    pub cpu_adapter: bool,
    /// Whether every fog pipeline reads the view from its knobs (fog.wgsl's `FOG_FLUID_VIEW`
    /// on whatever the view and medium, see [`Self::fog_constants`]): set by tests alone, to
    /// compare that form's bytes.
    pub fluid_view_read: bool,
    /// The scene's distance fog as common.wgsl's `DISTANCE_FOG_FORM` (see
    /// [`Self::distance_fog_constants`]).
    pub distance_fog_form: u32,
    /// The edge mask the frame's bind group binds (`Targets::edge_mask_view`), kept for the
    /// bindings that share this one's ([`Self::sharing_fires`]).
    pub edge_mask: wgpu::TextureView,
}

impl FrameBinding {
    /// The binding of a scene with `fire_lights`, `distance_fog`, `lamps` and a fog whose noise
    /// `lattice` lays out, on an adapter of `device_type`: the fog's shaders take the forms that
    /// suit it (see [`Self::fog_constants`]). `fog_shadows_itself` sizes the grid of the
    /// `fog_shadow` pass (two cells when off).
    pub(crate) fn new(
        device: &wgpu::Device,
        fire_lights: &FireLights,
        (distance_fog, lattice, device_type): (
            &DistanceFogParams,
            &LatticeLayout,
            wgpu::DeviceType,
        ),
        (lamps, edge_mask): (&LampResources, &wgpu::TextureView),
        fog_shadows_itself: bool,
    ) -> Self {
        let build = PassBuilder::new(device, "frame");
        let fires = (
            build.static_uniform_buffer("fire_lights", bytemuck::bytes_of(fire_lights)),
            flicker_buffer(device),
            fire_lights.count(),
        );
        #[cfg(test)]
        let device_type = FORCE_DEVICE_TYPE.get().unwrap_or(device_type);
        let filterable = device
            .features()
            .contains(wgpu::Features::FLOAT32_FILTERABLE);
        let form = lattice_form(lattice, device_type, (&device.limits(), filterable));
        #[cfg(test)]
        let form = match form {
            // Tests only: the corners, to compare bytes with the hashed noise.
            crate::gpu::passes::fog_lattice::LatticeForm::Points if FORCE_LATTICE_CORNERS.get() => {
                crate::gpu::passes::fog_lattice::LatticeForm::Corners
            }
            form => form,
        };
        let noise = NoiseLattice::new(device, lattice, form);
        let fog_shadow = fog_shadow::Grid::new(device, fog_shadows_itself);
        let shared = (lamps, edge_mask, &fog_shadow);
        let mut binding = Self::with_fires(device, (fires, noise), distance_fog, shared);
        binding.fog_shadows_itself = fog_shadows_itself;
        binding.choose_forms(device, device_type == wgpu::DeviceType::Cpu);
        binding
    }

    /// A second binding of the same scene (the `reflection` pass's mirrored camera) that
    /// shares this one's fires and their flicker, and its fog's noise lattice, so the
    /// `fire_flicker` and `fog_lattice` passes serve both.
    pub(crate) fn sharing_fires(
        &self,
        device: &wgpu::Device,
        distance_fog: &DistanceFogParams,
        lamps: &LampResources,
    ) -> Self {
        let fires = (
            self.fire_lights.clone(),
            self.fire_flicker.clone(),
            self.fire_count,
        );
        let noise = self.fog_lattice.clone();
        let shared = (lamps, &self.edge_mask, &self.fog_shadow);
        let mut binding = Self::with_fires(device, (fires, noise), distance_fog, shared);
        binding.fire_glow_by_mask = self.fire_glow_by_mask;
        binding.fires_unrolled = self.fires_unrolled;
        binding.fog_uniforms_as_inputs = self.fog_uniforms_as_inputs;
        binding.cpu_adapter = self.cpu_adapter;
        binding.fluid_view_read = self.fluid_view_read;
        binding.fog_shadows_itself = self.fog_shadows_itself;
        binding
    }

    /// The binding over `fires` (the fire lights' buffer, the flicker buffer and the count) and
    /// the fog's `noise` lattice.
    fn with_fires(
        device: &wgpu::Device,
        (fires, noise): ((wgpu::Buffer, wgpu::Buffer, u32), NoiseLattice),
        distance_fog: &DistanceFogParams,
        (lamps, edge_mask, fog_shadow): (&LampResources, &wgpu::TextureView, &fog_shadow::Grid),
    ) -> Self {
        let (fire_lights, fire_flicker, fire_count) = fires;
        let build = PassBuilder::new(device, "frame");
        let distance_fog_form = distance_fog_form(distance_fog);
        let distance_fog =
            build.static_uniform_buffer("distance_fog", bytemuck::bytes_of(distance_fog));
        let buffer = build.uniform_buffer::<FrameUniforms>("uniforms");
        // Clamp to edge and nearest are the defaults; a gather ignores the filter anyway.
        let texel_gather = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some(&build.label("texel_gather")),
            ..Default::default()
        });
        // The shadow grid's and the moon's filtered reads (common.wgsl, `medium_filter` and
        // `shadow_compare`): bilinear, clamped to the edge.
        let medium_filter = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some(&build.label("medium_filter")),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let shadow_compare = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some(&build.label("shadow_compare")),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        // Seen by every stage: the `fog_compute` pass binds the frame's group 0 too.
        let layout = build.bind_group_layout(&[
            uniform(0, ALL_STAGES),
            uniform(1, ALL_STAGES),
            uniform(2, ALL_STAGES),
            uniform(3, ALL_STAGES),
            lamp_lights::shadow_maps_entry(4),
            uniform(5, ALL_STAGES),
            // Read by the fog's fragments and compute passes, never by a vertex stage.
            storage_buffer(6, FRAGMENT_AND_COMPUTE),
            // The edge mask (`passes/edges.rs`), read by the compute passes.
            texture(7, FRAGMENT_AND_COMPUTE, wgpu::TextureSampleType::Uint),
            // The fog's optical depths to its lights (`passes/fog_shadow.rs`).
            fog_shadow::as_array(texture(
                9,
                FRAGMENT_AND_COMPUTE,
                wgpu::TextureSampleType::Float { filterable: true },
            )),
            // A nearest sampler that gathers four texels at a time (common.wgsl, `texel_gather`).
            wgpu::BindGroupLayoutEntry {
                binding: 10,
                visibility: ALL_STAGES,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::NonFiltering),
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 11,
                visibility: ALL_STAGES,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 12,
                visibility: ALL_STAGES,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                count: None,
            },
            // The fog's noise lattice as points (`passes/fog_lattice.rs`), read through
            // `medium_filter`.
            wgpu::BindGroupLayoutEntry {
                binding: 13,
                visibility: FRAGMENT_AND_COMPUTE,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D3,
                    multisampled: false,
                },
                count: None,
            },
        ]);
        // Binding 8 is free: the fog's shadow grid's box rides in the frame uniforms.
        let bind_group = build.bind_group_at(
            "bind_group",
            &layout,
            [
                (0, buffer.as_entire_binding()),
                (1, fire_lights.as_entire_binding()),
                (2, distance_fog.as_entire_binding()),
                (3, lamps.buffer.as_entire_binding()),
                (4, wgpu::BindingResource::TextureView(&lamps.maps_view)),
                (5, fire_flicker.as_entire_binding()),
                (6, noise.buffer.as_entire_binding()),
                (7, wgpu::BindingResource::TextureView(edge_mask)),
                (
                    9,
                    wgpu::BindingResource::TextureView(&fog_shadow.depths_view),
                ),
                (10, wgpu::BindingResource::Sampler(&texel_gather)),
                (11, wgpu::BindingResource::Sampler(&medium_filter)),
                (12, wgpu::BindingResource::Sampler(&shadow_compare)),
                (13, wgpu::BindingResource::TextureView(&noise.points)),
            ],
        );
        // The fire lights never change; the flicker changes each frame, the distance fog with
        // the weather.
        FrameBinding {
            buffer,
            fire_lights,
            fire_flicker,
            fire_count,
            lamp_lights: lamps.buffer.clone(),
            distance_fog,
            layout,
            bind_group,
            texel_gather,
            lamps_in_scene: lamps.lamp_count > 0,
            moon_shadows: lamps.moon_view.is_some(),
            fog_lattice: noise,
            fog_shadow: fog_shadow.clone(),
            fog_shadows_itself: false,
            fire_glow_by_mask: true,
            fires_unrolled: 0,
            fog_uniforms_as_inputs: false,
            cpu_adapter: false,
            fluid_view_read: false,
            distance_fog_form,
            edge_mask: edge_mask.clone(),
        }
    }

    /// Queues this frame's distance fog (scenes with weather; applied at the next submit).
    pub(crate) fn write_distance_fog(&self, queue: &dyn BufferWrites, fog: &DistanceFogParams) {
        queue.write_buffer(&self.distance_fog, 0, bytemuck::bytes_of(fog));
    }

    /// Queues this frame's uniforms (applied at the next submit).
    pub(crate) fn write(&self, queue: &dyn BufferWrites, uniforms: &FrameUniforms) {
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(uniforms));
    }
}

/// The fragment and compute stages: what reads the fog's noise lattice.
const FRAGMENT_AND_COMPUTE: wgpu::ShaderStages =
    wgpu::ShaderStages::FRAGMENT.union(wgpu::ShaderStages::COMPUTE);

/// A display (sRGB) colour to linear light.
pub(crate) fn srgb_to_linear(srgb: Rgb) -> [f32; 3] {
    srgb.map(color::srgb_to_linear)
}

/// A colour times a factor.
pub(crate) fn scale(rgb: [f32; 3], factor: f32) -> [f32; 3] {
    rgb.map(|c| c * factor)
}

/// Three components and a fourth, for a WGSL `vec4<f32>`.
pub(crate) fn extend(xyz: [f32; 3], w: f32) -> [f32; 4] {
    [xyz[0], xyz[1], xyz[2], w]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_convert_per_component() {
        let linear = srgb_to_linear([0.0, 0.5, 1.0]);
        assert_eq!(
            linear,
            [0.0, color::srgb_to_linear(0.5), color::srgb_to_linear(1.0)]
        );
    }

    #[test]
    fn frame_uniforms_match_wgsl_size() {
        // mat4x4 + nine vec4 + the medium's eight lobes + the sky + the noise points + the
        // shadow grid's box (64 + 144 + 128 + 96 + 112 + 32).
        assert_eq!(std::mem::size_of::<FrameUniforms>(), 576);
    }
}
