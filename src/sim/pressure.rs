//! The pressure solve of the projection, `lap(p) = div` with `p = 0` on the grid's border, by
//! red-black Gauss-Seidel. The example sweeps in place in reading order, which cannot be split
//! over threads; colouring the grid like a checkerboard gives the same convergence with a fixed
//! result: every cell of one colour depends only on cells of the other.
//!
//! Each colour lives in its own half-width array (row `y` of colour `c` holds the cells
//! `x = (c + y) % 2, +2, +4, …`), so a half-sweep reads one array and writes the other: rows go
//! to rayon with no aliasing, the inner loop is contiguous and vectorises, and it moves about
//! half the memory of a full-grid ping-pong. Successive over-relaxation (`fluid.solver: sor`)
//! is the same sweep moving each cell further; where the CPU has AVX2 the row loop runs eight
//! lanes wide, with the same operations per cell, so the same bits as on any other CPU.

use rayon::prelude::*;

use super::stages::flush;
use super::stencil::{divergence_at, row, rows_beside};

/// Pressure and divergence split by checkerboard colour (`(x + y) % 2`).
#[derive(Debug, Clone)]
pub(super) struct PressureSolver {
    cells: usize,
    /// Slots per row of one colour: `ceil(cells / 2)` (the last slot is unused padding on odd
    /// rows of odd grids, held at 0).
    half: usize,
    /// Pressure of each colour; persists between steps so each solve starts from the last.
    pressure: [Vec<f32>; 2],
    /// Divergence of each colour, refreshed before each solve.
    divergence: [Vec<f32>; 2],
}

/// One row of a half-sweep: the slots to update and, slot for slot, their four neighbours and
/// divergence (equal lengths, so the loop has no bounds checks and vectorises).
struct RelaxRow<'a> {
    out: &'a mut [f32],
    left: &'a [f32],
    right: &'a [f32],
    below: &'a [f32],
    above: &'a [f32],
    divergence: &'a [f32],
}

impl RelaxRow<'_> {
    /// Each slot becomes `flush(update(old, relaxed))`, `relaxed` the Gauss-Seidel value.
    #[inline(always)]
    fn relax(self, update: &impl Fn(f32, f32) -> f32) {
        let slots = self.out.len();
        let (left, right) = (&self.left[..slots], &self.right[..slots]);
        let (below, above) = (&self.below[..slots], &self.above[..slots]);
        let divergence = &self.divergence[..slots];
        for k in 0..slots {
            let relaxed = (left[k] + right[k] + below[k] + above[k] - divergence[k]) * 0.25;
            self.out[k] = flush(update(self.out[k], relaxed));
        }
    }

    /// [`RelaxRow::relax`] compiled for AVX2: eight lanes instead of four, the same operations
    /// in the same order on each cell, so the same bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn relax_avx2(self, update: &impl Fn(f32, f32) -> f32) {
        self.relax(update);
    }
}

/// The interior slots of row `y` of colour `colour` (`row`, `div_row`: that row of the colour's
/// pressure and divergence) with their neighbours in `other`, the other colour's pressure.
#[inline(always)]
fn relax_row<'a>(
    row: &'a mut [f32],
    div_row: &'a [f32],
    other: &'a [f32],
    cells: usize,
    half: usize,
    colour: usize,
    y: usize,
) -> RelaxRow<'a> {
    let start = first_x(colour, y);
    // In this row the other colour starts at `1 - start`, so the left and right neighbours of
    // slot k are the other's slots `k + start - 1` and `k + start`; the rows above and below
    // start where this one does.
    let beside = &other[y * half..(y + 1) * half];
    let below = &other[(y - 1) * half..y * half];
    let above = &other[(y + 1) * half..(y + 2) * half];
    // Interior slots only: 1 <= x = start + 2k <= cells - 2.
    let k_first = 1 - start;
    let k_end = (cells - 2 - start) / 2 + 1;
    let slots = k_end - k_first;
    // Equal-length slices, so the loop has no bounds checks and vectorises.
    RelaxRow {
        out: &mut row[k_first..k_end],
        left: &beside[k_first + start - 1..][..slots],
        right: &beside[k_first + start..][..slots],
        below: &below[k_first..k_end],
        above: &above[k_first..k_end],
        divergence: &div_row[k_first..k_end],
    }
}

/// First `x` of colour `colour` in row `y`.
#[inline(always)]
fn first_x(colour: usize, y: usize) -> usize {
    (colour + y) & 1
}

impl PressureSolver {
    /// A solver for a `cells`-wide grid, starting from zero pressure.
    pub(super) fn new(cells: usize) -> Self {
        let half = cells.div_ceil(2);
        let zeros = vec![0.0_f32; half * cells];
        Self {
            cells,
            half,
            pressure: [zeros.clone(), zeros.clone()],
            divergence: [zeros.clone(), zeros],
        }
    }

