//! Tests of the advections' row kernels: every `Lanes` reads the bits of a single bilinear
//! read (with and without a gather, `near`) and carries the fog to the same bits, the
//! four-field read matches the plain one, and whole steps agree across `Lanes` and
//! thread counts.

use super::*;
use crate::sim::grid::{Bilinear, pack_fields};
use crate::sim::{
    BallPush, FluidParams, FluidSim, FogModel, FogSource, GridMapping, PressureSolverKind,
};

/// A fixed, uneven field: values of both signs, some near the flush threshold.
fn field(cells: usize, seed: usize) -> Vec<f32> {
    (0..cells * cells)
        .map(|i| {
            let x = ((i * 7919 + seed * 104_729) % 1013) as f32 * 0.37 - 180.0;
            if i % 11 == 0 {
                x * 1e-10
            } else {
                x + 1e-3 / 3.0
            }
        })
        .collect()
}

/// `field` scaled by `scale` (or, for a scale of 0, a smooth swirl of up to 40 cells per
/// second, whose neighbours mostly trace back alike), with a NaN and an infinity where the grid
/// has room.
fn velocity(cells: usize, seed: usize, scale: f32) -> Vec<f32> {
    let mut out: Vec<f32> = if scale == 0.0 {
        (0..cells * cells)
            .map(|i| {
                let (x, y) = ((i % cells) as f32, (i / cells) as f32);
                (x * 0.11 + y * 0.07 + seed as f32).sin() * 40.0
            })
            .collect()
    } else {
        field(cells, seed).iter().map(|v| v * scale).collect()
    };
    if cells >= 8 {
        out[3 * cells + 7] = f32::NAN;
        out[5 * cells + cells - 2] = f32::INFINITY;
    }
    out
}

/// Velocity scales (cells per second per unit of `field`): at 1/60 s, a smooth swirl (0: most
/// groups of a row take the same neighbours in every lane, `near`), about a third of a cell
/// (every group of a row reads without a gather, lanes apart), about a cell (some groups do,
/// some fall back), and anywhere, off the grid.
const SCALES: [f32; 4] = [0.0, 0.05, 0.2, 1.0];

/// `FogCarry::shock_rows` for grids of up to 128 cells with shock in every row.
const SHOCK_EVERYWHERE: &[bool] = &[true; 128];

#[test]
fn every_lane_reads_the_bits_of_a_single_bilinear_read() {
    // Rows under one group, of whole groups, of whole runs and a partial one.
    for cells in [2, 3, 7, 8, 9, 16, 17, 33, 45, 64] {
        let (a, b) = (field(cells, 1), field(cells, 2));
        let mut packed = Vec::new();
        pack_fields(&mut packed, [&a, &b], cells, (Lanes::Plain, 1));
        for scale in SCALES {
            let (vel_x, vel_y) = (velocity(cells, 3, scale), velocity(cells, 4, scale));
            let dt_s = 1.0 / 60.0;
            let carry = PairCarry {
                dt_s,
                cells,
                vel_x: &vel_x,
                vel_y: &vel_y,
                fields: [&a, &b],
                packed: Some(Packed::new(&packed, cells)),
            };
            for lanes in Lanes::available() {
                for y in 0..cells {
                    let (mut out_a, mut out_b) = (vec![0.0; cells], vec![0.0; cells]);
                    carry.row(
                        lanes,
                        y,
                        (&mut out_a, &mut out_b),
                        &|_: &mut [f32], _: &mut [f32]| {},
                    );
                    for x in 0..cells {
                        let i = y * cells + x;
                        let at = Bilinear::at(
                            cells,
                            x as f32 - vel_x[i] * dt_s,
                            y as f32 - vel_y[i] * dt_s,
                        );
                        let here = format!("{lanes:?} {cells} cells ×{scale} ({x}, {y})");
                        assert_eq!(out_a[x].to_bits(), at.read(&a).to_bits(), "{here}");
                        assert_eq!(out_b[x].to_bits(), at.read(&b).to_bits(), "{here}");
                    }
                }
            }
            // The reads are blends, not copies of a cell.
            let mut out = (vec![0.0; cells], vec![0.0; cells]);
            carry.row(
                Lanes::Plain,
                cells / 2,
                (&mut out.0, &mut out.1),
                &|_: &mut [f32], _: &mut [f32]| {},
            );
            assert!(cells < 8 || out.0.iter().any(|value| !a.contains(value)));
        }
    }
}

