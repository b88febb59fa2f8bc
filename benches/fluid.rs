//! Fluid benchmarks on criterion: time per 60 Hz step for each pressure solver, per stage of
//! the default step, per state hash and per map packing at the example's 96² grid and at 256²
//! (seed 001's size), with the default scene's parameters and a ball stirring the air so every
//! stage does real work; on one thread and on every thread of the pool. Then seed 001's walkway.
//!
//! Run with `cargo bench --bench fluid`; arguments after `--` go to criterion: a filter such as
//! `'fluid 96x96/step red_black'`, `--quick`, `--save-baseline NAME`, `--baseline NAME`. Each
//! grid's state hash after the warm-up is printed once, before anything is timed, so two builds
//! can be checked for bit-identical results before comparing their times, with the pressure
//! residual each solver's projection leaves (RMS of `div - lap(p)` over the interior, in cells
//! per second per cell). `-- --omega` prints the SOR residual for a range of factors and times
//! nothing.
//!
//! The walkway group times seed 001's walkway: 256² over 12.8 world units (5 cm cells), 120
//! pressure sweeps, 32 fog sources with fade, 3 swinging streams, two projections and both
//! diffusions, with a walker's push; then the same with `multigrid`. The walkway scene group
//! times the shipped `scenes/walkway.ron`'s world step (multigrid, no diffusion, its walkers),
//! whole and stage by stage.

use criterion::{Criterion, SamplingMode};
use fogbank::scene::Scene;
use fogbank::sim::{
    BallPush, FluidParams, FluidSim, FluidStream, FogModel, FogSource, GridMapping,
    PressureSolverKind, TEMPLE_CELL_WORLD,
};
use fogbank::world::World;
use std::path::Path;
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

/// The sample counts and times of every group, before criterion's own arguments (which win).
fn criterion_config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args()
}

/// Thread counts timed: one, then every thread of the global pool (`RAYON_NUM_THREADS` picks
/// it), each with its own pool.
fn pools() -> Vec<(usize, rayon::ThreadPool)> {
    let all = rayon::current_num_threads();
    let mut counts = vec![1];
    if all > 1 {
        counts.push(all);
    }
    counts
        .into_iter()
        .map(|threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            (threads, pool)
        })
        .collect()
}

/// Times `iters` calls of `f` on `pool`, for [`criterion::Bencher::iter_custom`].
fn on_pool(pool: &rayon::ThreadPool, iters: u64, f: &mut (dyn FnMut() + Send)) -> Duration {
    pool.install(|| {
        let started = Instant::now();
        for _ in 0..iters {
            f();
        }
        started.elapsed()
    })
}

/// The callback an observed step calls with each stage's name as it finishes.
type AfterStage<'a> = dyn FnMut(&'static str) + Send + 'a;

/// The time spent in stage `stage` over `iters` calls of `observed_step` on `pool`, which
/// steps a fluid and calls its argument after each stage.
fn stage_time(
    pool: &rayon::ThreadPool,
    iters: u64,
    stage: &str,
    observed_step: &mut (dyn FnMut(&mut AfterStage) + Send),
) -> Duration {
    pool.install(|| {
        let mut spent = Duration::ZERO;
        for _ in 0..iters {
            let mut last = Instant::now();
            observed_step(&mut |name| {
                let now = Instant::now();
                if name == stage {
                    spent += now - last;
                }
                last = Instant::now();
            });
        }
        spent
    })
}

/// The names of the stages of one step, in the order the step runs them.
fn stage_names(sim: &FluidSim) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    sim.clone().step_observed(1.0 / 60.0, &mut |name| {
        if !names.contains(&name) {
            names.push(name);
        }
    });
    names
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

/// Prints the state hash of the stirred default fluid at `grid`, and the residual each
/// solver's first timed step leaves: the lines two builds are checked by.
fn print_state(grid: u32) {
    let sim = stirred_sim(grid, &FluidParams::default());
    // Lets two builds be checked for bit-identical results before comparing times.
    println!(
        "state_hash {grid}² after stirring: {:016x} ({} kernels)",
        sim.state_hash(),
        sim.kernel_lanes()
    );
    for (name, solver) in solvers() {
        let mut sim = stirred_sim(grid, &solver);
        sim.step(1.0 / 60.0);
        println!(
            "residual {grid}² {name}: {:.2e}",
            sim.pressure_residual_rms()
        );
    }
}

