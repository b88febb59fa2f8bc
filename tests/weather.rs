//! Weather without a GPU: the sky's quantities ease at their documented rates, the wind
//! repeats exactly after its cycle, lightning strikes at the same moments at any frame rate,
//! a storm's wind moves the air and piles the fog against a pillar while a windless sky leaves
//! the fluid exactly as it was, a world with weather restores from a snapshot exactly, and bad
//! `weather` input is a clear error naming the field.

mod common;

use common::{fogbank, fogbank_env, fogbank_ok, stderr, stdout, temp_dir};
use fogbank::playback::Playback;
use fogbank::scene::weather::{SkyChange, SkyKind, SkyOverride, Weather};
use fogbank::scene::{Scene, load};
use fogbank::weather::WeatherState;
use fogbank::weather::bolt::bolt_at;
use fogbank::weather::wind::sample;
use fogbank::world::World;

/// Steps in `seconds`, at 60 Hz.
fn steps(seconds: f64) -> u64 {
    (seconds * 60.0).round() as u64
}

/// A weather that starts `from` and turns `to` at `at` seconds.
fn turning(from: SkyKind, at: f64, to: SkyKind) -> Weather {
    Weather {
        sky: from,
        changes: vec![SkyChange { at, sky: to }],
        ..Weather::default()
    }
}

#[test]
fn every_quantity_eases_toward_its_target_at_its_documented_rate() {
    let weather = turning(SkyKind::Clear, 1.0, SkyKind::Storm);
    let mut state = WeatherState::new(&weather);
    assert_eq!(state.sky, SkyKind::Clear);
    assert_eq!((state.gloom, state.rain, state.wind_base), (0.0, 0.0, 3.0));
    assert_eq!(state.fog_density, 0.003);
    let mut step = 0;
    while step < steps(1.0) {
        state.step(&weather, step);
        step += 1;
    }
    assert_eq!((state.gloom, state.rain, state.wetness), (0.0, 0.0, 0.0));
    // Two seconds into the storm: gloom 0.3/s, rain 0.4/s, wind 2/s, fog 0.004/s.
    while step < steps(3.0) {
        state.step(&weather, step);
        step += 1;
    }
    assert_eq!(state.sky, SkyKind::Storm);
    let close = |value: f32, expected: f32, what: &str| {
        assert!(
            (value - expected).abs() < 1e-4,
            "{what}: {value}, expected {expected}"
        );
    };
    close(state.gloom, 0.6, "gloom after 2 s");
    close(state.rain, 0.8, "rain after 2 s");
    close(state.wind_base, 7.0, "wind after 2 s");
    close(state.fog_density, 0.011, "fog density after 2 s");
    // Wetting starts at the step rain passes 0.05 (its 8th, rain 8 · 0.4/60), at 0.3/s.
    close(state.wetness, 0.3 * (2.0 - 7.0 / 60.0), "wetness after 2 s");
    // The targets are reached and held: gloom at 1 after 1/0.3 s, rain at 1 after 2.5 s.
    while step < steps(6.0) {
        state.step(&weather, step);
        step += 1;
    }
    assert_eq!((state.gloom, state.rain, state.wind_base), (1.0, 1.0, 9.0));
    assert_eq!(state.fog_density, 0.014);
    assert_eq!(state.wetness, 1.0);
    // Clear again: the ground dries at 0.02/s once the rain is under 0.05.
    let drying = Weather {
        changes: vec![
            SkyChange {
                at: 0.0,
                sky: SkyKind::Storm,
            },
            SkyChange {
                at: 6.0,
                sky: SkyKind::Clear,
            },
        ],
        ..Weather::default()
    };
    let mut state = WeatherState::new(&drying);
    for step in 0..steps(6.0) {
        state.step(&drying, step);
    }
    assert_eq!(state.wetness, 1.0);
    for step in steps(6.0)..steps(10.0) {
        state.step(&drying, step);
    }
    // Rain is at or below 0.05 from the 143rd clear step on (0.95/0.4 = 142.5 steps): the
    // last 98 of the 240 steps dry the ground.
    close(state.wetness, 1.0 - 0.02 * 98.0 / 60.0, "wetness drying");
}

#[test]
fn the_flash_decays_and_overridden_targets_are_used() {
    let mut weather = Weather {
        sky: SkyKind::Storm,
        ..Weather::default()
    };
    weather.skies.storm = SkyOverride {
        gloom: Some(0.5),
        wind: Some(0.0),
        ..SkyOverride::default()
    };
    let mut state = WeatherState::new(&weather);
    assert_eq!(state.gloom, 0.5);
    assert_eq!(state.wind_base, 0.0);
    let mut struck_at = None;
    for step in 0..steps(3.0) {
        if state.step(&weather, step).is_some() {
            struck_at = Some(step + 1);
            break;
        }
    }
    // The first strike 1.5 s after the storm began, then the flash fades at 4/s.
    assert_eq!(struck_at, Some(90));
    assert_eq!(state.flash, 1.0);
    for step in 90..105 {
        state.step(&weather, step);
    }
    // 15 steps at 4/s take 1.0 off: the flash is out.
    assert!(state.flash < 1e-6, "flash {}", state.flash);
}

