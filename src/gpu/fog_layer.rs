//! The fog as a layer of its own for compositing (`render --format exr --layers`): the `fog`
//! pass's sheets drawn a second time, by a raster [`FogPass`] of its own, into a separate
//! half-float target cleared to transparent black.
//!
//! A compositor wants to grade or relight the fog without re-rendering the hall, so the layer
//! holds the fog alone, in linear light with premultiplied alpha (what EXR and every
//! compositor expect): transparent where there is no fog, and cut out by the pillars, the
//! altar and the ball because the sheets are depth-tested against the scene's depth target.
//! `fs_fog` already returns premultiplied colour and the blend is premultiplied "over" in
//! colour and alpha, so the layer's alpha is the fog's coverage and the layer composited over
//! a render without fog (`--set fog.sigma=0`) gives back the beauty frame up to half-float
//! rounding, except where flames are: the beauty adds the flames after the fog, over it,
//! while in the composite they sit under the fog layer and are dimmed by its coverage.
//!
//! Only the fog is in the layer: flames are light sources and belong to the beauty pass (and
//! a flame layer would need additive compositing, not "over"), and the `sheets` and `flow`
//! views' lines are diagnostics. The layer follows the view's fog (the veil of the `flow`
//! view, the colours of the `fluid` view).
//!
//! The layer has its own raster pass whichever compositor draws the beauty frame's fog, so
//! it does not depend on that choice; with the `fog_compute` compositor the two agree as
//! closely as the compositors agree with each other.

use crate::frame::FrameInputs;
use crate::gpu::common::FrameBinding;
use crate::gpu::fog_pass::FogPass;
use crate::gpu::targets::{COLOR_FORMAT, Targets};

/// The fog layer: its sheets and its target.
pub(crate) struct FogLayer {
    fog: FogPass,
    pub texture: wgpu::Texture,
    view: wgpu::TextureView,
}

impl FogLayer {
    /// A `width` × `height` layer, half-float like the colour target, drawn by `fog`.
    pub(crate) fn new(device: &wgpu::Device, fog: FogPass, width: u32, height: u32) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("fog_layer.target"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("fog_layer.target.view"),
            ..Default::default()
        });
        FogLayer { fog, texture, view }
    }

    /// Queues this frame's knobs and sheet order (applied at the next submit).
    pub(crate) fn prepare(&self, queue: &wgpu::Queue, inputs: &FrameInputs<'_>) {
        self.fog.prepare(queue, inputs);
    }

    /// Records the layer: clear to transparent black, then the sheets against the depth the
    /// `scene` pass left in `targets`.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        let clear = wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT);
        let view = &self.view;
        self.fog
            .record_sheets(encoder, "fog_layer", view, clear, targets, frame);
    }
}
