//! Vorticity confinement ([`FluidSim::confine_vortices_then_walls`]): the curl of the air,
//! then a push along the curl's gradient, faded out where the curl is at most
//! `vorticity_threshold`. Where the CPU has AVX2 the push runs eight cells at a time, and
//! passes over the square root and divisions in vectors where every cell is calm (most of
//! the grid in practice), to the same bits.

use rayon::prelude::*;

use super::FluidSim;
use super::lanes::Lanes;
use super::stages::walls_row;
use super::stencil::{curl_of, row, rows_beside};

impl FluidSim {
    /// Vorticity confinement: measures the curl, then pushes the air along the curl's gradient
    /// so small swirls survive the grid's numerical smoothing. The push fades out below
    /// `vorticity_threshold` (smoothstep from the threshold to twice it), so weak grid-scale
    /// noise is not amplified and the air calms once the ball's swirls have died down.
    pub(super) fn confine_vortices_then_walls(&mut self, dt_s: f32) {
        let cells = self.mapping.cells;
        let min_rows = self.min_rows_per_task;
        let strength = self.params.vorticity * dt_s;
        let threshold = self.params.vorticity_threshold;

        let lanes = self.lanes;
        self.curl
            .par_chunks_mut(cells)
            .enumerate()
            .with_min_len(min_rows)
            .for_each(|(y, curl_row)| {
                let row = CurlRow {
                    y,
                    out: curl_row,
                    u: &self.u,
                    v: &self.v,
                };
                match lanes {
                    Lanes::Plain => row.run(),
                    // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
                    #[cfg(target_arch = "x86_64")]
                    Lanes::Avx2 | Lanes::Avx512 => unsafe { row.run_avx2() },
                }
            });

        let curl = &self.curl;
        self.u
            .par_chunks_mut(cells)
            .zip(self.v.par_chunks_mut(cells))
            .zip(self.solid.par_chunks(cells))
            .enumerate()
            .with_min_len(min_rows)
            .for_each(|(y, ((u_row, v_row), solid_row))| {
                let row = ConfineRow {
                    y,
                    curl,
                    u_row,
                    v_row,
                    solid_row,
                };
                match lanes {
                    Lanes::Plain => row.run(strength, threshold),
                    // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
                    #[cfg(target_arch = "x86_64")]
                    Lanes::Avx2 | Lanes::Avx512 => unsafe { row.run_avx2(strength, threshold) },
                }
            });
    }
}

/// Row `y` of the curl of `(u, v)` (`stencil::curl_of` on every interior cell, 0 on the
/// border), for vorticity confinement.
struct CurlRow<'a> {
    y: usize,
    out: &'a mut [f32],
    u: &'a [f32],
    v: &'a [f32],
}

impl CurlRow<'_> {
    #[inline(always)]
    fn run(self) {
        let (y, cells) = (self.y, self.out.len());
        self.out.fill(0.0);
        if y == 0 || y == cells - 1 {
            return;
        }
        // `curl_of` on equal-length slices: no bounds checks, and the loop vectorises.
        let inner = 1..cells - 1;
        let v_row = row(self.v, cells, y);
        let (left, right) = (&v_row[..cells - 2], &v_row[2..]);
        let (u_below, u_above) = rows_beside(self.u, cells, y);
        let (u_below, u_above) = (&u_below[inner.clone()], &u_above[inner.clone()]);
        let out = &mut self.out[inner];
        for k in 0..cells - 2 {
            out[k] = curl_of([left[k], right[k]], [u_below[k], u_above[k]]);
        }
    }

    /// [`CurlRow::run`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(self) {
        self.run();
    }
}

/// Row `y` of vorticity confinement on the air, then the walls.
struct ConfineRow<'a> {
    y: usize,
    curl: &'a [f32],
    u_row: &'a mut [f32],
    v_row: &'a mut [f32],
    solid_row: &'a [u8],
}

