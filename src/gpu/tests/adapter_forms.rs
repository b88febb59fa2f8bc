//! The fog's shaders in the forms a GPU takes (the noise read from the `fog_lattice` pass's
//! lattice, the fires' glow in one plain loop) against those a CPU adapter takes (the noise
//! hashed per sample, the glow by the in-range bits), whatever the adapter
//! (`FORCE_DEVICE_TYPE`): on lavapipe the same bytes with every compositor, the flames' fog included,
//! from the scene's camera and from one standing in the fog, with the wind having carried the
//! noise far from where it started.

use super::*;
use crate::gpu::common::FORCE_DEVICE_TYPE;
use crate::playback::Playback;
use crate::scene::{Camera, FixedCamera};

/// The frame rendered for `config` by a renderer in a GPU's forms, and by one in a CPU
/// adapter's.
fn with_and_without_lattice(
    ctx: &GpuContext,
    scene: &Scene,
    config: &RenderConfig,
    inputs: &FrameInputs<'_>,
) -> (Frame, Frame) {
    let made = |device_type| {
        FORCE_DEVICE_TYPE.set(Some(device_type));
        let made = Renderer::new(ctx, scene, config);
        FORCE_DEVICE_TYPE.set(None);
        made.unwrap_or_else(|e| panic!("renderer: {e}"))
    };
    let mut lattice = made(wgpu::DeviceType::DiscreteGpu);
    assert!(lattice.frame.fog_noise_lattice && !lattice.frame.fire_glow_by_mask);
    let mut hashing = made(wgpu::DeviceType::Cpu);
    assert!(!hashing.frame.fog_noise_lattice && hashing.frame.fire_glow_by_mask);
    (render(&mut lattice, inputs), render(&mut hashing, inputs))
}

#[test]
fn the_gpu_forms_give_the_cpu_forms_bytes() {
    let Some(ctx) = context() else { return };
    let mut scene = Scene::default();
    scene.fluid.grid = 48;
    // Far along by frame 150: 2.5 s of a strong wind, across lattice cells of every octave.
    scene.fog.wind = [23.0, 0.6, -17.0];
    let low = Camera::Fixed(FixedCamera {
        position: [-9.5, 0.35, 10.5],
        target: [2.0, 0.6, -3.0],
        fov_y_deg: 70.0,
    });
    let compositors = [
        Compositor::Raster,
        Compositor::Compute,
        Compositor::Raymarch { steps: 48 },
    ];
    for camera in [scene.camera.clone(), low] {
        let scene = Scene {
            camera: camera.clone(),
            ..scene.clone()
        };
        let mut playback = Playback::new(&scene);
        let state = playback.advance_to(150, || {});
        let inputs = playback.frame_inputs(&state);
        // The fluid has moved the fog and thrown it up: drift and lift reach into the
        // lattice's margins.
        assert!(inputs.lift_map.chunks_exact(4).any(|texel| texel[0] > 0));
        assert!(
            inputs
                .fluid_map
                .chunks_exact(4)
                .any(|texel| texel[1] != 128)
        );
        for compositor in compositors {
            let config = fog_config((96, 54), compositor, Readback::default());
            let (lattice, hashed) = with_and_without_lattice(&ctx, &scene, &config, &inputs);
            let differing = pixels_differing(&lattice, &hashed);
            assert_eq!(differing, 0, "{compositor:?} from {camera:?}");
            assert!(
                distinct_pixels(&lattice) > 200,
                "{compositor:?}: a flat frame"
            );
        }
    }
}
