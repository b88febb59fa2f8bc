//! The pictures the passes draw into: the linear half-float colour target, the depth target
//! the fog is tested against, and the 8-bit sRGB picture that is read back. With a per-pixel
//! fog compositor the pictures can also be written as storage textures, and the compute
//! `scene` pass's depths get a float picture of their own (`hit_depth_view`).
//!
//! With `--edge-samples` the targets also hold the edge mask (`edge_mask_view`): which
//! pixels the later samples draw (`passes/edges.rs`). Without it the mask is one unused texel,
//! so the frame's bind group always has one to bind. The marked pixels are also listed
//! (`EdgeList`), so the later samples' marches run over them alone.
//!
//! One set per renderer, reused every frame: the queue runs frames in order, and each frame's
//! readback copy is recorded before the next frame's passes.

/// Colour in linear light, with room above 1 for the glow (shade in linear light
/// into a half-float target).
pub(crate) const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// Depth of the scene's opaque geometry.
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// The scene's depth as the compute `scene` pass writes it (depth formats cannot be storage
/// textures): the same clip-space depth, as plain floats.
pub(crate) const HIT_DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;
/// The finished picture as the raster `encode` pass draws it: the format encodes linear values
/// to sRGB when the pass stores them.
pub(crate) const OUTPUT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The same bytes seen without the sRGB curve: the picture's texture format (read back as is),
/// and the storage view the compute `encode` writes, having applied the curve itself (sRGB
/// formats cannot be storage textures).
pub(crate) const OUTPUT_STORAGE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The render targets of one renderer.
pub(crate) struct Targets {
    pub color_linear_view: wgpu::TextureView,
    pub depth_view: wgpu::TextureView,
    pub output: wgpu::Texture,
    /// The picture through the sRGB curve, for the raster `encode` pass.
    pub output_view: wgpu::TextureView,
    /// The picture as plain 8-bit storage, for the compute `encode` pass (per-pixel
    /// compositors); `None` otherwise.
    pub output_storage_view: Option<wgpu::TextureView>,
    /// The scene's depth as the compute `scene` pass writes it (per-pixel compositors); the
    /// passes that read the scene's depth read it there ([`Targets::scene_depth_view`]).
    pub hit_depth_view: Option<wgpu::TextureView>,
    /// 1 where a pixel is at an edge of sample 0's picture, else 0 (`passes/edges.rs`):
    /// picture-sized for `--edge-samples`, else a single texel nothing reads.
    pub edge_mask_view: wgpu::TextureView,
    /// With [`Gathering::Edges`]: far on the pixels at an edge, nearest elsewhere, written once
    /// a frame after the mask (`passes/edges.rs`). The raster fog's later samples test their
    /// sheets against it, so they shade the edges alone.
    pub edge_depth_view: Option<wgpu::TextureView>,
    /// With [`Gathering::Edges`]: the pixels the mask marks, listed once a frame by the
    /// `edges` pass, for the passes that run over them alone.
    pub edge_list: Option<EdgeList>,
}

/// The pixels at an edge as a list: the later samples of `--edge-samples` run one invocation
/// per listed pixel, so no workgroup marches pixels it then throws away.
pub(crate) struct EdgeList {
    /// A count, then each marked pixel as `x | y << 16`, in no fixed order (every pass that
    /// reads it writes each pixel's own result, so the order never reaches a picture).
    pub pixels: wgpu::Buffer,
    /// The indirect dispatch over the list ([`EDGE_LIST_WORKGROUP`] invocations a workgroup),
    /// then from byte [`EDGE_POINTS_OFFSET`] the indirect draw of a point a listed pixel.
    pub dispatch: wgpu::Buffer,
    /// Two `vec4<f32>` a slot: the fog the sheets' march kept for the listed pixel, and the
    /// distance to its scene (shaders/fog_compute.wgsl, `cs_fog_store_edges`).
    pub fog: wgpu::Buffer,
    /// One `vec4<f32>` a slot: a later sample's scene colour at the listed pixel
    /// (shaders/edges.wgsl, `cs_edge_gather_scene`).
    pub scene: wgpu::Buffer,
    /// Capacity: the picture's pixels.
    pub capacity: u32,
}

/// Invocations in one workgroup of a pass over [`EdgeList`].
///
/// keep in sync with shaders/accumulate.wgsl, per_pixel.wgsl (the `@workgroup_size(64)` of
/// the `_edge` entry points)
pub(crate) const EDGE_LIST_WORKGROUP: u32 = 64;

/// Where [`EdgeList::dispatch`] holds the draw of a point a listed pixel, in bytes.
///
/// keep in sync with shaders/edges.wgsl: cs_edge_dispatch
pub(crate) const EDGE_POINTS_OFFSET: u64 = 12;

impl EdgeList {
    fn new(device: &wgpu::Device, (width, height): (u32, u32)) -> Self {
        let capacity = width * height;
        let pixels = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("targets.edge_list"),
            size: 4 * (u64::from(capacity) + 1),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let dispatch = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("targets.edge_dispatch"),
            size: 4 * 7,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
            mapped_at_creation: false,
        });
        let fog = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("targets.edge_fog"),
            size: 32 * u64::from(capacity.max(1)),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let scene = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("targets.edge_scene"),
            size: 16 * u64::from(capacity.max(1)),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        EdgeList {
            pixels,
            dispatch,
            fog,
            scene,
            capacity,
        }
    }
}

