//! The `fire_flicker` pass (shaders/fire_flicker.wgsl): each fire's flicker at the frame's
//! time, where its light sits and its range, worked out once per frame by one workgroup into a
//! small buffer that every world pass reads at group 0, binding 5 (`fires_now` in
//! shaders/fires.wgsl).
//!
//! The flicker is a function of the fire and the frame's time only. Worked out per pixel (the
//! surface light, the fog's glow at every sheet sample, the flames) it was the same three sines
//! again and again; a CPU adapter (lavapipe) pays for them in every pixel of a block. The pass
//! runs the very same WGSL functions on the same inputs, so every pass reads the values it used
//! to compute, bit for bit: the pictures keep their bytes.
//!
//! Scenes without fires have no pass (nothing reads the buffer there).

use crate::gpu::GpuError;
use crate::gpu::common::FrameBinding;
use crate::gpu::context::ErrorSink;
use crate::gpu::fire_lights::MAX_FIRE_LIGHTS;
use crate::gpu::passes::builder::{PassBuilder, uniform};
use crate::gpu::shaders::ShaderName;

/// Floats a fire takes in the per-frame buffer: two `vec4`s, the light's place and range, then
/// the flicker and the glow strength times the flicker.
///
/// keep in sync with shaders/fires.wgsl: FireNow
pub(crate) const FIRE_NOW_FLOATS: usize = 8;

/// Bytes of the per-frame buffer, every fire the array holds.
///
/// keep in sync with shaders/fires.wgsl: FiresNow
pub(crate) const FIRES_NOW_BYTES: u64 =
    (MAX_FIRE_LIGHTS * FIRE_NOW_FLOATS * std::mem::size_of::<f32>()) as u64;

/// The per-frame buffer of the fires, `frame.fire_flicker`: written as storage by this pass, read
/// as a uniform by the others (and copied out by the tests). Zero until the first frame.
pub(crate) fn flicker_buffer(device: &wgpu::Device) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(&PassBuilder::new(device, ShaderName::FireFlicker.name()).label("flicker")),
        size: FIRES_NOW_BYTES,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The pass's pipeline and its bindings: the frame's time and fires, and the flicker buffer.
pub(crate) struct FireFlickerPass {
    pipeline: wgpu::ComputePipeline,
    /// Group 0: the frame uniforms and the fire lights (the frame's own group 0 also holds the
    /// flicker buffer as a uniform, which a pass writing it may not bind).
    frame_bind_group: wgpu::BindGroup,
    /// Group 1: the flicker buffer as storage.
    out_bind_group: wgpu::BindGroup,
}

impl FireFlickerPass {
    /// The pass writing `frame`'s flicker buffer, or `None` for a scene without fires.
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        frame: &FrameBinding,
    ) -> Result<Option<Self>, GpuError> {
        if frame.fire_count == 0 {
            return Ok(None);
        }
        let module = ShaderName::FireFlicker.create_module(device, errors, &[])?;
        let build = PassBuilder::new(device, ShaderName::FireFlicker.name());
        let compute = wgpu::ShaderStages::COMPUTE;
        let frame_layout = build.bind_group_layout(&[uniform(0, compute), uniform(1, compute)]);
        let frame_bind_group = build.bind_group(
            &frame_layout,
            [
                frame.buffer.as_entire_binding(),
                frame.fire_lights.as_entire_binding(),
            ],
        );
        let out_layout = build.bind_group_layout(&[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: compute,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }]);
        let out_bind_group =
            build.bind_group(&out_layout, [frame.fire_flicker.as_entire_binding()]);
        let pipeline =
            build.compute_pipeline(&module, "cs_fire_flicker", &[&frame_layout, &out_layout]);
        Ok(Some(FireFlickerPass {
            pipeline,
            frame_bind_group,
            out_bind_group,
        }))
    }

    /// Records the pass: one workgroup, one invocation a fire.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(ShaderName::FireFlicker.name()),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.frame_bind_group, &[]);
        pass.set_bind_group(1, &self.out_bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
