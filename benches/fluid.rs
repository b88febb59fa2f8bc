//! Fluid benchmarks: time per 60 Hz step, per state hash and per map packing at the example's
//! 96² grid and at 256² (seed 001's size), with the default scene's parameters and a ball
//! stirring the air so every stage does real work.
//!
//! Run with `cargo bench --bench fluid`. Prints the median and the fastest of several runs;
//! compare ratios, not absolute numbers, on a noisy machine. `cargo bench --bench fluid --
//! --stages` also prints the median time of each stage of the step (walls summed over its three
//! runs). `RAYON_NUM_THREADS` picks the thread count. Each grid's state hash after the warm-up
//! is printed first, so two builds can be checked for bit-identical results before comparing
//! their times.

use fogbank::scene::Scene;
use fogbank::sim::{BallPush, FluidSim, GridMapping};
use std::time::{Duration, Instant};

fn stirred_sim(grid: u32) -> FluidSim {
    let scene = Scene::default();
    let mut params = scene.fluid.clone();
    params.grid = grid;
    let mut sim = FluidSim::new(
        &params,
        GridMapping {
            cells: grid as usize,
            area_world: scene.fog.area,
        },
    );
    for &pillar in &scene.hall.pillars {
        sim.mark_solid_circle(pillar, scene.hall.pillar_radius);
    }
    for step in 0..120 {
        let x = -4.0 + step as f32 * 0.06;
        sim.push_ball(&BallPush {
            pos_world: [x, 0.5, 1.0],
            vel_world: [3.6, 0.0, 0.0],
            radius_world: 0.5,
            weight: 1.0,
        });
        if step == 60 {
            sim.blast([x, 1.0], 3.5, 40.0, 0.8);
        }
        sim.step(1.0 / 60.0);
    }
    sim
}

fn time<F: FnMut()>(name: &str, runs: usize, mut f: F) {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    samples.sort();
    println!(
        "{name:<28} median {:>9.3} ms   fastest {:>9.3} ms   ({runs} runs)",
        samples[runs / 2].as_secs_f64() * 1e3,
        samples[0].as_secs_f64() * 1e3
    );
}

/// Median time of each stage over `runs` steps, in the order the step runs them.
fn time_stages(grid: u32, runs: usize, sim: &mut FluidSim) {
    let mut names: Vec<&'static str> = Vec::new();
    let mut samples: Vec<Vec<Duration>> = Vec::new();
    for _ in 0..runs {
        let mut per_stage: Vec<(&'static str, Duration)> = Vec::new();
        let mut last = Instant::now();
        sim.step_observed(1.0 / 60.0, &mut |name| {
            let now = Instant::now();
            match per_stage.iter_mut().find(|(seen, _)| *seen == name) {
                Some((_, total)) => *total += now - last,
                None => per_stage.push((name, now - last)),
            }
            last = Instant::now();
        });
        for (name, spent) in per_stage {
            match names.iter().position(|&seen| seen == name) {
                Some(index) => samples[index].push(spent),
                None => {
                    names.push(name);
                    samples.push(vec![spent]);
                }
            }
        }
    }
    for (name, mut stage_samples) in names.into_iter().zip(samples) {
        stage_samples.sort();
        let median = stage_samples[stage_samples.len() / 2];
        println!(
            "  {:<26} median {:>9.3} ms",
            format!("{name} {grid}²"),
            median.as_secs_f64() * 1e3
        );
    }
}

fn main() {
    let stages = std::env::args().any(|arg| arg == "--stages");
    for grid in [96u32, 256] {
        let mut sim = stirred_sim(grid);
        // Lets two builds be checked for bit-identical results before their times are compared.
        println!(
            "state_hash {grid}² after stirring: {:016x}",
            sim.state_hash()
        );
        let runs = if grid <= 96 { 400 } else { 60 };
        time(&format!("step {grid}²"), runs, || sim.step(1.0 / 60.0));
        if stages {
            time_stages(grid, runs, &mut sim);
        }
        time(&format!("state_hash {grid}²"), runs, || {
            std::hint::black_box(sim.state_hash());
        });
        let cells = (grid * grid * 4) as usize;
        let (mut fluid_map, mut lift_map) = (vec![0u8; cells], vec![0u8; cells]);
        time(&format!("write_maps {grid}²"), runs, || {
            sim.write_maps(&mut fluid_map, &mut lift_map, 6.0)
        });
    }
}
