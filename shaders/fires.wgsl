// fires.wgsl: the scene's torches and braziers as lights — what the `scene` pass (lit floor and
// pillars), the `fog` pass (the fog glowing round each fire) and the `flame` pass (the flames
// themselves) share.
//
// The fires are a fixed-size uniform array with a count, bound at group 0, binding 1 beside the
// frame uniforms, so any pass that binds the frame, raster or compute, can read them. It is
// written once per renderer: everything that moves (the flicker, the flame's licking) is a
// function of the frame's time and each fire's phase, worked out here. What is the same for
// every pixel (the flicker, where the light sits, its range) is worked out once per frame by
// the `fire_flicker` pass (fire_flicker.wgsl) into `fires_now` (binding 5), which the per-pixel
// loops read instead.
//
// Needs common.wgsl (`frame`, for the time).

// keep in sync with src/scene/fires.rs: MAX_FIRES and src/gpu/fire_lights.rs: MAX_FIRE_LIGHTS
const MAX_FIRES: u32 = 64u;
// keep in sync with src/scene/fires.rs: LIGHT_HEIGHT_IN_FLAME
const LIGHT_HEIGHT_IN_FLAME: f32 = 0.33;

// keep in sync with src/gpu/fire_lights.rs: FireLight
struct FireLight {
    // xyz: the foot of the flame (world); w: the light's range (world units).
    foot_world: vec4<f32>,
    // rgb: the light's colour times its mean intensity (linear); w: the phase (radians).
    light_color: vec4<f32>,
    // rgb: the fire's colour (linear), the flame's middle tones; w: ember strength.
    flame_color: vec4<f32>,
    // x: flame height (world); y: flicker amount; z: glow strength in the fog; w: the flame's
    // width relative to a torch's (braziers burn wider).
    shape: vec4<f32>,
}

// keep in sync with src/gpu/fire_lights.rs: FireLights
struct FireLights {
    // x: how many entries of `fires` are in use; y, z, w: unused.
    count: vec4<u32>,
    fires: array<FireLight, 64>,
}

@group(0) @binding(1) var<uniform> fire_lights: FireLights;

// One fire in this frame, as the `fire_flicker` pass works it out from `fire_lights` and the
// frame's time, with the very operations the per-pixel code used (so the same bits).
struct FireNow {
    // xyz: where the light sits (`fire_light_world`); w: its range, at least 1e-4 (world units).
    light_world: vec4<f32>,
    // x: the flicker (`fire_flicker`); y: the glow strength in the fog times the flicker;
    // z, w: 0.
    flicker: vec4<f32>,
}

// Every fire in this frame, written by the `fire_flicker` pass before any pass reads it.
// keep in sync with src/gpu/passes/fire_flicker.rs: FIRES_NOW_BYTES
struct FiresNow {
    fires: array<FireNow, 64>,
}

@group(0) @binding(5) var<uniform> fires_now: FiresNow;

// The scene's fire count as a pipeline constant (scenes with a few fires:
// `FrameBinding::fire_constants`), or 0: read from `fire_lights` (many fires, and every
// pipeline that does not set it). With the count a constant the compiler unrolls the loops
// over the fires, so each fire's data is read at a constant index: a CPU adapter (lavapipe)
// reads a uniform at an index that varies (a loop counter) one lane at a time, and a GPU
// loads the unrolled fires' uniforms ahead of their use (the temple's `fog_compute` on an H100:
// 0.800 ms against 0.871). The same fires in the same order either way, so the same bytes.
override FIRES_UNROLLED: u32 = 0u;

// Whether the loops over the fires take the shapes that suit a CPU adapter, which runs every
// branch for every pixel of a block, taken or not (`FrameBinding::fire_constants`): the fog's
// glow keeps or drops each fire by a select, and the physical medium loops over the bits of
// the fires in range. Off, a GPU skips the fires out of range by a branch.
override FIRES_ON_CPU: bool = false;

// How many fires there are, never more than the array holds.
fn fire_count() -> u32 {
    if FIRES_UNROLLED > 0u {
        return min(FIRES_UNROLLED, MAX_FIRES);
    }
    return min(fire_lights.count.x, MAX_FIRES);
}

// The flicker of a fire's light and flame: a multiplier round 1 made of three sines at
// unrelated rates, shifted by the fire's phase, and never below 0; `amount` 0 gives a steady 1.
// keep in sync with src/scene/fires.rs: fire_flicker
fn fire_flicker(time_s: f32, phase_rad: f32, amount: f32) -> f32 {
    let wobble = 0.5 * sin(time_s * 7.3 + phase_rad)
        + 0.3 * sin(time_s * 13.1 + phase_rad * 2.0 + 1.3)
        + 0.2 * sin(time_s * 23.7 + phase_rad * 3.0 + 4.1);
    return max(1.0 + amount * wobble, 0.0);
}

