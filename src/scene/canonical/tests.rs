//! Known answers and properties of the canonical scene encoding.

use super::*;
use crate::scene::diagnostics::{SourceText, parse_document};
use crate::scene::{TEMPLE_RON, load};

fn parse(text: &str) -> Scene {
    parse_document(&SourceText::new("test.ron", text)).expect("the test scene parses")
}

#[test]
fn the_bytes_are_as_documented() {
    #[derive(Serialize)]
    struct Inner {
        z: f32,
        a: Option<u8>,
    }
    #[derive(Serialize)]
    enum Mode {
        Off,
        Fixed { fov: f64 },
    }
    #[derive(Serialize)]
    struct Doc {
        name: String,
        list: Vec<Inner>,
        modes: (Mode, Mode),
        flag: bool,
        step: i32,
    }
    let doc = Doc {
        name: "ab".into(),
        list: vec![Inner { z: 1.0, a: None }],
        modes: (Mode::Off, Mode::Fixed { fov: 0.5 }),
        flag: true,
        step: -2,
    };
    let mut expected: Vec<u8> = b"fogbank-scene\0".to_vec();
    expected.extend(1u32.to_le_bytes());
    let name = |out: &mut Vec<u8>, s: &str| {
        out.extend((s.len() as u64).to_le_bytes());
        out.extend(s.as_bytes());
    };
    expected.push(0x10);
    expected.extend(5u64.to_le_bytes());
    // Fields sorted by name: flag, list, modes, name, step.
    name(&mut expected, "flag");
    expected.push(0x02);
    name(&mut expected, "list");
    expected.push(0x0E);
    expected.extend(1u64.to_le_bytes());
    expected.push(0x10);
    expected.extend(2u64.to_le_bytes());
    name(&mut expected, "a");
    expected.push(0x0C);
    name(&mut expected, "z");
    expected.push(0x07);
    expected.extend(1.0f32.to_bits().to_le_bytes());
    name(&mut expected, "modes");
    expected.push(0x0E);
    expected.extend(2u64.to_le_bytes());
    expected.push(0x11);
    name(&mut expected, "Off");
    expected.push(0x00);
    expected.push(0x11);
    name(&mut expected, "Fixed");
    expected.push(0x10);
    expected.extend(1u64.to_le_bytes());
    name(&mut expected, "fov");
    expected.push(0x08);
    expected.extend(0.5f64.to_bits().to_le_bytes());
    name(&mut expected, "name");
    expected.push(0x0A);
    name(&mut expected, "ab");
    name(&mut expected, "step");
    expected.push(0x04);
    expected.extend((-2i64).to_le_bytes());
    assert_eq!(encode(&doc, &[]).unwrap(), expected);
}

#[test]
fn known_answers_for_the_default_scenes() {
    // These numbers are the scene hashes of fogbank's own scenes. If one changes, every
    // render manifest and simulation cache changes with it: that must be on purpose (a
    // new FORMAT_VERSION, or a changed default), never a side effect. (Changed on purpose
    // when the fluid's strengths and speed_scale moved from cells to world units, and the
    // simulation hash when it stopped reading the look-only sections.)
    let temple = load(None, &[]).expect("the embedded temple loads").scene;
    assert_eq!(temple.content_hash(), 0xd998_00f0_9d61_2365);
    assert_eq!(temple.simulation_hash(), 0xefb0_3d00_6f66_0b15);
    let defaults = Scene::default();
    assert_eq!(defaults.content_hash(), 0x59c4_f55c_60c5_215b);
    assert_eq!(defaults.simulation_hash(), 0x877f_e510_4108_f19b);
}

#[test]
fn the_order_fields_are_written_in_does_not_matter() {
    let a = parse(
        "(name: \"a\", fog: (sheets: 30, top: 1.5), output: (width: 320, height: 180), \
         camera: Fixed(position: (0.0, 5.0, 9.0), target: (0.0, 0.0, 0.0)))",
    );
    let b = parse(
        "(camera: Fixed(target: (0.0, 0.0, 0.0), position: (0.0, 5.0, 9.0)), \
         output: (height: 180, width: 320), fog: (top: 1.5, sheets: 30), name: \"a\")",
    );
    assert_eq!(a, b);
    assert_eq!(a.content_hash(), b.content_hash());
    // The whole temple with its sections written in reverse order.
    let tree = crate::scene::diagnostics::parse_loose(TEMPLE_RON);
    let sections: Vec<&str> = tree
        .root
        .entries
        .iter()
        .rev()
        .map(|entry| {
            let start = entry.key.as_ref().map_or(entry.value.start, |k| k.start);
            &TEMPLE_RON[start..entry.value.end]
        })
        .collect();
    assert_eq!(sections.len(), 11);
    assert!(sections[0].starts_with("background"), "{}", sections[0]);
    let reversed = parse(&format!("(\n{},\n)", sections.join(",\n")));
    let temple = parse(TEMPLE_RON);
    assert_eq!(reversed, temple);
    assert_eq!(reversed.content_hash(), temple.content_hash());
}

