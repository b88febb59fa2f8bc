//! The passes of one sample of a frame, prepared and recorded together ([`SamplePasses`]),
//! and what a frame's passes read before them ([`MomentPasses`]): the renderer runs
//! these once a sample.
//!
//! With `output.samples` above 1 the passes from `scene` to `overlay` run once a sample
//! ([`SamplePasses`]), each sample its own submission so the uniforms and knobs written for it
//! reach the GPU between the samples' passes. The `accumulate` pass sums each sample's linear
//! picture; after the last it writes their mean back, and `encode` and the readback go on
//! from there. Sample `k`'s inputs are the frame's with the sample's offset, or with a
//! shutter those of its own moment (`FrameInputs::motion`). Without a shutter the maps, the
//! people, the flicker, the noise lattice and the shadows are set up once, for sample 0.
//! The first sample's passes are timed one by one; the mark `samples` times the rest.

use super::staged_writes::BufferWrites;
use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::capsule_geometry::CapsuleMesh;
use crate::gpu::common::{FrameBinding, FrameStatics, FrameUniforms};
use crate::gpu::distance_fog::DistanceFogParams;
use crate::gpu::lamp_lights::LampResources;
use crate::gpu::passes::bolt::BoltPass;
use crate::gpu::passes::builder::{PassContext, SamplePass, SampleRecording};
use crate::gpu::passes::edge_batch::EdgeBatch;
use crate::gpu::passes::edges::EdgesPass;
use crate::gpu::passes::fire_flicker::FireFlickerPass;
use crate::gpu::passes::flame::FlamePass;
use crate::gpu::passes::fog::FogPass;
use crate::gpu::passes::fog_compute::{Compositor, FogComputePass};
use crate::gpu::passes::fog_lattice::FogLatticePass;
use crate::gpu::passes::fog_layer::FogLayer;
use crate::gpu::passes::fog_shadow::FogShadowPass;
use crate::gpu::passes::overlay::OverlayPass;
use crate::gpu::passes::rain::RainPass;
#[cfg(test)]
use crate::gpu::passes::reflection::FORCE_MIRROR_EACH_SAMPLE;
use crate::gpu::passes::reflection::ReflectionPass;
use crate::gpu::passes::scene::ScenePass;
use crate::gpu::passes::shadow::ShadowPass;
use crate::gpu::passes::weather_layer::WeatherLayer;
use crate::gpu::targets::Targets;
use crate::gpu::timing::{PassTimer, mark};
use crate::gpu::weather::WeatherLook;

use super::RenderConfig;

/// The bolt, the rain and the reflection, each `None` without weather.
pub(super) type WeatherPasses = (Option<BoltPass>, Option<RainPass>, Option<ReflectionPass>);

/// A command encoder for a frame's submission.
pub(super) fn frame_encoder(device: &wgpu::Device) -> wgpu::CommandEncoder {
    let label = Some("frame");
    device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label })
}

/// The bolt, the rain and the reflection: the passes a scene with weather draws in each
/// sample, built only for such a scene (`weather_layer`: the bolt also draws into the weather
/// layer).
pub(super) fn build_weather_passes(
    passes: &PassContext<'_>,
    (lamps, config): (&LampResources, &RenderConfig),
    weather_layer: bool,
) -> Result<WeatherPasses, GpuError> {
    let Some(weather) = &passes.scene.weather else {
        return Ok((None, None, None));
    };
    let seed = weather.lightning.seed;
    let bolt = BoltPass::new(passes, seed, weather_layer)?;
    let rain = RainPass::new(passes)?;
    let size_px = (config.width, config.height);
    let reflection = ReflectionPass::new(passes, lamps, size_px)?;
    Ok((Some(bolt), Some(rain), Some(reflection)))
}

/// What every world pass reads, worked out once a moment (once a frame, or once a sample with
/// a shutter): each `None` where the scene does not need it.
pub(crate) struct MomentPasses {
    /// Each fire's flicker; `None` for a scene without fires.
    pub(crate) fire_flicker: Option<FireFlickerPass>,
    /// The fog's noise lattice; `None` where the fog hashes per sample.
    pub(super) fog_lattice: Option<FogLatticePass>,
    /// The fog's optical depths to its lights; `None` unless the fog shadows itself.
    pub(super) fog_shadow: Option<FogShadowPass>,
    /// The lamps' shadow maps; `None` without a lamp that casts shadows.
    pub(super) shadow: Option<ShadowPass>,
}