#[test]
fn the_wind_repeats_after_forty_seconds_exactly() {
    let weather = Weather {
        sky: SkyKind::Storm,
        ..Weather::default()
    };
    let mut state = WeatherState::new(&weather);
    let mut winds = Vec::new();
    for step in 0..steps(85.0) {
        state.step(&weather, step);
        winds.push(state.wind_world_per_s);
    }
    let cycle = steps(40.0) as usize;
    for i in (0..winds.len() - cycle).step_by(3) {
        assert_eq!(winds[i], winds[i + cycle], "step {i}");
    }
    // It does change within a cycle, and stays within its gusts.
    assert_ne!(winds[10], winds[10 + cycle / 3]);
    assert_eq!(
        sample(&weather.wind, 9.0, 17),
        sample(&weather.wind, 9.0, 17 + 2400)
    );
}

/// The storm scene at `fps`, with a short clip.
fn storm_at(fps: u32) -> Scene {
    let mut scene = load(Some(std::path::Path::new("scenes/storm.ron")), &[])
        .expect("scenes/storm.ron loads")
        .scene;
    scene.fluid.grid = 24;
    scene.output.fps = fps;
    scene
}

#[test]
fn strikes_come_at_the_same_moments_at_24_30_and_60_fps() {
    let mut times = Vec::new();
    for fps in [24, 30, 60] {
        let scene = storm_at(fps);
        let mut playback = Playback::new(&scene);
        let mut strikes = Vec::new();
        for frame in 0..scene.output.frame_count() {
            let state = playback.advance_to(frame, || {});
            strikes.extend(state.strikes.iter().map(|s| (s.number, s.time_s())));
        }
        times.push(strikes);
    }
    assert!(!times[0].is_empty());
    // The first strike by 7 s, the storm having begun at 5 s.
    assert!(times[0][0].1 <= 7.0, "{:?}", times[0]);
    assert_eq!(times[0], times[1]);
    assert_eq!(times[0], times[2]);
}

#[test]
fn a_bolt_is_the_same_arc_at_the_same_moment_at_24_30_and_60_fps() {
    // The first strike is at 6.5 s; 6.5, 6 2/3 and 6 5/6 s are frames at all three rates.
    let mut arcs = Vec::new();
    for fps in [24u32, 30, 60] {
        let scene = storm_at(fps);
        let seed = scene.weather.as_ref().unwrap().lightning.seed;
        let mut playback = Playback::new(&scene);
        let mut shown = Vec::new();
        for sixths in [39u32, 40, 41] {
            let frame = sixths * fps / 6;
            let state = playback.advance_to(frame, || {});
            assert!((state.time_s - f64::from(sixths) / 6.0).abs() < 1e-12);
            let inputs = playback.frame_inputs(&state);
            let (strike, struck_s) = inputs.weather.unwrap().last_strike.unwrap();
            let bolt = bolt_at(seed, strike, struck_s, f64::from(inputs.time_s))
                .expect("a bolt lives for 0.4 s");
            shown.push((strike, bolt));
        }
        arcs.push(shown);
    }
    assert_eq!(arcs[0], arcs[1]);
    assert_eq!(arcs[0], arcs[2]);
    // It took new paths while it lived.
    assert_ne!(arcs[0][0].1.points, arcs[0][1].1.points);
}

/// The default hall with the ball parked out of the way, on a small grid, with `weather`.
fn parked(weather: Option<Weather>) -> Scene {
    let mut scene = Scene::default();
    scene.fires.clear();
    scene.ball.script.clear();
    scene.ball.start = [8.0, 8.0];
    scene.fluid.grid = 64;
    scene.weather = weather;
    scene
}

#[test]
fn a_storm_moves_the_air_and_piles_fog_against_a_pillar_a_still_sky_does_not() {
    let storm = Weather {
        sky: SkyKind::Storm,
        ..Weather::default()
    };
    let mut world = World::new(&parked(Some(storm.clone())));
    for _ in 0..steps(4.0) {
        world.step();
    }
    let fluid = world.fluid();
    let open = fluid.probe(0.0, 6.0);
    assert!(open.speed > 2.0, "the air moves: {} units/s", open.speed);
    // The wind blows along (1, 0.3): the pillar at (-3.5, -3.5), radius 0.38, has its
    // windward face toward -x and its lee toward +x.
    let windward = fluid.probe(-4.05, -3.6).density;
    let lee = fluid.probe(-2.95, -3.4).density;
    assert!(windward > 1.3, "fog piles on the windward face: {windward}");
    assert!(lee < 0.8, "and thins in the lee: {lee}");

    // A windless sky: the fluid is exactly what it is without weather.
    let mut still = storm;
    still.skies.storm.wind = Some(0.0);
    let mut calm = World::new(&parked(Some(still)));
    let mut none = World::new(&parked(None));
    for _ in 0..steps(2.0) {
        calm.step();
        none.step();
    }
    assert_eq!(calm.fluid().state_hash(), none.fluid().state_hash());
    assert_eq!(calm.fluid().stats().speed_max, 0.0);
    assert_ne!(
        calm.state_hash(),
        none.state_hash(),
        "the weather is in the state"
    );
}