// Fire `fire_index`'s flicker at the frame's time, as the `fire_flicker` pass worked it out.
fn fire_flicker_of(fire_index: u32) -> f32 {
    return fires_now.fires[fire_index].flicker.x;
}

// Where a fire's point light sits (world): a third of the way up its flame.
fn fire_light_world(fire: FireLight) -> vec3<f32> {
    return fire.foot_world.xyz + vec3<f32>(0.0, fire.shape.x * LIGHT_HEIGHT_IN_FLAME, 0.0);
}

// The fires whose range reaches `pos_world` (nearer than their range): one bit each, fires 0 to
// 31 in x and 32 to 63 in y. The fog glow loops over these bits (`take_lowest_fire`) instead
// of over every fire: a CPU adapter (lavapipe) runs every branch for every pixel of a block,
// taken or not, but leaves a loop once no pixel of the block has a turn left, so the flicker
// and the fade then run only for the fires in range of some pixel of the block.
fn fires_in_range(pos_world: vec3<f32>) -> vec2<u32> {
    var in_range = vec2<u32>(0u);
    for (var i = 0u; i < fire_count(); i += 1u) {
        let light = fires_now.fires[i].light_world;
        let distance_world = length(pos_world - light.xyz);
        let range_world = light.w;
        in_range[i / 32u] |= select(0u, 1u << (i % 32u), distance_world < range_world);
    }
    return in_range;
}

// The lowest fire marked in `in_range` (at least one is), its bit cleared: the fires come in
// index order, so sums over them keep the order of a loop over every fire.
fn take_lowest_fire(in_range: ptr<function, vec2<u32>>) -> u32 {
    let marks = *in_range;
    let low = marks.x != 0u;
    let word = select(marks.y, marks.x, low);
    // Clear the bit taken: the lowest set bit of its word.
    let rest = word & (word - 1u);
    *in_range = select(vec2<u32>(marks.x, rest), vec2<u32>(rest, marks.y), low);
    return select(32u, 0u, low) + firstTrailingBit(word);
}

// The light every fire casts on a surface at `pos_world` facing `normal_world` in this frame:
// the ball lamp's model (Lambert, fading as the square of 1 - distance / range), flickering.
fn fire_light_on_surface(pos_world: vec3<f32>, normal_world: vec3<f32>) -> vec3<f32> {
    var lit = vec3<f32>(0.0);
    // A plain loop that skips the fires out of range: the in-range mask of the fog glow
    // (`fires_in_range`) measured 0.32 ms slower here on a discrete GPU (H200, 1080p scene
    // pass 3.48 against 3.16 ms) and no faster on lavapipe, whose scene pass is cheap.
    for (var i = 0u; i < fire_count(); i += 1u) {
        let light = fires_now.fires[i].light_world;
        let to_fire = light.xyz - pos_world;
        let distance_world = length(to_fire);
        let range_world = light.w;
        if distance_world >= range_world {
            continue;
        }
        let falloff = 1.0 - distance_world / range_world;
        let facing = max(dot(normal_world, to_fire / max(distance_world, 1e-4)), 0.0);
        let color = fire_lights.fires[i].light_color.rgb;
        lit += color * (falloff * falloff * facing * fire_flicker_of(i));
    }
    return lit;
}

// How fast the glow in the fog fades with distance from the light, per world unit (the ball's
// glow in fog_medium fades at 1.15).
const FIRE_GLOW_FADE: f32 = 1.0;

// Whether the fog's glow loops over the fires in range by their bits (`fires_in_range`, on) or
// over every fire, skipping those out of range (off). The same sum in the same order either
// way: the bits suit a CPU adapter, which runs every branch of a block; a GPU is faster with
// the plain loop (H200: `fog_compute` 1.49 ms against 1.66 at 1920 × 1080), and so is a CPU
// adapter where the loop is unrolled (`FIRES_UNROLLED`: each fire read at a constant index;
// the temple at 320 × 180, half size, with the other loops over the fires unrolled too: 12 %
// fewer instructions a frame). Set by the passes that read the fog
// (`FrameBinding::fog_constants`).
override FIRE_GLOW_BY_MASK: bool = true;

