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
//!    tile with a listed pixel gathers its triangles, once for every sample where at most 256
//!    meet the tile. Each listed pixel casts one ray a sample, shades the hit, lays the kept
//!    fog of the nearest surface over it (as `cs_fog_reuse_edges` does) and sums the samples
//!    into its slot ([`EdgeBatch::sums`]). In a scene with weather the wet floor's mirror, kept
//!    per listed pixel after sample 0 by the `reflection` pass ([`EdgeBatch::mirror`]), goes
//!    under that fog. It keeps each sample's depth ([`EdgeBatch::depths`]). The raster
//!    compositor draws sample 0 with the raster pipeline and runs on CPU adapters, where a
//!    workgroup barrier is a coroutine switch: its `scene` pass bins the triangles once a frame
//!    for the batch alone and runs `cs_scene_edge_batch_by_pixel`, one invocation a listed
//!    pixel with no barrier.
//! 2. `fs_flame_edge_batch` (shaders/flame.wgsl, recorded by the `flame` pass): the fires'
//!    quads once, each listed pixel's fragment adding the flame light of every later sample,
//!    each at its offset along the quad's derivatives and tested against that sample's depth.
//!    Flames add light, so their sum can go into the picture, which holds sample 0.
//! 3. `fs_edge_batch_resolve` (shaders/edges.wgsl, here): each listed pixel's sum drawn over the
//!    picture as a point, both weighted 1/N by the blend constant: the mean of the N samples.
//! 4. With weather, the bolt and the rain, which sample 0 left out: drawn once over the mean,
//!    each fragment weighing its quad at every sample's offset and testing each against that
//!    sample's depth (shaders/over_samples.wgsl), so they are anti-aliased wherever they are,
//!    not only at the listed pixels.
//!
//! The picture matches the sample-by-sample path within rounding: sums in 32-bit floats that
//! path stores in half floats between passes, the flames' fog read from sample 0's grid, and a
//! neighbour's kept mirror where a sample sees the floor. Where a streak and an edge both move
//! within a pixel, the streak lies over the mean of what is under it, not over each sample's.
//! The batch is built where every later sample's passes are in it: a sheet compositor, no
//! shutter, no layers and no overlay lines, and at most 16 samples. Elsewhere the
//! later samples are drawn one by one.

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
use crate::gpu::targets::{COLOR_FORMAT, EDGE_POINTS_OFFSET, EdgeList, Targets};
use crate::samples::SampleSchedule;
use crate::scene::Scene;
use wgpu::util::DeviceExt;

/// The most later samples a batch draws (`--edge-samples 16`): more are drawn one by one, as
/// are samples whose depths would not fit the adapter's largest storage buffer.
const MAX_LATER_SAMPLES: u64 = 15;

/// The WGSL `override` that sets the samples a pixel in the batch's shaders.
///
/// keep in sync with shaders/scene_compute.wgsl, flame.wgsl: EDGE_BATCH_SAMPLES
pub(crate) const SAMPLES_CONSTANT: &str = "EDGE_BATCH_SAMPLES";

/// The WGSL `override` that lays the wet floor's mirror over the batch's floor hits.
///
/// keep in sync with shaders/scene_compute.wgsl: BATCH_MIRROR
const MIRROR_CONSTANT: &str = "BATCH_MIRROR";

