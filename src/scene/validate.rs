//! Range checks and warnings for a parsed scene.
//!
//! Parsing only proves the file has the right shape; this module proves the values make sense:
//! sizes positive, numbers finite, pillars inside the hall, the fluid grid within 8..=2048, and
//! so on. Every problem names the field path (`fog.sheets`), the value and the allowed range,
//! so [`super::diagnostics`] can point at the line. Warnings flag values that are legal but
//! probably not what the author wanted ("no lights: the frame will be black").

use super::fires::{self, FireKind, TorchMount};
use super::{Camera, FogMode, Input, Rgb, Scene, Terrain};
use std::fmt::Display;
use std::ops::RangeInclusive;

/// One problem with a value: where it is, what is wrong, how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Dotted path of the field, e.g. `hall.pillars[2]`.
    pub field_path: String,
    /// What is wrong, naming the value.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// Everything the checks found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Values that make the scene unusable.
    pub errors: Vec<Problem>,
    /// Legal values that are probably mistakes.
    pub warnings: Vec<Problem>,
}

/// Largest picture side fogbank accepts before asking the GPU, pixels.
pub const MAX_SIZE_PX: u32 = 16384;

/// Checks every field of `scene`.
pub fn check(scene: &Scene) -> Report {
    let mut c = Checker::default();
    check_output(&mut c, scene);
    check_camera(&mut c, scene);
    check_lights(&mut c, scene);
    check_hall(&mut c, scene);
    check_ball(&mut c, scene);
    check_fog(&mut c, scene);
    check_fluid(&mut c, scene);
    check_fires(&mut c, scene);
    c.color("background", scene.background);
    c.report
}

#[derive(Default)]
struct Checker {
    report: Report,
}

impl Checker {
    fn error(&mut self, field_path: impl Into<String>, message: String, help: String) {
        self.report.errors.push(Problem {
            field_path: field_path.into(),
            message,
            help,
        });
    }

    fn warn(&mut self, field_path: impl Into<String>, message: String, help: String) {
        self.report.warnings.push(Problem {
            field_path: field_path.into(),
            message,
            help,
        });
    }

    /// A float that must be finite and inside `range`.
    fn range(&mut self, path: &str, value: f32, range: RangeInclusive<f32>) {
        if !value.is_finite() {
            self.error(
                path,
                format!("`{path}` is {value}, which is not a finite number"),
                format!("set {path} to a number in {}", show_range(&range)),
            );
        } else if !range.contains(&value) {
            self.error(
                path,
                format!(
                    "`{path}` is {value}, allowed range is {}",
                    show_range(&range)
                ),
                format!("set {path} to a value in {}", show_range(&range)),
            );
        }
    }

    /// A float that must be finite and strictly positive.
    fn positive(&mut self, path: &str, value: f32) {
        if !value.is_finite() || value <= 0.0 {
            self.error(
                path,
                format!("`{path}` is {value}, it must be a finite number greater than 0"),
                format!("set {path} to a positive number"),
            );
        }
    }

    /// A float that must be finite and not negative.
    fn non_negative(&mut self, path: &str, value: f32) {
        self.range(path, value, 0.0..=f32::MAX);
    }

    /// An integer that must be inside `range`.
    fn int_range<T: PartialOrd + Display + Copy>(
        &mut self,
        path: &str,
        value: T,
        range: RangeInclusive<T>,
    ) {
        if !range.contains(&value) {
            self.error(
                path,
                format!(
                    "`{path}` is {value}, allowed range is {}..={}",
                    range.start(),
                    range.end()
                ),
                format!(
                    "set {path} to a value in {}..={}",
                    range.start(),
                    range.end()
                ),
            );
        }
    }

    fn color(&mut self, path: &str, value: Rgb) {
        for (i, c) in value.iter().enumerate() {
            self.range(&format!("{path}[{i}]"), *c, 0.0..=1.0);
        }
    }

