// fire_flicker.wgsl: the `fire_flicker` pass — each fire's flicker at the frame's time, where
// its light sits and its range, worked out once per frame by one workgroup (one invocation a
// fire) into the per-frame buffer every world pass reads as `fires_now` (fires.wgsl, group 0,
// binding 5).
//
// The flicker depends only on the fire and the frame's time, not on the pixel, yet the `scene`,
// fog and `flame` passes used to work it out for every pixel, every fire and every fog sample.
// On a CPU adapter (lavapipe), which runs every branch for every pixel of a block, that was the
// bulk of the fires' cost. Here the very same functions (`fire_flicker`, `fire_light_world`) run
// on the same inputs, so each pass reads back exactly the values it used to compute: the same
// bytes.
//
// Needs common.wgsl (`frame`, for the time) and fires.wgsl (`fire_lights`, `fire_flicker`,
// `FiresNow`).

// The same buffer the world passes read as a uniform (`fires_now`), written here.
@group(1) @binding(0) var<storage, read_write> fires_out: FiresNow;

// One workgroup of one invocation a fire the array can hold.
@compute @workgroup_size(MAX_FIRES)
fn cs_fire_flicker(@builtin(local_invocation_index) fire_index: u32) {
    if fire_index >= fire_count() {
        return;
    }
    let fire = fire_lights.fires[fire_index];
    let flicker = fire_flicker(frame.eye_world.w, fire.light_color.w, fire.shape.y);
    fires_out.fires[fire_index] = FireNow(
        vec4<f32>(fire_light_world(fire), max(fire.foot_world.w, 1e-4)),
        vec4<f32>(flicker, fire.shape.z * flicker, 0.0, 0.0),
    );
}
