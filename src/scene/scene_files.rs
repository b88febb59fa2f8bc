//! Tests that the scene files fogbank ships are what `scenes/README.md` says they are: the
//! temple is the defaults plus its fires, the example is the original temple example exactly,
//! and a scene that does not name a feature does not have it.

use std::path::Path;

use serde_json::Value;

use super::{AutoDrive, FireKind, Input, Scene, TEMPLE_RON, load};

const README: &str = include_str!("../../scenes/README.md");

/// Every number of `a` within half a unit of the third decimal of `b`'s (temple.ron writes
/// colours to three decimals), everything else equal.
fn assert_close(a: &Value, b: &Value, path: &str) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys_x: Vec<_> = x.keys().collect();
            let keys_y: Vec<_> = y.keys().collect();
            assert_eq!(keys_x, keys_y, "at {path}");
            for (k, v) in x {
                assert_close(v, &y[k], &format!("{path}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "at {path}");
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                assert_close(v, w, &format!("{path}[{i}]"));
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 5.0e-4, "at {path}: {x} vs {y}");
        }
        _ => assert_eq!(a, b, "at {path}"),
    }
}

#[test]
fn the_temple_is_the_defaults_plus_two_braziers_and_three_torches() {
    let loaded = load(None, &[]).expect("the embedded temple loads");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.source.text, TEMPLE_RON);
    let temple = loaded.scene;
    let kinds: Vec<FireKind> = temple.fires.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            FireKind::Brazier,
            FireKind::Brazier,
            FireKind::Torch,
            FireKind::Torch,
            FireKind::Torch,
        ]
    );
    // The defaults with the temple's fires: everything else is the defaults, spelt out.
    let expected = Scene {
        fires: temple.fires.clone(),
        ..Scene::default()
    };
    let a = serde_json::to_value(&temple).unwrap();
    let b = serde_json::to_value(&expected).unwrap();
    assert_close(&a, &b, "");
    // And the README says just that.
    assert!(
        README.contains(
            "plus one section the defaults do not have:\n  `fires`, two braziers and three torches"
        ),
        "scenes/README.md no longer describes temple.ron"
    );
}

#[test]
fn a_scene_that_does_not_name_fires_has_none() {
    assert!(Scene::default().fires.is_empty());
    for path in [
        "scenes/example.ron",
        "scenes/valley.ron",
        "tests/scenes/tiny.ron",
    ] {
        let scene = load(Some(Path::new(path)), &[]).expect("loads").scene;
        let text = std::fs::read_to_string(path).unwrap();
        if !text.contains("fires:") {
            assert!(scene.fires.is_empty(), "{path} grew fires");
        }
    }
}

#[test]
fn the_example_is_the_original_temple_example() {
    let loaded = load(Some(Path::new("scenes/example.ron")), &[]).expect("example.ron loads");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let mut expected = Scene {
        name: "example".into(),
        ..Scene::default()
    };
    expected.ball.script = vec![Input::Auto(AutoDrive {
        first_jump: 2.5,
        jump_every: [5.0, 8.0],
        ..AutoDrive::default()
    })];
    expected.fluid.vorticity_threshold = 0.0;
    assert_eq!(loaded.scene, expected);
    assert!(loaded.scene.fires.is_empty());
    assert!(README.contains("`example.ron` is the original temple example exactly"));
}

#[test]
fn the_walkway_is_the_people_in_fog_scene_the_readme_describes() {
    use crate::scene::{Camera, FogShape, FollowSubject};
    use crate::sim::{FogModel, PressureSolverKind};
    let loaded = load(Some(Path::new("scenes/walkway.ron")), &[]).expect("walkway.ron loads");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let scene = loaded.scene;
    // A 12.8-unit square under a 256² grid: 5 cm cells.
    assert_eq!((scene.fog.area, scene.hall.floor_size), (12.8, 12.8));
    assert_eq!(scene.fluid.grid, 256);
    assert_eq!(scene.fluid.solver, PressureSolverKind::Multigrid);
    // 16 sheets 2.5 cm apart, the top one 37.5 cm up, thin fog kept low.
    assert_eq!(scene.fog.sheets, 16);
    assert!((scene.fog.sheet_spacing() - 0.025).abs() < 1e-6);
    assert!((scene.fog.sheet_height(15) - 0.3875).abs() < 1e-6);
    assert_eq!(scene.fog.shape, FogShape::DensityHeight);
    let FogModel::Sources { sources, fade } = &scene.fluid.fog else {
        panic!("the walkway's fog comes from sources");
    };
    assert_eq!((sources.len(), *fade > 0.0), (32, true));
    assert_eq!(scene.fluid.streams.len(), 3);
    assert_eq!(scene.walkers.len(), 2);
    assert_eq!(scene.lamps.len(), 1);
    assert!(scene.lamps[0].shadows);
    let Camera::Follow(follow) = &scene.camera else {
        panic!("the walkway's camera follows");
    };
    assert_eq!(follow.subject, FollowSubject::Walker(0));
    assert!(scene.hall.pillars.is_empty());
    assert!(README.contains("`walkway.ron`"));
}

#[test]
fn the_moonlit_temple_is_the_temple_under_a_low_shadowing_moon() {
    use crate::scene::Phase;
    let loaded = load(Some(Path::new("scenes/moonlit.ron")), &[]).expect("moonlit.ron loads");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let scene = loaded.scene;
    let temple = load(None, &[]).expect("the temple loads").scene;
    // The default hall (the temple's), and the temple's fires in their places (the braziers
    // burn brighter, through the fog that dims their light).
    assert_eq!(scene.hall, Scene::default().hall);
    let placed = |fires: &[crate::scene::Fire]| -> Vec<_> {
        fires
            .iter()
            .map(|fire| (fire.kind, fire.mount, fire.position, fire.flame_height))
            .collect()
    };
    assert_eq!(placed(&scene.fires), placed(&temple.fires));
    assert!(scene.fires[0].light_intensity > temple.fires[0].light_intensity);
    // A moon about 20° up, behind the hall (its light travels toward +z), casting shadows.
    let moon = &scene.lights.directional;
    assert!(moon.shadows);
    let [_, down, toward_camera] = moon.direction_world();
    assert!((-down).asin().to_degrees() > 15.0 && (-down).asin().to_degrees() < 25.0);
    assert!(toward_camera > 0.5);
    // The physical medium with a Mie phase.
    let Some(physical) = scene.fog.medium.physical() else {
        panic!("the moonlit fog is physical");
    };
    assert!(matches!(physical.phase, Phase::Mie(_)));
    assert!(
        README.contains("`moonlit.ron` | the temple at night under a low moon: shadows and shafts")
    );
}
