//! The WGSL sources of every pass, assembled in one place.
//!
//! WGSL has no `#include`, so each pass's module is its own file with the shared files in
//! front (`common.wgsl` for the frame uniforms, `noise.wgsl` for the noises, `fires.wgsl` for
//! the fires as lights, `lamps.wgsl` for the lamps and their shadow maps), concatenated
//! here from `include_str!`. The `fog_compute` module also takes the raster `fog` pass's file
//! in front of its own, for `shade_sheet` and the fog's bindings, and so do the `raymarch` and
//! `flame` modules, for `fog_medium`, the marches and the bindings. The two per-pixel
//! compositors (`fog_compute`, `raymarch`) also take `per_pixel.wgsl`, their ray, bindings and
//! compositing; `scene_compute` takes `scene.wgsl`, for `shade_surface`. Every module with
//! `common.wgsl` takes `sky.wgsl` (and `noise.wgsl`, which it reads) too: the distance fog calls
//! its water ([`with_sky`]). Pipelines and the naga
//! validation test both take their source from [`ShaderName::source`], so what is tested is
//! exactly what runs.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::gpu::GpuError;
use crate::gpu::context::{ErrorSink, scoped};
use crate::gpu::specialize;

const COMMON_WGSL: &str = include_str!("../../shaders/common.wgsl");
const NOISE_WGSL: &str = include_str!("../../shaders/noise.wgsl");
const SKY_WGSL: &str = include_str!("../../shaders/sky.wgsl");
const FIRES_WGSL: &str = include_str!("../../shaders/fires.wgsl");
const FIRE_FLICKER_WGSL: &str = include_str!("../../shaders/fire_flicker.wgsl");
const LAMPS_WGSL: &str = include_str!("../../shaders/lamps.wgsl");
const SHADOW_WGSL: &str = include_str!("../../shaders/shadow.wgsl");
const SCENE_WGSL: &str = include_str!("../../shaders/scene.wgsl");
const SCENE_COMPUTE_WGSL: &str = include_str!("../../shaders/scene_compute.wgsl");
const FOG_LATTICE_WGSL: &str = include_str!("../../shaders/fog_lattice.wgsl");
const FOG_WGSL: &str = include_str!("../../shaders/fog.wgsl");
const FOG_SHADOW_WGSL: &str = include_str!("../../shaders/fog_shadow.wgsl");
const PER_PIXEL_WGSL: &str = include_str!("../../shaders/per_pixel.wgsl");
const FOG_COMPUTE_WGSL: &str = include_str!("../../shaders/fog_compute.wgsl");
const FOG_HALF_WGSL: &str = include_str!("../../shaders/fog_half.wgsl");
const FOG_CUTOFF_WGSL: &str = include_str!("../../shaders/fog_cutoff.wgsl");
const FOG_GROUPS_WGSL: &str = include_str!("../../shaders/fog_groups.wgsl");
const RAYMARCH_WGSL: &str = include_str!("../../shaders/raymarch.wgsl");
const FLAME_WGSL: &str = include_str!("../../shaders/flame.wgsl");
const OVER_SAMPLES_WGSL: &str = include_str!("../../shaders/over_samples.wgsl");
const BOLT_WGSL: &str = include_str!("../../shaders/bolt.wgsl");
const RAIN_WGSL: &str = include_str!("../../shaders/rain.wgsl");
const REFLECTION_WGSL: &str = include_str!("../../shaders/reflection.wgsl");
const OVERLAY_WGSL: &str = include_str!("../../shaders/overlay.wgsl");
const ENCODE_WGSL: &str = include_str!("../../shaders/encode.wgsl");
const ACCUMULATE_WGSL: &str = include_str!("../../shaders/accumulate.wgsl");
const EDGES_WGSL: &str = include_str!("../../shaders/edges.wgsl");

/// How many modules there are ([`ShaderName`]'s variants).
const SHADER_COUNT: usize = 18;

/// A module as naga parsed and validated it.
type Parsed = Arc<(naga::Module, naga::valid::ModuleInfo)>;

/// One shader module per pass, named as the pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShaderName {
    FireFlicker,
    Shadow,
    Scene,
    SceneCompute,
    FogLattice,
    FogShadow,
    Fog,
    FogCompute,
    FogHalf,
    Raymarch,
    Flame,
    Bolt,
    Rain,
    Reflection,
    Overlay,
    Accumulate,
    Edges,
    Encode,
}

