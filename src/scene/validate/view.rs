//! Checks of what the picture shows: the output size and clip length, the camera, the lights
//! (with the warnings for a scene too dark to see and for moon shadows of a light that casts
//! nothing) and the distance fog.

use super::{Checker, MAX_SIZE_PX};
use crate::scene::lights::DirectionalLight;
use crate::scene::{Camera, FogMode, Scene};

pub(super) fn check_output(c: &mut Checker, scene: &Scene) {
    let o = &scene.output;
    c.int_range("output.width", o.width, 1..=MAX_SIZE_PX);
    c.int_range("output.height", o.height, 1..=MAX_SIZE_PX);
    c.int_range("output.fps", o.fps, 1..=1000);
    if let Some(samples) = o.samples {
        c.int_range("output.samples", samples, 1..=crate::samples::MAX_SAMPLES);
    }
    if let Some(edge_samples) = o.edge_samples {
        c.int_range(
            "output.edge_samples",
            edge_samples,
            1..=crate::samples::MAX_SAMPLES,
        );
    }
    let (samples, edge_samples) = (o.samples_everywhere(), o.samples_at_edges());
    if edge_samples > 1 && samples > 1 {
        c.error(
            "output.edge_samples",
            crate::error::RequestError::EdgeSamplesWithSamples {
                samples,
                edge_samples,
            }
            .to_string(),
            "set output.samples to 1, or output.edge_samples to 1".into(),
        );
    }
    c.range("output.shutter", o.shutter, 0.0..=1.0);
    if o.shutter > 0.0 && samples < 2 {
        c.error(
            "output.shutter",
            crate::error::RequestError::ShutterWithoutSamples {
                shutter: o.shutter,
                samples,
            }
            .to_string(),
            "set output.samples to 2 or more (16 gives a smooth blur), or output.shutter to 0"
                .into(),
        );
    }
    if let Some(frames) = o.frames {
        c.int_range("output.frames", frames, 1..=10_000_000);
    }
    if let Some(caption) = &o.caption
        && let Err(why) = crate::output::caption::check_text(caption)
    {
        c.error(
            "output.caption",
            format!("`output.caption` {why}"),
            "write the caption as one line of text (--caption TEXT)".into(),
        );
    }
    if let Some(seconds) = o.seconds {
        if !seconds.is_finite() || seconds <= 0.0 || seconds > 1.0e6 {
            c.error(
                "output.seconds",
                format!(
                    "`output.seconds` is {seconds}, allowed range is greater than 0 up to 1000000"
                ),
                "set output.seconds to a positive number of seconds".into(),
            );
        } else if (seconds * f64::from(o.fps)).round() < 1.0 {
            c.error(
                "output.seconds",
                format!(
                    "`output.seconds` is {seconds}: at {} fps that is no frame at all",
                    o.fps
                ),
                "make the clip at least one frame long".into(),
            );
        }
    }
}

pub(super) fn check_camera(c: &mut Checker, scene: &Scene) {
    let fov = 1.0..=179.0;
    match &scene.camera {
        Camera::Follow(f) => {
            c.point("camera.start", &f.start);
            c.non_negative("camera.lag_rate", f.lag_rate);
            c.range("camera.track", f.track, -100.0..=100.0);
            c.range("camera.back", f.back, -1.0e4..=1.0e4);
            c.range("camera.look_height", f.look_height, -1.0e4..=1.0e4);
            c.range("camera.fov_y_deg", f.fov_y_deg, fov);
            if f.start[1] <= 0.0 {
                c.warn(
                    "camera.start",
                    "the camera starts at or below the floor (y ≤ 0)".into(),
                    "raise camera.start's y above 0".into(),
                );
            }
        }
        Camera::Fixed(f) => {
            c.point("camera.position", &f.position);
            c.point("camera.target", &f.target);
            c.range("camera.fov_y_deg", f.fov_y_deg, fov);
            if f.position == f.target {
                c.error(
                    "camera.target",
                    "`camera.target` is the same point as `camera.position`".into(),
                    "move the target away from the eye".into(),
                );
            }
        }
        Camera::Keyframed(k) => {
            if k.keys.is_empty() {
                c.error(
                    "camera.keys",
                    "`camera.keys` is empty".into(),
                    "give at least one key, e.g. keys: [(time_s: 0, position: (0, 7.5, 11), target: (0, 0.4, 0))]".into(),
                );
            }
            let mut last = f32::NEG_INFINITY;
            for (i, key) in k.keys.iter().enumerate() {
                let path = format!("camera.keys[{i}]");
                c.range(&format!("{path}.time_s"), key.time_s, 0.0..=1.0e6);
                c.point(&format!("{path}.position"), &key.position);
                c.point(&format!("{path}.target"), &key.target);
                c.range(&format!("{path}.fov_y_deg"), key.fov_y_deg, fov.clone());
                if key.time_s < last {
                    c.error(
                        format!("{path}.time_s"),
                        format!("camera keys must be in increasing time: key {i} at {}s comes after {last}s", key.time_s),
                        "sort camera.keys by time_s".into(),
                    );
                }
                last = key.time_s;
            }
        }
    }
}