impl MomentPasses {
    /// Sets what `uniforms` carry of the moment's passes for `inputs`: where the fog's noise
    /// points lie, and the box its shadow grid spans.
    pub(super) fn fill_uniforms(&self, uniforms: &mut FrameUniforms, inputs: &FrameInputs<'_>) {
        if let Some(fog_lattice) = &self.fog_lattice {
            uniforms.noise_points = fog_lattice.noise_points(inputs);
        }
        if let Some(fog_shadow) = &self.fog_shadow {
            [uniforms.fog_shadow_low, uniforms.fog_shadow_size] = fog_shadow.grid_box(inputs);
        }
    }

    /// Queues what the moment's passes read of `inputs` (applied at the next submit).
    pub(super) fn prepare(&self, queue: &wgpu::Queue, inputs: &FrameInputs<'_>) {
        if let Some(fog_lattice) = &self.fog_lattice {
            fog_lattice.prepare(queue, inputs);
        }
        if let Some(fog_shadow) = &self.fog_shadow {
            fog_shadow.prepare(queue, inputs);
        }
    }

    /// Records the moment's passes and marks the end of each: the `fire_flicker` pass, the
    /// `fog_lattice` pass, the `fog_shadow` pass (after the lattice; it reads the maps and the
    /// frame's lights) and the `shadow` pass with the people's `capsules` among the casters.
    pub(super) fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        capsules: Option<&CapsuleMesh>,
        timer: &mut Option<PassTimer>,
    ) {
        if let Some(fire_flicker) = &self.fire_flicker {
            fire_flicker.record(encoder);
            mark(timer, encoder, "fire_flicker");
        }
        if let Some(fog_lattice) = &self.fog_lattice {
            fog_lattice.record(encoder);
            mark(timer, encoder, "fog_lattice");
        }
        if let Some(fog_shadow) = &self.fog_shadow {
            fog_shadow.record(encoder);
            mark(timer, encoder, "fog_shadow");
        }
        if let Some(shadow) = self.shadow.as_mut() {
            shadow.record(device, encoder, capsules.and_then(CapsuleMesh::as_casters));
            mark(timer, encoder, "shadow");
        }
    }
}

/// The passes every sample of a frame records, in order, borrowed from the `Renderer`.
pub(super) struct SamplePasses<'a> {
    /// The edge mask of `--edge-samples`; `None` for other samplings.
    pub(super) edges: Option<&'a EdgesPass>,
    pub(super) scene: &'a mut ScenePass,
    pub(super) capsules: Option<&'a mut CapsuleMesh>,
    pub(super) reflection: Option<&'a mut ReflectionPass>,
    pub(super) compositor: Compositor,
    pub(super) fog: &'a FogPass,
    pub(super) fog_compute: Option<&'a FogComputePass>,
    /// The later edge samples' fog, where `fog_compute` marches a half-size fog.
    pub(super) edge_fog: Option<&'a FogComputePass>,
    pub(super) fog_layer: Option<&'a FogLayer>,
    pub(super) flame: &'a FlamePass,
    pub(super) bolt: Option<&'a mut BoltPass>,
    pub(super) rain: Option<&'a mut RainPass>,
    pub(super) weather_layer: Option<&'a WeatherLayer>,
    pub(super) overlay: &'a OverlayPass,
    /// The later edge samples drawn in one go (`passes/edge_batch.rs`): sample 0 then leaves
    /// out the bolt and the rain, drawn after it over the mean ([`SamplePasses::record_batch`]).
    pub(super) batch: Option<&'a EdgeBatch>,
}

