//! Tests of the multigrid solver: its levels, its convergence, and that the row kernels give
//! the bits of the scalar solver they replaced on every split of the rows and every `Lanes`.

use super::*;

/// Plain instructions, every level in one task.
const ONE_TASK: (Lanes, usize) = (Lanes::Plain, usize::MAX);

/// A divergence like a blast's: a ring of outflow, plus a fixed pattern.
fn blast_divergence(cells: usize) -> Vec<f32> {
    let mut divergence = vec![0.0_f32; cells * cells];
    let centre = cells as f32 * 0.4;
    for j in 1..cells - 1 {
        for i in 1..cells - 1 {
            let (dx, dy) = (i as f32 - centre, j as f32 - centre * 1.2);
            let r = (dx * dx + dy * dy).sqrt();
            divergence[j * cells + i] =
                3.0 * (-((r - 6.0) * (r - 6.0)) / 8.0).exp() + ((i * 7 + j * 3) % 5) as f32 * 0.01;
        }
    }
    divergence
}

/// RMS of `div - lap(p)` with the fluid's five-point stencil.
fn residual_rms(divergence: &[f32], p: &[f32], cells: usize) -> f64 {
    let mut sum = 0.0;
    for j in 1..cells - 1 {
        for i in 1..cells - 1 {
            let at = j * cells + i;
            let lap = p[at - 1] + p[at + 1] + p[at - cells] + p[at + cells] - 4.0 * p[at];
            let r = f64::from(divergence[at] - lap);
            sum += r * r;
        }
    }
    (sum / ((cells - 2) * (cells - 2)) as f64).sqrt()
}

fn jacobi(divergence: &[f32], cells: usize, sweeps: u32) -> Vec<f32> {
    let mut p = vec![0.0_f32; cells * cells];
    let mut next = p.clone();
    for _ in 0..sweeps {
        for j in 1..cells - 1 {
            for i in 1..cells - 1 {
                let at = j * cells + i;
                next[at] =
                    (p[at - 1] + p[at + 1] + p[at - cells] + p[at + cells] - divergence[at]) * 0.25;
            }
        }
        std::mem::swap(&mut p, &mut next);
    }
    p
}

#[test]
fn levels_halve_down_to_a_few_nodes_and_keep_the_far_border() {
    for cells in [4, 5, 17, 96, 97, 256] {
        let multigrid = Multigrid::new(cells);
        let levels = &multigrid.levels;
        assert_eq!(levels[0].nodes, cells - 2);
        let last = levels.last().unwrap();
        assert!(last.nodes <= COARSEST_NODES, "{cells}: {}", last.nodes);
        for pair in levels.windows(2) {
            assert_eq!(pair[1].nodes, pair[0].nodes / 2, "{cells}");
        }
    }
}

#[test]
fn default_cycles_beat_a_thousand_jacobi_sweeps() {
    for cells in [48, 96] {
        let divergence = blast_divergence(cells);
        let start = residual_rms(&divergence, &vec![0.0; cells * cells], cells);
        let jacobi_rms = residual_rms(&divergence, &jacobi(&divergence, cells, 1000), cells);
        let mut multigrid = Multigrid::new(cells);
        let mut p = vec![0.0_f32; cells * cells];
        multigrid.solve(
            &divergence,
            &mut p,
            crate::sim::DEFAULT_MULTIGRID_CYCLES,
            ONE_TASK,
        );
        let multigrid_rms = residual_rms(&divergence, &p, cells);
        assert!(
            (multigrid.residual_rms() - multigrid_rms).abs() <= 1e-6 * start,
            "{cells}: {} vs {multigrid_rms}",
            multigrid.residual_rms()
        );
        assert!(
            multigrid_rms < jacobi_rms,
            "{cells}: multigrid {multigrid_rms:e}, 1000 Jacobi {jacobi_rms:e}, start {start:e}"
        );
        // And each cycle cuts the residual by a good factor.
        let mut one = vec![0.0_f32; cells * cells];
        Multigrid::new(cells).solve(&divergence, &mut one, 1, ONE_TASK);
        let after_one = residual_rms(&divergence, &one, cells);
        assert!(
            after_one < 0.3 * start,
            "{cells}: {after_one:e} of {start:e}"
        );
        assert!(p.iter().all(|v| v.is_finite()));
    }
}

