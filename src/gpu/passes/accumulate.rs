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
//! With `--edge-samples` (`Targets::edge_mask_view` picture-sized, `passes/edges.rs`)
//! the later samples add only the pixels at an edge, and the resolve divides only those by N.
//! Every other pixel's sum is sample 0's half float, resolved with weight 1: its exact bytes.
//!
//! The reconstruction filter is a box one pixel wide: every sample weighs 1/N.

use crate::gpu::GpuError;
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{PassBuilder, storage_texture, texture};
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
    size_px: (u32, u32),
    samples: u32,
}

impl AccumulatePass {
    /// The pass for `samples` samples a pixel into `targets` (whose linear picture must allow
    /// storage writes: `Targets::new` with a gathering of several samples). With `edges` the
    /// samples after the first count on the pixels at an edge alone.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        targets: &Targets,
        (size_px, samples): ((u32, u32), u32),
        edges: bool,
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
        // The edge mask, bound last in both groups with `--edge-samples`.
        let mask = edges.then(|| {
            let entry = texture(5, compute, wgpu::TextureSampleType::Uint);
            (entry, &targets.edge_mask_view)
        });
        let with_mask = |mut entries: Vec<wgpu::BindGroupLayoutEntry>| {
            entries.extend(mask.as_ref().map(|(entry, _)| *entry));
            build.bind_group_layout(&entries)
        };
        let summing_layout = with_mask(vec![
            texture(0, compute, unfilterable),
            texture(1, compute, unfilterable),
            storage_texture(2, compute, SUM_FORMAT),
        ]);
        let picture = &targets.color_linear_view;
        let mask_resource = mask
            .as_ref()
            .map(|(_, view)| (5, wgpu::BindingResource::TextureView(view)));
        let summing = [0, 1].map(|written: usize| {
            let read = &sums[1 - written];
            let mut resources = vec![
                (0, wgpu::BindingResource::TextureView(picture)),
                (1, wgpu::BindingResource::TextureView(read)),
                (2, wgpu::BindingResource::TextureView(&sums[written])),
            ];
            resources.extend(mask_resource.clone());
            build.bind_group_at("summing", &summing_layout, resources)
        });
        let resolving_layout = with_mask(vec![
            texture(3, compute, unfilterable),
            storage_texture(4, compute, COLOR_FORMAT),
        ]);
        let resolving = [0, 1].map(|read: usize| {
            let mut resources = vec![
                (3, wgpu::BindingResource::TextureView(&sums[read])),
                (4, wgpu::BindingResource::TextureView(picture)),
            ];
            resources.extend(mask_resource.clone());
            build.bind_group_at("resolving", &resolving_layout, resources)
        });
        let (add, resolve) = match edges {
            true => ("cs_add_edge_sample", "cs_resolve_edges"),
            false => ("cs_add_sample", "cs_resolve"),
        };
        Ok(AccumulatePass {
            first: build.compute_pipeline(&module, "cs_first_sample", &[&summing_layout]),
            add: build.compute_pipeline(&module, add, &[&summing_layout]),
            resolve: build.compute_pipeline(&module, resolve, &[&resolving_layout]),
            summing,
            resolving,
            size_px,
            samples,
        })
    }

    /// Records sample `k`'s picture into the sums (copied for sample 0, added after).
    pub(crate) fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, k: u32) {
        let pipeline = if k == 0 { &self.first } else { &self.add };
        self.dispatch(encoder, pipeline, &self.summing[k as usize % 2]);
    }

    /// Records the mean of every sample into the linear picture; after the last sample's
    /// [`AccumulatePass::record_sample`].
    pub(crate) fn record_resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        let last = self.samples.max(1) - 1;
        self.dispatch(encoder, &self.resolve, &self.resolving[last as usize % 2]);
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
