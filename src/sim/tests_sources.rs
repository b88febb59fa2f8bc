//! The fog model, the streams and the optional stages: fog fades without sources, settles at
//! the level its sources hold and grows back after a cut, a stream carries fog downstream and
//! swings with its period, diffusion spreads and keeps the total, and every new stage gives
//! the same state on any thread count.

use super::*;

const DT_S: f32 = 1.0 / 60.0;
const AREA_WORLD: f32 = 22.0;

fn sim_with(params: FluidParams, cells: usize) -> FluidSim {
    FluidSim::new(&params, GridMapping::new(cells, AREA_WORLD))
}

fn sources(list: &[([f32; 2], f32, f32)], fade: f32) -> FogModel {
    FogModel::Sources {
        sources: list
            .iter()
            .map(|&(position, radius, rate)| FogSource {
                position,
                radius,
                rate,
            })
            .collect(),
        fade,
    }
}

fn mean(values: &[f32]) -> f64 {
    values.iter().map(|&v| f64::from(v)).sum::<f64>() / values.len() as f64
}

#[test]
fn without_sources_the_fog_fades_at_its_rate() {
    let params = FluidParams {
        fog: sources(&[], 0.5),
        ..FluidParams::default()
    };
    let mut sim = sim_with(params, 48);
    // No source: the fog starts empty; fill it by hand to watch it fade.
    assert_eq!(mean(sim.density()), 0.0);
    sim.density.fill(1.0);
    let mut last = 1.0;
    for _ in 0..120 {
        sim.step(DT_S);
        let now = mean(sim.density());
        assert!(now < last, "the fog must keep fading: {now} after {last}");
        last = now;
    }
    // Two seconds at 0.5 per second: exp(-1) of it is left.
    let expected = (-1.0_f64).exp();
    assert!((last - expected).abs() < 1e-3, "{last} vs {expected}");
}

#[test]
fn sources_settle_at_their_level_and_grow_back_after_a_cut() {
    let (rate, fade) = (0.6, 0.5);
    let params = FluidParams {
        fog: sources(&[([0.0, 0.0], 3.0, rate), ([6.0, 6.0], 1.0, 2.0)], fade),
        ..FluidParams::default()
    };
    let mut sim = sim_with(params, 96);
    // Documented start: every cell at rate / fade, so the middle of a source holds 1.2 and
    // the fog is still.
    let settled = sim.probe(0.0, 0.0).density;
    assert!((settled - rate / fade).abs() < 0.02, "start {settled}");
    // The second source's 2 / 0.5 = 4 is capped at max_density (2).
    assert_eq!(sim.probe(6.0, 6.0).density, 2.0);
    assert_eq!(sim.probe(-8.0, 8.0).density, 0.0, "no fog far from sources");
    // From nothing, the fog grows toward that level: 1 - exp(-fade t) of it after t seconds.
    sim.density.fill(0.0);
    for _ in 0..600 {
        sim.step(DT_S);
    }
    let grown = sim.probe(0.0, 0.0).density;
    let expected = settled * (1.0 - (-fade * 10.0_f32).exp());
    assert!((grown - expected).abs() < 0.01, "{grown} vs {expected}");
    for _ in 0..600 {
        sim.step(DT_S);
    }
    let level = sim.probe(0.0, 0.0).density;
    assert!(
        (level - settled).abs() < 0.01,
        "settled {level} vs {settled}"
    );

    // A ball ploughs through the middle: the fog is cut...
    for step in 0..60 {
        let x_world = -3.0 + step as f32 * 0.1;
        sim.push_ball(&BallPush {
            pos_world: [x_world, 0.5, 0.0],
            vel_world: [6.0, 0.0, 0.0],
            radius_world: 0.5,
            weight: 1.0,
        });
        sim.step(DT_S);
    }
    let cut = sim.probe(0.0, 0.0).density;
    assert!(cut < 0.7 * settled, "the ball cut the fog: {cut}");
    // ...and grows back: most of the way in 3 s, to the level in 12 s.
    for _ in 0..180 {
        sim.step(DT_S);
    }
    let regrown = sim.probe(0.0, 0.0).density;
    assert!(
        regrown > cut + 0.5 * (settled - cut),
        "{regrown} after {cut}"
    );
    for _ in 0..540 {
        sim.step(DT_S);
    }
    let back = sim.probe(0.0, 0.0).density;
    assert!(
        (back - settled).abs() < 0.05 * settled,
        "{back} vs {settled}"
    );
}

/// Fog of one source upstream at (-5, 0), after `seconds`, with or without a stream through it.
fn downstream_fog(stream: Option<FluidStream>, seconds: u32) -> FluidSim {
    let params = FluidParams {
        fog: sources(&[([-5.0, 0.0], 1.5, 1.0)], 0.3),
        streams: stream.into_iter().collect(),
        ..FluidParams::default()
    };
    let mut sim = sim_with(params, 96);
    for step in 0..60 * u64::from(seconds) {
        sim.apply_streams(step, DT_S);
        sim.step(DT_S);
    }
    sim
}