#[test]
fn the_border_stays_zero_and_results_repeat() {
    let cells = 37;
    let divergence = blast_divergence(cells);
    let mut a = vec![1.0_f32; cells * cells];
    let mut b = a.clone();
    Multigrid::new(cells).solve(&divergence, &mut a, 3, ONE_TASK);
    Multigrid::new(cells).solve(&divergence, &mut b, 3, ONE_TASK);
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    for k in 0..cells {
        for at in [k, k * cells, k * cells + cells - 1, (cells - 1) * cells + k] {
            assert_eq!(a[at], 0.0, "border {at}");
        }
    }
}

/// The solver as it was first written, on one thread in one fixed order, in place: the form
/// whose bits the row kernels must give. Its own copy of the levels' arithmetic, so a change
/// to the kernels cannot change it too.
mod first_form {
    use super::super::{COARSEST_SWEEPS, Level, SMOOTHING_SWEEPS, clear_border};
    use crate::sim::stages::flush;

    fn laplacian(level: &Level, i: usize, j: usize) -> f32 {
        let (side, p) = (level.side, &level.value);
        let at = j * side + i;
        let (low, high) = (&level.weight_low, &level.weight_high);
        low[i] * p[at - 1] + high[i] * p[at + 1] + low[j] * p[at - side] + high[j] * p[at + side]
            - (low[i] + high[i] + low[j] + high[j]) * p[at]
    }

    fn smooth(level: &mut Level, sweeps: u32) {
        let (side, nodes) = (level.side, level.nodes);
        for _ in 0..sweeps {
            for colour in [0, 1] {
                for j in 1..=nodes {
                    let first = 1 + ((colour + j + 1) & 1);
                    for i in (first..=nodes).step_by(2) {
                        let (low, high, p) = (&level.weight_low, &level.weight_high, &level.value);
                        let at = j * side + i;
                        let neighbours = low[i] * p[at - 1]
                            + high[i] * p[at + 1]
                            + low[j] * p[at - side]
                            + high[j] * p[at + side];
                        let diagonal = low[i] + high[i] + low[j] + high[j];
                        level.value[at] = flush((neighbours - level.rhs[at]) / diagonal);
                    }
                }
            }
        }
    }

    fn compute_residual(level: &mut Level) {
        for j in 1..=level.nodes {
            for i in 1..=level.nodes {
                let at = j * level.side + i;
                level.residual[at] = level.rhs[at] - laplacian(level, i, j);
            }
        }
    }

    fn restrict(fine: &Level, coarse: &mut Level) {
        const WEIGHTS: [f32; 3] = [0.25, 0.5, 0.25];
        for big_j in 1..=coarse.nodes {
            for big_i in 1..=coarse.nodes {
                let mut sum = 0.0;
                for (dj, weight_j) in WEIGHTS.iter().enumerate() {
                    let row = (2 * big_j + dj - 1) * fine.side;
                    for (di, weight_i) in WEIGHTS.iter().enumerate() {
                        sum += weight_j * weight_i * fine.residual[row + 2 * big_i + di - 1];
                    }
                }
                coarse.rhs[big_j * coarse.side + big_i] = sum;
            }
        }
    }

    fn prolong_add(coarse: &Level, fine: &mut Level) {
        let c = &coarse.value;
        for j in 1..=fine.nodes {
            let y = fine.from_coarse[j];
            for i in 1..=fine.nodes {
                let x = fine.from_coarse[i];
                let row_a = y.a * coarse.side;
                let row_b = y.b * coarse.side;
                let correction = y.weight_a
                    * (x.weight_a * c[row_a + x.a] + x.weight_b * c[row_a + x.b])
                    + y.weight_b * (x.weight_a * c[row_b + x.a] + x.weight_b * c[row_b + x.b]);
                fine.value[j * fine.side + i] += correction;
            }
        }
    }

