//! GPU tests of the compositing outputs (`render --format exr --layers`): the linear target
//! read back as half floats is the picture the 8-bit frame encodes, and the fog layer is a
//! premultiplied layer that, put over the picture rendered without fog, gives back the frame,
//! with either compositor (the compute compositor writes the layer from its own march), and the
//! two compositors' layers agree.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, floats, fog_config, inputs, render, renderer_for, seen_from};
use crate::color::linear_to_srgb8;
use crate::frame::{CameraPose, Frame};
use crate::gpu::{Compositor, GpuContext, Readback};
use crate::output::exr::f16_bits_to_f32;
use crate::scene::{Fire, FireKind, Scene};

/// Both linear pictures back, the fog layer included (and the weather layer, which a scene
/// without weather does not have).
const BOTH: Readback = Readback {
    linear_f16: true,
    fog_layer_f16: true,
    weather_layer_f16: true,
};

fn render_with(
    ctx: &GpuContext,
    scene: &Scene,
    size: (u32, u32),
    readback: Readback,
    maps: &(Vec<u8>, Vec<u8>),
    camera: Option<CameraPose>,
) -> Frame {
    render_by(ctx, Compositor::Raster, scene, size, readback, maps, camera)
}

fn render_by(
    ctx: &GpuContext,
    compositor: Compositor,
    scene: &Scene,
    size: (u32, u32),
    readback: Readback,
    maps: &(Vec<u8>, Vec<u8>),
    camera: Option<CameraPose>,
) -> Frame {
    let mut renderer = renderer_for(ctx, scene, &fog_config(size, compositor, readback));
    assert_eq!(renderer.compositor(), compositor);
    let at = match camera {
        Some(camera) => seen_from(scene, maps, 30, camera),
        None => inputs(scene, maps, 30),
    };
    render(&mut renderer, &at)
}

/// `layer` (premultiplied) over `under` (opaque), per channel: `layer + under × (1 − αlayer)`.
fn over(layer: &[f32], under: &[f32]) -> Vec<f32> {
    layer
        .chunks_exact(4)
        .zip(under.chunks_exact(4))
        .flat_map(|(l, u)| {
            let keep = 1.0 - l[3];
            [
                l[0] + u[0] * keep,
                l[1] + u[1] * keep,
                l[2] + u[2] * keep,
                l[3] + u[3] * keep,
            ]
        })
        .collect()
}

/// The hall without fog: the same scene with the fog's extinction at zero, so every sheet is
/// fully transparent and blends to exactly what was under it.
fn fogless(scene: &Scene) -> Scene {
    let mut clear = scene.clone();
    clear.fog.sigma = 0.0;
    clear
}

/// The largest `|a − b|` relative to `max(1, |b|)` over the RGB channels, and where.
fn worst_rgb_difference(a: &[f32], b: &[f32]) -> (f32, usize) {
    let mut worst = (0.0f32, 0);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if i % 4 == 3 {
            continue;
        }
        let d = (x - y).abs() / y.abs().max(1.0);
        if d > worst.0 {
            worst = (d, i / 4);
        }
    }
    worst
}

/// Both `encode` passes — the raster one through the sRGB target and the compute one (with a
/// per-pixel compositor) applying the curve itself — give the 8-bit picture of the linear one.
#[test]
fn linear_readback_is_the_picture_the_srgb_frame_encodes() {
    let Some(ctx) = context() else { return };
    for compositor in [Compositor::Raster, Compositor::Compute] {
        linear_readback_encodes_to_the_frame(&ctx, compositor);
    }
}

fn linear_readback_encodes_to_the_frame(ctx: &GpuContext, compositor: Compositor) {
    let scene = single_sample(Scene::default());
    let maps = flat_maps(&scene, 1.0);
    // 33 pixels: 264 bytes a half-float row, padded to 512 in the staging buffer.
    let size = (33, 17);
    let plain = render_by(
        ctx,
        compositor,
        &scene,
        size,
        Readback::default(),
        &maps,
        None,
    );
    let frame = render_by(ctx, compositor, &scene, size, BOTH, &maps, None);
    assert_eq!(
        (plain.linear_f16.as_ref(), plain.fog_f16.as_ref()),
        (None, None)
    );
    assert!(
        plain.rgba8 == frame.rgba8,
        "reading the linear pictures back changed the 8-bit frame"
    );

    let linear = frame.linear_f16.as_deref().expect("the linear picture");
    assert_eq!(linear.len(), 33 * 17 * 4);
    for (i, (pixel, srgb)) in linear
        .chunks_exact(4)
        .zip(frame.rgba8.chunks_exact(4))
        .enumerate()
    {
        // The picture is opaque: alpha is exactly 1.0 (0x3C00), written unchanged.
        assert_eq!(pixel[3], 0x3C00, "alpha of pixel {i}");
        for channel in 0..3 {
            let expected = linear_to_srgb8(f16_bits_to_f32(pixel[channel]));
            // One level: the GPU's sRGB store may round the other way at a level boundary.
            assert!(
                expected.abs_diff(srgb[channel]) <= 1,
                "{compositor:?}: pixel {i} (x {}, y {}) channel {channel}: linear {} encodes \
                 to {expected}, the frame has {}",
                i % 33,
                i / 33,
                f16_bits_to_f32(pixel[channel]),
                srgb[channel]
            );
        }
    }
}

