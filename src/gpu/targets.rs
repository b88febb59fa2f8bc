//! The pictures the passes draw into: the linear half-float colour target, the depth target
//! the fog is tested against, and the 8-bit sRGB picture that is read back.
//!
//! One set per renderer, reused every frame: the queue runs frames in order, and each frame's
//! readback copy is recorded before the next frame's passes.

/// Colour in linear light, with room above 1 for the glow (shade in linear light
/// into a half-float target).
pub(crate) const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// Depth of the scene's opaque geometry.
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// The finished picture: the format encodes linear values to sRGB when the `encode` pass
/// stores them.
pub(crate) const OUTPUT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// The render targets of one renderer.
pub(crate) struct Targets {
    pub color_linear_view: wgpu::TextureView,
    pub depth_view: wgpu::TextureView,
    pub output: wgpu::Texture,
    pub output_view: wgpu::TextureView,
}

impl Targets {
    /// The targets of a `width` × `height` picture. With `fog_compute` the picture can also be
    /// written as a storage texture, as the `fog_compute` pass does; the depth can always be
    /// read as a texture (the fog passes read it).
    pub(crate) fn new(device: &wgpu::Device, width: u32, height: u32, fog_compute: bool) -> Self {
        let color_compute = if fog_compute {
            wgpu::TextureUsages::STORAGE_BINDING
        } else {
            wgpu::TextureUsages::empty()
        };
        // Every fog compositor reads the scene's depth as a texture.
        let depth_compute = wgpu::TextureUsages::TEXTURE_BINDING;
        let texture =
            |label: &str, format, usage| texture_2d(device, label, (width, height), format, usage);
        let color_linear = texture(
            "targets.color_linear",
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC
                | color_compute,
        );
        let depth = texture(
            "targets.depth",
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | depth_compute,
        );
        let output = texture(
            "targets.output",
            OUTPUT_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        Targets {
            color_linear_view: view_of(&color_linear, "targets.color_linear.view"),
            depth_view: view_of(&depth, "targets.depth.view"),
            output_view: view_of(&output, "targets.output.view"),
            output,
        }
    }
}

/// A 2D texture `label` of `width` × `height` texels, one mip level, one sample: the kind of
/// every picture and map the renderer makes.
pub(crate) fn texture_2d(
    device: &wgpu::Device,
    label: &str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// The whole of `texture` as a view labelled `label`.
pub(crate) fn view_of(texture: &wgpu::Texture, label: &str) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some(label),
        ..Default::default()
    })
}
