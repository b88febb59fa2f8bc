//! Checks of the torches and braziers: how many, where (inside the hall, a bracket near a
//! pillar), and their flame and light values.

use super::Checker;
use crate::scene::Scene;
use crate::scene::fires::{self, FireKind, TorchMount};

pub(super) fn check_fires(c: &mut Checker, scene: &Scene) {
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