impl SamplePasses<'_> {
    /// After the first sample of `--edge-samples`: the mask and list of the pixels at an edge,
    /// the fog marched over them once (`passes/edges.rs`) and, for the batch, the mirror over
    /// them; nothing for other samplings.
    pub(super) fn record_edge_mask(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (targets, frame): (&Targets, &FrameBinding),
        timer: &mut Option<PassTimer>,
    ) {
        let Some(edges) = self.edges else { return };
        edges.record_mask(encoder, targets);
        if let Some(edge_fog) = self.edge_fog.or(self.fog_compute) {
            edge_fog.record_edge_fog(encoder, frame);
        }
        // The mirror kept with the fog, for the batch's floor hits.
        if let (Some(_), Some(reflection)) = (self.batch, self.reflection.as_deref()) {
            reflection.record_edge_mirror(encoder, frame);
        }
        mark(timer, encoder, "edges");
    }

    /// Sample `k`'s frame uniforms and, in a scene with weather, its distance fog; the weather
    /// also sets the scene's clear colour to its sky (gpu/weather.rs: gloom, flash, fog).
    pub(super) fn uniforms(
        &mut self,
        (statics, weather_look): (&FrameStatics, Option<&WeatherLook>),
        inputs: &FrameInputs<'_>,
        size_px: (u32, u32),
        k: usize,
    ) -> (FrameUniforms, Option<DistanceFogParams>) {
        let mut uniforms = FrameUniforms::new(statics, inputs, size_px);
        uniforms.sun_dir_world[3] = if self.edges_only(k) { 1.0 } else { 0.0 };
        let (Some(look), Some(weather)) = (weather_look, &inputs.weather) else {
            return (uniforms, None);
        };
        self.scene.set_clear_color(look.sky(weather));
        // w: how wet the ground is (shaders/scene.wgsl, `wet_stone`).
        let [r, g, b] = look.ambient(weather);
        uniforms.ambient_color = [r, g, b, weather.wetness];
        (uniforms, Some(look.distance_fog(weather)))
    }

    /// Whether sample `k` draws the pixels at an edge alone: a later sample of
    /// `--edge-samples`.
    pub(super) fn edges_only(&self, k: usize) -> bool {
        k > 0 && self.edges.is_some()
    }

    /// Whether the raster `fog` pass draws a sample's fog: with no per-pixel pass, or on the
    /// raster path but for the later edge samples, which march the sheets per listed pixel.
    fn raster_fog_draws(&self, edges_only: bool) -> bool {
        match (self.fog_compute, self.compositor) {
            (None, _) => true,
            (Some(_), Compositor::Raster) => !edges_only,
            (Some(_), _) => false,
        }
    }

    /// Queues sample `k`'s knobs for the passes that draw it. The raster `fog` pass's sheet
    /// order and footprint are worked out only for a sample it draws.
    pub(super) fn prepare(
        &mut self,
        queue: &dyn BufferWrites,
        (inputs, k): (&FrameInputs<'_>, usize),
        (uniforms, distance_fog): (&FrameUniforms, Option<&DistanceFogParams>),
        config: &RenderConfig,
    ) {
        self.scene.prepare(queue, inputs, self.capsules.as_deref());
        if self.raster_fog_draws(self.edges_only(k)) {
            self.fog.prepare(queue, inputs);
        }
        if let Some(layer) = self.fog_layer {
            layer.prepare(queue, inputs);
        }
        for per_pixel in self.fog_compute.into_iter().chain(self.edge_fog) {
            per_pixel.prepare(queue, inputs);
        }
        self.flame.prepare(queue, inputs);
        if let Some(bolt) = self.bolt.as_deref_mut() {
            bolt.prepare(queue, inputs, config.width, config.height);
        }
        if let Some(rain) = self.rain.as_deref_mut() {
            rain.prepare(queue, inputs);
        }
        if let Some(reflection) = self.reflection.as_deref_mut() {
            reflection.prepare(queue, uniforms, distance_fog);
        }
    }

    /// Records the sample's passes, from the `scene` pass to the `overlay`, marking the end of
    /// each on `timer`. With `edges_only` (a later sample of `--edge-samples`) the
    /// raster path first sets the depth so that only the pixels at an edge are drawn. Without
    /// `own_moment` (a later sample with no shutter) the compute scene keeps the triangles
    /// the first sample binned.
    pub(super) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (targets, frame): (&Targets, &FrameBinding),
        (edges_only, own_moment): (bool, bool),
        timer: &mut Option<PassTimer>,
    ) {
        let capsules = self.capsules.as_deref();
        let edge_depth = self
            .edges
            .filter(|edges| edges_only && edges.writes_depth());
        if let Some(edges) = edge_depth {
            edges.record_depth(encoder, targets);
            mark(timer, encoder, "edges");
        }
        let depth_set = edge_depth.is_some();
        self.scene
            .record(encoder, (targets, frame), (capsules, depth_set), own_moment);
        mark(timer, encoder, "scene");
        let bolt = self.bolt.as_deref();
        let rain = self.rain.as_deref();
        if let Some(reflection) = self.reflection.as_deref() {
            // A later edge sample sees sample 0's moment: it keeps sample 0's mirrored picture.
            #[cfg(test)]
            let keeps_mirror = edges_only && !FORCE_MIRROR_EACH_SAMPLE.get();
            #[cfg(not(test))]
            let keeps_mirror = edges_only;
            let drawn = (&*self.scene, capsules, self.flame, bolt);
            let drawn = (!keeps_mirror).then_some(drawn);
            reflection.record(encoder, targets, frame, drawn);
            mark(timer, encoder, "reflection");
        }
        let sample = SampleRecording {
            targets,
            frame,
            edges_only,
        };
        // The sheets' kept fog is laid over this sample's scene as gathered at the listed pixels.
        let sheets = !matches!(self.compositor, Compositor::Raymarch { .. });
        if let (true, true, Some(edges), Some(_)) =
            (edges_only, sheets, self.edges, self.fog_compute)
        {
            edges.record_gather(encoder);
        }
        // The fog's slot runs the raster `fog` pass, or the per-pixel `fog_compute` or
        // `raymarch` pass.
        let fog: (&dyn SamplePass, &'static str) = match self.fog_compute {
            Some(per_pixel) if !self.raster_fog_draws(edges_only) => match self.compositor {
                Compositor::Raymarch { .. } => (per_pixel, "raymarch"),
                _ => match self.edge_fog {
                    Some(edge_fog) if edges_only => (edge_fog, "fog_compute"),
                    _ => (per_pixel, "fog_compute"),
                },
            },
            _ => (self.fog, "fog"),
        };
        fog.0.record_sample(encoder, &sample);
        mark(timer, encoder, fog.1);
        if let Some(layer) = self.fog_layer {
            layer.record(encoder, frame);
            mark(timer, encoder, "fog_layer");
        }
        self.flame.record_sample(encoder, &sample);
        mark(timer, encoder, "flame");
        if self.batch.is_none() {
            self.record_weather_over(encoder, &sample, timer);
        }
        if let Some(layer) = self.weather_layer {
            layer.record(encoder, targets, frame, (bolt, rain));
            mark(timer, encoder, "weather_layer");
        }
        self.overlay.record_sample(encoder, &sample);
        mark(timer, encoder, "overlay");
    }

    /// Records the bolt and the rain of `sample` over the picture.
    fn record_weather_over(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        sample: &SampleRecording<'_>,
        timer: &mut Option<PassTimer>,
    ) {
        let bolt = self
            .bolt
            .as_deref()
            .map(|bolt| (bolt as &dyn SamplePass, "bolt"));
        let rain = self
            .rain
            .as_deref()
            .map(|rain| (rain as &dyn SamplePass, "rain"));
        for (pass, name) in bolt.into_iter().chain(rain) {
            pass.record_sample(encoder, sample);
            mark(timer, encoder, name);
        }
    }

    /// With the batch, after sample 0's passes and the edge mask: the later edge samples in
    /// one go, then the bolt and the rain once over the mean, each fragment weighing every
    /// sample (shaders/over_samples.wgsl). Drawing them over each sample would need each
    /// sample's colour, where the batch keeps only their sum. So at a pixel where both an edge
    /// and a streak move from sample to sample, the streak lies over the mean of what is
    /// under it, not over each sample's.
    pub(super) fn record_batch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (targets, frame): (&Targets, &FrameBinding),
        timer: &mut Option<PassTimer>,
    ) {
        let Some(batch) = self.batch else { return };
        let capsules = self.capsules.as_deref();
        batch.record(
            encoder,
            (self.scene, self.flame),
            (targets, frame),
            capsules,
        );
        mark(timer, encoder, "samples");
        if let Some(bolt) = self.bolt.as_deref() {
            bolt.record_over_samples(encoder, targets, frame);
            mark(timer, encoder, "bolt");
        }
        if let Some(rain) = self.rain.as_deref() {
            rain.record_over_samples(encoder, targets, frame);
            mark(timer, encoder, "rain");
        }
    }
}
