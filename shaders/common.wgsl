// common.wgsl: what every pass that draws into the world shares — the per-frame uniforms
// (camera, lights), the engine's distance fog with its height falloff, and the colour helpers.
//
// Rust concatenates this file in front of a pass's own file (see src/gpu/shaders.rs), so a
// pass sees `frame` at group 0, binding 0 and `distance_fog` at group 0, binding 2 without
// declaring them.
//
// Conventions: world Y up, the floor at y = 0, every colour here is linear light.

// keep in sync with src/gpu/common.rs: FrameUniforms
struct FrameUniforms {
    // World to clip space (perspective, depth 0..1).
    clip_from_world: mat4x4<f32>,
    // xyz: camera position (world); w: time of the frame in seconds.
    eye_world: vec4<f32>,
    // xyz: centre of the ball (world); w: its radius (world units).
    ball_world: vec4<f32>,
    // xyz: position of the ball's point light (world); w: its range (world units).
    ball_light_world: vec4<f32>,
    // rgb: the point light's colour times this frame's intensity; w: the ball's spin (radians).
    ball_light_color: vec4<f32>,
    // rgb: ambient colour times intensity; w: how wet the ground is, 0..1 (0 without weather).
    ambient_color: vec4<f32>,
    // xyz: unit vector the directional light travels along (world); w: 1 while a later sample
    // of `--edge-samples` draws the pixels at an edge alone (`outside_edges`), else 0.
    sun_dir_world: vec4<f32>,
    // rgb: directional colour times intensity; w: the sample's fog phase (0.5 for one sample),
    // where the sheets stand in their slabs (fog.wgsl, `sheet_height_world`).
    sun_color: vec4<f32>,
    // rgb: the ambient light from below, colour times intensity (linear), or the ambient colour
    // where the scene names none; w: 1 where it does, else 0 (`ambient_on_surface`).
    ambient_ground: vec4<f32>,
    // The physical fog medium (fog.wgsl, `medium_in_scattering`): x its albedo; y its
    // multiple-scattering octaves; z the last octave's share of the extinction (0.5ⁿ); w:
    // unused. Zeros with the seed medium.
    medium: vec4<f32>,
    // The physical medium's phase, two lobes an octave (fog.wgsl, `phase_lobe`): 2n the
    // Henyey–Greenstein lobe of octave n, 2n + 1 its Draine lobe, whose w is Draine's α.
    // Zeros with the seed medium and past the medium's octaves.
    medium_octaves: array<vec4<f32>, 8>,
    // The clouds and the water in this sample (sky.wgsl); zeros in a scene with neither.
    sky: SkyParams,
    // Where the fog's noise points lie this moment, as the `fog_lattice` pass filled them
    // (fog.wgsl, `fog_points_noise`): 2n and 2n + 1 the `origin_f32` and `last_f32` of octave
    // n's box, 6 the points texture's extent. The lattice's header holds them too, but a GPU
    // reads a uniform's fields as operands and a storage buffer's by loads. Zeros where the
    // fog hashes its noise.
    noise_points: array<vec4<f32>, 7>,
    // The box the fog's shadow grid spans (world), this moment: xyz its lowest corner and its
    // size (`fog_light_depths`, src/gpu/passes/fog_shadow.rs: `GridBox`). Zeros where the fog
    // does not shadow itself.
    fog_shadow_low: vec4<f32>,
    fog_shadow_size: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;

// The ambient light on a surface facing the unit `normal_world`: the hemisphere blend of the
// light from above (`ambient_color`) and from below (`ambient_ground`) by the way it faces. A
// scene without a ground colour gets `ambient_color` itself (a `select`, so its exact bits).
fn ambient_on_surface(normal_world: vec3<f32>) -> vec3<f32> {
    let facing_up = 0.5 + 0.5 * normal_world.y;
    let hemisphere = mix(frame.ambient_ground.rgb, frame.ambient_color.rgb, facing_up);
    return select(frame.ambient_color.rgb, hemisphere, frame.ambient_ground.w > 0.5);
}

// The ambient light a point of a medium (the physical fog) scatters, per unit of albedo: the
// mean of the two hemispheres (any phase integrates to 1 over the sphere), or `ambient_color`
// without a ground colour (which the weather may have changed this frame).
fn ambient_in_medium() -> vec3<f32> {
    let hemispheres = 0.5 * (frame.ambient_color.rgb + frame.ambient_ground.rgb);
    return select(frame.ambient_color.rgb, hemispheres, frame.ambient_ground.w > 0.5);
}

// A nearest, clamp-to-edge sampler, with which a pass reads four texels in one
// `textureGather`: the shadow maps' (lamps.wgsl, `shadow_quad`) and a fluid map's channel
// (fog.wgsl, `sample_map_g`). A gather is pointed at the corner its four texels share, exactly
// half a texel from each centre, so it picks those texels on every adapter, however finely it
// resolves a coordinate; clamped to the edge, as a `textureLoad` of clamped coordinates is.
@group(0) @binding(10) var texel_gather: sampler;

// Two filtered reads for speed: a bilinear, clamp-to-edge sampler (`medium_filter`: the fog's
// shadow grid, which only the physical medium has, and on GPUs the noise lattice's points,
// fog.wgsl) and its comparing twin (`shadow_compare`: the moon's shadow map, lit where the
// stored depth is no nearer than the reference). One filtered read replaces four or eight loads
// and their blend. A sampler blends with as few as 8 fractional bits on some GPUs, so these
// reads differ from adapter to adapter by a fraction of a level. On a CPU adapter, scenes
// without the physical medium or moon shadows never take them.
@group(0) @binding(11) var medium_filter: sampler;
@group(0) @binding(12) var shadow_compare: sampler_comparison;

// 1 where a pixel of the frame's first sample is at an edge (edges.wgsl, src/gpu/passes/edges.rs).
@group(0) @binding(7) var edge_mask: texture_2d<u32>;

// Whether a compute pass skips `pixel`: this sample draws the edges alone and the pixel is not
// at one. Always false for the first sample and without edge samples.
fn outside_edges(pixel: vec2<u32>) -> bool {
    return frame.sun_dir_world.w > 0.5 && textureLoad(edge_mask, vec2<i32>(pixel), 0).x == 0u;
}

// ---- The distance fog -------------------------------------------------------------------
//
// Linear, exponential or exponential-squared, with density falling off with altitude:
// density(y) = density · exp(−falloff · (y − base)), world Y up. Along the straight segment
// from the eye to a point the exponential integrates in closed form, so the optical distance
// is the distance times the mean relative density over the segment: one `exp`, no marching.
// With falloff 0 that mean is exactly 1 and the fog is what it was before height falloff.
// Every function below has a CPU twin in src/gpu/distance_fog.rs, written operation for
// operation alike and tested there (level rays, the sign of Y, overflow, numerical
// integration): keep in sync with src/gpu/distance_fog.rs.

// keep in sync with src/gpu/distance_fog.rs: FOG_MODE_*
const FOG_MODE_LINEAR: u32 = 0u;
const FOG_MODE_EXPONENTIAL: u32 = 1u;
const FOG_MODE_EXPONENTIAL_SQUARED: u32 = 2u;
// keep in sync with src/gpu/distance_fog.rs: EXPONENT_LIMIT, EXPONENT_FLOOR,
// SERIES_BLEND_START, SERIES_BLEND_END, DEPTH_LIMIT
const FOG_EXPONENT_LIMIT: f32 = 40.0;
const FOG_EXPONENT_FLOOR: f32 = -80.0;
const FOG_SERIES_BLEND_START: f32 = 0.1;
const FOG_SERIES_BLEND_END: f32 = 0.2;
const FOG_DEPTH_LIMIT: f32 = 64.0;

// keep in sync with src/gpu/distance_fog.rs: DistanceFogParams
struct DistanceFogParams {
    // rgb: colour things fade to (linear); w: the most of it that may cover anything, 0..1.
    color: vec4<f32>,
    // x: linear start (near); y: linear end (far); z: clear air before the haze (start);
    // w: extinction at the base height (density), 1/world unit.
    range: vec4<f32>,
    // x: height falloff, 1/world unit; y: base height (world); z, w: unused.
    height: vec4<f32>,
    // x: FOG_MODE_*; y, z, w: unused.
    mode: vec4<u32>,
}

@group(0) @binding(2) var<uniform> distance_fog: DistanceFogParams;

// keep in sync with src/gpu/common.rs: DISTANCE_FOG_FORM_ANY, DISTANCE_FOG_FORM_FLAT
// The scene's distance fog as a pipeline constant (`FrameBinding::distance_fog_constants`):
// its FOG_MODE_* plus FOG_FORM_FLAT where its height falloff is 0, or FOG_FORM_ANY (every
// pipeline that does not say): the mode and the falloff read from `distance_fog`. Neither
// changes while a scene renders (the weather moves the range and the colour). A CPU adapter
// (lavapipe) runs both sides of every branch for every pixel, so there the modes not taken and
// the falloff's exponentials cost as much as the one taken; compiled out, they cost nothing.
// The same picture: with falloff 0 the mean density is exactly 1 (`fog_height_mean`).
const FOG_FORM_ANY: u32 = 255u;
const FOG_FORM_FLAT: u32 = 4u;
override DISTANCE_FOG_FORM: u32 = 255u;

// The distance fog's FOG_MODE_*: the pipeline's constant, or read from `params`.
fn distance_fog_mode(params: DistanceFogParams) -> u32 {
    if DISTANCE_FOG_FORM == FOG_FORM_ANY {
        return params.mode.x;
    }
    return DISTANCE_FOG_FORM & 3u;
}

// (1 − exp(−x)) / x for x ≥ 0: the mean of exp(−s) over s in [0, x], exactly 1 at x = 0.
// Near 0 the closed form is 0/0 and loses its digits, so its series is used there and the two
// are blended by a smoothstep: no step as a view ray turns level.
// keep in sync with src/gpu/distance_fog.rs: exp_mean
fn fog_exp_mean(x: f32) -> f32 {
    let series = 1.0
        - x * (1.0 / 2.0 - x * (1.0 / 6.0 - x * (1.0 / 24.0 - x * (1.0 / 120.0 - x / 720.0))));
    let closed = (1.0 - exp(-x)) / max(x, 1e-6);
    return mix(series, closed, smoothstep(FOG_SERIES_BLEND_START, FOG_SERIES_BLEND_END, x));
}

// The mean, over the straight segment from height y_a to height y_b, of the density relative
// to the base height, exp(−falloff · (y − base)). The exponents at both ends are clamped, so a
// camera far below the base height cannot overflow, and the larger is factored out.
// keep in sync with src/gpu/distance_fog.rs: height_mean
fn fog_height_mean(y_a: f32, y_b: f32, falloff: f32, base: f32) -> f32 {
    // No falloff in this pipeline's scene: exactly what the lines below give for falloff 0.
    if DISTANCE_FOG_FORM != FOG_FORM_ANY && (DISTANCE_FOG_FORM & FOG_FORM_FLAT) != 0u {
        return 1.0;
    }
    // World Y is up: the higher the point, the thinner the air.
    let e_a = clamp(-falloff * (y_a - base), FOG_EXPONENT_FLOOR, FOG_EXPONENT_LIMIT);
    let e_b = clamp(-falloff * (y_b - base), FOG_EXPONENT_FLOOR, FOG_EXPONENT_LIMIT);
    let e_high = max(e_a, e_b);
    let spread = e_high - min(e_a, e_b);
    return exp(e_high) * fog_exp_mean(spread);
}

// How much of the distance fog covers `pos_world` seen from `eye_world`, 0 (none) to the
// fog's max opacity. Everything drawn is fogged through this one function.
// keep in sync with src/gpu/distance_fog.rs: distance_fog_factor
fn distance_fog_factor(
    eye_world: vec3<f32>,
    pos_world: vec3<f32>,
    params: DistanceFogParams,
) -> f32 {
    let distance_world = length(pos_world - eye_world);
    let falloff = params.height.x;
    let base_world = params.height.y;
    var amount: f32;
    let mode = distance_fog_mode(params);
    if mode == FOG_MODE_LINEAR {
        let fogged_world = distance_world
            * fog_height_mean(eye_world.y, pos_world.y, falloff, base_world);
        let near_world = params.range.x;
        let far_world = params.range.y;
        amount = clamp((fogged_world - near_world) / max(far_world - near_world, 1e-4), 0.0, 1.0);
    } else {
        // The haze begins `start` along the ray: integrate from there to the point.
        let start_world = min(params.range.z, distance_world);
        let t = start_world / max(distance_world, 1e-6);
        let haze_from_y = eye_world.y + (pos_world.y - eye_world.y) * t;
        let mean = fog_height_mean(haze_from_y, pos_world.y, falloff, base_world);
        let depth = min(params.range.w * (distance_world - start_world) * mean, FOG_DEPTH_LIMIT);
        if mode == FOG_MODE_EXPONENTIAL {
            amount = 1.0 - exp(-depth);
        } else {
            amount = 1.0 - exp(-depth * depth);
        }
    }
    return amount * params.color.w;
}

// How much of the distance fog covers a point seen from this frame's camera (under water, the
// water's fog: sky.wgsl's `water_hidden`).
fn distance_fog_amount(pos_world: vec3<f32>) -> f32 {
    let air = distance_fog_factor(frame.eye_world.xyz, pos_world, distance_fog);
    return water_hidden(air, pos_world);
}

// A colour seen through the distance fog from the camera (under water, through the water's fog
// instead: sky.wgsl's `water_seen`).
fn apply_distance_fog(color: vec3<f32>, pos_world: vec3<f32>) -> vec3<f32> {
    return apply_distance_fog_from(color, pos_world, frame.eye_world.xyz, distance_fog);
}

// `apply_distance_fog` for the eye at `eye_world` through the distance fog `params`, where a
// pass reads them from elsewhere than the uniforms (the raster fog's flat inputs).
fn apply_distance_fog_from(
    color: vec3<f32>,
    pos_world: vec3<f32>,
    eye_world: vec3<f32>,
    params: DistanceFogParams,
) -> vec3<f32> {
    let air = distance_fog_factor(eye_world, pos_world, params);
    return water_seen(mix(color, params.color.rgb, air), color, pos_world);
}

// Display (sRGB) components to linear light, the exact piecewise curve.
fn srgb_to_linear(srgb: vec3<f32>) -> vec3<f32> {
    let low = srgb / 12.92;
    let high = pow((srgb + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(high, low, srgb <= vec3<f32>(0.04045));
}

// ---- The fog's shadow on its own light (src/gpu/passes/fog_shadow.rs) --------------------
//
// With a physical medium that shadows itself, the `fog_shadow` pass fills a grid over the fog's
// box each moment with the optical depth from each cell's centre to the moon (x) and to the
// ball's light (y). The fog (fog.wgsl, `medium_in_scattering`) and the surfaces
// (scene.wgsl, `incoming_light`) read it here, blended between the eight cells round the point
// by hand, so every adapter blends alike.

// Whether the fog shadows itself (`FrameBinding::fog_shadow_constants`): off, every read of the
// grid is compiled out and the pictures keep their bytes.
override FOG_SELF_SHADOWING: bool = false;

// Cells of the grid along x, y (height) and z.
// keep in sync with src/gpu/passes/fog_shadow.rs: GRID_CELLS
const FOG_SHADOW_GRID: vec3<u32> = vec3<u32>(64u, 16u, 64u);

// Each cell's four depths: texel (x, z) of layer `height` (a texture, not a storage buffer:
// CPU adapters fetch texels as vectors but load a storage buffer lane by lane), in half floats,
// so a sampler filters them.
@group(0) @binding(9) var fog_shadow_depths: texture_2d_array<f32>;

// The optical depth from `pos_world` to the moon (x), the ball's light (y), the fires (z) and
// the lamps (w), blended from the grid; outside it the nearest cells' (clamped to the edge).
// Each of the two layers round the point is read bilinearly by `medium_filter`, and the two are
// blended by hand: one filtered read a layer instead of four loads.
fn fog_light_depths(pos_world: vec3<f32>) -> vec4<f32> {
    let unit = (pos_world - frame.fog_shadow_low.xyz) / frame.fog_shadow_size.xyz;
    let layer_pos = unit.y * f32(FOG_SHADOW_GRID.y) - 0.5;
    let below = floor(layer_pos);
    let last = i32(FOG_SHADOW_GRID.y) - 1;
    let low = clamp(i32(below), 0, last);
    let high = clamp(i32(below) + 1, 0, last);
    let depths_low = textureSampleLevel(fog_shadow_depths, medium_filter, unit.xz, low, 0.0);
    let depths_high = textureSampleLevel(fog_shadow_depths, medium_filter, unit.xz, high, 0.0);
    return mix(depths_low, depths_high, layer_pos - below);
}

// Corner `index` (0 to 2) of one triangle over the whole picture, in normalised device
// coordinates (it reaches 3 on each axis, past the picture's corner).
fn full_screen_ndc(index: u32) -> vec2<f32> {
    let corner = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return corner * 2.0 - 1.0;
}
