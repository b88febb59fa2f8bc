//! The fog as a layer of its own for compositing (`render --format exr --layers`): the fog
//! alone in a separate half-float target. With the raster compositor the `fog` pass's sheets
//! are drawn a second time, by a raster [`FogPass`] of its own, over transparent black; with
//! the compute compositor the `fog_compute` pass writes the layer itself, from the colour and
//! transmittance its march sums anyway (`cs_fog_with_layer`), and no second pass runs.
//!
//! A compositor wants to grade or relight the fog without re-rendering the hall, so the layer
//! holds the fog alone, in linear light with premultiplied alpha (what EXR and every
//! compositor expect): transparent where there is no fog, and cut out by the pillars, the
//! altar and the ball because the sheets count only their fog in front of the scene's depth.
//! `fs_fog` already returns premultiplied colour and the blend is premultiplied "over" in
//! colour and alpha, so the layer's alpha is the fog's coverage and the layer composited over
//! a render without fog (`--set fog.sigma=0`) gives back the beauty frame up to half-float
//! rounding, except where flames are: the beauty adds the flames after the fog, dimmed only by
//! the fog in front of them, while in the composite they sit under the whole fog layer and are
//! dimmed by its coverage.
//!
//! Only the fog is in the layer: flames are light sources and belong to the beauty pass (and
//! a flame layer would need additive compositing, not "over"), and the `sheets` and `flow`
//! views' lines are diagnostics. The layer follows the view's fog (the veil of the `flow`
//! view, the colours of the `fluid` view).
//!
//! The two ways agree as closely as the compositors agree with each other: the raster layer
//! rounds to half floats after every sheet, the compute layer once (and its march stops once
//! the fog is opaque, leaving alpha a little under 1 there). Each matches the beauty frame of
//! its own compositor: the layer over the fog-free render gives back that frame.
//! Datacentre GPUs run fragment work far slower than compute, so there a second raster pass
//! would cost about as much as the whole frame.

use crate::frame::FrameInputs;
use crate::gpu::common::FrameBinding;
use crate::gpu::passes::fog::FogPass;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::targets::{COLOR_FORMAT, texture_2d, view_of};

/// The name of the layer's target and of its raster pass (a [`FogPass`] of its own).
pub(crate) const NAME: &str = "fog_layer";

/// The fog layer: its target, and the raster pass that draws it (when it is not the
/// `fog_compute` pass).
pub(crate) struct FogLayer {
    /// `None`: the `fog_compute` pass writes the layer through [`FogLayer::view`].
    fog: Option<FogPass>,
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
}

impl FogLayer {
    /// A `width` × `height` layer, half-float like the colour target, drawn by the raster pass
    /// `fog` (a [`FogPass`] named [`NAME`]), or with `None` written by the `fog_compute` pass
    /// as a storage texture (wgpu creates it zeroed: transparent black until the pass writes
    /// it).
    pub(crate) fn new(
        device: &wgpu::Device,
        fog: Option<FogPass>,
        width: u32,
        height: u32,
    ) -> Self {
        let drawn_by = if fog.is_some() {
            wgpu::TextureUsages::RENDER_ATTACHMENT
        } else {
            wgpu::TextureUsages::STORAGE_BINDING
        };
        let texture = texture_2d(
            device,
            &format!("{NAME}.target"),
            (width, height),
            COLOR_FORMAT,
            drawn_by | wgpu::TextureUsages::COPY_SRC,
        );
        let view = view_of(&texture, &format!("{NAME}.target.view"));
        FogLayer { fog, texture, view }
    }

    /// Queues this frame's knobs and sheet order (applied at the next submit); nothing when the
    /// `fog_compute` pass writes the layer.
    pub(crate) fn prepare(&self, queue: &dyn BufferWrites, inputs: &FrameInputs<'_>) {
        if let Some(fog) = &self.fog {
            fog.prepare(queue, inputs);
        }
    }

    /// Records the layer: clear to transparent black, then the sheets against the depth the
    /// `scene` pass left in the targets; nothing when the `fog_compute` pass writes the layer.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameBinding) {
        let Some(fog) = &self.fog else { return };
        let clear = wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT);
        fog.record_sheets(encoder, (&self.view, None), clear, frame);
    }
}
