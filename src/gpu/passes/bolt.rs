//! The `bolt` pass: the lightning bolt of the latest strike while it lives
//! (shaders/bolt.wgsl), added to the picture after the `flame` pass.
//!
//! The arc is worked out on the CPU each frame by [`crate::weather::bolt::bolt_at`] from the
//! frame's absolute time, so the same moment shows the same arc at any frame rate; its points
//! and colours are this pass's uniform. Each of the arc's 32 segments is a six-vertex quad.
//! Blending is additive (the bolt is light) and the quads are depth tested against the scene
//! without writing depth: by the depth target, or, where the compute `scene` pass leaves its
//! depths in a float picture and no depth target ([`scene_compute::reads_hit_depths`]), by the
//! shader against those depths (`BOLT_READS_SCENE_DEPTH`, the same test, as the flames do). The
//! `reflection` pass records the bolt into its mirrored targets, which have a depth target of
//! their own, through a third pipeline that always tests it (`bolt.mirrored`). Built only for
//! scenes with weather; frames without a live bolt record nothing.
//!
//! With `--layers` the same shader draws the bolt a second time, alone, into the weather
//! layer (`weather_layer.rs`) through a second pipeline, `weather_layer.bolt`, that blends
//! premultiplied "over" instead of adding, so the layer's alpha is the bolt's coverage.

use bytemuck::{Pod, Zeroable};

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::common::FrameBinding;
use crate::gpu::passes::builder::{
    DepthTest, PREMULTIPLIED_OVER, PassBuilder, PassContext, RasterPipeline, SamplePass,
    SampleRecording, begin_over_read_only_depth,
};
use crate::gpu::passes::flame::{ADDITIVE, MIRRORED};
use crate::gpu::passes::{scene_compute, weather_layer};
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets};
use crate::weather::bolt::{BOLT_POINTS, bolt_at};

/// The core's colour at full brightness (linear, above 1: white-hot); the brightest thing
/// the weather draws.
pub(crate) const CORE_LINEAR: [f32; 3] = [6.0, 6.0, 7.5];
/// The edge's colour at full brightness (linear): blue.
const EDGE_LINEAR: [f32; 3] = [0.9, 1.1, 2.4];
/// Width of the bolt at a picture height of 720 pixels (scaled with the height).
const WIDTH_PX_AT_720: f32 = 7.0;
/// Share of the distance fog's amount that dims the bolt.
const FOG_SHARE: f32 = 0.75;

/// The bolt's uniforms.
///
/// keep in sync with shaders/bolt.wgsl: BoltUniforms
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct BoltUniforms {
    /// xyz: the arc's points, cloud end first (world); w: unused.
    pub points: [[f32; 4]; BOLT_POINTS],
    /// rgb: core colour × brightness (linear); w: width in pixels.
    pub core: [f32; 4],
    /// rgb: edge colour × brightness (linear); w: share of the distance fog that dims it.
    pub edge: [f32; 4],
    /// xy: picture size in pixels; z: brightness, 0..=1 (the weather layer's alpha fades
    /// with it); w: unused.
    pub viewport: [f32; 4],
}

impl BoltUniforms {
    /// The bolt alive in `inputs`, for a `width` × `height` picture; `None` when there is none.
    pub(crate) fn for_frame(
        seed: u64,
        inputs: &FrameInputs<'_>,
        width: u32,
        height: u32,
    ) -> Option<Self> {
        let (strike, strike_time_s) = inputs.weather?.last_strike?;
        let bolt = bolt_at(seed, strike, strike_time_s, f64::from(inputs.time_s))?;
        let mut points = [[0.0; 4]; BOLT_POINTS];
        for (out, p) in points.iter_mut().zip(bolt.points) {
            *out = [p[0], p[1], p[2], 0.0];
        }
        let [cr, cg, cb] = CORE_LINEAR.map(|c| c * bolt.brightness);
        let [er, eg, eb] = EDGE_LINEAR.map(|c| c * bolt.brightness);
        Some(BoltUniforms {
            points,
            core: [cr, cg, cb, WIDTH_PX_AT_720 * height as f32 / 720.0],
            edge: [er, eg, eb, FOG_SHARE],
            viewport: [width as f32, height as f32, bolt.brightness, 0.0],
        })
    }
}

