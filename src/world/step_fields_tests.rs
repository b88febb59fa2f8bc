//! Which side of the step hash each scene field falls on, field by field.
//!
//! The table below names every field of the scene format (as the JSON Schema lists them) as
//! read by the world's step or not. Each field is changed in turn, in every scene here that has
//! it, the way `--set` would change it: a step field must change [`Scene::step_hash`]; a look
//! field must leave it alone, and a snapshot of the unchanged scene, restored into the changed
//! one and stepped on, must reach exactly the state the changed scene's own world reaches.

use std::collections::BTreeMap;

use serde_json::Value;

use super::World;
use crate::scene::{self, Scene};

/// Read by the step (in the step hash) or only by the picture (left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Step,
    Look,
}
use Side::{Look, Step};

/// Every field of the scene format, or a whole section on one side. A path names a list's
/// elements by the list's own path and an enum's payload by the variant.
const SIDES: &[(&str, Side)] = &[
    ("name", Look),
    ("output", Look),
    ("lights", Look),
    ("distance_fog", Look),
    ("lamps", Look),
    ("background", Look),
    ("clouds", Look),
    ("water", Look),
    ("camera.Fixed", Look),
    ("camera.Keyframed", Look),
    ("camera.Follow.start", Step),
    ("camera.Follow.lag_rate", Step),
    ("camera.Follow.track", Step),
    ("camera.Follow.back", Step),
    ("camera.Follow.subject", Step),
    ("camera.Follow.look_height", Look),
    ("camera.Follow.fov_y_deg", Look),
    ("ball.radius", Step),
    ("ball.start", Step),
    ("ball.accel", Step),
    ("ball.gravity", Step),
    ("ball.jump", Step),
    ("ball.limit", Step),
    ("ball.drag", Step),
    ("ball.stop_drag", Step),
    ("ball.pillar_clearance", Step),
    ("ball.altar_clearance", Step),
    ("ball.bounce", Step),
    ("ball.script", Step),
    ("ball.color", Look),
    ("ball.emissive", Look),
    ("fog.area", Step),
    ("fog.bottom", Step),
    ("fog.top", Step),
    ("fog.sheets", Look),
    ("fog.sheets_top", Look),
    ("fog.lift_height", Look),
    ("fog.sigma", Look),
    ("fog.veil_sigma", Look),
    ("fog.offset_range", Look),
    ("fog.color", Look),
    ("fog.glow", Look),
    ("fog.glow_color", Look),
    ("fog.wind", Look),
    ("fog.flow_every", Look),
    ("fog.shape", Look),
    ("fog.medium", Look),
    ("fluid.speed_scale", Look),
    ("fluid.grid", Step),
    ("fluid.pressure_iterations", Step),
    ("fluid.solver", Step),
    ("fluid.sor_omega", Step),
    ("fluid.multigrid_cycles", Step),
    ("fluid.vorticity", Step),
    ("fluid.vorticity_threshold", Step),
    ("fluid.velocity_decay", Step),
    ("fluid.shock_fade", Step),
    ("fluid.refill", Step),
    ("fluid.spill", Step),
    ("fluid.relax", Step),
    ("fluid.settle", Step),
    ("fluid.continuity", Step),
    ("fluid.drift_limit", Step),
    ("fluid.max_density", Step),
    ("fluid.solid_margin", Step),
    ("fluid.ball_reach", Step),
    ("fluid.ball_ring", Step),
    ("fluid.ball_take", Step),
    ("fluid.ball_rise_lift", Step),
    ("fluid.shock_to_air", Step),
    ("fluid.takeoff_radius", Step),
    ("fluid.takeoff_strength", Step),
    ("fluid.takeoff_raise", Step),
    ("fluid.landing_radius", Step),
    ("fluid.landing_strength", Step),
    ("fluid.landing_raise_per_speed", Step),
    ("fluid.landing_min_speed", Step),
    ("fluid.fog_depth_fade", Step),
    ("fluid.fog_depth_margin", Step),
    ("fluid.fog", Step),
    ("fluid.viscosity", Step),
    ("fluid.fog_diffusion", Step),
    ("fluid.projections", Step),
    ("fluid.streams", Step),
    ("fires.position", Step),
    ("fires.flame_height", Step),
    ("fires.ember", Step),
    ("fires.kind", Look),
    ("fires.mount", Look),
    ("fires.color", Look),
    ("fires.light_intensity", Look),
    ("fires.light_range", Look),
    ("fires.flicker", Look),
    ("fires.glow", Look),
    ("fires.phase_rad", Look),
    ("hall.pillars", Step),
    ("hall.pillar_radius", Step),
    ("hall.altar.center", Step),
    ("hall.altar.width", Step),
    ("hall.altar.depth", Step),
    ("hall.blocks.bottom_center", Step),
    ("hall.blocks.size", Step),
    ("hall.floor_size", Look),
    ("hall.tile_size", Look),
    ("hall.floor_colors", Look),
    ("hall.joint_color", Look),
    ("hall.pillar_height", Look),
    ("hall.capital_size", Look),
    ("hall.capital_height", Look),
    ("hall.pillar_colors", Look),
    ("hall.altar.height", Look),
    ("hall.altar.color", Look),
    ("hall.blocks.color", Look),
    ("hall.terrain", Look),
    ("walkers.path", Step),
    ("walkers.radius", Step),
    ("walkers.push", Step),
    ("walkers.clear", Step),
    ("walkers.height", Look),
    ("walkers.color", Look),
    ("weather.sky", Step),
    ("weather.changes", Step),
    ("weather.skies", Step),
    ("weather.rates", Step),
    ("weather.wind.direction", Step),
    ("weather.wind.gust_share", Step),
    ("weather.wind.wander_rad", Step),
    ("weather.wind.cycle_s", Step),
    ("weather.wind.phase_s", Step),
    ("weather.wind.drag", Step),
    ("weather.wind.pile_share", Step),
    ("weather.wind.noise_share", Look),
    ("weather.lightning.seed", Step),
    ("weather.lightning.first_after_s", Step),
    ("weather.lightning.gap_min_s", Step),
    ("weather.lightning.gap_max_s", Step),
    ("weather.lightning.flash_ambient", Look),
    ("weather.gloom_far_share", Look),
    ("weather.storm_fog_color", Look),
    ("weather.storm_ambient_color", Look),
    ("weather.storm_ambient_intensity", Look),
];

