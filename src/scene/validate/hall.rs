//! Checks of the scenery: the floor, the pillars inside it, the altar, the blocks and the
//! terrain round the hall.

use super::Checker;
use crate::scene::{Scene, Terrain};

pub(super) fn check_hall(c: &mut Checker, scene: &Scene) {
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

pub(super) fn check_blocks(c: &mut Checker, scene: &Scene) {
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

pub(super) fn check_terrain(c: &mut Checker, t: &Terrain, floor_size: f32) {
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