// What the fog's glow reads of one fire in this frame.
struct FireGlow {
    // xyz: where the light sits (world); w: its range (world units): `FireNow::light_world`.
    light_world: vec4<f32>,
    // rgb: the light's colour (`FireLight::light_color`); w: the glow strength in the fog
    // times the flicker (`FireNow::flicker.y`).
    color_glow: vec4<f32>,
}

// keep in sync with src/gpu/common.rs: MAX_FIRES_AS_INPUTS
// The most fires the raster fog hands its fragments as inputs (`FIRE_GLOW_FROM_INPUTS`), two
// inter-stage variables each.
const MAX_FIRES_AS_INPUTS: u32 = 7u;

// Whether the fog's glow reads the fires from `fire_glow_inputs` (on: the raster `fog` pass on
// CPU adapters, whose vertices read the fires from the uniforms and hand them to the fragments
// as flat inputs, `vs_fog_with_uniforms`) or from the uniforms (off). The same values either
// way, so the same bytes. Lavapipe loads a uniform one lane at a time, about ten instructions for
// each float for each block of eight fragments, and reads an input once a block: the temple's
// fog pass at 640 × 360 ran in 82–85 ms a frame with the inputs against 101–109 without. Set
// by the `fog` pass (`FrameBinding::fog_uniforms_as_inputs`).
override FIRE_GLOW_FROM_INPUTS: bool = false;

// The fires as the fragment's inputs brought them (`FIRE_GLOW_FROM_INPUTS`), set at the top of
// `fs_fog_with_uniforms`.
var<private> fire_glow_inputs: array<FireGlow, MAX_FIRES_AS_INPUTS>;

// Fire `fire_index` as the glow reads it, from the uniforms.
fn fire_glow_uniforms(fire_index: u32) -> FireGlow {
    let now = fires_now.fires[fire_index];
    let color = fire_lights.fires[fire_index].light_color.rgb;
    return FireGlow(now.light_world, vec4<f32>(color, now.flicker.y));
}

// Fire `fire_index` as the glow reads it: from the fragment's inputs or from the uniforms.
fn fire_glow_source(fire_index: u32) -> FireGlow {
    if FIRE_GLOW_FROM_INPUTS {
        return fire_glow_inputs[min(fire_index, MAX_FIRES_AS_INPUTS - 1u)];
    }
    return fire_glow_uniforms(fire_index);
}

// The glow `fire` sends through the fog at a point `distance_world` from its light (nearer than
// its range).
fn fire_glow_of(fire: FireGlow, distance_world: f32) -> vec3<f32> {
    let range_world = fire.light_world.w;
    let edge = 1.0 - distance_world / range_world;
    let fade = exp(-distance_world * FIRE_GLOW_FADE) * edge * edge;
    // The glow strength times the flicker, then the fade: the order of `shape.z * flicker
    // * fade`.
    return fire.color_glow.rgb * (fire.color_glow.w * fade);
}

// The light the fog scatters toward the eye at `pos_world` from every fire in this frame (linear):
// each fire's light colour times its glow strength, fading with distance and cut off at its
// range, flickering with the fire. Fog sheets add it to their colour, so the fog glows round a
// fire as it glows round the ball.
//
// Only from the fires in range, lowest first: by their bits (`fires_in_range`) or in one loop
// over every fire (`FIRE_GLOW_BY_MASK`), the same sum in the same order.
fn fire_glow_in_fog(pos_world: vec3<f32>) -> vec3<f32> {
    var glow = vec3<f32>(0.0);
    if !FIRE_GLOW_BY_MASK {
        for (var i = 0u; i < fire_count(); i += 1u) {
            let fire = fire_glow_source(i);
            let distance_world = length(pos_world - fire.light_world.xyz);
            let in_range = distance_world < fire.light_world.w;
            if FIRES_ON_CPU {
                // A CPU adapter works the glow out for every fire whatever the branch says, so
                // it keeps or drops it with a select, which costs it less than a masked branch
                // (0.8 % of the temple's frame on lavapipe); a GPU skips the fires out of range.
                glow += select(vec3<f32>(0.0), fire_glow_of(fire, distance_world), in_range);
            } else if in_range {
                glow += fire_glow_of(fire, distance_world);
            }
        }
        return glow;
    }
    var in_range = fires_in_range(pos_world);
    while (in_range.x | in_range.y) != 0u {
        let fire = fire_glow_uniforms(take_lowest_fire(&in_range));
        glow += fire_glow_of(fire, length(pos_world - fire.light_world.xyz));
    }
    return glow;
}