impl ConfineRow<'_> {
    #[inline(always)]
    fn run(self, strength: f32, threshold: f32) {
        // SAFETY: not `wide`.
        unsafe { self.run_in(strength, threshold, false) };
    }

    /// [`ConfineRow::run`] with its cells in AVX2 vectors of eight. Where all eight are calm —
    /// the curl at most the threshold, so the weight is +0, and both gradients finite — the
    /// push is a signed zero, and `(grad / length) · swirl` has the sign and value of
    /// `grad · swirl` (the length is positive), so those vectors skip the square root and the
    /// divisions; the others run every operation of the plain loop. Either way the same bits;
    /// the cells left over after the last whole vector run the plain loop.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(self, strength: f32, threshold: f32) {
        // SAFETY: the caller promises AVX2.
        unsafe { self.run_in(strength, threshold, true) };
    }

    /// The row: its cells eight at a time first where `wide`, the rest one at a time.
    ///
    /// # Safety
    /// With `wide`, the CPU must support AVX2.
    #[inline(always)]
    unsafe fn run_in(self, strength: f32, threshold: f32, wide: bool) {
        let (y, cells) = (self.y, self.u_row.len());
        if y >= 2 && y + 2 < cells {
            // Equal-length slices over `x` in `2..cells - 2`: no bounds checks, and the loop
            // vectorises.
            let inner = 2..cells - 2;
            let here = row(self.curl, cells, y);
            let (left, right) = (&here[1..cells - 3], &here[3..cells - 1]);
            let (below, above) = rows_beside(self.curl, cells, y);
            let (below, above) = (&below[inner.clone()], &above[inner.clone()]);
            let here = &here[inner.clone()];
            let (u_out, v_out) = (&mut self.u_row[inner.clone()], &mut self.v_row[inner]);
            let count = cells - 4;
            let mut first = 0;
            #[cfg(target_arch = "x86_64")]
            if wide {
                let vectors = Confine8 {
                    here: here.as_ptr(),
                    left: left.as_ptr(),
                    right: right.as_ptr(),
                    below: below.as_ptr(),
                    above: above.as_ptr(),
                    u: u_out.as_mut_ptr(),
                    v: v_out.as_mut_ptr(),
                };
                while first + 8 <= count {
                    // SAFETY: every slice holds `count` floats and `first + 8 <= count`; the
                    // caller promises AVX2.
                    unsafe { vectors.push(first, strength, threshold) };
                    first += 8;
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = wide;
            for k in first..count {
                let grad_x = (right[k].abs() - left[k].abs()) * 0.5;
                let grad_y = (above[k].abs() - below[k].abs()) * 0.5;
                let length = (grad_x * grad_x + grad_y * grad_y).sqrt() + 1e-5;
                let swirl = here[k] * strength * confinement_weight(here[k].abs(), threshold);
                u_out[k] += (grad_y / length) * swirl;
                v_out[k] -= (grad_x / length) * swirl;
            }
        }
        walls_row(y, cells, self.u_row, self.v_row, self.solid_row);
    }
}

/// The starts of [`ConfineRow`]'s equal-length slices, for the AVX2 kernel.
#[cfg(target_arch = "x86_64")]
struct Confine8 {
    here: *const f32,
    left: *const f32,
    right: *const f32,
    below: *const f32,
    above: *const f32,
    u: *mut f32,
    v: *mut f32,
}

#[cfg(target_arch = "x86_64")]
impl Confine8 {
    /// Cells `k..k + 8` of [`ConfineRow::run`]'s loop.
    ///
    /// # Safety
    /// The CPU must support AVX2, and every slice must hold `k + 8` floats.
    #[inline(always)]
    unsafe fn push(&self, k: usize, strength: f32, threshold: f32) {
        use std::arch::x86_64::{
            _CMP_GT_OQ, _CMP_LE_OQ, _CMP_LT_OQ, _mm256_add_ps, _mm256_and_ps, _mm256_andnot_ps,
            _mm256_blendv_ps, _mm256_cmp_ps, _mm256_div_ps, _mm256_loadu_ps, _mm256_movemask_ps,
            _mm256_mul_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm256_sqrt_ps, _mm256_storeu_ps,
            _mm256_sub_ps,
        };
        // SAFETY: the caller's promises.
        unsafe {
            let sign = _mm256_set1_ps(-0.0);
            let half = _mm256_set1_ps(0.5);
            let (right, left) = (abs_at(self.right, k), abs_at(self.left, k));
            let grad_x = _mm256_mul_ps(_mm256_sub_ps(right, left), half);
            let (above, below) = (abs_at(self.above, k), abs_at(self.below, k));
            let grad_y = _mm256_mul_ps(_mm256_sub_ps(above, below), half);
            let here = _mm256_loadu_ps(self.here.add(k));
            let here_abs = _mm256_andnot_ps(sign, here);
            let limit = _mm256_set1_ps(threshold);
            let infinity = _mm256_set1_ps(f32::INFINITY);
            // Ordered comparisons: a NaN anywhere makes its lane not calm.
            let calm = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LE_OQ>(here_abs, limit),
                _mm256_and_ps(
                    _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_andnot_ps(sign, grad_x), infinity),
                    _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_andnot_ps(sign, grad_y), infinity),
                ),
            );
            let pushed = _mm256_mul_ps(here, _mm256_set1_ps(strength));
            let smooth = threshold > 0.0 && threshold < f32::INFINITY;
            let (step_u, step_v) = if smooth && _mm256_movemask_ps(calm) == 0xff {
                // The weight is +0 in every lane.
                let swirl = _mm256_mul_ps(pushed, _mm256_setzero_ps());
                (_mm256_mul_ps(grad_y, swirl), _mm256_mul_ps(grad_x, swirl))
            } else {
                let squares =
                    _mm256_add_ps(_mm256_mul_ps(grad_x, grad_x), _mm256_mul_ps(grad_y, grad_y));
                let length = _mm256_add_ps(_mm256_sqrt_ps(squares), _mm256_set1_ps(1e-5));
                let weight = if threshold <= 0.0 {
                    _mm256_set1_ps(1.0)
                } else {
                    // `clamp(0, 1)` as `f32::clamp` runs it: a NaN stays NaN.
                    let t = _mm256_div_ps(_mm256_sub_ps(here_abs, limit), limit);
                    let zero = _mm256_setzero_ps();
                    let t = _mm256_blendv_ps(t, zero, _mm256_cmp_ps::<_CMP_LT_OQ>(t, zero));
                    let one = _mm256_set1_ps(1.0);
                    let t = _mm256_blendv_ps(t, one, _mm256_cmp_ps::<_CMP_GT_OQ>(t, one));
                    let rise =
                        _mm256_sub_ps(_mm256_set1_ps(3.0), _mm256_mul_ps(_mm256_set1_ps(2.0), t));
                    _mm256_mul_ps(_mm256_mul_ps(t, t), rise)
                };
                let swirl = _mm256_mul_ps(pushed, weight);
                (
                    _mm256_mul_ps(_mm256_div_ps(grad_y, length), swirl),
                    _mm256_mul_ps(_mm256_div_ps(grad_x, length), swirl),
                )
            };
            let u = self.u.add(k);
            _mm256_storeu_ps(u, _mm256_add_ps(_mm256_loadu_ps(u), step_u));
            let v = self.v.add(k);
            _mm256_storeu_ps(v, _mm256_sub_ps(_mm256_loadu_ps(v), step_v));
        }
    }
}

