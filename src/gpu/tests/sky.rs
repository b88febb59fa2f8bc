//! GPU tests of the `clouds` and `water` sections (shaders/sky.wgsl, `gpu/sky.rs`): the clouds
//! drift the way the one wind blows, by its accumulated drift, and stand still without weather;
//! the camera sinking through the water's surface in 1/60 s steps changes a pixel by a few
//! levels a step at most; the raster and compute scene passes and the raymarch draw one sky.
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, inputs, render, renderer_with, seen_from};
use crate::frame::{CameraPose, Frame, View, WeatherFrame};
use crate::gpu::{Compositor, GpuContext};
use crate::scene::{Clouds, Scene, Water, Weather};
use crate::timeline::STEPS_PER_SECOND;
use crate::weather::WeatherState;

const WIDTH: u32 = 96;
const HEIGHT: u32 = 54;

/// Rows at the top of the picture that see only sky from [`UP`].
const SKY_ROWS: u32 = 20;

/// Low in the hall, looking up over the pillars toward −z, so the top of the picture is sky.
const UP: CameraPose = CameraPose {
    eye_world: [0.0, 1.0, 0.0],
    target_world: [0.0, 10.0, -8.0],
    fov_y_deg: 50.0,
};

/// The default hall, no ground fog, with small, low clouds (so they move visibly) and `weather`.
fn cloudy(weather: Option<Weather>) -> Scene {
    Scene {
        clouds: Some(Clouds {
            altitude: 20.0,
            scale: 4.0,
            ..Clouds::default()
        }),
        weather,
        ..Scene::default()
    }
}

/// The one wind blowing along `direction` alone: no gusts, no wander.
fn steady_weather(direction: [f32; 2]) -> Weather {
    let mut weather = Weather::default();
    weather.wind.direction = direction;
    weather.wind.wander_rad = 0.0;
    weather.wind.gust_share = 0.0;
    weather
}

/// The world's weather after `steps` 60 Hz steps, as a frame shows it.
fn weather_after(weather: &Weather, steps: u64) -> WeatherFrame {
    let mut state = WeatherState::new(weather);
    for step in 0..steps {
        state.step(weather, step);
    }
    WeatherFrame {
        fog_density: state.fog_density,
        gloom: state.gloom,
        rain: state.rain,
        wetness: state.wetness,
        flash: state.flash,
        wind_world_per_s: state.wind_world_per_s,
        drift_world: state.drift_world.map(|d| d as f32),
        noise_drift_world: [0.0; 3],
        fog_light: 1.0,
        last_strike: None,
    }
}

/// `scene` seen from `camera` at frame `frame_index` in `weather`, with `compositor`.
fn frame_of(
    ctx: &GpuContext,
    scene: &Scene,
    compositor: Compositor,
    (camera, frame_index, weather): (CameraPose, u32, Option<WeatherFrame>),
) -> Frame {
    let mut renderer = renderer_with(ctx, scene, WIDTH, HEIGHT, View::Fog, compositor);
    let maps = flat_maps(scene, 0.0);
    let mut at = seen_from(scene, &maps, frame_index, camera);
    at.weather = weather;
    render(&mut renderer, &at)
}

/// Mean absolute difference over the sky rows' RGB between `a` and `b` moved by (dx, dy)
/// pixels (`b`'s pixel (x + dx, y + dy) against `a`'s (x, y)), over the pixels both cover.
fn shifted_difference(a: &Frame, b: &Frame, (dx, dy): (i32, i32)) -> f64 {
    let (mut sum, mut count) = (0.0, 0.0);
    for y in 0..SKY_ROWS as i32 {
        for x in 0..WIDTH as i32 {
            let (bx, by) = (x + dx, y + dy);
            if bx < 0 || by < 0 || bx >= WIDTH as i32 || by >= SKY_ROWS as i32 {
                continue;
            }
            let i = ((y as u32 * WIDTH + x as u32) * 4) as usize;
            let j = ((by as u32 * WIDTH + bx as u32) * 4) as usize;
            for c in 0..3 {
                sum += f64::from(a.rgba8[i + c].abs_diff(b.rgba8[j + c]));
            }
            count += 3.0;
        }
    }
    sum / count
}

/// The shift (dx, dy) of the cloud pattern from `a` to `b` that matches best.
fn best_shift(a: &Frame, b: &Frame) -> (i32, i32) {
    let mut best = ((0, 0), f64::MAX);
    for dy in -4..=4 {
        for dx in -16..=16 {
            let difference = shifted_difference(a, b, (dx, dy));
            if difference < best.1 {
                best = ((dx, dy), difference);
            }
        }
    }
    best.0
}

