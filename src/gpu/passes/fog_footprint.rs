//! Where on the screen each of the `fog` pass's sheets can show fog: a few scissor rectangles
//! a sheet, worked out on the CPU from the frame's fluid maps.
//!
//! A sheet is one quad over the whole fog square, but the fog lies only where the fluid holds
//! some and under its column's top, which the lift raises only where the ball threw it. A
//! fragment with no fog under its slab has an alpha of exactly 0, and its blend leaves the
//! picture as it was. A CPU adapter (lavapipe) shades every fragment in full whatever it turns
//! out to be, so each such fragment costs as much as a foggy one.
//!
//! The square is cut into [`TILES`] × [`TILES`] tiles. Each tile gets a ceiling: the column's
//! top (`fog_profile` in fog.wgsl) for the most fog and the most lift among the map texels
//! that any point the tile's fragments shade reads. That is the tile's texels, those the
//! bilinear reads reach, and those a shading point moved back along its ray by half a slab
//! reaches (`reach_world`). The top rises with both the amount and the lift, so no point of
//! the tile has fog above the ceiling. A tile whose texels hold no fog at all has none.
//!
//! A sheet draws over the screen cells ([`COLUMNS`] × [`ROWS`] of the picture) that its tiles
//! under their ceiling cover, with the same margin of one sheet spacing as the sheets left
//! out whole (`sheets_under`). The cells are merged into rectangles, and the sheet's quad is
//! drawn once per rectangle with that scissor. The triangles are the same, so every pixel that
//! is drawn gets the same fragment as before: the picture is the same bytes.
//!
//! The `fluid` view draws every sheet whole: it marks a band of every column, fog or not.

use glam::{Mat4, Vec4};

use crate::gpu::passes::fog::FogKnobs;

/// Tiles along each side of the fog square.
pub(crate) const TILES: usize = 16;
/// Screen cells across the picture.
pub(crate) const COLUMNS: u32 = 32;
/// Screen cells down the picture.
pub(crate) const ROWS: u32 = 18;

/// Part of the screen, in cells: columns `x0..x1` and rows `y0..y1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellRect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl CellRect {
    /// How many cells the rectangle covers.
    #[cfg(test)]
    pub(crate) fn area(&self) -> u32 {
        (self.x1 - self.x0) * (self.y1 - self.y0)
    }

    /// The rectangle in pixels of a `width` × `height` target: x, y, width, height.
    pub(crate) fn scissor_px(&self, width: u32, height: u32) -> (u32, u32, u32, u32) {
        let x0 = self.x0 * width / COLUMNS;
        let x1 = self.x1 * width / COLUMNS;
        let y0 = self.y0 * height / ROWS;
        let y1 = self.y1 * height / ROWS;
        (x0, y0, x1 - x0, y1 - y0)
    }
}

/// One scissored draw of a sheet: its index in the drawing order and where it draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SheetDraw {
    pub sheet: u32,
    pub cells: CellRect,
}

/// The ceiling of each tile of the fog square (world height; `-inf` where there is no fog),
/// row by row (z), [`TILES`] × [`TILES`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TileCeilings {
    ceilings_world: Vec<f32>,
    /// The square: corner x, z and size x, z (world), as `FogKnobs::area`.
    area: [f32; 4],
}

/// How far (world, along the floor) from its sheet's crossing a fragment of a sheet `spacing`
/// apart from the next can read the fog, for rays no flatter than `least_slope`: half a slab
/// (`sheet_slab_world` in fog.wgsl), which is at most `spacing / least_slope` long.
pub(crate) fn reach_world(spacing_world: f32, least_slope: f32) -> f32 {
    0.5 * spacing_world / least_slope
}

