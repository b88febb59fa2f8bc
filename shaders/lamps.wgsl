// lamps.wgsl: the scene's lamps as lights — what the `scene` pass (lit surfaces), every fog
// compositor (the fog lit by each lamp, dark in its shadows, through `fog_medium`) and the
// `shadow` pass (which draws the shadow maps) share. The moon's shadow map
// (`lights.directional.shadows`) is a layer of the same maps, read through `moon_shadow`.
//
// The lamps and their shadow-map faces are a fixed-size uniform array with counts, bound at
// group 0, binding 3, and the shadow maps a depth texture array at binding 4, beside the frame
// uniforms, so any pass that binds the frame, raster or compute, can read them. Both are
// written once per renderer (the maps once per frame, by the `shadow` pass).
//
// The shadow maps are filtered by hand: `textureLoad` of each texel and explicit weights, no
// comparison sampler, so the shadows are the same on every adapter (as fog.wgsl's maps are).
// The exception is the moon's map, read through a comparison sampler (`shadow_compare`): one
// comparing read for the fog's 2×2, four for the surfaces' tent. A texel holds the distance
// from the lamp to the nearest caster over the lamp's range.
//
// Needs common.wgsl (`frame`).

// keep in sync with src/scene/lamps.rs: MAX_LAMPS and src/gpu/lamp_lights.rs: MAX_LAMP_LIGHTS
const MAX_LAMPS: u32 = 4u;

// keep in sync with src/gpu/lamp_lights.rs: LampLight
struct LampLight {
    // xyz: the lamp (world); w: its range (world units).
    pos_world: vec4<f32>,
    // rgb: colour times intensity (linear); w: how strongly the fog scatters it.
    color: vec4<f32>,
    // xyz: the unit direction a spot points along; w: cos of the cone's half-angle (−2 for a
    // point lamp, so every direction is inside).
    spot: vec4<f32>,
    // x: its first shadow-map face (−1 without shadows); y: its faces (0, 1 or 6); z: cos of
    // the angle where the cone's fade begins; w: a shadow texel's width one world unit away.
    shadow: vec4<f32>,
}

// keep in sync with src/gpu/lamp_lights.rs: LampShadowFace
struct LampShadowFace {
    // World to the face's clip space.
    clip_from_world: mat4x4<f32>,
    // x: the lamp it belongs to; y, z, w: unused.
    lamp: vec4<u32>,
}

// keep in sync with src/gpu/moon_shadow.rs: MoonShadow
struct MoonShadow {
    // World to the map's clip space (orthographic: w is 1, depth 0..1 from the light).
    clip_from_world: mat4x4<f32>,
    // x: its layer in the shadow maps (−1 without moon shadows); y: a texel's width (world
    // units); z: depth over one world unit along the light; w: unused.
    map: vec4<f32>,
}

// keep in sync with src/gpu/lamp_lights.rs: LampLights
struct LampLights {
    // x: lamps in use; y: shadow-map faces in use; z, w: unused.
    count: vec4<u32>,
    lamps: array<LampLight, 4>,
    faces: array<LampShadowFace, 24>,
    // The moon's shadow map, the layer after the lamps' faces.
    moon: MoonShadow,
}

@group(0) @binding(3) var<uniform> lamp_lights: LampLights;
@group(0) @binding(4) var lamp_shadow_maps: texture_depth_2d_array;

// Whether the scene has any lamp at all: a pipeline-overridable constant each pipeline built on
// this file sets from the scene (src/gpu/common.rs: FrameBinding::lamp_constants). At `false`
// `lamp_count` is the constant 0 and the compiler drops the lamps' code from the pipeline: a CPU
// adapter (lavapipe) runs every branch of a shader for every pixel, taken or not, so a lamp
// loop that runs no turn still cost a quarter of the fog pass there.
override LAMPS_IN_SCENE: bool = true;

// Whether the directional light (the moon) casts shadows (`lights.directional.shadows`), set by
// the same passes from the scene (FrameBinding::lamp_constants). At `false` `moon_shadow` is the
// constant 1 and its lookups are compiled out: the same bytes as a scene without the field.
override MOON_SHADOWS: bool = false;