#[test]
fn clouds_drift_the_way_the_wind_blows_by_its_accumulated_drift() {
    let Some(ctx) = context() else { return };
    // Looking toward −z, world +x is to the right of the picture and −x to the left.
    for (direction, rightward) in [([1.0, 0.0], true), ([-1.0, 0.0], false)] {
        let weather = steady_weather(direction);
        let scene = cloudy(Some(weather.clone()));
        let steps = u64::from(STEPS_PER_SECOND);
        let before = weather_after(&weather, 0);
        let after = weather_after(&weather, steps);
        assert!(after.drift_world[0].abs() > 2.0, "{:?}", after.drift_world);
        let a = frame_of(&ctx, &scene, Compositor::Raster, (UP, 0, Some(before)));
        let b = frame_of(&ctx, &scene, Compositor::Raster, (UP, 60, Some(after)));
        assert!(
            shifted_difference(&a, &b, (0, 0)) > 1.0,
            "the sky did not change as the wind carried the clouds"
        );
        let (dx, dy) = best_shift(&a, &b);
        assert!(
            if rightward { dx >= 2 } else { dx <= -2 },
            "wind along {direction:?}: the clouds moved by ({dx}, {dy}) pixels"
        );
        assert!(dy.abs() < dx.abs(), "({dx}, {dy})");
        // The compute scene pass draws the same drift.
        let c = frame_of(&ctx, &scene, Compositor::Compute, (UP, 60, Some(after)));
        assert!(shifted_difference(&b, &c, (0, 0)) < 1.0);
    }
}

#[test]
fn clouds_stand_still_without_weather_and_show() {
    let Some(ctx) = context() else { return };
    let scene = cloudy(None);
    let early = frame_of(&ctx, &scene, Compositor::Raster, (UP, 0, None));
    let late = frame_of(&ctx, &scene, Compositor::Raster, (UP, 600, None));
    let sky = (SKY_ROWS * WIDTH * 4) as usize;
    assert_eq!(early.rgba8[..sky], late.rgba8[..sky], "clouds moved");
    // And they are there: the same view without clouds is another sky.
    let clear = frame_of(&ctx, &Scene::default(), Compositor::Raster, (UP, 0, None));
    assert!(shifted_difference(&early, &clear, (0, 0)) > 5.0);
}

/// The default hall flooded to 2 (a thick water, crossed over `transition_depth`) under clouds.
fn flooded(transition_depth: f32) -> Scene {
    Scene {
        water: Some(Water {
            surface_height: 2.0,
            density: 0.2,
            transition_depth,
            ..Water::default()
        }),
        clouds: Some(Clouds::default()),
        ..Scene::default()
    }
}

/// From `eye_y`, looking along the hall toward −z, a little up.
fn level_view(eye_y: f32) -> CameraPose {
    CameraPose {
        eye_world: [0.0, eye_y, 9.0],
        target_world: [0.0, eye_y + 1.5, -6.0],
        fov_y_deg: 50.0,
    }
}

/// From `eye_y`, 4 u in front of the back pillar (at z = −5.5), which fills the middle of the
/// picture, with the sky to its left.
fn pillar_view(eye_y: f32) -> CameraPose {
    CameraPose {
        eye_world: [0.0, eye_y, -1.5],
        target_world: [0.0, eye_y + 0.3, -10.0],
        fov_y_deg: 50.0,
    }
}

/// The colour of each probe pixel.
type Probes = [[u8; 3]; 2];

