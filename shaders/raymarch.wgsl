// raymarch.wgsl: the `raymarch` pass — the reference the fog sheets approximate. One compute
// invocation per pixel marches the pixel's view ray through the continuous fog the sheets
// sample (`fog_medium` in fog.wgsl: the fluid and lift maps, the drifting 3D noise, the height
// profile, the ball's cut, the glows and the fires' light, the same σ), front to back, from the
// eye to the scene's depth, and composites it over the scene (ARCHITECTURE.md, "Data flow").
//
// The march (`march_medium`) covers only the part of the ray inside the fog's box — the
// square, from the fog's floor to the highest the lifted fog reaches — in `steps` equal steps,
// and stops once the fog is opaque. Each ray starts a per-pixel random fraction of a step
// along (`pixel_hash`, an integer hash: deterministic and the same on every adapter), so the
// march's own error is grain that shrinks as the steps grow, never bands. Each of a frame's
// samples (`output.samples`) moves that start by its own fraction of a step
// (`MarchKnobs::size`'s w, 0.0 for a single sample), so the grain averages away too.
//
// The bindings, the pixel's ray and the compositing are per_pixel.wgsl's, shared with the
// `fog_compute` pass (whose binding 5, the sheet heights, is bound here too but unread).
//
// Needs common.wgsl (frame uniforms, distance fog), noise.wgsl, fires.wgsl, fog.wgsl
// (`FogKnobs`, `march_medium`, `scene_distance_world` and the group-1 bindings 0 to 3, which this
// pass binds alike) and per_pixel.wgsl.

// The fog along the ray through the centre of pixel `id` (inside the picture), from the eye to
// the scene's depth: premultiplied colour and transmittance.
fn raymarch_pixel(id: vec2<u32>) -> RayFog {
    let eye_world = frame.eye_world.xyz;
    let ray_world = pixel_ray_world(id);
    // The scene's surface along the ray, from its depth; none where the scene pass drew
    // nothing (depth 1, the far plane).
    let depth_scene = textureLoad(scene_depth, vec2<i32>(id), 0).x;
    let t_scene_world = scene_distance_world(eye_world, ray_world, depth_scene);
    return march_medium(
        eye_world,
        ray_world,
        t_scene_world,
        march.size.z,
        fract(pixel_hash(id) + bitcast<f32>(march.size.w)),
        fog,
        fluid_map,
        lift_map,
    );
}

@compute @workgroup_size(8, 8)
fn cs_raymarch(@builtin(global_invocation_id) id: vec3<u32>) {
    // A later sample of `--edge-samples` draws the pixels at an edge alone.
    if !in_picture(id.xy) || outside_edges(id.xy) {
        return;
    }
    let fog_here = raymarch_pixel(id.xy);
    composite_over_scene(vec2<i32>(id.xy), fog_here.color, fog_here.transmittance);
}

// `cs_raymarch` on the pixels at an edge alone, one invocation a listed pixel (a later sample
// of `--edge-samples`; per_pixel.wgsl, `listed_pixel`).
@compute @workgroup_size(64)
fn cs_raymarch_edges(@builtin(global_invocation_id) id: vec3<u32>) {
    let listed = listed_pixel(id.x);
    if listed.z == 0u {
        return;
    }
    let fog_here = raymarch_pixel(listed.xy);
    composite_over_scene(vec2<i32>(listed.xy), fog_here.color, fog_here.transmittance);
}

// `cs_raymarch`, and the fog alone into the fog layer (per_pixel.wgsl).
@compute @workgroup_size(8, 8)
fn cs_raymarch_with_layer(@builtin(global_invocation_id) id: vec3<u32>) {
    if !in_picture(id.xy) {
        return;
    }
    let fog_here = raymarch_pixel(id.xy);
    composite_with_layer(vec2<i32>(id.xy), fog_here.color, fog_here.transmittance);
}
