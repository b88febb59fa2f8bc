//! The `rain` pass: the drops of the rain round the camera as streaks (shaders/rain.wgsl),
//! laid over the picture after the `bolt` pass.
//!
//! The drops have no buffers: the vertex shader computes drop `vertex / 6` from its index and
//! the frame's absolute time (the CPU twin is [`crate::weather::rain`]). This pass's uniform
//! holds what the drops need besides the frame's: the capitals that shelter them, how many are
//! drawn (`floor(rain · 2400)`), the wind's drift and velocity, the rain's colour and the
//! streak width. Premultiplied "over" blending, depth tested against the scene without writing
//! depth: by the depth target, or, where the compute `scene` pass leaves its depths in a float
//! picture and no depth target ([`scene_compute::reads_hit_depths`]), by the shader against
//! those depths (`RAIN_READS_SCENE_DEPTH`, the same test). Built only for scenes with weather; frames without rain record nothing. With
//! `--layers` the same pipeline draws the drops again, alone, into the weather layer
//! (`weather_layer.rs`): its blend is already premultiplied "over".

use bytemuck::{Pod, Zeroable};

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::common::{FrameBinding, srgb_to_linear};
use crate::gpu::passes::builder::{
    DepthTest, PREMULTIPLIED_OVER, PassBuilder, PassContext, RasterPipeline, SamplePass,
    SampleRecording, begin_over_read_only_depth,
};
use crate::gpu::passes::scene_compute;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets};
use crate::weather::debris::debris_drawn;
use crate::weather::rain::{RAIN_DROPS, RAIN_MAX_ROOFS, roofs};

/// The rain's colour (sRGB), as the example draws it.
const RAIN_SRGB: [f32; 3] = [0.5, 0.55, 0.62];
/// How opaque a streak is at its middle, 0..=1.
const STREAK_OPACITY: f32 = 0.45;
/// Width of a streak at a picture height of 720 pixels (scaled with the height, at least 1).
const WIDTH_PX_AT_720: f32 = 1.6;

/// The rain's uniforms.
///
/// keep in sync with shaders/rain.wgsl: RainUniforms
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct RainUniforms {
    /// xy: centre (x, z) of a roof; z: half its side; w: height of its underside.
    pub roofs: [[f32; 4]; RAIN_MAX_ROOFS],
    /// x: drops drawn; y: roofs; z: time (s); w: opacity of a streak.
    pub counts: [f32; 4],
    /// xy: the wind's accumulated drift (x, z); zw: its velocity (x, z).
    pub wind: [f32; 4],
    /// rgb: the rain's colour (linear); w: width of a streak in pixels.
    pub color: [f32; 4],
    /// xy: picture size in pixels; z: debris pieces drawn; w: unused.
    pub viewport: [f32; 4],
}

/// Drops drawn at `rain` (0..=1). keep in sync with src/weather/rain.rs: drop_at
pub(crate) fn drops_drawn(rain: f32) -> u32 {
    (rain.clamp(0.0, 1.0) * RAIN_DROPS as f32).floor() as u32
}

/// The `rain` pass's pipeline and uniform.
pub(crate) struct RainPass {
    pipeline: wgpu::RenderPipeline,
    /// Whether `pipeline` tests the scene's hit depths in the shader (no depth attachment
    /// then).
    reads_scene_depth: bool,
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// The parts of the uniform that never change: the roofs, colour and sizes.
    statics: Box<RainUniforms>,
    /// Drops to draw this frame (set by [`RainPass::prepare`]).
    drawn: u32,
    /// Debris pieces to draw this frame (`weather/debris.rs`).
    debris: u32,
    /// Where the later edge samples are drawn in one go: the drops drawn once over the
    /// samples' mean (`fs_rain_over_samples`), and their group 2.
    over_samples: Option<(wgpu::RenderPipeline, wgpu::BindGroup)>,
}

