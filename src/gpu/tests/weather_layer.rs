//! GPU tests of the weather layer (`render --format exr --layers` on a scene with weather,
//! `passes/weather_layer.rs`): the rain and the bolt alone, premultiplied, transparent black
//! exactly where the picture shows neither, covering every pixel they change in the picture,
//! hidden behind the hall where the picture hides them, the rain's part composited back over
//! the picture without rain; a scene without weather gets no layer, and asking for the layer
//! leaves the picture's bytes as they were. Debris shows in a strong wind, where the CPU twin
//! puts it, and not below the wind it needs.
//!
//! Each frame is rendered twice with the same weather but for the rain, the debris and the
//! bolt (the same gloom, flash, fog light and wind), so the only difference in the picture is
//! what the layer should hold.

use super::{
    clear_weather, context, flat_maps, floats, fog_config, render, renderer_for, screen_of,
    seen_from,
};
use crate::frame::{CameraPose, Frame, FrameInputs, WeatherFrame};
use crate::gpu::passes::bolt::CORE_LINEAR;
use crate::gpu::{Compositor, GpuContext, Readback, Renderer};
use crate::output::exr::f16_bits_to_f32;
use crate::scene::{Scene, Weather};
use crate::weather::debris::{DEBRIS_CALM_WORLD_PER_S, DEBRIS_MAX, debris_at};

/// The picture and the weather layer back.
const LAYERS: Readback = Readback {
    linear_f16: true,
    fog_layer_f16: false,
    weather_layer_f16: true,
};

/// Large enough that the bolt (7 pixels wide at 720 rows) is a pixel wide.
const SIZE: (u32, u32) = (192, 108);

/// The frame every test renders: half a second in.
const FRAME: u32 = 30;

/// The temple with a `weather` section (its sky does not matter: the weather of each frame
/// is given).
fn stormy_scene() -> Scene {
    Scene {
        weather: Some(Weather::default()),
        ..Scene::default()
    }
}

/// A frame's weather: `rain` (0..=1), the wind along x (units/s; debris from 6 on) and, with
/// `bolt`, a strike 0.05 s before the frame. Dry, no flash: no reflection pass, the same
/// ambient whatever the rain.
fn weather(rain: f32, wind_world_per_s: f32, bolt: bool) -> WeatherFrame {
    let time_s = FRAME as f64 / 60.0;
    WeatherFrame {
        fog_density: 0.012,
        gloom: 0.3,
        rain,
        wind_world_per_s: [wind_world_per_s, 0.0],
        drift_world: [0.4, 0.1],
        last_strike: bolt.then_some((1, time_s - 0.05)),
        ..clear_weather()
    }
}

fn renderer(ctx: &GpuContext, scene: &Scene, readback: Readback) -> Renderer {
    renderer_for(ctx, scene, &fog_config(SIZE, Compositor::Raster, readback))
}

/// scenes/storm.ron's view of the hall: low, looking across it at the sky over its back,
/// where the bolts come down.
const STORM_CAMERA: CameraPose = CameraPose {
    eye_world: [0.0, 4.8, 12.5],
    target_world: [0.0, 1.4, -4.0],
    fov_y_deg: 55.0,
};

/// The frame's inputs, seen from [`STORM_CAMERA`].
fn storm_inputs<'a>(
    scene: &Scene,
    maps: &'a (Vec<u8>, Vec<u8>),
    weather: Option<WeatherFrame>,
) -> FrameInputs<'a> {
    FrameInputs {
        weather,
        ..seen_from(scene, maps, FRAME, STORM_CAMERA)
    }
}

/// The layer's pixels are premultiplied: alpha in 0..=1, colour in 0..=alpha × the brightest
/// thing the weather draws (the bolt's core at full brightness; the rain is far dimmer).
/// Half-float rounding of colour and alpha allowed for.
fn assert_premultiplied(layer: &[f32], what: &str) {
    let brightest = CORE_LINEAR.iter().copied().fold(0.0f32, f32::max);
    for (i, p) in layer.chunks_exact(4).enumerate() {
        let alpha = p[3];
        assert!(
            (0.0..=1.0).contains(&alpha)
                && p[..3]
                    .iter()
                    .all(|&c| c >= 0.0 && c <= alpha * brightest * 1.002 + 1e-4),
            "{what}: pixel {i} is not premultiplied: {p:?}"
        );
    }
}

