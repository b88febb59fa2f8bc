//! The headless renderer: one frame's inputs in, one finished 8-bit sRGB frame out, with
//! several frames in flight so the GPU keeps working while the caller encodes PNGs.
//!
//! Per frame, in order ([`Renderer::submit`]; ARCHITECTURE.md, "Data flow"): upload the
//! uniforms, the two fluid maps and the walkers' capsules, then the `fire_flicker` pass
//! (scenes with fires), the `fog_lattice` pass (GPUs, where the lattice fits), the
//! `fog_shadow` pass (a fog that shadows itself), the `shadow` pass (shadowing lamps or
//! moon), the `scene` pass, the `reflection` pass (scenes with weather, on a wet floor),
//! the `fog` pass (or the `fog_compute` or `raymarch` pass, as [`RenderConfig::compositor`]
//! chooses), the `flame` pass (scenes with fires), the `bolt`
//! and `rain` passes (scenes with weather), the `overlay` pass (views that have one), the
//! `encode` pass to sRGB, and a copy into a staging buffer of the `ReadbackRing` that is
//! mapped asynchronously. [`RenderConfig::readback`] adds the linear colour target to the
//! copies (`--format exr`), and the fog layer (`passes/fog_layer.rs`, drawn after the fog by a
//! raster pass of its own, or written by the `fog_compute` pass itself) with its copy
//! (`--layers`), and for scenes with weather the weather layer (`passes/weather_layer.rs`: the
//! `bolt` and `rain` passes' draws again, alone, after the `rain` pass) with its copy.
//! With several samples the passes from `scene` to `overlay` run once a sample
//! (`sample_passes.rs`); the default's later samples at the edges (`passes/edges.rs`) are drawn
//! in one go on both sheet compositors (`passes/edge_batch.rs`). `picture_passes.rs` builds the
//! hall's and the fog's passes while the flames' pass is built on a thread of its own.

use std::sync::Arc;

use crate::frame::{Frame, FrameInputs, View};
use crate::gpu::GpuError;
use crate::gpu::capsule_geometry::CapsuleMesh;
use crate::gpu::common::{FrameBinding, FrameStatics};
use crate::gpu::context::{ErrorSink, GpuContext, scoped};
use crate::gpu::distance_fog::DistanceFogParams;
use crate::gpu::fire_lights::FireLights;
use crate::gpu::lamp_lights::{LampLights, LampResources};
use crate::gpu::maps::FluidMaps;
use crate::gpu::passes::accumulate::AccumulatePass;
use crate::gpu::passes::bolt::BoltPass;
use crate::gpu::passes::builder::PassContext;
use crate::gpu::passes::edge_batch::{self, EdgeBatch};
use crate::gpu::passes::edges::EdgesPass;
use crate::gpu::passes::encode::EncodePass;
use crate::gpu::passes::fire_flicker::FireFlickerPass;
use crate::gpu::passes::flame::FlamePass;
use crate::gpu::passes::fog::{FogKnobs, FogPass};
use crate::gpu::passes::fog_compute::{Compositor, FogComputePass};
use crate::gpu::passes::fog_half;
use crate::gpu::passes::fog_lattice::{FogLatticePass, LatticeLayout};
use crate::gpu::passes::fog_layer::FogLayer;
use crate::gpu::passes::fog_shadow::{self, FogShadowPass};
use crate::gpu::passes::overlay::OverlayPass;
use crate::gpu::passes::rain::RainPass;
use crate::gpu::passes::reflection::ReflectionPass;
use crate::gpu::passes::scene::ScenePass;
use crate::gpu::passes::shadow::ShadowPass;
use crate::gpu::passes::weather_layer::WeatherLayer;
use crate::gpu::readback::{
    Readback, ReadbackRing, ReadbackSources, Texels, check_frame_size, check_staging_size,
    ring_slots,
};
use crate::gpu::targets::{Gathering, Targets};
use crate::gpu::timing::{GpuTimes, PassTimer, mark};
use crate::gpu::weather::WeatherLook;
use crate::samples::{SampleOffset, SampleSchedule, Sampling};
use crate::scene::{FogResolution, Scene};
use std::time::Instant;

mod frames_back;
mod picture_passes;
mod sample_passes;
pub(crate) mod staged_writes;
#[cfg(test)]
mod test_hooks;

use picture_passes::{PictureChoices, PicturePasses, build_picture_passes};
use sample_passes::{MomentPasses, SamplePasses, build_weather_passes, frame_encoder};
use staged_writes::{BufferWrites, StagedWrites};

