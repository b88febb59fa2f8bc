// shadow.wgsl: the `shadow` pass — each shadowing lamp's shadow maps, one face at a time: the
// casters (the hall's static geometry, the ball, and any extra triangles such as the people's
// capsules) drawn from the lamp, each texel keeping the distance from the lamp to the nearest
// caster over the lamp's range (0..1). Where the moon casts shadows, the same casters are drawn
// into its orthographic map too (`vs_moon_shadow`), keeping the depth along the light.
//
// The face is the draw's instance index (`draw(.., face..face + 1)`), which picks its matrix
// from the lamps' uniform array. The floor casts nothing (nothing lies under it) and the
// embers are light, not matter: both are moved out of the picture.
//
// Needs common.wgsl (`frame`, for the ball's position) and lamps.wgsl (the faces and lamps).

// keep in sync with src/gpu/geometry.rs: Material
const SHADOW_MATERIAL_FLOOR: u32 = 1u;
const SHADOW_MATERIAL_BALL: u32 = 2u;
const SHADOW_MATERIAL_EMBER: u32 = 3u;

struct ShadowOut {
    @builtin(position) pos_clip: vec4<f32>,
    @location(0) pos_world: vec3<f32>,
    @location(1) @interpolate(flat) face: u32,
}

// A point of `face`'s picture.
fn shadow_vertex(pos_world: vec3<f32>, face: u32) -> ShadowOut {
    var out: ShadowOut;
    out.pos_clip = lamp_lights.faces[face].clip_from_world * vec4<f32>(pos_world, 1.0);
    out.pos_world = pos_world;
    out.face = face;
    return out;
}

// The scene pass's vertices (src/gpu/geometry.rs: SceneVertex), position and material only.
@vertex
fn vs_shadow(
    @location(0) pos_model: vec3<f32>,
    @location(3) material: u32,
    @builtin(instance_index) face: u32,
) -> ShadowOut {
    var pos_world = pos_model;
    if material == SHADOW_MATERIAL_BALL {
        pos_world = pos_model + frame.ball_world.xyz;
    }
    var out = shadow_vertex(pos_world, face);
    if material == SHADOW_MATERIAL_FLOOR || material == SHADOW_MATERIAL_EMBER {
        // Outside the clip volume: the triangle is dropped.
        out.pos_clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    return out;
}

// The moon's map (`lights.directional.shadows`): the same casters through its orthographic
// projection. No fragment stage: the rasteriser's depth (0..1 along the light) is what is kept.
@vertex
fn vs_moon_shadow(
    @location(0) pos_model: vec3<f32>,
    @location(3) material: u32,
) -> @builtin(position) vec4<f32> {
    var pos_world = pos_model;
    if material == SHADOW_MATERIAL_BALL {
        pos_world = pos_model + frame.ball_world.xyz;
    }
    if material == SHADOW_MATERIAL_FLOOR || material == SHADOW_MATERIAL_EMBER {
        return vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    return lamp_lights.moon.clip_from_world * vec4<f32>(pos_world, 1.0);
}

// The moon's fragments: nothing to write but the rasteriser's depth.
@fragment
fn fs_moon_shadow() {}

// Extra casters in the moon's map.
@vertex
fn vs_moon_shadow_extra(@location(0) pos_world: vec3<f32>) -> @builtin(position) vec4<f32> {
    return lamp_lights.moon.clip_from_world * vec4<f32>(pos_world, 1.0);
}

// Extra casters: triangles whose vertices start with a world position (three f32), whatever
// follows it.
@vertex
fn vs_shadow_extra(
    @location(0) pos_world: vec3<f32>,
    @builtin(instance_index) face: u32,
) -> ShadowOut {
    return shadow_vertex(pos_world, face);
}

// The distance from the lamp over its range, as the depth the test keeps the least of.
@fragment
fn fs_shadow(in: ShadowOut) -> @builtin(frag_depth) f32 {
    let lamp = lamp_lights.lamps[lamp_lights.faces[in.face].lamp.x];
    return min(length(in.pos_world - lamp.pos_world.xyz) / max(lamp.pos_world.w, 1e-4), 1.0);
}