/// The format of the edge mask: one 32-bit unsigned integer a pixel (the narrowest integer
/// format a compute shader may write).
pub(crate) const EDGE_MASK_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Uint;

/// How a renderer's samples are gathered into its picture, as the targets need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gathering {
    /// One sample: drawn straight into the picture.
    Single,
    /// Several samples on every pixel, averaged by the `accumulate` pass.
    Every,
    /// Several samples on the pixels at an edge (`passes/edges.rs`), averaged there only.
    Edges,
}

impl Targets {
    /// The targets of a `width` × `height` picture. With `fog_compute` the linear picture and
    /// the finished one can also be written as storage textures, as the `fog_compute` and the
    /// compute `encode` passes do; with `sampled` the linear picture can, as the `accumulate`
    /// pass writes the mean of a frame's samples into it. With [`Gathering::Edges`] the edge
    /// mask is picture-sized. The depth can always be read as a texture (the fog passes read
    /// it).
    pub(crate) fn new(
        device: &wgpu::Device,
        (width, height): (u32, u32),
        fog_compute: bool,
        gathering: Gathering,
    ) -> Self {
        let sampled = gathering != Gathering::Single;
        let storage_if = |yes: bool| match yes {
            true => wgpu::TextureUsages::STORAGE_BINDING,
            false => wgpu::TextureUsages::empty(),
        };
        let color_compute = storage_if(fog_compute);
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
                | wgpu::TextureUsages::COPY_DST
                | storage_if(fog_compute || sampled),
        );
        let depth = texture(
            "targets.depth",
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_DST | depth_compute,
        );
        let output = texture_2d_with_views(
            device,
            "targets.output",
            (width, height),
            OUTPUT_STORAGE_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC | color_compute,
            &[OUTPUT_FORMAT],
        );
        // Each view for its one use: a storage view cannot be sRGB.
        let output_view = output.create_view(&wgpu::TextureViewDescriptor {
            label: Some("targets.output.view"),
            format: Some(OUTPUT_FORMAT),
            usage: Some(wgpu::TextureUsages::RENDER_ATTACHMENT),
            ..Default::default()
        });
        let hit_depth_view = fog_compute.then(|| {
            let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING;
            let hit_depth = texture("targets.hit_depth", HIT_DEPTH_FORMAT, usage);
            view_of(&hit_depth, "targets.hit_depth.view")
        });
        let edge_mask_view = match gathering {
            Gathering::Edges => edge_mask(device, (width, height)),
            _ => unused_edge_mask(device),
        };
        let edge_depth_view = (gathering == Gathering::Edges).then(|| {
            let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
            let edge_depth = texture("targets.edge_depth", DEPTH_FORMAT, usage);
            view_of(&edge_depth, "targets.edge_depth.view")
        });
        let edge_list =
            (gathering == Gathering::Edges).then(|| EdgeList::new(device, (width, height)));
        Targets {
            edge_mask_view,
            edge_depth_view,
            edge_list,
            hit_depth_view,
            color_linear_view: view_of(&color_linear, "targets.color_linear.view"),
            depth_view: view_of(&depth, "targets.depth.view"),
            output_view,
            output_storage_view: fog_compute.then(|| {
                output.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("targets.output.storage_view"),
                    usage: Some(wgpu::TextureUsages::STORAGE_BINDING),
                    ..Default::default()
                })
            }),
            output,
        }
    }
}

impl Targets {
    /// The scene's depth for the passes that read it as a texture (as plain floats): the compute
    /// `scene` pass's hit depths where it runs, else the depth target.
    pub(crate) fn scene_depth_view(&self) -> &wgpu::TextureView {
        self.hit_depth_view.as_ref().unwrap_or(&self.depth_view)
    }
}

/// An edge mask of `size` pixels, written by the `edges` pass and read by the frame's passes.
fn edge_mask(device: &wgpu::Device, size: (u32, u32)) -> wgpu::TextureView {
    let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING;
    let mask = texture_2d(device, "targets.edge_mask", size, EDGE_MASK_FORMAT, usage);
    view_of(&mask, "targets.edge_mask.view")
}

/// The one-texel edge mask of a renderer without edge samples: bound, never read.
pub(crate) fn unused_edge_mask(device: &wgpu::Device) -> wgpu::TextureView {
    edge_mask(device, (1, 1))
}

/// A 2D texture `label` of `width` × `height` texels, one mip level, one sample: the kind of
/// every picture and map the renderer makes.
pub(crate) fn texture_2d(
    device: &wgpu::Device,
    label: &str,
    size: (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    texture_2d_with_views(device, label, size, format, usage, &[])
}

/// [`texture_2d`], whose views may also take the formats `view_formats` (the sRGB twin of
/// its format).
pub(crate) fn texture_2d_with_views(
    device: &wgpu::Device,
    label: &str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
    view_formats: &[wgpu::TextureFormat],
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
        view_formats,
    })
}

/// The whole of `texture` as a view labelled `label`.
pub(crate) fn view_of(texture: &wgpu::Texture, label: &str) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some(label),
        ..Default::default()
    })
}
