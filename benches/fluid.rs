//! Fluid benchmarks: time per 60 Hz step for each pressure solver, per state hash and per map
//! packing at the example's 96² grid and at 256² (seed 001's size), with the default scene's
//! parameters and a ball stirring the air so every stage does real work; on one thread and on
//! all of them.
//!
//! Run with `cargo bench --bench fluid`. Prints the median and the fastest of several runs;
//! compare ratios, not absolute numbers, on a noisy machine. Next to each solver's step time
//! it prints the pressure residual its last projection left (RMS of `div - lap(p)` over the
//! interior, in cells per second per cell). `cargo bench --bench fluid -- --stages` also prints
//! the median and fastest time of each stage of the default step; `-- --quick` times the
//! default solver only (`red_black` 24); `-- --grid 96` one grid size; `-- --omega` prints the SOR residual for
//! a range of factors. Each grid's state hash after the warm-up is printed first, so two builds
//! can be checked for bit-identical results before comparing their times.
//!
//! `-- --walkway` times seed 001's walkway instead: 256² over 12.8 world units (5 cm cells),
//! 120 pressure sweeps, 32 fog sources with fade, 3 swinging streams, two projections and both
//! diffusions, with a walker's push, on one thread and on all; then the same with `multigrid`.

use fogbank::scene::Scene;
use fogbank::sim::{
    BallPush, FluidParams, FluidSim, FluidStream, FogModel, FogSource, GridMapping,
    PressureSolverKind, TEMPLE_CELL_WORLD,
};
use std::time::{Duration, Instant};

fn stirred_sim(grid: u32, solver: &FluidParams) -> FluidSim {
    let scene = Scene::default();
    let params = FluidParams {
        grid,
        solver: solver.solver,
        sor_omega: solver.sor_omega,
        multigrid_cycles: solver.multigrid_cycles,
        pressure_iterations: solver.pressure_iterations,
        ..scene.fluid.clone()
    };
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
            sim.blast([x, 1.0], 3.5, 40.0 * TEMPLE_CELL_WORLD, 0.8);
        }
        sim.step(1.0 / 60.0);
    }
    sim
}

fn time<F: FnMut()>(name: &str, runs: usize, f: F) {
    time_then(name, runs, f, "");
}

/// [`time`], with `after` printed at the end of the line.
fn time_then<F: FnMut()>(name: &str, runs: usize, mut f: F, after: &str) {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    samples.sort();
    println!(
        "{name:<34} median {:>8.3} ms   fastest {:>8.3} ms   ({runs} runs){after}",
        samples[runs / 2].as_secs_f64() * 1e3,
        samples[0].as_secs_f64() * 1e3
    );
}

/// Median and fastest time of each stage over `runs` steps, in the order the step runs them.
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
            "  {:<40} median {:>8.3} ms   fastest {:>8.3} ms",
            format!("{name} {grid}²"),
            median.as_secs_f64() * 1e3,
            stage_samples[0].as_secs_f64() * 1e3
        );
    }
}

/// The solvers compared: the default red-black Gauss-Seidel, SOR and multigrid at their
/// defaults, each with the default 24 sweeps where sweeps count.
fn solvers() -> Vec<(&'static str, FluidParams)> {
    let default = FluidParams::default();
    let with = |solver| FluidParams {
        solver,
        ..default.clone()
    };
    vec![
        ("red_black 24", with(PressureSolverKind::RedBlack)),
        ("sor 24", with(PressureSolverKind::Sor)),
        ("multigrid 2", with(PressureSolverKind::Multigrid)),
    ]
}

/// Everything timed at one grid size on the current thread pool (`quick`: the default solver
/// only).
fn bench_grid(grid: u32, threads: usize, stages: bool, quick: bool) {
    let runs = if grid <= 96 { 400 } else { 60 };
    for (name, solver) in solvers().into_iter().take(if quick { 1 } else { 3 }) {
        let mut sim = stirred_sim(grid, &solver);
        if solver.solver == PressureSolverKind::RedBlack {
            // Lets two builds be checked for bit-identical results before comparing times.
            println!(
                "state_hash {grid}² after stirring: {:016x} ({} kernels)",
                sim.state_hash(),
                sim.kernel_lanes()
            );
        }
        let mut residual_sim = sim.clone();
        residual_sim.step(1.0 / 60.0);
        let residual = residual_sim.pressure_residual_rms();
        time_then(
            &format!("step {grid}² {name} ×{threads}"),
            runs,
            || sim.step(1.0 / 60.0),
            &format!("   residual {residual:.2e}"),
        );
        if stages && solver.solver == PressureSolverKind::RedBlack {
            time_stages(grid, runs, &mut sim);
        }
    }
    let sim = stirred_sim(grid, &FluidParams::default());
    time(&format!("state_hash {grid}² ×{threads}"), runs, || {
        std::hint::black_box(sim.state_hash());
    });
    let cells = (grid * grid * 4) as usize;
    let (mut fluid_map, mut lift_map) = (vec![0u8; cells], vec![0u8; cells]);
    time(&format!("write_maps {grid}² ×{threads}"), runs, || {
        sim.write_maps(&mut fluid_map, &mut lift_map, 6.0)
    });
}