#[test]
fn a_stream_carries_fog_downstream() {
    let stream = FluidStream {
        position: [-3.0, 0.0],
        direction: [2.0, 0.0],
        radius: 3.0,
        strength: 1.5,
        period_s: 0.0,
        swing_deg: 45.0,
    };
    let still = downstream_fog(None, 6);
    let drifting = downstream_fog(Some(stream), 6);
    let probe = |sim: &FluidSim, x: f32, z: f32| sim.probe(x, z).density;
    // Without the stream no fog reaches 3 units downstream of the source's edge.
    assert!(
        probe(&still, -1.0, 0.0) < 0.01,
        "{}",
        probe(&still, -1.0, 0.0)
    );
    let down = probe(&drifting, -1.0, 0.0);
    assert!(down > 0.2, "the stream carries fog downstream: {down}");
    // Upstream of the source it is thinner than without the stream.
    assert!(probe(&drifting, -6.0, 0.0) < probe(&still, -6.0, 0.0));
    // The stream's air runs along +x at about strength / velocity_decay.
    let speed = drifting.probe(-3.0, 0.0).speed;
    assert!(speed > 0.5 && speed < 1.5 / 0.55, "speed {speed}");
}

#[test]
fn a_swinging_stream_turns_with_the_step_count() {
    let stream = FluidStream {
        position: [0.0, 0.0],
        direction: [1.0, 0.0],
        radius: 2.0,
        strength: 1.0,
        period_s: 2.0,
        swing_deg: 30.0,
    };
    let params = FluidParams {
        streams: vec![stream],
        ..FluidParams::default()
    };
    let angle_at = |step: u64| {
        let mut sim = sim_with(params.clone(), 48);
        sim.apply_streams(step, DT_S);
        let i = 24 * 48 + 24;
        let (u, v) = sim.velocity();
        v[i].atan2(u[i]).to_degrees()
    };
    // A quarter period (0.5 s = step 30) turns it by the whole swing, three quarters back.
    assert!(angle_at(0).abs() < 1e-4);
    assert!((angle_at(30) - 30.0).abs() < 1e-3, "{}", angle_at(30));
    assert!((angle_at(90) + 30.0).abs() < 1e-3, "{}", angle_at(90));
    assert!((angle_at(120 + 30) - 30.0).abs() < 1e-3, "periodic");
}

#[test]
fn fog_diffusion_spreads_the_fog_and_keeps_it() {
    let params = FluidParams {
        fog: sources(&[([0.0, 0.0], 1.0, 1.0)], 1.0),
        fog_diffusion: 0.05,
        ..FluidParams::default()
    };
    let mut plain = sim_with(
        FluidParams {
            fog_diffusion: 0.0,
            ..params.clone()
        },
        64,
    );
    let mut diffused = sim_with(params, 64);
    let before = mean(diffused.density());
    diffused.diffuse_fog(DT_S);
    let after = mean(diffused.density());
    // Diffusion moves fog, it neither makes nor loses any (up to rounding).
    assert!((after - before).abs() < 1e-6 * before, "{before} → {after}");
    for _ in 0..120 {
        plain.step(DT_S);
        diffused.step(DT_S);
    }
    // Outside the source's radius only diffused fog is found; the middle is lower.
    assert!(plain.probe(1.4, 0.0).density < 1e-3);
    assert!(diffused.probe(1.4, 0.0).density > 0.01);
    assert!(diffused.probe(0.0, 0.0).density < plain.probe(0.0, 0.0).density);
}

#[test]
fn viscosity_smooths_a_shear_layer() {
    let params = FluidParams {
        viscosity: 2.0,
        vorticity: 0.0,
        ..FluidParams::default()
    };
    let mut sim = sim_with(params, 48);
    // Air along +x above z = 0, still below.
    for j in 24..47 {
        for i in 1..47 {
            sim.u[j * 48 + i] = 10.0;
        }
    }
    let jump = |sim: &FluidSim| sim.u[24 * 48 + 24] - sim.u[23 * 48 + 24];
    let start = jump(&sim);
    sim.diffuse_velocity(DT_S);
    assert!(jump(&sim) < 0.9 * start, "{} of {start}", jump(&sim));
    assert!(sim.u[23 * 48 + 24] > 0.0, "the still air is dragged along");
}

#[test]
fn every_new_stage_gives_the_same_state_on_any_thread_count() {
    let params = FluidParams {
        fog: sources(&[([-3.0, 0.0], 2.0, 1.0), ([3.0, 2.0], 1.5, 0.8)], 0.4),
        viscosity: 0.01,
        fog_diffusion: 0.01,
        projections: 2,
        streams: vec![FluidStream {
            position: [0.0, 0.0],
            direction: [1.0, 0.3],
            radius: 4.0,
            strength: 2.0,
            period_s: 1.5,
            swing_deg: 40.0,
        }],
        ..FluidParams::default()
    };
    let run = |threads: usize, params: &FluidParams| {
        let mut sim = sim_with(params.clone(), 40);
        sim.min_rows_per_task = 1;
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("test thread pool")
            .install(|| {
                for step in 0..60 {
                    sim.apply_streams(step, DT_S);
                    if step == 20 {
                        sim.blast([1.0, 0.0], 3.0, 8.0, 0.5);
                    }
                    sim.step(DT_S);
                }
            });
        sim.state_hash()
    };
    let reference = run(1, &params);
    for threads in [2, 4] {
        assert_eq!(reference, run(threads, &params), "{threads} threads");
    }
    // Each stage changes the state.
    let without = [
        FluidParams {
            viscosity: 0.0,
            ..params.clone()
        },
        FluidParams {
            fog_diffusion: 0.0,
            ..params.clone()
        },
        FluidParams {
            projections: 1,
            ..params.clone()
        },
        FluidParams {
            streams: Vec::new(),
            ..params.clone()
        },
    ];
    for other in &without {
        assert_ne!(reference, run(1, other));
    }
}