/// The largest change of any channel at the probe pixels from one step to the next as the
/// camera sinks from 3 to 1 at one world unit a second, and the largest change overall.
fn sinking(ctx: &GpuContext, scene: &Scene, compositor: Compositor) -> (u8, u8) {
    let mut renderer = renderer_with(ctx, scene, WIDTH, HEIGHT, View::Fog, compositor);
    let maps = flat_maps(scene, 0.0);
    // The sky, and the pillar's shaft a little below the middle: places where the camera's
    // descent moves no edge or floor joint across the probe, so only the water changes them.
    let probes = [(WIDTH / 8, HEIGHT / 4), (WIDTH / 2, HEIGHT / 2 + 6)];
    let read = |frame: &Frame| {
        probes.map(|(x, y)| {
            let i = ((y * WIDTH + x) * 4) as usize;
            [frame.rgba8[i], frame.rgba8[i + 1], frame.rgba8[i + 2]]
        })
    };
    let steps = 2 * STEPS_PER_SECOND;
    let mut worst_step = 0;
    let (mut first, mut last): (Option<Probes>, Option<Probes>) = (None, None);
    for step in 0..=steps {
        let eye_y = 3.0 - step as f32 / STEPS_PER_SECOND as f32;
        let at = seen_from(scene, &maps, step, pillar_view(eye_y));
        let now = read(&render(&mut renderer, &at));
        if let Some(before) = last {
            for (p, q) in now.iter().flatten().zip(before.iter().flatten()) {
                worst_step = worst_step.max(p.abs_diff(*q));
            }
        }
        first.get_or_insert(now);
        last = Some(now);
    }
    let (first, last) = (first.unwrap(), last.unwrap());
    let overall = first
        .iter()
        .flatten()
        .zip(last.iter().flatten())
        .map(|(p, q)| p.abs_diff(*q))
        .max()
        .unwrap_or(0);
    (worst_step, overall)
}

#[test]
fn sinking_through_the_surface_changes_a_pixel_by_at_most_five_levels_a_step() {
    let Some(ctx) = context() else { return };
    for compositor in [Compositor::Raster, Compositor::Compute] {
        let (worst_step, overall) = sinking(&ctx, &flooded(1.0), compositor);
        assert!(
            overall >= 30,
            "{compositor:?}: under water looks like the air ({overall} levels apart)"
        );
        assert!(
            worst_step <= 5,
            "{compositor:?}: a step of 1/60 s changed a probe by {worst_step} levels"
        );
    }
    // Without the transition depth's spread, the same descent jumps: the limit can fail.
    let (abrupt, _) = sinking(&ctx, &flooded(0.001), Compositor::Raster);
    assert!(abrupt > 5, "an abrupt surface changed a probe by {abrupt}");
}

#[test]
fn under_water_the_sky_is_the_waters_colour_in_every_compositor() {
    let Some(ctx) = context() else { return };
    let scene = flooded(0.5);
    let under = level_view(1.0);
    let water = scene
        .water
        .as_ref()
        .unwrap()
        .color
        .map(|c| (c * 255.0).round());
    let raster = frame_of(&ctx, &scene, Compositor::Raster, (under, 0, None));
    // The top row is sky: the water's colour, to within rounding.
    for x in 0..WIDTH {
        let i = (x * 4) as usize;
        for c in 0..3 {
            let level = f32::from(raster.rgba8[i + c]);
            assert!(
                (level - water[c]).abs() <= 1.0,
                "x {x}: {level} against {water:?}"
            );
        }
    }
    let raymarch = Compositor::Raymarch { steps: 64 };
    for compositor in [Compositor::Compute, raymarch] {
        let other = frame_of(&ctx, &scene, compositor, (under, 0, None));
        let mean = shifted_difference(&raster, &other, (0, 0));
        assert!(
            mean < 1.0,
            "{compositor:?}: the sky differs by {mean} levels"
        );
    }
    // In the air the same view has the clouds' sky, and every compositor draws it alike.
    let above = level_view(6.0);
    let air = frame_of(&ctx, &scene, Compositor::Raster, (above, 0, None));
    assert!(shifted_difference(&raster, &air, (0, 0)) > 10.0);
    for compositor in [Compositor::Compute, raymarch] {
        let other = frame_of(&ctx, &scene, compositor, (above, 0, None));
        let mean = shifted_difference(&air, &other, (0, 0));
        assert!(
            mean < 1.0,
            "{compositor:?}: the cloudy sky differs by {mean} levels"
        );
    }
}

#[test]
fn a_scene_without_clouds_or_water_is_untouched_by_them() {
    let Some(ctx) = context() else { return };
    // Water far below the camera and no clouds: the sky and water code is compiled in, the
    // camera's share of water is 0, so the picture is the plain hall's.
    let scene = Scene::default();
    let deep = Scene {
        water: Some(Water {
            surface_height: -50.0,
            ..Water::default()
        }),
        ..Scene::default()
    };
    let maps = flat_maps(&scene, 0.3);
    let plain = render(
        &mut renderer_with(&ctx, &scene, WIDTH, HEIGHT, View::Fog, Compositor::Raster),
        &inputs(&scene, &maps, 0),
    );
    let dry = render(
        &mut renderer_with(&ctx, &deep, WIDTH, HEIGHT, View::Fog, Compositor::Raster),
        &inputs(&deep, &maps, 0),
    );
    assert_eq!(plain.rgba8, dry.rgba8);
}