/// The weather layer of `weathered` against the picture `bare` rendered with the same weather
/// but without rain, debris or bolt: transparent black (every half zero) exactly where the
/// picture is unchanged, covering (alpha above 0) every pixel the picture changes, and where
/// it is more than faintly opaque, the picture changed (a drop behind a pillar is in neither).
/// Returns the pixels covered.
fn assert_layer_holds_what_changed(weathered: &Frame, bare: &Frame, what: &str) -> usize {
    let bits = weathered.weather_f16.as_deref().expect("the weather layer");
    let picture = weathered.linear_f16.as_deref().expect("the picture");
    let before = bare
        .linear_f16
        .as_deref()
        .expect("the picture without weather");
    let layer = floats(bits);
    assert_premultiplied(&layer, what);
    let mut covered = 0;
    for (i, ((l, p), b)) in bits
        .chunks_exact(4)
        .zip(picture.chunks_exact(4))
        .zip(before.chunks_exact(4))
        .enumerate()
    {
        let (x, y) = (i as u32 % SIZE.0, i as u32 / SIZE.0);
        let alpha = f16_bits_to_f32(l[3]);
        let changed = p != b;
        if l.iter().all(|&h| h == 0) {
            assert!(
                !changed,
                "{what}: pixel ({x}, {y}) is transparent in the layer, but the picture changed \
                 from {:?} to {:?}",
                floats(b),
                floats(p)
            );
        } else {
            covered += 1;
        }
        let changed_much = p[..3]
            .iter()
            .zip(&b[..3])
            .any(|(&p, &b)| (f16_bits_to_f32(p) - f16_bits_to_f32(b)).abs() > 2e-3);
        if changed_much {
            assert!(
                alpha > 0.0,
                "{what}: the picture changed at ({x}, {y}) and the layer is transparent there"
            );
        }
        if alpha > 0.02 {
            assert!(
                changed,
                "{what}: the layer covers ({x}, {y}) (alpha {alpha}) where the picture shows \
                 nothing: drawn behind the hall?"
            );
        }
    }
    covered
}

