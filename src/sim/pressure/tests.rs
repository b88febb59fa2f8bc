//! Tests of the red-black pressure solve: the AVX2 row against the plain one, and the split
//! solver (on rayon, and in waves of iterations on one thread) against plain red-black
//! Gauss-Seidel on the full grid.

use super::*;

/// Whether two fields hold the same bits, cell for cell.
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits())
}

/// The pressure `solver` holds, stored on the full grid of `count` cells (NaN where it stores
/// nothing), in tasks of at least `min_rows` rows.
fn stored_pressure(solver: &PressureSolver, count: usize, min_rows: usize) -> Vec<f32> {
    let mut pressure = vec![f32::NAN; count];
    solver.store_pressure(&mut pressure, min_rows);
    pressure
}

/// Red-black Gauss-Seidel written plainly on the full grid, in place.
fn reference_solve(u: &[f32], v: &[f32], cells: usize, iterations: u32) -> Vec<f32> {
    let mut divergence = vec![0.0_f32; cells * cells];
    for y in 1..cells - 1 {
        for x in 1..cells - 1 {
            let i = y * cells + x;
            divergence[i] = (u[i + 1] - u[i - 1] + v[i + cells] - v[i - cells]) * 0.5;
        }
    }
    let mut p = vec![0.0_f32; cells * cells];
    for _ in 0..iterations {
        for colour in [0, 1] {
            for y in 1..cells - 1 {
                for x in 1..cells - 1 {
                    if (x + y) % 2 != colour {
                        continue;
                    }
                    let i = y * cells + x;
                    let value =
                        (p[i - 1] + p[i + 1] + p[i - cells] + p[i + cells] - divergence[i]) * 0.25;
                    p[i] = flush(value);
                }
            }
        }
    }
    p
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_avx2_row_gives_the_bits_of_the_plain_row() {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return;
    }
    let field = |slots: usize, seed: usize| -> Vec<f32> {
        (0..slots)
            .map(|k| {
                let x = ((k * 31 + seed * 17) % 41) as f32 - 20.0;
                // Some values near the flush threshold, some ordinary.
                if k % 5 == 0 { x * 1e-10 } else { x * 0.37 }
            })
            .collect()
    };
    // Under one vector, whole vectors, and rows ending in an overlapping vector.
    for slots in [1, 7, 8, 9, 15, 16, 17, 47, 77, 127] {
        let (left, right, below, above, divergence) = (
            field(slots, 1),
            field(slots, 2),
            field(slots, 3),
            field(slots, 4),
            field(slots, 5),
        );
        let neighbours = [&left, &right, &below, &above, &divergence];
        // The row relaxed from the same start by the plain loop and by AVX2.
        fn both(neighbours: [&Vec<f32>; 5], start: &[f32], update: impl Update) -> [Vec<f32>; 2] {
            let [left, right, below, above, divergence] = neighbours;
            let (mut plain, mut wide) = (start.to_vec(), start.to_vec());
            let row = |out| RelaxRow {
                out,
                left,
                right,
                below,
                above,
                divergence,
            };
            row(&mut plain).relax(update);
            // SAFETY: the caller detected AVX2.
            unsafe { row(&mut wide).relax_avx2(update) };
            [plain, wide]
        }
        let start = field(slots, 6);
        let [plain, wide] = both(neighbours, &start, GaussSeidel);
        assert!(same_bits(&plain, &wide), "Gauss-Seidel, {slots} slots");
        let [plain_sor, wide_sor] = both(neighbours, &start, OverRelaxed { omega: 1.8 });
        assert!(same_bits(&plain_sor, &wide_sor), "SOR, {slots} slots");
        // SOR reads the old values: a wrong order over the overlap would show here.
        assert!(!same_bits(&plain_sor, &plain) || slots < 2, "{slots} slots");
        if slots >= 16 {
            assert!(plain.contains(&0.0) && plain.iter().any(|&v| v != 0.0));
        }
    }
}

#[test]
fn split_solver_matches_plain_red_black_bit_for_bit() {
    for cells in [4, 5, 9, 10, 17, 18, 19, 34, 53, 70] {
        let count = cells * cells;
        // An arbitrary but fixed velocity field.
        let u: Vec<f32> = (0..count)
            .map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.7)
            .collect();
        let v: Vec<f32> = (0..count)
            .map(|i| ((i * 53 % 29) as f32 - 14.0) * 0.4)
            .collect();
        let expected = reference_solve(&u, &v, cells, 7);
        // Rows to rayon one half-sweep at a time (several tasks, on the test's pool of
        // more than one thread where the machine has the cores), and both colours in one
        // pass on this thread (one task).
        for (lanes, min_rows) in Lanes::available()
            .into_iter()
            .flat_map(|lanes| [(lanes, 1), (lanes, cells)])
        {
            let mut solver = PressureSolver::new(cells);
            solver.load_divergence(&u, &v, (lanes, min_rows));
            solver.iterate(7, (lanes, min_rows));
            let pressure = stored_pressure(&solver, count, min_rows);
            assert!(
                same_bits(&pressure, &expected),
                "{cells} cells, {lanes:?}, {min_rows} rows a task:\n{pressure:?}\n{expected:?}"
            );
        }
        assert!(
            expected.iter().any(|&p| p != 0.0),
            "{cells} cells: trivial field"
        );
    }
}

