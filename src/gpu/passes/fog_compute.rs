//! The `fog_compute` pass: the fog sheets composited per pixel in a compute shader
//! (shaders/fog_compute.wgsl), an alternative to the raster `fog` pass that gives the same
//! picture.
//!
//! Datacentre GPUs run fragment work far slower than compute, and the raster pass is all
//! fragment work: every sheet covers most of the picture. Here one invocation per pixel
//! crosses the sheet planes front to back along its view ray, shades each crossing with the
//! same `shade_sheet` as the raster pass, stops at the scene's depth or once the fog is
//! opaque, and writes the fog over the scene (ARCHITECTURE.md, "Data flow").
//!
//! The pass reads the scene colour from a copy it makes of the picture, reads the scene depth,
//! and writes the picture through a storage binding, so the `flame`, `overlay` and `encode`
//! passes after it read the picture where they always do. [`Compositor`] chooses between the
//! two passes; with `Compute` the renderer records the `fog_compute` pass where it would record
//! the raster `fog` pass.
//!
//! With the fog layer (`--layers`, `fog_layer.rs`) the pass runs the shader's
//! `cs_fog_with_layer` entry point instead of `cs_fog`, which also writes the fog alone, the
//! premultiplied colour and coverage its march summed anyway, into the layer through a second
//! storage binding, so no raster pass has to draw the sheets a second time.
//!
//! With `--edge-samples` sample 0's march keeps every pixel's fog (`cs_fog_keeping`), and the
//! listed pixels at an edge copy theirs for the later samples (`cs_fog_copy_edges`) instead
//! of marching it again, as they do on the raster compositor.
//!
//! With `output.fog_resolution: Half` the pass owns a [`FogHalf`] (`fog_half.rs`) and runs
//! `cs_fog_half`: the march at half width and height against the half-size depth, the fog alone
//! into the half-size fog target, then brought up to the picture's size along the scene's depth.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

use bytemuck::{Pod, Zeroable};

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::camera;
use crate::gpu::common::FrameBinding;
use crate::gpu::passes::builder::{
    PassBuilder, PassContext, SamplePass, SampleRecording, filterable_texture,
    read_write_storage_buffer, storage_buffer, storage_texture, texture, uniform,
};
use crate::gpu::passes::fog::{
    FogKnobs, fog_ceiling_world, sample_sheet_heights, sheet_heights, sheets_under,
};
use crate::gpu::passes::fog_half::FogHalf;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets, texture_2d, view_of};
use crate::samples::SampleOffset;
use crate::scene::Fog;

pub use crate::gpu::passes::compositor::{Compositor, DEFAULT_RAYMARCH_STEPS};

/// Side of the square workgroup, pixels: keep in sync with `@workgroup_size` in
/// shaders/fog_compute.wgsl and shaders/raymarch.wgsl.
const WORKGROUP_SIDE_PX: u32 = 8;

/// What the march needs besides the frame uniforms and the fog's knobs.
///
/// keep in sync with shaders/per_pixel.wgsl: MarchKnobs (shared by the `fog_compute` and
/// `raymarch` passes)
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct MarchKnobs {
    /// Clip space to world space: the inverse of the frame's `clip_from_world`.
    pub world_from_clip: [[f32; 4]; 4],
    /// x: picture width (pixels); y: picture height (pixels); z: sheets crossed this frame,
    /// the lowest (those under the fog's ceiling; the `raymarch` pass: steps per ray); w: the
    /// bits of the f32 the raymarch's start moves by, in steps (the sample's phase less 0.5;
    /// 0 for a single sample).
    pub size: [u32; 4],
}

/// What a per-pixel fog pass marches along each ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marched {
    /// The sheets (the `fog_compute` pass).
    Sheets,
    /// The continuous fog in `steps` steps (the `raymarch` pass, `raymarch.rs`).
    Medium { steps: u32 },
}

/// The passes of `--edge-samples` over the listed pixels at an edge (`Targets::edge_list`).
struct EdgeMarch {
    /// Each later sample's: the kept fog chosen by depth (`cs_fog_reuse_edges`), or the
    /// raymarch's own march (`cs_raymarch_edges`).
    per_sample: wgpu::ComputePipeline,
    /// Once a frame, after the mask: the sheets' fog kept for each listed pixel, copied from
    /// sample 0's march (`cs_fog_copy_edges`) or marched again (`cs_fog_store_edges`).
    once: Option<wgpu::ComputePipeline>,
    /// The list's indirect dispatch.
    dispatch: wgpu::Buffer,
}