impl ShaderName {
    /// Every module.
    #[cfg(test)]
    pub(crate) const ALL: [ShaderName; SHADER_COUNT] = [
        ShaderName::FireFlicker,
        ShaderName::Shadow,
        ShaderName::Scene,
        ShaderName::SceneCompute,
        ShaderName::FogLattice,
        ShaderName::FogShadow,
        ShaderName::Fog,
        ShaderName::FogCompute,
        ShaderName::FogHalf,
        ShaderName::Raymarch,
        ShaderName::Flame,
        ShaderName::Bolt,
        ShaderName::Rain,
        ShaderName::Reflection,
        ShaderName::Overlay,
        ShaderName::Accumulate,
        ShaderName::Edges,
        ShaderName::Encode,
    ];

    /// The pass name, used as the module's label.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ShaderName::FireFlicker => "fire_flicker",
            ShaderName::Shadow => "shadow",
            ShaderName::Scene => "scene",
            // The same pass, drawn in compute: its times and labels are the scene pass's.
            ShaderName::SceneCompute => "scene",
            ShaderName::FogLattice => "fog_lattice",
            ShaderName::FogShadow => "fog_shadow",
            ShaderName::Fog => "fog",
            ShaderName::FogCompute => "fog_compute",
            ShaderName::FogHalf => "fog_half",
            ShaderName::Raymarch => "raymarch",
            ShaderName::Flame => "flame",
            ShaderName::Bolt => "bolt",
            ShaderName::Rain => "rain",
            ShaderName::Reflection => "reflection",
            ShaderName::Overlay => "overlay",
            ShaderName::Accumulate => "accumulate",
            ShaderName::Edges => "edges",
            ShaderName::Encode => "encode",
        }
    }

    /// The module's full source: the shared files it needs, then its own.
    pub(crate) fn source(self) -> String {
        let parts: &[&str] = match self {
            ShaderName::FireFlicker => &[COMMON_WGSL, FIRES_WGSL, FIRE_FLICKER_WGSL],
            ShaderName::Shadow => &[COMMON_WGSL, LAMPS_WGSL, SHADOW_WGSL],
            ShaderName::Scene => &[COMMON_WGSL, NOISE_WGSL, FIRES_WGSL, LAMPS_WGSL, SCENE_WGSL],
            // `shade_surface` and the knobs of scene.wgsl: the same function shades both.
            ShaderName::SceneCompute => &[
                COMMON_WGSL,
                NOISE_WGSL,
                FIRES_WGSL,
                LAMPS_WGSL,
                SCENE_WGSL,
                SCENE_COMPUTE_WGSL,
            ],
            // `fog_cell_corners` and the lattice's layout come from noise.wgsl.
            ShaderName::FogLattice => &[NOISE_WGSL, FOG_LATTICE_WGSL],
            // The cut-off depth of the raster sheets (`passes/fog_cutoff.rs`) and their groups
            // (`passes/fog_groups.rs`) are theirs alone.
            ShaderName::Fog => &[
                COMMON_WGSL,
                NOISE_WGSL,
                FIRES_WGSL,
                LAMPS_WGSL,
                FOG_WGSL,
                FOG_CUTOFF_WGSL,
                FOG_GROUPS_WGSL,
            ],
            // The fog's density and box, the knobs and the maps come from fog.wgsl.
            ShaderName::FogShadow => &[
                COMMON_WGSL,
                NOISE_WGSL,
                FIRES_WGSL,
                LAMPS_WGSL,
                FOG_WGSL,
                FOG_SHADOW_WGSL,
            ],
            // `shade_sheet` and the fog's bindings come from fog.wgsl: the same function shades
            // the sheets in both passes.
            ShaderName::FogCompute => &[
                COMMON_WGSL,
                NOISE_WGSL,
                FIRES_WGSL,
                LAMPS_WGSL,
                FOG_WGSL,
                PER_PIXEL_WGSL,
                FOG_COMPUTE_WGSL,
            ],
            // The continuous fog (`fog_medium`, `march_medium`) and the bindings of fog.wgsl;
            // the ray, bindings and compositing it shares with `fog_compute` from per_pixel.wgsl.
            ShaderName::Raymarch => &[
                COMMON_WGSL,
                NOISE_WGSL,
                FIRES_WGSL,
                LAMPS_WGSL,
                FOG_WGSL,
                PER_PIXEL_WGSL,
                RAYMARCH_WGSL,
            ],
            // The ground fog in front of each flame: the marches of fog.wgsl.
            ShaderName::Flame => &[
                COMMON_WGSL,
                NOISE_WGSL,
                FIRES_WGSL,
                LAMPS_WGSL,
                FOG_WGSL,
                FLAME_WGSL,
            ],
            // The half-size fog's depth and upsampling: no frame uniforms, no noise.
            ShaderName::FogHalf => &[FOG_HALF_WGSL],
            // The rain and the bolt drawn once over the mean of the samples, where batched.
            ShaderName::Bolt => &[COMMON_WGSL, OVER_SAMPLES_WGSL, BOLT_WGSL],
            ShaderName::Rain => &[COMMON_WGSL, FIRES_WGSL, OVER_SAMPLES_WGSL, RAIN_WGSL],
            ShaderName::Reflection => &[COMMON_WGSL, NOISE_WGSL, REFLECTION_WGSL],
            ShaderName::Overlay => &[COMMON_WGSL, OVERLAY_WGSL],
            ShaderName::Accumulate => &[ACCUMULATE_WGSL],
            ShaderName::Edges => &[EDGES_WGSL],
            ShaderName::Encode => &[ENCODE_WGSL],
        };
        with_sky(parts).join("\n")
    }

    /// The module parsed and validated by naga, once a process: every pipeline of it
    /// specializes this.
    fn parsed(self) -> Result<Parsed, GpuError> {
        static PARSED: [OnceLock<Result<Parsed, String>>; SHADER_COUNT] =
            [const { OnceLock::new() }; SHADER_COUNT];
        let parsed =
            PARSED[self as usize].get_or_init(|| specialize::parse(&self.source()).map(Arc::new));
        parsed.clone().map_err(|message| GpuError::Validation {
            during: "shader compilation",
            message: format!("{} shader: {message}", self.name()),
        })
    }

    /// Compiles the module on `device` for pipelines that set the WGSL `override`s
    /// `constants` (by name; the others keep their defaults). The constants are applied here
    /// and the branches on them dropped ([`specialize`]), so the module has no `override` left
    /// and its pipelines set none. A WGSL error or an unknown constant becomes a
    /// [`GpuError`].
    ///
    /// wgpu would add a counter to every loop (`force_loop_bounding`), so that a loop that
    /// never ends cannot reach the backend. The fog's march runs one loop a sheet and one a
    /// fire, so the counter costs every crossing; fogbank's own loops all end, and it is
    /// left out.
    pub(crate) fn create_module(
        self,
        device: &wgpu::Device,
        errors: &ErrorSink,
        constants: &[(&str, f64)],
    ) -> Result<wgpu::ShaderModule, GpuError> {
        let parsed = self.parsed()?;
        let (module, info) = &*parsed;
        let module = specialize::specialize(module, info, constants).map_err(|error| {
            GpuError::Validation {
                during: "shader compilation",
                message: format!("{} shader: {error}", self.name()),
            }
        })?;
        let descriptor = wgpu::ShaderModuleDescriptor {
            label: Some(self.name()),
            source: wgpu::ShaderSource::Naga(Cow::Owned(module)),
        };
        // Every check wgpu adds but the loop bound, for the reason above.
        let checks = wgpu::ShaderRuntimeChecks {
            force_loop_bounding: false,
            ..wgpu::ShaderRuntimeChecks::checked()
        };
        scoped(device, errors, "shader compilation", || {
            // SAFETY: `force_loop_bounding` guards against loops that never end, which a
            // backend compiler may treat as unreachable. Every loop of fogbank's shaders ends:
            // each `for` counts to a bound the shader reads or states, and each `while` over
            // a bit mask clears one bit a turn (`take_lowest_fire`), and the edge batch's
            // `loop` (scene_compute.wgsl) moves on at least one triangle a turn until its
            // count. The bounds checks stay.
            unsafe { device.create_shader_module_trusted(descriptor, checks) }
        })
    }
}

