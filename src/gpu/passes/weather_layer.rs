//! The weather as a layer of its own for compositing (`render --format exr --layers` on a
//! scene with `weather`): the rain's streaks, splashes and debris and the lightning bolt drawn
//! a second time, alone, into a half-float target of their own, read back as
//! `weather_NNNN.exr` beside `frame_NNNN.exr` and `fog_NNNN.exr`.
//!
//! The pass has no shader of its own: it clears its target to transparent black and records
//! the `bolt` and `rain` passes' draws into it, in the beauty's order (the bolt, then the rain
//! over it), with the scene's depth attached, loaded and never written, so a streak or a bolt
//! behind a pillar is hidden as in the picture. The shaders are the same, so the drops are lit,
//! faded by the distance fog (the frame's, with the weather's gloom) and placed exactly as in
//! the picture. The rain's pipeline is the beauty's own (its blend is already premultiplied
//! "over"); the bolt's is a second pipeline of its shader, `weather_layer.bolt`, blending
//! "over" where the beauty adds.
//!
//! What the layer holds, in linear light with premultiplied alpha (what EXR and compositors
//! expect), transparent black where no drop or bolt is:
//! - the rain and debris as the picture has them: the layer over the picture rendered without
//!   them gives back the picture (within half-float rounding), as the fog layer does for the fog;
//! - the bolt with its coverage as alpha: the white core opaque, the blue edge fading out with
//!   its brightness. The picture adds the bolt to what is behind it (it is light) and adds
//!   overlapping segments at the arc's bends; the layer lays them "over", so its colour never
//!   exceeds its alpha times the core's colour. Added ("plus") to the picture without it, the
//!   layer's bolt gives back the picture's away from the bends; laid "over", it also hides what
//!   is behind its core.
//!
//! Not in the layer: the flash (it brightens the ambient and the fog of the whole picture), the
//! gloom, the wet floor and the bolt's reflection in it; they stay in the beauty.
//!
//! A scene without weather has no `bolt` or `rain` pass and gets no weather layer, so nothing
//! of it changes. Frames without rain or a live bolt record the clear alone: the layer is
//! transparent black, and the frame still gets its file.

use crate::gpu::common::FrameBinding;
use crate::gpu::passes::bolt::BoltPass;
use crate::gpu::passes::builder::begin_over_read_only_depth;
use crate::gpu::passes::rain::RainPass;
use crate::gpu::targets::{COLOR_FORMAT, Targets, texture_2d, view_of};

/// The name of the layer's target, its render pass and the bolt's pipeline for it.
pub(crate) const NAME: &str = "weather_layer";

/// The weather layer's target.
pub(crate) struct WeatherLayer {
    pub texture: wgpu::Texture,
    view: wgpu::TextureView,
}

impl WeatherLayer {
    /// A `width` × `height` layer, half-float like the colour target.
    pub(crate) fn new(device: &wgpu::Device, width: u32, height: u32) -> Self {
        let texture = texture_2d(
            device,
            &format!("{NAME}.target"),
            (width, height),
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let view = view_of(&texture, &format!("{NAME}.target.view"));
        WeatherLayer { texture, view }
    }

    /// Records the layer: clear to transparent black, then the bolt (through its layer
    /// pipeline) and the rain as the `bolt` and `rain` passes prepared them for this frame,
    /// tested against the depth the `scene` pass left in `targets`.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
        (bolt, rain): (Option<&BoltPass>, Option<&RainPass>),
    ) {
        // The two passes test the scene's depth alike: in their shaders, or against the depth
        // target, attached read only (the shaders bind the scene's depth too).
        let reads_scene_depth = bolt
            .map(BoltPass::reads_scene_depth)
            .or(rain.map(RainPass::reads_scene_depth))
            .unwrap_or(false);
        let depth = (!reads_scene_depth).then_some(&targets.depth_view);
        let mut pass = begin_over_read_only_depth(
            encoder,
            NAME,
            &self.view,
            wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
            depth,
        );
        if let Some(bolt) = bolt {
            bolt.draw_layer(&mut pass, frame);
        }
        if let Some(rain) = rain {
            rain.draw(&mut pass, frame);
        }
    }
}
