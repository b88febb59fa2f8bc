// sky.wgsl: the sky behind the hall and the water the camera may sink into — a layer of
// clouds that drifts by the weather's accumulated wind drift and closes over with its gloom,
// and a water column with its own fog that converges to the water's colour.
//
// Joined right after noise.wgsl (whose `tile_noise` the clouds read) in every module that has
// common.wgsl (src/gpu/shaders.rs, `with_sky`): common.wgsl's distance fog calls `water_seen`
// and `water_hidden`, so everything fogged is seen through the water too. Its uniforms are the
// frame uniforms' `sky`. The scene pass draws
// the sky with `sky_seen`: raster through `vs_sky`/`fs_sky` behind the hall, compute where a
// pixel's ray hits nothing (scene_compute.wgsl), so both compositors and the raymarch share one
// sky. The uniforms are worked out on the CPU in src/gpu/sky.rs, once a sample.
//
// Scenes without clouds or water leave `SKY_CLOUDS` and `WATER_IN_SCENE` off: their code is
// compiled out and every function below hands its input back untouched.

// keep in sync with src/gpu/sky.rs: SkyParams
// The frame uniforms' `sky` (common.wgsl), written each sample.
struct SkyParams {
    // rgb: the sky's base colour behind the clouds (linear); w: unused.
    base: vec4<f32>,
    // rgb: the clouds' colour now (linear); w: their coverage now, 0..1.
    cloud_color: vec4<f32>,
    // x: the layer's height (world); y: one tile of the pattern (world units); z: softness;
    // w: noise cells across a tile.
    cloud_layout: vec4<f32>,
    // xy: the pattern's drift (x, z) wrapped into one tile (world units); z: 1 / the distance
    // over which the clouds fade into the base colour; w: unused.
    cloud_offset: vec4<f32>,
    // rgb: the colour light converges to under water (linear); w: its extinction, 1/world unit.
    water_color: vec4<f32>,
    // x: the camera's share of water, 0 in the air to 1 under water; y, z, w: unused.
    water_view: vec4<f32>,
}

// keep in sync with src/gpu/sky.rs: sky_constants
// Whether the scene has water (`water`) and clouds (`clouds`).
override WATER_IN_SCENE: bool = false;
override SKY_CLOUDS: bool = false;

// Octaves of the clouds' noise, each at twice the cells of the last, and their seed.
const CLOUD_OCTAVES: u32 = 5u;
const CLOUD_SEED: u32 = 4099u;

// ---- the water ---------------------------------------------------------------------------

// How much of the water's fog covers `pos_world` seen from the camera: 1 − exp(−σ·distance).
fn water_fog_amount(pos_world: vec3<f32>) -> f32 {
    let distance_world = length(pos_world - frame.eye_world.xyz);
    return 1.0 - exp(-min(frame.sky.water_color.w * distance_world, FOG_DEPTH_LIMIT));
}

// What the camera sees of `color` at `pos_world`: `air_seen` (the colour through the air's
// distance fog) blended, by the camera's share of water, with the colour through the water's
// fog instead. Without water, `air_seen` itself.
fn water_seen(air_seen: vec3<f32>, color: vec3<f32>, pos_world: vec3<f32>) -> vec3<f32> {
    var seen = air_seen;
    if WATER_IN_SCENE {
        let under = mix(color, frame.sky.water_color.rgb, water_fog_amount(pos_world));
        seen = mix(air_seen, under, frame.sky.water_view.x);
    }
    return seen;
}

// How much of what is at `pos_world` the fog hides, for light added over the picture (rain,
// bolts): `air_amount` (the distance fog's) blended toward the water's by the camera's share.
fn water_hidden(air_amount: f32, pos_world: vec3<f32>) -> f32 {
    var hidden = air_amount;
    if WATER_IN_SCENE {
        hidden = mix(air_amount, water_fog_amount(pos_world), frame.sky.water_view.x);
    }
    return hidden;
}

// ---- the clouds --------------------------------------------------------------------------