/// Warnings for `lights.directional.shadows` on a light that casts nothing to shadow.
fn check_moon_shadows(c: &mut Checker, moon: &DirectionalLight) {
    if !moon.shadows {
        return;
    }
    if moon.intensity == 0.0 {
        c.warn(
            "lights.directional.shadows",
            "`lights.directional.shadows` is true but `lights.directional.intensity` is 0: the light casts nothing, so its shadows change nothing".into(),
            "give lights.directional.intensity a value above 0, or leave shadows out".into(),
        );
    } else if moon.direction_world()[1] >= 0.0 {
        c.warn(
            "lights.directional.shadows",
            format!(
                "`lights.directional.pitch_rad` is {}: the light does not come down, so nothing it shadows lies on the floor",
                moon.pitch_rad
            ),
            "give lights.directional.pitch_rad a value between -3.1 and 0 (negative points down)"
                .into(),
        );
    }
}

pub(super) fn check_lights(c: &mut Checker, scene: &Scene) {
    let l = &scene.lights;
    c.color("lights.ambient.color", l.ambient.color);
    c.range("lights.ambient.intensity", l.ambient.intensity, 0.0..=100.0);
    if let Some(ground) = l.ambient.ground {
        c.color("lights.ambient.ground", ground);
    }
    c.color("lights.directional.color", l.directional.color);
    c.range(
        "lights.directional.intensity",
        l.directional.intensity,
        0.0..=100.0,
    );
    c.range(
        "lights.directional.pitch_rad",
        l.directional.pitch_rad,
        -10.0..=10.0,
    );
    c.range(
        "lights.directional.yaw_rad",
        l.directional.yaw_rad,
        -10.0..=10.0,
    );
    check_moon_shadows(c, &l.directional);
    c.color("lights.ball.color", l.ball.color);
    c.range("lights.ball.intensity", l.ball.intensity, 0.0..=100.0);
    c.positive("lights.ball.range", l.ball.range);
    c.range(
        "lights.ball.height_above_ball",
        l.ball.height_above_ball,
        -100.0..=100.0,
    );
    c.range("lights.ball.flicker", l.ball.flicker, 0.0..=100.0);
    c.range(
        "lights.ball.flicker_rate",
        l.ball.flicker_rate,
        0.0..=1000.0,
    );
    if l.ambient.intensity == 0.0 && l.directional.intensity == 0.0 && l.ball.intensity == 0.0 {
        c.warn(
            "lights",
            "every light has intensity 0: the frame will be black apart from the glow".into(),
            "give lights.ambient.intensity a value above 0".into(),
        );
    }
    let d = &scene.distance_fog;
    c.color("distance_fog.color", d.color);
    c.non_negative("distance_fog.near", d.near);
    c.positive("distance_fog.far", d.far);
    if d.near.is_finite() && d.far.is_finite() && d.far <= d.near {
        c.error(
            "distance_fog.far",
            format!(
                "`distance_fog.far` is {}, it must be greater than `distance_fog.near` ({})",
                d.far, d.near
            ),
            "set far beyond near".into(),
        );
    }
    c.range("distance_fog.density", d.density, 0.0..=100.0);
    c.range("distance_fog.height_falloff", d.height_falloff, 0.0..=100.0);
    c.range("distance_fog.base_height", d.base_height, -1.0e6..=1.0e6);
    c.range("distance_fog.start", d.start, 0.0..=1.0e6);
    c.range("distance_fog.max_opacity", d.max_opacity, 0.0..=1.0);
    if d.mode == FogMode::Linear && d.start > 0.0 {
        c.warn(
            "distance_fog.start",
            format!(
                "`distance_fog.start` is {}, but the linear fog ignores it (it has `near`)",
                d.start
            ),
            "use mode: exponential, or set near instead".into(),
        );
    }
    if d.mode != FogMode::Linear && d.density == 0.0 {
        c.warn(
            "distance_fog.density",
            "`distance_fog.density` is 0: the exponential fog will not show".into(),
            "give density a value such as 0.05".into(),
        );
    }
}