/// What every frame of a renderer shares: its size and view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderConfig {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Which picture to make.
    pub view: View,
    /// How the fog sheets are put over the scene: the raster `fog` pass or the `fog_compute`
    /// pass (the same picture, within half-float rounding); `Auto` picks by adapter.
    pub compositor: Compositor,
    /// Which pictures come back besides the 8-bit sRGB frame (default: none).
    pub readback: Readback,
}

/// Renders frames of one scene at one size and view.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    errors: Arc<ErrorSink>,
    config: RenderConfig,
    statics: FrameStatics,
    /// What the weather blends between; `None` for a scene without weather.
    weather: Option<WeatherLook>,
    pub(super) frame: FrameBinding,
    /// The flicker, the noise lattice, the fog's shadow and the lamps' shadow maps, worked
    /// out once a moment.
    pub(super) moment: MomentPasses,
    maps: FluidMaps,
    targets: Targets,
    scene: ScenePass,
    /// The walkers' capsules, meshed each frame and drawn in the scene pass; `None` for a
    /// scene without walkers.
    capsules: Option<CapsuleMesh>,
    fog: FogPass,
    /// Recorded instead of `fog` when the compositor is `Compute` (or `Raymarch`: then it is
    /// the `raymarch` pass).
    fog_compute: Option<FogComputePass>,
    /// The later edge samples' fog where `fog_compute` marches a half-size fog.
    edge_fog: Option<FogComputePass>,
    /// The compositor that runs (`Auto` resolved).
    compositor: Compositor,
    /// The fog's resolution as drawn: `Half` where a `FogHalf` runs, else `Full`.
    fog_resolution: FogResolution,
    flame: FlamePass,
    /// The lightning bolt, for scenes with weather.
    bolt: Option<BoltPass>,
    /// The rain, for scenes with weather.
    rain: Option<RainPass>,
    /// The hall mirrored in the wet floor, for scenes with weather.
    reflection: Option<ReflectionPass>,
    overlay: OverlayPass,
    /// Where each of a frame's samples falls: one sample, the pixel's centre, unless the
    /// scene asks for more (`output.samples`).
    samples: SampleSchedule,
    /// Sums a frame's samples and resolves their mean; `None` for a single sample.
    accumulate: Option<AccumulatePass>,
    /// The later edge samples in one go, on the sheet compositors (`passes/edge_batch.rs`).
    edge_batch: Option<EdgeBatch>,
    /// Marks the pixels at an edge after the first sample, for `--edge-samples`.
    edges: Option<EdgesPass>,
    encode: EncodePass,
    /// The fog layer, with `readback.fog_layer_f16`.
    fog_layer: Option<FogLayer>,
    /// The weather layer, with `readback.weather_layer_f16` for scenes with weather.
    weather_layer: Option<WeatherLayer>,
    readback: ReadbackRing,
    /// Each later sample's staged uniforms (`staged_writes.rs`), by sample.
    sample_uploads: Vec<Option<wgpu::Buffer>>,
    // ── Timing (`timing.rs`): pass timestamps where the adapter has them, CPU times always.
    timer: Option<PassTimer>,
    times: GpuTimes,
}