// The clouds' noise at `uv_tile` (0..1 across one tile): `CLOUD_OCTAVES` octaves of
// `tile_noise`, so the pattern repeats exactly from tile to tile. Normalised to [0, 1].
fn cloud_fbm(uv_tile: vec2<f32>) -> f32 {
    var sum = 0.0;
    var weight = 0.5;
    var total = 0.0;
    var period = u32(frame.sky.cloud_layout.w);
    for (var octave = 0u; octave < CLOUD_OCTAVES; octave += 1u) {
        sum += tile_noise(uv_tile * f32(period), period, CLOUD_SEED + octave) * weight;
        total += weight;
        weight *= 0.5;
        period *= 2u;
    }
    return sum / total;
}

// `base` with the clouds over it along the unit `dir_world`: where the ray meets the layer,
// the noise drifted by the wind; a cloud begins where the noise passes a level set by the
// coverage, thickens over the softness, and its core is darker than its edge. The layer fades
// into `base` with distance, so it thins toward the horizon. Below the horizon, or from above
// the layer, no clouds.
fn clouds_over(dir_world: vec3<f32>, base: vec3<f32>) -> vec3<f32> {
    let rise_world = frame.sky.cloud_layout.x - frame.eye_world.y;
    if dir_world.y <= 1e-4 || rise_world <= 0.0 {
        return base;
    }
    let distance_world = rise_world / dir_world.y;
    let hit_xz = frame.eye_world.xz + dir_world.xz * distance_world;
    let uv_tile = fract((hit_xz - frame.sky.cloud_offset.xy) / frame.sky.cloud_layout.y);
    let noise = cloud_fbm(uv_tile);
    let coverage = frame.sky.cloud_color.w;
    let soft = frame.sky.cloud_layout.z;
    // Coverage 0 leaves the noise's whole range clear; 1 covers nearly all of it.
    let level = 0.8 - 0.6 * coverage;
    let cover = smoothstep(level - 0.5 * soft, level + 0.5 * soft, noise)
        * step(1e-6, coverage);
    let core = smoothstep(level, level + 2.0 * soft, noise);
    let shade = frame.sky.cloud_color.rgb * (1.0 - 0.35 * core);
    let fade = exp(-distance_world * frame.sky.cloud_offset.z);
    return mix(base, shade, cover * fade);
}

// The sky seen along `ray_world` (any length, from the camera) over its base colour `base`:
// the clouds, and under water the water's colour by the camera's share of water. A scene
// without clouds or water gets `base` itself.
fn sky_seen(ray_world: vec3<f32>, base: vec3<f32>) -> vec3<f32> {
    var color = base;
    if SKY_CLOUDS {
        color = clouds_over(normalize(ray_world), color);
    }
    if WATER_IN_SCENE {
        color = mix(color, frame.sky.water_color.rgb, frame.sky.water_view.x);
    }
    return color;
}

// ---- the raster sky: a full-screen triangle behind the hall --------------------------------

// The direction from the camera through the point `ndc` of the picture (any length): the ray
// along which `frame.clip_from_world` gives that x and y, found without inverting the matrix.
// A direction d projects to x = (row_x·d) / (row_w·d), so d is at right angles to
// row_x − x·row_w and to row_y − y·row_w; of the two signs, the one in front (w > 0).
fn view_ray_world(ndc: vec2<f32>) -> vec3<f32> {
    let m = frame.clip_from_world;
    let row_x = vec3<f32>(m[0].x, m[1].x, m[2].x);
    let row_y = vec3<f32>(m[0].y, m[1].y, m[2].y);
    let row_w = vec3<f32>(m[0].w, m[1].w, m[2].w);
    let d = cross(row_x - ndc.x * row_w, row_y - ndc.y * row_w);
    return select(d, -d, dot(row_w, d) < 0.0);
}

struct SkyOut {
    @builtin(position) pos_clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

// A triangle over the whole picture at depth 1, the far end: drawn after the hall with the
// depth test `LessEqual`, it fills only the pixels nothing covers.
@vertex
fn vs_sky(@builtin(vertex_index) index: u32) -> SkyOut {
    let ndc = full_screen_ndc(index);
    var out: SkyOut;
    out.pos_clip = vec4<f32>(ndc, 1.0, 1.0);
    out.ndc = ndc;
    return out;
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    return vec4<f32>(sky_seen(view_ray_world(in.ndc), frame.sky.base.rgb), 1.0);
}