// How many lamps there are, never more than the array holds (0 where `LAMPS_IN_SCENE` is off).
fn lamp_count() -> u32 {
    if !LAMPS_IN_SCENE {
        return 0u;
    }
    return min(lamp_lights.count.x, MAX_LAMPS);
}

// A spot's cone at the unit direction `from_lamp`: 1 inside, fading to 0 over the outer part
// of the angle; always 1 for a point lamp.
fn lamp_cone(lamp: LampLight, from_lamp: vec3<f32>) -> f32 {
    if lamp.spot.w < -1.5 {
        return 1.0;
    }
    return smoothstep(lamp.spot.w, lamp.shadow.z, dot(from_lamp, lamp.spot.xyz));
}

// The light's fade with distance: the square of 1 − distance / range (the ball's light's model).
fn lamp_falloff(lamp: LampLight, distance_world: f32) -> f32 {
    let edge = clamp(1.0 - distance_world / max(lamp.pos_world.w, 1e-4), 0.0, 1.0);
    return edge * edge;
}

// Which of the lamp's faces sees the direction `to_point` from the lamp: a spot's only face,
// or for a point lamp the cube face of the largest component (+x, −x, +y, −y, +z, −z).
fn lamp_face(lamp: LampLight, to_point: vec3<f32>) -> u32 {
    let first = u32(lamp.shadow.x);
    if lamp.shadow.y < 6.0 {
        return first;
    }
    let a = abs(to_point);
    if a.x >= a.y && a.x >= a.z {
        return first + select(1u, 0u, to_point.x >= 0.0);
    }
    if a.y >= a.z {
        return first + select(3u, 2u, to_point.y >= 0.0);
    }
    return first + select(5u, 4u, to_point.z >= 0.0);
}

// 1 where a texel of `layer` holds a caster no nearer than `reference` (lit), else 0; texels
// outside the face are read at its edge.
fn lamp_shadow_tap(layer: u32, texel: vec2<i32>, reference: f32) -> f32 {
    let size = vec2<i32>(textureDimensions(lamp_shadow_maps));
    let stored = textureLoad(lamp_shadow_maps, clamp(texel, vec2<i32>(0), size - vec2<i32>(1)), layer, 0);
    return select(0.0, 1.0, stored >= reference);
}

// 1 where each of the four texels of `layer` from `texel` to `texel` + (1, 1) holds a caster
// no nearer than `reference` (lit), else 0: x the texel at `texel`, y the one right of it, z
// the one below, w the one below right. Texels outside the face are read at its edge.
//
// One `textureGather` reads the four (`texel_gather`, common.wgsl). The stored depths are
// compared here, exactly.
fn shadow_quad(layer: u32, texel: vec2<i32>, reference: f32) -> vec4<f32> {
    let size = vec2<f32>(textureDimensions(lamp_shadow_maps));
    let corner = (vec2<f32>(texel) + vec2<f32>(1.0)) / size;
    // Gathered in the order (x, y+1), (x+1, y+1), (x+1, y), (x, y).
    let stored = textureGather(lamp_shadow_maps, texel_gather, corner, layer).wzxy;
    return select(vec4<f32>(0.0), vec4<f32>(1.0), stored >= vec4<f32>(reference));
}

// How much of the lamp's light reaches `pos_world`, 0 (in shadow) to 1 (lit). The point is
// compared `bias_texels` shadow texels nearer the lamp than it is, so a surface does not shadow
// itself; `wide` picks the filter (`shadow_filtered`).
fn lamp_shadow(lamp: LampLight, pos_world: vec3<f32>, bias_texels: f32, wide: bool) -> f32 {
    if lamp.shadow.x < 0.0 {
        return 1.0;
    }
    let to_point = pos_world - lamp.pos_world.xyz;
    let layer = lamp_face(lamp, to_point);
    let clip = lamp_lights.faces[layer].clip_from_world * vec4<f32>(pos_world, 1.0);
    if clip.w <= 1e-6 {
        return 1.0;
    }
    let distance_world = length(to_point);
    let texel_world = distance_world * lamp.shadow.w;
    let reference = (distance_world - bias_texels * texel_world) / max(lamp.pos_world.w, 1e-4);
    let ndc = clip.xy / clip.w;
    return shadow_filtered(layer, ndc, reference, wide);
}