    fn v_cycle(levels: &mut [Level]) {
        let Some((fine, coarser)) = levels.split_first_mut() else {
            return;
        };
        let Some(coarse) = coarser.first_mut() else {
            smooth(fine, COARSEST_SWEEPS);
            return;
        };
        smooth(fine, SMOOTHING_SWEEPS);
        compute_residual(fine);
        restrict(fine, coarse);
        coarse.value.fill(0.0);
        v_cycle(coarser);
        prolong_add(&coarser[0], fine);
        smooth(fine, SMOOTHING_SWEEPS);
    }

    /// `Multigrid::solve` as first written, on `levels` (built by `Multigrid::new`).
    pub(super) fn solve(
        levels: &mut [Level],
        divergence: &[f32],
        pressure: &mut [f32],
        cycles: u32,
    ) {
        let fine = &mut levels[0];
        fine.rhs.copy_from_slice(divergence);
        fine.value.copy_from_slice(pressure);
        clear_border(&mut fine.value, fine.side);
        clear_border(&mut fine.rhs, fine.side);
        for _ in 0..cycles {
            v_cycle(levels);
        }
        pressure.copy_from_slice(&levels[0].value);
    }
}

/// A fixed, rough pressure to start from: every level sees large and small values of both
/// signs, tiny ones among them (which the sweeps flush to 0).
fn rough_start(cells: usize) -> Vec<f32> {
    (0..cells * cells)
        .map(|k| {
            let wave = ((k * 37 % 101) as f32 - 50.0) * 0.03;
            if k % 13 == 0 { wave * 1e-9 } else { wave }
        })
        .collect()
}

#[test]
fn the_row_kernels_give_the_first_form_s_bits_on_any_split_and_lanes() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .expect("a pool");
    for cells in [4, 5, 17, 38, 97, 256] {
        let divergence = blast_divergence(cells);
        let start = rough_start(cells);
        let mut expected = start.clone();
        first_form::solve(
            &mut Multigrid::new(cells).levels,
            &divergence,
            &mut expected,
            3,
        );
        let every_run = Lanes::available()
            .into_iter()
            .flat_map(|lanes| [1, 3, usize::MAX].map(|min_rows| (lanes, min_rows)));
        // Each split and lanes with the prolongation's pairs, and once more without them.
        let runs = every_run
            .map(|run| (run, true))
            .chain([((Lanes::Plain, 3), false)]);
        for ((lanes, min_rows), paired) in runs {
            let mut multigrid = Multigrid::new(cells);
            let levels = multigrid.levels.len();
            let with_pairs = multigrid
                .levels
                .iter()
                .filter(|l| l.pairs.is_some())
                .count();
            assert_eq!(
                with_pairs,
                levels - 1,
                "{cells}: every level but the coarsest"
            );
            if !paired {
                multigrid
                    .levels
                    .iter_mut()
                    .for_each(|level| level.pairs = None);
            }
            let mut p = start.clone();
            // Twice, so the second solve starts from buffers the first left behind.
            for _ in 0..2 {
                p.copy_from_slice(&start);
                pool.install(|| multigrid.solve(&divergence, &mut p, 3, (lanes, min_rows)));
            }
            let same = p
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(
                same,
                "{cells} cells, {lanes:?}, {min_rows} rows a task, pairs {paired}"
            );
        }
    }
}

#[test]
fn the_uniform_interior_multiplies_only_by_an_exact_reciprocal() {
    let multigrid = Multigrid::new(256);
    // Every level of a 256-cell grid but the coarsest has a uniform interior whose diagonal
    // is a power of two: 4 on the finest, 4 / spacing² below.
    for (level, spacing) in multigrid
        .levels
        .iter()
        .zip([1.0_f32, 2.0, 4.0, 8.0, 16.0, 32.0])
    {
        let inverse = level.regular_inverse.expect("a uniform interior");
        assert_eq!(inverse, spacing * spacing / 4.0, "spacing {spacing}");
    }
    // Weights that are not a power of two's share divide.
    assert_eq!(
        regular_inverse(&[0.0, 0.3, 0.3, 0.3], &[0.0, 0.3, 0.3, 0.2], 3),
        None
    );
    // Nor does a level whose interior is not uniform.
    assert_eq!(
        regular_inverse(&[0.0, 1.0, 0.5, 1.0], &[0.0, 1.0, 1.0, 1.0], 3),
        None
    );
}