/// The tops of the fog's column over the square for the fluid maps `fluid_map` (RGBA8, fog in
/// red as density / 2) and `lift_map` (RGBA8, lift in red) of the same square size, with
/// shading points up to `reach_world` from a fragment.
pub(crate) fn tile_ceilings(
    knobs: &FogKnobs,
    fluid_map: &[u8],
    lift_map: &[u8],
    reach_world: f32,
) -> TileCeilings {
    let texels = (fluid_map.len() / 4).isqrt();
    let area = knobs.area;
    let mut ceilings_world = vec![f32::NEG_INFINITY; TILES * TILES];
    if texels == 0 || lift_map.len() != fluid_map.len() {
        // No map to read: the whole square at every height.
        ceilings_world.fill(f32::INFINITY);
        return TileCeilings {
            ceilings_world,
            area,
        };
    }
    // The texels whose bilinear reads reach `[from, to]` (world) along one axis, one more on
    // each side for the rounding of the shader's sums, clamped to the map.
    let texel_span = |corner: f32, size: f32, from: f32, to: f32| {
        let at = |world: f32| ((world - corner) / size * texels as f32 - 0.5).floor();
        let first = (at(from) - 1.0).max(0.0) as usize;
        let last = ((at(to) + 2.0).max(0.0) as usize).min(texels - 1);
        (first.min(texels - 1), last)
    };
    let [bottom, rest_top, lift_height, _] = knobs.layer;
    let density_sets_height = knobs.fog_color[3] > 0.5;
    for tile_z in 0..TILES {
        let (z_from, z_to) = tile_edges(area[1], area[3], tile_z);
        let (row_first, row_last) =
            texel_span(area[1], area[3], z_from - reach_world, z_to + reach_world);
        for tile_x in 0..TILES {
            let (x_from, x_to) = tile_edges(area[0], area[2], tile_x);
            let (col_first, col_last) =
                texel_span(area[0], area[2], x_from - reach_world, x_to + reach_world);
            let (mut most_fog, mut most_lift) = (0u8, 0u8);
            for row in row_first..=row_last {
                for col in col_first..=col_last {
                    let texel = (row * texels + col) * 4;
                    most_fog = most_fog.max(fluid_map[texel]);
                    most_lift = most_lift.max(lift_map[texel]);
                }
            }
            if most_fog == 0 {
                continue;
            }
            // `fog_profile`: the column's top for this much fog thrown this high.
            let amount = (f32::from(most_fog) / 255.0 * 2.0).min(1.0);
            let column_top = if density_sets_height {
                bottom + ((rest_top - bottom) * amount).max(1e-4)
            } else {
                rest_top
            };
            let lift = f32::from(most_lift) / 255.0;
            ceilings_world[tile_z * TILES + tile_x] = column_top + lift * lift_height;
        }
    }
    TileCeilings {
        ceilings_world,
        area,
    }
}

/// The world edges of tile `index` along an axis whose square starts at `corner` and is
/// `size` long. Neighbouring tiles share their edge exactly.
fn tile_edges(corner: f32, size: f32, index: usize) -> (f32, f32) {
    let edge = |i: usize| corner + size * i as f32 / TILES as f32;
    (edge(index), edge(index + 1))
}

/// The scissored draws of the sheets at `heights_world` (in drawing order) for a camera
/// `clip_from_world` on a `width_px` × `height_px` picture: each sheet over the cells its
/// tiles under their ceiling cover, a sheet spacing of margin (`spacing_world`) below the
/// ceiling, two pixels round each tile. Sheets with no fog on screen are not drawn.
#[cfg(test)]
pub(crate) fn sheet_draws(
    heights_world: &[f32],
    ceilings: &TileCeilings,
    clip_from_world: Mat4,
    size_px: (u32, u32),
    spacing_world: f32,
) -> Vec<SheetDraw> {
    let groups = heights_world.chunks(1);
    group_draws(groups, ceilings, clip_from_world, size_px, spacing_world)
}

