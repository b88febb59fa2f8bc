//! The raster `fog` pass's sheets in groups ([`sheet_groups`]): on a CPU adapter each
//! fragment shades up to [`SHEETS_PER_GROUP`] sheets (shaders/fog_groups.wgsl).
//!
//! lavapipe pays for every fragment it draws: the rasteriser, the depth test, the inputs,
//! the half-float blend, and the start of the shader (the ray, the scene's depth, the slab).
//! A sheet's fragment does little more than that. So on a CPU adapter the pass draws one quad
//! for a group of neighbouring sheets, and each fragment crosses every sheet of the group along
//! its ray and lays them over one another, back to front, before the blend lays the group over
//! the picture. The fog is the same sum; only the rounding moves (the group's sum stays in
//! 32-bit floats, where the sheets one by one are blended in half floats).
//!
//! A group is a run of sheets on one side of the eye's height, inside one block of
//! [`SHEETS_PER_GROUP`] sheets counted from the lowest. Two: the temple's fog pass took about
//! 0.9 of the time with groups of two, three or four alike, and a group's shader, which
//! lavapipe compiles when the renderer is built, grows with each sheet
//! (`benches/runs/2026-12-07-dev-sheet-groups`). Its quad lies on its sheet nearest the
//! eye's height, widened to cover the farthest sheet's square as seen from the eye: any ray
//! that crosses a sheet of the group crosses that plane first, in front of the others. So the
//! cut-off's depth test (`fog_cutoff.rs`) rejects a fragment only where every sheet of the
//! group lies past the cut-off. Sheets below the eye and sheets above it never share a pixel,
//! so each side keeps its own order.
//!
//! The groups depend on the eye and the sheets' heights alone, not on how many sheets the fog's
//! ceiling lets through: a group is drawn whole when any of its sheets is. A sheet above the
//! ceiling adds exactly nothing to its group, so the picture keeps its bytes whatever the
//! ceiling and the footprint (`fog_footprint.rs`) leave out.
//!
//! A sheet closer to the eye's height than [`near_guard_world`] is a group of its own: its
//! quad would be cut by the near plane where the rays go steeply down, and with it the farther
//! sheets of a group drawn on it.
//!
//! The physical medium's sheets cost lavapipe far more than drawing them: grouped, each with
//! its own lights, its fog pass took as long. So a group shares one light between its sheets
//! (`physical_group` in the shader): `medium_light`, at the middle of the group's slabs
//! weighted by their opacity. Each sheet keeps its own density and moon shadow, piece by
//! piece. A single slab already takes its lights once, at its middle, so this spreads the
//! same approximation over two slabs. The moonlit scene's fog pass took about 0.8 of the
//! time, and its frame 200 at 1280 × 720 moved by 0.04 levels on average
//! (`benches/runs/2026-12-07-dev-physical-groups`).

use bytemuck::{Pod, Zeroable};

use crate::gpu::camera::{NEAR_WORLD, usable_view};
use crate::gpu::common::FrameBinding;

#[cfg(test)]
thread_local! {
    /// Tests only: `Some(on)` draws the sheets in groups (on) or one by one on any adapter.
    pub(crate) static FORCE_GROUPS: std::cell::Cell<Option<bool>> =
        const { std::cell::Cell::new(None) };
}

/// Whether the raster sheets are drawn in groups for `frame`'s adapter: on CPU adapters.
pub(crate) fn grouped(frame: &FrameBinding) -> bool {
    #[cfg(test)]
    if let Some(on) = FORCE_GROUPS.get() {
        return on;
    }
    frame.cpu_adapter
}

/// The most sheets a fragment of the grouped form shades.
///
/// keep in sync with shaders/fog_groups.wgsl: SHEETS_PER_GROUP
pub(crate) const SHEETS_PER_GROUP: usize = 2;

/// One group as the vertices read it (an instance of the grouped form).
///
/// keep in sync with shaders/fog_groups.wgsl: vs_fog_group
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct SheetGroup {
    /// The height of the group's sheet nearest the eye's height: the plane its quad lies on.
    pub near_height_world: f32,
    /// The height of the sheet farthest from the eye's height: how far the quad is widened.
    pub far_height_world: f32,
    /// The index of the farthest sheet (lowest first), as a float: the first one shaded.
    pub far_index: f32,
    /// The index of the nearest sheet, as a float: the last one shaded.
    pub near_index: f32,
}

impl SheetGroup {
    /// The indices of the group's sheets, lowest first.
    pub(crate) fn indices(&self) -> std::ops::RangeInclusive<usize> {
        let (a, b) = (self.far_index as usize, self.near_index as usize);
        a.min(b)..=a.max(b)
    }
}

/// How close to the eye's height a sheet may lie and still carry other sheets' fragments: where
/// no ray on the screen crosses it nearer than the near plane. A ray crosses a plane `Δh` away
/// at a depth of at least `Δh · cos θ`, with `θ` the angle from the view axis to the picture's
/// corner, so `Δh` must reach the near plane's distance over `cos θ`; a quarter more for the
/// samples' offsets and rounding.
pub(crate) fn near_guard_world(fov_y_deg: f32, aspect: f32) -> f32 {
    let (fov_y_deg, aspect) = usable_view(fov_y_deg, aspect);
    let half_diagonal =
        ((fov_y_deg.to_radians() * 0.5).tan() * (1.0 + aspect * aspect).sqrt()).atan();
    NEAR_WORLD * 1.25 / half_diagonal.cos().max(1e-6)
}

