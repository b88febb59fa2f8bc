//! The passes that draw the picture's hall and fog ([`PicturePasses`]), built while the
//! flames' pass is built on a thread of its own.
//!
//! A CPU adapter (lavapipe) compiles each pipeline as it is created, for a tenth of a second
//! or more: the flames' three pipelines and the hall's and the fog's took most of a render's
//! start. Built side by side, they cost the longer of the two. wgpu's error scopes are per
//! thread, so each thread catches its own pipelines' errors.

use crate::gpu::GpuError;
use crate::gpu::capsule_geometry::CapsuleMesh;
use crate::gpu::passes::builder::PassContext;
use crate::gpu::passes::flame::FlamePass;
use crate::gpu::passes::fog::FogPass;
use crate::gpu::passes::fog_compute::{Compositor, FogComputePass, Marched};
use crate::gpu::passes::fog_half::FogHalf;
use crate::gpu::passes::fog_layer::{self, FogLayer};
use crate::gpu::passes::raymarch::raymarch_pass;
use crate::gpu::passes::scene::ScenePass;
use crate::gpu::readback::Readback;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::Gathering;
use crate::scene::FogResolution;

/// What decides which of the picture's passes are built.
#[derive(Debug, Clone, Copy)]
pub(super) struct PictureChoices {
    /// The compositor that runs on the adapter (`Auto` resolved).
    pub compositor: Compositor,
    pub gathering: Gathering,
    /// The fog's resolution for the adapter, as the scene asks it.
    pub resolution: FogResolution,
    pub readback: Readback,
}

/// The hall's pass, the walkers' capsules, and the fog's passes.
pub(super) struct PicturePasses {
    pub scene: ScenePass,
    pub capsules: Option<CapsuleMesh>,
    pub fog: FogPass,
    pub fog_layer: Option<FogLayer>,
    pub fog_compute: Option<FogComputePass>,
    /// The later edge samples' fog where `fog_compute` marches a half-size fog: the sheets
    /// marched at full size over the listed pixels ([`FogComputePass::for_edges`]).
    pub edge_fog: Option<FogComputePass>,
}

/// The picture's passes for `choices`, and the flames' pass for `fires` fires, built on a
/// thread of its own meanwhile.
pub(super) fn build_picture_passes(
    passes: &PassContext<'_>,
    choices: PictureChoices,
    fires: u32,
) -> Result<(PicturePasses, FlamePass), GpuError> {
    let flame_pass = || FlamePass::new(passes, choices.compositor, fires);
    let (flame, picture) = std::thread::scope(|threads| {
        // Where no thread can be started the flames are built here, after the rest.
        let flame = std::thread::Builder::new()
            .name("flame-pipelines".into())
            .spawn_scoped(threads, flame_pass);
        let picture = build(passes, choices);
        let flame = match flame {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => flame_pass(),
        };
        (flame, picture)
    });
    Ok((picture?, flame?))
}

/// The picture's passes for `choices`.
fn build(passes: &PassContext<'_>, choices: PictureChoices) -> Result<PicturePasses, GpuError> {
    let PictureChoices {
        compositor,
        gathering,
        resolution,
        readback,
    } = choices;
    let PassContext {
        device,
        errors,
        targets,
        scene,
        ..
    } = *passes;
    let scene_pass = ScenePass::new(passes)?;
    let capsules = (!scene.walkers.is_empty()).then(|| {
        let count = scene.walkers.len() * crate::people::CAPSULES_PER_WALKER;
        CapsuleMesh::new(device, count)
    });
    // The raster fog's sheets, as the pass `name`; at half size through `half`.
    let fog_pass = |name, half, cutoff| FogPass::new(passes, name, half, cutoff);
    let fog_half = |runs: bool| {
        let wanted = runs && !readback.fog_layer_f16;
        FogHalf::for_scene(device, errors, targets, resolution, wanted)
    };
    let raster = compositor == Compositor::Raster;
    // The raster compositor's sheets skip what lies past their cut-off (`fog_cutoff.rs`).
    let fog = fog_pass(ShaderName::Fog.name(), fog_half(raster)?, raster)?;
    // The fog layer: drawn by a raster pass of its own, or written by the `fog_compute` pass,
    // which then needs no second pass.
    let (width, height) = (targets.output.width(), targets.output.height());
    let fog_layer = match readback.fog_layer_f16 {
        true => {
            let layer_fog = (!compositor.is_per_pixel())
                .then(|| fog_pass(fog_layer::NAME, None, false))
                .transpose()?;
            Some(FogLayer::new(device, layer_fog, width, height))
        }
        false => None,
    };
    // The per-pixel passes: the sheets (`fog_compute`) or the continuous fog (`raymarch`).
    let fog_layer_view = fog_layer.as_ref().map(|layer| &layer.view);
    let fog_compute = match compositor {
        Compositor::Compute => Some(FogComputePass::new(
            passes,
            fog_layer_view,
            Marched::Sheets,
            fog_half(true)?,
        )?),
        Compositor::Raymarch { steps } => Some(raymarch_pass(passes, fog_layer_view, steps)?),
        // The raster path's later edge samples march the sheets over the listed pixels at an
        // edge: rasterising every sheet to shade a few pixels costs a CPU adapter several
        // times more (`passes/edges.rs`). With a half-size fog they march it at full size.
        Compositor::Raster if gathering == Gathering::Edges => {
            Some(FogComputePass::for_edges(passes)?)
        }
        _ => None,
    };
    // The compute compositor's half-size march reads the half-size depth: its edges' fog is
    // marched at full size by a pass of its own.
    let half_compute = fog_compute.as_ref().is_some_and(FogComputePass::is_half);
    let edge_fog = (half_compute && gathering == Gathering::Edges)
        .then(|| FogComputePass::for_edges(passes))
        .transpose()?;
    Ok(PicturePasses {
        scene: scene_pass,
        capsules,
        fog,
        fog_layer,
        fog_compute,
        edge_fog,
    })
}
