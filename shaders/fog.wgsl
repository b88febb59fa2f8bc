// fog.wgsl: the `fog` pass — ground fog as a stack of see-through horizontal sheets.
//
// Each sheet fragment reads the CPU fluid through two maps at its floor point (how much fog,
// how far the air carried it, how high it was thrown, how fast the air moves), samples a 3D
// noise where the air carried this fog, shapes the density by height and lift, fades it at the
// edges of the fog's square, carves the ball out in 3D and turns the density into alpha with
// Beer–Lambert over the spacing between sheets along the view ray. Drawn back to front with
// blending, the sheets add up the volume as a raymarch through the same slabs would; the depth
// test against the scene hides the fog behind pillars for free.
//
// `shade_sheet` holds all of the shading and takes everything it reads as arguments (no
// derivatives, and no bindings but the fires, which sit at group 0 beside the frame uniforms
// that any pass binds), so a compute compositor that marches the same sheets per pixel can
// call it and agree with this raster pass (see ARCHITECTURE.md, "Data flow").
//
// Needs common.wgsl (frame uniforms, distance fog, colours), noise.wgsl (`fog_fbm`) and
// fires.wgsl (`fire_glow_in_fog`).

// keep in sync with src/gpu/passes/fog.rs: FogKnobs
struct FogKnobs {
    // xy: the fog square's corner with the smallest x and z (world); zw: its size (world).
    area: vec4<f32>,
    // xyz: centre of the ball (world); w: its radius (world units).
    ball: vec4<f32>,
    // xyz: how far the noise drifts per second (world units); w: time of the frame (seconds).
    wind: vec4<f32>,
    // rgb: the fog's colour (display sRGB, see `shade_sheet`); w: unused.
    fog_color: vec4<f32>,
    // rgb: colour of the ball's glow in the fog (display sRGB); w: glow strength.
    glow_color: vec4<f32>,
    // x: fog floor; y: rest top; z: extra height of fully lifted fog; w: sheet spacing (world).
    layer: vec4<f32>,
    // x: extinction sigma (1/world unit); y: drift range of the map (world units);
    // z: 1 shows the fluid on the fog (the `fluid` view), 0 the fog; w: unused.
    optics: vec4<f32>,
}

