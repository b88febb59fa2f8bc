//! The raster sheets' cut-off depth (`passes/fog_cutoff.rs`) skips only fragments that show no
//! fog: the picture is the same, byte for byte, with it and without it.

use super::*;
use crate::gpu::passes::fog_cutoff::FORCE_NO_CUTOFF;
use crate::playback::Playback;

/// `scene`'s frame `frame` on the raster compositor, with and without the cut-off.
fn with_and_without(ctx: &GpuContext, scene: &Scene, frame: u32) -> (Frame, Frame) {
    let mut playback = Playback::new(scene);
    let state = playback.advance_to(frame, || {});
    let inputs = playback.frame_inputs(&state);
    let config = fog_config((256, 144), Compositor::Raster, Readback::default());
    let with = render_once(ctx, scene, &config, &inputs);
    FORCE_NO_CUTOFF.set(true);
    let without = render_once(ctx, scene, &config, &inputs);
    FORCE_NO_CUTOFF.set(false);
    (with, without)
}

/// The temple with the seed medium at one sample and at the default's edge samples, and the
/// moonlit scene's physical medium, whose flat rays count slabs four times as long.
#[test]
fn the_cutoff_leaves_the_picture_as_it_was() {
    let Some(ctx) = context() else { return };
    let mut temple = shipped_temple();
    temple.fluid.grid = 48;
    let moonlit = crate::scene::load(Some(std::path::Path::new("scenes/moonlit.ron")), &[])
        .unwrap_or_else(|e| panic!("scenes/moonlit.ron does not load: {e:?}"))
        .scene;
    let mut single = temple.clone();
    single.output.samples = Some(1);
    for (name, scene, frame) in [
        ("temple, one sample", &single, 200),
        ("temple, the default", &temple, 60),
        ("moonlit", &moonlit, 200),
    ] {
        let (with, without) = with_and_without(&ctx, scene, frame);
        assert!(
            with.rgba8 == without.rgba8,
            "{name}: the cut-off changed {} pixels, by up to {} levels",
            pixels_differing(&with, &without),
            max_difference(&with, &without)
        );
    }
}