/// Everything timed at one grid size, on each pool: a step with each solver, each stage of
/// the default step, the state hash and the map packing.
fn bench_grid(c: &mut Criterion, grid: u32, pools: &[(usize, rayon::ThreadPool)]) {
    let mut group = c.benchmark_group(format!("fluid {grid}x{grid}"));
    let stages = stage_names(&stirred_sim(grid, &FluidParams::default()));
    // Each fluid is stirred when the filter first keeps a benchmark that needs it, not before.
    for (threads, pool) in pools {
        for (name, solver) in solvers() {
            let mut sim = None;
            group.bench_function(format!("step {name} t{threads}"), |b| {
                let sim = sim.get_or_insert_with(|| stirred_sim(grid, &solver));
                b.iter_custom(|iters| on_pool(pool, iters, &mut || sim.step(1.0 / 60.0)))
            });
        }
        let mut sim = None;
        for &stage in &stages {
            group.bench_function(format!("stage {stage} t{threads}"), |b| {
                let sim = sim.get_or_insert_with(|| stirred_sim(grid, &FluidParams::default()));
                b.iter_custom(|iters| {
                    stage_time(pool, iters, stage, &mut |after| {
                        sim.step_observed(1.0 / 60.0, after)
                    })
                })
            });
        }
        let mut sim = None;
        group.bench_function(format!("state_hash t{threads}"), |b| {
            let sim = sim.get_or_insert_with(|| stirred_sim(grid, &FluidParams::default()));
            b.iter_custom(|iters| {
                on_pool(pool, iters, &mut || {
                    std::hint::black_box(sim.state_hash());
                })
            })
        });
        let cells = (grid * grid * 4) as usize;
        let (mut fluid_map, mut lift_map) = (vec![0u8; cells], vec![0u8; cells]);
        group.bench_function(format!("write_maps t{threads}"), |b| {
            let sim = sim.get_or_insert_with(|| stirred_sim(grid, &FluidParams::default()));
            b.iter_custom(|iters| {
                on_pool(pool, iters, &mut || {
                    sim.write_maps(&mut fluid_map, &mut lift_map, 6.0)
                })
            })
        });
    }
    group.finish();
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

/// Seed 001's walkway after 60 steps with `solver`, and the step that advances it: a walker's
/// push, the streams, then the step.
fn walkway_sim(solver: PressureSolverKind) -> (FluidSim, impl FnMut(&mut FluidSim) + Send) {
    let params = walkway_params(solver);
    let mut sim = FluidSim::new(&params, GridMapping::new(256, 12.8));
    let mut step = 0_u64;
    let mut advance = move |sim: &mut FluidSim| {
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
    (sim, advance)
}

const WALKWAY_SOLVERS: [(&str, PressureSolverKind); 2] = [
    ("red_black 120", PressureSolverKind::RedBlack),
    ("multigrid 2", PressureSolverKind::Multigrid),
];

fn walkway(c: &mut Criterion, pools: &[(usize, rayon::ThreadPool)]) {
    let mut group = c.benchmark_group("walkway 256x256");
    // A step takes milliseconds: one step a run, not criterion's growing runs.
    group.sampling_mode(SamplingMode::Flat);
    for (threads, pool) in pools {
        for (name, solver) in WALKWAY_SOLVERS {
            let mut walkway = None;
            group.bench_function(format!("step {name} t{threads}"), |b| {
                let (sim, advance) = walkway.get_or_insert_with(|| walkway_sim(solver));
                b.iter_custom(|iters| on_pool(pool, iters, &mut || advance(sim)))
            });
        }
    }
    group.finish();
}

/// The shipped walkway scene's world (`scenes/walkway.ron`: its fluid, sources, streams and
/// walkers) after its first 150 steps, when both walkers are in the fog.
fn walkway_scene_world() -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/walkway.ron");
    let loaded = fogbank::scene::load::load(Some(&path), &[]).expect("scenes/walkway.ron loads");
    let mut world = World::new(&loaded.scene);
    for _ in 0..150 {
        world.step();
    }
    world
}

/// The shipped walkway scene's whole world step, then stage by stage: the step the `render` and
/// `simulate` commands take twice a frame.
fn walkway_scene(c: &mut Criterion, pools: &[(usize, rayon::ThreadPool)]) {
    let mut group = c.benchmark_group("walkway scene");
    group.sampling_mode(SamplingMode::Flat);
    let mut stages = Vec::new();
    walkway_scene_world().step_observed(&mut |name| {
        if !stages.contains(&name) {
            stages.push(name);
        }
    });
    for (threads, pool) in pools {
        let mut world = None;
        group.bench_function(format!("world step t{threads}"), |b| {
            let world = world.get_or_insert_with(walkway_scene_world);
            b.iter_custom(|iters| {
                on_pool(pool, iters, &mut || {
                    world.step();
                })
            })
        });
        let mut world = None;
        for &stage in &stages {
            group.bench_function(format!("stage {stage} t{threads}"), |b| {
                let world = world.get_or_insert_with(walkway_scene_world);
                b.iter_custom(|iters| {
                    stage_time(pool, iters, stage, &mut |after| {
                        world.step_observed(after);
                    })
                })
            });
        }
    }
    group.finish();
}

fn main() {
    if std::env::args().any(|arg| arg == "--omega") {
        omega_sweep();
        return;
    }
    // The flags of the hand-written bench before criterion, which criterion would refuse
    // without saying what replaced them.
    let moved = [
        ("--grid", "--grid N is now a filter: -- 'fluid 96x96'"),
        (
            "--stages",
            "--stages is now a filter: -- 'fluid 96x96/stage'",
        ),
        ("--walkway", "--walkway is now a filter: -- walkway"),
    ];
    for (flag, instead) in moved {
        if std::env::args().any(|arg| arg == flag) {
            eprintln!("fluid: {instead}; see benches/README.md");
            std::process::exit(2);
        }
    }
    for grid in [96, 256] {
        print_state(grid);
    }
    for (name, solver) in WALKWAY_SOLVERS {
        let (mut sim, _) = walkway_sim(solver);
        println!(
            "residual walkway 256² {name}: {:.2e}",
            sim.pressure_residual_rms()
        );
    }
    let mut c = criterion_config();
    let pools = pools();
    for grid in [96, 256] {
        bench_grid(&mut c, grid, &pools);
    }
    walkway(&mut c, &pools);
    walkway_scene(&mut c, &pools);
    c.final_summary();
}
