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
//! lanes wide, sixteen with AVX-512 (`wide`), with the same operations per cell, so the same
//! bits as on any other CPU.
//!
//! On several threads each half-sweep hands its rows to rayon. On one thread both colours of
//! an iteration go down the grid in one pass, and several iterations follow each other down
//! it, two or four rows apart, while their rows are still in the cache
//! ([`PressureSolver::sweep_in_step`]). The one-pass sweep places its rows through the four
//! row forms of `rows`, with no checks per row. Every cell reads the same neighbour values
//! either way. After the solve the projection takes the pressure back in grid order and its
//! gradient off the air in one pass per row ([`PressureSolver::grid_row`]).

use rayon::prelude::*;

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{__m256, __m512};

use super::aligned::AlignedFloats;
use super::lanes::Lanes;
use super::stages::flush;
use super::stencil::{divergence_run, row, rows_beside};
use rows::ColourRows;

/// Iterations that one pass of [`PressureSolver::sweep_in_step`] carries down the grid at
/// once.
const WAVE: u32 = 8;

/// Rows between successive iterations of one pass of [`PressureSolver::sweep_in_step`] on a
/// `cells`-wide grid: four where a pass's rows stay in the first-level cache (then the rows
/// of one position of the pass overlap), else two (fewer rows held: 256² ran slower three
/// apart, 96² faster).
fn wave_spacing(cells: usize) -> usize {
    if cells <= 128 { 4 } else { 2 }
}

/// Pressure and divergence split by checkerboard colour (`(x + y) % 2`).
#[derive(Debug, Clone)]
pub(super) struct PressureSolver {
    cells: usize,
    /// Slots per row of one colour: `ceil(cells / 2)` (the last slot is unused padding on odd
    /// rows of odd grids, held at 0).
    half: usize,
    /// Pressure of each colour; persists between steps so each solve starts from the last.
    pressure: [AlignedFloats; 2],
    /// Divergence of each colour, refreshed before each solve.
    divergence: [AlignedFloats; 2],
}

/// How a relaxation moves a cell, given its old value and the Gauss-Seidel value from its four
/// neighbours: plain Gauss-Seidel takes the new value, SOR moves `omega` times as far.
pub(super) trait Update: Copy + Send + Sync {
    /// The cell's next value (before `flush`).
    fn scalar(self, old: f32, relaxed: f32) -> f32;

    /// [`Update::scalar`] on eight lanes, the same operations in the same order.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    unsafe fn wide(self, old: __m256, relaxed: __m256) -> __m256;

    /// [`Update::scalar`] on sixteen lanes, the same operations in the same order.
    ///
    /// # Safety
    /// The CPU must support AVX-512.
    #[cfg(target_arch = "x86_64")]
    unsafe fn wide512(self, old: __m512, relaxed: __m512) -> __m512;
}

/// Gauss-Seidel: the relaxed value itself.
#[derive(Debug, Clone, Copy)]
pub(super) struct GaussSeidel;

