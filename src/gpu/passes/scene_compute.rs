//! The `scene` pass drawn in compute (shaders/scene_compute.wgsl): the hall without a fragment
//! stage, for the per-pixel fog compositors ([`SceneRole::Picture`]). The raster compositor
//! builds it for the later edge samples' batch alone ([`SceneRole::BatchOnly`]): it bins the
//! triangles once a frame and casts those samples' rays (`passes/edge_batch.rs`).
//!
//! The GPUs those compositors are for can run fragment work many times slower than compute
//! work, even with a fragment shader that only writes a constant (see the benchmark records).
//! Here a setup dispatch prepares each triangle (corners, edges, the pixels it may cover,
//! clipped at the near plane, back faces culled). A raster dispatch casts each pixel's ray at
//! the triangles its 16 × 16 tile gathered, keeps the nearest hit (the lowest triangle on a
//! tie, as the depth test `Less` keeps the first drawn) and shades it with the raster pass's
//! own `shade_surface`. The picture is the raster pass's within rounding: the same points,
//! attributes interpolated at the same places, the same shading.
//!
//! A tile tests only the triangles binned to it, so the work grows with the triangles each
//! tile meets, not with all the triangles times all the tiles (a terrain has tens of
//! thousands). The setup counts each triangle into every tile its pixel box meets, a one-group
//! dispatch turns the counts into ranges of one index list (a prefix sum), and a fill dispatch
//! writes each triangle's index into its tiles' ranges. A triangle whose box meets more than
//! [`BINNED_TILES_MAX`] tiles is not binned: it joins a short list of big triangles that every
//! tile tests, so that no thread loops over thousands of tiles and the list has a bound
//! (triangles × (1 + the most tiles of a binned one)). The atomics make the order within a
//! range vary from run to run, but the nearest hit, lowest triangle first on a tie, is the
//! same in any order: the picture's bytes are those of testing every triangle in every tile.
//!
//! The hit depths go to a float picture (`Targets::hit_depth_view`; depth formats cannot be
//! storage textures). Every pass that reads the scene's depth as a texture reads
//! `Targets::scene_depth_view`, which is that picture here. The flames, the bolt and the rain
//! test it in their shaders, with no depth attachment ([`reads_hit_depths`]). A depth-only
//! full-screen pass copies the depths into the depth target only where a raster pass after the
//! scene tests against it, the overlay's lines ([`fills_depth_target`]).
//!
//! The walkers' capsules, meshed each frame, are copied behind the hall's vertices before the
//! dispatches, so they are drawn in the same way and in the same order as the raster pass
//! draws them (hall first: the first drawn wins a tie in depth).

use bytemuck::{Pod, Zeroable};

use crate::frame::{FrameInputs, View};
use crate::gpu::GpuError;
use crate::gpu::camera;
use crate::gpu::capsule_geometry::CapsuleMesh;
use crate::gpu::common::FrameBinding;
use crate::gpu::context::ErrorSink;
use crate::gpu::geometry::SceneVertex;
use crate::gpu::passes::builder::{
    PassBuilder, begin_depth_pass, read_write_storage_buffer, storage_buffer, storage_texture,
    texture, uniform,
};
use crate::gpu::passes::edge_batch::EdgeBatch;
use crate::gpu::passes::overlay::OverlayPass;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, EdgeList, HIT_DEPTH_FORMAT, Targets};

/// Triangles a workgroup of `cs_scene_setup` prepares.
const SETUP_WORKGROUP_TRIANGLES: u32 = 64;
/// Pixels a side of one tile, one workgroup of `cs_scene_raster`.
const TILE_SIDE_PX: u32 = 16;
/// Bytes of one prepared triangle (`ScreenTriangle`: three vec4s and the pixel box).
const SCREEN_TRIANGLE_BYTES: u64 = 64;
/// The most tiles a triangle's pixel box may meet and still be binned; a larger triangle is
/// tested by every tile. Fewer where the index list would pass the adapter's largest buffer.
pub(crate) const BINNED_TILES_MAX: u32 = 64;
/// Bytes of one tile's range in the index list (`TileBin`: its start and its end).
///
/// keep in sync with shaders/scene_compute.wgsl: TileBin
pub(crate) const TILE_BIN_BYTES: u64 = 8;
/// Bytes in front of the tiles' ranges in the bins (`SceneBins`: the count of big triangles).
///
/// keep in sync with shaders/scene_compute.wgsl: SceneBins
const BINS_HEADER_BYTES: u64 = 4;
/// Bytes of one triangle index in the index list.
const INDEX_BYTES: u64 = 4;