/// Rain, a bolt, both, and a frame without either after them on the same renderer: each layer
/// holds exactly what its weather changed in the picture; the rain's layer laid "over" the
/// picture without rain gives back the picture; the bolt's layer never holds more than the
/// picture added; and the layer is cleared every frame.
#[test]
fn the_weather_layer_holds_the_rain_and_the_bolt_and_nothing_else() {
    let Some(ctx) = context() else { return };
    let scene = stormy_scene();
    let maps = flat_maps(&scene, 0.6);
    let mut renderer = renderer(&ctx, &scene, LAYERS);
    let bare_at = storm_inputs(&scene, &maps, Some(weather(0.0, 3.0, false)));
    let rain_at = storm_inputs(&scene, &maps, Some(weather(1.0, 3.0, false)));
    let bolt_at = storm_inputs(&scene, &maps, Some(weather(0.0, 3.0, true)));
    let both_at = storm_inputs(&scene, &maps, Some(weather(1.0, 3.0, true)));
    let rain = render(&mut renderer, &rain_at);
    let bolt = render(&mut renderer, &bolt_at);
    let both = render(&mut renderer, &both_at);
    // Last: after the others, so a layer not cleared would still hold their drops.
    let bare = render(&mut renderer, &bare_at);

    let bare_layer = bare.weather_f16.as_deref().expect("the weather layer");
    assert!(
        bare_layer.iter().all(|&h| h == 0),
        "without rain or bolt the weather layer is not transparent black everywhere"
    );
    let rain_covered = assert_layer_holds_what_changed(&rain, &bare, "rain");
    let bolt_covered = assert_layer_holds_what_changed(&bolt, &bare, "bolt");
    let both_covered = assert_layer_holds_what_changed(&both, &bare, "rain and bolt");
    eprintln!("pixels covered: rain {rain_covered}, bolt {bolt_covered}, both {both_covered}");
    let pixels = (SIZE.0 * SIZE.1) as usize;
    assert!(
        rain_covered > pixels / 50,
        "only {rain_covered} pixels of rain"
    );
    assert!(bolt_covered > 20, "only {bolt_covered} pixels of bolt");
    assert!(both_covered >= rain_covered.max(bolt_covered));

    // The bolt's white-hot core is in the layer: green above twice the alpha, which only the
    // core can give (the blue edge's green is at most 1.1 times its alpha, the core's 6).
    let bolt_layer = floats(bolt.weather_f16.as_deref().unwrap());
    let cores = bolt_layer
        .chunks_exact(4)
        .filter(|p| p[3] > 0.0 && p[1] > 2.0 * p[3])
        .count();
    assert!(cores > 0, "no white-hot core of the bolt in the layer");

    // Rain: the layer over the picture without rain is the picture, up to half-float
    // rounding (each side rounds once per drop over a pixel; a handful at most here).
    let rain_layer = floats(rain.weather_f16.as_deref().unwrap());
    let rainy = floats(rain.linear_f16.as_deref().unwrap());
    let dry = floats(bare.linear_f16.as_deref().unwrap());
    for (i, ((l, u), r)) in rain_layer
        .chunks_exact(4)
        .zip(dry.chunks_exact(4))
        .zip(rainy.chunks_exact(4))
        .enumerate()
    {
        for c in 0..3 {
            let composite = l[c] + u[c] * (1.0 - l[3]);
            assert!(
                (composite - r[c]).abs() <= 4e-3 * r[c].abs().max(1.0),
                "pixel {i} channel {c}: the rain layer over the dry picture gives {composite}, \
                 the picture has {}",
                r[c]
            );
        }
    }

    // Bolt: the picture adds it, the layer lays its segments over each other, so the layer's
    // colour is at most what the picture gained (equal away from the arc's bends).
    let struck = floats(bolt.linear_f16.as_deref().unwrap());
    let (mut gained, mut held) = (0.0f64, 0.0f64);
    for (i, ((l, u), s)) in bolt_layer
        .chunks_exact(4)
        .zip(dry.chunks_exact(4))
        .zip(struck.chunks_exact(4))
        .enumerate()
    {
        for c in 0..3 {
            let gain = s[c] - u[c];
            assert!(
                l[c] <= gain + 4e-3 * s[c].abs().max(1.0),
                "pixel {i} channel {c}: the bolt's layer holds {} where the picture gained {gain}",
                l[c]
            );
            gained += f64::from(gain);
            held += f64::from(l[c]);
        }
    }
    eprintln!("bolt: the picture gained {gained:.2}, the layer holds {held:.2}");
    assert!(
        held > 0.8 * gained,
        "the bolt's layer holds {held:.2} of the {gained:.2} the picture gained"
    );
}

/// A scene without weather has no weather layer even when it is asked for, and asking for the
/// layer changes no byte of the picture, with or without weather.
#[test]
fn the_weather_layer_leaves_the_picture_alone_and_needs_weather() {
    let Some(ctx) = context() else { return };
    let without_layer = Readback {
        weather_layer_f16: false,
        ..LAYERS
    };
    let clear = super::layers::single_sample(Scene::default());
    let maps = flat_maps(&clear, 0.6);
    let at = storm_inputs(&clear, &maps, None);
    let asked = render(&mut renderer(&ctx, &clear, LAYERS), &at);
    let plain = render(&mut renderer(&ctx, &clear, without_layer), &at);
    assert_eq!(asked.weather_f16, None);
    assert!(asked.linear_f16 == plain.linear_f16 && asked.rgba8 == plain.rgba8);

    let stormy = super::layers::single_sample(stormy_scene());
    let at = storm_inputs(&stormy, &maps, Some(weather(1.0, 11.0, true)));
    let asked = render(&mut renderer(&ctx, &stormy, LAYERS), &at);
    let plain = render(&mut renderer(&ctx, &stormy, without_layer), &at);
    assert!(asked.weather_f16.is_some() && plain.weather_f16.is_none());
    assert!(
        asked.linear_f16 == plain.linear_f16 && asked.rgba8 == plain.rgba8,
        "drawing the weather layer changed the picture"
    );
}

