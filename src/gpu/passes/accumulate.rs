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
//! With `--edge-samples` (`Targets::edge_list`, `passes/edges.rs`) sample 0's picture is
//! copied aside, and the later samples add only the listed pixels at an edge, one invocation
//! each, into a buffer with a slot a listed pixel. The resolve copies sample 0 back, then
//! writes the listed sums divided by N over it. The copies run in compute on GPUs and as
//! texture copies on CPU adapters (`Keeping`): at 640×360 lavapipe keeps sample 0 aside in
//! 0.5 ms by a copy, in 2.6–2.9 ms by a dispatch.
//! Every other pixel keeps sample 0's half float: its exact bytes. The sums are added in
//! sample order, so an edge pixel's mean has the same bits as before the list existed.
//!
//! The reconstruction filter is a box one pixel wide: every sample weighs 1/N.

use crate::gpu::GpuError;
use crate::gpu::passes::builder::{
    PassBuilder, PassContext, read_write_storage_buffer, storage_buffer, storage_texture, texture,
};
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, EdgeList, Targets, texture_2d, view_of};

/// Pixels a side of one workgroup.
const WORKGROUP_SIDE_PX: u32 = 8;
/// The running sums' format: 32-bit floats, so many samples add without rounding away.
const SUM_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// How one renderer's samples are gathered.
pub(crate) struct AccumulatePass {
    gathering: Gathering,
    size_px: (u32, u32),
}

enum Gathering {
    /// Every sample on every pixel: two running sums that take turns.
    Every(EverySum),
    /// `--edge-samples`: the later samples on the listed pixels at an edge.
    Edges(EdgeSums),
}

/// The pipelines and the two running sums of samples drawn on every pixel.
struct EverySum {
    first: wgpu::ComputePipeline,
    add: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    /// `[k % 2]`: what sample `k` binds, reading the other sum and writing sum `k % 2`.
    summing: [wgpu::BindGroup; 2],
    /// `[k % 2]`: resolving sum `k % 2` into the linear picture.
    resolving: [wgpu::BindGroup; 2],
    samples: u32,
}

/// The later samples of `--edge-samples`, summed over the list of pixels at an edge
/// (`Targets::edge_list`) into a buffer, one slot a listed pixel. Sample 0's picture is
/// copied aside whole and copied back before the listed means are written over it.
struct EdgeSums {
    /// The indirect dispatch over the list (`EdgeList::dispatch`).
    list_dispatch: wgpu::Buffer,
    /// How sample 0's linear picture is copied aside whole (as it was drawn) and back.
    keeping: Keeping,
    /// `cs_add_first_edge_sample`, `cs_add_edge_sample`, `cs_resolve_edge_list`.
    add_first: wgpu::ComputePipeline,
    add: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    summing: wgpu::BindGroup,
    resolving: wgpu::BindGroup,
}

/// How the edge sums copy sample 0's picture aside and back.
enum Keeping {
    /// `cs_keep_first_sample` and `cs_restore_first_sample`, in compute: on the GPU host a
    /// texture-to-texture copy of a 1080p picture took 0.3 ms, where the compute sums of
    /// `--samples N` read and write more in a tenth of that.
    Compute {
        keep: (wgpu::ComputePipeline, wgpu::BindGroup),
        restore: (wgpu::ComputePipeline, wgpu::BindGroup),
    },
    /// Texture-to-texture copies of the linear `picture` and the `kept` one, on a CPU
    /// adapter: lavapipe copies the memory in a fraction of a dispatch's time.
    Copies {
        picture: wgpu::Texture,
        kept: wgpu::Texture,
    },
}