/// The groups of `heights_world` (every sheet of the sample, lowest first) in blocks of
/// `per_group` ([`SHEETS_PER_GROUP`] in the shaders) for an eye at `eye_y_world`, in drawing
/// order: below the eye the lowest first, above it the highest first. Only groups with a sheet
/// among the lowest `drawn` are kept.
pub(crate) fn sheet_groups(
    heights_world: &[f32],
    (drawn, per_group): (usize, usize),
    eye_y_world: f32,
    guard_world: f32,
) -> Vec<SheetGroup> {
    let mut below = Vec::new();
    let mut above = Vec::new();
    let group = |far: usize, near: usize| SheetGroup {
        near_height_world: heights_world[near],
        far_height_world: heights_world[far],
        far_index: far as f32,
        near_index: near as f32,
    };
    for block in (0..heights_world.len()).step_by(per_group.max(1)) {
        let end = (block + per_group.max(1)).min(heights_world.len());
        let near_eye = |i: usize| (heights_world[i] - eye_y_world).abs() < guard_world;
        let below_eye = |i: &usize| heights_world[*i] < eye_y_world;
        let (low, high): (Vec<usize>, Vec<usize>) =
            (block..end).filter(|&i| !near_eye(i)).partition(below_eye);
        // Each side's run: the farthest sheet from the eye's height first.
        if let (Some(&far), Some(&near)) = (low.first(), low.last()) {
            below.push(group(far, near));
        }
        if let (Some(&near), Some(&far)) = (high.first(), high.last()) {
            above.push(group(far, near));
        }
        // A sheet near the eye's height alone, on its side.
        for i in (block..end).filter(|&i| near_eye(i)) {
            let alone = group(i, i);
            if below_eye(&i) {
                below.push(alone);
            } else {
                above.push(alone);
            }
        }
    }
    below.sort_by(|a, b| a.near_height_world.total_cmp(&b.near_height_world));
    above.sort_by(|a, b| b.near_height_world.total_cmp(&a.near_height_world));
    below
        .into_iter()
        .chain(above)
        .filter(|group| *group.indices().start() < drawn)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indices(groups: &[SheetGroup]) -> Vec<(usize, usize)> {
        groups
            .iter()
            .map(|g| (g.far_index as usize, g.near_index as usize))
            .collect()
    }

    #[test]
    fn an_eye_above_groups_blocks_from_the_lowest_sheet() {
        let heights: Vec<f32> = (0..10).map(|i| 0.1 * i as f32).collect();
        let groups = sheet_groups(&heights, (10, 4), 5.0, 0.2);
        assert_eq!(indices(&groups), [(0, 3), (4, 7), (8, 9)]);
        // The quad lies on the sheet nearest the eye's height, widened by the farthest.
        assert_eq!(groups[0].near_height_world, heights[3]);
        assert_eq!(groups[0].far_height_world, heights[0]);
    }

    #[test]
    fn an_eye_below_draws_the_highest_group_first() {
        let heights: Vec<f32> = (0..8).map(|i| 1.0 + 0.1 * i as f32).collect();
        let groups = sheet_groups(&heights, (8, 4), -2.0, 0.2);
        assert_eq!(indices(&groups), [(7, 4), (3, 0)]);
    }

    #[test]
    fn an_eye_among_the_sheets_splits_blocks_and_keeps_its_neighbours_alone() {
        let heights: Vec<f32> = (0..8).map(|i| 0.1 * i as f32).collect();
        // Sheets 3 and 4 lie within the guard of the eye at 0.36.
        let groups = sheet_groups(&heights, (8, 4), 0.36, 0.07);
        assert_eq!(indices(&groups), [(0, 2), (3, 3), (7, 5), (4, 4)]);
        // Every sheet is in exactly one group.
        let mut all: Vec<usize> = groups.iter().flat_map(|g| g.indices()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn groups_do_not_depend_on_how_many_sheets_are_drawn() {
        let heights: Vec<f32> = (0..12).map(|i| 0.1 * i as f32).collect();
        let every = sheet_groups(&heights, (12, 4), 3.0, 0.2);
        let some = sheet_groups(&heights, (6, 4), 3.0, 0.2);
        // The lowest six sheets lie in the first two groups, which stay whole.
        assert_eq!(some, every[..2]);
        assert!(sheet_groups(&heights, (0, 4), 3.0, 0.2).is_empty());
    }

    #[test]
    fn the_shipped_groups_are_pairs() {
        let heights: Vec<f32> = (0..5).map(|i| 0.1 * i as f32).collect();
        let groups = sheet_groups(&heights, (5, SHEETS_PER_GROUP), 5.0, 0.2);
        assert_eq!(indices(&groups), [(0, 1), (2, 3), (4, 4)]);
    }

    #[test]
    fn the_guard_keeps_a_group_plane_beyond_the_near_plane() {
        let guard = near_guard_world(50.0, 16.0 / 9.0);
        assert!(guard > NEAR_WORLD && guard < 4.0 * NEAR_WORLD, "{guard}");
        // Wider views need more room; a degenerate one still gives a finite guard.
        assert!(near_guard_world(120.0, 2.0) > guard);
        assert!(near_guard_world(f32::NAN, 0.0).is_finite());
    }
}
