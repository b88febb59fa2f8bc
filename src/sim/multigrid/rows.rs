//! The row kernels of the multigrid solver: a red-black half-sweep, the residual, the
//! restriction and the prolongation, each writing one row of its output from buffers it only
//! reads, so [`super::Multigrid`] shares rows among threads in any split.
//!
//! Every kernel runs the scalar solver's operations on each node in the same order, with no
//! fused multiply-add, so the result has the same bits on any thread count and with any
//! `Lanes`. A half-sweep computes every node of its row, both colours, in whole vectors, and
//! keeps the new value only on its own colour's nodes: the other colour's values are copied as
//! they were, which is what an in-place sweep of one colour leaves.
//!
//! The interior of a uniform level (every node but the last of each axis) has one diagonal,
//! `4 / spacing²`, a power of two: there dividing by it and multiplying by its reciprocal give
//! the same bits (both are the one exact quotient, rounded once), and the half-sweep multiplies.
//!
//! The restriction reads its three fine nodes a row as strided vectors, and the prolongation's
//! interpolation along x takes fine nodes two at a time (`Pairs`) instead of gathering
//! coarse values by index: the same products, summed in the same order.

use super::super::lanes::run_with_lanes;
use super::super::stages::flush;

run_with_lanes!(SmoothRow);
run_with_lanes!(ResidualRow);
run_with_lanes!(RestrictRow);
run_with_lanes!(InterpolateRow);
run_with_lanes!(ProlongRow);

/// The axis weights of one level: per axis index, the stencil's weight toward the lower and
/// the upper neighbour (the same on both axes).
#[derive(Debug, Clone, Copy)]
pub(super) struct Weights<'a> {
    pub(super) low: &'a [f32],
    pub(super) high: &'a [f32],
    /// The reciprocal of the diagonal `low + high + low + high` shared by the interior nodes
    /// `1..nodes` of both axes, where that diagonal is a power of two whose reciprocal is a
    /// normal float; `None` elsewhere (every node then divides).
    pub(super) regular_inverse: Option<f32>,
}

/// Row `j` of a red-black half-sweep of `lap(value) = rhs`: `out` is row `j` of the next
/// buffer, `here` row `j` of the values and `below`/`above` rows `j ∓ 1`, `rhs` row `j` of the
/// right-hand side, all `side` long. The interior nodes `1 + k` with `take[k]` not 0 (those
/// of the colour) take their relaxed value, the others keep theirs; the border nodes 0 and
/// `side - 1` are not written.
pub(super) struct SmoothRow<'a> {
    pub(super) out: &'a mut [f32],
    pub(super) take: &'a [u32],
    pub(super) below: &'a [f32],
    pub(super) here: &'a [f32],
    pub(super) above: &'a [f32],
    pub(super) rhs: &'a [f32],
    pub(super) weights: Weights<'a>,
    pub(super) j: usize,
}

impl SmoothRow<'_> {
    #[inline(always)]
    fn run(self) {
        let side = self.out.len();
        let nodes = side - 2;
        let Weights {
            low,
            high,
            regular_inverse,
        } = self.weights;
        let (low_j, high_j) = (low[self.j], high[self.j]);
        // The uniform part of the row (nodes 1..nodes) multiplies where its diagonal allows;
        // the last node of the row, and every node of the last row, divide.
        let regular = match regular_inverse {
            Some(inverse) if self.j < nodes => Some((inverse, nodes - 1)),
            _ => None,
        };
        let split = regular.map_or(0, |(_, count)| count);
        // Equal-length slices from node 1: no bounds checks, and the loops vectorise.
        let (low, high) = (&low[1..=nodes], &high[1..=nodes]);
        let (left, centre, right) = (
            &self.here[..nodes],
            &self.here[1..=nodes],
            &self.here[2..=nodes + 1],
        );
        let (below, above, rhs) = (
            &self.below[1..=nodes],
            &self.above[1..=nodes],
            &self.rhs[1..=nodes],
        );
        let out = &mut self.out[1..=nodes];
        let take = &self.take[..nodes];
        if let Some((inverse, count)) = regular {
            // Every node of the uniform part has node 1's weights (`regular_inverse` checks).
            let (low_i, high_i) = (low[0], high[0]);
            for k in 0..count {
                let neighbours =
                    low_i * left[k] + high_i * right[k] + low_j * below[k] + high_j * above[k];
                let relaxed = flush((neighbours - rhs[k]) * inverse);
                out[k] = if take[k] != 0 { relaxed } else { centre[k] };
            }
        }
        for k in split..nodes {
            let neighbours =
                low[k] * left[k] + high[k] * right[k] + low_j * below[k] + high_j * above[k];
            let diagonal = low[k] + high[k] + low_j + high_j;
            let relaxed = flush((neighbours - rhs[k]) / diagonal);
            out[k] = if take[k] != 0 { relaxed } else { centre[k] };
        }
    }
}