/// The pipelines of a march over the whole picture.
struct WholePicture {
    /// The march, one invocation a pixel of its size.
    pipeline: wgpu::ComputePipeline,
    /// `cs_keep_scene` and its group 2: the picture as the `scene` pass left it, copied
    /// into a texture of its own before the march reads it.
    keep_scene: (wgpu::ComputePipeline, wgpu::BindGroup),
}

/// The `fog_compute` pass's pipeline, knobs, sheet heights and copy of the scene colour; also
/// the `raymarch` pass (`raymarch.rs`), which binds the same pictures and maps without the
/// sheet heights.
pub(crate) struct FogComputePass {
    /// `fog_compute` or `raymarch`: the label of the pass.
    name: &'static str,
    /// The march over the whole picture and the copy of the scene before it; `None` for the
    /// raster compositor's pass over the listed pixels alone ([`Self::for_edges`]).
    whole: Option<WholePicture>,
    /// With `--edge-samples`: the passes over the listed pixels at an edge.
    edges: Option<EdgeMarch>,
    bind_group: wgpu::BindGroup,
    knobs_buffer: wgpu::Buffer,
    knobs: FogKnobs,
    march_buffer: wgpu::Buffer,
    /// The march's size (pixels): the picture's, or at half size the half-size targets'.
    width: u32,
    height: u32,
    /// The picture's size (pixels), whatever the march's: the camera's aspect and the scale
    /// of a sample's sub-pixel offset.
    picture_size_px: (u32, u32),
    /// Sheets crossed (or raymarch steps) per ray; nothing is recorded at 0.
    count: u32,
    /// The sheets' heights as the march reads them (binding 5), rewritten for each sample
    /// off the centre.
    heights_buffer: wgpu::Buffer,
    /// Whether `heights_buffer` holds a sample's heights rather than the centre's.
    heights_shifted: AtomicBool,
    /// The fog section, for the sheets' heights of each sample.
    fog: Fog,
    /// The sheets' heights (world), lowest first; empty for the raymarch. Each frame only those
    /// under the fog's ceiling are crossed (as the raster pass draws them: the same bytes).
    heights_world: Vec<f32>,
    /// Tests only: cross every sheet, as before the ceiling was worked out.
    #[cfg(test)]
    every_sheet: bool,
    /// The half-size targets and upsampling, with `output.fog_resolution: Half`: the march
    /// runs over them instead of the picture.
    half: Option<FogHalf>,
}

impl FogComputePass {
    /// The pass for `scene` in `view` over `pictures` (see [`ComputePictures`]), marching
    /// `marched`, at half size through `half` when given (the sheets only; the fog layer is
    /// then not written).
    pub(crate) fn new(
        ctx: &PassContext<'_>,
        fog_layer: Option<&wgpu::TextureView>,
        marched: Marched,
        half: Option<FogHalf>,
    ) -> Result<Self, GpuError> {
        Self::build(ctx, (fog_layer, half), marched, true)
    }

    /// The sheets' pass of `--edge-samples` on the raster compositor, and on the compute one
    /// at half size: it marches the listed pixels at an edge alone, at full size, so it builds
    /// no march over the whole picture (a CPU adapter compiles each pipeline for a tenth of a
    /// second).
    pub(crate) fn for_edges(ctx: &PassContext<'_>) -> Result<Self, GpuError> {
        Self::build(ctx, (None, None), Marched::Sheets, false)
    }

    /// Whether the pass marches a half-size fog (`output.fog_resolution: Half`).
    pub(crate) fn is_half(&self) -> bool {
        self.half.is_some()
    }