/// The fog layer over the hall rendered without fog is the frame: `fs_fog` premultiplies and
/// the blend is premultiplied "over" in colour and alpha, and "over" is associative, so
/// `(sheets over transparent) over hall` = `sheets over hall`.
///
/// Tolerance: the two sides round differently to half floats. The frame rounds the hall-plus-
/// sheets sum after each of the 48 sheets; the layer rounds the sheets-only sum after each,
/// and the composite here is done in `f32` from the two rounded pictures. Half floats carry 11
/// significant bits (relative step 2⁻¹⁰ ≈ 9.8e-4), each rounding is off by at most half a step,
/// and the sums are below 1 here, so 48 sheets bound the drift by about 48 × 4.9e-4 ≈ 0.023 in
/// the worst case; in practice errors cancel and the measured worst is far smaller (see the
/// assertion message). 0.01 relative (to `max(1, value)`) is about 2.5 8-bit levels at the top
/// of the range and still catches a missing depth test (the fog would cover the pillars: a
/// difference of tenths) or a straight-alpha layer (off by a factor α).
#[test]
fn fog_layer_over_the_fogless_picture_gives_back_the_frame() {
    let Some(ctx) = context() else { return };
    assert_layer_gives_back_the_frame(&ctx, Compositor::Raster);
}

/// As [`fog_layer_over_the_fogless_picture_gives_back_the_frame`], with the compute compositor,
/// whose march writes the layer: its premultiplied sum and 1 − transmittance over the fogless
/// hall are what the march puts over the scene, so the composite is the compute frame. Here
/// both sides round once (the frame's sum and the layer's sum are each rounded to half floats
/// once), so the composite is far closer than the raster one; the same bound holds.
#[test]
fn compute_fog_layer_over_the_fogless_picture_gives_back_the_compute_frame() {
    let Some(ctx) = context() else { return };
    assert_layer_gives_back_the_frame(&ctx, Compositor::Compute);
    // Writing the layer leaves the compute frame as it was without it, byte for byte.
    let scene = single_sample(Scene::default());
    let maps = flat_maps(&scene, 1.0);
    let size = (96, 54);
    let plain = render_by(
        &ctx,
        Compositor::Compute,
        &scene,
        size,
        Readback::default(),
        &maps,
        None,
    );
    let with_layer = render_by(&ctx, Compositor::Compute, &scene, size, BOTH, &maps, None);
    assert_eq!(plain.fog_f16, None);
    assert!(
        plain.rgba8 == with_layer.rgba8,
        "writing the fog layer changed the compute compositor's 8-bit frame"
    );
}

