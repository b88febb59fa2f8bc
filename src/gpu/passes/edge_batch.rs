//! The later samples of `--edge-samples` drawn in one go ([`EdgeBatch`]): the anti-aliased
//! default's fast path on both sheet compositors.
//!
//! Without a shutter every later sample sees sample 0's moment: the same maps, lights, fires
//! and kept fog, at its own sub-pixel offset. Drawn one by one, each later sample records
//! about six small passes (the hall, the gathering, the fog, the flames' grid and quads, the
//! sums), and on a GPU such a pass costs its fixed latency whatever the few edge pixels it
//! draws. So the batch draws them all in three steps after sample 0 and the edge mask:
//!
//! 1. `cs_scene_edge_batch` (shaders/scene_compute.wgsl, recorded by the `scene` pass): each
//!    tile with a listed pixel gathers its triangles once a sample; each listed pixel casts one
//!    ray a sample, shades the hit, lays the kept fog of the nearest surface over it (as
//!    `cs_fog_reuse_edges` does) and sums the samples into its slot ([`EdgeBatch::sums`]). It
//!    keeps each sample's depth ([`EdgeBatch::depths`]). The raster compositor draws sample 0
//!    with the raster pipeline and runs on CPU adapters, where a workgroup barrier is a
//!    coroutine switch: its `scene` pass bins the triangles once a frame for the batch alone
//!    and runs `cs_scene_edge_batch_by_pixel`, one invocation a listed pixel with no barrier.
//! 2. `fs_flame_edge_batch` (shaders/flame.wgsl, recorded by the `flame` pass): the fires'
//!    quads once, each listed pixel's fragment adding the flame light of every later sample,
//!    each at its offset along the quad's derivatives and tested against that sample's depth.
//!    Flames add light, so their sum can go into the picture, which holds sample 0.
//! 3. `fs_edge_batch_resolve` (shaders/edges.wgsl, here): each listed pixel's sum drawn over the
//!    picture, both weighted 1/N by the blend constant: the mean of the N samples.
//!
//! The picture matches the sample-by-sample path within rounding: sums in 32-bit floats that
//! path stores in half floats between passes, and the flames' fog read from sample 0's grid.
//! The batch is built where every later sample's passes are in it: a sheet compositor at full
//! size, no weather (the rain and the reflection draw per sample), no layers and no
//! overlay lines, and at most 16 samples. Elsewhere the later samples are drawn one by one.

use crate::frame::View;
use crate::gpu::GpuError;
use crate::gpu::capsule_geometry::CapsuleMesh;
use crate::gpu::common::FrameBinding;
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{
    PassBuilder, RasterPipeline, begin_over_read_only_depth, storage_buffer, texture,
};
use crate::gpu::passes::flame::FlamePass;
use crate::gpu::passes::fog_compute::Compositor;
use crate::gpu::passes::overlay::OverlayPass;
use crate::gpu::passes::scene::ScenePass;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, EdgeList, Targets};
use crate::samples::SampleSchedule;
use crate::scene::{FogResolution, Scene};
use wgpu::util::DeviceExt;

/// The most later samples a batch draws (`--edge-samples 16`): more are drawn one by one, as
/// are samples whose depths would not fit the adapter's largest storage buffer.
const MAX_LATER_SAMPLES: u64 = 15;

/// The WGSL `override` that sets the samples a pixel in the batch's shaders.
///
/// keep in sync with shaders/scene_compute.wgsl, flame.wgsl: EDGE_BATCH_SAMPLES
pub(crate) const SAMPLES_CONSTANT: &str = "EDGE_BATCH_SAMPLES";

