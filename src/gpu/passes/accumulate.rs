//! The `accumulate` pass: a frame's samples summed in linear light and resolved to their mean
//! (shaders/accumulate.wgsl; the schedule is `crate::samples`).
//!
//! Built only for `output.samples` above 1. After sample `k`'s passes the renderer records
//! [`AccumulatePass::record_sample`]: sample 0 copies the linear picture into a sum, each later
//! one adds it. Two 32-bit float sums take turns (sample `k` writes sum `k % 2` and reads the
//! other), so no dispatch reads and writes one texture. After the last sample,
//! [`AccumulatePass::record_resolve`] writes the sum times 1/N into the linear picture. The
//! passes after it (`encode`, the EXR readback) read that picture as they read a single
//! sample's.
//!
//! With `--edge-samples` (`Targets::edge_list`, `passes/edges.rs`) the later samples add
//! only the listed pixels at an edge, one invocation each, into a buffer with a slot a listed
//! pixel; the resolve writes sample 0 everywhere, then divides only the listed sums by N.
//! Every other pixel keeps sample 0's half float: its exact bytes. The sums are added in
//! sample order, so an edge pixel's mean has the same bits as before the list existed.
//!
//! The reconstruction filter is a box one pixel wide: every sample weighs 1/N.

use crate::gpu::GpuError;
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{
    PassBuilder, read_write_storage_buffer, storage_buffer, storage_texture, texture,
};
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets, texture_2d, view_of};

/// Pixels a side of one workgroup.
const WORKGROUP_SIDE_PX: u32 = 8;
/// The running sums' format: 32-bit floats, so many samples add without rounding away.
const SUM_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// The pipelines and the two running sums of one renderer's samples.
pub(crate) struct AccumulatePass {
    first: wgpu::ComputePipeline,
    add: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    /// `[k % 2]`: what sample `k` binds, reading the other sum and writing sum `k % 2`.
    summing: [wgpu::BindGroup; 2],
    /// `[k % 2]`: resolving sum `k % 2` into the linear picture.
    resolving: [wgpu::BindGroup; 2],
    /// With `--edge-samples`: the sums over the list of pixels at an edge.
    edges: Option<EdgeSums>,
    size_px: (u32, u32),
    samples: u32,
}

/// The later samples of `--edge-samples`, summed over the list of pixels at an edge
/// (`Targets::edge_list`) into a buffer, one slot a listed pixel.
struct EdgeSums {
    list: EdgeListDispatch,
    /// `cs_add_first_edge_sample`, `cs_add_edge_sample`, `cs_resolve_edge_list`.
    add_first: wgpu::ComputePipeline,
    add: wgpu::ComputePipeline,
    resolve_list: wgpu::ComputePipeline,
    /// `cs_resolve_first`: sample 0 over the whole picture.
    resolve_first: wgpu::ComputePipeline,
    summing: wgpu::BindGroup,
    resolving: wgpu::BindGroup,
}

/// The indirect dispatch buffer of the edge list, shared with the `edges` pass.
struct EdgeListDispatch(wgpu::Buffer);