    fn point(&mut self, path: &str, value: &[f32]) {
        for (i, c) in value.iter().enumerate() {
            self.range(&format!("{path}[{i}]"), *c, -1.0e6..=1.0e6);
        }
    }

    fn time(&mut self, path: &str, value: f64) {
        if !value.is_finite() || value < 0.0 {
            self.error(
                path,
                format!("`{path}` is {value}, it must be a time in seconds, 0 or more"),
                format!("set {path} to a number of seconds ≥ 0"),
            );
        }
    }

    fn duration(&mut self, path: &str, value: Option<f64>) {
        if let Some(v) = value
            && (!v.is_finite() || v <= 0.0)
        {
            self.error(
                path,
                format!("`{path}` is {v}, it must be a positive number of seconds"),
                format!(
                    "set {path} to a positive number, or leave it out to hold until the next input"
                ),
            );
        }
    }
}

fn show_range(range: &RangeInclusive<f32>) -> String {
    let show = |v: f32| {
        if v == f32::MAX {
            "∞".to_string()
        } else {
            format!("{v}")
        }
    };
    format!("{}..={}", show(*range.start()), show(*range.end()))
}

fn check_output(c: &mut Checker, scene: &Scene) {
    let o = &scene.output;
    c.int_range("output.width", o.width, 1..=MAX_SIZE_PX);
    c.int_range("output.height", o.height, 1..=MAX_SIZE_PX);
    c.int_range("output.fps", o.fps, 1..=1000);
    if let Some(frames) = o.frames {
        c.int_range("output.frames", frames, 1..=10_000_000);
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

fn check_camera(c: &mut Checker, scene: &Scene) {
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

fn check_lights(c: &mut Checker, scene: &Scene) {
    let l = &scene.lights;
    c.color("lights.ambient.color", l.ambient.color);
    c.range("lights.ambient.intensity", l.ambient.intensity, 0.0..=100.0);
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

fn check_hall(c: &mut Checker, scene: &Scene) {
    let h = &scene.hall;
    c.range("hall.floor_size", h.floor_size, 0.01..=1.0e4);
    c.range("hall.tile_size", h.tile_size, 0.01..=1.0e4);
    for (i, color) in h.floor_colors.iter().enumerate() {
        c.color(&format!("hall.floor_colors[{i}]"), *color);
    }
    c.color("hall.joint_color", h.joint_color);
    c.positive("hall.pillar_radius", h.pillar_radius);
    c.positive("hall.pillar_height", h.pillar_height);
    c.positive("hall.capital_size", h.capital_size);
    c.non_negative("hall.capital_height", h.capital_height);
    for (i, color) in h.pillar_colors.iter().enumerate() {
        c.color(&format!("hall.pillar_colors[{i}]"), *color);
    }
    if h.pillars.len() > 4096 {
        c.error(
            "hall.pillars",
            format!(
                "`hall.pillars` has {} pillars, at most 4096 are allowed",
                h.pillars.len()
            ),
            "remove pillars".into(),
        );
    }
    let half = h.floor_size / 2.0;
    for (i, pillar) in h.pillars.iter().enumerate() {
        let path = format!("hall.pillars[{i}]");
        if !pillar.iter().all(|v| v.is_finite()) || pillar[0].abs() > half || pillar[1].abs() > half
        {
            c.error(
                &path,
                format!(
                    "`{path}` is ({}, {}), outside the hall, whose floor spans -{half}..={half} on x and z",
                    pillar[0], pillar[1]
                ),
                format!("move the pillar inside -{half}..={half} or enlarge hall.floor_size"),
            );
        }
    }
    let a = &h.altar;
    c.point("hall.altar.center", &a.center);
    c.positive("hall.altar.width", a.width);
    c.positive("hall.altar.height", a.height);
    c.positive("hall.altar.depth", a.depth);
    c.color("hall.altar.color", a.color);
    if a.center[0].abs() + a.width / 2.0 > half || a.center[1].abs() + a.depth / 2.0 > half {
        c.error(
            "hall.altar.center",
            format!("the altar reaches outside the hall's floor (-{half}..={half})"),
            "move hall.altar.center inward or shrink the altar".into(),
        );
    }
    check_blocks(c, scene);
    if let Some(terrain) = &h.terrain {
        check_terrain(c, terrain, h.floor_size);
    }
}

fn check_blocks(c: &mut Checker, scene: &Scene) {
    let blocks = &scene.hall.blocks;
    if blocks.len() > 4096 {
        c.error(
            "hall.blocks",
            format!(
                "`hall.blocks` has {} blocks, at most 4096 are allowed",
                blocks.len()
            ),
            "remove blocks".into(),
        );
    }
    for (i, block) in blocks.iter().enumerate() {
        let path = format!("hall.blocks[{i}]");
        c.point(&format!("{path}.bottom_center"), &block.bottom_center);
        for (k, side) in block.size.iter().enumerate() {
            c.range(&format!("{path}.size[{k}]"), *side, 0.001..=1.0e4);
        }
        c.color(&format!("{path}.color"), block.color);
    }
}

fn check_terrain(c: &mut Checker, t: &Terrain, floor_size: f32) {
    c.range("hall.terrain.size", t.size, 1.0..=1.0e4);
    c.int_range("hall.terrain.resolution", t.resolution, 8..=512);
    c.range("hall.terrain.height", t.height, 0.0..=1.0e4);
    c.range("hall.terrain.valley_depth", t.valley_depth, 0.0..=1.0e4);
    c.range(
        "hall.terrain.valley_distance",
        t.valley_distance,
        0.0..=1.0e4,
    );
    c.range("hall.terrain.valley_width", t.valley_width, 0.01..=1.0e4);
    c.range("hall.terrain.margin", t.margin, 0.0..=1.0e4);
    c.range("hall.terrain.feature_size", t.feature_size, 0.01..=1.0e5);
    c.int_range("hall.terrain.octaves", t.octaves, 1..=8);
    for (i, color) in t.colors.iter().enumerate() {
        c.color(&format!("hall.terrain.colors[{i}]"), *color);
    }
    if t.size.is_finite() && t.size <= floor_size {
        c.warn(
            "hall.terrain.size",
            format!(
                "the terrain ({} across) fits under the hall's floor ({floor_size} across): none of it will show",
                t.size
            ),
            "make hall.terrain.size larger than hall.floor_size".into(),
        );
    }
}

fn check_ball(c: &mut Checker, scene: &Scene) {
    let b = &scene.ball;
    c.range("ball.radius", b.radius, 0.01..=100.0);
    c.point("ball.start", &b.start);
    c.range("ball.accel", b.accel, 0.0..=1.0e4);
    c.range("ball.gravity", b.gravity, 0.01..=1.0e4);
    c.range("ball.jump", b.jump, 0.0..=1.0e4);
    c.positive("ball.limit", b.limit);
    c.range("ball.drag", b.drag, 0.0..=1.0e4);
    c.range("ball.stop_drag", b.stop_drag, 0.0..=1.0e4);
    c.range("ball.pillar_clearance", b.pillar_clearance, 0.0..=100.0);
    c.range("ball.altar_clearance", b.altar_clearance, 0.0..=100.0);
    c.range("ball.bounce", b.bounce, 0.0..=2.0);
    c.color("ball.color", b.color);
    c.color("ball.emissive", b.emissive);
    let half = scene.hall.floor_size / 2.0;
    if b.limit.is_finite() && b.limit > half {
        c.warn(
            "ball.limit",
            format!(
                "`ball.limit` ({}) lets the ball roll off the floor (half size {half})",
                b.limit
            ),
            format!("set ball.limit to at most {half}"),
        );
    }
    if b.start[0].abs() > b.limit || b.start[1].abs() > b.limit {
        c.warn(
            "ball.start",
            format!(
                "the ball starts outside its limit (±{}); it will be moved inside at once",
                b.limit
            ),
            "move ball.start inside ball.limit".into(),
        );
    }
    for (i, input) in b.script.iter().enumerate() {
        let path = format!("ball.script[{i}]");
        match input {
            Input::Steer(s) => {
                c.time(&format!("{path}.at"), s.at);
                c.duration(&format!("{path}.duration"), s.duration);
                c.point(&format!("{path}.toward"), &s.toward);
            }
            Input::Move(m) => {
                c.time(&format!("{path}.at"), m.at);
                c.duration(&format!("{path}.duration"), m.duration);
                c.point(&format!("{path}.direction"), &m.direction);
            }
            Input::Jump(j) => c.time(&format!("{path}.at"), j.at),
            Input::Stop(s) => {
                c.time(&format!("{path}.at"), s.at);
                c.duration(&format!("{path}.duration"), s.duration);
            }
            Input::Auto(a) => {
                c.time(&format!("{path}.at"), a.at);
                c.duration(&format!("{path}.duration"), a.duration);
                c.range(&format!("{path}.speed"), a.speed, -100.0..=100.0);
                c.range(&format!("{path}.amplitude_x"), a.amplitude_x, 0.0..=1.0e4);
                c.range(&format!("{path}.amplitude_z"), a.amplitude_z, 0.0..=1.0e4);
                c.range(&format!("{path}.center_z"), a.center_z, -1.0e4..=1.0e4);
                c.range(&format!("{path}.first_jump"), a.first_jump, 0.0..=1.0e6);
                let every = format!("{path}.jump_every");
                c.range(&format!("{every}[0]"), a.jump_every[0], 1.0 / 60.0..=1.0e6);
                c.range(&format!("{every}[1]"), a.jump_every[1], 1.0 / 60.0..=1.0e6);
                if a.jump_every[1] < a.jump_every[0] {
                    c.error(
                        &every,
                        format!(
                            "`{every}` is ({}, {}): the shortest interval comes first",
                            a.jump_every[0], a.jump_every[1]
                        ),
                        "write it as (shortest, longest)".into(),
                    );
                }
            }
        }
    }
    if b.script.is_empty() {
        c.warn(
            "ball.script",
            "the script is empty: the ball will not move".into(),
            "add inputs, e.g. script: [Auto()]".into(),
        );
    }
}

fn check_fog(c: &mut Checker, scene: &Scene) {
    let f = &scene.fog;
    c.range("fog.area", f.area, 0.01..=1.0e4);
    c.int_range("fog.sheets", f.sheets, 1..=512);
    c.range("fog.bottom", f.bottom, -1.0e4..=1.0e4);
    c.range("fog.top", f.top, -1.0e4..=1.0e4);
    c.range("fog.sheets_top", f.sheets_top, -1.0e4..=1.0e4);
    c.range("fog.lift_height", f.lift_height, 0.0..=1.0e4);
    c.range("fog.sigma", f.sigma, 0.0..=1.0e4);
    c.range("fog.veil_sigma", f.veil_sigma, 0.0..=1.0e4);
    c.range("fog.offset_range", f.offset_range, 0.001..=1.0e4);
    c.color("fog.color", f.color);
    c.range("fog.glow", f.glow, 0.0..=100.0);
    c.color("fog.glow_color", f.glow_color);
    c.point("fog.wind", &f.wind);
    c.int_range("fog.flow_every", f.flow_every, 1..=scene.fluid.grid.max(1));
    if f.top <= f.bottom {
        c.error(
            "fog.top",
            format!(
                "`fog.top` is {}, it must be above `fog.bottom` ({})",
                f.top, f.bottom
            ),
            "raise fog.top above fog.bottom".into(),
        );
    }
    if f.sheets_top <= f.bottom {
        c.error(
            "fog.sheets_top",
            format!(
                "`fog.sheets_top` is {}, it must be above `fog.bottom` ({})",
                f.sheets_top, f.bottom
            ),
            "raise fog.sheets_top above fog.bottom".into(),
        );
    } else if f.sheets_top < f.top {
        c.warn(
            "fog.sheets_top",
            format!(
                "`fog.sheets_top` ({}) is below `fog.top` ({}): the top of the fog is cut off",
                f.sheets_top, f.top
            ),
            "raise fog.sheets_top to at least fog.top + fog.lift_height".into(),
        );
    }
    if f.sheets > 256 {
        c.warn(
            "fog.sheets",
            format!(
                "{} sheets will render slowly; 32 to 96 is usually enough",
                f.sheets
            ),
            "lower fog.sheets".into(),
        );
    }
    if f.area < 2.0 * scene.ball.limit {
        c.warn(
            "fog.area",
            format!(
                "the fog ({} across) is narrower than where the ball can roll ({} across)",
                f.area,
                2.0 * scene.ball.limit
            ),
            "enlarge fog.area or lower ball.limit".into(),
        );
    }
}

fn check_fluid(c: &mut Checker, scene: &Scene) {
    let p = &scene.fluid;
    c.int_range("fluid.grid", p.grid, 8..=2048);
    c.int_range(
        "fluid.pressure_iterations",
        p.pressure_iterations,
        0..=100_000,
    );
    if p.pressure_iterations == 0 {
        c.warn(
            "fluid.pressure_iterations",
            "with 0 pressure iterations the air is not kept from compressing: it will not flow round pillars".into(),
            "use 16 or more".into(),
        );
    }
    if p.grid > 512 {
        c.warn(
            "fluid.grid",
            format!("a {0}×{0} fluid steps slowly on the CPU", p.grid),
            "96 to 256 is usually enough".into(),
        );
    }
    let rates: [(&str, f32, f32); 26] = [
        ("fluid.vorticity", p.vorticity, 1.0e4),
        ("fluid.vorticity_threshold", p.vorticity_threshold, 1.0e4),
        ("fluid.velocity_decay", p.velocity_decay, 1.0e4),
        ("fluid.shock_fade", p.shock_fade, 1.0e4),
        ("fluid.refill", p.refill, 1.0e4),
        ("fluid.spill", p.spill, 1.0e4),
        ("fluid.relax", p.relax, 1.0e4),
        ("fluid.settle", p.settle, 1.0e4),
        ("fluid.continuity", p.continuity, 1.0e4),
        ("fluid.drift_limit", p.drift_limit, 1.0e4),
        ("fluid.max_density", p.max_density, 1.0e4),
        ("fluid.solid_margin", p.solid_margin, 1.0e4),
        ("fluid.ball_reach", p.ball_reach, 100.0),
        ("fluid.ball_ring", p.ball_ring, 100.0),
        ("fluid.ball_take", p.ball_take, 1.0),
        ("fluid.ball_rise_lift", p.ball_rise_lift, 1.0e4),
        ("fluid.shock_to_air", p.shock_to_air, 1.0e4),
        ("fluid.takeoff_radius", p.takeoff_radius, 1.0e3),
        ("fluid.takeoff_strength", p.takeoff_strength, 1.0e4),
        ("fluid.takeoff_raise", p.takeoff_raise, 1.0),
        ("fluid.landing_radius", p.landing_radius, 1.0e3),
        ("fluid.landing_strength", p.landing_strength, 1.0e4),
        (
            "fluid.landing_raise_per_speed",
            p.landing_raise_per_speed,
            1.0e4,
        ),
        ("fluid.landing_min_speed", p.landing_min_speed, 1.0e4),
        ("fluid.fog_depth_margin", p.fog_depth_margin, 1.0e4),
        ("fluid.speed_scale", p.speed_scale, 1.0e6),
    ];
    for (path, value, max) in rates {
        c.range(path, value, 0.0..=max);
    }
    c.range("fluid.fog_depth_fade", p.fog_depth_fade, 0.001..=1.0e4);
    c.range("fluid.max_density", p.max_density, 1.0..=1.0e4);
    c.range("fluid.speed_scale", p.speed_scale, 0.001..=1.0e6);
    if p.ball_ring <= p.ball_reach {
        c.error(
            "fluid.ball_ring",
            format!("`fluid.ball_ring` ({}) must be larger than `fluid.ball_reach` ({}): the pushed fog needs a ring to go to", p.ball_ring, p.ball_reach),
            "make ball_ring larger than ball_reach".into(),
        );
    }
}

fn check_fires(c: &mut Checker, scene: &Scene) {
    let max = fires::MAX_FIRES;
    if scene.fires.len() > max {
        c.error(
            "fires",
            format!(
                "`fires` has {} fires, at most {max} are allowed",
                scene.fires.len()
            ),
            "remove fires".into(),
        );
    }
    let half = scene.hall.floor_size / 2.0;
    for (i, fire) in scene.fires.iter().enumerate() {
        let path = format!("fires[{i}]");
        c.range(
            &format!("{path}.flame_height"),
            fire.flame_height,
            0.01..=20.0,
        );
        c.color(&format!("{path}.color"), fire.color);
        c.range(&format!("{path}.ember"), fire.ember, 0.0..=100.0);
        c.range(
            &format!("{path}.light_intensity"),
            fire.light_intensity,
            0.0..=100.0,
        );
        c.range(
            &format!("{path}.light_range"),
            fire.light_range,
            0.01..=1.0e3,
        );
        c.range(&format!("{path}.flicker"), fire.flicker, 0.0..=1.0);
        c.range(&format!("{path}.glow"), fire.glow, 0.0..=100.0);
        if let Some(phase) = fire.phase_rad {
            c.range(&format!("{path}.phase_rad"), phase, -1.0e4..=1.0e4);
        }
        let [x, y, z] = fire.position;
        let position = format!("{path}.position");
        if !fire.position.iter().all(|v| v.is_finite()) || x.abs() > half || z.abs() > half {
            c.error(
                &position,
                format!(
                    "`{position}` is ({x}, {y}, {z}), outside the hall, whose floor spans -{half}..={half} on x and z"
                ),
                format!("move the fire inside -{half}..={half} or enlarge hall.floor_size"),
            );
        } else if !(0.0..=100.0).contains(&y) {
            c.error(
                &position,
                format!(
                    "`{position}` has height {y}, allowed range is 0..=100 (the floor is at 0)"
                ),
                format!("set {position}'s y, the foot of the flame, to a height in 0..=100"),
            );
        } else if fire.kind == FireKind::Torch
            && fire.mount == TorchMount::Bracket
            && fires::bracket_pillar(&scene.hall, x, z).is_none()
        {
            c.error(
                &position,
                format!(
                    "`{path}` is a torch on a bracket, but no pillar stands within {} of ({x}, {z})",
                    fires::BRACKET_REACH_WORLD
                ),
                format!("move {position} next to a pillar, or use mount: Pole"),
            );
        }
        if fire.kind == FireKind::Brazier && fire.mount == TorchMount::Bracket {
            c.warn(
                format!("{path}.mount"),
                format!("`{path}` is a brazier: it stands on its own stand and ignores `mount`"),
                "leave mount out, or make it kind: Torch".into(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Fire;

    #[test]
    fn the_default_scene_is_clean() {
        let report = check(&Scene::default());
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn out_of_range_values_name_field_value_and_range() {
        let mut scene = Scene::default();
        scene.fog.sheets = 0;
        scene.fluid.grid = 4;
        scene.hall.pillars.push([30.0, 0.0]);
        scene.fog.sigma = f32::NAN;
        let report = check(&scene);
        let find = |path: &str| {
            report
                .errors
                .iter()
                .find(|p| p.field_path == path)
                .unwrap_or_else(|| panic!("no error for {path}: {:?}", report.errors))
        };
        assert_eq!(
            find("fog.sheets").message,
            "`fog.sheets` is 0, allowed range is 1..=512"
        );
        assert!(find("fluid.grid").message.contains("8..=2048"));
        assert!(find("hall.pillars[7]").message.contains("outside the hall"));
        assert!(find("fog.sigma").message.contains("not a finite number"));
    }

    #[test]
    fn fires_are_checked_for_range_place_and_count() {
        let fires = vec![
            Fire::default(),
            Fire {
                position: [30.0, 1.0, 0.0],
                ..Fire::default()
            },
            Fire {
                flame_height: 0.0,
                flicker: 2.0,
                ..Fire::default()
            },
            Fire {
                kind: FireKind::Torch,
                mount: TorchMount::Bracket,
                position: [0.0, 2.0, 9.0],
                ..Fire::default()
            },
            Fire {
                kind: FireKind::Torch,
                mount: TorchMount::Bracket,
                position: [-3.5, 2.2, -2.9],
                ..Fire::default()
            },
        ];
        let mut scene = Scene {
            fires,
            ..Scene::default()
        };
        let report = check(&scene);
        let paths: Vec<&str> = report
            .errors
            .iter()
            .map(|p| p.field_path.as_str())
            .collect();
        assert_eq!(
            paths,
            [
                "fires[1].position",
                "fires[2].flame_height",
                "fires[2].flicker",
                "fires[3].position"
            ],
            "{:?}",
            report.errors
        );
        assert!(report.errors[0].message.contains("outside the hall"));
        assert!(report.errors[3].message.contains("no pillar"));

        scene.fires = vec![Fire::default(); fires::MAX_FIRES + 1];
        let report = check(&scene);
        assert!(
            report.errors.iter().any(|p| p.field_path == "fires"
                && p.message.contains(&format!("at most {}", fires::MAX_FIRES))),
            "{:?}",
            report.errors
        );
        scene.fires.truncate(fires::MAX_FIRES);
        assert!(check(&scene).errors.is_empty());
    }

    #[test]
    fn height_fog_blocks_and_terrain_are_checked() {
        use crate::scene::{Block, Terrain};
        let mut scene = Scene::default();
        scene.distance_fog.height_falloff = -0.1;
        scene.distance_fog.max_opacity = 1.5;
        scene.distance_fog.density = f32::INFINITY;
        scene.distance_fog.start = 4.0;
        scene.hall.blocks = vec![
            Block::default(),
            Block {
                size: [1.0, 0.0, 1.0],
                ..Block::default()
            },
        ];
        scene.hall.terrain = Some(Terrain {
            resolution: 4,
            octaves: 0,
            ..Terrain::default()
        });
        let report = check(&scene);
        let paths: Vec<&str> = report
            .errors
            .iter()
            .map(|p| p.field_path.as_str())
            .collect();
        assert_eq!(
            paths,
            [
                "distance_fog.density",
                "distance_fog.height_falloff",
                "distance_fog.max_opacity",
                "hall.blocks[1].size[1]",
                "hall.terrain.resolution",
                "hall.terrain.octaves",
            ],
            "{:?}",
            report.errors
        );
        assert!(report.errors[1].message.contains("0..=100"));
        // `start` means nothing to the linear fog.
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.field_path == "distance_fog.start"),
            "{:?}",
            report.warnings
        );
        scene.distance_fog = crate::scene::DistanceFog {
            mode: FogMode::Exponential,
            height_falloff: 0.3,
            start: 4.0,
            ..Default::default()
        };
        scene.hall.blocks.truncate(1);
        scene.hall.terrain = Some(Terrain::default());
        let report = check(&scene);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn dark_scene_warns() {
        let mut scene = Scene::default();
        scene.lights.ambient.intensity = 0.0;
        scene.lights.directional.intensity = 0.0;
        scene.lights.ball.intensity = 0.0;
        let report = check(&scene);
        assert!(report.errors.is_empty());
        assert!(report.warnings.iter().any(|w| w.message.contains("black")));
    }
}
