//! The raster sheets drawn in groups (`passes/fog_groups.rs`, `FORCE_GROUPS`) against the
//! sheets one by one: the same fog within the rounding of the blend, from the scene's camera,
//! from one standing in the fog (groups on both sides of the eye, sheets near its height
//! alone), at half size and with the physical medium. The groups keep their bytes whatever the
//! fog's ceiling and the cut-off leave out, as the sheets one by one do.

use super::*;
use crate::gpu::passes::fog_cutoff::FORCE_NO_CUTOFF;
use crate::gpu::passes::fog_groups::FORCE_GROUPS;
use crate::playback::Playback;
use crate::scene::{Camera, FixedCamera};

/// `scene`'s frame `frame` on the raster compositor at `size`, drawn in groups (`grouped`) or
/// one by one.
fn rendered(ctx: &GpuContext, scene: &Scene, frame: u32, size: (u32, u32), grouped: bool) -> Frame {
    let mut playback = Playback::new(scene);
    let state = playback.advance_to(frame, || {});
    let inputs = playback.frame_inputs(&state);
    let config = fog_config(size, Compositor::Raster, Readback::default());
    FORCE_GROUPS.set(Some(grouped));
    let frame = render_once(ctx, scene, &config, &inputs);
    FORCE_GROUPS.set(None);
    frame
}

/// The mean difference between two frames' colour channels, levels.
fn mean_difference(a: &Frame, b: &Frame) -> f64 {
    let (sum, count) = a
        .rgba8
        .chunks_exact(4)
        .zip(b.rgba8.chunks_exact(4))
        .flat_map(|(p, q)| p[..3].iter().zip(&q[..3]))
        .fold((0u64, 0u64), |(sum, count), (x, y)| {
            (sum + u64::from(x.abs_diff(*y)), count + 1)
        });
    sum as f64 / count.max(1) as f64
}

/// The temple's frame 150 seen from the scene's camera (every sheet below the eye) and from
/// one standing in the fog, at full and half size, and the moonlit scene: a few levels at most
/// where the sheets' sum is rounded differently, a tenth of a level on average.
#[test]
fn groups_draw_the_sheets_fog() {
    let Some(ctx) = context() else { return };
    let mut temple = shipped_temple();
    temple.fluid.grid = 48;
    temple.output.samples = Some(1);
    let mut standing = temple.clone();
    standing.camera = Camera::Fixed(FixedCamera {
        position: [-9.5, 0.35, 10.5],
        target: [2.0, 0.6, -3.0],
        fov_y_deg: 70.0,
    });
    let mut half = temple.clone();
    half.output.fog_resolution = crate::scene::FogResolution::Half;
    let mut moonlit = crate::scene::load(Some(std::path::Path::new("scenes/moonlit.ron")), &[])
        .unwrap_or_else(|e| panic!("scenes/moonlit.ron does not load: {e:?}"))
        .scene;
    moonlit.fluid.grid = 48;
    moonlit.output.samples = Some(1);
    for (name, scene) in [
        ("temple", &temple),
        ("standing in the fog", &standing),
        ("half size", &half),
        ("moonlit", &moonlit),
    ] {
        let one_by_one = rendered(&ctx, scene, 150, (192, 108), false);
        let grouped = rendered(&ctx, scene, 150, (192, 108), true);
        let (largest, mean) = (
            max_difference(&grouped, &one_by_one),
            mean_difference(&grouped, &one_by_one),
        );
        eprintln!("{name}: the groups differ by {largest} at most, {mean:.3} on average");
        assert!(distinct_pixels(&one_by_one) > 200, "{name}: a flat frame");
        // Within `fogbank compare`'s default bound of 8 levels.
        assert!(
            largest <= 8 && mean < 0.15,
            "{name}: {largest} at most, {mean:.3} on average"
        );
    }
}

/// Groups drawn over the sheets' footprint, under the fog's ceiling and against the cut-off
/// give the bytes of every group drawn whole: what they leave out adds nothing.
#[test]
fn groups_keep_their_bytes_whatever_is_left_out() {
    let Some(ctx) = context() else { return };
    let mut scene = shipped_temple();
    scene.fluid.grid = 48;
    scene.output.samples = Some(1);
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(200, || {});
    let inputs = playback.frame_inputs(&state);
    FORCE_GROUPS.set(Some(true));
    let mut cut = renderer_with(&ctx, &scene, 160, 90, View::Fog, Compositor::Raster);
    let drawn = render(&mut cut, &inputs);
    let mut every = renderer_with(&ctx, &scene, 160, 90, View::Fog, Compositor::Raster);
    every.set_every_sheet(true);
    let whole = render(&mut every, &inputs);
    FORCE_NO_CUTOFF.set(true);
    let uncut = render(
        &mut renderer_with(&ctx, &scene, 160, 90, View::Fog, Compositor::Raster),
        &inputs,
    );
    FORCE_NO_CUTOFF.set(false);
    FORCE_GROUPS.set(None);
    assert!(
        cut.fog_sheets_drawn() < scene.fog.sheets,
        "no sheet left out"
    );
    assert!(
        drawn.rgba8 == whole.rgba8,
        "the ceiling and footprint moved bytes"
    );
    assert!(drawn.rgba8 == uncut.rgba8, "the cut-off moved bytes");
}
