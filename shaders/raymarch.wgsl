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
// march's own error is grain that shrinks as the steps grow, never bands.
//
// The bindings and the compositing are those of fog_compute.wgsl (binding 5, the sheet heights,
// is bound but unread):
// the scene colour from a copy of the picture, the scene depth, the picture and (with
// `--layers`, `cs_raymarch_with_layer`) the fog layer written as storage textures.
//
// Needs common.wgsl (frame uniforms, distance fog), noise.wgsl, fires.wgsl and fog.wgsl
// (`FogKnobs`, `march_medium`, `scene_distance_world` and the group-1 bindings 0 to 3, which this
// pass binds alike).

// keep in sync with src/gpu/passes/fog_compute.rs: MarchKnobs
struct MarchKnobs {
    // Clip space back to world space: the inverse of `frame.clip_from_world`.
    world_from_clip: mat4x4<f32>,
    // x: picture width (pixels); y: picture height (pixels); z: steps per ray; w: unused.
    size: vec4<u32>,
}

@group(1) @binding(4) var<uniform> march: MarchKnobs;
// The picture as the scene pass left it (a copy); its depth is `scene_depth` (fog.wgsl).
@group(1) @binding(6) var scene_color: texture_2d<f32>;
// The picture, written where the fog covers it.
@group(1) @binding(7) var composited: texture_storage_2d<rgba16float, write>;
// The fog layer (premultiplied, linear), written at every pixel by `cs_raymarch_with_layer`.
@group(1) @binding(8) var fog_layer: texture_storage_2d<rgba16float, write>;

// The fog along the ray through the centre of pixel `id` (inside the picture), from the eye to
// the scene's depth: premultiplied colour and transmittance.
fn raymarch_pixel(id: vec2<u32>) -> RayFog {
    let size_px = march.size.xy;
    let ndc = vec2<f32>(
        (f32(id.x) + 0.5) / f32(size_px.x) * 2.0 - 1.0,
        1.0 - (f32(id.y) + 0.5) / f32(size_px.y) * 2.0,
    );
    let far_clip = march.world_from_clip * vec4<f32>(ndc, 1.0, 1.0);
    let eye_world = frame.eye_world.xyz;
    let ray_world = normalize(far_clip.xyz / far_clip.w - eye_world);
    // The scene's surface along the ray, from its depth; none where the scene pass drew
    // nothing (depth 1, the far plane).
    let depth_scene = textureLoad(scene_depth, vec2<i32>(id), 0);
    let t_scene_world = scene_distance_world(eye_world, ray_world, depth_scene);
    return march_medium(
        eye_world,
        ray_world,
        t_scene_world,
        march.size.z,
        pixel_hash(id),
        fog,
        fluid_map,
        lift_map,
    );
}

// Writes `fog_here` over the scene at `pixel`; leaves pixels without fog untouched.
fn composite_over_scene(pixel: vec2<i32>, fog_here: RayFog) {
    let transmittance = fog_here.transmittance;
    if transmittance >= 1.0 {
        return;
    }
    let scene = textureLoad(scene_color, pixel, 0);
    let alpha = 1.0 - transmittance + scene.a * transmittance;
    textureStore(composited, pixel, vec4<f32>(fog_here.color + scene.rgb * transmittance, alpha));
}

@compute @workgroup_size(8, 8)
fn cs_raymarch(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= march.size.x || id.y >= march.size.y {
        return;
    }
    composite_over_scene(vec2<i32>(id.xy), raymarch_pixel(id.xy));
}

// `cs_raymarch`, and the fog alone into the fog layer (premultiplied colour, alpha 1 − T).
@compute @workgroup_size(8, 8)
fn cs_raymarch_with_layer(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= march.size.x || id.y >= march.size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    let fog_here = raymarch_pixel(id.xy);
    textureStore(fog_layer, pixel, vec4<f32>(fog_here.color, 1.0 - fog_here.transmittance));
    composite_over_scene(pixel, fog_here);
}