// The share of `layer`'s texels round the point at `ndc` (the map's picture, −1..1) whose
// caster is no nearer than `reference`: `wide` filters over a 4×4 tent of texels (a 3×3 box,
// bilinearly: soft edges on surfaces); otherwise over 2×2 bilinearly (the fog, sampled many
// times a pixel). The weights are explicit: the same on every adapter.
fn shadow_filtered(layer: u32, ndc: vec2<f32>, reference: f32, wide: bool) -> f32 {
    let size = f32(textureDimensions(lamp_shadow_maps).x);
    let texel_pos = (ndc * vec2<f32>(0.5, -0.5) + vec2<f32>(0.5)) * size - vec2<f32>(0.5);
    let base = floor(texel_pos);
    let f = texel_pos - base;
    let i = vec2<i32>(base);
    if !wide {
        let q = shadow_quad(layer, i, reference);
        return mix(mix(q.x, q.y, f.x), mix(q.z, q.w, f.x), f.y);
    }
    // Texels i − 1 .. i + 2 on each axis weigh (1 − f, 1, 1, f) / 3. Read one by one: four
    // gathers made the moonlit scene's `scene` pass slower on an H200 (0.237 against 0.213 ms
    // at 1080p).
    let wx = array<f32, 4>((1.0 - f.x) / 3.0, 1.0 / 3.0, 1.0 / 3.0, f.x / 3.0);
    let wy = array<f32, 4>((1.0 - f.y) / 3.0, 1.0 / 3.0, 1.0 / 3.0, f.y / 3.0);
    var lit = 0.0;
    for (var y = 0; y < 4; y += 1) {
        var row = 0.0;
        for (var x = 0; x < 4; x += 1) {
            row += wx[x] * lamp_shadow_tap(layer, i + vec2<i32>(x - 1, y - 1), reference);
        }
        lit += wy[y] * row;
    }
    return lit;
}

// The light every lamp casts on a surface at `pos_world` facing `normal_world`: Lambert, the
// range's fade, the cone, and the shadow. The shadow is looked up a little off the surface
// along its normal (more where the light grazes it) and a texel and a half nearer the lamp:
// no acne on lit faces.
fn lamp_light_on_surface(pos_world: vec3<f32>, normal_world: vec3<f32>) -> vec3<f32> {
    var light = vec3<f32>(0.0);
    for (var i = 0u; i < lamp_count(); i += 1u) {
        let lamp = lamp_lights.lamps[i];
        let to_lamp = lamp.pos_world.xyz - pos_world;
        let distance_world = length(to_lamp);
        if distance_world >= lamp.pos_world.w || distance_world <= 1e-5 {
            continue;
        }
        let toward = to_lamp / distance_world;
        let facing = max(dot(normal_world, toward), 0.0);
        let cone = lamp_cone(lamp, -toward);
        if facing <= 0.0 || cone <= 0.0 {
            continue;
        }
        let texel_world = distance_world * lamp.shadow.w;
        let offset_world = texel_world * (1.0 + 2.0 * (1.0 - facing));
        let shadow = lamp_shadow(lamp, pos_world + normal_world * offset_world, 1.5, true);
        light += lamp.color.rgb * (lamp_falloff(lamp, distance_world) * facing * cone * shadow);
    }
    return light;
}

// The light the fog scatters toward the eye at `pos_world` from every lamp (linear): each
// lamp's colour times its fog glow, the range's fade and the cone, dark where the lamp's shadow
// map says a caster stands between the lamp and the point. Added to the fog's colour in
// `fog_medium`, so every compositor shows the lit cone and the shadows through the fog.
fn lamp_light_in_fog(pos_world: vec3<f32>) -> vec3<f32> {
    var glow = vec3<f32>(0.0);
    for (var i = 0u; i < lamp_count(); i += 1u) {
        let lamp = lamp_lights.lamps[i];
        let to_point = pos_world - lamp.pos_world.xyz;
        let distance_world = length(to_point);
        if distance_world >= lamp.pos_world.w || distance_world <= 1e-5 {
            continue;
        }
        let cone = lamp_cone(lamp, to_point / distance_world);
        if cone <= 0.0 || lamp.color.w <= 0.0 {
            continue;
        }
        let shadow = lamp_shadow(lamp, pos_world, 2.0, false);
        glow += lamp.color.rgb * (lamp.color.w * lamp_falloff(lamp, distance_world) * cone * shadow);
    }
    return glow;
}

