//! The `edges` pass: which pixels of a frame lie at an edge, so that `--edge-samples`
//! draws its later samples there alone (shaders/edges.wgsl; the schedule is
//! `crate::samples::Sampling::Edges`).
//!
//! Sample 0 is drawn over the whole picture. Then [`EdgesPass::record_mask`] marks each pixel
//! whose sRGB colour differs from one of its four neighbours' by more than
//! [`EDGE_CONTRAST_LEVELS`] of 255 in any channel: a silhouette, a crease, a flame's rim, a
//! streak of rain. The mask is `Targets::edge_mask_view`, read by the later samples' passes:
//!
//! * the pass also lists the marked pixels (`Targets::edge_list`), stores each one's slot
//!   plus one in the mask, and sizes an indirect dispatch over the list. The fog and the
//!   `accumulate` pass run one invocation per listed pixel: a pass over the whole picture that
//!   skips unmarked pixels wastes a warp's 32 lanes on each scattered edge pixel;
//! * the sheets' fog is marched once a frame over the list, along each pixel's centre ray, and
//!   kept with the distance to its scene (`FogComputePass::record_edge_fog`). Each later
//!   sample draws the hall at its own offset and takes the kept fog of the pixel or of the
//!   listed neighbour whose scene lies nearest along its ray (the coverage samples of MSAA,
//!   the fog shaded once a pixel). This holds for both sheet compositors: the raster one
//!   builds the `fog_compute` pass for it. The raymarch, the reference, marches every sample;
//! * the compute `scene` pass skips a tile with no marked pixel (common.wgsl's
//!   `outside_edges`, switched on by the frame uniforms for those samples), and keeps the
//!   triangles the first sample binned: a sub-pixel offset stays inside each triangle's box;
//! * the flames, the rain and the bolt discard an unmarked pixel's fragments: their later
//!   samples cost what the edges cost, not what the whole picture costs;
//! * on the raster path [`EdgesPass::record_depth`] first copies in the frame's edge depth,
//!   nearest on every unmarked pixel, so the `scene` pass, loading that depth, and every pass
//!   tested against it after (the flames, the rain, the bolt) shade nothing there.
//!
//! Where it can, `passes/edge_batch.rs` draws every later sample in one go instead (a sheet
//! compositor, no shutter, layers or overlay lines). The samples one by one remain for the
//! other cases.
//!
//! A CPU adapter takes the mask in another form (`cs_edge_mask_by_quad`, chosen by
//! `FrameBinding::cpu_adapter`): each invocation encodes a 2 × 2 quad and the eight pixels
//! round it, marks the quad, and each marked pixel takes its slot in the list alone. lavapipe
//! runs barriers as coroutine switches; the GPU's form, which shares each workgroup's
//! encodings and slots, costs it three times as much. The mask is the same.
//!
//! The `accumulate` pass then averages the marked pixels' samples and keeps sample 0 on the
//! others, byte for byte. A pixel is only as anti-aliased as its mark: an edge sample 0 cannot
//! see (a feature thinner than the gap between two pixel centres) stays as one sample draws it.
//!
//! With the fog at half size (`fog_half.rs`) only sample 0's picture has the half-size fog.
//! The listed pixels' fog is marched at full size, as above: the compute compositor, whose
//! march over the picture then reads the half-size depth, builds a second `fog_compute` pass
//! for the list (`FogComputePass::for_edges`). So the later samples still draw the listed
//! pixels alone. They used to draw whole pictures, the half-size fog included, which made the
//! anti-aliased half-size fog slower than the full-size one.

use crate::gpu::GpuError;
use crate::gpu::passes::builder::{
    PassBuilder, PassContext, begin_depth_pass, read_write_storage_buffer, storage_texture, texture,
};
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{EDGE_LIST_WORKGROUP, EDGE_MASK_FORMAT, EdgeList, Targets};