impl AccumulatePass {
    /// The pass for `samples` samples a pixel into `targets` (whose linear picture must allow
    /// storage writes: `Targets::new` with a gathering of several samples). With an edge list
    /// (`Targets::edge_list`, `--edge-samples`) the samples after the first count on the
    /// listed pixels alone.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        targets: &Targets,
        (size_px, samples): ((u32, u32), u32),
    ) -> Result<Self, GpuError> {
        let module = ShaderName::Accumulate.create_module(device, errors)?;
        let weight = [("SAMPLE_WEIGHT", 1.0 / f64::from(samples.max(1)))];
        let build = PassBuilder::new(device, ShaderName::Accumulate.name()).with_constants(&weight);
        let compute = wgpu::ShaderStages::COMPUTE;
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING;
        let sums = ["accumulate.sum_0", "accumulate.sum_1"].map(|label| {
            let sum = texture_2d(device, label, size_px, SUM_FORMAT, usage);
            view_of(&sum, label)
        });
        let summing_layout = build.bind_group_layout(&[
            texture(0, compute, unfilterable),
            texture(1, compute, unfilterable),
            storage_texture(2, compute, SUM_FORMAT),
        ]);
        let picture = &targets.color_linear_view;
        let summing = [0, 1].map(|written: usize| {
            let read = &sums[1 - written];
            let resources = [
                (0, wgpu::BindingResource::TextureView(picture)),
                (1, wgpu::BindingResource::TextureView(read)),
                (2, wgpu::BindingResource::TextureView(&sums[written])),
            ];
            build.bind_group_at("summing", &summing_layout, resources)
        });
        let resolving_layout = build.bind_group_layout(&[
            texture(3, compute, unfilterable),
            storage_texture(4, compute, COLOR_FORMAT),
        ]);
        let resolving = [0, 1].map(|read: usize| {
            let resources = [
                (3, wgpu::BindingResource::TextureView(&sums[read])),
                (4, wgpu::BindingResource::TextureView(picture)),
            ];
            build.bind_group_at("resolving", &resolving_layout, resources)
        });
        let edges = targets.edge_list.as_ref().map(|list| {
            let edge_sums = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&build.label("edge_sums")),
                size: 16 * u64::from(list.capacity.max(1)),
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            let summing_layout = build.bind_group_layout(&[
                texture(0, compute, unfilterable),
                texture(3, compute, unfilterable),
                storage_buffer(6, compute),
                read_write_storage_buffer(7, compute),
            ]);
            let resolving_layout = build.bind_group_layout(&[
                texture(3, compute, unfilterable),
                storage_texture(4, compute, COLOR_FORMAT),
                storage_buffer(6, compute),
                read_write_storage_buffer(7, compute),
            ]);
            // Sample 0 is written into sum 0 and stays there.
            let first_sum = wgpu::BindingResource::TextureView(&sums[0]);
            let summing = build.bind_group_at(
                "edge_summing",
                &summing_layout,
                [
                    (0, wgpu::BindingResource::TextureView(picture)),
                    (3, first_sum.clone()),
                    (6, list.pixels.as_entire_binding()),
                    (7, edge_sums.as_entire_binding()),
                ],
            );
            let resolving = build.bind_group_at(
                "edge_resolving",
                &resolving_layout,
                [
                    (3, first_sum),
                    (4, wgpu::BindingResource::TextureView(picture)),
                    (6, list.pixels.as_entire_binding()),
                    (7, edge_sums.as_entire_binding()),
                ],
            );
            let summing_pipeline =
                |entry| build.compute_pipeline(&module, entry, &[&summing_layout]);
            let resolving_pipeline =
                |entry| build.compute_pipeline(&module, entry, &[&resolving_layout]);
            EdgeSums {
                list: EdgeListDispatch(list.dispatch.clone()),
                add_first: summing_pipeline("cs_add_first_edge_sample"),
                add: summing_pipeline("cs_add_edge_sample"),
                resolve_list: resolving_pipeline("cs_resolve_edge_list"),
                resolve_first: resolving_pipeline("cs_resolve_first"),
                summing,
                resolving,
            }
        });
        Ok(AccumulatePass {
            first: build.compute_pipeline(&module, "cs_first_sample", &[&summing_layout]),
            add: build.compute_pipeline(&module, "cs_add_sample", &[&summing_layout]),
            resolve: build.compute_pipeline(&module, "cs_resolve", &[&resolving_layout]),
            summing,
            resolving,
            edges,
            size_px,
            samples,
        })
    }

    /// Records sample `k`'s picture into the sums (copied for sample 0, added after).
    pub(crate) fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, k: u32) {
        match (&self.edges, k) {
            (_, 0) => self.dispatch(encoder, &self.first, &self.summing[0]),
            (None, _) => self.dispatch(encoder, &self.add, &self.summing[k as usize % 2]),
            (Some(edges), _) => {
                let pipeline = if k == 1 { &edges.add_first } else { &edges.add };
                edges.dispatch_list(encoder, pipeline, &edges.summing);
            }
        }
    }

    /// Records the mean of every sample into the linear picture; after the last sample's
    /// [`AccumulatePass::record_sample`].
    pub(crate) fn record_resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        match &self.edges {
            None => {
                let last = self.samples.max(1) - 1;
                self.dispatch(encoder, &self.resolve, &self.resolving[last as usize % 2]);
            }
            Some(edges) => {
                self.dispatch(encoder, &edges.resolve_first, &edges.resolving);
                edges.dispatch_list(encoder, &edges.resolve_list, &edges.resolving);
            }
        }
    }

    fn dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(ShaderName::Accumulate.name()),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        let (width, height) = self.size_px;
        pass.dispatch_workgroups(
            width.div_ceil(WORKGROUP_SIDE_PX),
            height.div_ceil(WORKGROUP_SIDE_PX),
            1,
        );
    }
}

impl EdgeSums {
    /// One invocation a listed pixel.
    fn dispatch_list(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(ShaderName::Accumulate.name()),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.dispatch_workgroups_indirect(&self.list.0, 0);
    }
}
