//! What the GPU tests reach into a [`Renderer`] for: switches of the fog's sheets and
//! questions about which passes run.

use super::Renderer;

impl Renderer {
    /// Turns the sheets' counting of partial slabs at the scene's depth (the de-banding) on or
    /// off from the next frame (tests measure the sheets with and without it).
    pub(crate) fn set_partial_slabs(&mut self, on: bool) {
        self.fog.set_partial_slabs(on);
        for per_pixel in self.fog_compute.iter_mut().chain(&mut self.edge_fog) {
            per_pixel.set_partial_slabs(on);
        }
        self.flame.set_partial_slabs(on);
    }

    /// Draws every fog sheet, under the fog's ceiling or not, from the next frame (the raster
    /// `fog` pass and the `fog_compute` pass; tests compare the two).
    pub(crate) fn set_every_sheet(&mut self, on: bool) {
        self.fog.set_every_sheet(on);
        for per_pixel in self.fog_compute.iter_mut().chain(&mut self.edge_fog) {
            per_pixel.set_every_sheet(on);
        }
    }

    /// How many sheets the raster `fog` pass drew in the last frame.
    pub(crate) fn fog_sheets_drawn(&self) -> u32 {
        self.fog.sheets_drawn()
    }

    /// How many screen cells the raster `fog` pass's sheets covered in the last frame, summed
    /// over the sheets; `None` when it drew them whole.
    pub(crate) fn fog_footprint_cells(&self) -> Option<u32> {
        self.fog.footprint_cells()
    }

    /// Whether the picture's scene is drawn in compute (the `scene` pass with a per-pixel
    /// compositor).
    pub(crate) fn scene_in_compute(&self) -> bool {
        self.scene.in_compute()
    }

    /// Whether the later edge samples are drawn in one go (`passes/edge_batch.rs`).
    pub(crate) fn batches_edge_samples(&self) -> bool {
        self.edge_batch.is_some()
    }

    /// Whether the wet floor's reflection is drawn (scenes with weather).
    pub(crate) fn has_reflection(&self) -> bool {
        self.reflection.is_some()
    }
}