/// Row `j` of `residual = rhs - lap(value)`: `out` is row `j` of the residual, the others as
/// in [`SmoothRow`]. The border nodes are not written.
pub(super) struct ResidualRow<'a> {
    pub(super) out: &'a mut [f32],
    pub(super) below: &'a [f32],
    pub(super) here: &'a [f32],
    pub(super) above: &'a [f32],
    pub(super) rhs: &'a [f32],
    pub(super) weights: Weights<'a>,
    pub(super) j: usize,
}

impl ResidualRow<'_> {
    #[inline(always)]
    fn run(self) {
        let nodes = self.out.len() - 2;
        let Weights { low, high, .. } = self.weights;
        let (low_j, high_j) = (low[self.j], high[self.j]);
        let (low, high) = (&low[1..=nodes], &high[1..=nodes]);
        let (left, centre, right) = (
            &self.here[..nodes],
            &self.here[1..=nodes],
            &self.here[2..=nodes + 1],
        );
        let (below, above, rhs) = (
            &self.below[1..=nodes],
            &self.above[1..=nodes],
            &self.rhs[1..=nodes],
        );
        let out = &mut self.out[1..=nodes];
        for k in 0..nodes {
            let laplacian =
                low[k] * left[k] + high[k] * right[k] + low_j * below[k] + high_j * above[k]
                    - (low[k] + high[k] + low_j + high_j) * centre[k];
            out[k] = rhs[k] - laplacian;
        }
    }
}

/// Full weighting, 1/4, 1/2, 1/4 per axis.
const FULL_WEIGHTING: [f32; 3] = [0.25, 0.5, 0.25];

/// Coarse row `J` of the restriction: `out` (the coarse `side` long) takes, at each interior
/// coarse node `I`, the full weighting of the fine residual rows `2J - 1`, `2J`, `2J + 1`
/// (`fine`, in that order) around fine node `2I`, summed in the scalar solver's order.
pub(super) struct RestrictRow<'a> {
    pub(super) out: &'a mut [f32],
    pub(super) fine: [&'a [f32]; 3],
}

impl RestrictRow<'_> {
    #[inline(always)]
    fn run(self) {
        let coarse_nodes = self.out.len() - 2;
        // Fine nodes `0..=2 · coarse_nodes + 1` are read: slices of that length let the
        // loop run without bounds checks and read its three nodes a row as strided vectors.
        let reach = 2 * coarse_nodes + 2;
        let rows = self.fine.map(|row| &row[..reach]);
        let weights =
            FULL_WEIGHTING.map(|weight_j| FULL_WEIGHTING.map(|weight_i| weight_j * weight_i));
        let out = &mut self.out[1..=coarse_nodes];
        for (k, out) in out.iter_mut().enumerate() {
            // Coarse node `I = k + 1` sits over fine node `2I`: fine nodes `2k + 1 ..= 2k + 3`.
            let first = 2 * k + 1;
            let mut sum = 0.0;
            for (row, weights) in rows.iter().zip(&weights) {
                sum += weights[0] * row[first];
                sum += weights[1] * row[first + 1];
                sum += weights[2] * row[first + 2];
            }
            *out = sum;
        }
    }
}

/// How fine node `i` takes a coarse correction along one axis: `weight_a * coarse[a] +
/// weight_b * coarse[b]` (index 0 and `nodes + 1` of the coarse axis are the border, 0).
#[derive(Debug, Clone, Copy)]
pub(super) struct Interpolation {
    pub(super) a: usize,
    pub(super) weight_a: f32,
    pub(super) b: usize,
    pub(super) weight_b: f32,
}

/// A level's [`Interpolation`]s along one axis split by the fine node's parity, where they
/// have the usual shape: fine node `2m` takes `weight_a · coarse[m] + weight_b · coarse[0]`
/// and fine node `2m + 1` takes `weight_a · coarse[m] + weight_b · coarse[m + 1]`, so a row
/// is interpolated with no gathers ([`InterpolateRow`]).
#[derive(Debug, Clone)]
pub(super) struct Pairs {
    even_a: Vec<f32>,
    even_b: Vec<f32>,
    odd_a: Vec<f32>,
    odd_b: Vec<f32>,
}