#[cfg(test)]
thread_local! {
    /// Tests only: renderers made on this thread build no batch, so they draw the later edge
    /// samples one by one.
    pub(crate) static FORCE_ONE_BY_ONE: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

#[cfg(test)]
thread_local! {
    /// Tests only: renderers made on this thread build a batch that lays no mirror over the
    /// floor.
    pub(crate) static FORCE_NO_MIRROR: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// Whether every pass of a later sample is in the batch: a sheet compositor (whose edges' fog
/// is marched at full size whatever the picture's), in a scene without a shutter (every later
/// sample sees sample 0's moment), with no layers and no overlay lines.
pub(crate) fn batches(compositor: Compositor, scene: &Scene, (layers, view): (bool, View)) -> bool {
    #[cfg(test)]
    if FORCE_ONE_BY_ONE.get() {
        return false;
    }
    matches!(compositor, Compositor::Compute | Compositor::Raster)
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
    /// The list's indirect arguments, whose draw of a point a listed pixel the resolve runs.
    points: wgpu::Buffer,
    /// Whether the scene has weather, so a wet floor mirrors the hall in every sample.
    mirrored: bool,
    /// One `vec4<f32>` a list slot: the mirror over the listed pixel's centre, premultiplied,
    /// kept by the `reflection` pass after sample 0 (zeros without weather).
    pub(crate) mirror: wgpu::Buffer,
}

impl EdgeBatch {
    /// The batch of `schedule`'s later samples over `list`, the list of `targets`, with the
    /// wet floor's mirror where `mirrored` (a scene with weather).
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        (targets, list): (&Targets, &EdgeList),
        (schedule, mirrored): (&SampleSchedule, bool),
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

        let module = ShaderName::Edges.create_module(device, errors, &[])?;
        let build = PassBuilder::new(device, "edge_batch");
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let vertex = wgpu::ShaderStages::VERTEX;
        let layout = build.bind_group_layout(&[
            texture(2, vertex, wgpu::TextureSampleType::Uint),
            storage_buffer(6, fragment),
            storage_buffer(7, vertex),
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
                (7, list.pixels.as_entire_binding()),
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
            vertex_entry: "vs_edge_point",
            fragment_entry: "fs_edge_batch_resolve",
            buffers: &[],
            bind_group_layouts: &[&layout],
            topology: wgpu::PrimitiveTopology::PointList,
            cull_mode: None,
            depth: None,
            format: COLOR_FORMAT,
            blend: Some(wgpu::BlendState {
                color: weighted,
                alpha: weighted,
            }),
        });
        let mirror = storage("edge_batch.mirror", 16 * slots);
        #[cfg(test)]
        let mirrored = mirrored && !FORCE_NO_MIRROR.get();
        Ok(EdgeBatch {
            samples,
            offsets,
            sums,
            depths,
            resolve,
            resolve_group,
            points: list.dispatch.clone(),
            mirrored,
            mirror,
        })
    }

    /// The batch over `targets`' edge list when `batched` (see [`batches`]); `None` without
    /// a list (sampling other than `--edge-samples`), without `batched`, or for more samples
    /// than [`MAX_LATER_SAMPLES`] or than the adapter's buffers hold.
    pub(crate) fn for_targets(
        device: &wgpu::Device,
        errors: &ErrorSink,
        (targets, schedule): (&Targets, &SampleSchedule),
        (batched, mirrored): (bool, bool),
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
            (schedule, mirrored),
        )?))
    }

    /// `constants` and [`SAMPLES_CONSTANT`]: a batch pipeline's overrides, those of the pass's
    /// other pipelines and the batch's samples a pixel.
    pub(crate) fn constants_with<'a>(&self, constants: &[(&'a str, f64)]) -> Vec<(&'a str, f64)> {
        let samples = (SAMPLES_CONSTANT, f64::from(self.samples));
        constants.iter().copied().chain([samples]).collect()
    }

    /// [`EdgeBatch::constants_with`] for the `scene` pass's batch pipeline, which also says
    /// whether it lays the mirror over the floor ([`MIRROR_CONSTANT`]).
    pub(crate) fn scene_constants_with<'a>(
        &self,
        constants: &[(&'a str, f64)],
    ) -> Vec<(&'a str, f64)> {
        let mirror = (MIRROR_CONSTANT, if self.mirrored { 1.0 } else { 0.0 });
        let mut all = self.constants_with(constants);
        all.push(mirror);
        all
    }

    /// The group 2 of the rain's and the bolt's pipelines drawn over the samples' mean
    /// (shaders/over_samples.wgsl): each sample's offset and each listed pixel's depths.
    pub(crate) fn over_samples_group(
        &self,
        build: &PassBuilder<'_>,
    ) -> (wgpu::BindGroupLayout, wgpu::BindGroup) {
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let layout =
            build.bind_group_layout(&[storage_buffer(0, fragment), storage_buffer(1, fragment)]);
        let group = build.bind_group_at(
            "over_samples",
            &layout,
            [
                (0, self.offsets.as_entire_binding()),
                (1, self.depths.as_entire_binding()),
            ],
        );
        (layout, group)
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
        pass.draw_indirect(&self.points, EDGE_POINTS_OFFSET);
    }
}