#[cfg(test)]
thread_local! {
    /// Tests only: renderers made on this thread build no batch, so they draw the later edge
    /// samples one by one.
    pub(crate) static FORCE_ONE_BY_ONE: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// Whether every pass of a later sample is in the batch: a sheet compositor with its fog at
/// full size, in a scene without weather or shutter (every later sample sees sample 0's
/// moment), with no layers and no overlay lines.
pub(crate) fn batches(
    compositor: Compositor,
    fog_resolution: FogResolution,
    scene: &Scene,
    (layers, view): (bool, View),
) -> bool {
    #[cfg(test)]
    if FORCE_ONE_BY_ONE.get() {
        return false;
    }
    matches!(compositor, Compositor::Compute | Compositor::Raster)
        && fog_resolution == FogResolution::Full
        && scene.weather.is_none()
        && scene.output.shutter == 0.0
        && !layers
        && !OverlayPass::draws_lines(view)
}

/// The buffers the batch's three steps share, and its resolve.
pub(crate) struct EdgeBatch {
    /// Samples a pixel, sample 0 included.
    samples: u32,
    /// Each sample's sub-pixel offset (x right, y down, pixels) as a `vec4<f32>`'s `xy`.
    pub(crate) offsets: wgpu::Buffer,
    /// One `vec4<f32>` a list slot: the sum of the pixel's later samples.
    pub(crate) sums: wgpu::Buffer,
    /// `samples - 1` depths a list slot, in sample order.
    pub(crate) depths: wgpu::Buffer,
    resolve: wgpu::RenderPipeline,
    resolve_group: wgpu::BindGroup,
}

impl EdgeBatch {
    /// The batch of `schedule`'s later samples over `list`, the list of `targets`.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        (targets, list): (&Targets, &EdgeList),
        schedule: &SampleSchedule,
    ) -> Result<Self, GpuError> {
        let samples = schedule.len() as u32;
        let offsets: Vec<[f32; 4]> = schedule
            .offsets()
            .iter()
            .map(|o| [o.pixel_px[0], o.pixel_px[1], 0.0, 0.0])
            .collect();
        let offsets = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("edge_batch.offsets"),
            contents: bytemuck::cast_slice(&offsets),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let slots = u64::from(list.capacity.max(1));
        let storage = |label, size| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let sums = storage("edge_batch.sums", 16 * slots);
        let later = u64::from(samples.saturating_sub(1).max(1));
        let depths = storage("edge_batch.depths", 4 * slots * later);

        let module = ShaderName::Edges.create_module(device, errors)?;
        let build = PassBuilder::new(device, "edge_batch");
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let layout = build.bind_group_layout(&[
            texture(2, fragment, wgpu::TextureSampleType::Uint),
            storage_buffer(6, fragment),
        ]);
        let resolve_group = build.bind_group_at(
            "resolve",
            &layout,
            [
                (
                    2,
                    wgpu::BindingResource::TextureView(&targets.edge_mask_view),
                ),
                (6, sums.as_entire_binding()),
            ],
        );
        // Both the sum and the picture weighted by the blend constant, 1/N.
        let weighted = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::Constant,
            dst_factor: wgpu::BlendFactor::Constant,
            operation: wgpu::BlendOperation::Add,
        };
        let resolve = build.raster_pipeline(&RasterPipeline {
            part: Some("resolve"),
            module: &module,
            vertex_entry: "vs_outside_edges",
            fragment_entry: "fs_edge_batch_resolve",
            buffers: &[],
            bind_group_layouts: &[&layout],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            depth: None,
            format: COLOR_FORMAT,
            blend: Some(wgpu::BlendState {
                color: weighted,
                alpha: weighted,
            }),
        });
        Ok(EdgeBatch {
            samples,
            offsets,
            sums,
            depths,
            resolve,
            resolve_group,
        })
    }

    /// The batch over `targets`' edge list when `batched` (see [`batches`]); `None` without
    /// a list (sampling other than `--edge-samples`), without `batched`, or for more samples
    /// than [`MAX_LATER_SAMPLES`] or than the adapter's buffers hold.
    pub(crate) fn for_targets(
        device: &wgpu::Device,
        errors: &ErrorSink,
        targets: &Targets,
        schedule: &SampleSchedule,
        batched: bool,
    ) -> Result<Option<Self>, GpuError> {
        let Some(list) = targets.edge_list.as_ref().filter(|_| batched) else {
            return Ok(None);
        };
        // The depths of every later sample of every slot in one storage buffer.
        let later = schedule.len().saturating_sub(1) as u64;
        let depth_bytes = 4 * u64::from(list.capacity.max(1)) * later;
        let limits = device.limits();
        let largest_bytes = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if later > MAX_LATER_SAMPLES || depth_bytes > largest_bytes {
            return Ok(None);
        }
        Ok(Some(EdgeBatch::new(
            device,
            errors,
            (targets, list),
            schedule,
        )?))
    }

    /// `constants` and [`SAMPLES_CONSTANT`]: a batch pipeline's overrides, those of the pass's
    /// other pipelines and the batch's samples a pixel.
    pub(crate) fn constants_with<'a>(&self, constants: &[(&'a str, f64)]) -> Vec<(&'a str, f64)> {
        let samples = (SAMPLES_CONSTANT, f64::from(self.samples));
        constants.iter().copied().chain([samples]).collect()
    }

    /// Records the three steps after sample 0's passes and the edge mask: the `scene` pass's
    /// dispatch, then one render pass over `targets`' linear picture with the flames and the
    /// resolve.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (scene, flame): (&ScenePass, &FlamePass),
        (targets, frame): (&Targets, &FrameBinding),
        capsules: Option<&CapsuleMesh>,
    ) {
        scene.record_edge_batch(encoder, frame, capsules);
        let mut pass = begin_over_read_only_depth(
            encoder,
            "edge_batch",
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            None,
        );
        flame.record_edge_batch(&mut pass, frame);
        self.record_resolve(&mut pass);
    }

    /// Records the resolve into `pass`, a render pass over the linear picture with no depth.
    fn record_resolve(&self, pass: &mut wgpu::RenderPass<'_>) {
        let weight = 1.0 / f64::from(self.samples);
        pass.set_blend_constant(wgpu::Color {
            r: weight,
            g: weight,
            b: weight,
            a: weight,
        });
        pass.set_pipeline(&self.resolve);
        pass.set_bind_group(0, &self.resolve_group, &[]);
        pass.draw(0..3, 0..1);
    }
}
