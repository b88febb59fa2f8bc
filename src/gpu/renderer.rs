//! The headless renderer: one frame's inputs in, one finished 8-bit sRGB frame out, with
//! several frames in flight so the GPU keeps working while the caller encodes PNGs.
//!
//! Per frame, in order (DESIGN.md, "Rendering"): upload the uniforms and the two fluid maps,
//! then the `scene` pass, the `fog` pass, the `flame` pass (scenes with fires), the `overlay`
//! pass (views that have one), the `encode` pass to sRGB, and a copy into a staging buffer of
//! the [`ReadbackRing`] that is mapped asynchronously.

use std::sync::Arc;

use crate::frame::{Frame, FrameInputs, View};
use crate::gpu::GpuError;
use crate::gpu::common::{FrameBinding, FrameStatics, FrameUniforms};
use crate::gpu::context::{ErrorSink, GpuContext, scoped};
use crate::gpu::distance_fog::DistanceFogParams;
use crate::gpu::encode_pass::EncodePass;
use crate::gpu::fire_lights::FireLights;
use crate::gpu::flame_pass::FlamePass;
use crate::gpu::fog_pass::FogPass;
use crate::gpu::maps::FluidMaps;
use crate::gpu::overlay_pass::OverlayPass;
use crate::gpu::readback::{ReadbackRing, staging_bytes};
use crate::gpu::scene_pass::ScenePass;
use crate::gpu::targets::Targets;
use crate::scene::Scene;

/// Frames that can be in flight at once (the readback ring's size).
pub const FRAMES_IN_FLIGHT: usize = 3;

/// What every frame of a renderer shares: its size and view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderConfig {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Which picture to make.
    pub view: View,
}

/// Checks a `width` × `height` frame fits the device before anything is allocated.
pub fn check_frame_size(width: u32, height: u32, limits: &wgpu::Limits) -> Result<(), GpuError> {
    if width == 0 || height == 0 {
        return Err(GpuError::EmptySize { width, height });
    }
    let max = limits.max_texture_dimension_2d;
    if width > max || height > max {
        return Err(GpuError::SizeTooLarge { width, height, max });
    }
    let bytes = staging_bytes(width, height);
    if bytes > limits.max_buffer_size {
        return Err(GpuError::FrameBufferTooLarge {
            width,
            height,
            bytes,
            max: limits.max_buffer_size,
        });
    }
    Ok(())
}

/// Renders frames of one scene at one size and view.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    errors: Arc<ErrorSink>,
    config: RenderConfig,
    statics: FrameStatics,
    frame: FrameBinding,
    maps: FluidMaps,
    targets: Targets,
    scene: ScenePass,
    fog: FogPass,
    flame: FlamePass,
    overlay: OverlayPass,
    encode: EncodePass,
    readback: ReadbackRing,
}

impl Renderer {
    /// Builds the static geometry, pipelines, maps and targets for `scene` at `config`.
    pub fn new(
        ctx: &GpuContext,
        scene: &Scene,
        config: &RenderConfig,
    ) -> Result<Renderer, GpuError> {
        check_frame_size(config.width, config.height, &ctx.limits)?;
        let grid = scene.fluid.grid;
        let max = ctx.limits.max_texture_dimension_2d;
        if grid == 0 || grid > max {
            return Err(GpuError::GridSize { grid, max });
        }

        let device = ctx.device.clone();
        let errors = ctx.errors();
        let fire_lights = FireLights::new(scene);
        let distance_fog = DistanceFogParams::new(&scene.distance_fog);
        let (frame, maps, targets) = scoped(&device, &errors, "renderer setup", || {
            (
                FrameBinding::new(&device, &fire_lights, &distance_fog),
                FluidMaps::new(&device, grid),
                Targets::new(&device, config.width, config.height),
            )
        })?;
        let scene_pass = ScenePass::new(&device, &errors, &frame, scene)?;
        let fog = FogPass::new(&device, &errors, &frame, &maps, scene, config.view)?;
        let flame = FlamePass::new(&device, &errors, &frame, fire_lights.count())?;
        let overlay = OverlayPass::new(&device, &errors, &frame, &maps, scene, config.view)?;
        let encode = EncodePass::new(&device, &errors, &targets)?;
        let readback = ReadbackRing::new(&device, config.width, config.height, FRAMES_IN_FLIGHT);
        // Pipelines and buffers report their errors asynchronously: collect them now.
        errors.take("renderer setup")?;

        Ok(Renderer {
            device,
            queue: ctx.queue.clone(),
            errors,
            config: *config,
            statics: FrameStatics::new(scene),
            frame,
            maps,
            targets,
            scene: scene_pass,
            fog,
            flame,
            overlay,
            encode,
            readback,
        })
    }

    /// The size and view this renderer makes.
    pub fn config(&self) -> &RenderConfig {
        &self.config
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
            self.readback.wait_oldest(&self.device)?
        } else {
            None
        };

        let aspect = self.config.width as f32 / self.config.height as f32;
        let uniforms = FrameUniforms::new(&self.statics, inputs, aspect);
        let Renderer {
            device,
            queue,
            errors,
            frame,
            maps,
            targets,
            scene,
            fog,
            flame,
            overlay,
            encode,
            readback,
            ..
        } = self;
        scoped(device, errors, "frame rendering", || {
            frame.write(queue, &uniforms);
            maps.write(queue, inputs);
            fog.prepare(queue, inputs);

            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
            scene.record(&mut encoder, targets, frame);
            fog.record(&mut encoder, targets, frame);
            flame.record(&mut encoder, targets, frame);
            overlay.record(&mut encoder, targets, frame);
            encode.record(&mut encoder, targets);
            let slot = readback.record_copy(&mut encoder, &targets.output);
            let submission = queue.submit([encoder.finish()]);
            readback.start_map(slot, inputs.frame_index, submission);
        })?;
        // Let finished work and map callbacks progress without blocking.
        device
            .poll(wgpu::PollType::Poll)
            .map_err(|error| GpuError::Poll {
                message: error.to_string(),
            })?;
        Ok(finished)
    }

    /// Waits for every frame in flight and returns them in submission order.
    pub fn finish(&mut self) -> Result<Vec<Frame>, GpuError> {
        let mut frames = Vec::with_capacity(self.readback.in_flight());
        while let Some(frame) = self.readback.wait_oldest(&self.device)? {
            frames.push(frame);
        }
        self.errors.take("frame readback")?;
        Ok(frames)
    }

    /// Renders one frame and waits for it. Needs no frames in flight (call
    /// [`Renderer::finish`] first), so none is silently dropped.
    pub fn render_one(&mut self, inputs: &FrameInputs<'_>) -> Result<Frame, GpuError> {
        let count = self.readback.in_flight();
        if count > 0 {
            return Err(GpuError::FramesInFlight { count });
        }
        let early = self.submit(inputs)?;
        let mut frames = self.finish()?;
        frames.extend(early);
        frames.pop().ok_or(GpuError::Readback {
            frame_index: inputs.frame_index,
            message: "no frame came back".into(),
        })
    }
}