#[test]
fn a_world_with_weather_restores_from_a_snapshot_exactly() {
    let scene = storm_at(60);
    let mut world = World::new(&scene);
    for _ in 0..steps(5.5) {
        world.step();
    }
    let bytes = world.snapshot();
    let mut restored = World::restore(&scene, &bytes).unwrap();
    assert_eq!(restored.state_hash(), world.state_hash());
    for _ in 0..steps(2.0) {
        world.step();
        restored.step();
        assert_eq!(restored.state_hash(), world.state_hash());
        assert_eq!(restored.weather(), world.weather());
    }
    assert!(world.weather().unwrap().strikes > 0);
}

#[test]
fn simulate_json_reports_the_weather_and_strikes_and_maps_write_the_wind() {
    let out = fogbank_ok(&[
        "simulate",
        "scenes/storm.ron",
        "--json",
        "--quiet",
        "--frames",
        "0,300..420",
        "--set",
        "fluid.grid=24",
    ]);
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first = &lines[0]["weather"];
    assert_eq!(first["sky"], "Clear");
    for key in [
        "fog_density",
        "gloom",
        "rain",
        "wind_speed",
        "wetness",
        "flash",
    ] {
        assert!(first[key].is_number(), "weather.{key}");
    }
    assert_eq!(first["wind"].as_array().unwrap().len(), 2);
    let strikes: Vec<f64> = lines
        .iter()
        .flat_map(|l| l["strikes"].as_array().unwrap().clone())
        .map(|s| s["time"].as_f64().unwrap())
        .collect();
    assert_eq!(
        strikes.len(),
        1,
        "one strike between 5 and 7 s: {strikes:?}"
    );
    let struck = lines
        .iter()
        .find(|l| !l["strikes"].as_array().unwrap().is_empty())
        .unwrap();
    assert!(
        struck["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e == "strike")
    );
    assert!(struck["weather"]["flash"].as_f64().unwrap() > 0.9);
    assert_eq!(struck["weather"]["sky"], "Storm");
    // A scene without weather has neither key.
    let plain = fogbank_ok(&["simulate", "--json", "--quiet", "--frames", "0"]);
    assert!(!stdout(&plain).contains("weather"));

    let dir = temp_dir("weather-maps");
    fogbank_ok(&[
        "maps",
        "scenes/storm.ron",
        "--frames",
        "400",
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(dir.join("wind_0400.png").exists());
}

#[test]
fn a_storm_gives_the_same_states_on_any_thread_count() {
    let hashes = |threads: &str| {
        let out = fogbank_env(
            &[
                "simulate",
                "scenes/storm.ron",
                "--json",
                "--quiet",
                "--frames",
                "0,60,120,180,240,300,360,420,480,540,600,719",
            ],
            &[("RAYON_NUM_THREADS", threads)],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["hash"].clone())
            .collect::<Vec<_>>()
    };
    let one = hashes("1");
    assert_eq!(one.len(), 12);
    assert_eq!(one, hashes("4"));
}

/// `fogbank validate` on a storm scene whose weather has `weather_body` fails as bad input with
/// every one of `expected` in its message.
#[track_caller]
fn assert_bad_weather(name: &str, weather_body: &str, expected: &[&str]) {
    let dir = temp_dir(&format!("bad-weather-{name}"));
    std::fs::create_dir_all(&*dir).unwrap();
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(
        &path,
        format!("(\n    weather: (\n{weather_body}\n    ),\n)\n"),
    )
    .unwrap();
    let out = fogbank(&["validate", path.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for text in expected {
        assert!(err.contains(text), "expected {text:?} in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_weather_is_a_clear_error_naming_the_field() {
    assert_bad_weather(
        "unknown_sky",
        "        sky: Stormy,",
        &["unknown_sky.ron:3:", "Stormy", "Storm"],
    );
    assert_bad_weather(
        "out_of_order",
        "        changes: [(at: 5.0, sky: Storm), (at: 2.0, sky: Rain)],",
        &["weather.changes[1].at", "time order"],
    );
    assert_bad_weather(
        "negative_rate",
        "        rates: (gloom: -0.3),",
        &["weather.rates.gloom", "negative"],
    );
    assert_bad_weather(
        "zero_cycle",
        "        wind: (cycle_s: 0.0),",
        &["weather.wind.cycle_s", "more than 0"],
    );
}

#[test]
fn setting_a_weather_field_on_a_scene_without_weather_says_how_to_add_the_section() {
    let out = fogbank(&["scene", "--set", "weather.wind.base_speed=5"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("the scene has no `weather` section"), "{err}");
    assert!(err.contains("--set 'weather=(sky: Storm)'"), "{err}");
    // As the help says: add the section first, then its fields can be set.
    let out = fogbank_ok(&[
        "scene",
        "--set",
        "weather=(sky: Storm)",
        "--set",
        "weather.wind.cycle_s=20",
    ]);
    let text = stdout(&out);
    assert!(text.contains("cycle_s: 20.0"), "{text}");
}