/// `|field[k..k + 8]|`.
///
/// # Safety
/// The CPU must support AVX2, and `field` must hold `k + 8` floats.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn abs_at(field: *const f32, k: usize) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::{_mm256_andnot_ps, _mm256_loadu_ps, _mm256_set1_ps};
    // SAFETY: the caller's promises.
    unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), _mm256_loadu_ps(field.add(k))) }
}

/// How much of the confinement applies at curl magnitude `curl_abs`: 0 below `threshold`,
/// 1 from twice it, smooth in between; always 1 when the threshold is 0.
#[inline(always)]
fn confinement_weight(curl_abs: f32, threshold: f32) -> f32 {
    if threshold <= 0.0 {
        return 1.0;
    }
    let t = ((curl_abs - threshold) / threshold).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Five curl rows `cells` wide with every case the calm vectors must get right: curls
    /// under, at and over the threshold, zeros of both signs, gradients that overflow when
    /// squared, infinities and a NaN, in runs long enough for whole calm vectors.
    fn curl_rows(cells: usize, seed: usize) -> Vec<f32> {
        (0..5 * cells)
            .map(|i| {
                let pick = (i * 37 + seed * 11) % 53;
                match pick {
                    0 => -0.0,
                    1 => 0.0,
                    2 => 2.0,
                    3 => -2.0,
                    4 if seed == 3 => f32::NAN,
                    5 if seed == 2 => f32::INFINITY,
                    6 => 3.0e38,
                    7 => 7.5,
                    _ if i % 29 < 16 => (pick as f32 - 26.0) * 0.07,
                    _ => (pick as f32 - 26.0) * 0.3,
                }
            })
            .collect()
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_push_gives_the_bits_of_the_plain_loop() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        for cells in [5, 12, 13, 36, 45, 96] {
            for seed in 1..=3 {
                let curl = curl_rows(cells, seed);
                let start: Vec<f32> = (0..cells)
                    .map(|x| match x % 4 {
                        0 => -0.0,
                        1 => 0.0,
                        _ => x as f32 * 0.25 - 3.0,
                    })
                    .collect();
                let solid_row: Vec<u8> = (0..cells).map(|x| u8::from(x % 9 == 4)).collect();
                for threshold in [0.0, 2.0, 1e-30, f32::INFINITY] {
                    for strength in [0.15, 0.0, -0.0] {
                        let push = |wide: bool| {
                            let (mut u, mut v) = (start.clone(), start.clone());
                            let row = ConfineRow {
                                y: 2,
                                curl: &curl,
                                u_row: &mut u,
                                v_row: &mut v,
                                solid_row: &solid_row,
                            };
                            if wide {
                                // SAFETY: AVX2 detected above.
                                unsafe { row.run_avx2(strength, threshold) };
                            } else {
                                row.run(strength, threshold);
                            }
                            // Bits, but any NaN as one: Rust leaves a NaN's sign and payload
                            // to the instructions that made it.
                            let bits = |x: &f32| if x.is_nan() { u32::MAX } else { x.to_bits() };
                            u.iter().chain(&v).map(bits).collect::<Vec<_>>()
                        };
                        assert_eq!(
                            push(false),
                            push(true),
                            "{cells} cells, seed {seed}, threshold {threshold}, strength {strength}"
                        );
                    }
                }
            }
        }
    }
}