/// Whether `path` is `entry` or lies under it.
fn under(path: &str, entry: &str) -> bool {
    path == entry || path.starts_with(&format!("{entry}."))
}

/// The side of a schema field: the one table entry it lies under.
fn side_of(path: &str) -> Side {
    let matches: Vec<_> = SIDES.iter().filter(|(e, _)| under(path, e)).collect();
    assert_eq!(matches.len(), 1, "{path} is under {matches:?} in SIDES");
    matches[0].1
}

/// Each field of the scene format as a path, with the names of its unit variants when it is
/// an enum that has some (so a test can switch to another).
fn schema_fields() -> BTreeMap<String, Vec<String>> {
    let schema = scene::json_schema();
    let mut fields = BTreeMap::new();
    walk_schema(&schema, &schema, "", &mut fields);
    fields
}

fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    while let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or_default();
        node = &root["$defs"][name];
    }
    node
}

fn walk_schema(root: &Value, node: &Value, path: &str, out: &mut BTreeMap<String, Vec<String>>) {
    let node = resolve(root, node);
    let join = |name: &str| crate::scene::canonical::field_path(path, name);
    if let Some(alternatives) = node
        .get("oneOf")
        .or_else(|| node.get("anyOf"))
        .and_then(Value::as_array)
    {
        for alternative in alternatives.iter().map(|a| resolve(root, a)) {
            match alternative.get("type").and_then(Value::as_str) {
                Some("null") => {}
                Some("string") => {
                    let names = out.entry(path.to_string()).or_default();
                    if let Some(name) = alternative.get("const").and_then(Value::as_str) {
                        names.push(name.to_string());
                    }
                }
                _ => match alternative.get("properties").and_then(Value::as_object) {
                    // An externally tagged variant with a payload: its name is a segment.
                    Some(props) if props.len() == 1 && alternative.get("required").is_some() => {
                        let (variant, payload) = props.iter().next().expect("one property");
                        walk_schema(root, payload, &join(variant), out);
                    }
                    _ => walk_schema(root, alternative, path, out),
                },
            }
        }
        return;
    }
    match node.get("type").and_then(Value::as_str) {
        Some("object") if node.get("properties").is_some() => {
            for (name, field) in node["properties"].as_object().expect("properties") {
                walk_schema(root, field, &join(name), out);
            }
        }
        Some("array") if node.get("items").is_some_and(Value::is_object) => {
            let items = resolve(root, &node["items"]);
            let nested = items.get("properties").is_some()
                || items.get("oneOf").is_some()
                || items.get("anyOf").is_some();
            if nested {
                walk_schema(root, items, path, out);
            } else {
                out.entry(path.to_string()).or_default();
            }
        }
        _ => {
            out.entry(path.to_string()).or_default();
        }
    }
}