impl Renderer {
    /// Builds the static geometry, pipelines, maps and targets for `scene` at `config`.
    pub fn new(
        ctx: &GpuContext,
        scene: &Scene,
        config: &RenderConfig,
    ) -> Result<Renderer, GpuError> {
        check_frame_size(config.width, config.height, &ctx.limits)?;
        let weather_layer = config.readback.weather_layer_f16 && scene.weather.is_some();
        if config.readback.linear_f16 || config.readback.fog_layer_f16 || weather_layer {
            check_staging_size(
                config.width,
                config.height,
                Texels::Rgba16Float,
                &ctx.limits,
            )?;
        }
        let grid = scene.fluid.grid;
        let max = ctx.limits.max_texture_dimension_2d;
        if grid == 0 || grid > max {
            return Err(GpuError::GridSize { grid, max });
        }

        let size_px = (config.width, config.height);
        // The layers are single-sample pictures: a render that asks for them draws one sample
        // (`RequestError::LayersWithSamples` refuses the two together before it gets here).
        let layers = config.readback.fog_layer_f16 || weather_layer;
        let sampling = match layers {
            true => Sampling::Every(1),
            false => scene.output.sampling(),
        };
        let samples = sampling.schedule();
        let gathering = match sampling {
            _ if samples.len() == 1 => Gathering::Single,
            Sampling::Edges(_) => Gathering::Edges,
            Sampling::Every(_) => Gathering::Every,
        };
        let device_type = ctx.adapter_info.device_type;
        let compositor = config.compositor.resolve(device_type);
        let device = ctx.device.clone();
        let errors = ctx.errors();
        let fire_lights = FireLights::new(scene);
        let distance_fog = DistanceFogParams::new(&scene.distance_fog);
        let fog_knobs = FogKnobs::new(scene, config.view);
        let layout = LatticeLayout::new(&fog_knobs, &scene.fog);
        let lattice = (&distance_fog, &layout, device_type);
        let (lamps, frame, maps, targets) = scoped(&device, &errors, "renderer setup", || {
            let lamps = LampResources::new(&device, &LampLights::new(scene));
            let targets = Targets::new(&device, size_px, compositor.is_per_pixel(), gathering);
            let shared = (&lamps, &targets.edge_mask_view);
            let fog_shadow = fog_shadow::shadows_itself(scene);
            let frame = FrameBinding::new(&device, &fire_lights, lattice, shared, fog_shadow);
            (lamps, frame, FluidMaps::new(&device, grid), targets)
        })?;
        let fire_flicker = FireFlickerPass::new(&device, &errors, &frame)?;
        let fog_lattice = FogLatticePass::new(&device, &errors, &frame, (fog_knobs, layout))?;
        let shadow = ShadowPass::new(&device, &errors, &frame, &lamps, scene)?;
        // `output.fog_resolution: Half` (or `Auto` on a CPU adapter), for the sheets'
        // compositor that runs, without --layers.
        let cpu_adapter = device_type == wgpu::DeviceType::Cpu;
        let resolution = scene.output.fog_resolution.for_adapter(cpu_adapter);
        let fog_resolution =
            fog_half::resolution_drawn(resolution, compositor, config.readback.fog_layer_f16);
        // What every pass below is built from.
        let view = config.view;
        let errors_ref = &*errors;
        let batched = edge_batch::batches(compositor, scene, (layers, view));
        // A scene with weather: the batch lays the wet floor's mirror over its floor hits.
        let mirrored = scene.weather.is_some();
        let edge_batch =
            EdgeBatch::for_targets(&device, &errors, (&targets, &samples), (batched, mirrored))?;
        let passes = PassContext {
            device: &device,
            errors: errors_ref,
            frame: &frame,
            maps: &maps,
            targets: &targets,
            scene,
            view,
            edge_batch: edge_batch.as_ref(),
        };
        let moment = MomentPasses {
            fire_flicker,
            fog_lattice,
            fog_shadow: FogShadowPass::new(&passes)?,
            shadow,
        };
        // The flames' pipelines compile on a thread of their own meanwhile.
        let choices = PictureChoices {
            compositor,
            gathering,
            resolution,
            readback: config.readback,
        };
        let (picture, flame) = build_picture_passes(&passes, choices, fire_lights.count())?;
        let PicturePasses {
            scene: scene_pass,
            capsules,
            fog,
            fog_layer,
            fog_compute,
            edge_fog,
        } = picture;
        let (bolt, rain, reflection) =
            build_weather_passes(&passes, (&lamps, config), weather_layer)?;
        let overlay = OverlayPass::new(&passes)?;
        let count = samples.len() as u32;
        // The batch averages its samples itself.
        let accumulate = (gathering != Gathering::Single && edge_batch.is_none())
            .then(|| AccumulatePass::new(&passes, (size_px, count)))
            .transpose()?;
        // The raster path sets the depth for the edge samples (their fog is marched at the
        // listed pixels, whatever the picture's fog size). With the batch no later sample draws
        // on the raster path, so no edge depth is drawn.
        let raster_depth = scene_pass.is_raster() && edge_batch.is_none();
        let edges = (targets.edge_list.as_ref())
            .map(|list| EdgesPass::new(&passes, list, size_px, raster_depth))
            .transpose()?;
        let encode = EncodePass::new(&device, &errors, &targets)?;
        let slots = ring_slots(
            (config.width, config.height),
            config.readback,
            weather_layer,
        );
        let readback = ReadbackRing::new(
            &device,
            (config.width, config.height),
            slots,
            config.readback,
            weather_layer,
        )?;
        let weather_layer = scoped(&device, &errors, "renderer setup", || {
            weather_layer.then(|| WeatherLayer::new(&device, config.width, config.height))
        })?;
        let timer = scoped(&device, &errors, "renderer setup", || {
            PassTimer::new(&device, &ctx.queue, slots, frame.cpu_adapter)
        })?;
        // Pipelines and buffers report their errors asynchronously: collect them now.
        errors.take("renderer setup")?;

        Ok(Renderer {
            device,
            queue: ctx.queue.clone(),
            errors,
            config: *config,
            statics: FrameStatics::new(scene),
            weather: WeatherLook::new(scene),
            frame,
            moment,
            maps,
            targets,
            scene: scene_pass,
            capsules,
            fog,
            fog_compute,
            edge_fog,
            compositor,
            fog_resolution,
            flame,
            bolt,
            rain,
            reflection,
            overlay,
            samples,
            accumulate,
            edge_batch,
            edges,
            encode,
            fog_layer,
            weather_layer,
            readback,
            sample_uploads: Vec::new(),
            times: GpuTimes {
                timestamps: timer.is_some(),
                ..GpuTimes::default()
            },
            timer,
        })
    }