/// `parts` with sky.wgsl right after noise.wgsl, or after common.wgsl with noise.wgsl in front
/// of it where the module has no noise: common.wgsl's distance fog calls sky.wgsl's water, and
/// sky.wgsl's clouds read noise.wgsl's `tile_noise`. A module without common.wgsl is as given.
fn with_sky(parts: &[&'static str]) -> Vec<&'static str> {
    if !parts.contains(&COMMON_WGSL) {
        return parts.to_vec();
    }
    let has_noise = parts.contains(&NOISE_WGSL);
    let mut joined = Vec::with_capacity(parts.len() + 2);
    for &part in parts {
        joined.push(part);
        if part == COMMON_WGSL && !has_noise {
            joined.extend([NOISE_WGSL, SKY_WGSL]);
        } else if part == NOISE_WGSL {
            joined.push(SKY_WGSL);
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module parses and validates with naga, without a GPU.
    #[test]
    fn every_wgsl_module_validates() {
        for shader in ShaderName::ALL {
            let source = shader.source();
            let module = match naga::front::wgsl::parse_str(&source) {
                Ok(module) => module,
                Err(error) => panic!(
                    "{} shader does not parse:\n{}",
                    shader.name(),
                    error.emit_to_string(&source)
                ),
            };
            let mut validator = naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            );
            if let Err(error) = validator.validate(&module) {
                panic!(
                    "{} shader does not validate:\n{}",
                    shader.name(),
                    error.emit_to_string(&source)
                );
            }
        }
    }

    /// Every module specializes with its constants' defaults, and the result validates
    /// (`specialize` checks it again inside naga).
    #[test]
    fn every_module_specializes() {
        for shader in ShaderName::ALL {
            let parsed = shader.parsed().expect("the module parses");
            let module = specialize::specialize(&parsed.0, &parsed.1, &[])
                .unwrap_or_else(|e| panic!("{} shader: {e}", shader.name()));
            assert!(module.overrides.is_empty(), "{}", shader.name());
        }
    }

    /// The seed fog's pipelines leave the physical medium's lights behind, and the physical
    /// medium's keep them: the branches on `FOG_MEDIUM` are gone, not only folded.
    #[test]
    fn the_seed_fog_leaves_the_physical_lights_out() {
        let parsed = ShaderName::Fog.parsed().unwrap();
        let has = |medium: f64, name: &str| {
            let constants = [("FOG_MEDIUM", medium), ("FOG_FLUID_VIEW", 0.0)];
            let module = specialize::specialize(&parsed.0, &parsed.1, &constants).unwrap();
            let mut names = module.functions.iter().filter_map(|(_, f)| f.name.clone());
            names.any(|function| function == name)
        };
        for physical in ["medium_light", "slab_pieces", "fire_in_medium"] {
            assert!(!has(0.0, physical), "the seed fog keeps `{physical}`");
            assert!(has(1.0, physical), "the physical fog lost `{physical}`");
        }
        // The noise is hashed here: the lattice's reads are behind `FOG_NOISE_LATTICE`.
        assert!(!has(0.0, "fog_lattice_noise"));
        assert!(has(0.0, "fog_fbm"));
    }

    /// Each module has the entry points its pass asks for.
    #[test]
    fn entry_points_exist() {
        let expected: [(ShaderName, &[&str]); 12] = [
            (ShaderName::FireFlicker, &["cs_fire_flicker"]),
            (
                ShaderName::FogLattice,
                &["cs_fog_lattice", "cs_fog_lattice_points"],
            ),
            (ShaderName::FogShadow, &["cs_fog_shadow"]),
            (
                ShaderName::Shadow,
                &[
                    "vs_shadow",
                    "vs_shadow_extra",
                    "fs_shadow",
                    "vs_moon_shadow",
                    "vs_moon_shadow_extra",
                    "fs_moon_shadow",
                ],
            ),
            (ShaderName::Scene, &["vs_scene", "fs_scene"]),
            (
                ShaderName::SceneCompute,
                &[
                    "cs_scene_setup",
                    "cs_scene_bin_scan",
                    "cs_scene_bin_fill",
                    "cs_scene_raster",
                    "vs_scene_depth",
                    "fs_scene_depth",
                ],
            ),
            (
                ShaderName::Fog,
                &[
                    "vs_fog",
                    "fs_fog",
                    "vs_fog_with_uniforms",
                    "fs_fog_with_uniforms",
                ],
            ),
            (ShaderName::FogCompute, &["cs_fog", "cs_fog_half"]),
            (
                ShaderName::FogHalf,
                &["vs_full", "fs_half_depth", "fs_upsample"],
            ),
            (
                ShaderName::Flame,
                &[
                    "vs_flame",
                    "fs_flame",
                    "fs_flame_fog_per_pixel",
                    "fs_flame_edge_batch",
                    "fs_flame_edge_batch_fog_per_pixel",
                ],
            ),
            (
                ShaderName::Overlay,
                &["vs_sheet_lines", "vs_flow_lines", "fs_lines"],
            ),
            (ShaderName::Encode, &["vs_encode", "fs_encode", "cs_encode"]),
        ];
        for (shader, names) in expected {
            let module = naga::front::wgsl::parse_str(&shader.source())
                .unwrap_or_else(|e| panic!("{}: {e}", shader.name()));
            for name in names {
                assert!(
                    module.entry_points.iter().any(|ep| ep.name == *name),
                    "{} lacks entry point {name}",
                    shader.name()
                );
            }
        }
    }

    /// Each Rust uniform struct (or byte count of a WGSL struct) has the size naga computes for
    /// its WGSL twin, so a field added on one side only fails here instead of shading garbage.
    #[test]
    fn uniform_structs_match_their_wgsl_twins() {
        use std::mem::size_of;
        let twins: [(ShaderName, &str, usize); 18] = [
            (
                ShaderName::FogLattice,
                "FogLatticeBox",
                size_of::<crate::gpu::passes::fog_lattice::LatticeBox>(),
            ),
            (
                ShaderName::SceneCompute,
                "RasterKnobs",
                size_of::<crate::gpu::passes::scene_compute::RasterKnobs>(),
            ),
            (
                ShaderName::SceneCompute,
                "TileBin",
                crate::gpu::passes::scene_compute::TILE_BIN_BYTES as usize,
            ),
            (
                ShaderName::FireFlicker,
                "FiresNow",
                crate::gpu::passes::fire_flicker::FIRES_NOW_BYTES as usize,
            ),
            (
                ShaderName::Shadow,
                "LampLights",
                size_of::<crate::gpu::lamp_lights::LampLights>(),
            ),
            (
                ShaderName::Fog,
                "MoonShadow",
                size_of::<crate::gpu::moon_shadow::MoonShadow>(),
            ),
            (
                ShaderName::Fog,
                "LampLight",
                size_of::<crate::gpu::lamp_lights::LampLight>(),
            ),
            (
                ShaderName::Scene,
                "FrameUniforms",
                size_of::<crate::gpu::common::FrameUniforms>(),
            ),
            (
                ShaderName::Scene,
                "SceneKnobs",
                size_of::<crate::gpu::passes::scene::SceneKnobs>(),
            ),
            (
                ShaderName::Fog,
                "FogKnobs",
                size_of::<crate::gpu::passes::fog::FogKnobs>(),
            ),
            (
                ShaderName::FogCompute,
                "FogKnobs",
                size_of::<crate::gpu::passes::fog::FogKnobs>(),
            ),
            (
                ShaderName::FogCompute,
                "MarchKnobs",
                size_of::<crate::gpu::passes::fog_compute::MarchKnobs>(),
            ),
            (
                ShaderName::Overlay,
                "OverlayKnobs",
                size_of::<crate::gpu::passes::overlay::OverlayKnobs>(),
            ),
            (
                ShaderName::Overlay,
                "FrameUniforms",
                size_of::<crate::gpu::common::FrameUniforms>(),
            ),
            (
                ShaderName::Flame,
                "FireLight",
                size_of::<crate::gpu::fire_lights::FireLight>(),
            ),
            (
                ShaderName::Flame,
                "FireLights",
                size_of::<crate::gpu::fire_lights::FireLights>(),
            ),
            (
                ShaderName::Fog,
                "DistanceFogParams",
                size_of::<crate::gpu::distance_fog::DistanceFogParams>(),
            ),
            (
                ShaderName::Reflection,
                "ReflectionKnobs",
                size_of::<crate::gpu::passes::reflection::ReflectionKnobs>(),
            ),
        ];
        for (shader, struct_name, rust_size) in twins {
            let module = naga::front::wgsl::parse_str(&shader.source())
                .unwrap_or_else(|e| panic!("{}: {e}", shader.name()));
            let mut layouter = naga::proc::Layouter::default();
            layouter
                .update(module.to_ctx())
                .unwrap_or_else(|e| panic!("{}: {e}", shader.name()));
            let (handle, _) = module
                .types
                .iter()
                .find(|(_, ty)| ty.name.as_deref() == Some(struct_name))
                .unwrap_or_else(|| panic!("{} has no struct {struct_name}", shader.name()));
            assert_eq!(
                layouter[handle].size as usize,
                rust_size,
                "{struct_name} in {} differs in size from its Rust twin",
                shader.name()
            );
        }
    }
}