#[cfg(test)]
thread_local! {
    /// Tests only: compute scene passes made on this thread bin a triangle only up to this
    /// many tiles (0: none, every tile tests every triangle); the picture must not change.
    pub(crate) static FORCE_BINNED_TILES_MAX: std::cell::Cell<Option<u32>> =
        const { std::cell::Cell::new(None) };
    /// Tests only: compute scene passes made on this thread bin the triangles anew for every
    /// sample, as before the later samples of one moment shared the first one's bins.
    pub(crate) static FORCE_REBIN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The per-frame knobs of the compute `scene` pass.
///
/// keep in sync with shaders/scene_compute.wgsl: RasterKnobs
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct RasterKnobs {
    /// Clip space back to world space (the inverse of the frame's `clip_from_world`).
    pub world_from_clip: [[f32; 4]; 4],
    /// x, y: picture size (pixels); z: triangles this frame; w: the most tiles a triangle's
    /// box may meet and still be binned (0: none is).
    pub size: [u32; 4],
    /// rgb: the background where nothing is hit (linear); a: 1.
    pub clear_color: [f32; 4],
}

/// What a [`SceneCompute`] draws.
pub(crate) enum SceneRole<'a> {
    /// The picture's scene, for the per-pixel compositors: into the targets' storage picture
    /// and `hit_depth_view`; `fill_depth` also copies the depths into the depth target.
    Picture {
        hit_depth_view: &'a wgpu::TextureView,
        fill_depth: bool,
    },
    /// The later edge samples of the raster compositor's batch alone: the raster pipeline
    /// draws the picture's scene, and this pass bins the triangles once a frame for
    /// `cs_scene_edge_batch_by_pixel`.
    BatchOnly,
}

/// How the batch's pipeline is dispatched.
enum BatchDispatch {
    /// `cs_scene_edge_batch`: one workgroup a tile, the tile's pixels gathering its triangles
    /// together (the compute compositor, on GPUs).
    Tiles(wgpu::ComputePipeline),
    /// `cs_scene_edge_batch_by_pixel`: one invocation a listed pixel, over the edge list's
    /// indirect dispatch (`EdgeList::dispatch`), with no barrier (the raster compositor).
    ByPixel(wgpu::ComputePipeline, wgpu::Buffer),
}

/// The compute `scene` pass: its pipelines, the vertices it reads and the hit depths.
pub(crate) struct SceneCompute {
    setup: wgpu::ComputePipeline,
    bin_scan: wgpu::ComputePipeline,
    bin_fill: wgpu::ComputePipeline,
    /// `cs_scene_raster`: the picture's scene; `None` where the pass draws the batch alone.
    raster: Option<wgpu::ComputePipeline>,
    /// The depths copied into the depth target, where raster passes after the scene test
    /// against it (weather, overlay lines); the rest read the hit depths.
    depth_fill: Option<(wgpu::RenderPipeline, wgpu::BindGroup)>,
    /// The batch's dispatch and its group 2: the later edge samples in one dispatch
    /// (`passes/edge_batch.rs`); `None` where the renderer draws them one by one.
    edge_batch: Option<(BatchDispatch, wgpu::BindGroup)>,
    bind_group: wgpu::BindGroup,
    knobs: wgpu::Buffer,
    /// The count of big triangles and each tile's range, cleared before each setup.
    bins: wgpu::Buffer,
    /// The most tiles a binned triangle's box meets ([`BINNED_TILES_MAX`] or fewer).
    binned_tiles_max: u32,
    /// The hall's vertices, then room for the walkers' capsules.
    vertices: wgpu::Buffer,
    hall_vertex_count: u32,
    /// Triangles drawn this frame (the hall's and this frame's capsules').
    triangle_count: u32,
    size_px: (u32, u32),
    /// Tests only: bin anew for every sample ([`FORCE_REBIN`]).
    #[cfg(test)]
    rebin_every_sample: bool,
}

