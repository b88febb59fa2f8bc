//! Tests of the range checks and warnings, one scene value at a time.

use super::*;
use crate::scene::FogMode;
use crate::scene::fires::{self, Fire, FireKind, TorchMount};

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
fn pressure_solver_values_are_checked_and_named() {
    for (omega, cycles, bad) in [
        (0.0, 2, Some("fluid.sor_omega")),
        (2.0, 2, Some("fluid.sor_omega")),
        (-1.0, 2, Some("fluid.sor_omega")),
        (f32::NAN, 2, Some("fluid.sor_omega")),
        (1.85, 0, Some("fluid.multigrid_cycles")),
        (1.0, 1, None),
        (1.99, 1000, None),
    ] {
        let mut scene = Scene::default();
        scene.fluid.solver = crate::sim::PressureSolverKind::Multigrid;
        scene.fluid.sor_omega = omega;
        scene.fluid.multigrid_cycles = cycles;
        let report = check(&scene);
        let paths: Vec<&str> = report
            .errors
            .iter()
            .map(|p| p.field_path.as_str())
            .collect();
        match bad {
            Some(path) => {
                assert_eq!(paths, [path], "omega {omega}, cycles {cycles}");
                let problem = &report.errors[0];
                assert!(problem.message.contains(path), "{}", problem.message);
                assert!(problem.help.contains(path), "{}", problem.help);
            }
            None => assert!(
                paths.is_empty(),
                "omega {omega}, cycles {cycles}: {paths:?}"
            ),
        }
    }
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

#[test]
fn lamps_are_checked_for_range_cone_place_and_count() {
    use crate::scene::Lamp;
    use crate::scene::lamps::MAX_LAMPS;
    let [px, pz] = Scene::default().hall.pillars[0];
    let lamps = vec![
        Lamp {
            intensity: -1.0,
            range: -2.0,
            ..Lamp::default()
        },
        Lamp {
            cone_deg: Some(95.0),
            direction: [0.0, 0.0, 0.0],
            ..Lamp::default()
        },
        Lamp {
            position: [px, 1.5, pz],
            ..Lamp::default()
        },
        Lamp {
            position: [40.0, 1.0, 0.0],
            ..Lamp::default()
        },
    ];
    let mut scene = Scene {
        lamps,
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
            "lamps[0].intensity",
            "lamps[0].range",
            "lamps[1].cone_deg",
            "lamps[1].direction",
            "lamps[3].position",
        ],
        "{:?}",
        report.errors
    );
    let warnings: Vec<&str> = report
        .warnings
        .iter()
        .map(|p| p.field_path.as_str())
        .collect();
    assert_eq!(warnings, ["lamps[2].position"], "{:?}", report.warnings);
    assert!(
        report.warnings[0]
            .message
            .contains("inside hall.pillars[0]")
    );
    assert!(report.errors[2].message.contains("allowed range is 1..=80"));

    scene.lamps = vec![Lamp::default(); MAX_LAMPS + 1];
    let report = check(&scene);
    assert!(
        report
            .errors
            .iter()
            .any(|p| p.field_path == "lamps" && p.message.contains("at most 4")),
        "{:?}",
        report.errors
    );
    scene.lamps.truncate(MAX_LAMPS);
    assert!(check(&scene).errors.is_empty());
}

#[test]
fn fluid_sources_streams_and_stages_are_checked_and_named() {
    use crate::sim::{FluidStream, FogModel, FogSource};
    let mut scene = Scene::default();
    let source = |position, radius, rate| FogSource {
        position,
        radius,
        rate,
    };
    scene.fluid.fog = FogModel::Sources {
        sources: vec![
            source([0.0, 0.0], 1.0, -0.5),
            source([0.0, 0.0], 1.0, 1.0),
            source([3.0, -2.0], 0.0, 1.0),
            source([12.0, 0.0], 1.0, 1.0),
        ],
        fade: -1.0,
    };
    scene.fluid.streams = vec![FluidStream {
        position: [0.0, -11.5],
        direction: [0.0, 0.0],
        radius: 2.0,
        strength: 1.0,
        period_s: -3.0,
        swing_deg: 45.0,
    }];
    scene.fluid.viscosity = -0.1;
    scene.fluid.fog_diffusion = f32::NAN;
    scene.fluid.projections = 3;
    let report = check(&scene);
    let paths: Vec<&str> = report
        .errors
        .iter()
        .map(|p| p.field_path.as_str())
        .collect();
    for path in [
        "fluid.fog.fade",
        "fluid.fog.sources[0].rate",
        "fluid.fog.sources[2].radius",
        "fluid.fog.sources[3].position",
        "fluid.streams[0].position",
        "fluid.streams[0].direction",
        "fluid.streams[0].period_s",
        "fluid.viscosity",
        "fluid.fog_diffusion",
        "fluid.projections",
    ] {
        assert!(paths.contains(&path), "no error for {path}: {paths:?}");
    }
    assert!(
        !paths.contains(&"fluid.fog.sources[1].position"),
        "{paths:?}"
    );
    let outside = report
        .errors
        .iter()
        .find(|p| p.field_path == "fluid.fog.sources[3].position")
        .unwrap();
    assert!(
        outside.message.contains("outside the fog's area"),
        "{outside:?}"
    );

    // A clean use of every new field passes; a large grid with sweeps warns.
    scene.fluid.fog = FogModel::Sources {
        sources: vec![source([10.9, -10.9], 1.0, 1.0)],
        fade: 0.5,
    };
    scene.fluid.streams[0].position = [0.0, 0.0];
    scene.fluid.streams[0].direction = [1.0, 0.0];
    scene.fluid.streams[0].period_s = 4.0;
    scene.fluid.viscosity = 0.01;
    scene.fluid.fog_diffusion = 0.01;
    scene.fluid.projections = 2;
    let report = check(&scene);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    scene.fluid.grid = 256;
    let report = check(&scene);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.field_path == "fluid.solver"),
        "{:?}",
        report.warnings
    );
}

#[test]
fn moon_shadows_of_no_light_warn() {
    let mut scene = Scene::default();
    scene.lights.directional.shadows = true;
    assert!(check(&scene).warnings.is_empty());
    scene.lights.directional.intensity = 0.0;
    let report = check(&scene);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert_eq!(report.warnings[0].field_path, "lights.directional.shadows");
    assert!(report.warnings[0].message.contains("intensity"));
    scene.lights.directional.intensity = 0.5;
    scene.lights.directional.pitch_rad = 0.3;
    let report = check(&scene);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(report.warnings[0].message.contains("does not come down"));
    // Without shadows, the same light warns of nothing.
    scene.lights.directional.shadows = false;
    assert!(check(&scene).warnings.is_empty());
}
