//! The `fog_half` pass: the fog sheets at half width and height (`output.fog_resolution:
//! Half`), brought up to the picture's size along the scene's depth (shaders/fog_half.wgsl).
//!
//! On a CPU adapter (lavapipe) the fog is almost all of a frame's work, every fragment of every
//! sheet shading the noise; at half width and height it is a quarter of the fragments. The
//! `fog` pass (or the `fog_compute` pass) owns a [`FogHalf`] when the scene asks for it and
//! records three steps in its slot: [`FogHalf::record_depth`] makes a half-size depth (one of
//! the 2×2 pixels' depths, nearest and farthest in a checkerboard) and clears the half-size fog
//! target; the pass draws (or marches) its sheets, unchanged, against that depth into that
//! target; [`FogHalf::record_upsample`] lays the fog over the picture, each pixel blending the
//! four half-size texels round it where their depths agree with its own and taking the one of
//! nearest depth where they do not, so pillars keep sharp edges.
//!
//! Without the setting nothing here is made and the picture is byte for byte as before.

use bytemuck::{Pod, Zeroable};

use crate::gpu::GpuError;
use crate::gpu::camera::{FAR_WORLD, NEAR_WORLD};
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{
    DepthTest, PREMULTIPLIED_OVER, PassBuilder, RasterPipeline, begin_render_pass, texture, uniform,
};
use crate::gpu::passes::fog_compute::Compositor;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, DEPTH_FORMAT, Targets, texture_2d, view_of};
use crate::scene::FogResolution;

/// The largest difference of depth between a pixel and the four half-size texels round it,
/// relative to the pixel's own, at which they still blend bilinearly: a floor seen at a
/// grazing angle varies by about 1% from one texel to the next at 640×360, a pillar stands
/// well over 5% in front of what lies behind it.
pub(crate) const BLEND_DEPTH_RATIO: f32 = 0.05;

/// What the two pipelines read besides the textures.
///
/// keep in sync with shaders/fog_half.wgsl: HalfKnobs
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct HalfKnobs {
    /// x, y: the picture's size; z, w: the half-size targets' (pixels).
    size: [u32; 4],
    /// x: near plane; y: far plane (world units); z: [`BLEND_DEPTH_RATIO`]; w: unused.
    depth: [f32; 4],
}

/// The fog's resolution as drawn when the scene asks for `resolution` (resolved for the
/// adapter): `Half` only for a sheets compositor (raster or compute) without the fog layer.
pub(crate) fn resolution_drawn(
    resolution: FogResolution,
    compositor: Compositor,
    fog_layer: bool,
) -> FogResolution {
    let sheets = matches!(compositor, Compositor::Raster | Compositor::Compute);
    match resolution {
        FogResolution::Half if sheets && !fog_layer => FogResolution::Half,
        _ => FogResolution::Full,
    }
}

/// The size of the half-size targets for a `width` × `height` picture: half of each, rounded
/// up, so every pixel has a texel.
pub(crate) fn half_size(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(2), height.div_ceil(2))
}

/// The half-size targets and the two pipelines round the sheets.
pub(crate) struct FogHalf {
    /// Half-size width and height (pixels).
    pub size: (u32, u32),
    /// The fog alone at half size: premultiplied colour, coverage in alpha. A render target
    /// for the raster sheets and a storage texture for the compute march.
    pub fog_view: wgpu::TextureView,
    /// The depth each half-size texel stands for, read by the sheets as the scene's depth.
    pub depth_view: wgpu::TextureView,
    depth_pipeline: wgpu::RenderPipeline,
    depth_bind_group: wgpu::BindGroup,
    upsample_pipeline: wgpu::RenderPipeline,
    upsample_bind_group: wgpu::BindGroup,
}

impl FogHalf {
    /// The half-size fog when `resolution` (the scene's `output.fog_resolution`, `Auto`
    /// resolved for the adapter) is `Half` and `wanted` (the sheets' compositor runs, no
    /// full-size fog layer is read back); else `None`, and the fog is drawn at full size as
    /// before.
    pub(crate) fn for_scene(
        device: &wgpu::Device,
        errors: &ErrorSink,
        targets: &Targets,
        resolution: FogResolution,
        wanted: bool,
    ) -> Result<Option<Self>, GpuError> {
        if wanted && resolution == FogResolution::Half {
            Ok(Some(FogHalf::new(device, errors, targets)?))
        } else {
            Ok(None)
        }
    }