impl Pairs {
    /// The split of `from_coarse` (one per fine node, border included) toward a coarse level
    /// `coarse_side` nodes wide, or `None` where an interior node does not have the usual
    /// shape. The border's `0` on either side of the coarse row stands in for `coarse[0]`
    /// where the last odd node has no upper neighbour (both are 0).
    pub(super) fn new(from_coarse: &[Interpolation], coarse_side: usize) -> Option<Pairs> {
        let side = from_coarse.len();
        let usual = (1..side - 1).all(|i| {
            let (x, m) = (from_coarse[i], i / 2);
            let b_fits = if i % 2 == 0 {
                x.b == 0
            } else {
                x.b == m + 1 || (x.b == 0 && m + 1 == coarse_side - 1)
            };
            x.a == m && b_fits && m + 1 < coarse_side
        });
        if !usual {
            return None;
        }
        // Pairs `(2m, 2m + 1)` for `m < side / 2`: every interior node; the border ones get
        // what their (zero) weights give, and are never read.
        let half = side / 2;
        let weights = |parity: usize, pick: fn(&Interpolation) -> f32| -> Vec<f32> {
            (0..half)
                .map(|m| pick(&from_coarse[2 * m + parity]))
                .collect()
        };
        Some(Pairs {
            even_a: weights(0, |x| x.weight_a),
            even_b: weights(0, |x| x.weight_b),
            odd_a: weights(1, |x| x.weight_a),
            odd_b: weights(1, |x| x.weight_b),
        })
    }
}

/// One coarse row interpolated along x to every fine node of a row: `out[i] = x.weight_a *
/// coarse[x.a] + x.weight_b * coarse[x.b]` for the interior fine nodes (`from_coarse[i]`),
/// the first half of the prolongation's sum. With `pairs` the nodes are taken two at a time
/// from neighbouring coarse values, the same products and sums.
pub(super) struct InterpolateRow<'a> {
    pub(super) out: &'a mut [f32],
    pub(super) coarse: &'a [f32],
    pub(super) from_coarse: &'a [Interpolation],
    pub(super) pairs: Option<&'a Pairs>,
}

impl InterpolateRow<'_> {
    #[inline(always)]
    fn run(self) {
        let coarse = self.coarse;
        let Some(pairs) = self.pairs else {
            let nodes = self.out.len() - 2;
            for (out, x) in self.out[1..=nodes]
                .iter_mut()
                .zip(&self.from_coarse[1..=nodes])
            {
                *out = x.weight_a * coarse[x.a] + x.weight_b * coarse[x.b];
            }
            return;
        };
        let half = pairs.even_a.len();
        let (even_a, even_b) = (&pairs.even_a[..half], &pairs.even_b[..half]);
        let (odd_a, odd_b) = (&pairs.odd_a[..half], &pairs.odd_b[..half]);
        let (here, next) = (&coarse[..half], &coarse[1..=half]);
        let border = coarse[0];
        for (m, out) in self.out[..2 * half].chunks_exact_mut(2).enumerate() {
            out[0] = even_a[m] * here[m] + even_b[m] * border;
            out[1] = odd_a[m] * here[m] + odd_b[m] * next[m];
        }
    }
}

/// Row `j` of the prolongation: `value[i] += y.weight_a * row_a[i] + y.weight_b * row_b[i]`,
/// with `row_a` and `row_b` the coarse rows `y.a` and `y.b` interpolated along x
/// ([`InterpolateRow`]); the border nodes are not written.
pub(super) struct ProlongRow<'a> {
    pub(super) value: &'a mut [f32],
    pub(super) row_a: &'a [f32],
    pub(super) row_b: &'a [f32],
    pub(super) y: Interpolation,
}

impl ProlongRow<'_> {
    #[inline(always)]
    fn run(self) {
        let nodes = self.value.len() - 2;
        let (weight_a, weight_b) = (self.y.weight_a, self.y.weight_b);
        let value = &mut self.value[1..=nodes];
        let (row_a, row_b) = (&self.row_a[1..=nodes], &self.row_b[1..=nodes]);
        for k in 0..nodes {
            value[k] += weight_a * row_a[k] + weight_b * row_b[k];
        }
    }
}