/// [`sheet_draws`] for groups of sheets drawn together (`fog_groups.rs`), each given by its
/// sheets' heights: a group draws over the cells of all its sheets.
pub(crate) fn group_draws<'h>(
    groups: impl IntoIterator<Item = &'h [f32]>,
    ceilings: &TileCeilings,
    clip_from_world: Mat4,
    (width_px, height_px): (u32, u32),
    spacing_world: f32,
) -> Vec<SheetDraw> {
    let mut draws = Vec::new();
    let mut cells = vec![false; (COLUMNS * ROWS) as usize];
    let pad = [2.0 / width_px.max(1) as f32, 2.0 / height_px.max(1) as f32];
    let area = ceilings.area;
    for (group, heights_world) in groups.into_iter().enumerate() {
        cells.fill(false);
        'sheets: for &height_world in heights_world {
            for (tile, &ceiling_world) in ceilings.ceilings_world.iter().enumerate() {
                if height_world - spacing_world > ceiling_world {
                    continue;
                }
                let (x_from, x_to) = tile_edges(area[0], area[2], tile % TILES);
                let (z_from, z_to) = tile_edges(area[1], area[3], tile / TILES);
                let corners = [
                    (x_from, z_from),
                    (x_to, z_from),
                    (x_from, z_to),
                    (x_to, z_to),
                ];
                let Some(bounds) = screen_bounds(clip_from_world, height_world, corners) else {
                    cells.fill(true);
                    break 'sheets;
                };
                mark_cells(&mut cells, bounds, pad);
            }
        }
        merge_cells(&cells, group as u32, &mut draws);
    }
    draws
}

/// The screen bounds (fractions of the picture: x from the left, y from the top) of the
/// corners `corners_xz` at `height_world`; `None` when one lies at or behind the eye's plane
/// (the quad may then cover any part of the screen).
fn screen_bounds(
    clip_from_world: Mat4,
    height_world: f32,
    corners_xz: [(f32, f32); 4],
) -> Option<[f32; 4]> {
    let mut bounds = [
        f32::INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
    ];
    for (x, z) in corners_xz {
        let clip = clip_from_world * Vec4::new(x, height_world, z, 1.0);
        if clip.w.is_nan() || clip.w <= 1e-6 {
            return None;
        }
        let fx = 0.5 + 0.5 * clip.x / clip.w;
        let fy = 0.5 - 0.5 * clip.y / clip.w;
        bounds = [
            bounds[0].min(fx),
            bounds[1].min(fy),
            bounds[2].max(fx),
            bounds[3].max(fy),
        ];
    }
    Some(bounds)
}

/// Marks the cells that `bounds` (screen fractions), grown by `pad`, touches.
fn mark_cells(cells: &mut [bool], bounds: [f32; 4], pad: [f32; 2]) {
    let [x_from, y_from, x_to, y_to] = bounds;
    let x_from = x_from - pad[0];
    let y_from = y_from - pad[1];
    let x_to = x_to + pad[0];
    let y_to = y_to + pad[1];
    if x_to < 0.0 || y_to < 0.0 || x_from > 1.0 || y_from > 1.0 {
        return;
    }
    let cell = |fraction: f32, count: u32| {
        ((fraction.clamp(0.0, 1.0) * count as f32) as u32).min(count - 1)
    };
    for row in cell(y_from, ROWS)..=cell(y_to, ROWS) {
        for column in cell(x_from, COLUMNS)..=cell(x_to, COLUMNS) {
            cells[(row * COLUMNS + column) as usize] = true;
        }
    }
}