/// Changes the first number (or flag, text or option) found in `value`: what a `--set` of
/// that field to another valid value does. `variants` are the field's unit variants.
fn change(value: &mut Value, variants: &[String]) -> bool {
    match value {
        Value::Number(n) => {
            *value = if let Some(u) = n.as_u64() {
                Value::from(u + 1)
            } else {
                let x = n.as_f64().expect("a number");
                Value::from(x + 0.25 + x.abs() * 0.25)
            };
            true
        }
        Value::Bool(b) => {
            *b = !*b;
            true
        }
        Value::Null => {
            *value = Value::from(1);
            true
        }
        Value::String(s) => {
            match variants.iter().find(|v| *v != s) {
                Some(other) if variants.contains(s) => *s = other.clone(),
                _ => s.push('x'),
            }
            true
        }
        // An enum's payload variant switched to one of its unit variants.
        Value::Object(_) if !variants.is_empty() => {
            *value = Value::from(variants[0].clone());
            true
        }
        Value::Array(items) => items.iter_mut().any(|item| change(item, &[])),
        Value::Object(map) => map.values_mut().any(|item| change(item, &[])),
    }
}

/// `doc` with the field at `path` changed in every list element it is in; false when the
/// document has no such field.
fn change_at(doc: &mut Value, path: &[&str], variants: &[String]) -> bool {
    match doc {
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |any, item| change_at(item, path, variants) | any),
        Value::Object(map) => match path.split_first() {
            None => change(doc, variants),
            Some((first, rest)) => map
                .get_mut(*first)
                .is_some_and(|field| change_at(field, rest, variants)),
        },
        _ if path.is_empty() => change(doc, variants),
        _ => false,
    }
}

/// The scenes fogbank ships, and one with the variants they leave out (a keyframed camera, a
/// `Move` input, a timed walker, the physical fog medium with a Mie phase), one with the fields
/// they leave out at their defaults (clouds and water among them), on a small grid so that
/// stepping them is quick.
fn scenes() -> Vec<Scene> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut scenes: Vec<Scene> = ["temple", "storm", "valley", "walkway", "example", "moonlit"]
        .iter()
        .map(|name| {
            let path = dir.join(format!("{name}.ron"));
            scene::load(Some(&path), &[])
                .expect("a shipped scene")
                .scene
        })
        .collect();
    let mut extra = scenes[0].clone();
    extra.camera = scene::Camera::Keyframed(scene::KeyframedCamera {
        keys: vec![
            scene::CameraKey::default(),
            scene::CameraKey {
                time_s: 1.0,
                ..scene::CameraKey::default()
            },
        ],
    });
    extra.ball.script.push(scene::Input::Move(scene::Move {
        at: 0.2,
        duration: Some(0.3),
        direction: [1.0, 0.0],
    }));
    extra.walkers.push(scene::Walker::default());
    extra.fog.medium = scene::FogMedium::Physical(scene::PhysicalMedium {
        phase: scene::Phase::Mie(12.0),
        ..scene::PhysicalMedium::default()
    });
    scenes.push(extra);
    // Fields a scene leaves out at their defaults, set to something else.
    let mut spelt = scenes[1].clone();
    spelt.distance_fog.max_opacity = 0.9;
    spelt.distance_fog.start = 1.0;
    spelt.output.fog_resolution = scene::FogResolution::Half;
    spelt.output.samples = Some(2);
    spelt.output.edge_samples = Some(8);
    spelt.output.shutter = 0.5;
    spelt.output.stamp = scene::StampPlace::Top;
    spelt.output.caption = Some("take 3".into());
    spelt.fog.medium = scene::FogMedium::Physical(scene::PhysicalMedium::default());
    spelt.lights.ambient.ground = Some([0.2, 0.15, 0.1]);
    spelt.lights.directional.shadows = true;
    spelt.clouds = Some(scene::Clouds::default());
    spelt.water = Some(scene::Water::default());
    let fluid = &mut spelt.fluid;
    (fluid.fog_diffusion, fluid.viscosity, fluid.sor_omega) = (0.05, 0.01, 1.6);
    (fluid.multigrid_cycles, fluid.projections) = (fluid.multigrid_cycles + 1, 2);
    let weather = spelt.weather.as_mut().expect("the storm has weather");
    let sky = scene::weather::SkyOverride {
        fog_density: Some(0.5),
        gloom: Some(0.1),
        rain: Some(0.2),
        wind: Some(0.3),
    };
    weather.skies = scene::weather::Skies {
        clear: sky.clone(),
        rain: sky.clone(),
        storm: sky,
    };
    scenes.push(spelt);
    for scene in &mut scenes {
        scene.fluid.grid = 32;
    }
    scenes
}