    /// Loads the divergence of `(u, v)` (`stencil::divergence_at`, 0 on the border), both
    /// colours of a row in one pass, so `u` and `v` are read once.
    pub(super) fn load_divergence(&mut self, u: &[f32], v: &[f32], min_rows: usize) {
        let (cells, half) = (self.cells, self.half);
        let [div_even, div_odd] = &mut self.divergence;
        div_even
            .par_chunks_mut(half)
            .zip(div_odd.par_chunks_mut(half))
            .enumerate()
            .with_min_len(min_rows)
            .for_each(|(y, (even_row, odd_row))| {
                for (colour, div_row) in [(0, even_row), (1, odd_row)] {
                    div_row.fill(0.0);
                    if y == 0 || y == cells - 1 {
                        continue;
                    }
                    let u_row = row(u, cells, y);
                    let (v_below, v_above) = rows_beside(v, cells, y);
                    let start = first_x(colour, y);
                    for (k, div) in div_row.iter_mut().enumerate() {
                        let x = start + 2 * k;
                        if x >= 1 && x + 1 < cells {
                            *div = divergence_at(u_row, v_below, v_above, x);
                        }
                    }
                }
            });
    }

    /// Runs `iterations` red-black Gauss-Seidel sweeps: colour 0 from colour 1, then colour 1
    /// from the new colour 0.
    pub(super) fn iterate(&mut self, iterations: u32, min_rows: usize) {
        self.sweep(iterations, min_rows, |_, relaxed| relaxed);
    }

    /// Runs `iterations` red-black sweeps of successive over-relaxation: each cell moves
    /// `omega` times as far as Gauss-Seidel would move it (`omega` in (0, 2); 1 is
    /// [`PressureSolver::iterate`]).
    pub(super) fn iterate_over_relaxed(&mut self, iterations: u32, omega: f32, min_rows: usize) {
        self.sweep(iterations, min_rows, |old, relaxed| {
            old + omega * (relaxed - old)
        });
    }

