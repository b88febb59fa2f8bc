//! GPU tests of the `fire_flicker` pass: the per-frame buffer every world pass reads holds, bit
//! for bit, what the WGSL `fire_flicker` gives for each fire at the frame's time (what the
//! passes used to work out per pixel), the glow strength times it, where the light sits and its
//! range; and it follows the frame's time.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::flame::run_flicker_on_gpu;
use super::{context, flat_maps, inputs, render, renderer, shipped_temple};
use crate::frame::View;
use crate::gpu::GpuContext;
use crate::gpu::fire_lights::FireLights;
use crate::gpu::passes::fire_flicker::{FIRE_NOW_FLOATS, FIRES_NOW_BYTES};
use crate::scene::fires::LIGHT_HEIGHT_IN_FLAME;

/// The flicker buffer's values, copied out after the frames submitted so far.
fn read_flicker(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Vec<f32> {
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("fire_flicker.test_staging"),
        size: FIRES_NOW_BYTES,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("fire_flicker.test_copy"),
        });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, FIRES_NOW_BYTES);
    ctx.queue.submit([encoder.finish()]);
    super::read_f32s(&ctx.device, &staging)
}

#[test]
fn flicker_buffer_holds_each_fires_wgsl_flicker_at_the_frames_time() {
    let Some(ctx) = context() else { return };
    if ctx.limits.max_storage_buffers_per_shader_stage < 2 {
        eprintln!("skipping: the adapter has no storage buffers for the compute check");
        return;
    }
    let scene = shipped_temple();
    let lights = FireLights::new(&scene);
    let fires = lights.count() as usize;
    assert_eq!(fires, 5, "the temple's fires");
    let maps = flat_maps(&scene, 1.0);
    let mut renderer = renderer(&ctx, &scene, 32, 24, View::Fog);
    let mut seen = Vec::new();
    for frame_index in [30, 31, 200] {
        let at = inputs(&scene, &maps, frame_index);
        render(&mut renderer, &at);
        let buffer = read_flicker(&ctx, &renderer.frame.fire_flicker);
        let now = |fire: usize| &buffer[fire * FIRE_NOW_FLOATS..(fire + 1) * FIRE_NOW_FLOATS];
        // The same function on the same inputs in a compute shader of its own.
        let cases: Vec<[f32; 4]> = lights.fires[..fires]
            .iter()
            .map(|fire| [at.time_s, fire.light_color[3], fire.shape[1], 0.0])
            .collect();
        let expected = run_flicker_on_gpu(&ctx, &cases);
        for (index, want) in expected.iter().enumerate() {
            let [light, flicker] = [&now(index)[..4], &now(index)[4..]];
            let fire = &lights.fires[index];
            assert_eq!(
                flicker[0].to_bits(),
                want.to_bits(),
                "fire {index} at frame {frame_index}: flicker {} against {want}",
                flicker[0]
            );
            // One multiplication, correctly rounded on both sides.
            assert_eq!(flicker[1], fire.shape[2] * want);
            assert_eq!(&flicker[2..], [0.0, 0.0]);
            let height = fire.shape[0] * LIGHT_HEIGHT_IN_FLAME;
            let [x, y, z, _] = fire.foot_world;
            for (got, want) in light[..3].iter().zip([x, y + height, z]) {
                assert!(
                    (got - want).abs() < 1e-5,
                    "fire {index}: light at {light:?}"
                );
            }
            assert_eq!(light[3], fire.foot_world[3].max(1e-4));
        }
        // Entries past the fires are never written.
        assert!(buffer[fires * FIRE_NOW_FLOATS..].iter().all(|&v| v == 0.0));
        seen.push((0..fires).map(|fire| now(fire)[4]).collect::<Vec<_>>());
    }
    // The flicker moves with the time, and no two fires burn in step.
    assert_ne!(seen[0], seen[1]);
    assert_ne!(seen[0], seen[2]);
    assert!(seen[0].windows(2).all(|pair| pair[0] != pair[1]));
}

#[test]
fn scenes_without_fires_have_no_flicker_pass() {
    let Some(ctx) = context() else { return };
    let mut scene = shipped_temple();
    scene.fires.clear();
    let maps = flat_maps(&scene, 1.0);
    let mut without = renderer(&ctx, &scene, 32, 24, View::Fog);
    render(&mut without, &inputs(&scene, &maps, 30));
    assert!(without.moment.fire_flicker.is_none());
    let with = renderer(&ctx, &shipped_temple(), 32, 24, View::Fog);
    assert!(with.moment.fire_flicker.is_some());
}