/// The SOR residual after one warm-started step for a range of factors.
fn omega_sweep() {
    for grid in [96u32, 256] {
        for omega in [1.0f32, 1.5, 1.7, 1.8, 1.85, 1.9, 1.95] {
            let params = FluidParams {
                solver: PressureSolverKind::Sor,
                sor_omega: omega,
                ..FluidParams::default()
            };
            let mut sim = stirred_sim(grid, &params);
            sim.step(1.0 / 60.0);
            println!(
                "sor {grid}² omega {omega:<5} residual {:.3e}",
                sim.pressure_residual_rms()
            );
        }
    }
}

/// Seed 001's walkway: 256² cells over 12.8 world units, 120 sweeps, 32 sources, 3 streams.
fn walkway_params(solver: PressureSolverKind) -> FluidParams {
    let sources = (0..32)
        .map(|k| {
            // Two rows of 16 along the walkway's edges.
            let x_world = -6.0 + 0.8 * (k % 16) as f32;
            let z_world = if k < 16 { -4.5 } else { 4.5 };
            FogSource {
                position: [x_world, z_world],
                radius: 0.6,
                rate: 0.8,
            }
        })
        .collect();
    let stream = |x: f32, z: f32, period_s: f32| FluidStream {
        position: [x, z],
        direction: [1.0, 0.2],
        radius: 2.5,
        strength: 0.3,
        period_s,
        swing_deg: 30.0,
    };
    FluidParams {
        grid: 256,
        pressure_iterations: 120,
        solver,
        fog: FogModel::Sources { sources, fade: 0.4 },
        streams: vec![
            stream(-4.0, -3.0, 0.0),
            stream(0.0, 0.0, 20.0),
            stream(4.0, 3.0, 13.0),
        ],
        projections: 2,
        viscosity: 0.0005,
        fog_diffusion: 0.0005,
        ..FluidParams::default()
    }
}

fn walkway(threads: usize) {
    for (name, solver) in [
        ("red_black 120", PressureSolverKind::RedBlack),
        ("multigrid 2", PressureSolverKind::Multigrid),
    ] {
        let params = walkway_params(solver);
        let mut sim = FluidSim::new(&params, GridMapping::new(256, 12.8));
        let mut step = 0_u64;
        let mut advance = |sim: &mut FluidSim| {
            let x_world = -5.0 + (step % 600) as f32 * (10.0 / 600.0);
            sim.push_ball(&BallPush {
                pos_world: [x_world, 0.3, 0.0],
                vel_world: [1.0, 0.0, 0.0],
                radius_world: 0.25,
                weight: 1.0,
            });
            sim.apply_streams(step, 1.0 / 60.0);
            sim.step(1.0 / 60.0);
            step += 1;
        };
        for _ in 0..60 {
            advance(&mut sim);
        }
        let residual = sim.pressure_residual_rms();
        time_then(
            &format!("walkway 256² {name} ×{threads}"),
            30,
            || advance(&mut sim),
            &format!("   residual {residual:.2e}"),
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|arg| arg == "--walkway") {
        let all = rayon::current_num_threads();
        for threads in if all > 1 { vec![1, all] } else { vec![1] } {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool")
                .install(|| walkway(threads));
        }
        return;
    }
    let stages = args.iter().any(|arg| arg == "--stages");
    let quick = args.iter().any(|arg| arg == "--quick");
    if args.iter().any(|arg| arg == "--omega") {
        omega_sweep();
        return;
    }
    // `--grid N` times one grid size alone.
    let grids: Vec<u32> = match args.iter().position(|arg| arg == "--grid") {
        Some(at) => match args.get(at + 1).and_then(|size| size.parse().ok()) {
            Some(size) => vec![size],
            None => {
                eprintln!("--grid needs a size in cells, e.g. --grid 96");
                std::process::exit(2);
            }
        },
        None => vec![96, 256],
    };
    // One thread, then every thread of the global pool (`RAYON_NUM_THREADS` picks it).
    let all = rayon::current_num_threads();
    let mut counts = vec![1];
    if all > 1 {
        counts.push(all);
    }
    for threads in counts {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        pool.install(|| {
            for grid in grids.iter().copied() {
                bench_grid(grid, threads, stages, quick);
            }
        });
    }
}