/// A fog carry over `cells`² with the temple's knobs, no sources and a live shock.
fn test_carry<'a>(
    cells: usize,
    air: [&'a [f32]; 4],
    fields: [&'a [f32]; 4],
    packed: Packed<'a, 4>,
) -> FogCarry<'a> {
    FogCarry {
        dt_s: 1.0 / 60.0,
        cells,
        air,
        fields,
        packed: Some(packed),
        continuity_dt: 0.3 / 60.0,
        max_density: 2.5,
        refill: 0.05,
        spill: 0.1,
        relax: 0.98,
        settle: 0.97,
        drift_limit: 0.4,
        cell_world: 0.125,
        sources: None,
        shock_rows: Some(SHOCK_EVERYWHERE),
    }
}

#[test]
fn every_lane_carries_the_fog_to_the_same_bits() {
    for cells in [3, 9, 17, 45, 64] {
        let fog: Vec<Vec<f32>> = (1..=4).map(|seed| field(cells, seed)).collect();
        let fields = [&fog[0], &fog[1], &fog[2], &fog[3]].map(Vec::as_slice);
        let mut packed = Vec::new();
        pack_fields(&mut packed, fields, cells, (Lanes::Plain, 1));
        let rates = field(cells, 9);
        let sources = [None, Some((&rates[..], 0.9, 0.01))];
        for (scale, sources) in SCALES.into_iter().zip(sources.into_iter().cycle()) {
            let air: Vec<Vec<f32>> = (5..=8).map(|seed| velocity(cells, seed, scale)).collect();
            let air = [&air[0], &air[1], &air[2], &air[3]].map(Vec::as_slice);
            let carry = FogCarry {
                sources,
                ..test_carry(cells, air, fields, Packed::new(&packed, cells))
            };
            let rows = |lanes: Lanes| -> Vec<Vec<u32>> {
                let mut all = Vec::new();
                for y in 0..cells {
                    let mut out = vec![vec![0.0f32; cells]; 4];
                    let [d, x, z, l] = &mut out[..] else {
                        unreachable!()
                    };
                    carry.row(lanes, y, [d, x, z, l]);
                    all.extend(
                        out.iter()
                            .map(|row| row.iter().map(|v| v.to_bits()).collect()),
                    );
                }
                all
            };
            let reference = rows(Lanes::Plain);
            for lanes in Lanes::available() {
                assert_eq!(reference, rows(lanes), "{lanes:?} {cells} cells ×{scale}");
            }
        }
    }
}

