//! Checks of the lamps: how many, where (inside the hall, not inside a pillar), their light
//! values, a spot's cone and direction.

use super::Checker;
use crate::scene::Scene;
use crate::scene::lamps::{self, MAX_CONE_DEG, MAX_LAMPS, MIN_CONE_DEG};

pub(super) fn check_lamps(c: &mut Checker, scene: &Scene) {
    if scene.lamps.len() > MAX_LAMPS {
        c.error(
            "lamps",
            format!(
                "`lamps` has {} lamps, at most {MAX_LAMPS} are allowed",
                scene.lamps.len()
            ),
            "remove lamps".into(),
        );
    }
    let half = scene.hall.floor_size / 2.0;
    for (i, lamp) in scene.lamps.iter().enumerate() {
        let path = format!("lamps[{i}]");
        c.color(&format!("{path}.color"), lamp.color);
        c.range(&format!("{path}.intensity"), lamp.intensity, 0.0..=100.0);
        c.range(&format!("{path}.range"), lamp.range, 0.01..=1.0e3);
        c.range(&format!("{path}.fog_glow"), lamp.fog_glow, 0.0..=100.0);
        if let Some(cone) = lamp.cone_deg {
            c.range(
                &format!("{path}.cone_deg"),
                cone,
                MIN_CONE_DEG..=MAX_CONE_DEG,
            );
        }
        let direction = format!("{path}.direction");
        let [dx, dy, dz] = lamp.direction;
        let length = (dx * dx + dy * dy + dz * dz).sqrt();
        if !(length.is_finite() && length > 1e-6) {
            c.error(
                &direction,
                format!("`{direction}` is ({dx}, {dy}, {dz}), which points nowhere"),
                format!("set {direction} to a vector with a length, e.g. (0.0, -1.0, 0.0)"),
            );
        } else if lamp.cone_deg.is_none() && lamp.direction != [0.0, -1.0, 0.0] {
            c.warn(
                direction.clone(),
                format!("`{path}` is a point lamp (no `cone_deg`): it shines every way and ignores `direction`"),
                format!("give {path} a cone_deg to make it a spot, or leave direction out"),
            );
        }
        let [x, y, z] = lamp.position;
        let position = format!("{path}.position");
        if !lamp.position.iter().all(|v| v.is_finite()) || x.abs() > half || z.abs() > half {
            c.error(
                &position,
                format!(
                    "`{position}` is ({x}, {y}, {z}), outside the hall, whose floor spans -{half}..={half} on x and z"
                ),
                format!("move the lamp inside -{half}..={half} or enlarge hall.floor_size"),
            );
        } else if !(0.0..=100.0).contains(&y) {
            c.error(
                &position,
                format!(
                    "`{position}` has height {y}, allowed range is 0..=100 (the floor is at 0)"
                ),
                format!("set {position}'s y to a height in 0..=100"),
            );
        } else if let Some(pillar) = lamps::pillar_holding(&scene.hall, lamp.position) {
            c.warn(
                position.clone(),
                format!(
                    "`{position}` ({x}, {y}, {z}) is inside hall.pillars[{pillar}]: the pillar hides the lamp's light"
                ),
                format!("move {position} out of the pillar"),
            );
        }
    }
}
