//! The fog's noise read from the `fog_lattice` pass's lattice against the noise hashed per
//! sample (`FORCE_LATTICE`, whatever the adapter would choose): on lavapipe the same bytes with every compositor, the flames' fog included,
//! from the scene's camera and from one standing in the fog, with the wind having carried the
//! noise far from where it started.

use super::*;
use crate::gpu::passes::fog_lattice::FORCE_LATTICE;
use crate::playback::Playback;
use crate::scene::{Camera, FixedCamera};

/// The frame rendered for `config` by a renderer that reads the lattice, and by one that
/// hashes the noise per sample.
fn with_and_without_lattice(
    ctx: &GpuContext,
    scene: &Scene,
    config: &RenderConfig,
    inputs: &FrameInputs<'_>,
) -> (Frame, Frame) {
    let made = |reads| {
        FORCE_LATTICE.set(Some(reads));
        let made = Renderer::new(ctx, scene, config);
        FORCE_LATTICE.set(None);
        made.unwrap_or_else(|e| panic!("renderer: {e}"))
    };
    let mut lattice = made(true);
    assert!(lattice.frame.fog_noise_lattice);
    let mut hashing = made(false);
    assert!(!hashing.frame.fog_noise_lattice);
    (render(&mut lattice, inputs), render(&mut hashing, inputs))
}

#[test]
fn the_lattice_gives_the_hashed_noise_bytes() {
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
            let differing = lattice
                .rgba8
                .chunks_exact(4)
                .zip(hashed.rgba8.chunks_exact(4))
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(differing, 0, "{compositor:?} from {camera:?}");
            assert!(
                distinct_pixels(&lattice) > 200,
                "{compositor:?}: a flat frame"
            );
        }
    }
}