/// The fog layer of `compositor`'s render of the default scene is premultiplied, empty without
/// fog, and over the fogless hall gives back that compositor's frame.
fn assert_layer_gives_back_the_frame(ctx: &GpuContext, compositor: Compositor) {
    let scene = Scene::default();
    assert!(
        scene.fires.is_empty(),
        "this test needs a scene without flames"
    );
    let maps = flat_maps(&scene, 1.0);
    let size = (96, 54);
    let frame = render_by(ctx, compositor, &scene, size, BOTH, &maps, None);
    let hall = render_by(ctx, compositor, &fogless(&scene), size, BOTH, &maps, None);

    let beauty = floats(frame.linear_f16.as_deref().expect("the linear picture"));
    let layer = floats(frame.fog_f16.as_deref().expect("the fog layer"));
    let under = floats(hall.linear_f16.as_deref().expect("the linear picture"));
    let hall_layer = floats(hall.fog_f16.as_deref().expect("the fog layer"));

    // Without fog the layer is empty: transparent black everywhere, bit for bit.
    assert!(
        hall.fog_f16
            .iter()
            .flatten()
            .all(|&b| b == 0 || b == 0x8000),
        "the fog layer of a fogless hall is not transparent black"
    );
    assert!(hall_layer.iter().all(|&v| v == 0.0));

    // The layer holds fog (some pixels well covered), some pixels are uncovered (pillars,
    // the ball, the hall outside the fog's square), and it is premultiplied: no colour
    // channel above its alpha beyond rounding (this fog's colour is at most 1 without fires).
    let alphas: Vec<f32> = layer.chunks_exact(4).map(|p| p[3]).collect();
    let covered = alphas.iter().filter(|&&a| a > 0.5).count();
    let empty = alphas.iter().filter(|&&a| a == 0.0).count();
    assert!(covered > alphas.len() / 10, "only {covered} pixels are fog");
    assert!(empty > 0, "the fog covers every pixel: no cut-outs");
    for (i, p) in layer.chunks_exact(4).enumerate() {
        assert!(
            (0..3).all(|c| p[c] <= p[3] + 2e-3) && (0.0..=1.0).contains(&p[3]),
            "pixel {i} is not premultiplied: {p:?}"
        );
    }

    let composite = over(&layer, &under);
    let (worst, at) = worst_rgb_difference(&composite, &beauty);
    let name = compositor.name();
    assert!(
        worst < 0.01,
        "{name}: layer over the fogless hall differs from the frame by {worst} at pixel {at} \
         (x {}, y {}): composite {:?}, frame {:?}",
        at % 96,
        at / 96,
        &composite[at * 4..at * 4 + 4],
        &beauty[at * 4..at * 4 + 4]
    );
    eprintln!("{name} fog layer composite: worst relative difference {worst:.2e}");
    // Sanity: the composite is not trivially the hall (the fog changes the picture).
    let (fog_effect, _) = worst_rgb_difference(&under, &beauty);
    assert!(fog_effect > 0.1, "the fog hardly changes the frame");
}

/// With flames the composite differs from the frame in one known way: the frame adds the
/// flames after the fog (over it), the composite has them under the fog layer, dimmed by its
/// coverage. So the composite is never brighter than the frame (beyond rounding), and is
/// darker only where a flame is behind fog.
#[test]
fn with_flames_the_composite_is_the_frame_less_the_fogged_flame() {
    let Some(ctx) = context() else { return };
    let scene = Scene {
        fires: vec![Fire {
            kind: FireKind::Brazier,
            position: [0.0, 0.0, 2.0],
            flame_height: 1.2,
            phase_rad: Some(0.0),
            ..Fire::default()
        }],
        ..Scene::default()
    };
    let maps = flat_maps(&scene, 1.0);
    // Low over the fog, looking at the fire through it.
    let camera = CameraPose {
        eye_world: [0.0, 0.8, 7.0],
        target_world: [0.0, 0.6, 2.0],
        fov_y_deg: 50.0,
    };
    let size = (64, 48);
    let frame = render_with(&ctx, &scene, size, BOTH, &maps, Some(camera));
    let hall = render_with(&ctx, &fogless(&scene), size, BOTH, &maps, Some(camera));
    let beauty = floats(frame.linear_f16.as_deref().expect("the linear picture"));
    let layer = floats(frame.fog_f16.as_deref().expect("the fog layer"));
    let under = floats(hall.linear_f16.as_deref().expect("the linear picture"));
    let composite = over(&layer, &under);

    let mut dimmed = 0;
    for (i, (c, b)) in composite.iter().zip(&beauty).enumerate() {
        if i % 4 == 3 {
            continue;
        }
        assert!(
            *c <= b + 0.01 * b.abs().max(1.0),
            "pixel {} channel {}: the composite {c} is brighter than the frame {b}",
            i / 4,
            i % 4
        );
        if b - c > 0.02 {
            dimmed += 1;
        }
    }
    eprintln!("flames dimmed by the fog layer in the composite: {dimmed} channels");
    assert!(
        dimmed > 0,
        "no flame is dimmed by the fog: the test no longer looks through fog at a fire"
    );
}