impl AccumulatePass {
    /// The pass for `samples` samples a pixel into `targets` (whose linear picture must allow
    /// storage writes: `Targets::new` with a gathering of several samples). With an edge list
    /// (`Targets::edge_list`, `--edge-samples`) the samples after the first count on the
    /// listed pixels alone.
    pub(crate) fn new(
        passes: &PassContext<'_>,
        (size_px, samples): ((u32, u32), u32),
    ) -> Result<Self, GpuError> {
        let (device, targets) = (passes.device, passes.targets);
        let weight = [("SAMPLE_WEIGHT", 1.0 / f64::from(samples.max(1)))];
        let module = ShaderName::Accumulate.create_module(device, passes.errors, &weight)?;
        let build = PassBuilder::new(device, ShaderName::Accumulate.name());
        let gathering = match &targets.edge_list {
            None => Gathering::Every(EverySum::new(&build, &module, targets, size_px, samples)),
            Some(list) => {
                let copies = passes.frame.cpu_adapter;
                let edges = EdgeSums::new((&build, &module), targets, list, (size_px, copies));
                Gathering::Edges(edges)
            }
        };
        Ok(AccumulatePass { gathering, size_px })
    }

    /// Records sample `k`'s picture into the sums (copied for sample 0, added after).
    pub(crate) fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, k: u32) {
        match &self.gathering {
            Gathering::Every(every) => {
                let pipeline = if k == 0 { &every.first } else { &every.add };
                self.dispatch(encoder, pipeline, &every.summing[k as usize % 2]);
            }
            Gathering::Edges(edges) if k == 0 => match &edges.keeping {
                Keeping::Compute { keep, .. } => self.dispatch(encoder, &keep.0, &keep.1),
                Keeping::Copies { picture, kept } => copy_whole(encoder, picture, kept),
            },
            Gathering::Edges(edges) => {
                let pipeline = if k == 1 { &edges.add_first } else { &edges.add };
                edges.dispatch_list(encoder, pipeline, &edges.summing);
            }
        }
    }

    /// Records the mean of every sample into the linear picture; after the last sample's
    /// [`AccumulatePass::record_sample`].
    pub(crate) fn record_resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        match &self.gathering {
            Gathering::Every(every) => {
                let last = every.samples.max(1) - 1;
                self.dispatch(encoder, &every.resolve, &every.resolving[last as usize % 2]);
            }
            Gathering::Edges(edges) => {
                match &edges.keeping {
                    Keeping::Compute { restore, .. } => {
                        self.dispatch(encoder, &restore.0, &restore.1);
                    }
                    Keeping::Copies { picture, kept } => copy_whole(encoder, kept, picture),
                }
                edges.dispatch_list(encoder, &edges.resolve, &edges.resolving);
            }
        }
    }

    fn dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
    ) {
        let mut pass = begin_pass(encoder, pipeline, bind_group);
        let (width, height) = self.size_px;
        pass.dispatch_workgroups(
            width.div_ceil(WORKGROUP_SIDE_PX),
            height.div_ceil(WORKGROUP_SIDE_PX),
            1,
        );
    }
}