#[test]
fn the_fog_carried_past_no_shock_skips_it_to_the_same_bits() {
    for cells in [3, 9, 45, 64] {
        // Fog and air with negative zeros, a shock of zeros of both signs.
        let with_zeros = |mut field: Vec<f32>| {
            field.iter_mut().step_by(5).for_each(|value| *value = -0.0);
            field.iter_mut().step_by(7).for_each(|value| *value = 0.0);
            field
        };
        let fog: Vec<Vec<f32>> = (1..=4).map(|seed| with_zeros(field(cells, seed))).collect();
        let fields = [&fog[0], &fog[1], &fog[2], &fog[3]].map(Vec::as_slice);
        let mut packed = Vec::new();
        pack_fields(&mut packed, fields, cells, (Lanes::Plain, 1));
        let shock: Vec<f32> = (0..cells * cells)
            .map(|i| if i % 3 == 0 { -0.0 } else { 0.0 })
            .collect();
        for scale in SCALES {
            let (u, v) = (
                with_zeros(velocity(cells, 5, scale)),
                with_zeros(velocity(cells, 6, scale)),
            );
            for drift_limit in [0.4, 0.0] {
                let air = [&u, &v, &shock, &shock].map(Vec::as_slice);
                let carry = |shock_active: bool| FogCarry {
                    drift_limit,
                    shock_rows: shock_active.then_some(SHOCK_EVERYWHERE),
                    ..test_carry(cells, air, fields, Packed::new(&packed, cells))
                };
                let rows = |carry: &FogCarry<'_>, lanes: Lanes| -> Vec<u32> {
                    let mut all = Vec::new();
                    for y in 0..cells {
                        let mut out = vec![vec![0.0f32; cells]; 4];
                        let [d, x, z, l] = &mut out[..] else {
                            unreachable!()
                        };
                        carry.row(lanes, y, [d, x, z, l]);
                        all.extend(out.iter().flatten().map(|v| v.to_bits()));
                    }
                    all
                };
                let reference = rows(&carry(true), Lanes::Plain);
                for lanes in Lanes::available() {
                    assert_eq!(
                        reference,
                        rows(&carry(false), lanes),
                        "{lanes:?} {cells} cells ×{scale}, limit {drift_limit}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_four_field_read_gives_the_bits_of_the_plain_read() {
    let cells = 45;
    let fields = [
        field(cells, 1),
        field(cells, 2),
        field(cells, 3),
        field(cells, 4),
    ];
    let mut packed = Vec::new();
    pack_fields(
        &mut packed,
        [&fields[0], &fields[1], &fields[2], &fields[3]],
        cells,
        (Lanes::Plain, 1),
    );
    let packed = Packed::new(&packed, cells);
    let (shift_x, shift_y) = (field(cells, 5), field(cells, 6));
    let mut trace = Trace::new();
    for y in 0..cells {
        for start in (0..cells).step_by(RUN) {
            let shift = |field: &[f32]| -> [f32; RUN] {
                std::array::from_fn(|k| field[(y * cells + start + k) % field.len()] * 0.03)
            };
            trace.place(cells, y, start, (&shift(&shift_x), &shift(&shift_y)));
            for k in 0..RUN {
                let (quad, plain) = (trace.read_quad(packed, k), trace.read(packed, k));
                assert_eq!(
                    quad.map(f32::to_bits),
                    plain.map(f32::to_bits),
                    "({y}, {k})"
                );
            }
        }
    }
}

#[test]
fn every_lane_and_thread_count_gives_the_same_steps() {
    let sources = FogModel::Sources {
        sources: vec![FogSource {
            position: [1.0, -2.0],
            radius: 1.5,
            rate: 0.9,
        }],
        fade: 0.4,
    };
    // Each pressure sweep's row kernels too: red-black, and SOR (which reads old values).
    let solvers = [PressureSolverKind::RedBlack, PressureSolverKind::Sor];
    for (fog, solver) in [FogModel::Relax, sources].into_iter().zip(solvers) {
        let params = FluidParams {
            fog,
            solver,
            ..FluidParams::default()
        };
        let hash_with = |lanes: Lanes, threads: usize| {
            let mut sim = FluidSim::new(&params, GridMapping::new(45, 12.0));
            sim.lanes = lanes;
            sim.min_rows_per_task = 1;
            sim.mark_solid_circle([2.0, 2.0], 0.8);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("test thread pool");
            pool.install(|| {
                for step in 0..40 {
                    let x_world = -4.0 + step as f32 * 0.2;
                    sim.push_ball(&BallPush {
                        pos_world: [x_world, 0.4, 0.5],
                        vel_world: [4.0, 0.0, 1.0],
                        radius_world: 0.6,
                        weight: 1.0,
                    });
                    if step % 15 == 3 {
                        sim.blast([x_world, 0.0], 3.5, 1.2, 0.8);
                    }
                    sim.step(1.0 / 60.0);
                }
            });
            // The shock wave and the squeeze ran.
            assert!(sim.su.iter().any(|&value| value != 0.0));
            sim.state_hash()
        };
        let reference = hash_with(Lanes::Plain, 1);
        for lanes in Lanes::available() {
            for threads in [1, 2, 3] {
                assert_eq!(
                    reference,
                    hash_with(lanes, threads),
                    "{lanes:?}, {threads} threads"
                );
            }
        }
    }
}

#[test]
fn passing_over_rows_without_shock_changes_no_bit() {
    let run = |lanes: Lanes, skip: bool| {
        let mut sim = FluidSim::new(&FluidParams::default(), GridMapping::new(64, 12.0));
        sim.lanes = lanes;
        sim.skip_calm_shock_rows = skip;
        sim.mark_solid_circle([-2.0, 1.0], 0.7);
        let (mut hashes, mut calm_and_shocked) = (Vec::new(), 0);
        for step in 0..60 {
            sim.push_ball(&BallPush {
                pos_world: [-3.0 + step as f32 * 0.1, 0.4, 0.5],
                vel_world: [6.0, 0.0, 0.0],
                radius_world: 0.6,
                weight: 1.0,
            });
            // Two small blasts: a ring of shock over some rows, none in the others.
            if step == 2 || step == 30 {
                sim.blast([-1.0 + step as f32 * 0.05, 1.5], 1.0, 3.0, 0.8);
            }
            sim.step(1.0 / 60.0);
            let shocked = sim.shock_rows.iter().filter(|&&held| held).count();
            if shocked > 0 && shocked < 40 {
                calm_and_shocked += 1;
            }
            hashes.push(sim.state_hash());
        }
        (hashes, calm_and_shocked)
    };
    for lanes in Lanes::available() {
        let (skipping, calm_and_shocked) = run(lanes, true);
        // The rows passed over were many, in most of the steps.
        assert!(calm_and_shocked > 30, "{calm_and_shocked} steps, {lanes:?}");
        assert_eq!(skipping, run(lanes, false).0, "{lanes:?}");
    }
}
