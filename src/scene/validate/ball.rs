//! Checks of the ball and its script: sizes and rates, the start inside the hall, and every
//! timed input's times and values.

use super::Checker;
use crate::scene::{Input, Scene};

pub(super) fn check_ball(c: &mut Checker, scene: &Scene) {
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