const STEPS_BEFORE_SNAPSHOT: usize = 30;
const STEPS_AFTER_SNAPSHOT: usize = 15;

fn stepped(mut world: World, steps: usize) -> World {
    for _ in 0..steps {
        world.step();
    }
    world
}

#[test]
fn the_table_names_every_field_of_the_scene_format_once() {
    let fields = schema_fields();
    assert!(fields.len() > 150, "{} fields", fields.len());
    for path in fields.keys() {
        side_of(path);
    }
    for (entry, _) in SIDES {
        assert!(
            fields.keys().any(|path| under(path, entry)),
            "{entry} in SIDES is no field of the scene format"
        );
    }
    // The production list and the table agree.
    for path in fields.keys() {
        let listed = crate::scene::canonical::LOOK_FIELDS
            .iter()
            .any(|look| under(path, look));
        assert_eq!(listed, side_of(path) == Look, "{path}");
    }
}

#[test]
fn each_field_falls_on_its_side_of_the_step_hash() {
    let fields = schema_fields();
    let scenes = scenes();
    let snapshots: Vec<Vec<u8>> = scenes
        .iter()
        .map(|s| stepped(World::new(s), STEPS_BEFORE_SNAPSHOT).snapshot())
        .collect();
    let mut unchanged = Vec::new();
    for (path, variants) in &fields {
        let side = side_of(path);
        let segments: Vec<&str> = path.split('.').collect();
        let mut changed_somewhere = false;
        for (base, snapshot) in scenes.iter().zip(&snapshots) {
            let mut doc = serde_json::to_value(base).expect("scenes serialize");
            if !change_at(&mut doc, &segments, variants) {
                continue;
            }
            let changed: Scene = serde_json::from_value(doc)
                .unwrap_or_else(|e| panic!("{path} changed does not read back: {e}"));
            assert_ne!(changed.content_hash(), base.content_hash(), "{path}");
            changed_somewhere = true;
            if side == Step {
                assert_ne!(changed.step_hash(), base.step_hash(), "{path} is read");
                continue;
            }
            assert_eq!(changed.step_hash(), base.step_hash(), "{path} is look");
            let restored = World::restore(&changed, snapshot)
                .unwrap_or_else(|e| panic!("{path}: the snapshot is refused: {e}"));
            let restored = stepped(restored, STEPS_AFTER_SNAPSHOT);
            let fresh = stepped(
                World::new(&changed),
                STEPS_BEFORE_SNAPSHOT + STEPS_AFTER_SNAPSHOT,
            );
            assert_eq!(
                restored.state_hash(),
                fresh.state_hash(),
                "{path} is not read by the step, yet a restored world differs from a fresh one \
                 in {}",
                base.name
            );
        }
        if !changed_somewhere {
            unchanged.push(path.clone());
        }
    }
    assert!(
        unchanged.is_empty(),
        "fields no scene here has: {unchanged:?}"
    );
}