/// How far (in 8-bit levels of the sRGB picture) a pixel's colour must stand from a
/// neighbour's for the two to be at an edge.
///
/// keep in sync with shaders/edges.wgsl: EDGE_CONTRAST_LEVELS
pub(crate) const EDGE_CONTRAST_LEVELS: f64 = 8.0;
/// Pixels a side of one workgroup of `cs_edge_mask`.
const WORKGROUP_SIDE_PX: u32 = 8;

/// The mask's pipeline, and on the raster path the depth pipeline.
pub(crate) struct EdgesPass {
    mask: wgpu::ComputePipeline,
    /// `cs_edge_dispatch`: the indirect dispatch over the list the mask pass fills.
    list_dispatch: wgpu::ComputePipeline,
    /// `cs_edge_gather_scene`: a later sample's scene colour at the listed pixels.
    gather: wgpu::ComputePipeline,
    gather_group: wgpu::BindGroup,
    /// The list's indirect dispatch (`EdgeList::dispatch`).
    dispatch_buffer: wgpu::Buffer,
    mask_group: wgpu::BindGroup,
    /// `fs_outside_edges` and its bind group, where the raster `scene` pass runs over a
    /// full-size fog; `None` where the passes read the mask themselves.
    depth: Option<(wgpu::RenderPipeline, wgpu::BindGroup)>,
    size_px: (u32, u32),
    /// Pixels a side of the picture one workgroup of the mask covers.
    mask_side_px: u32,
}

impl EdgesPass {
    /// The pass over `targets` (made with `Gathering::Edges`), filling their `list`; with
    /// `raster_depth` it also builds the depth pipeline of [`EdgesPass::record_depth`].
    pub(crate) fn new(
        passes: &PassContext<'_>,
        list: &EdgeList,
        size_px: (u32, u32),
        raster_depth: bool,
    ) -> Result<Self, GpuError> {
        let (device, errors, targets) = (passes.device, passes.errors, passes.targets);
        let constants = [
            ("EDGE_CONTRAST_LEVELS", EDGE_CONTRAST_LEVELS),
            ("EDGE_LIST_WORKGROUP", f64::from(EDGE_LIST_WORKGROUP)),
        ];
        let module = ShaderName::Edges.create_module(device, errors, &constants)?;
        let build = PassBuilder::new(device, ShaderName::Edges.name());
        let compute = wgpu::ShaderStages::COMPUTE;
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let mask_layout = build.bind_group_layout(&[
            texture(0, compute, unfilterable),
            storage_texture(1, compute, EDGE_MASK_FORMAT),
            read_write_storage_buffer(3, compute),
            read_write_storage_buffer(4, compute),
        ]);
        // The gathering dispatch reads the dispatch buffer as its indirect arguments, so its
        // group leaves it (binding 4) out.
        let gather_layout = build.bind_group_layout(&[
            texture(0, compute, unfilterable),
            read_write_storage_buffer(3, compute),
            read_write_storage_buffer(5, compute),
        ]);
        let picture = || wgpu::BindingResource::TextureView(&targets.color_linear_view);
        let gather_group = build.bind_group_at(
            "gather",
            &gather_layout,
            [
                (0, picture()),
                (3, list.pixels.as_entire_binding()),
                (5, list.scene.as_entire_binding()),
            ],
        );
        let mask_group = build.bind_group_at(
            "mask",
            &mask_layout,
            [
                (
                    0,
                    wgpu::BindingResource::TextureView(&targets.color_linear_view),
                ),
                (
                    1,
                    wgpu::BindingResource::TextureView(&targets.edge_mask_view),
                ),
                (3, list.pixels.as_entire_binding()),
                (4, list.dispatch.as_entire_binding()),
            ],
        );
        let depth = raster_depth.then(|| {
            let fragment = wgpu::ShaderStages::FRAGMENT;
            let layout =
                build.bind_group_layout(&[texture(2, fragment, wgpu::TextureSampleType::Uint)]);
            let group = build.bind_group_at(
                "depth",
                &layout,
                [(
                    2,
                    wgpu::BindingResource::TextureView(&targets.edge_mask_view),
                )],
            );
            let entries = ("vs_outside_edges", "fs_outside_edges");
            let pipeline = build.depth_only_pipeline("depth", &module, entries, &[Some(&layout)]);
            (pipeline, group)
        });
        // A CPU adapter marks a quad of pixels an invocation and lists each marked pixel by
        // itself (shaders/edges.wgsl).
        let (mask_entry, mask_side_px) = match passes.frame.cpu_adapter {
            true => ("cs_edge_mask_by_quad", 2 * WORKGROUP_SIDE_PX),
            false => ("cs_edge_mask", WORKGROUP_SIDE_PX),
        };
        Ok(EdgesPass {
            mask: build.compute_pipeline(&module, mask_entry, &[&mask_layout]),
            list_dispatch: build.compute_pipeline(&module, "cs_edge_dispatch", &[&mask_layout]),
            gather: build.compute_pipeline(&module, "cs_edge_gather_scene", &[&gather_layout]),
            gather_group,
            dispatch_buffer: list.dispatch.clone(),
            mask_group,
            depth,
            size_px,
            mask_side_px,
        })
    }