/// The compute compositor's fog layer is the raster one, up to how the two sum the sheets.
///
/// Tolerance: the raster layer rounds its running sum to half floats after each of the 48
/// sheets it blends (each rounding up to 2⁻¹¹ relative, about 4.9e-4 for values below 1), the
/// compute layer sums in `f32` and rounds once; the compute march also stops once the
/// transmittance is under 1/512, which leaves its alpha (and colour) up to 1/512 ≈ 2e-3 short
/// where the fog is opaque. Together these stay well under 0.01 per channel. Apart from that,
/// a pixel where a sheet meets a pillar (or the ball, or the floor) can take one sheet more or
/// less in one compositor than the other: the rasteriser tests the depth it interpolates across
/// the quad, the march the depth of the point it computes along the ray. Those pixels are
/// isolated: at most 1 % of the picture, each with a neighbour whose layer alpha differs from
/// its own by more than the tolerance (they sit on an edge of the layer). A missing depth test,
/// a straight-alpha layer or a layer left uncleared would break the per-channel bound over
/// large areas, not a few edge pixels.
#[test]
fn compute_fog_layer_matches_the_raster_layer() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    let (width, height) = (96, 54);
    let size = (width, height);
    let raster = render_by(&ctx, Compositor::Raster, &scene, size, BOTH, &maps, None);
    let compute = render_by(&ctx, Compositor::Compute, &scene, size, BOTH, &maps, None);
    let raster_layer = floats(raster.fog_f16.as_deref().expect("the raster fog layer"));
    let compute_layer = floats(compute.fog_f16.as_deref().expect("the compute fog layer"));
    assert_eq!(compute_layer.len(), (width * height * 4) as usize);

    // Some fog in the layer, so the agreement cannot come from two empty layers.
    let covered = compute_layer.chunks_exact(4).filter(|p| p[3] > 0.5).count();
    assert!(
        covered > compute_layer.len() / 40,
        "only {covered} pixels of the compute layer are fog"
    );

    const TOLERANCE: f32 = 0.01;
    let alpha_at = |x: i64, y: i64| compute_layer[((y * i64::from(width) + x) * 4 + 3) as usize];
    let mut outliers = Vec::new();
    let mut worst_inside = 0.0f32;
    for (i, (c, r)) in compute_layer
        .chunks_exact(4)
        .zip(raster_layer.chunks_exact(4))
        .enumerate()
    {
        let diff = (0..4).map(|k| (c[k] - r[k]).abs()).fold(0.0f32, f32::max);
        if diff <= TOLERANCE {
            worst_inside = worst_inside.max(diff);
            continue;
        }
        let (x, y) = ((i as u32 % width) as i64, (i as u32 / width) as i64);
        let on_edge = (-1..=1i64).any(|dy| {
            (-1..=1i64).any(|dx| {
                let (nx, ny) = (x + dx, y + dy);
                (0..i64::from(width)).contains(&nx)
                    && (0..i64::from(height)).contains(&ny)
                    && (alpha_at(nx, ny) - c[3]).abs() > TOLERANCE
            })
        });
        assert!(
            on_edge,
            "pixel (x {x}, y {y}) differs by {diff} (compute {c:?}, raster {r:?}) away from \
             any edge of the layer"
        );
        outliers.push((x, y, diff));
    }
    eprintln!(
        "compute vs raster fog layer: worst {worst_inside:.2e} within tolerance, {} edge \
         pixels over it: {outliers:?}",
        outliers.len()
    );
    assert!(
        outliers.len() <= (width * height) as usize / 100,
        "{} pixels differ by more than {TOLERANCE}: {outliers:?}",
        outliers.len()
    );
}

/// Without fog (`fog.sigma = 0`) the compute compositor's layer is transparent black, bit for
/// bit, and the layer is cleared every frame: a foggy frame rendered first leaves nothing
/// behind in the next, fogless one.
#[test]
fn compute_fog_layer_is_empty_without_fog() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let size = (40, 24);
    let fog_maps = flat_maps(&scene, 1.0);
    let clear_maps = flat_maps(&scene, 0.0);
    let hall = render_by(
        &ctx,
        Compositor::Compute,
        &fogless(&scene),
        size,
        BOTH,
        &fog_maps,
        None,
    );
    let layer = hall.fog_f16.as_deref().expect("the fog layer");
    assert_eq!(layer.len(), 40 * 24 * 4);
    assert!(
        layer.iter().all(|&b| b == 0 || b == 0x8000),
        "the compute fog layer of a fogless hall is not transparent black"
    );

    // Same renderer: foggy, then a fog map with no fog anywhere.
    let mut renderer = renderer_for(&ctx, &scene, &fog_config(size, Compositor::Compute, BOTH));
    let foggy = render(&mut renderer, &inputs(&scene, &fog_maps, 30));
    let foggy_layer = floats(foggy.fog_f16.as_deref().expect("the fog layer"));
    assert!(
        foggy_layer.chunks_exact(4).any(|p| p[3] > 0.5),
        "the foggy frame's layer holds no fog"
    );
    let clear = render(&mut renderer, &inputs(&scene, &clear_maps, 30));
    let clear_layer = clear.fog_f16.as_deref().expect("the fog layer");
    assert!(
        clear_layer.iter().all(|&b| b == 0 || b == 0x8000),
        "the fog of the previous frame stayed in the compute fog layer"
    );
}

/// `scene` drawn with one sample a pixel: the layers' pictures are single-sample ones, and
/// the frames they are compared with must be too.
pub(super) fn single_sample(mut scene: Scene) -> Scene {
    scene.output.samples = Some(1);
    scene
}