    /// `iterations` red-black sweeps; each interior cell becomes `flush(update(old, relaxed))`
    /// with `relaxed` the Gauss-Seidel value from its four neighbours.
    ///
    /// Where the rows would all run on this thread anyway (one task, or a pool of one thread),
    /// the two colours of an iteration go down the grid together instead
    /// ([`PressureSolver::sweep_in_step`]); otherwise each half-sweep hands its rows to rayon.
    /// Every cell is computed from the same neighbour values either way.
    #[inline(always)]
    fn sweep(&mut self, iterations: u32, min_rows: usize, update: impl Fn(f32, f32) -> f32 + Sync) {
        let cells = self.cells;
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        if cells <= min_rows || rayon::current_num_threads() == 1 {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { self.sweep_in_step_avx2(iterations, &update) };
                return;
            }
            self.sweep_in_step(iterations, &update);
            return;
        }
        let half = self.half;
        for _ in 0..iterations {
            for colour in [0, 1] {
                let [even, odd] = &mut self.pressure;
                let (mine, other) = if colour == 0 {
                    (even, &*odd)
                } else {
                    (odd, &*even)
                };
                let divergence = &self.divergence[colour];
                mine.par_chunks_mut(half)
                    .zip(divergence.par_chunks(half))
                    .enumerate()
                    .with_min_len(min_rows)
                    .for_each(|(y, (row, div_row))| {
                        if y == 0 || y == cells - 1 {
                            return;
                        }
                        let row = relax_row(row, div_row, other, cells, half, colour, y);
                        #[cfg(target_arch = "x86_64")]
                        if avx2 {
                            // SAFETY: the CPU has AVX2 (checked once per sweep).
                            unsafe { row.relax_avx2(&update) };
                            return;
                        }
                        row.relax(&update);
                    });
            }
        }
    }

    /// [`PressureSolver::sweep`] on this thread, both colours of an iteration in one pass down
    /// the grid: colour 0's row `y`, then colour 1's row `y - 1`, whose neighbours of colour 0
    /// (rows `y - 2` to `y`) are then all of this iteration, while colour 0's row `y + 1`
    /// still finds colour 1's rows `y` to `y + 2` of the last one. The same values as two
    /// half-sweeps, read while they are still in the cache.
    #[inline(always)]
    fn sweep_in_step(&mut self, iterations: u32, update: &impl Fn(f32, f32) -> f32) {
        let (cells, half) = (self.cells, self.half);
        let [even, odd] = &mut self.pressure;
        let [div_even, div_odd] = &self.divergence;
        let relax = |mine: &mut [f32], div: &[f32], other: &[f32], colour: usize, y: usize| {
            let row = &mut mine[y * half..(y + 1) * half];
            let div_row = &div[y * half..(y + 1) * half];
            relax_row(row, div_row, other, cells, half, colour, y).relax(update);
        };
        for _ in 0..iterations {
            for y in 1..cells - 1 {
                relax(even, div_even, odd, 0, y);
                if y >= 2 {
                    relax(odd, div_odd, even, 1, y - 1);
                }
            }
            relax(odd, div_odd, even, 1, cells - 2);
        }
    }

    /// [`PressureSolver::sweep_in_step`] compiled for AVX2: eight lanes instead of four, the
    /// same operations in the same order on each cell, so the same bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn sweep_in_step_avx2(&mut self, iterations: u32, update: &impl Fn(f32, f32) -> f32) {
        self.sweep_in_step(iterations, update);
    }

    /// Root mean square over the interior cells of what the last solve left of `lap(p) = div`:
    /// `div - (left + right + below + above - 4 p)`, the divergence the projection leaves in
    /// the air (before walls). Summed in `f64` in a fixed order.
    pub(super) fn residual_rms(&self) -> f64 {
        let (cells, half) = (self.cells, self.half);
        let at = |field: &[Vec<f32>; 2], x: usize, y: usize| {
            f64::from(field[(x + y) & 1][y * half + x / 2])
        };
        let mut sum = 0.0;
        for y in 1..cells - 1 {
            for x in 1..cells - 1 {
                let p = &self.pressure;
                let laplacian =
                    at(p, x - 1, y) + at(p, x + 1, y) + at(p, x, y - 1) + at(p, x, y + 1)
                        - 4.0 * at(p, x, y);
                let residual = at(&self.divergence, x, y) - laplacian;
                sum += residual * residual;
            }
        }
        (sum / ((cells - 2) * (cells - 2)) as f64).sqrt()
    }

    /// Loads the pressure from grid order (`cells × cells`), the inverse of
    /// [`PressureSolver::store_pressure`]; a restored snapshot warm-starts from it.
    pub(super) fn load_pressure(&mut self, grid_pressure: &[f32], min_rows: usize) {
        let (cells, half) = (self.cells, self.half);
        for (colour, pressure) in self.pressure.iter_mut().enumerate() {
            pressure
                .par_chunks_mut(half)
                .enumerate()
                .with_min_len(min_rows)
                .for_each(|(y, row)| {
                    let start = first_x(colour, y);
                    for (k, value) in row.iter_mut().enumerate() {
                        let x = start + 2 * k;
                        *value = if x < cells {
                            grid_pressure[y * cells + x]
                        } else {
                            0.0
                        };
                    }
                });
        }
    }

    /// Row `y` of the pressure in grid order into `out` (`cells` long).
    #[inline(always)]
    pub(super) fn grid_row(&self, y: usize, out: &mut [f32]) {
        let half = self.half;
        let rows = [
            &self.pressure[0][y * half..(y + 1) * half],
            &self.pressure[1][y * half..(y + 1) * half],
        ];
        for (x, value) in out.iter_mut().enumerate() {
            *value = rows[(x + y) & 1][x / 2];
        }
    }

    /// Writes the pressure back in grid order into `out` (`cells × cells`).
    #[cfg(test)]
    pub(super) fn store_pressure(&self, out: &mut [f32], min_rows: usize) {
        out.par_chunks_mut(self.cells)
            .enumerate()
            .with_min_len(min_rows)
            .for_each(|(y, out_row)| self.grid_row(y, out_row));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                        let value = (p[i - 1] + p[i + 1] + p[i - cells] + p[i + cells]
                            - divergence[i])
                            * 0.25;
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
        let slots = 77;
        let field = |seed: usize| -> Vec<f32> {
            (0..slots)
                .map(|k| {
                    let x = ((k * 31 + seed * 17) % 41) as f32 - 20.0;
                    // Some values near the flush threshold, some ordinary.
                    if k % 5 == 0 { x * 1e-10 } else { x * 0.37 }
                })
                .collect()
        };
        let (left, right, below, above, divergence) =
            (field(1), field(2), field(3), field(4), field(5));
        for omega in [None, Some(1.8f32)] {
            let update = |old: f32, relaxed: f32| match omega {
                Some(omega) => old + omega * (relaxed - old),
                None => relaxed,
            };
            let (mut plain, mut wide) = (field(6), field(6));
            let row = |out| RelaxRow {
                out,
                left: &left,
                right: &right,
                below: &below,
                above: &above,
                divergence: &divergence,
            };
            row(&mut plain).relax(&update);
            // SAFETY: AVX2 was detected above.
            unsafe { row(&mut wide).relax_avx2(&update) };
            let same = plain
                .iter()
                .zip(&wide)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{omega:?}");
            assert!(plain.contains(&0.0) && plain.iter().any(|&v| v != 0.0));
        }
    }

    #[test]
    fn split_solver_matches_plain_red_black_bit_for_bit() {
        for cells in [4, 5, 9, 10, 17] {
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
            for min_rows in [1, cells] {
                let mut solver = PressureSolver::new(cells);
                solver.load_divergence(&u, &v, min_rows);
                solver.iterate(7, min_rows);
                let mut pressure = vec![f32::NAN; count];
                solver.store_pressure(&mut pressure, min_rows);
                let same = pressure
                    .iter()
                    .zip(&expected)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(
                    same,
                    "{cells} cells, {min_rows} rows a task:\n{pressure:?}\n{expected:?}"
                );
            }
            assert!(
                expected.iter().any(|&p| p != 0.0),
                "{cells} cells: trivial field"
            );
        }
    }
}
