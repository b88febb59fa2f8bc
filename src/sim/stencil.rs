//! The grid's central differences (spacing 1), one copy of each: the divergence that the
//! projection removes and the continuity equation reads from the shock wave, and the curl
//! that vorticity confinement measures. The projection, the shock's squeeze, the confinement
//! and the debug maps all call these, so they take the same operator, operation for operation
//! (the state hash depends on every rounding).
//!
//! A stencil reads a cell's left and right neighbours in its own row and the cells above and
//! below it in the rows `y + 1` and `y - 1`; border cells have no such neighbours and are 0
//! in the whole-field forms.

use rayon::prelude::*;

/// `du/dx + dv/dy` at a cell from its neighbours' values: `u` left and right of it, `v` below
/// and above it.
#[inline(always)]
pub(super) fn divergence_of([u_left, u_right]: [f32; 2], [v_below, v_above]: [f32; 2]) -> f32 {
    (u_right - u_left + v_above - v_below) * 0.5
}

/// [`divergence_of`] on columns `first..first + out.len()` of a row into `out` (`first` at
/// least 1, the last column at most `cells - 2`): `u_row` is `u` along the row, `v_below` and
/// `v_above` are `v` along the rows before and after it. Equal-length slices, so the loop has
/// no bounds checks and vectorises.
#[inline(always)]
pub(super) fn divergence_run(
    out: &mut [f32],
    first: usize,
    u_row: &[f32],
    v_below: &[f32],
    v_above: &[f32],
) {
    let len = out.len();
    let (u_left, u_right) = (&u_row[first - 1..][..len], &u_row[first + 1..][..len]);
    let (v_below, v_above) = (&v_below[first..][..len], &v_above[first..][..len]);
    for k in 0..len {
        out[k] = divergence_of([u_left[k], u_right[k]], [v_below[k], v_above[k]]);
    }
}

/// `dv/dx - du/dy` at column `x` of a row (positive turns from +x toward +z): `v_row` is `v`
/// along the row, `u_below` and `u_above` are `u` along the rows before and after it. `x`
/// must be an interior column.
#[inline(always)]
pub(super) fn curl_at(v_row: &[f32], u_below: &[f32], u_above: &[f32], x: usize) -> f32 {
    curl_of([v_row[x - 1], v_row[x + 1]], [u_below[x], u_above[x]])
}

/// [`curl_at`] from the neighbours' values: `v` left and right of the cell, `u` below and
/// above it (row kernels that slice the rows themselves call this).
#[inline(always)]
pub(super) fn curl_of([v_left, v_right]: [f32; 2], [u_below, u_above]: [f32; 2]) -> f32 {
    (v_right - v_left - (u_above - u_below)) * 0.5
}

/// Row `y` of a `cells`-wide field.
#[inline(always)]
pub(super) fn row(field: &[f32], cells: usize, y: usize) -> &[f32] {
    &field[y * cells..(y + 1) * cells]
}

/// Rows `y - 1` and `y + 1` of a `cells`-wide field (`y` must be an interior row).
#[inline(always)]
pub(super) fn rows_beside(field: &[f32], cells: usize, y: usize) -> (&[f32], &[f32]) {
    (row(field, cells, y - 1), row(field, cells, y + 1))
}

/// The divergence of `(u, v)` into `out`, every interior cell; 0 on the border.
pub(super) fn divergence_into(
    out: &mut [f32],
    u: &[f32],
    v: &[f32],
    cells: usize,
    min_rows: usize,
) {
    interior_rows_into(out, cells, min_rows, |y, out_row| {
        let (v_below, v_above) = rows_beside(v, cells, y);
        divergence_run(
            &mut out_row[1..cells - 1],
            1,
            row(u, cells, y),
            v_below,
            v_above,
        );
    });
}

/// The curl of `(u, v)` into `out`, every interior cell; 0 on the border.
pub(super) fn curl_into(out: &mut [f32], u: &[f32], v: &[f32], cells: usize, min_rows: usize) {
    interior_rows_into(out, cells, min_rows, |y, out_row| {
        let v_row = row(v, cells, y);
        let (u_below, u_above) = rows_beside(u, cells, y);
        for (x, out) in out_row.iter_mut().enumerate().take(cells - 1).skip(1) {
            *out = curl_at(v_row, u_below, u_above, x);
        }
    });
}

/// Zeroes `out` row by row (rows to rayon) and lets `fill` write each interior row `y`.
fn interior_rows_into(
    out: &mut [f32],
    cells: usize,
    min_rows: usize,
    fill: impl Fn(usize, &mut [f32]) + Sync + Send,
) {
    out.par_chunks_mut(cells)
        .enumerate()
        .with_min_len(min_rows)
        .for_each(|(y, out_row)| {
            out_row.fill(0.0);
            if y == 0 || y == cells - 1 {
                return;
            }
            fill(y, out_row);
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field that is a plain function of the cell, so the differences are known.
    fn field(cells: usize, f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
        (0..cells * cells)
            .map(|i| f((i % cells) as f32, (i / cells) as f32))
            .collect()
    }

    #[test]
    fn expansion_diverges_and_does_not_turn() {
        // (u, v) = (x, y): divergence 2 everywhere inside, no curl.
        let cells = 6;
        let u = field(cells, |x, _| x);
        let v = field(cells, |_, y| y);
        let (mut div, mut curl) = (vec![f32::NAN; 36], vec![f32::NAN; 36]);
        divergence_into(&mut div, &u, &v, cells, 1);
        curl_into(&mut curl, &u, &v, cells, 1);
        for y in 0..cells {
            for x in 0..cells {
                let inside = (1..cells - 1).contains(&x) && (1..cells - 1).contains(&y);
                let i = y * cells + x;
                assert_eq!(div[i], if inside { 2.0 } else { 0.0 }, "({x}, {y})");
                assert_eq!(curl[i], 0.0, "({x}, {y})");
            }
        }
    }

    #[test]
    fn rotation_turns_and_does_not_diverge() {
        // (u, v) = (-y, x): curl 2 everywhere inside, no divergence.
        let cells = 5;
        let u = field(cells, |_, y| -y);
        let v = field(cells, |x, _| x);
        let (mut div, mut curl) = (vec![f32::NAN; 25], vec![f32::NAN; 25]);
        divergence_into(&mut div, &u, &v, cells, 2);
        curl_into(&mut curl, &u, &v, cells, 2);
        assert!(div.iter().all(|&d| d == 0.0), "{div:?}");
        assert_eq!(curl[2 * cells + 2], 2.0);
        assert_eq!(curl[0], 0.0);
    }
}
