// fog_cutoff.wgsl: the raster `fog` pass's cut-off depth (src/gpu/passes/fog_cutoff.rs).
//
// A sheet's fragment discards itself where its slab lies wholly behind the scene
// (`visible_slab_world` is 0). `fs_fog_cutoff` writes each pixel's cut-off: the depth of the
// point `margin` world units beyond the scene along the pixel's ray, past the farthest a slab's
// front half reaches. The sheets are tested against it (`Less`, no writes): what the test
// rejects would have been discarded, so the picture is the same, and a CPU adapter rejects a
// block of failing fragments before shading them.
//
// Needs common.wgsl and fog.wgsl in front of it (the frame, the scene's depth, the distance
// along a ray).

// keep in sync with src/gpu/passes/fog_cutoff.rs: CutoffKnobs
struct FogCutoff {
    // Clip space back to world space: the inverse of the sample's `frame.clip_from_world`.
    world_from_clip: mat4x4<f32>,
    // x, y: the picture's size (pixels); z: the margin (world units along the ray); w: 0.
    size_margin: vec4<f32>,
}

@group(2) @binding(0) var<uniform> cutoff: FogCutoff;

// Added to the cut-off's depth: about sixteen of a 32-bit float's steps at depth 1.
const CUTOFF_DEPTH_SLACK: f32 = 1e-6;

// A full-screen triangle.
@vertex
fn vs_fog_cutoff(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(full_screen_ndc(index), 0.0, 1.0);
}

@fragment
fn fs_fog_cutoff(@builtin(position) position: vec4<f32>) -> @builtin(frag_depth) f32 {
    let depth_scene = textureLoad(scene_depth, vec2<i32>(position.xy), 0).x;
    // Nothing drawn here: every sheet may show fog.
    if depth_scene >= 1.0 {
        return 1.0;
    }
    let size_px = cutoff.size_margin.xy;
    let ndc = vec2<f32>(position.x / size_px.x * 2.0 - 1.0, 1.0 - position.y / size_px.y * 2.0);
    let far_clip = cutoff.world_from_clip * vec4<f32>(ndc, 1.0, 1.0);
    let eye_world = frame.eye_world.xyz;
    let ray_world = normalize(far_clip.xyz / far_clip.w - eye_world);
    let t_scene_world = scene_distance_world(eye_world, ray_world, depth_scene);
    // A ten-thousandth more, for the rounding of the distance itself.
    let t_cut_world = t_scene_world * 1.0001 + cutoff.size_margin.z;
    let clip = frame.clip_from_world * vec4<f32>(eye_world + ray_world * t_cut_world, 1.0);
    // Far away a depth's last bits span more than the margin: some more in depth.
    return clamp(clip.z / clip.w + CUTOFF_DEPTH_SLACK, 0.0, 1.0);
}