impl SceneCompute {
    /// The pass for `hall` (the static mesh, in the `scene` pass's vertex layout) plus up to
    /// `capsule_vertices` vertices of capsules a frame, shaded with `scene_knobs` and the
    /// overridable `constants` of the raster pass, over `targets`, drawing what `role` says.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        frame: &FrameBinding,
        targets: &Targets,
        role: SceneRole<'_>,
        (hall, capsule_vertices): (&[SceneVertex], usize),
        (scene_knobs, constants): (&wgpu::Buffer, &[(&str, f64)]),
        batch: Option<(&EdgeBatch, &EdgeList)>,
    ) -> Result<Self, GpuError> {
        let module = ShaderName::SceneCompute.create_module(device, errors, constants)?;
        let build = PassBuilder::new(device, ShaderName::SceneCompute.name());
        let size = targets.output.size();
        let size_px = (size.width, size.height);

        let mut contents = bytemuck::cast_slice::<SceneVertex, u8>(hall).to_vec();
        contents.resize(
            contents.len() + capsule_vertices * std::mem::size_of::<SceneVertex>(),
            0,
        );
        let vertices = build.buffer_init(
            "vertices",
            &contents,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        let max_triangles = ((hall.len() + capsule_vertices) / 3).max(1) as u64;
        let triangles = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&build.label("triangles")),
            size: max_triangles * SCREEN_TRIANGLE_BYTES,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let knobs = build.uniform_buffer::<RasterKnobs>("raster_knobs");
        let tiles = u64::from(size_px.0.div_ceil(TILE_SIDE_PX) * size_px.1.div_ceil(TILE_SIDE_PX));
        let bins = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&build.label("bins")),
            size: BINS_HEADER_BYTES + tiles * TILE_BIN_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let binned_tiles_max = binned_tiles_max(&device.limits(), max_triangles);
        // The big triangles (at most all of them), then each binned one in its tiles' ranges.
        let bin_triangles = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&build.label("bin_triangles")),
            size: max_triangles * (1 + u64::from(binned_tiles_max)) * INDEX_BYTES,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });

        let compute = wgpu::ShaderStages::COMPUTE;
        // Bindings 4 and 5 (the picture and its depths) only where the pass draws the picture.
        let picture = match role {
            SceneRole::Picture { hit_depth_view, .. } => Some(hit_depth_view),
            SceneRole::BatchOnly => None,
        };
        let mut entries = vec![
            uniform(0, compute),
            uniform(1, compute),
            storage_buffer(2, compute),
            read_write_storage_buffer(3, compute),
            read_write_storage_buffer(6, compute),
            read_write_storage_buffer(7, compute),
        ];
        let mut resources = vec![
            (0, scene_knobs.as_entire_binding()),
            (1, knobs.as_entire_binding()),
            (2, vertices.as_entire_binding()),
            (3, triangles.as_entire_binding()),
            (6, bins.as_entire_binding()),
            (7, bin_triangles.as_entire_binding()),
        ];
        if let Some(hit_depth_view) = picture {
            entries.push(storage_texture(4, compute, COLOR_FORMAT));
            entries.push(storage_texture(5, compute, HIT_DEPTH_FORMAT));
            resources.push((
                4,
                wgpu::BindingResource::TextureView(&targets.color_linear_view),
            ));
            resources.push((5, wgpu::BindingResource::TextureView(hit_depth_view)));
        }
        let layout = build.bind_group_layout(&entries);
        let bind_group = build.bind_group_at("bind_group", &layout, resources);
        let pipeline = |entry| build.compute_pipeline(&module, entry, &[&frame.layout, &layout]);
        let setup = pipeline("cs_scene_setup");
        let bin_scan = pipeline("cs_scene_bin_scan");
        let bin_fill = pipeline("cs_scene_bin_fill");
        let raster = picture.map(|_| pipeline("cs_scene_raster"));

        let depth_fill = match role {
            SceneRole::Picture {
                hit_depth_view,
                fill_depth: true,
            } => {
                let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
                let depth_layout = build.bind_group_layout(&[texture(
                    0,
                    wgpu::ShaderStages::FRAGMENT,
                    unfilterable,
                )]);
                let depth_bind_group = build.bind_group(
                    &depth_layout,
                    [wgpu::BindingResource::TextureView(hit_depth_view)],
                );
                // The full-screen pass that writes the hit depths into the depth target: its
                // one bind group at group 2 (the groups before it are unused).
                let entries = ("vs_scene_depth", "fs_scene_depth");
                let groups = [None, None, Some(&depth_layout)];
                let pipeline = build.depth_only_pipeline("depth", &module, entries, &groups);
                Some((pipeline, depth_bind_group))
            }
            _ => None,
        };
        let edge_batch = batch.map(|(batch, list)| -> Result<_, GpuError> {
            let by_pixel = picture.is_none();
            let mut entries = vec![
                storage_buffer(1, compute),
                storage_buffer(2, compute),
                read_write_storage_buffer(3, compute),
                read_write_storage_buffer(4, compute),
                storage_buffer(6, compute),
            ];
            let mut resources = vec![
                (1, batch.offsets.as_entire_binding()),
                (2, list.fog.as_entire_binding()),
                (3, batch.sums.as_entire_binding()),
                (4, batch.depths.as_entire_binding()),
                (6, batch.mirror.as_entire_binding()),
            ];
            if by_pixel {
                entries.push(storage_buffer(5, compute));
                resources.push((5, list.pixels.as_entire_binding()));
            }
            let batch_layout = build.bind_group_layout(&entries);
            let batch_group = build.bind_group_at("edge_batch", &batch_layout, resources);
            let constants = batch.scene_constants_with(constants);
            let groups = [&frame.layout, &layout, &batch_layout];
            let module = ShaderName::SceneCompute.create_module(device, errors, &constants)?;
            let dispatch = match by_pixel {
                true => BatchDispatch::ByPixel(
                    build.compute_pipeline(&module, "cs_scene_edge_batch_by_pixel", &groups),
                    list.dispatch.clone(),
                ),
                false => BatchDispatch::Tiles(build.compute_pipeline(
                    &module,
                    "cs_scene_edge_batch",
                    &groups,
                )),
            };
            Ok((dispatch, batch_group))
        });
        let edge_batch = edge_batch.transpose()?;
        Ok(SceneCompute {
            setup,
            bin_scan,
            bin_fill,
            raster,
            depth_fill,
            edge_batch,
            bind_group,
            knobs,
            bins,
            binned_tiles_max,
            vertices,
            hall_vertex_count: hall.len() as u32,
            triangle_count: 0,
            size_px,
            #[cfg(test)]
            rebin_every_sample: FORCE_REBIN.get(),
        })
    }

    /// Whether the pass draws the picture's scene ([`SceneRole::Picture`]).
    pub(crate) fn draws_picture(&self) -> bool {
        self.raster.is_some()
    }

    /// Queues this frame's knobs: the camera of `inputs` at the picture's aspect, the
    /// background `clear_color` (linear) and the triangles of the hall and of `capsules`.
    pub(crate) fn prepare(
        &mut self,
        queue: &dyn BufferWrites,
        inputs: &FrameInputs<'_>,
        clear_color: wgpu::Color,
        capsules: Option<&CapsuleMesh>,
    ) {
        let capsule_vertices = capsules.map_or(0, CapsuleMesh::vertex_count);
        self.triangle_count = (self.hall_vertex_count + capsule_vertices) / 3;
        let (width, height) = self.size_px;
        let clip_from_world = camera::frame_clip_from_world(inputs, (width, height));
        let knobs = RasterKnobs {
            world_from_clip: clip_from_world.inverse().to_cols_array_2d(),
            size: [width, height, self.triangle_count, self.binned_tiles_max],
            clear_color: [
                clear_color.r as f32,
                clear_color.g as f32,
                clear_color.b as f32,
                1.0,
            ],
        };
        queue.write_buffer(&self.knobs, 0, bytemuck::bytes_of(&knobs));
    }

    /// Records the pass: this frame's capsules copied behind the hall, the bins cleared, the
    /// dispatches that bin the triangles and draw the picture and the hit depths, and, where
    /// asked, the depths into the depth target. With `rebin` false only the drawing is
    /// recorded: the triangles and bins of the previous sample stand. The renderer passes
    /// false only for a later sample of the same moment (no shutter).
    ///
    /// Bins can be shared between the samples of one moment because a sample's sub-pixel
    /// offset moves a triangle by less than half a pixel, and each box already reaches a
    /// pixel past the triangle's corners: a pixel centre the shifted triangle covers lies in
    /// the unshifted box. Back faces are culled from the eye, which the offset does not move.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (targets, frame): (&Targets, &FrameBinding),
        capsules: Option<&CapsuleMesh>,
        rebin: bool,
    ) {
        #[cfg(test)]
        let rebin = rebin || self.rebin_every_sample;
        if rebin {
            self.record_binning(encoder, frame, capsules);
        }
        let (width, height) = self.size_px;
        if let Some(raster) = &self.raster {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(ShaderName::SceneCompute.name()),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &frame.bind_group, &[]);
            pass.set_bind_group(1, &self.bind_group, &[]);
            pass.set_pipeline(raster);
            pass.dispatch_workgroups(
                width.div_ceil(TILE_SIDE_PX),
                height.div_ceil(TILE_SIDE_PX),
                1,
            );
        }
        let Some((pipeline, bind_group)) = &self.depth_fill else {
            return;
        };
        let mut pass = begin_depth_pass(encoder, "scene.depth", &targets.depth_view);
        pass.set_pipeline(pipeline);
        pass.set_bind_group(2, bind_group, &[]);
        pass.draw(0..3, 0..1);
    }

    /// Records the batch: every later edge sample of the frame in one dispatch, with the
    /// triangles sample 0 binned. Where the pass draws the batch alone (the raster compositor)
    /// it first bins this frame's triangles and `capsules`. Nothing without the batch.
    pub(crate) fn record_edge_batch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
        capsules: Option<&CapsuleMesh>,
    ) {
        let Some((dispatch, batch_group)) = &self.edge_batch else {
            return;
        };
        if self.raster.is_none() {
            self.record_binning(encoder, frame, capsules);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("scene_compute.edge_batch"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_bind_group(2, batch_group, &[]);
        match dispatch {
            BatchDispatch::Tiles(pipeline) => {
                let (width, height) = self.size_px;
                pass.set_pipeline(pipeline);
                pass.dispatch_workgroups(
                    width.div_ceil(TILE_SIDE_PX),
                    height.div_ceil(TILE_SIDE_PX),
                    1,
                );
            }
            BatchDispatch::ByPixel(pipeline, list_dispatch) => {
                pass.set_pipeline(pipeline);
                pass.dispatch_workgroups_indirect(list_dispatch, 0);
            }
        }
    }

    /// The capsules copied behind the hall, the bins cleared, and the dispatches that prepare
    /// the triangles and bin them into tiles.
    fn record_binning(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
        capsules: Option<&CapsuleMesh>,
    ) {
        if let Some(capsules) = capsules
            && capsules.vertex_count() > 0
        {
            let offset_bytes = self.hall_vertex_count as u64 * SceneVertex::BYTES;
            let bytes = capsules.vertex_count() as u64 * SceneVertex::BYTES;
            encoder.copy_buffer_to_buffer(
                capsules.buffer(),
                0,
                &self.vertices,
                offset_bytes,
                bytes,
            );
        }
        encoder.clear_buffer(&self.bins, 0, None);
        let triangle_groups = self.triangle_count.div_ceil(SETUP_WORKGROUP_TRIANGLES);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("scene_compute.bins"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_pipeline(&self.setup);
        pass.dispatch_workgroups(triangle_groups, 1, 1);
        pass.set_pipeline(&self.bin_scan);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.bin_fill);
        pass.dispatch_workgroups(triangle_groups, 1, 1);
    }
}

/// The most tiles a binned triangle's box may meet: [`BINNED_TILES_MAX`], or fewer where the
/// index list for `max_triangles` would pass the adapter's largest storage buffer (`limits`).
fn binned_tiles_max(limits: &wgpu::Limits, max_triangles: u64) -> u32 {
    #[cfg(test)]
    if let Some(forced) = FORCE_BINNED_TILES_MAX.get() {
        return forced;
    }
    let largest_bytes = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let indices_per_triangle = largest_bytes / (max_triangles.max(1) * INDEX_BYTES);
    // One index a triangle is the room for the big ones.
    indices_per_triangle
        .saturating_sub(1)
        .min(u64::from(BINNED_TILES_MAX)) as u32
}

/// Whether the compute pass also copies its depths into the depth target in `view`: where
/// raster passes after the scene test against it (the overlay's lines). The fog passes, the
/// flames and the weather's bolt and rain read the hit depths themselves
/// ([`reads_hit_depths`]); the `reflection` pass's mirrored hall has a depth target of its own.
pub(crate) fn fills_depth_target(view: View) -> bool {
    OverlayPass::draws_lines(view)
}

/// Whether the passes drawn over the scene that hide behind it (flame, bolt, rain) test the
/// compute pass's hit depths in their shaders, with no depth attachment: where the scene is
/// drawn in compute and the depth target is not filled ([`fills_depth_target`]).
pub(crate) fn reads_hit_depths(targets: &Targets, view: View) -> bool {
    targets.hit_depth_view.is_some() && !fills_depth_target(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_list_fits_the_largest_buffer() {
        let limits = wgpu::Limits::default();
        // The valley's terrain and blocks: the list is 19 MB.
        assert_eq!(binned_tiles_max(&limits, 72_000), BINNED_TILES_MAX);
        // A terrain of resolution 512 (the most): fewer tiles, so that the list fits 128 MiB.
        let triangles = 2 * 512 * 512 + 1_000;
        let fewer = binned_tiles_max(&limits, triangles);
        assert!(fewer < BINNED_TILES_MAX && fewer > 32, "{fewer}");
        let bytes = triangles * (1 + u64::from(fewer)) * INDEX_BYTES;
        assert!(bytes <= limits.max_storage_buffer_binding_size);
        assert!(
            triangles * (2 + u64::from(fewer)) * INDEX_BYTES
                > limits.max_storage_buffer_binding_size
        );
    }
}
