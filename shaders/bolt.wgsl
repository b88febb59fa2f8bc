// bolt.wgsl: a lightning bolt, drawn after the flames and added to the picture.
//
// The arc's points come from src/weather/bolt.rs, worked out on the CPU as a pure function of
// the seed, the strike and the absolute time. Each of its segments is a screen-facing quad
// `core.w` pixels wide: a white-hot core in the middle, a blue edge toward the sides. The bolt
// is light, so it is added, dimmed by the distance fog at each point by `edge.w` of its amount
// (a bolt is bright enough to show through the thickest fog, dimmed and tinted).
// Depth tested against the scene, so a pillar hides the bolt behind it: by the depth target, or
// here against the scene's depth (`BOLT_READS_SCENE_DEPTH`). Drawn a second time, alone, into
// the weather layer with `--layers`.

const BOLT_POINTS: u32 = 33u;

// keep in sync with src/gpu/passes/bolt.rs: BoltUniforms
struct BoltUniforms {
    // xyz: the arc's points, cloud end first (world); w: unused.
    points: array<vec4<f32>, 33>,
    // rgb: core colour × brightness (linear); w: width of the bolt in pixels.
    core: vec4<f32>,
    // rgb: edge colour × brightness (linear); w: share of the distance fog that dims it.
    edge: vec4<f32>,
    // xy: picture size in pixels; z: brightness, 0..=1; w: unused.
    viewport: vec4<f32>,
}

@group(1) @binding(0) var<uniform> bolt: BoltUniforms;
// The scene's depth as plain floats (src/gpu/targets.rs: `scene_depth_view`), read only with
// `BOLT_READS_SCENE_DEPTH`.
@group(1) @binding(1) var scene_depth: texture_2d<f32>;

// Whether the bolt is hidden behind the scene by reading its depth instead of by a depth test:
// where the compute `scene` pass leaves its depths in a float picture and no depth target
// (src/gpu/passes/scene_compute.rs: `reads_hit_depths`).
override BOLT_READS_SCENE_DEPTH: bool = false;

// Whether the bolt is drawn once over the mean of the frame's samples (over_samples.wgsl,
// `fs_bolt_over_samples`): its quads are a pixel wider a side.
override BOLT_OVER_SAMPLES: bool = false;

struct BoltOut {
    @builtin(position) clip: vec4<f32>,
    // −1 at one side of the quad, 1 at the other.
    @location(0) across: f32,
    // How much of the distance fog lies over this end of the segment.
    @location(1) fog: f32,
}

@vertex
fn vs_bolt(@builtin(vertex_index) vertex: u32) -> BoltOut {
    let segment = vertex / 6u;
    let corner = vertex % 6u;
    // Two triangles: (a−, b−, b+) and (a−, b+, a+).
    let at_b = corner == 1u || corner == 2u || corner == 4u;
    let side = select(-1.0, 1.0, corner == 2u || corner == 4u || corner == 5u);
    let a = bolt.points[segment].xyz;
    let b = bolt.points[segment + 1u].xyz;
    let clip_a = frame.clip_from_world * vec4<f32>(a, 1.0);
    let clip_b = frame.clip_from_world * vec4<f32>(b, 1.0);
    let half_px = bolt.viewport.xy * 0.5;
    let screen_a = clip_a.xy / max(clip_a.w, 1e-4) * half_px;
    let screen_b = clip_b.xy / max(clip_b.w, 1e-4) * half_px;
    let along = screen_b - screen_a;
    let direction = select(vec2<f32>(1.0, 0.0), normalize(along), length(along) > 1e-4);
    let normal = vec2<f32>(-direction.y, direction.x);
    let clip = select(clip_a, clip_b, at_b);
    let end = select(-1.0, 1.0, at_b);
    // Half a width past each end, so the segments of the arc overlap at its bends.
    var offset_px = (normal * side + direction * end * 0.5) * bolt.core.w * 0.5;
    var out: BoltOut;
    out.across = side;
    if BOLT_OVER_SAMPLES {
        // A pixel wider a side, `across` still ±1 at the bolt's own sides.
        let half_width_px = bolt.core.w * 0.5;
        let widened = (half_width_px + 1.0) / half_width_px;
        offset_px = (normal * side * widened + direction * end * 0.5) * half_width_px;
        out.across = side * widened;
    }
    out.clip = clip + vec4<f32>(offset_px / half_px * clip.w, 0.0, 0.0);
    out.fog = distance_fog_amount(select(a, b, at_b));
    return out;
}

// Premultiplied: the colour over the alpha is at most the core's colour (the edge is dimmer
// than the core in every channel). The beauty pass adds the colour and keeps the picture's
// alpha (src factor zero: the alpha written here changes nothing there); the weather layer
// (src/gpu/passes/weather_layer.rs) lays the bolt "over" transparent black, so its alpha is the
// bolt's coverage: the core opaque, the blue edge fading out as its light does, all of it
// fading with the bolt's brightness and the distance fog (a dying bolt leaves no dark mark).
@fragment
fn fs_bolt(in: BoltOut) -> @location(0) vec4<f32> {
    // A later sample of `--edge-samples` shades the pixels at an edge alone (common.wgsl).
    if outside_edges(vec2<u32>(in.clip.xy)) {
        discard;
    }
    // What the depth test `Less` would pass: nearer than the scene.
    if BOLT_READS_SCENE_DEPTH && in.clip.z >= textureLoad(scene_depth, vec2<i32>(in.clip.xy), 0).x {
        discard;
    }
    let shaded = bolt_across(1.0 - abs(in.across));
    let unfogged = 1.0 - bolt.edge.w * in.fog;
    return shaded * unfogged;
}

// The bolt's light (rgb) and coverage (a) at `t`, 1 on its middle line and 0 at its sides.
fn bolt_across(t: f32) -> vec4<f32> {
    let core = smoothstep(0.55, 0.95, t);
    let color = mix(bolt.edge.rgb * t * t, bolt.core.rgb, core);
    let coverage = mix(t * t, 1.0, core) * bolt.viewport.z;
    return vec4<f32>(color, coverage);
}

// The bolt over the mean of the frame's samples (over_samples.wgsl): its light at every
// sample's offset, tested against that sample's depth, averaged.
@fragment
fn fs_bolt_over_samples(in: BoltOut) -> @location(0) vec4<f32> {
    // Before any branch: derivatives need the whole quad of fragments.
    let across_dx = dpdx(in.across);
    let across_dy = dpdy(in.across);
    let depth_dx = dpdx(in.clip.z);
    let depth_dy = dpdy(in.clip.z);
    let pixel = vec2<i32>(in.clip.xy);
    let listed = textureLoad(edge_mask, pixel, 0).x;
    var sum = vec4<f32>(0.0);
    for (var k = 0u; k < over_sample_count(); k += 1u) {
        let offset = over_offsets[k].xy;
        let depth = in.clip.z + depth_dx * offset.x + depth_dy * offset.y;
        let across = in.across + across_dx * offset.x + across_dy * offset.y;
        if depth < over_sample_depth(pixel, listed, k) && abs(across) < 1.0 {
            sum += bolt_across(1.0 - abs(across));
        }
    }
    if sum.a <= 0.0 {
        discard;
    }
    let unfogged = 1.0 - bolt.edge.w * in.fog;
    return sum * (unfogged / f32(over_sample_count()));
}