impl EverySum {
    fn new(
        build: &PassBuilder<'_>,
        module: &wgpu::ShaderModule,
        targets: &Targets,
        size_px: (u32, u32),
        samples: u32,
    ) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING;
        let sums = ["accumulate.sum_0", "accumulate.sum_1"].map(|label| {
            let sum = texture_2d(build.device(), label, size_px, SUM_FORMAT, usage);
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
        EverySum {
            first: build.compute_pipeline(module, "cs_first_sample", &[&summing_layout]),
            add: build.compute_pipeline(module, "cs_add_sample", &[&summing_layout]),
            resolve: build.compute_pipeline(module, "cs_resolve", &[&resolving_layout]),
            summing,
            resolving,
            samples,
        }
    }
}

impl EdgeSums {
    /// The sums over `list`; sample 0 kept aside by texture copies with `copies`, else in
    /// compute.
    fn new(
        (build, module): (&PassBuilder<'_>, &wgpu::ShaderModule),
        targets: &Targets,
        list: &EdgeList,
        (size_px, copies): ((u32, u32), bool),
    ) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let device = build.device();
        let copied = wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST;
        let first_sample = texture_2d(
            device,
            "accumulate.first_sample",
            size_px,
            COLOR_FORMAT,
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING | copied,
        );
        let first_view = view_of(&first_sample, "accumulate.first_sample.view");
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
            storage_texture(4, compute, COLOR_FORMAT),
            storage_buffer(6, compute),
            read_write_storage_buffer(7, compute),
        ]);
        let picture = &targets.color_linear_view;
        let keeping = match copies {
            true => Keeping::Copies {
                picture: picture.texture().clone(),
                kept: first_sample.clone(),
            },
            false => Keeping::in_compute((build, module), picture, &first_view),
        };
        let summing = build.bind_group_at(
            "edge_summing",
            &summing_layout,
            [
                (0, wgpu::BindingResource::TextureView(picture)),
                (3, wgpu::BindingResource::TextureView(&first_view)),
                (6, list.pixels.as_entire_binding()),
                (7, edge_sums.as_entire_binding()),
            ],
        );
        let resolving = build.bind_group_at(
            "edge_resolving",
            &resolving_layout,
            [
                (4, wgpu::BindingResource::TextureView(picture)),
                (6, list.pixels.as_entire_binding()),
                (7, edge_sums.as_entire_binding()),
            ],
        );
        let summing_pipeline = |entry| build.compute_pipeline(module, entry, &[&summing_layout]);
        EdgeSums {
            list_dispatch: list.dispatch.clone(),
            keeping,
            add_first: summing_pipeline("cs_add_first_edge_sample"),
            add: summing_pipeline("cs_add_edge_sample"),
            resolve: build.compute_pipeline(module, "cs_resolve_edge_list", &[&resolving_layout]),
            summing,
            resolving,
        }
    }

    /// One invocation a listed pixel.
    fn dispatch_list(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
    ) {
        let mut pass = begin_pass(encoder, pipeline, bind_group);
        pass.dispatch_workgroups_indirect(&self.list_dispatch, 0);
    }
}

impl Keeping {
    /// `cs_keep_first_sample` from `picture` into `kept`, and `cs_restore_first_sample` back.
    fn in_compute(
        (build, module): (&PassBuilder<'_>, &wgpu::ShaderModule),
        picture: &wgpu::TextureView,
        kept: &wgpu::TextureView,
    ) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let keeping_layout = build.bind_group_layout(&[
            texture(0, compute, unfilterable),
            storage_texture(8, compute, COLOR_FORMAT),
        ]);
        let restoring_layout = build.bind_group_layout(&[
            texture(3, compute, unfilterable),
            storage_texture(4, compute, COLOR_FORMAT),
        ]);
        let keeping = build.bind_group_at(
            "edge_keeping",
            &keeping_layout,
            [
                (0, wgpu::BindingResource::TextureView(picture)),
                (8, wgpu::BindingResource::TextureView(kept)),
            ],
        );
        let restoring = build.bind_group_at(
            "edge_restoring",
            &restoring_layout,
            [
                (3, wgpu::BindingResource::TextureView(kept)),
                (4, wgpu::BindingResource::TextureView(picture)),
            ],
        );
        let keep = build.compute_pipeline(module, "cs_keep_first_sample", &[&keeping_layout]);
        let restore =
            build.compute_pipeline(module, "cs_restore_first_sample", &[&restoring_layout]);
        Keeping::Compute {
            keep: (keep, keeping),
            restore: (restore, restoring),
        }
    }
}

/// Copies the whole of `from` into `to`, a texture of the same size and format.
fn copy_whole(encoder: &mut wgpu::CommandEncoder, from: &wgpu::Texture, to: &wgpu::Texture) {
    encoder.copy_texture_to_texture(from.as_image_copy(), to.as_image_copy(), from.size());
}

/// A compute pass of the `accumulate` pass with `pipeline` and its `bind_group` set.
fn begin_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
) -> wgpu::ComputePass<'e> {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(ShaderName::Accumulate.name()),
        timestamp_writes: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass
}
