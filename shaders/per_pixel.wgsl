// per_pixel.wgsl: what the two per-pixel fog compositors share — the `fog_compute` pass (the
// sheets crossed per pixel) and the `raymarch` pass (the continuous fog marched per pixel).
// Both rebuild each pixel's view ray from the camera's matrices, sum the fog along it front to
// back into a premultiplied colour and a transmittance, and write that over the scene; only
// the march in between differs, so the bindings, the ray and the compositing live here once.
//
// The scene colour is read from a copy of the picture and the result written to the picture as
// a write-only storage texture (Rgba16Float storage is core WebGPU); pixels the fog leaves
// untouched are not written at all, so they keep the scene's colour exactly. With `--layers`
// the `_with_layer` entry points also write the fog alone into the fog layer, every pixel of
// it: the premultiplied colour and alpha 1 − transmittance, so transparent black where the ray
// crossed no fog (the raster layer's "sheets over transparent black" in one rounding).
//
// Needs common.wgsl (frame uniforms) and fog.wgsl (the group-1 bindings 0 to 3 and
// `scene_depth`, which these passes bind alike).

// keep in sync with src/gpu/passes/fog_compute.rs: MarchKnobs
struct MarchKnobs {
    // Clip space back to world space: the inverse of `frame.clip_from_world`.
    world_from_clip: mat4x4<f32>,
    // x: picture width (pixels); y: picture height (pixels); z: sheets crossed this frame, the
    // lowest, those under the fog's ceiling (`fog_compute`), or steps per ray (`raymarch`);
    // w: unused.
    size: vec4<u32>,
}

@group(1) @binding(4) var<uniform> march: MarchKnobs;
// The picture as the scene pass left it (a copy); its depth is `scene_depth` (fog.wgsl).
@group(1) @binding(6) var scene_color: texture_2d<f32>;
// The picture, written where the fog covers it.
@group(1) @binding(7) var composited: texture_storage_2d<rgba16float, write>;
// The fog layer (premultiplied, linear), written at every pixel: only the `_with_layer` entry
// points use it, so the others' pipelines leave it out of their layouts.
@group(1) @binding(8) var fog_layer: texture_storage_2d<rgba16float, write>;

// The picture as the scene pass left it, copied into `scene_color` before the march
// (`cs_keep_scene`): a texture cannot be read and written in one dispatch. A compute copy, as
// a texture-to-texture copy of the picture was slow on the GPU host (passes/accumulate.rs).
// Its own group-1 layout: the march's group 1 binds the same two textures the other way.
@group(1) @binding(12) var scene_now: texture_2d<f32>;
@group(1) @binding(13) var scene_kept: texture_storage_2d<rgba16float, write>;

@compute @workgroup_size(8, 8)
fn cs_keep_scene(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(scene_kept);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    textureStore(scene_kept, vec2<i32>(id.xy), textureLoad(scene_now, vec2<i32>(id.xy), 0));
}

// The pixels at an edge, listed by the `edges` pass for the later samples of `--edge-samples`
// (edges.wgsl): a count, then `x | y << 16` for each. Only the `_edges` entry points read it.
@group(1) @binding(9) var<storage, read> edge_pixels: array<u32>;

// Listed pixel `i`, and whether `i` is within the list.
fn listed_pixel(i: u32) -> vec3<u32> {
    if i >= edge_pixels[0] {
        return vec3<u32>(0u);
    }
    let packed = edge_pixels[i + 1u];
    return vec3<u32>(packed & 0xffffu, packed >> 16u, 1u);
}

// Whether invocation `id` falls inside the picture (the last workgroups overhang it).
fn in_picture(id: vec2<u32>) -> bool {
    return id.x < march.size.x && id.y < march.size.y;
}

// The unit direction (world) of the view ray through the centre of pixel `id`: from the eye to
// the point on the far plane (clip space y is up, pixel rows run down).
fn pixel_ray_world(id: vec2<u32>) -> vec3<f32> {
    let size_px = march.size.xy;
    let ndc = vec2<f32>(
        (f32(id.x) + 0.5) / f32(size_px.x) * 2.0 - 1.0,
        1.0 - (f32(id.y) + 0.5) / f32(size_px.y) * 2.0,
    );
    let far_clip = march.world_from_clip * vec4<f32>(ndc, 1.0, 1.0);
    return normalize(far_clip.xyz / far_clip.w - frame.eye_world.xyz);
}

// Writes the fog along a pixel's ray (premultiplied `color`, `transmittance`) over the scene at
// `pixel`; leaves pixels without fog untouched.
fn composite_over_scene(pixel: vec2<i32>, color: vec3<f32>, transmittance: f32) {
    if transmittance >= 1.0 {
        return;
    }
    // The scene behind, seen through what is left; alpha as the raster pass's blend leaves it.
    let scene = textureLoad(scene_color, pixel, 0);
    let alpha = 1.0 - transmittance + scene.a * transmittance;
    textureStore(composited, pixel, vec4<f32>(color + scene.rgb * transmittance, alpha));
}

// `composite_over_scene`, and the fog alone into the fog layer.
fn composite_with_layer(pixel: vec2<i32>, color: vec3<f32>, transmittance: f32) {
    textureStore(fog_layer, pixel, vec4<f32>(color, 1.0 - transmittance));
    composite_over_scene(pixel, color, transmittance);
}