impl Update for GaussSeidel {
    #[inline(always)]
    fn scalar(self, _old: f32, relaxed: f32) -> f32 {
        relaxed
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn wide(self, _old: __m256, relaxed: __m256) -> __m256 {
        relaxed
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn wide512(self, _old: __m512, relaxed: __m512) -> __m512 {
        relaxed
    }
}

/// Successive over-relaxation: `old + omega * (relaxed - old)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct OverRelaxed {
    pub(super) omega: f32,
}

impl Update for OverRelaxed {
    #[inline(always)]
    fn scalar(self, old: f32, relaxed: f32) -> f32 {
        old + self.omega * (relaxed - old)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn wide(self, old: __m256, relaxed: __m256) -> __m256 {
        use std::arch::x86_64::{_mm256_add_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_sub_ps};
        // SAFETY (all three): the caller promises AVX2.
        unsafe {
            let step = _mm256_mul_ps(_mm256_set1_ps(self.omega), _mm256_sub_ps(relaxed, old));
            _mm256_add_ps(old, step)
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn wide512(self, old: __m512, relaxed: __m512) -> __m512 {
        use std::arch::x86_64::{_mm512_add_ps, _mm512_mul_ps, _mm512_set1_ps, _mm512_sub_ps};
        // SAFETY (all three): the caller promises AVX-512.
        unsafe {
            let step = _mm512_mul_ps(_mm512_set1_ps(self.omega), _mm512_sub_ps(relaxed, old));
            _mm512_add_ps(old, step)
        }
    }
}

/// One row of a half-sweep: the slots to update and, slot for slot, their four neighbours and
/// divergence (equal lengths, so the loop has no bounds checks and vectorises).
pub(super) struct RelaxRow<'a> {
    pub(super) out: &'a mut [f32],
    pub(super) left: &'a [f32],
    pub(super) right: &'a [f32],
    pub(super) below: &'a [f32],
    pub(super) above: &'a [f32],
    pub(super) divergence: &'a [f32],
}

impl RelaxRow<'_> {
    /// Each slot becomes `flush(update(old, relaxed))`, `relaxed` the Gauss-Seidel value.
    #[inline(always)]
    pub(super) fn relax(self, update: impl Update) {
        let slots = self.out.len();
        let (left, right) = (&self.left[..slots], &self.right[..slots]);
        let (below, above) = (&self.below[..slots], &self.above[..slots]);
        let divergence = &self.divergence[..slots];
        for k in 0..slots {
            let relaxed = (left[k] + right[k] + below[k] + above[k] - divergence[k]) * 0.25;
            self.out[k] = flush(update.scalar(self.out[k], relaxed));
        }
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

/// Row `y` of the divergence for [`PressureSolver::load_divergence`]: computed in grid order
/// into `grid_row` (`2 * half` long, 0 past `cells`), then dealt to the colours' rows.
struct DivergenceRow<'a> {
    cells: usize,
    y: usize,
    u: &'a [f32],
    v: &'a [f32],
    grid_row: &'a mut [f32],
    even_row: &'a mut [f32],
    odd_row: &'a mut [f32],
}

impl DivergenceRow<'_> {
    #[inline(always)]
    fn run(self) {
        let (cells, y) = (self.cells, self.y);
        if y == 0 || y == cells - 1 {
            self.even_row.fill(0.0);
            self.odd_row.fill(0.0);
            return;
        }
        let grid_row = self.grid_row;
        let (v_below, v_above) = rows_beside(self.v, cells, y);
        divergence_run(
            &mut grid_row[1..cells - 1],
            1,
            row(self.u, cells, y),
            v_below,
            v_above,
        );
        grid_row[0] = 0.0;
        grid_row[cells - 1] = 0.0;
        // The colour whose row starts at `x = 0` takes the even columns.
        let (from_even, from_odd) = if first_x(0, y) == 0 {
            (self.even_row, self.odd_row)
        } else {
            (self.odd_row, self.even_row)
        };
        for ((even, odd), pair) in from_even
            .iter_mut()
            .zip(from_odd.iter_mut())
            .zip(grid_row.chunks_exact(2))
        {
            *even = pair[0];
            *odd = pair[1];
        }
    }

    /// [`DivergenceRow::run`] compiled for AVX2: the same operations on each cell, so the
    /// same bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(self) {
        self.run();
    }
}

/// For [`PressureSolver::sweep_in_step`]: relaxes rows `y, y - SPACING, …` (`count` of them)
/// of one colour in plain code, one [`ColourRows::row`] at a time.
fn relax_run_plain<const SPACING: usize>(
    update: impl Update,
) -> impl FnMut(&mut ColourRows<'_>, usize, usize, usize) {
    move |rows, colour, y, count| {
        for run in 0..count {
            rows.row(colour, y - SPACING * run).relax(update);
        }
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
        let zeros = AlignedFloats::zeros(half * cells);
        Self {
            cells,
            half,
            pressure: [zeros.clone(), zeros.clone()],
            divergence: [zeros.clone(), zeros],
        }
    }

    /// Loads the divergence of `(u, v)` (`stencil::divergence_run`, 0 on the border): each row
    /// in grid order into scratch (`stencil::divergence_run`, a loop that vectorises), then
    /// split between the colours, so `u` and `v` are read once.
    pub(super) fn load_divergence(
        &mut self,
        u: &[f32],
        v: &[f32],
        (lanes, min_rows): (Lanes, usize),
    ) {
        let (cells, half) = (self.cells, self.half);
        let [div_even, div_odd] = &mut self.divergence;
        div_even
            .par_chunks_mut(half)
            .zip(div_odd.par_chunks_mut(half))
            .enumerate()
            .with_min_len(min_rows)
            // Two slots a pair for every slot of a colour; past `cells` (odd grids) it stays 0.
            .for_each_init(
                || vec![0.0f32; 2 * half],
                |grid_row, (y, (even_row, odd_row))| {
                    let row = DivergenceRow {
                        cells,
                        y,
                        u,
                        v,
                        grid_row,
                        even_row,
                        odd_row,
                    };
                    match lanes {
                        Lanes::Plain => row.run(),
                        // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
                        #[cfg(target_arch = "x86_64")]
                        Lanes::Avx2 | Lanes::Avx512 => unsafe { row.run_avx2() },
                    }
                },
            );
    }

    /// Runs `iterations` red-black Gauss-Seidel sweeps: colour 0 from colour 1, then colour 1
    /// from the new colour 0.
    pub(super) fn iterate(&mut self, iterations: u32, (lanes, min_rows): (Lanes, usize)) {
        self.sweep(iterations, (lanes, min_rows), GaussSeidel);
    }

    /// Runs `iterations` red-black sweeps of successive over-relaxation: each cell moves
    /// `omega` times as far as Gauss-Seidel would move it (`omega` in (0, 2); 1 is
    /// [`PressureSolver::iterate`]).
    pub(super) fn iterate_over_relaxed(
        &mut self,
        iterations: u32,
        omega: f32,
        (lanes, min_rows): (Lanes, usize),
    ) {
        self.sweep(iterations, (lanes, min_rows), OverRelaxed { omega });
    }

    /// `iterations` red-black sweeps; each interior cell becomes `flush(update(old, relaxed))`
    /// with `relaxed` the Gauss-Seidel value from its four neighbours.
    ///
    /// Where the rows would all run on this thread anyway (one task, or a pool of one thread),
    /// the two colours of an iteration go down the grid together instead
    /// ([`PressureSolver::sweep_in_step`]); otherwise each half-sweep hands its rows to rayon.
    /// Every cell is computed from the same neighbour values either way.
    fn sweep(&mut self, iterations: u32, (lanes, min_rows): (Lanes, usize), update: impl Update) {
        let cells = self.cells;
        if cells <= min_rows || rayon::current_num_threads() == 1 {
            match (lanes, wave_spacing(cells)) {
                (Lanes::Plain, 2) => {
                    self.sweep_in_step::<2>(iterations, WAVE, relax_run_plain::<2>(update))
                }
                (Lanes::Plain, _) => {
                    self.sweep_in_step::<4>(iterations, WAVE, relax_run_plain::<4>(update))
                }
                // SAFETY (both): `Lanes::Avx2` is only chosen where the CPU has AVX2.
                #[cfg(target_arch = "x86_64")]
                (Lanes::Avx2, 2) => unsafe {
                    self.sweep_in_step_avx2::<2>(iterations, WAVE, update)
                },
                #[cfg(target_arch = "x86_64")]
                (Lanes::Avx2, _) => unsafe {
                    self.sweep_in_step_avx2::<4>(iterations, WAVE, update)
                },
                // SAFETY (both): `Lanes::Avx512` is only chosen where the CPU has AVX-512 and
                // AVX2.
                #[cfg(target_arch = "x86_64")]
                (Lanes::Avx512, 2) => unsafe {
                    self.sweep_in_step_avx512::<2>(iterations, WAVE, update)
                },
                #[cfg(target_arch = "x86_64")]
                (Lanes::Avx512, _) => unsafe {
                    self.sweep_in_step_avx512::<4>(iterations, WAVE, update)
                },
            }
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
                        match lanes {
                            Lanes::Plain => row.relax(update),
                            // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
                            #[cfg(target_arch = "x86_64")]
                            Lanes::Avx2 => unsafe { row.relax_avx2(update) },
                            // SAFETY: `Lanes::Avx512` is only chosen where the CPU has
                            // AVX-512 and AVX2.
                            #[cfg(target_arch = "x86_64")]
                            Lanes::Avx512 => unsafe { row.relax_avx512(update) },
                        }
                    });
            }
        }
    }

    /// [`PressureSolver::sweep`] on this thread, both colours of an iteration in one pass down
    /// the grid: colour 0's row `y`, then colour 1's row `y - 1`, whose neighbours of colour 0
    /// (rows `y - 2` to `y`) are then all of this iteration, while colour 0's row `y + 1`
    /// still finds colour 1's rows `y` to `y + 2` of the last one. The same values as two
    /// half-sweeps, read while they are still in the cache.
    ///
    /// Up to `wave` iterations go down the grid in the same pass, each `SPACING` rows (two or
    /// four) behind the one before it: iteration `t + 1`'s colour 0 row `y` needs iteration
    /// `t`'s colour 1 rows up to `y + 1`, done when iteration `t` stands at row `y + 2`, and by
    /// then no row of colour 0 that iteration `t` still reads has been replaced. Every row is
    /// computed from the same values as with one iteration a pass, while the rows between stay
    /// in the cache.
    ///
    /// Two rows apart, each row reads the one relaxed just before it (iteration `t + 1`'s
    /// colour 0 row `y` reads iteration `t`'s colour 1 row `y + 1`), so the CPU waits for
    /// every row in turn. Four apart, that row was written one position of the pass earlier,
    /// so colour 0's rows of every iteration go first, then colour 1's (each reading only its
    /// own iteration's colour 0 row of this position), and the CPU overlaps them, at the cost
    /// of a pass that holds more rows ([`wave_spacing`]). Those rows are all of one colour and
    /// an even number of rows apart, so they read their neighbours alike: `relax` relaxes a
    /// run of them, rows `y, y - SPACING, …` (`count` rows), one row at a time two apart.
    #[inline(always)]
    fn sweep_in_step<const SPACING: usize>(
        &mut self,
        iterations: u32,
        wave: u32,
        mut relax: impl FnMut(&mut ColourRows<'_>, usize, usize, usize),
    ) {
        const { assert!(SPACING == 2 || SPACING == 4) };
        let cells = self.cells;
        let mut rows = ColourRows::new(&mut self.pressure, &self.divergence, cells, self.half);
        let mut done = 0;
        while done < iterations {
            let depth = wave.max(1).min(iterations - done) as usize;
            // Iteration `k` of the wave stands at row `step - SPACING * k`; at row `p` it
            // relaxes colour 0's row `p` and colour 1's row `p - 1`.
            for step in 1..cells + SPACING * (depth - 1) {
                let standing = depth.min(step.div_ceil(SPACING));
                if SPACING == 2 {
                    let positions = (0..standing)
                        .map(|k| step - SPACING * k)
                        .filter(|&p| p < cells);
                    for p in positions {
                        if p <= cells - 2 {
                            relax(&mut rows, 0, p, 1);
                        }
                        if p >= 2 {
                            relax(&mut rows, 1, p - 1, 1);
                        }
                    }
                    continue;
                }
                // The iterations `k` whose colour 0 row `p = step - SPACING * k` is at most
                // `cells - 2`, then those whose colour 1 row `p - 1` lies in `1..=cells - 2`.
                let first = |highest: usize| (step.saturating_sub(highest)).div_ceil(SPACING);
                let k0 = first(cells - 2);
                if k0 < standing {
                    relax(&mut rows, 0, step - SPACING * k0, standing - k0);
                }
                if step >= 2 {
                    let (k1, end1) = (first(cells - 1), standing.min((step - 2) / SPACING + 1));
                    if k1 < end1 {
                        relax(&mut rows, 1, step - SPACING * k1 - 1, end1 - k1);
                    }
                }
            }
            done += depth as u32;
        }
    }

    /// Root mean square over the interior cells of what the last solve left of `lap(p) = div`:
    /// `div - (left + right + below + above - 4 p)`, the divergence the projection leaves in
    /// the air (before walls). Summed in `f64` in a fixed order.
    pub(super) fn residual_rms(&self) -> f64 {
        let (cells, half) = (self.cells, self.half);
        let at = |field: &[AlignedFloats; 2], x: usize, y: usize| {
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

    /// Row `y` of the pressure in grid order into `out` (`cells` long): the two colours'
    /// rows interleaved, the one whose first `x` is 0 first.
    #[inline(always)]
    pub(super) fn grid_row(&self, y: usize, out: &mut [f32]) {
        let (cells, half) = (self.cells, self.half);
        let rows = y * half..(y + 1) * half;
        let (first, second) = (
            &self.pressure[y & 1][rows.clone()],
            &self.pressure[(y + 1) & 1][rows],
        );
        let out = &mut out[..cells];
        let pairs = cells / 2;
        // Equal lengths: no bounds checks, and the loop vectorises.
        let (first_pairs, second_pairs) = (&first[..pairs], &second[..pairs]);
        let out_pairs = &mut out[..2 * pairs];
        for k in 0..pairs {
            out_pairs[2 * k] = first_pairs[k];
            out_pairs[2 * k + 1] = second_pairs[k];
        }
        if cells % 2 == 1 {
            out[cells - 1] = first[half - 1];
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

mod rows;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod wide;