#[test]
fn waves_of_iterations_match_plain_red_black_bit_for_bit() {
    for cells in [3, 4, 5, 9, 10, 17, 34, 53, 70] {
        let count = cells * cells;
        let u: Vec<f32> = (0..count)
            .map(|i| ((i * 41 % 19) as f32 - 9.0) * 0.6)
            .collect();
        let v: Vec<f32> = (0..count)
            .map(|i| ((i * 29 % 31) as f32 - 15.0) * 0.5)
            .collect();
        for iterations in [0, 1, 5, 11] {
            let expected = reference_solve(&u, &v, cells, iterations);
            // One iteration a pass (the order before waves), waves deeper than the grid is
            // tall, and waves that do not divide the iterations; iterations two and four rows
            // apart (each with its own order of the rows, four apart in runs of rows).
            let waves = [1, 2, 3, 4, 8, 40]
                .into_iter()
                .flat_map(|depth| [(depth, 2), (depth, 4)]);
            for wave in waves {
                for lanes in Lanes::available() {
                    let mut solver = PressureSolver::new(cells);
                    solver.load_divergence(&u, &v, (lanes, cells));
                    match (lanes, wave) {
                        (Lanes::Plain, (depth, 2)) => solver.sweep_in_step::<2>(
                            iterations,
                            depth,
                            relax_run_plain::<2>(GaussSeidel),
                        ),
                        (Lanes::Plain, (depth, _)) => solver.sweep_in_step::<4>(
                            iterations,
                            depth,
                            relax_run_plain::<4>(GaussSeidel),
                        ),
                        // SAFETY (both): `Lanes::available` lists AVX2 only where the CPU has it.
                        #[cfg(target_arch = "x86_64")]
                        (Lanes::Avx2, (depth, 2)) => unsafe {
                            solver.sweep_in_step_avx2::<2>(iterations, depth, GaussSeidel)
                        },
                        #[cfg(target_arch = "x86_64")]
                        (Lanes::Avx2, (depth, _)) => unsafe {
                            solver.sweep_in_step_avx2::<4>(iterations, depth, GaussSeidel)
                        },
                        // SAFETY (both): `Lanes::available` lists AVX-512 only where the CPU
                        // has it and AVX2.
                        #[cfg(target_arch = "x86_64")]
                        (Lanes::Avx512, (depth, 2)) => unsafe {
                            solver.sweep_in_step_avx512::<2>(iterations, depth, GaussSeidel)
                        },
                        #[cfg(target_arch = "x86_64")]
                        (Lanes::Avx512, (depth, _)) => unsafe {
                            solver.sweep_in_step_avx512::<4>(iterations, depth, GaussSeidel)
                        },
                    }
                    let pressure = stored_pressure(&solver, count, cells);
                    assert!(
                        same_bits(&pressure, &expected),
                        "{cells} cells, {iterations} iterations, wave {wave:?}, {lanes:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_sweeps_rows_are_the_checked_rows() {
    // Where each slice of a row starts and how long it is, from `relax_row` (checked slicing)
    // and from `ColourRows::row` (one check up front).
    fn spans(row: RelaxRow<'_>) -> [(usize, usize); 6] {
        let span = |slice: &[f32]| (slice.as_ptr() as usize, slice.len());
        [
            span(row.out),
            span(row.left),
            span(row.right),
            span(row.below),
            span(row.above),
            span(row.divergence),
        ]
    }
    for cells in [3, 4, 5, 9, 10, 17, 18, 53, 96] {
        let mut solver = PressureSolver::new(cells);
        let half = solver.half;
        for colour in [0, 1] {
            for y in 1..cells - 1 {
                let checked = {
                    let [even, odd] = &mut solver.pressure;
                    let (mine, other) = if colour == 0 {
                        (even, &*odd)
                    } else {
                        (odd, &*even)
                    };
                    let row = &mut mine[y * half..(y + 1) * half];
                    let div_row = &solver.divergence[colour][y * half..(y + 1) * half];
                    spans(relax_row(row, div_row, other, cells, half, colour, y))
                };
                let mut rows =
                    ColourRows::new(&mut solver.pressure, &solver.divergence, cells, half);
                assert_eq!(
                    spans(rows.row(colour, y)),
                    checked,
                    "{cells} cells, row {y}"
                );
            }
        }
    }
}