    /// [`Self::new`], with the march over the whole picture only when `whole`.
    fn build(
        ctx: &PassContext<'_>,
        (fog_layer, half): (Option<&wgpu::TextureView>, Option<FogHalf>),
        marched: Marched,
        whole: bool,
    ) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            maps,
            targets,
            scene,
            view,
            ..
        } = *ctx;
        let shader = match marched {
            Marched::Sheets => ShaderName::FogCompute,
            Marched::Medium { .. } => ShaderName::Raymarch,
        };
        let name = shader.name();
        let constants = frame.fog_constants(scene, view);
        let module = shader.create_module(device, errors, &constants)?;
        let build = PassBuilder::new(device, name);
        let knobs = match marched {
            Marched::Sheets => FogKnobs::new(scene, view),
            Marched::Medium { steps } => FogKnobs::new(scene, view).raymarched(steps),
        };
        let knobs_buffer = build.uniform_buffer::<FogKnobs>("knobs");
        let march_buffer = build.uniform_buffer::<MarchKnobs>("march");
        // Lowest first, the same values the raster pass draws its quads at. At least one
        // element: a zero-sized storage buffer cannot be bound.
        let mut heights_world = sheet_heights(&scene.fog);
        let count = match marched {
            Marched::Sheets => heights_world.len() as u32,
            Marched::Medium { steps } => steps,
        };
        if heights_world.is_empty() {
            heights_world.push(0.0);
        }
        let heights_buffer = build.buffer_init(
            "sheet_heights",
            bytemuck::cast_slice(&heights_world),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        let color_linear = targets.color_linear_view.texture();
        let (width, height) = (color_linear.width(), color_linear.height());
        // The march's own size: the picture's, or the half-size targets'.
        let (march_width, march_height) = half.as_ref().map_or((width, height), |h| h.size);
        // The copy is read only by the march over the whole picture: a texel stands in for it
        // in the pass over the listed pixels alone, which binds it unread.
        let copy_size_px = if whole { (width, height) } else { (1, 1) };
        let scene_copy = texture_2d(
            device,
            &build.label("scene_copy"),
            copy_size_px,
            COLOR_FORMAT,
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING,
        );
        let scene_copy_view = view_of(&scene_copy, &build.label("scene_copy.view"));

        let compute = wgpu::ShaderStages::COMPUTE;
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let mut layout_entries = vec![
            // 0 to 3 as the raster `fog` pass binds them (declared in fog.wgsl).
            uniform(0, compute),
            filterable_texture(1, compute),
            filterable_texture(2, compute),
            texture(3, compute, unfilterable),
            uniform(4, compute),
            // The sheet heights: the `raymarch` pass's layout has them too, unread.
            storage_buffer(5, compute),
            texture(6, compute, unfilterable),
            storage_texture(7, compute, COLOR_FORMAT),
        ];
        let mut resources = vec![
            knobs_buffer.as_entire_binding(),
            wgpu::BindingResource::TextureView(&maps.fluid_view),
            wgpu::BindingResource::TextureView(&maps.lift_view),
            wgpu::BindingResource::TextureView(match &half {
                Some(half) => &half.depth_view,
                None => targets.scene_depth_view(),
            }),
            march_buffer.as_entire_binding(),
            heights_buffer.as_entire_binding(),
            wgpu::BindingResource::TextureView(&scene_copy_view),
            wgpu::BindingResource::TextureView(&targets.color_linear_view),
        ];
        // The fog layer: binding 8, read only by the `…_with_layer` entry point.
        let (plain, with_layer) = match marched {
            Marched::Sheets => ("cs_fog", "cs_fog_with_layer"),
            Marched::Medium { .. } => ("cs_raymarch", "cs_raymarch_with_layer"),
        };
        let entry_point = match (&half, fog_layer) {
            // The half-size fog is written where the layer would be.
            (Some(half), _) => {
                layout_entries.push(storage_texture(8, compute, COLOR_FORMAT));
                resources.push(wgpu::BindingResource::TextureView(&half.fog_view));
                "cs_fog_half"
            }
            (None, Some(layer_view)) => {
                layout_entries.push(storage_texture(8, compute, COLOR_FORMAT));
                resources.push(wgpu::BindingResource::TextureView(layer_view));
                with_layer
            }
            (None, None) => plain,
        };
        // The later samples of `--edge-samples` march the listed pixels at an edge alone:
        // binding 9. Over the fog layer or at half size they march every pixel.
        let edge_list = targets
            .edge_list
            .as_ref()
            .filter(|_| half.is_none() && fog_layer.is_none());
        if let Some(list) = edge_list {
            layout_entries.push(storage_buffer(9, compute));
            resources.push(list.pixels.as_entire_binding());
            layout_entries.push(read_write_storage_buffer(10, compute));
            resources.push(list.fog.as_entire_binding());
            layout_entries.push(storage_buffer(11, compute));
            resources.push(list.scene.as_entire_binding());
        }
        // Binding 14: each pixel's fog, kept by sample 0's march for the listed pixels.
        let fog_kept = edge_list
            .filter(|_| whole && entry_point == plain && matches!(marched, Marched::Sheets))
            .and_then(|_| kept_fog_buffer(&build, (width, height)));
        if let Some(kept) = &fog_kept {
            layout_entries.push(read_write_storage_buffer(14, compute));
            resources.push(kept.as_entire_binding());
        }
        let (entry_point, store_edges) = match fog_kept {
            Some(_) => ("cs_fog_keeping", "cs_fog_copy_edges"),
            None => (entry_point, "cs_fog_store_edges"),
        };
        let layout = build.bind_group_layout(&layout_entries);
        let bindings = layout_entries.iter().map(|entry| entry.binding);
        let bind_group = build.bind_group_at("bind_group", &layout, bindings.zip(resources));
        let whole = whole.then(|| {
            let keep_layout = build.bind_group_layout(&[
                texture(12, compute, unfilterable),
                storage_texture(13, compute, COLOR_FORMAT),
            ]);
            let keep_group = build.bind_group_at(
                "keep_scene",
                &keep_layout,
                [
                    (
                        12,
                        wgpu::BindingResource::TextureView(&targets.color_linear_view),
                    ),
                    (13, wgpu::BindingResource::TextureView(&scene_copy_view)),
                ],
            );
            let keep =
                build.compute_pipeline(&module, "cs_keep_scene", &[&frame.layout, &keep_layout]);
            WholePicture {
                pipeline: build.compute_pipeline(&module, entry_point, &[&frame.layout, &layout]),
                keep_scene: (keep, keep_group),
            }
        });
        let edges = edge_list.map(|list| {
            let layouts = [&frame.layout, &layout];
            // The sheets' fog is marched once a frame and chosen by depth; the raymarch, the
            // reference, marches every sample.
            let (per_sample, once) = match marched {
                Marched::Sheets => ("cs_fog_reuse_edges", Some(store_edges)),
                Marched::Medium { .. } => ("cs_raymarch_edges", None),
            };
            EdgeMarch {
                per_sample: build.compute_pipeline(&module, per_sample, &layouts),
                once: once.map(|entry| build.compute_pipeline(&module, entry, &layouts)),
                dispatch: list.dispatch.clone(),
            }
        });

        Ok(FogComputePass {
            name,
            whole,
            edges,
            bind_group,
            knobs_buffer,
            knobs,
            march_buffer,
            width: march_width,
            height: march_height,
            picture_size_px: (width, height),
            count,
            heights_world: match marched {
                Marched::Sheets => sheet_heights(&scene.fog),
                Marched::Medium { .. } => Vec::new(),
            },
            heights_buffer,
            heights_shifted: AtomicBool::new(false),
            fog: scene.fog.clone(),
            #[cfg(test)]
            every_sheet: false,
            half,
        })
    }

    /// Crosses every sheet, under the fog's ceiling or not, from the next frame (tests compare
    /// the two).
    #[cfg(test)]
    pub(crate) fn set_every_sheet(&mut self, on: bool) {
        self.every_sheet = on;
    }

    /// How many sheets (the lowest) the march crosses for `inputs`: those under the fog's
    /// ceiling (`fog_ceiling_world`, `sheets_under`). Above it every sheet's alpha is exactly 0;
    /// the loop in fog_compute.wgsl then crosses fewer sheets, with the same sums (a sheet left
    /// out was skipped with `continue` or came after a `break`). The raymarch's steps as they
    /// are.
    fn crossed(&self, heights_world: &[f32], inputs: &FrameInputs<'_>) -> u32 {
        #[cfg(test)]
        if self.every_sheet {
            return self.count;
        }
        if heights_world.is_empty() {
            return self.count;
        }
        let ceiling_world = fog_ceiling_world(&self.knobs, inputs.lift_map);
        sheets_under(heights_world, self.knobs.layer[3], ceiling_world) as u32
    }

    /// The sheets' heights the march crosses for `inputs`' sample (`sample_sheet_heights`);
    /// none for the raymarch.
    fn heights_for<'h>(&'h self, inputs: &FrameInputs<'_>) -> Cow<'h, [f32]> {
        sample_sheet_heights(&self.fog, &self.heights_world, &inputs.sample)
    }

    /// The march's knobs for a camera at `inputs` (the same matrix as the frame uniforms).
    pub(crate) fn march_knobs(&self, inputs: &FrameInputs<'_>) -> MarchKnobs {
        let clip_from_world = camera::frame_clip_from_world(inputs, self.picture_size_px);
        let crossed = self.crossed(&self.heights_for(inputs), inputs);
        // The raymarch's start moved by the sample's phase: 0.0 (bits 0) for the centre.
        let phase_shift = inputs.sample.depth_phase - SampleOffset::CENTRE.depth_phase;
        MarchKnobs {
            world_from_clip: clip_from_world.inverse().to_cols_array_2d(),
            size: [self.width, self.height, crossed, phase_shift.to_bits()],
        }
    }

    /// Turns the counting of partial slabs on or off from the next frame (tests compare both).
    #[cfg(test)]
    pub(crate) fn set_partial_slabs(&mut self, on: bool) {
        self.knobs = self.knobs.with_partial_slabs(on);
    }

    /// Queues this frame's knobs (applied at the next submit).
    pub(crate) fn prepare(&self, queue: &dyn BufferWrites, inputs: &FrameInputs<'_>) {
        let knobs = self.knobs.for_frame(inputs);
        queue.write_buffer(&self.knobs_buffer, 0, bytemuck::bytes_of(&knobs));
        let march = self.march_knobs(inputs);
        queue.write_buffer(&self.march_buffer, 0, bytemuck::bytes_of(&march));
        // A sample off the centre crosses its own sheets; the next centre sample puts the
        // centre's heights back. A single-sample frame never writes them.
        let shifted = !inputs.sample.is_centre();
        if !self.heights_world.is_empty()
            && (shifted || self.heights_shifted.load(Ordering::Relaxed))
        {
            let heights = self.heights_for(inputs);
            queue.write_buffer(&self.heights_buffer, 0, bytemuck::cast_slice(&heights));
            self.heights_shifted.store(shifted, Ordering::Relaxed);
        }
    }

    /// Records the copy of the scene colour and the march over what the `scene` pass left in
    /// the targets (and the fog layer, when the pass has one); nothing without sheets, when the
    /// fog layer stays as wgpu created it: zeroed, transparent black.
    /// With `edges_only` (a later sample of `--edge-samples`) only the listed pixels at an
    /// edge are marched, where the pass has the list. The pass of [`Self::for_edges`] records
    /// nothing without `edges_only`.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
        edges_only: bool,
    ) {
        if self.count == 0 {
            return;
        }
        // The kept fog over the gathered scene needs no copy of the picture.
        if let (true, Some(EdgeMarch { once: Some(_), .. })) = (edges_only, &self.edges) {
            self.dispatch(encoder, frame, true);
            return;
        }
        let Some(whole) = &self.whole else {
            return;
        };
        match &self.half {
            None => {
                let (width, height) = self.picture_size_px;
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(self.name),
                    timestamp_writes: None,
                });
                let (pipeline, group) = &whole.keep_scene;
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &frame.bind_group, &[]);
                pass.set_bind_group(1, group, &[]);
                pass.dispatch_workgroups(
                    width.div_ceil(WORKGROUP_SIDE_PX),
                    height.div_ceil(WORKGROUP_SIDE_PX),
                    1,
                );
                drop(pass);
                self.dispatch(encoder, frame, edges_only);
            }
            Some(half) => {
                half.record_depth(encoder);
                self.dispatch(encoder, frame, false);
                half.record_upsample(encoder, targets);
            }
        }
    }

    /// After sample 0's passes and the edge mask: marches the fog once along each listed
    /// pixel's centre ray and keeps it for the later samples (`cs_fog_store_edges`). Nothing
    /// for the raymarch, or without edge samples.
    pub(crate) fn record_edge_fog(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameBinding) {
        let Some((edges, once)) = self
            .edges
            .as_ref()
            .and_then(|edges| Some((edges, edges.once.as_ref()?)))
        else {
            return;
        };
        if self.count == 0 {
            return;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.name),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_pipeline(once);
        pass.dispatch_workgroups_indirect(&edges.dispatch, 0);
    }

    /// Records the march itself, one invocation per pixel of its size, or with `edges_only`
    /// one per listed pixel at an edge.
    fn dispatch(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameBinding, edges_only: bool) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.name),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        if let (true, Some(edges)) = (edges_only, &self.edges) {
            pass.set_pipeline(&edges.per_sample);
            pass.dispatch_workgroups_indirect(&edges.dispatch, 0);
            return;
        }
        let Some(whole) = &self.whole else {
            return;
        };
        pass.set_pipeline(&whole.pipeline);
        pass.dispatch_workgroups(
            self.width.div_ceil(WORKGROUP_SIDE_PX),
            self.height.div_ceil(WORKGROUP_SIDE_PX),
            1,
        );
    }
}

/// The buffer of each pixel's fog kept by sample 0's march (`cs_fog_keeping`), 16 bytes a
/// pixel; `None` where the adapter's storage bindings are smaller.
fn kept_fog_buffer(build: &PassBuilder<'_>, (width, height): (u32, u32)) -> Option<wgpu::Buffer> {
    let bytes = 16 * u64::from(width) * u64::from(height);
    let limits = build.device().limits();
    let largest_bytes = limits.max_storage_buffer_binding_size;
    (bytes <= largest_bytes.min(limits.max_buffer_size)).then(|| {
        build.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some(&build.label("fog_kept")),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    })
}

impl SamplePass for FogComputePass {
    fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, sample: &SampleRecording<'_>) {
        self.record(encoder, sample.targets, sample.frame, sample.edges_only);
    }
}

#[cfg(test)]
mod tests;