    /// What rendering has cost so far: CPU seconds recording and waiting, and GPU seconds per
    /// pass where the adapter has timestamp queries.
    pub fn times(&self) -> GpuTimes {
        let mut times = self.times.clone();
        times.readback_wait_s = self.readback.wait_s;
        times.readback_copy_s = self.readback.copy_s;
        times.frame_buffers = self.readback.pool_stats();
        times
    }

    /// The size and view this renderer makes.
    pub fn config(&self) -> &RenderConfig {
        &self.config
    }

    /// The compositor that runs (`Auto` resolved for this adapter).
    pub fn compositor(&self) -> Compositor {
        self.compositor
    }

    /// The fog's resolution as drawn (`Full` or `Half`: `Auto` resolved for this adapter;
    /// `Full` for the raymarch and with a full-size fog layer).
    pub fn fog_resolution(&self) -> FogResolution {
        self.fog_resolution
    }

    /// Frames submitted and not yet returned.
    pub fn frames_in_flight(&self) -> usize {
        self.readback.in_flight()
    }

    /// Renders `inputs` and starts reading the frame back. When the ring of frames in flight is
    /// full, first waits for the oldest and returns it; otherwise returns `None`. Frames come
    /// back in submission order; [`Renderer::finish`] returns the rest.
    pub fn submit(&mut self, inputs: &FrameInputs<'_>) -> Result<Option<Frame>, GpuError> {
        self.maps.check(inputs)?;
        let finished = if self.readback.is_full() {
            self.wait_oldest()?
        } else {
            None
        };
        let started = Instant::now();
        let mut submitting = started;

        let size_px = (self.config.width, self.config.height);
        let Renderer {
            device,
            queue,
            errors,
            statics,
            weather: weather_look,
            frame,
            moment,
            maps,
            targets,
            scene,
            capsules,
            fog,
            fog_compute,
            edge_fog,
            flame,
            bolt,
            rain,
            reflection,
            overlay,
            samples,
            accumulate,
            edge_batch,
            edges,
            encode,
            fog_layer,
            weather_layer,
            readback,
            sample_uploads,
            timer,
            compositor,
            config,
            ..
        } = self;

        scoped(device, errors, "frame rendering", || {
            // With a shutter every sample sees its own moment; without one they share the
            // frame's maps, people, weather, flicker, noise lattice and shadows, set up once.
            let moving = !inputs.motion.is_empty();
            // The later edge samples drawn in one go, where built (never with a shutter).
            let batch = edge_batch.as_ref();
            let mut passes = SamplePasses {
                edges: edges.as_ref(),
                scene,
                capsules: capsules.as_mut(),
                reflection: reflection.as_mut(),
                compositor: *compositor,
                fog,
                fog_compute: fog_compute.as_ref(),
                edge_fog: edge_fog.as_ref(),
                fog_layer: fog_layer.as_ref(),
                flame,
                bolt: bolt.as_mut(),
                rain: rain.as_mut(),
                weather_layer: weather_layer.as_ref(),
                overlay,
                batch,
            };
            // Queues sample `k`'s uniforms and knobs, and records its passes into `encoder`.
            // With `upload`, the writes that change from sample to sample are staged and
            // copied into place in the encoder, so one submission holds every sample.
            let mut record =
                |k: usize,
                 inputs: &FrameInputs<'_>,
                 timer: &mut Option<PassTimer>,
                 encoder: &mut wgpu::CommandEncoder,
                 upload: Option<&mut Option<wgpu::Buffer>>| {
                    let own_moment = k == 0 || moving;
                    let staged = upload.is_some().then(StagedWrites::default);
                    let writes = staged.as_ref().map_or(queue as &dyn BufferWrites, |s| s);
                    let (mut uniforms, fog_now) =
                        passes.uniforms((statics, weather_look.as_ref()), inputs, size_px, k);
                    moment.fill_uniforms(&mut uniforms, inputs);
                    if let (true, Some(fog)) = (own_moment, &fog_now) {
                        frame.write_distance_fog(queue, fog);
                    }
                    frame.write(writes, &uniforms);
                    if own_moment {
                        maps.write(queue, inputs);
                        if let Some(capsules) = passes.capsules.as_deref_mut() {
                            capsules.upload(queue, inputs.capsules);
                        }
                        moment.prepare(queue, inputs);
                    }
                    passes.prepare(writes, (inputs, k), (&uniforms, fog_now.as_ref()), config);
                    if let (Some(staged), Some(upload)) = (staged, upload) {
                        staged.record_copies((device, queue), encoder, upload);
                    }
                    if k == 0 {
                        mark(timer, encoder, "start");
                    }
                    if own_moment {
                        // The flicker, the noise lattice and the shadows depend on the moment
                        // alone: without a shutter every sample reads the first's.
                        let capsules = passes.capsules.as_deref();
                        moment.record(device, encoder, capsules, timer);
                    }
                    passes.record(
                        encoder,
                        (targets, frame),
                        (passes.edges_only(k), own_moment),
                        timer,
                    );
                    if let (None, Some(accumulate)) = (batch, accumulate.as_ref()) {
                        accumulate.record_sample(encoder, k as u32);
                        mark(timer, encoder, "accumulate");
                    }
                    if k == 0 {
                        passes.record_edge_mask(encoder, (targets, frame), timer);
                    }
                };
            // Without a shutter every sample goes into one submission, the later samples'
            // uniforms staged and copied into place (`staged_writes.rs`). With one, each sample
            // is a submission of its own, so its maps reach the GPU after the previous
            // sample's passes (`Queue::write_buffer`). The first sample's passes are timed one
            // by one, the later ones together (the mark `samples`).
            let offsets = samples.offsets();
            // Sample `k`'s inputs: the frame's, or with a shutter those of its own moment.
            let sample_inputs = |k: usize, sample: SampleOffset| match inputs.motion.get(k) {
                Some(moment) => moment.inputs(inputs, sample),
                None => FrameInputs { sample, ..*inputs },
            };
            sample_uploads.resize(offsets.len(), None);
            let new_encoder = || frame_encoder(device);
            let mut encoder = new_encoder();
            let drawn = if batch.is_some() { 1 } else { offsets.len() };
            let each = offsets.iter().zip(sample_uploads.iter_mut()).take(drawn);
            for (k, (&sample, upload)) in each.enumerate() {
                if k > 0 && moving {
                    let done = std::mem::replace(&mut encoder, new_encoder());
                    queue.submit([done.finish()]);
                }
                let mut untimed = None;
                let sample_timer = if k == 0 { &mut *timer } else { &mut untimed };
                let (at, staged) = (
                    sample_inputs(k, sample),
                    (k > 0 && !moving).then_some(upload),
                );
                record(k, &at, sample_timer, &mut encoder, staged);
            }
            if batch.is_some() {
                passes.record_batch(&mut encoder, (targets, frame), timer);
            } else if let Some(accumulate) = accumulate.as_ref() {
                accumulate.record_resolve(&mut encoder);
                // Every sample after the first, and the mean of them all.
                mark(timer, &mut encoder, "samples");
            }
            encode.record(&mut encoder, targets);
            mark(timer, &mut encoder, "encode");
            let sources = ReadbackSources {
                srgb8: &targets.output,
                linear_f16: targets.color_linear_view.texture(),
                fog_f16: fog_layer.as_ref().map(|layer| &layer.texture),
                weather_f16: weather_layer.as_ref().map(|layer| &layer.texture),
            };
            let slot = readback.record_copy(&mut encoder, &sources);
            mark(timer, &mut encoder, "readback");
            if let Some(timer) = timer.as_mut() {
                timer.resolve(&mut encoder);
            }
            let command_buffer = encoder.finish();
            submitting = Instant::now();
            let submission = queue.submit([command_buffer]);
            if let Some(timer) = timer.as_mut() {
                timer.start_map();
            }
            readback.start_map(slot, inputs.frame_index, submission)
        })??;
        // Let finished work and map callbacks progress without blocking.
        device
            .poll(wgpu::PollType::Poll)
            .map_err(|error| GpuError::Poll {
                message: error.to_string(),
            })?;
        self.times.record_s += (submitting - started).as_secs_f64();
        self.times.submit_s += submitting.elapsed().as_secs_f64();
        Ok(finished)
    }
}
