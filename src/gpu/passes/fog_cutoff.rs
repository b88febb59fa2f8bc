//! The fog's cut-off depth ([`FogCutoff`]): how far behind the scene a sheet of the raster
//! `fog` pass can still show fog, so that the depth test skips the rest before it is shaded
//! (shaders/fog.wgsl, `fs_fog_cutoff`).
//!
//! A sheet's fragment counts the part of its slab in front of the scene, and discards itself
//! where none is (`visible_slab_world`). Behind a pillar, the altar or a wall that is most of
//! a sheet's fragments there, and a CPU adapter (lavapipe) shades each of them in full before
//! the discard. So before the sheets a full-screen pass writes each pixel's cut-off: the depth
//! of the point [`FogCutoff::margin_world`] beyond the scene along the pixel's ray, past the
//! farthest a slab's front half reaches. The sheets are tested against it (`Less`, no writes),
//! and lavapipe rejects a block of fragments that all fail the test before shading any of them.
//! A fragment the test rejects lies past the cut-off, where its slab shows no fog and the
//! shader would discard it: the picture is the same, byte for byte.

use bytemuck::{Pod, Zeroable};

use crate::frame::FrameInputs;
use crate::gpu::camera;
use crate::gpu::common::FrameBinding;
use crate::gpu::passes::builder::{PassBuilder, begin_depth_pass, uniform};
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::targets::{DEPTH_FORMAT, texture_2d, view_of};
use crate::scene::Fog;

#[cfg(test)]
thread_local! {
    /// Tests only: fog passes made on this thread draw their sheets with no cut-off.
    pub(crate) static FORCE_NO_CUTOFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How much farther than the farthest reach of a slab's front half the cut-off lies: a
/// hundredth of it, so that rounding never rejects a fragment that shows fog.
const MARGIN_SLACK: f32 = 1.01;

/// The cut-off pass's knobs.
///
/// keep in sync with shaders/fog.wgsl: FogCutoff
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct CutoffKnobs {
    /// Clip space back to world space: the inverse of the sample's `clip_from_world`.
    world_from_clip: [[f32; 4]; 4],
    /// x, y: the picture's size (pixels); z: the margin (world units along the ray); w: 0.
    size_margin: [f32; 4],
}

/// The cut-off depth target and the full-screen pass that writes it.
pub(crate) struct FogCutoff {
    view: wgpu::TextureView,
    pipeline: wgpu::RenderPipeline,
    knobs_buffer: wgpu::Buffer,
    knobs_group: wgpu::BindGroup,
    size_px: (u32, u32),
    margin_world: f32,
}

impl FogCutoff {
    /// The cut-off of `fog`'s sheets over a picture of `size_px`, drawn by `module`'s
    /// `vs_fog_cutoff` and `fs_fog_cutoff` with the frame's group and the fog pass's
    /// `fog_layout` (its knobs and the scene's depth).
    pub(crate) fn new(
        build: &PassBuilder<'_>,
        module: &wgpu::ShaderModule,
        (frame, fog_layout): (&FrameBinding, &wgpu::BindGroupLayout),
        fog: &Fog,
        size_px: (u32, u32),
    ) -> Self {
        let texture = texture_2d(
            build.device(),
            &build.label("cutoff"),
            size_px,
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let view = view_of(&texture, &build.label("cutoff.view"));
        let knobs_buffer = build.uniform_buffer::<CutoffKnobs>("cutoff_knobs");
        let knobs_layout = build.bind_group_layout(&[uniform(0, wgpu::ShaderStages::FRAGMENT)]);
        let knobs_group = build.bind_group_at(
            "cutoff",
            &knobs_layout,
            [(0, knobs_buffer.as_entire_binding())],
        );
        let groups = [Some(&frame.layout), Some(fog_layout), Some(&knobs_layout)];
        let entries = ("vs_fog_cutoff", "fs_fog_cutoff");
        let pipeline = build.depth_only_pipeline("cutoff", module, entries, &groups);
        FogCutoff {
            view,
            pipeline,
            knobs_buffer,
            knobs_group,
            size_px,
            margin_world: Self::margin_world(fog),
        }
    }

    /// How far past the scene along a ray a sheet's fragment can still show fog: half the
    /// longest slab (the spacing over the flattest slope whose slabs count whole), with a
    /// hundredth more.
    pub(crate) fn margin_world(fog: &Fog) -> f32 {
        0.5 * fog.sheet_spacing() / fog.least_slab_slope() * MARGIN_SLACK
    }

    /// The cut-off depth target, for the sheets' pass to test against.
    pub(crate) fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Queues the knobs of `inputs`' sample: its camera's inverse.
    pub(crate) fn prepare(&self, queue: &dyn BufferWrites, inputs: &FrameInputs<'_>) {
        let clip_from_world = camera::frame_clip_from_world(inputs, self.size_px);
        let (width, height) = self.size_px;
        let knobs = CutoffKnobs {
            world_from_clip: clip_from_world.inverse().to_cols_array_2d(),
            size_margin: [width as f32, height as f32, self.margin_world, 0.0],
        };
        queue.write_buffer(&self.knobs_buffer, 0, bytemuck::bytes_of(&knobs));
    }

    /// Records the full-screen pass that writes the cut-off, reading the scene's depth through
    /// the fog pass's `fog_group`.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
        fog_group: &wgpu::BindGroup,
    ) {
        let mut pass = begin_depth_pass(encoder, "fog.cutoff", &self.view);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, fog_group, &[]);
        pass.set_bind_group(2, &self.knobs_group, &[]);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoff_knobs_match_wgsl_size() {
        // mat4x4 (64) + vec4<f32> (16).
        assert_eq!(std::mem::size_of::<CutoffKnobs>(), 80);
    }

    #[test]
    fn the_margin_passes_the_farthest_front_half_of_a_slab() {
        let fog = crate::scene::Scene::default().fog;
        let farthest_world = 0.5 * fog.sheet_spacing() / fog.least_slab_slope();
        let margin_world = FogCutoff::margin_world(&fog);
        assert!(margin_world > farthest_world && margin_world < farthest_world * 1.02);
    }
}