// `shadow_filtered`'s 4×4 tent at `uv` (0..1 across the map) in four comparing reads
// (`shadow_compare`), for the moon's shadows on surfaces. Along each axis texels i − 1 and i
// weigh 2 − f together and are read between them at 1 / (2 − f); texels i + 1 and i + 2 weigh
// 1 + f and are read at f / (1 + f); each pair's weight is over 3. Sixteen loads and compares
// become four reads: the moonlit scene's `scene` pass took 0.183 ms against 0.212 at 1080p on
// an H100 (benches/runs/2026-12-07-h100).
fn moon_tent_compared(layer: u32, uv: vec2<f32>, reference: f32) -> f32 {
    let size = vec2<f32>(textureDimensions(lamp_shadow_maps));
    let texel_pos = uv * size - vec2<f32>(0.5);
    let base = floor(texel_pos);
    let f = texel_pos - base;
    let low = (base - vec2<f32>(1.0) + 1.0 / (2.0 - f) + vec2<f32>(0.5)) / size;
    let high = (base + vec2<f32>(1.0) + f / (1.0 + f) + vec2<f32>(0.5)) / size;
    let w_low = (2.0 - f) / 3.0;
    let w_high = (1.0 + f) / 3.0;
    let a = textureSampleCompareLevel(lamp_shadow_maps, shadow_compare, low, layer, reference);
    let b = textureSampleCompareLevel(lamp_shadow_maps, shadow_compare, vec2<f32>(high.x, low.y), layer, reference);
    let c = textureSampleCompareLevel(lamp_shadow_maps, shadow_compare, vec2<f32>(low.x, high.y), layer, reference);
    let d = textureSampleCompareLevel(lamp_shadow_maps, shadow_compare, high, layer, reference);
    return w_low.y * (w_low.x * a + w_high.x * b) + w_high.y * (w_low.x * c + w_high.x * d);
}

// How much of the moon's light reaches `pos_world`, 0 (in shadow) to 1 (lit), from its
// orthographic map (src/gpu/moon_shadow.rs), compared `bias_texels` texels nearer the moon;
// `wide` picks the filter (`shadow_filtered`). 1 outside the map and wherever the scene has no
// moon shadows (`MOON_SHADOWS` off: the lookups are compiled out).
fn moon_shadow(pos_world: vec3<f32>, bias_texels: f32, wide: bool) -> f32 {
    if !MOON_SHADOWS {
        return 1.0;
    }
    let moon = lamp_lights.moon;
    if moon.map.x < 0.0 {
        return 1.0;
    }
    let clip = moon.clip_from_world * vec4<f32>(pos_world, 1.0);
    // Beyond the far plane nothing was drawn: compared at most at the cleared depth, lit.
    let reference = min(clip.z - bias_texels * moon.map.y * moon.map.z, 1.0);
    let uv = clip.xy * vec2<f32>(0.5, -0.5) + vec2<f32>(0.5);
    var lit = 0.0;
    if wide {
        lit = moon_tent_compared(u32(moon.map.x), uv, reference);
    } else {
        // The fog's 2×2: one comparing read (common.wgsl, `shadow_compare`).
        lit = textureSampleCompareLevel(lamp_shadow_maps, shadow_compare, uv, u32(moon.map.x), reference);
    }
    // Outside the picture, lit (a select, not an early return: lavapipe's compiler crashed on
    // one here).
    return select(1.0, lit, all(abs(clip.xy) <= vec2<f32>(1.0)));
}

// The moon's shadow on a surface at `pos_world` facing `normal_world`, where the light meets it
// at `facing` (the cosine, above 0). The lookup is a little off the surface along its normal
// and nearer the moon, both more where the light grazes it (the floor under a low moon), so a
// lit face does not shadow itself.
fn moon_shadow_on_surface(pos_world: vec3<f32>, normal_world: vec3<f32>, facing: f32) -> f32 {
    let texel_world = lamp_lights.moon.map.y;
    let graze = 1.0 - facing;
    let offset_world = texel_world * (1.0 + 2.0 * graze);
    return moon_shadow(pos_world + normal_world * offset_world, 1.5 + 3.0 * graze, true);
}