    /// Records the mask of the linear picture as it stands (after sample 0's passes), and on
    /// the raster path the frame's edge depth (`Targets::edge_depth_view`) from it.
    pub(crate) fn record_mask(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
        if let Some(list) = &targets.edge_list {
            // The list's count back to 0; the slots after it are overwritten as they fill.
            encoder.clear_buffer(&list.pixels, 0, Some(4));
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(ShaderName::Edges.name()),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.mask);
        pass.set_bind_group(0, &self.mask_group, &[]);
        let (width, height) = self.size_px;
        pass.dispatch_workgroups(
            width.div_ceil(self.mask_side_px),
            height.div_ceil(self.mask_side_px),
            1,
        );
        pass.set_pipeline(&self.list_dispatch);
        pass.dispatch_workgroups(1, 1, 1);
        drop(pass);
        if let Some(edge_depth) = &targets.edge_depth_view {
            self.record_depth_into(encoder, edge_depth);
        }
    }

    /// Gathers a later sample's scene colour at the listed pixels (`EdgeList::scene`), for the
    /// fog laid over it; after the sample's `scene` pass.
    pub(crate) fn record_gather(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(ShaderName::Edges.name()),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.gather);
        pass.set_bind_group(0, &self.gather_group, &[]);
        pass.dispatch_workgroups_indirect(&self.dispatch_buffer, 0);
    }

    /// Whether [`EdgesPass::record_depth`] records anything: then the raster `scene` pass
    /// must load the depth target rather than clear it.
    pub(crate) fn writes_depth(&self) -> bool {
        self.depth.is_some()
    }

    /// On the raster path: sets the depth target to far on the mask and nearest off it, as a
    /// copy of the frame's edge depth ([`EdgesPass::record_mask`] drew it once). Records
    /// nothing where the passes read the mask themselves.
    pub(crate) fn record_depth(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
        if self.depth.is_none() {
            return;
        }
        match &targets.edge_depth_view {
            Some(edge_depth) => {
                let (from, to) = (edge_depth.texture(), targets.depth_view.texture());
                encoder.copy_texture_to_texture(
                    from.as_image_copy(),
                    to.as_image_copy(),
                    to.size(),
                );
            }
            None => self.record_depth_into(encoder, &targets.depth_view),
        }
    }

    /// Clears `depth_view` to far and writes the nearest depth off the mask (raster path).
    fn record_depth_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        depth_view: &wgpu::TextureView,
    ) {
        let Some((pipeline, group)) = &self.depth else {
            return;
        };
        let label = format!("{}.depth", ShaderName::Edges.name());
        let mut pass = begin_depth_pass(encoder, &label, depth_view);
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.draw(0..3, 0..1);
    }
}