/// The `bolt` pass's pipeline and uniform.
pub(crate) struct BoltPass {
    pipeline: wgpu::RenderPipeline,
    /// Whether `pipeline` and `layer_pipeline` test the scene's hit depths in the shader (no
    /// depth attachment then).
    reads_scene_depth: bool,
    /// With `reads_scene_depth`: the bolt tested against a depth target, for the `reflection`
    /// pass's mirrored targets (otherwise `pipeline` serves).
    mirrored_pipeline: Option<wgpu::RenderPipeline>,
    /// The same shader blended premultiplied "over", for the weather layer (`--layers`).
    layer_pipeline: Option<wgpu::RenderPipeline>,
    /// Where the later edge samples are drawn in one go: the bolt drawn once over the samples'
    /// mean (`fs_bolt_over_samples`), and its group 2.
    over_samples: Option<(wgpu::RenderPipeline, wgpu::BindGroup)>,
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    seed: u64,
    /// Whether this frame has a live bolt (set by [`BoltPass::prepare`]).
    live: bool,
}

impl BoltPass {
    /// The pass for lightning seeded by `seed` over `targets` in `view`; with `layer`, also the
    /// pipeline that draws the bolt into the weather layer.
    pub(crate) fn new(ctx: &PassContext<'_>, seed: u64, layer: bool) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            targets,
            view,
            ..
        } = *ctx;
        let name = ShaderName::Bolt.name();
        let reads_scene_depth = scene_compute::reads_hit_depths(targets, view);
        let reads = [(
            "BOLT_READS_SCENE_DEPTH",
            f64::from(u8::from(reads_scene_depth)),
        )];
        let module = ShaderName::Bolt.create_module(device, errors, &reads)?;
        let build = PassBuilder::new(device, name);
        let buffer = build.uniform_buffer::<BoltUniforms>("uniforms");
        // Binding 1: the scene's depth, read only with `BOLT_READS_SCENE_DEPTH`.
        let (layout, bind_group) = build.uniforms_and_scene_depth(&buffer, targets);
        let groups = [&frame.layout, &layout];
        let raster = |part, blend, reads_scene_depth: bool| RasterPipeline {
            part,
            module: &module,
            vertex_entry: "vs_bolt",
            fragment_entry: "fs_bolt",
            buffers: &[],
            bind_group_layouts: &groups,
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            depth: (!reads_scene_depth).then_some(DepthTest::OVER),
            format: COLOR_FORMAT,
            blend: Some(blend),
        };
        let pipeline = build.raster_pipeline(&raster(None, ADDITIVE, reads_scene_depth));
        // Labelled `weather_layer.bolt`: the pass it is drawn in.
        let layer_pipeline = layer.then(|| {
            PassBuilder::new(device, weather_layer::NAME).raster_pipeline(&raster(
                Some(name),
                PREMULTIPLIED_OVER,
                reads_scene_depth,
            ))
        });
        let mirrored_pipeline = if reads_scene_depth {
            let tested = [("BOLT_READS_SCENE_DEPTH", 0.0)];
            let module = ShaderName::Bolt.create_module(device, errors, &tested)?;
            let mirrored = RasterPipeline {
                module: &module,
                ..raster(Some(MIRRORED), ADDITIVE, false)
            };
            Some(build.raster_pipeline(&mirrored))
        } else {
            None
        };
        // Tested against each sample's depth in the shader: no depth attachment.
        let over_samples = match ctx.edge_batch {
            Some(batch) => {
                let (over_layout, group) = batch.over_samples_group(&build);
                let widened = [("BOLT_OVER_SAMPLES", 1.0)];
                let module = ShaderName::Bolt.create_module(device, errors, &widened)?;
                let groups = [&frame.layout, &layout, &over_layout];
                let pipeline = build.raster_pipeline(&RasterPipeline {
                    module: &module,
                    fragment_entry: "fs_bolt_over_samples",
                    bind_group_layouts: &groups,
                    depth: None,
                    ..raster(Some("over_samples"), ADDITIVE, true)
                });
                Some((pipeline, group))
            }
            None => None,
        };
        Ok(BoltPass {
            pipeline,
            reads_scene_depth,
            mirrored_pipeline,
            layer_pipeline,
            over_samples,
            buffer,
            bind_group,
            seed,
            live: false,
        })
    }

    /// Queues this frame's bolt, if one is alive.
    pub(crate) fn prepare(
        &mut self,
        queue: &dyn BufferWrites,
        inputs: &FrameInputs<'_>,
        width: u32,
        height: u32,
    ) {
        let uniforms = BoltUniforms::for_frame(self.seed, inputs, width, height);
        self.live = uniforms.is_some();
        if let Some(uniforms) = uniforms {
            queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(&uniforms));
        }
    }

    /// Records the pass over the picture; nothing when no bolt is alive.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        if !self.live {
            return;
        }
        let depth = (!self.reads_scene_depth).then_some(&targets.depth_view);
        let mut pass = begin_over_read_only_depth(
            encoder,
            ShaderName::Bolt.name(),
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            depth,
        );
        self.draw(&mut pass, &self.pipeline, frame);
    }

    /// Records the pass into the `reflection` pass's mirrored `targets`, tested against their
    /// depth target; nothing when no bolt is alive.
    pub(crate) fn record_mirrored(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        if !self.live {
            return;
        }
        let mut pass = begin_over_read_only_depth(
            encoder,
            ShaderName::Bolt.name(),
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            Some(&targets.depth_view),
        );
        let pipeline = self.mirrored_pipeline.as_ref().unwrap_or(&self.pipeline);
        self.draw(&mut pass, pipeline, frame);
    }

    /// Records the bolt once over the picture, which holds the mean of the frame's samples
    /// (`passes/edge_batch.rs`); nothing without the batch or a live bolt.
    pub(crate) fn record_over_samples(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        let (true, Some((pipeline, group))) = (self.live, &self.over_samples) else {
            return;
        };
        let mut pass = begin_over_read_only_depth(
            encoder,
            "bolt.over_samples",
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            None,
        );
        pass.set_bind_group(2, group, &[]);
        self.draw(&mut pass, pipeline, frame);
    }

    /// Whether the bolt tests the scene's hit depths in its shader: the passes it is drawn in
    /// (its own, the weather layer's) then have no depth attachment.
    pub(crate) fn reads_scene_depth(&self) -> bool {
        self.reads_scene_depth
    }

    /// Draws the bolt into the weather layer's render pass (its colour the layer, its depth
    /// the scene's); nothing when no bolt is alive or the pass was built without the layer.
    pub(crate) fn draw_layer(&self, pass: &mut wgpu::RenderPass<'_>, frame: &FrameBinding) {
        if let (true, Some(pipeline)) = (self.live, &self.layer_pipeline) {
            self.draw(pass, pipeline, frame);
        }
    }

    /// The arc's quads with `pipeline`.
    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pipeline: &wgpu::RenderPipeline,
        frame: &FrameBinding,
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.draw(0..(BOLT_POINTS as u32 - 1) * 6, 0..1);
    }
}

impl SamplePass for BoltPass {
    fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, sample: &SampleRecording<'_>) {
        self.record(encoder, sample.targets, sample.frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bolt_uniforms_match_wgsl_size() {
        // 33 vec4 points and three vec4.
        assert_eq!(std::mem::size_of::<BoltUniforms>(), 33 * 16 + 3 * 16);
    }
}