/// Distance in pixels from `(x, y)` to the segment from `a` to `b`.
fn distance_to_segment((x, y): (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length_sq = dx * dx + dy * dy;
    let t = if length_sq > 0.0 {
        (((x - a.0) * dx + (y - a.1) * dy) / length_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (x - (a.0 + t * dx)).hypot(y - (a.1 + t * dy))
}

/// Debris is drawn: without rain or a bolt, a wind just under
/// [`DEBRIS_CALM_WORLD_PER_S`] draws nothing of the weather, while a strong one blows dark
/// streaks through the picture (every debris piece at 11 units/s), and each pixel they cover
/// lies on a piece's streak where the CPU twin (`weather/debris.rs`) puts it: only debris can
/// explain them.
#[test]
fn a_strong_wind_blows_debris_through_the_picture() {
    let Some(ctx) = context() else { return };
    let scene = stormy_scene();
    let maps = flat_maps(&scene, 0.6);
    let mut renderer = renderer(&ctx, &scene, LAYERS);
    let (calm_wind, gale_wind) = (DEBRIS_CALM_WORLD_PER_S - 0.5, 11.0);
    let gale_at = storm_inputs(&scene, &maps, Some(weather(0.0, gale_wind, false)));
    let gale = render(&mut renderer, &gale_at);
    // Last: a layer not cleared would still hold the gale's debris.
    let calm = render(
        &mut renderer,
        &storm_inputs(&scene, &maps, Some(weather(0.0, calm_wind, false))),
    );

    let calm_layer = calm.weather_f16.as_deref().expect("the weather layer");
    assert!(
        calm_layer.iter().all(|&h| h == 0),
        "below {DEBRIS_CALM_WORLD_PER_S} units/s of wind and without rain the weather layer \
         is not empty"
    );
    assert!(
        gale.rgba8 != calm.rgba8,
        "a strong wind changes nothing in the picture"
    );
    let covered = assert_layer_holds_what_changed(&gale, &calm, "debris");
    eprintln!("pixels covered by debris: {covered}");
    assert!(covered >= 10, "only {covered} pixels of debris");

    // Every piece's streak on screen, as the CPU twin places it (both ends in front of the eye).
    let streaks: Vec<_> = (0..DEBRIS_MAX)
        .filter_map(|i| debris_at(i, gale_at.time_s, STORM_CAMERA.eye_world, [gale_wind, 0.0]))
        .filter_map(|piece| {
            let head = screen_of(&STORM_CAMERA, SIZE, piece.head_world)?;
            Some((head, screen_of(&STORM_CAMERA, SIZE, piece.tail_world)?))
        })
        .collect();
    // The streaks are a pixel wide at this size: a covered pixel's centre lies within half a
    // pixel of its piece's line; one pixel more for the soft edge's rasterisation.
    let reach_px = 1.5;
    let layer = floats(gale.weather_f16.as_deref().expect("the weather layer"));
    for (i, pixel) in layer.chunks_exact(4).enumerate() {
        if pixel[3] <= 0.02 {
            continue;
        }
        let centre = (
            (i as u32 % SIZE.0) as f32 + 0.5,
            (i as u32 / SIZE.0) as f32 + 0.5,
        );
        let nearest = streaks
            .iter()
            .map(|&(head, tail)| distance_to_segment(centre, head, tail))
            .fold(f32::INFINITY, f32::min);
        assert!(
            nearest <= reach_px,
            "the layer covers {centre:?} (alpha {}), {nearest:.2} pixels from any debris piece",
            pixel[3]
        );
    }
}