    /// The half-size targets for `targets`' picture and the pipelines that fill and read them.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        targets: &Targets,
    ) -> Result<Self, GpuError> {
        let module = ShaderName::FogHalf.create_module(device, errors, &[])?;
        let build = PassBuilder::new(device, ShaderName::FogHalf.name());
        let picture = targets.color_linear_view.texture();
        let (width, height) = (picture.width(), picture.height());
        let size = half_size(width, height);
        let fog = texture_2d(
            device,
            &build.label("fog"),
            size,
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let depth = texture_2d(
            device,
            &build.label("depth"),
            size,
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let fog_view = view_of(&fog, &build.label("fog.view"));
        let depth_view = view_of(&depth, &build.label("depth.view"));
        let knobs = HalfKnobs {
            size: [width, height, size.0, size.1],
            depth: [NEAR_WORLD, FAR_WORLD, BLEND_DEPTH_RATIO, 0.0],
        };
        let knobs_buffer = build.static_uniform_buffer("knobs", bytemuck::bytes_of(&knobs));

        let fragment = wgpu::ShaderStages::FRAGMENT;
        let depth_texture = |binding| texture(binding, fragment, wgpu::TextureSampleType::Depth);
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        // The picture's depth is read as plain floats (fog_half.wgsl: `scene_depth`).
        let scene_depth = texture(0, fragment, unfilterable);
        // Step 1 reads the scene's depth and its knobs; it writes the half-size depth, so that
        // cannot be bound beside it.
        let depth_layout = build.bind_group_layout(&[scene_depth, uniform(3, fragment)]);
        let depth_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&build.label("depth.bind_group")),
            layout: &depth_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(targets.scene_depth_view()),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: knobs_buffer.as_entire_binding(),
                },
            ],
        });
        let upsample_layout = build.bind_group_layout(&[
            scene_depth,
            depth_texture(1),
            texture(2, fragment, unfilterable),
            uniform(3, fragment),
        ]);
        let upsample_bind_group = build.bind_group(
            &upsample_layout,
            [
                wgpu::BindingResource::TextureView(targets.scene_depth_view()),
                wgpu::BindingResource::TextureView(&depth_view),
                wgpu::BindingResource::TextureView(&fog_view),
                knobs_buffer.as_entire_binding(),
            ],
        );
        let pipeline = |part, fragment_entry, layout, depth, blend| {
            build.raster_pipeline(&RasterPipeline {
                part,
                module: &module,
                vertex_entry: "vs_full",
                fragment_entry,
                buffers: &[],
                bind_group_layouts: &[layout],
                topology: wgpu::PrimitiveTopology::TriangleList,
                cull_mode: None,
                depth,
                format: COLOR_FORMAT,
                blend,
            })
        };
        let write_depth = DepthTest {
            write: true,
            compare: wgpu::CompareFunction::Always,
        };
        let depth_pipeline = pipeline(
            Some("depth"),
            "fs_half_depth",
            &depth_layout,
            Some(write_depth),
            None,
        );
        let upsample_pipeline = pipeline(
            None,
            "fs_upsample",
            &upsample_layout,
            None,
            Some(PREMULTIPLIED_OVER),
        );
        Ok(FogHalf {
            size,
            fog_view,
            depth_view,
            depth_pipeline,
            depth_bind_group,
            upsample_pipeline,
            upsample_bind_group,
        })
    }

    /// Step 1: the half-size depth from the scene's, and the half-size fog cleared to
    /// transparent black.
    pub(crate) fn record_depth(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = begin_render_pass(
            encoder,
            "fog_half.depth",
            &self.fog_view,
            wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
            Some((&self.depth_view, wgpu::LoadOp::Clear(1.0))),
        );
        pass.set_pipeline(&self.depth_pipeline);
        pass.set_bind_group(0, &self.depth_bind_group, &[]);
        pass.draw(0..3, 0..1);
    }

    /// Step 3: the half-size fog over the picture in `targets`, along the scene's depth.
    pub(crate) fn record_upsample(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
        let mut pass = begin_render_pass(
            encoder,
            ShaderName::FogHalf.name(),
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            None,
        );
        pass.set_pipeline(&self.upsample_pipeline);
        pass.set_bind_group(0, &self.upsample_bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_size_rounds_up() {
        assert_eq!(half_size(640, 360), (320, 180));
        assert_eq!(half_size(161, 91), (81, 46));
        assert_eq!(half_size(1, 1), (1, 1));
    }

    #[test]
    fn knobs_match_wgsl_size() {
        // vec4<u32> + vec4<f32>.
        assert_eq!(std::mem::size_of::<HalfKnobs>(), 32);
    }
}