#[test]
fn any_change_of_a_value_changes_the_hash() {
    let base = Scene::default();
    let hash = base.content_hash();
    let mut changed = base.clone();
    changed.fog.sheets = 47;
    assert_ne!(changed.content_hash(), hash);
    let mut changed = base.clone();
    changed.fog.top = f32::from_bits(base.fog.top.to_bits() + 1);
    assert_ne!(changed.content_hash(), hash);
    let mut changed = base.clone();
    changed.name = "templf".into();
    assert_ne!(changed.content_hash(), hash);
    let mut changed = base.clone();
    changed.hall.pillars.pop();
    assert_ne!(changed.content_hash(), hash);
    let mut changed = base.clone();
    changed.camera = crate::scene::Camera::Fixed(Default::default());
    assert_ne!(changed.content_hash(), hash);
}

#[test]
fn the_simulation_hash_leaves_the_look_only_sections_out() {
    let base = Scene::default();
    let mut resized = base.clone();
    resized.output.width = 1920;
    resized.output.frames = Some(3);
    assert_ne!(resized.content_hash(), base.content_hash());
    assert_eq!(resized.simulation_hash(), base.simulation_hash());
    // A lamp, other lights, distance fog or background change the picture only.
    let mut relit = base.clone();
    relit.lamps.push(crate::scene::Lamp::default());
    relit.lights.ambient.intensity += 0.1;
    relit.distance_fog.far += 5.0;
    relit.background = [0.5, 0.1, 0.1];
    assert_ne!(relit.content_hash(), base.content_hash());
    assert_eq!(relit.simulation_hash(), base.simulation_hash());
    // The moon's shadows too: a look field, in the scene hash, out of the step hash.
    let mut shadowed = base.clone();
    shadowed.lights.directional.shadows = true;
    assert_ne!(shadowed.content_hash(), base.content_hash());
    assert_eq!(shadowed.simulation_hash(), base.simulation_hash());
    assert_eq!(shadowed.step_hash(), base.step_hash());
    // What the step reads moves it: the fluid, the fires (they warm the fog), the hall.
    let mut stirred = base.clone();
    stirred.fluid.vorticity = 8.0;
    assert_ne!(stirred.simulation_hash(), base.simulation_hash());
    let mut warmed = base.clone();
    warmed.fires.push(crate::scene::Fire::default());
    assert_ne!(warmed.simulation_hash(), base.simulation_hash());
    let mut rebuilt = base.clone();
    rebuilt.hall.pillar_radius += 0.1;
    assert_ne!(rebuilt.simulation_hash(), base.simulation_hash());
}

#[test]
fn features_a_scene_does_not_use_are_not_in_its_hash() {
    // Written out at their defaults or left out, they hash the same: the serialized scene
    // skips them, so adding such a feature to fogbank keeps older scenes' hashes.
    let plain = parse("(fog: (sheets: 12))");
    let spelt = parse(
        "(fog: (sheets: 12), fires: [], hall: (blocks: [], terrain: None), \
         distance_fog: (mode: linear, height_falloff: 0.0, max_opacity: 1.0), \
         lights: (directional: (shadows: false)))",
    );
    assert_eq!(plain, spelt);
    assert_eq!(plain.content_hash(), spelt.content_hash());
}

#[test]
fn clouds_and_water_change_the_scene_hash_but_not_the_step_hash() {
    let base = parse("(weather: (sky: Rain))");
    let mut cloudy = base.clone();
    cloudy.clouds = Some(crate::scene::Clouds::default());
    let mut flooded = cloudy.clone();
    flooded.water = Some(crate::scene::Water::default());
    let mut murkier = flooded.clone();
    if let Some(water) = murkier.water.as_mut() {
        water.density += 0.1;
    }
    let hashes = [&base, &cloudy, &flooded, &murkier].map(Scene::content_hash);
    for (i, a) in hashes.iter().enumerate() {
        for b in &hashes[i + 1..] {
            assert_ne!(a, b);
        }
    }
    for scene in [&cloudy, &flooded, &murkier] {
        assert_eq!(scene.step_hash(), base.step_hash());
        assert_eq!(scene.simulation_hash(), base.simulation_hash());
    }
    // Left out, they are not in the encoding at all.
    let spelt = parse("(weather: (sky: Rain), clouds: None, water: None)");
    assert_eq!(spelt.content_hash(), base.content_hash());
}