// The fog at one point of one sheet: straight-alpha colour (linear) and opacity of the slab
// of fog the sheet stands for.
//
// The colour is worked out as the example does, in display (sRGB) values — the fog colour
// scaled by a tone and the ball's glow added — and converted to linear light once at the end,
// so each sheet has the example's colours while blending and lighting stay linear.
//
// `pos_world` is the point on the sheet; `view_dir_world` the unit direction from the camera
// to it. The maps are read with `map_sampler` (linear, clamp to edge) at the point's floor
// position; `fluid_map` holds density / 2, drift x and z (0.5 = none); `lift_map` holds lift
// and air speed. The fires' glow (`fire_glow_in_fog`, from the `fire_lights` binding) is added
// in linear light on top, so the fog glows round every torch and brazier.
fn shade_sheet(
    pos_world: vec3<f32>,
    view_dir_world: vec3<f32>,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
    map_sampler: sampler,
) -> vec4<f32> {
    let p = pos_world;
    let uv = (p.xz - knobs.area.xy) / knobs.area.zw;
    let debug = knobs.optics.z;

    // What the fluid says here: how much fog, where the air carried it, how high it was thrown.
    let fluid = textureSampleLevel(fluid_map, map_sampler, uv, 0.0);
    let raised = textureSampleLevel(lift_map, map_sampler, uv, 0.0);
    let amount = fluid.r * 2.0;
    let drift_world = (fluid.gb - vec2<f32>(0.5)) * knobs.optics.y;
    let lift = raised.r;

    // The layer grows upward where it was thrown, and thins a little underneath.
    let bottom_world = knobs.layer.x;
    let top_world = knobs.layer.y + lift * knobs.layer.z;
    let h = clamp((p.y - bottom_world) / (top_world - bottom_world), 0.0, 1.0);
    let profile = smoothstep(0.0, 0.06, h) * (1.0 - smoothstep(0.45, 1.0, h))
        * (1.0 - lift * 0.45 * (1.0 - h));

    // No fog here at all: skip the noise (the result would be fully transparent anyway).
    if profile * amount <= 0.0 && debug <= 0.0 {
        return vec4<f32>(0.0);
    }

    // The noise is read where the air has carried this fog: the wisps travel with the current.
    let wind_world = knobs.wind.xyz * knobs.wind.w;
    let q = vec3<f32>(p.x + drift_world.x, p.y - lift * 0.9, p.z + drift_world.y)
        * vec3<f32>(0.55, 1.4, 0.55) + wind_world;
    let n = fog_fbm(q);
    var density = (0.35 + clamp((n - 0.36) * 2.2, 0.0, 1.0)) * profile * amount;

    // Fade out toward the edges of the square, ragged by the noise.
    let edge = min(min(uv.x, 1.0 - uv.x), min(uv.y, 1.0 - uv.y));
    density *= smoothstep(0.0, 0.18, edge + (n - 0.5) * 0.12);

    // The ball takes up its room in height too (the fluid only knows about the floor).
    let to_ball = p - knobs.ball.xyz;
    let ball_radius = knobs.ball.w;
    let ball_distance = length(to_ball) + (n - 0.5) * 0.35;
    density *= smoothstep(ball_radius * 0.9, ball_radius * 1.6, ball_distance);

    // Beer–Lambert over the slab this sheet stands for, measured along the view ray.
    let thickness_world = knobs.layer.w / max(abs(view_dir_world.y), 0.2);
    let alpha = 1.0 - exp(-density * knobs.optics.x * thickness_world);

    let glow = knobs.glow_color.rgb * (knobs.glow_color.w * exp(-length(to_ball) * 1.15));
    let tone = mix(0.55, 1.05, h) * (0.85 + n * 0.3) * (1.0 + raised.g * 0.25);
    let color = knobs.fog_color.rgb * tone + glow;

    // The `fluid` view: red the fog, green and blue where it moved, shown as display colours.
    let shown = mix(color, fluid.rgb, debug);
    let debug_alpha = debug * 0.35 * step(0.5, h) * step(h, 0.55);
    let fire_glow = fire_glow_in_fog(p, knobs.wind.w) * (1.0 - debug);
    return vec4<f32>(srgb_to_linear(shown) + fire_glow, clamp(max(alpha, debug_alpha), 0.0, 1.0));
}

@group(1) @binding(0) var<uniform> fog: FogKnobs;
@group(1) @binding(1) var fluid_map: texture_2d<f32>;
@group(1) @binding(2) var lift_map: texture_2d<f32>;
@group(1) @binding(3) var map_sampler: sampler;

struct SheetOut {
    @builtin(position) pos_clip: vec4<f32>,
    @location(0) pos_world: vec3<f32>,
}

// One quad over the fog's square per instance, at the instance's height.
@vertex
fn vs_fog(@builtin(vertex_index) vertex_index: u32, @location(0) height_world: f32) -> SheetOut {
    // Two triangles: corners (0,0) (1,0) (1,1) and (0,0) (1,1) (0,1) of the square.
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0),
    );
    let xz_world = fog.area.xy + corners[vertex_index] * fog.area.zw;
    let pos_world = vec3<f32>(xz_world.x, height_world, xz_world.y);
    var out: SheetOut;
    out.pos_clip = frame.clip_from_world * vec4<f32>(pos_world, 1.0);
    out.pos_world = pos_world;
    return out;
}

// Premultiplied output: the blend state adds it over what is behind.
@fragment
fn fs_fog(in: SheetOut) -> @location(0) vec4<f32> {
    let view_dir_world = normalize(in.pos_world - frame.eye_world.xyz);
    let shaded = shade_sheet(in.pos_world, view_dir_world, fog, fluid_map, lift_map, map_sampler);
    let color = apply_distance_fog(shaded.rgb, in.pos_world);
    return vec4<f32>(color * shaded.a, shaded.a);
}
