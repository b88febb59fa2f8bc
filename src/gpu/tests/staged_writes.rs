//! GPU test of `renderer/staged_writes.rs`: writes staged for two samples land in order inside
//! one command encoder, each seen by the commands recorded after its copies and before the
//! next sample's, while a write straight into the queue lands before the whole submission.

use super::{context, read_f32s};
use crate::gpu::renderer::staged_writes::{BufferWrites, StagedWrites};

/// Bytes of the uniform buffer the samples rewrite: four floats.
const BYTES: u64 = 16;

#[test]
fn staged_writes_land_between_the_samples_of_one_submission() {
    let Some(ctx) = context() else { return };
    let (device, queue) = (&ctx.device, &ctx.queue);
    let buffer = |label, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: BYTES,
            usage,
            mapped_at_creation: false,
        })
    };
    use wgpu::BufferUsages as U;
    let uniforms = buffer("uniforms", U::UNIFORM | U::COPY_DST | U::COPY_SRC);
    let seen: Vec<_> = (0..3)
        .map(|_| buffer("seen", U::MAP_READ | U::COPY_DST))
        .collect();
    let mut uploads: Vec<Option<wgpu::Buffer>> = vec![None, None];
    let mut encoder = device.create_command_encoder(&Default::default());
    // Sample 0 writes through the queue; samples 1 and 2 stage theirs (the second write of
    // sample 2 overwrites part of its first: the order within a sample holds too).
    BufferWrites::write_buffer(queue, &uniforms, 0, bytemuck::cast_slice(&[1.0f32; 4]));
    encoder.copy_buffer_to_buffer(&uniforms, 0, &seen[0], 0, BYTES);
    for (k, upload) in uploads.iter_mut().enumerate() {
        let staged = StagedWrites::default();
        let value = 2.0 + k as f32;
        staged.write_buffer(&uniforms, 0, bytemuck::cast_slice(&[value; 4]));
        staged.write_buffer(&uniforms, 8, bytemuck::cast_slice(&[-value]));
        staged.record_copies((device, queue), &mut encoder, upload);
        encoder.copy_buffer_to_buffer(&uniforms, 0, &seen[k + 1], 0, BYTES);
    }
    queue.submit([encoder.finish()]);
    let seen: Vec<Vec<f32>> = seen.iter().map(|b| read_f32s(device, b)).collect();
    assert_eq!(seen[0], [1.0; 4]);
    assert_eq!(seen[1], [2.0, 2.0, -2.0, 2.0]);
    assert_eq!(seen[2], [3.0, 3.0, -3.0, 3.0]);
}
