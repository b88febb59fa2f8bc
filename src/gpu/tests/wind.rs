//! GPU test of the flames in the wind: a flame's tip leans the way the wind blows across the
//! view, and as far the other way when the wind turns.

use super::{clear_weather, context, flat_maps, render, renderer, seen_from};
use crate::frame::{CameraPose, Frame, View, WeatherFrame};
use crate::scene::{Fire, FireKind, Scene, Weather};

/// A clear evening's weather frame with the wind `wind_world_per_s` (x, z), no rain.
fn windy(wind_world_per_s: [f32; 2]) -> WeatherFrame {
    WeatherFrame {
        wind_world_per_s,
        ..clear_weather()
    }
}

/// The brightness-weighted mean column of what `lit` adds to `dark` (the flame and its light).
fn added_centroid_x(lit: &Frame, dark: &Frame) -> f64 {
    let (mut sum, mut weight) = (0.0, 0.0);
    for (i, (p, q)) in lit
        .rgba8
        .chunks_exact(4)
        .zip(dark.rgba8.chunks_exact(4))
        .enumerate()
    {
        let added: f64 = (0..3).map(|c| f64::from(p[c].saturating_sub(q[c]))).sum();
        let x = (i as u32 % lit.width) as f64;
        sum += added * x;
        weight += added;
    }
    assert!(weight > 0.0, "the flame adds nothing");
    sum / weight
}

#[test]
fn a_flame_leans_the_way_the_wind_blows_across_the_view() {
    let Some(ctx) = context() else { return };
    let (w, h) = (64, 48);
    let lit = Scene {
        fires: vec![Fire {
            kind: FireKind::Brazier,
            position: [0.0, 1.0, 2.0],
            flame_height: 1.2,
            phase_rad: Some(0.0),
            ..Fire::default()
        }],
        weather: Some(Weather::default()),
        ..Scene::default()
    };
    let mut dark = lit.clone();
    dark.fires.clear();
    let maps = flat_maps(&lit, 0.0);
    // Looking level at the fire along −z: the picture's right is world +x.
    let camera = CameraPose {
        eye_world: [0.0, 1.6, 5.0],
        target_world: [0.0, 1.5, 2.0],
        fov_y_deg: 50.0,
    };
    let at = seen_from(&lit, &maps, 30, camera);
    let frame_in = |wind| {
        let mut frame = at;
        frame.weather = Some(windy(wind));
        frame
    };
    let mut flames = renderer(&ctx, &lit, w, h, View::Fog);
    let mut none = renderer(&ctx, &dark, w, h, View::Fog);
    // The picture without the fire under the same wind: the debris a strong wind carries is
    // in both, so only the flame is left in the difference.
    let mut centroid = |flames: &mut crate::gpu::Renderer, wind| {
        let background = render(&mut none, &frame_in(wind));
        added_centroid_x(&render(flames, &frame_in(wind)), &background)
    };
    let still = centroid(&mut flames, [0.0, 0.0]);
    let to_right = centroid(&mut flames, [8.0, 0.0]);
    let to_left = centroid(&mut flames, [-8.0, 0.0]);
    // Wind along the view (toward the eye) has nothing across it to lean with. (Below the 6
    // u/s where debris starts to fly: its streaks over the flame would move the centroid.)
    let along = centroid(&mut flames, [0.0, 5.5]);
    assert!(
        to_right > still + 0.3 && to_left < still - 0.3,
        "still {still:.2}, wind to the right {to_right:.2}, to the left {to_left:.2}"
    );
    assert!(
        ((to_right - still) - (still - to_left)).abs() < 0.3,
        "the lean is not symmetric: {to_left:.2} {still:.2} {to_right:.2}"
    );
    assert_eq!(along, still, "wind along the view leans the flame");
}