/// The marked `cells` as rectangles of `sheet`: runs along each row, a run merged with the
/// same run of the rows below it.
fn merge_cells(cells: &[bool], sheet: u32, draws: &mut Vec<SheetDraw>) {
    let first = draws.len();
    for row in 0..ROWS {
        let at = |column: u32| cells[(row * COLUMNS + column) as usize];
        let mut column = 0;
        while column < COLUMNS {
            if !at(column) {
                column += 1;
                continue;
            }
            let x0 = column;
            while column < COLUMNS && at(column) {
                column += 1;
            }
            let grown = draws[first..].iter_mut().find(|draw| {
                draw.cells.x0 == x0 && draw.cells.x1 == column && draw.cells.y1 == row
            });
            match grown {
                Some(draw) => draw.cells.y1 = row + 1,
                None => draws.push(SheetDraw {
                    sheet,
                    cells: CellRect {
                        x0,
                        y0: row,
                        x1: column,
                        y1: row + 1,
                    },
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::CameraPose;
    use crate::gpu::camera::clip_from_world;
    use crate::scene::Scene;

    const TEXELS: usize = 96;

    /// A fixed pseudo-random byte sequence (a linear congruential generator).
    fn bytes(seed: u64, count: usize) -> Vec<u8> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 56) as u8
            })
            .collect()
    }

    /// An RGBA8 map whose red rises across the square (along x for seed 1, along z else) in
    /// blobs, and is zero outside them: every tile has its own ceiling.
    fn blob_map(seed: u64) -> Vec<u8> {
        let mut map = vec![0u8; TEXELS * TEXELS * 4];
        for (i, texel) in map.chunks_exact_mut(4).enumerate() {
            let (x, z) = (i % TEXELS, i / TEXELS);
            let in_blob = !(x / 24 + z / 24 + seed as usize).is_multiple_of(3);
            let along = if seed == 1 { x } else { z };
            texel[0] = if in_blob {
                (along * 255 / (TEXELS - 1)) as u8
            } else {
                0
            };
        }
        map
    }

    /// The red of `map` at `uv` as `sample_map` in fog.wgsl reads it.
    fn bilinear_red(map: &[u8], uv: [f32; 2]) -> f32 {
        let texel = |x: i32, z: i32| {
            let (x, z) = (x.clamp(0, TEXELS as i32 - 1), z.clamp(0, TEXELS as i32 - 1));
            f32::from(map[(z as usize * TEXELS + x as usize) * 4]) / 255.0
        };
        let pos = [uv[0] * TEXELS as f32 - 0.5, uv[1] * TEXELS as f32 - 0.5];
        let (x, z) = (pos[0].floor(), pos[1].floor());
        let (fx, fz) = (pos[0] - x, pos[1] - z);
        let (x, z) = (x as i32, z as i32);
        let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
        lerp(
            lerp(texel(x, z), texel(x + 1, z), fx),
            lerp(texel(x, z + 1), texel(x + 1, z + 1), fx),
            fz,
        )
    }

    fn knobs(density_sets_height: bool) -> FogKnobs {
        let mut knobs = FogKnobs::new(&Scene::default(), crate::frame::View::Fog);
        knobs.fog_color[3] = if density_sets_height { 1.0 } else { 0.0 };
        knobs
    }

    /// Every point a fragment in a tile can shade (up to `reach` from the tile) has its
    /// column's top (`fog_profile`) under the tile's ceiling, or no fog at all.
    #[test]
    fn no_point_a_tile_shades_has_fog_above_its_ceiling() {
        let (fluid, lift) = (blob_map(1), blob_map(2));
        for shape in [false, true] {
            let knobs = knobs(shape);
            let reach = 1.0;
            let ceilings = tile_ceilings(&knobs, &fluid, &lift, reach);
            let [bottom, rest_top, lift_height, _] = knobs.layer;
            let offsets = bytes(3, 4 * 4000);
            for probe in offsets.chunks_exact(4) {
                let at = |byte: u8| f32::from(byte) / 255.0;
                let crossing = [at(probe[0]), at(probe[1])];
                let tile = (crossing[1] * TILES as f32).min(TILES as f32 - 1.0) as usize * TILES
                    + (crossing[0] * TILES as f32).min(TILES as f32 - 1.0) as usize;
                let shift = [(at(probe[2]) - 0.5) * 2.0, (at(probe[3]) - 0.5) * 2.0];
                let uv = [
                    crossing[0] + shift[0] * reach / knobs.area[2],
                    crossing[1] + shift[1] * reach / knobs.area[3],
                ];
                let amount = bilinear_red(&fluid, uv) * 2.0;
                if amount <= 0.0 {
                    continue;
                }
                let column = ((rest_top - bottom) * amount.clamp(0.0, 1.0)).max(1e-4);
                let column_top = if shape { bottom + column } else { rest_top };
                let top = column_top + bilinear_red(&lift, uv) * lift_height;
                let ceiling = ceilings.ceilings_world[tile];
                assert!(
                    top <= ceiling,
                    "tile {tile}: top {top} over ceiling {ceiling}"
                );
            }
            // The blobs leave tiles with no fog at all.
            let empty = ceilings
                .ceilings_world
                .iter()
                .filter(|c| **c == f32::NEG_INFINITY);
            assert!(empty.count() > TILES, "too few empty tiles");
        }
    }

    /// The merged rectangles cover each marked cell once and nothing else.
    #[test]
    fn merged_rectangles_cover_the_marked_cells_once() {
        let noise = bytes(7, (COLUMNS * ROWS) as usize);
        let cells: Vec<bool> = noise.iter().map(|b| *b < 140).collect();
        let mut draws = Vec::new();
        merge_cells(&cells, 5, &mut draws);
        let mut covered = vec![0u32; cells.len()];
        for draw in &draws {
            assert_eq!(draw.sheet, 5);
            for row in draw.cells.y0..draw.cells.y1 {
                for column in draw.cells.x0..draw.cells.x1 {
                    covered[(row * COLUMNS + column) as usize] += 1;
                }
            }
        }
        for (i, marked) in cells.iter().enumerate() {
            assert_eq!(covered[i], u32::from(*marked), "cell {i}");
        }
        // A full screen is one rectangle.
        let mut whole = Vec::new();
        merge_cells(&vec![true; cells.len()], 0, &mut whole);
        assert_eq!(whole.len(), 1);
    }

    /// The cells' scissors tile the picture exactly, for sizes that do not divide evenly.
    #[test]
    fn cell_scissors_tile_the_picture() {
        for (width, height) in [(640, 360), (161, 91), (1920, 1080), (7, 5)] {
            let mut next_x = 0;
            for column in 0..COLUMNS {
                let cell = CellRect {
                    x0: column,
                    y0: 0,
                    x1: column + 1,
                    y1: 1,
                };
                let (x, _, w, _) = cell.scissor_px(width, height);
                assert_eq!(x, next_x);
                next_x = x + w;
            }
            assert_eq!(next_x, width);
            let mut next_y = 0;
            for row in 0..ROWS {
                let cell = CellRect {
                    x0: 0,
                    y0: row,
                    x1: 1,
                    y1: row + 1,
                };
                let (_, y, _, h) = cell.scissor_px(width, height);
                assert_eq!(y, next_y);
                next_y = y + h;
            }
            assert_eq!(next_y, height);
        }
    }

    /// Seen from the example's camera: fog everywhere covers most of the screen on a low
    /// sheet, a sheet over every ceiling draws nothing, and fog in one corner tile draws a
    /// few cells; with the eye among the sheets every cell is drawn.
    #[test]
    fn sheets_draw_where_their_tiles_hold_fog() {
        let knobs = knobs(false);
        let camera = CameraPose {
            eye_world: [0.0, 7.5, 11.0],
            target_world: [0.0, 0.4, 0.0],
            fov_y_deg: 50.0,
        };
        let clip = clip_from_world(&camera, 16.0 / 9.0);
        let size = (640, 360);
        let cell_count =
            |draws: &[SheetDraw]| -> u32 { draws.iter().map(|draw| draw.cells.area()).sum() };
        let everywhere = vec![200u8; TEXELS * TEXELS * 4];
        let still = vec![0u8; TEXELS * TEXELS * 4];
        let ceilings = tile_ceilings(&knobs, &everywhere, &still, 0.2);
        let low = sheet_draws(&[0.5], &ceilings, clip, size, 0.07);
        assert!(cell_count(&low) > COLUMNS * ROWS / 2, "{low:?}");
        assert!(sheet_draws(&[2.0], &ceilings, clip, size, 0.07).is_empty());

        let mut corner = still.clone();
        corner[0] = 200;
        let ceilings = tile_ceilings(&knobs, &corner, &still, 0.2);
        let few = cell_count(&sheet_draws(&[0.5], &ceilings, clip, size, 0.07));
        assert!(few > 0 && few < 12, "{few} cells");

        let among = CameraPose {
            eye_world: [0.0, 0.5, 2.0],
            ..camera
        };
        let clip = clip_from_world(&among, 16.0 / 9.0);
        let ceilings = tile_ceilings(&knobs, &everywhere, &still, 0.2);
        let near = sheet_draws(&[0.5], &ceilings, clip, size, 0.07);
        assert_eq!(cell_count(&near), COLUMNS * ROWS, "{near:?}");
    }
}