impl RainPass {
    /// The pass for `scene` in `view` over `targets` (the picture's size is theirs).
    pub(crate) fn new(ctx: &PassContext<'_>) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            targets,
            scene,
            view,
            edge_batch,
            ..
        } = *ctx;
        let (width, height) = (targets.output.width(), targets.output.height());
        let name = ShaderName::Rain.name();
        let reads_scene_depth = scene_compute::reads_hit_depths(targets, view);
        let reads = [(
            "RAIN_READS_SCENE_DEPTH",
            f64::from(u8::from(reads_scene_depth)),
        )];
        let module = ShaderName::Rain.create_module(device, errors, &reads)?;
        let build = PassBuilder::new(device, name);
        let buffer = build.uniform_buffer::<RainUniforms>("uniforms");
        // Binding 1: the scene's depth, read only with `RAIN_READS_SCENE_DEPTH`.
        let (layout, bind_group) = build.uniforms_and_scene_depth(&buffer, targets);
        let pipeline = build.raster_pipeline(&RasterPipeline {
            part: None,
            module: &module,
            vertex_entry: "vs_rain",
            fragment_entry: "fs_rain",
            buffers: &[],
            bind_group_layouts: &[&frame.layout, &layout],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            depth: (!reads_scene_depth).then_some(DepthTest::OVER),
            format: COLOR_FORMAT,
            blend: Some(PREMULTIPLIED_OVER),
        });
        // Tested against each sample's depth in the shader: no depth attachment.
        let over_samples = match edge_batch {
            Some(batch) => {
                let (over_layout, group) = batch.over_samples_group(&build);
                let widened = [("RAIN_OVER_SAMPLES", 1.0)];
                let module = ShaderName::Rain.create_module(device, errors, &widened)?;
                let pipeline = build.raster_pipeline(&RasterPipeline {
                    part: Some("over_samples"),
                    module: &module,
                    vertex_entry: "vs_rain",
                    fragment_entry: "fs_rain_over_samples",
                    buffers: &[],
                    bind_group_layouts: &[&frame.layout, &layout, &over_layout],
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: None,
                    depth: None,
                    format: COLOR_FORMAT,
                    blend: Some(PREMULTIPLIED_OVER),
                });
                Some((pipeline, group))
            }
            None => None,
        };
        let mut statics = Box::new(RainUniforms::zeroed());
        let roofs = roofs(&scene.hall);
        for (out, roof) in statics.roofs.iter_mut().zip(&roofs) {
            *out = [
                roof.center_world[0],
                roof.center_world[1],
                roof.half_world,
                roof.under_world,
            ];
        }
        statics.counts = [0.0, roofs.len() as f32, 0.0, STREAK_OPACITY];
        let [r, g, b] = srgb_to_linear(RAIN_SRGB);
        statics.color = [r, g, b, (WIDTH_PX_AT_720 * height as f32 / 720.0).max(1.0)];
        statics.viewport = [width as f32, height as f32, 0.0, 0.0];
        Ok(RainPass {
            pipeline,
            reads_scene_depth,
            buffer,
            bind_group,
            statics,
            drawn: 0,
            debris: 0,
            over_samples,
        })
    }

    /// Queues this frame's rain, if it rains.
    pub(crate) fn prepare(&mut self, queue: &dyn BufferWrites, inputs: &FrameInputs<'_>) {
        self.drawn = inputs.weather.map_or(0, |w| drops_drawn(w.rain));
        self.debris = inputs.weather.map_or(0, |w| {
            let [x, z] = w.wind_world_per_s;
            debris_drawn((x * x + z * z).sqrt())
        });
        let Some(weather) = inputs.weather else {
            return;
        };
        if self.drawn == 0 && self.debris == 0 {
            return;
        }
        let mut uniforms = *self.statics;
        uniforms.counts[0] = self.drawn as f32;
        uniforms.counts[2] = inputs.time_s;
        let [dx, dz] = weather.drift_world;
        let [vx, vz] = weather.wind_world_per_s;
        uniforms.wind = [dx, dz, vx, vz];
        uniforms.viewport[2] = self.debris as f32;
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(&uniforms));
    }

    /// Records the pass over the picture; nothing when it does not rain.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        if self.drawn == 0 && self.debris == 0 {
            return;
        }
        let depth = (!self.reads_scene_depth).then_some(&targets.depth_view);
        let mut pass = begin_over_read_only_depth(
            encoder,
            ShaderName::Rain.name(),
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            depth,
        );
        self.draw(&mut pass, frame);
    }

    /// Records the drops once over the picture, which holds the mean of the frame's samples
    /// (`passes/edge_batch.rs`); nothing without the batch or when it does not rain.
    pub(crate) fn record_over_samples(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        let Some((pipeline, group)) = &self.over_samples else {
            return;
        };
        if self.drawn == 0 && self.debris == 0 {
            return;
        }
        let mut pass = begin_over_read_only_depth(
            encoder,
            "rain.over_samples",
            &targets.color_linear_view,
            wgpu::LoadOp::Load,
            None,
        );
        pass.set_bind_group(2, group, &[]);
        self.draw_with(&mut pass, pipeline, frame);
    }

    /// Draws the drops, splashes and debris into a render pass whose colour target is
    /// [`COLOR_FORMAT`] and whose depth is the scene's, read only (the picture's in `record`, or
    /// the weather layer's), or none when the drops read the scene's depth
    /// ([`RainPass::reads_scene_depth`]); nothing when it does not rain.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, frame: &FrameBinding) {
        self.draw_with(pass, &self.pipeline, frame);
    }

    /// [`RainPass::draw`] with `pipeline`.
    fn draw_with(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pipeline: &wgpu::RenderPipeline,
        frame: &FrameBinding,
    ) {
        if self.drawn == 0 && self.debris == 0 {
            return;
        }
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.draw(0..self.drawn * 6, 0..1);
        // The splashes: vertices from RAIN_DROPS · 6 on (shaders/rain.wgsl, `rain_splash`).
        let splashes = RAIN_DROPS * 6;
        pass.draw(splashes..splashes + self.drawn * 6, 0..1);
        // The debris: vertices from 2 · RAIN_DROPS · 6 on (`rain_debris`).
        let debris = 2 * RAIN_DROPS * 6;
        pass.draw(debris..debris + self.debris * 6, 0..1);
    }
}

impl RainPass {
    /// Whether the drops test the scene's hit depths in their shader: the passes they are
    /// drawn in (their own, the weather layer's) then have no depth attachment.
    pub(crate) fn reads_scene_depth(&self) -> bool {
        self.reads_scene_depth
    }
}

impl SamplePass for RainPass {
    fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, sample: &SampleRecording<'_>) {
        self.record(encoder, sample.targets, sample.frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rain_uniforms_match_wgsl_size() {
        assert_eq!(
            std::mem::size_of::<RainUniforms>(),
            (RAIN_MAX_ROOFS + 4) * 16
        );
    }

    #[test]
    fn the_count_follows_the_rain() {
        assert_eq!(drops_drawn(0.0), 0);
        assert_eq!(drops_drawn(0.5), 1200);
        assert_eq!(drops_drawn(1.0), RAIN_DROPS);
        assert_eq!(drops_drawn(2.0), RAIN_DROPS);
    }
}
