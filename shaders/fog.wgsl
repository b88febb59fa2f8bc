// fog.wgsl: the `fog` pass — ground fog as a stack of see-through horizontal sheets.
//
// The fog is one continuous medium, `fog_medium`: at any point it reads the CPU fluid through
// two maps at the point's floor position (how much fog, how far the air carried it, how high it
// was thrown, how fast the air moves), samples a 3D noise where the air carried this fog,
// shapes the density by height and lift, fades it at the edges of the fog's square, carves the
// ball out in 3D and lights it. Each sheet fragment turns that medium into alpha with
// Beer–Lambert over the slab between sheets along the view ray (`sample_sheet`). Drawn back to
// front with blending, the sheets add up the volume as a raymarch through the same slabs
// would; the depth test against the scene hides the fog behind pillars. The raymarch reference
// (`march_medium`, the `raymarch` pass) integrates the same medium in small steps instead.
//
// No depth test per sheet: each sheet counts the part of its slab in front of the scene
// (`visible_slab_world`, from the scene's depth read as a texture), so where the sheets cut a
// pillar the fog thins smoothly to its foot instead of in one band per sheet.
//
// `fog_medium` and `sample_sheet` take everything they read as arguments (no derivatives, and
// no bindings but the fires, which sit at group 0 beside the frame uniforms that any pass
// binds), so the compute compositor, the raymarch and the flames' fog can call them and agree
// with this raster pass (see ARCHITECTURE.md, "Data flow"). Every input that differs between
// adapters is avoided: the noise hash is integer (noise.wgsl) and the maps are filtered by hand
// (`sample_map`).
//
// Needs common.wgsl (frame uniforms, distance fog, colours), noise.wgsl (`fog_noise`, the lattice's types),
// fires.wgsl (`fire_glow_in_fog`) and lamps.wgsl (`lamp_light_in_fog`).

// keep in sync with src/gpu/passes/fog.rs: FogKnobs
struct FogKnobs {
    // xy: the fog square's corner with the smallest x and z (world); zw: its size (world).
    area: vec4<f32>,
    // xyz: centre of the ball (world); w: its radius (world units).
    ball: vec4<f32>,
    // xyz: how far the noise drifts per second (world units); w: time of the frame (seconds).
    wind: vec4<f32>,
    // rgb: the fog's colour (display sRGB, see `fog_medium`); w: the fog's shape, 0 the column
    // always reaches the rest top, 1 the density sets its height (`FogShape::DensityHeight`).
    fog_color: vec4<f32>,
    // rgb: colour of the ball's glow in the fog (display sRGB); w: glow strength.
    glow_color: vec4<f32>,
    // x: fog floor; y: rest top; z: extra height of fully lifted fog; w: sheet spacing (world).
    layer: vec4<f32>,
    // x: extinction sigma (1/world unit); y: drift range of the map (world units);
    // z: 1 shows the fluid on the fog (the `fluid` view), 0 the fog; w: how many sheets (the
    // lowest) `sheets_transmittance` crosses: every sheet, or in the `flame` pass those under
    // the fog's ceiling (above it a sheet lets all the light through, exactly).
    optics: vec4<f32>,
    // x: sheet count; y: 1 counts the part of each sheet's slab in front of the scene, 0 each
    // slab whole or not at all (tests only, `visible_slab_world`); z: the raymarch's steps per
    // ray, 0 when the fog is drawn as sheets; w: top of the highest sheet's slab (world).
    sampling: vec4<f32>,
}

// The fluid maps' texels along each side (the scene's fluid grid) as a pipeline constant, or 0:
// read from the map. Set by the passes that read the fog (`FrameBinding::fog_constants`): a
// GPU converts the map's integer size to floats at every read, which cost the temple's fog
// pass 2 % of its time on an H100.
override FLUID_MAP_TEXELS: f32 = 0.0;

// Texels of the fluid map `map` along x and y, as floats.
fn fluid_map_size(map: texture_2d<f32>) -> vec2<f32> {
    if FLUID_MAP_TEXELS > 0.0 {
        return vec2<f32>(FLUID_MAP_TEXELS);
    }
    return vec2<f32>(textureDimensions(map));
}

// A fluid map at `uv` (0..1 across the fog's square), filtered bilinearly by hand, clamped to
// its edge: what a linear sampler returns, with exact weights. Samplers filter with as few as 8
// fractional bits on some GPUs (NVIDIA) and in full float on others (lavapipe), so the same map
// read through a sampler gives a slightly different fog on each; these gathers and this `mix`
// do not. A gather only picks the four texels, clamped to the edge by the nearest sampler
// (`texel_gather`, common.wgsl), and needs no integer texel coordinates: on an H100 the fog
// pass took 0.97 of the time of four loads at integer coordinates.
fn sample_map(map: texture_2d<f32>, uv: vec2<f32>) -> vec4<f32> {
    let size = fluid_map_size(map);
    let texel_pos = uv * size - vec2<f32>(0.5);
    let floor_pos = floor(texel_pos);
    let f = texel_pos - floor_pos;
    // Each channel's four texels in one gather, in the order (x, y), (x+1, y), (x, y+1),
    // (x+1, y+1), as `sample_map_g`.
    let at = (floor_pos + vec2<f32>(1.0)) / size;
    let r = textureGather(0, map, texel_gather, at).wzxy;
    let g = textureGather(1, map, texel_gather, at).wzxy;
    let b = textureGather(2, map, texel_gather, at).wzxy;
    let w = textureGather(3, map, texel_gather, at).wzxy;
    let t00 = vec4<f32>(r.x, g.x, b.x, w.x);
    let t10 = vec4<f32>(r.y, g.y, b.y, w.y);
    let t01 = vec4<f32>(r.z, g.z, b.z, w.z);
    let t11 = vec4<f32>(r.w, g.w, b.w, w.w);
    return mix(mix(t00, t10, f.x), mix(t01, t11, f.x), f.y);
}

// Channel g of a fluid map at `uv`, exactly as `sample_map` filters it, its four texels read in
// one gather (`texel_gather`, common.wgsl).
fn sample_map_g(map: texture_2d<f32>, uv: vec2<f32>) -> f32 {
    let size = fluid_map_size(map);
    let texel_pos = uv * size - vec2<f32>(0.5);
    let floor_pos = floor(texel_pos);
    let f = texel_pos - floor_pos;
    // In the order (x, y), (x+1, y), (x, y+1), (x+1, y+1), as `sample_map`'s a, b, c, d.
    let q = textureGather(1, map, texel_gather, (floor_pos + vec2<f32>(1.0)) / size).wzxy;
    return mix(mix(q.x, q.y, f.x), mix(q.z, q.w, f.x), f.y);
}

// The fog's noise lattice this frame, filled by the `fog_lattice` pass before any pass reads
// it (src/gpu/passes/fog_lattice.rs). Bound at group 0 beside the fires: every pass that
// includes this file binds the frame's group 0.
@group(0) @binding(6) var<storage, read> fog_lattice: FogLattice;

// Whether `fog_fbm` reads the lattice (on: GPUs) or hashes each corner itself (off: CPU
// adapters, fogs whose lattice would be too large, and any pipeline that does not say, since
// only then is the lattice sure to be filled).
override FOG_NOISE_LATTICE: bool = false;

// One octave of the fog's noise at `p` (already moved by `fog_octave_point`), its cell's
// corners read from the lattice. The lattice holds every cell a sample can reach
// (`fog_lattice.rs` bounds them); the clamp only keeps a read inside the buffer.
fn fog_lattice_noise(p: vec3<f32>, octave: u32) -> f32 {
    let floor_p = floor(p);
    let cell = vec3<i32>(floor_p);
    let lattice_box = fog_lattice.boxes[octave];
    let last = vec3<i32>(lattice_box.size.xyz) - vec3<i32>(1);
    let local = vec3<u32>(clamp(cell - lattice_box.origin.xyz, vec3<i32>(0), last));
    let index = u32(lattice_box.origin.w)
        + (local.z * lattice_box.size.y + local.y) * lattice_box.size.x + local.x;
    return fog_noise_in_cell(fog_lattice.corners[index], p - floor_p);
}

// The fog's noise lattice as one value a lattice point (the `fog_lattice` pass's points form,
// src/gpu/passes/fog_lattice.rs): each octave's points from the layer its box's `origin.w`
// names, the octaves one after another along z. One texel where the fog does not read it.
@group(0) @binding(13) var fog_lattice_points: texture_3d<f32>;

// Whether `fog_fbm` reads the lattice's points through the bilinear sampler (on: GPUs whose
// points texture fits) rather than each cell's corners. Only with `FOG_NOISE_LATTICE`.
override FOG_NOISE_POINTS: bool = false;

// `fog_lattice_noise` from the points: a trilinear read at the cell's corner plus half a texel
// plus the smoothstep's weight on each axis blends the cell's eight points by those weights.
// The sampler keeps as few as 8 bits of a weight: the noise moves by a few thousandths at most.
//
// The cell is worked out in floats: every value is a whole number of cells, far below 2^24, so
// each step is exact and gives what integers would, without converting to and from them (a
// conversion costs a GPU as much as eight multiply-adds).
fn fog_points_noise(p: vec3<f32>, octave: u32) -> f32 {
    let floor_p = floor(p);
    let f = p - floor_p;
    // The box's `origin_f32` and `last_f32` from the frame uniforms (common.wgsl,
    // `noise_points`), the same values as the lattice's header.
    let origin = frame.noise_points[2u * octave];
    let last = frame.noise_points[2u * octave + 1u];
    let local = clamp(floor_p - origin.xyz, vec3<f32>(0.0), last.xyz);
    let layered = local + vec3<f32>(0.0, 0.0, origin.w);
    let texel = layered + vec3<f32>(0.5) + f * f * (3.0 - 2.0 * f);
    return textureSampleLevel(fog_lattice_points, medium_filter, texel / frame.noise_points[6].xyz, 0.0).x;
}

// Octave `octave` of the fog's noise at `p`: the same value from the lattice or hashed here.
fn fog_octave(p: vec3<f32>, octave: u32) -> f32 {
    let point = fog_octave_point(p, octave);
    if FOG_NOISE_LATTICE {
        if FOG_NOISE_POINTS {
            return fog_points_noise(point, octave);
        }
        return fog_lattice_noise(point, octave);
    }
    return fog_noise(point);
}

// Three octaves of the fog's noise (weights 0.5, 0.3, 0.2, so the sum stays in [0, 1]).
fn fog_fbm(p: vec3<f32>) -> f32 {
    return fog_octave(p, 0u) * 0.5 + fog_octave(p, 1u) * 0.3 + fog_octave(p, 2u) * 0.2;
}

// The continuous fog at one point: what the sheets sample and the raymarch integrates.
struct FogMedium {
    // Colour of the light the fog sends toward the eye here (linear, straight alpha).
    color: vec3<f32>,
    // Extinction: the fraction of light taken per world unit of path, σ times the density.
    extinction_per_world: f32,
    // The `fluid` view's marker band: the opacity a sheet in it shows (0 elsewhere and in the
    // other views).
    debug_alpha: f32,
}

// ---- The physical medium ----------------------------------------------------------------
//
// With `fog.medium: Physical(…)` the fog is a participating medium. Its extinction σt is the
// seed fog's (σ times the density), its scattering σs = albedo · σt, and the light it scatters
// toward the eye at a point is S = σs · Σ L_i · p(θ_i): each light's radiance arriving there
// times the phase of the angle θ_i between the light's travel and the way back to the eye.
//
// Energy-conserving integration (Hillaire, "Physically based and unified volumetric rendering
// in Frostbite", SIGGRAPH 2015): over a slab of length Δ with transmittance T = exp(−σt·Δ) the
// light added is ∫₀^Δ S·exp(−σt·s) ds = S·(1 − T)/σt, not S·Δ (which overshoots in thick fog).
// Every compositor adds `color · alpha` per sheet or step with alpha = 1 − T, so `fog_medium`
// returns color = S/σt = albedo · Σ L_i · p(θ_i), and each sheet's slab and each raymarch step
// then adds exactly S·(1 − T)/σt.
//
// Approximations, so the fog stays one pass: the hall shadows only the lamps (by their shadow
// maps) and the moon where the scene casts its shadows (its map: shafts). The fog shadows its
// own light through a coarse grid of optical depths (`fog_light_depths`, where the medium has
// `self_shadowing`). Multiple scattering is `octaves` terms after Wrenninge et al. ("Oz: The
// Great and Volumetric", 2013): term n scatters 0.5ⁿ of the light with a phase 0.5ⁿ as
// eccentric and an extinction 0.5ⁿ as thick on the light's path, so the fog also glows round a
// light seen from the side and light scattered many times reaches deeper into a bank. The
// ambient light is scattered alike every way (any phase integrates to 1 over the sphere).

// keep in sync with src/gpu/common.rs: medium_constant
// The fog's medium (`FrameBinding::fog_constants`): FOG_MEDIUM_SEED (every pipeline that does
// not say), whose pipelines compile the physical code out (the seed fog's bytes), or the
// physical medium with a Henyey–Greenstein phase alone or blended with Draine (`Mie`), whose
// pipelines compile the Draine lobe out or in. A CPU adapter runs every branch, taken or not.
const FOG_MEDIUM_SEED: u32 = 0u;
const FOG_MEDIUM_HG: u32 = 1u;
const FOG_MEDIUM_HG_DRAINE: u32 = 2u;
override FOG_MEDIUM: u32 = 0u;

// How many multiple-scattering octaves the physical medium has (`fog.medium.octaves`, 1 to
// 4, src/scene/medium.rs's `MAX_MEDIUM_OCTAVES`): a pipeline constant, so the octaves' terms
// below are unrolled and the unused ones compiled out.
override MEDIUM_OCTAVES: u32 = 1u;

// One lobe of octave n's phase at `cos_theta`: `lobe.z / d^(3/2)` with d = lobe.x − lobe.y ·
// cos θ. With lobe = (1 + g², 2g, c) that is c · 4π times Henyey–Greenstein's phase of asymmetry
// g; the frame's `medium_octaves` carry each octave's lobes with their weights folded into c
// (src/gpu/medium.rs, `medium_octaves`), so a lobe costs a multiply-add, a reciprocal square
// root and three products.
// keep in sync with src/gpu/medium.rs: lobe
fn phase_lobe(lobe: vec4<f32>, cos_theta: f32) -> f32 {
    let r = inverseSqrt(max(lobe.x - lobe.y * cos_theta, 1e-6));
    return lobe.z * (r * r * r);
}

// What each light's octaves let through: octave n of light k (x the moon, y the ball, z the
// fires, w the lamps) passes exp(−depth_k · 0.5ⁿ), the thinner extinction of Wrenninge et al.'s
// third factor, so light scattered many times reaches deeper into a bank. The last octave's is
// one `exp` and each octave before it is the square of the next. With no depth every factor is
// exactly 1: the fog that does not shadow itself.
struct OctaveThroughs {
    o0: vec4<f32>,
    o1: vec4<f32>,
    o2: vec4<f32>,
    o3: vec4<f32>,
}

fn octave_throughs(depths: vec4<f32>) -> OctaveThroughs {
    var t = OctaveThroughs(vec4<f32>(1.0), vec4<f32>(1.0), vec4<f32>(1.0), vec4<f32>(1.0));
    if !FOG_SELF_SHADOWING {
        return t;
    }
    // The last octave's: its share of the extinction is the frame's `medium.z`.
    var through = exp(-depths * frame.medium.z);
    if MEDIUM_OCTAVES > 3u {
        t.o3 = through;
        through *= through;
    }
    if MEDIUM_OCTAVES > 2u {
        t.o2 = through;
        through *= through;
    }
    if MEDIUM_OCTAVES > 1u {
        t.o1 = through;
        through *= through;
    }
    t.o0 = through;
    return t;
}

// One lobe's terms over the octaves at `cos_theta`, each through its octave's factor of
// `throughs` (component `k`): the frame's `medium_octaves` entries `lobe`, `lobe + 2`, … (0 the
// Henyey–Greenstein lobes, 1 the Draine lobes).
fn lobe_over_octaves(lobe: u32, cos_theta: f32, throughs: OctaveThroughs, k: u32) -> f32 {
    var sum = phase_lobe(frame.medium_octaves[lobe], cos_theta) * throughs.o0[k];
    if MEDIUM_OCTAVES > 1u {
        sum += phase_lobe(frame.medium_octaves[lobe + 2u], cos_theta) * throughs.o1[k];
    }
    if MEDIUM_OCTAVES > 2u {
        sum += phase_lobe(frame.medium_octaves[lobe + 4u], cos_theta) * throughs.o2[k];
    }
    if MEDIUM_OCTAVES > 3u {
        sum += phase_lobe(frame.medium_octaves[lobe + 6u], cos_theta) * throughs.o3[k];
    }
    return sum;
}

// What of a light travelling along the unit `light_dir_world` the medium sends back along the
// unit view ray `ray_world` (from the eye), per unit of its radiance and of albedo: the sum of
// the octaves' phases, octave n with both asymmetries scaled by 0.5ⁿ and weighted 0.5ⁿ, each
// through its factor of `throughs` (`octave_throughs`, this light's component `k`). The phase is
// Henyey–Greenstein blended with Draine (for `Mie`, the Jendersie–d'Eon fit), Draine's shape
// 1 + α cos²θ factored out of the octaves' sum.
// keep in sync with src/scene/medium.rs: PhaseFit::eval
fn medium_response_through(
    light_dir_world: vec3<f32>,
    ray_world: vec3<f32>,
    throughs: OctaveThroughs,
    k: u32,
) -> f32 {
    let c = dot(light_dir_world, -ray_world);
    let hg = lobe_over_octaves(0u, c, throughs, k);
    if FOG_MEDIUM != FOG_MEDIUM_HG_DRAINE {
        return hg;
    }
    // Draine's α is the same in every octave (the frame's `medium_octaves[1].w`).
    let draine = lobe_over_octaves(1u, c, throughs, k);
    return hg + draine * (1.0 + frame.medium_octaves[1].w * c * c);
}

// A point light at `light_world.xyz` reaching `light_world.w` (fading as the square of
// 1 − distance / range, as on surfaces) of colour `color`, scattered at `pos_world` along the ray,
// through its octaves' factors `throughs`, component `k`.
fn point_light_in_medium(
    pos_world: vec3<f32>,
    ray_world: vec3<f32>,
    light_world: vec4<f32>,
    color: vec3<f32>,
    throughs: OctaveThroughs,
    k: u32,
) -> vec3<f32> {
    let from_light = pos_world - light_world.xyz;
    let distance_world = length(from_light);
    let edge = clamp(1.0 - distance_world / max(light_world.w, 1e-4), 0.0, 1.0);
    if edge <= 0.0 || distance_world <= 1e-5 {
        return vec3<f32>(0.0);
    }
    let response = medium_response_through(from_light / distance_world, ray_world, throughs, k);
    return color * (edge * edge * response);
}

// Fire `fire_index`'s light, flickering, scattered at `pos_world` along the ray, through the
// fires' octave factors (component z of `throughs`).
fn fire_in_medium(fire_index: u32, pos_world: vec3<f32>, ray_world: vec3<f32>, throughs: OctaveThroughs) -> vec3<f32> {
    let color = fire_lights.fires[fire_index].light_color.rgb * fire_flicker_of(fire_index);
    let fire_world = fires_now.fires[fire_index].light_world;
    return point_light_in_medium(pos_world, ray_world, fire_world, color, throughs, 2u);
}

// The lamps scattered at `pos_world` along the ray: each lamp's colour, range fade, cone and
// shadow map (`lamp_shadow`, as `lamp_light_in_fog` reads it), by the phase, through the lamps'
// octave factors (component w of `throughs`).
fn lamps_in_medium(pos_world: vec3<f32>, ray_world: vec3<f32>, throughs: OctaveThroughs) -> vec3<f32> {
    var light = vec3<f32>(0.0);
    for (var i = 0u; i < lamp_count(); i += 1u) {
        let lamp = lamp_lights.lamps[i];
        let to_point = pos_world - lamp.pos_world.xyz;
        let distance_world = length(to_point);
        if distance_world >= lamp.pos_world.w || distance_world <= 1e-5 {
            continue;
        }
        let from_lamp = to_point / distance_world;
        let cone = lamp_cone(lamp, from_lamp);
        if cone <= 0.0 {
            continue;
        }
        let shadow = lamp_shadow(lamp, pos_world, 2.0, false);
        let response = medium_response_through(from_lamp, ray_world, throughs, 3u);
        light += lamp.color.rgb * (lamp_falloff(lamp, distance_world) * cone * shadow * response);
    }
    return light;
}

// The physical medium's in-scattered light at a point in two parts: `moon`, the moonlight its
// shadow map has still to cut into shafts (`moon_in_medium`), and `rest`, every other light.
// Each is S/σt, the light per unit of extinction (see above), linear, albedo included.
struct MediumLight {
    moon: vec3<f32>,
    rest: vec3<f32>,
}

// The physical medium's colour at `pos_world` seen along the unit `ray_world`: S/σt, the
// in-scattered light per unit of extinction (see above), linear.
fn medium_in_scattering(pos_world: vec3<f32>, ray_world: vec3<f32>) -> vec3<f32> {
    let light = medium_light(pos_world, ray_world);
    return light.moon * moon_in_medium(pos_world) + light.rest;
}

// How much of the moon's light reaches `pos_world` past the hall: its shadow map, where the
// pillars cut shafts (lamps.wgsl; 1 in scenes without moon shadows, compiled out).
fn moon_in_medium(pos_world: vec3<f32>) -> f32 {
    if MOON_SHADOWS {
        return moon_shadow(pos_world, 2.0, false);
    }
    return 1.0;
}

// `medium_in_scattering` before the moon's shadow map.
fn medium_light(pos_world: vec3<f32>, ray_world: vec3<f32>) -> MediumLight {
    // How much fog the moon's and the ball's light crossed to get here (none unless the
    // medium shadows itself: common.wgsl, `fog_light_depths`).
    var depths = vec4<f32>(0.0);
    if FOG_SELF_SHADOWING {
        depths = fog_light_depths(pos_world);
    }
    let throughs = octave_throughs(depths);
    // The ambient light comes from every direction: any phase integrates it to itself.
    var light = ambient_in_medium();
    let moon = frame.sun_color.rgb * medium_response_through(frame.sun_dir_world.xyz, ray_world, throughs, 0u);
    light += point_light_in_medium(
        pos_world,
        ray_world,
        frame.ball_light_world,
        frame.ball_light_color.rgb,
        throughs,
        1u,
    );
    if FIRES_ON_CPU && FIRES_UNROLLED > 0u {
        // A CPU adapter runs every branch of a block but leaves a loop once no pixel of the
        // block has a turn left: it takes the fires in range here (`fires_in_range`), lowest
        // first, so the sum keeps a loop's order.
        var in_range = fires_in_range(pos_world);
        while (in_range.x | in_range.y) != 0u {
            light += fire_in_medium(take_lowest_fire(&in_range), pos_world, ray_world, throughs);
        }
    } else {
        for (var i = 0u; i < fire_count(); i += 1u) {
            light += fire_in_medium(i, pos_world, ray_world, throughs);
        }
    }
    if lamp_count() > 0u {
        light += lamps_in_medium(pos_world, ray_world, throughs);
    }
    return MediumLight(moon * frame.medium.x, light * frame.medium.x);
}

// Whether the fog may be drawn in the `fluid` view (the knobs' `optics.z`), a pipeline
// constant: on (any pipeline that does not say, and the seed medium) the shaders test the knob
// at run time; off (`FrameBinding::fog_constants`, the physical medium in every other view)
// the view's code is compiled out. A CPU adapter runs both sides of a branch on a knob: with
// the knob, each of the physical medium's sheet fragments also worked out the seed's colour
// and the lights a second time (`sample_sheet`).
override FOG_FLUID_VIEW: bool = true;

// How much the `fluid` view shows (0 or 1): the knob, or 0 where no pipeline draws that view.
fn fluid_view_of(knobs: FogKnobs) -> f32 {
    if FOG_FLUID_VIEW {
        return knobs.optics.z;
    }
    return 0.0;
}

// The fog's height profile at `p_world` where the fluid holds `amount` of fog thrown `lift`
// high: x the profile (0..1), y the height within the column (0 its floor, 1 its top). The
// layer grows upward where it was thrown, and thins a little underneath. With the
// density-height shape, thin fog also makes a lower column (rest density 1 reaches the rest
// top), so a cut through it shows the floor. `fog_medium` and the `fog_shadow` pass share it.
fn fog_profile(p_world: vec3<f32>, amount: f32, lift: f32, knobs: FogKnobs) -> vec2<f32> {
    let bottom_world = knobs.layer.x;
    let column_world = max((knobs.layer.y - bottom_world) * clamp(amount, 0.0, 1.0), 1e-4);
    let rest_top_world = select(knobs.layer.y, bottom_world + column_world, knobs.fog_color.w > 0.5);
    let top_world = rest_top_world + lift * knobs.layer.z;
    let h = clamp((p_world.y - bottom_world) / (top_world - bottom_world), 0.0, 1.0);
    let profile = smoothstep(0.0, 0.06, h) * (1.0 - smoothstep(0.45, 1.0, h))
        * (1.0 - lift * 0.45 * (1.0 - h));
    return vec2<f32>(profile, h);
}

// The continuous fog at `pos_world`: its colour and extinction.
//
// The colour is worked out as the example does, in display (sRGB) values — the fog colour
// scaled by a tone and the ball's glow added — and converted to linear light once at the end,
// so each sheet has the example's colours while blending and lighting stay linear.
//
// The maps are read (`sample_map`) at the point's floor position; `fluid_map` holds
// density / 2, drift x and z (0.5 = none) and the lift; `lift_map` holds the lift and the air
// speed, which only this colour reads. The fires'
// glow (`fire_glow_in_fog`, from the `fire_lights` binding) is added in linear light on top,
// so the fog glows round every torch and brazier, and so is the lamps' light
// (`lamp_light_in_fog`), dark in their shadows: every compositor reads the fog through here.
//
// That is the seed medium. With the physical one (`FOG_MEDIUM`) the colour is instead
// `medium_in_scattering`: the scene's lights scattered toward the eye, which looks along the
// unit `ray_world`, by the phase. The extinction is the same either way.
fn fog_medium(
    pos_world: vec3<f32>,
    ray_world: vec3<f32>,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
) -> FogMedium {
    let p = pos_world;
    let debug = fluid_view_of(knobs);
    let here = fog_density(p, knobs, fluid_map, lift_map);
    // No fog here at all (the result would be fully transparent anyway).
    if !here.present && debug <= 0.0 {
        return FogMedium(vec3<f32>(0.0), 0.0, 0.0);
    }
    let density = here.density;
    let n = here.noise;
    let h = here.height;
    let fluid = here.fluid;

    // The physical medium lights the fog by its lights and phase (the `fluid` view keeps the
    // seed's colours).
    if FOG_MEDIUM != FOG_MEDIUM_SEED && debug <= 0.0 {
        return FogMedium(medium_in_scattering(p, ray_world), density * knobs.optics.x, 0.0);
    }

    // The air's speed, from the lift map (the seed's colour alone reads it).
    let speed = sample_map_g(lift_map, (p.xz - knobs.area.xy) / knobs.area.zw);
    let to_ball = p - knobs.ball.xyz;
    let glow = knobs.glow_color.rgb * (knobs.glow_color.w * exp(-length(to_ball) * 1.15));
    let tone = mix(0.55, 1.05, h) * (0.85 + n * 0.3) * (1.0 + speed * 0.25);
    let color = knobs.fog_color.rgb * tone + glow;

    // The `fluid` view: red the fog, green and blue where it moved, shown as display colours.
    let shown = mix(color, fluid.rgb, debug);
    let debug_alpha = debug * 0.35 * step(0.5, h) * step(h, 0.55);
    let fire_glow = fire_glow_in_fog(p) * (1.0 - debug);
    var lit = srgb_to_linear(shown) + fire_glow;
    if lamp_count() > 0u {
        lit += lamp_light_in_fog(p) * (1.0 - debug);
    }
    return FogMedium(lit, density * knobs.optics.x, debug_alpha);
}

// How much fog there is at a point (`fog_medium` and the physical medium's slabs), with what
// the seed's colour reads besides.
struct FogDensity {
    // Fog per unit of σ: the extinction is σ times this.
    density: f32,
    // The fog's 3D noise here (0..1), and the height within its column (0..1).
    noise: f32,
    height: f32,
    // The fluid map here (its fourth channel the lift, src/gpu/maps.rs).
    fluid: vec4<f32>,
    // False where the fluid and the height profile leave no fog (the noise is not read, outside
    // the `fluid` view, and `density` is 0).
    present: bool,
}

// The fog's density at `p`: the fluid's amount under the height profile, torn by the noise,
// faded at the square's edges and cleared round the ball.
fn fog_density(
    p: vec3<f32>,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
) -> FogDensity {
    let uv = (p.xz - knobs.area.xy) / knobs.area.zw;
    let debug = fluid_view_of(knobs);

    // What the fluid says here: how much fog, where the air carried it, how high it was thrown
    // (the lift rides in the fluid map's fourth channel: one map read, not two).
    let fluid = sample_map(fluid_map, uv);
    let amount = fluid.r * 2.0;
    let drift_world = (fluid.gb - vec2<f32>(0.5)) * knobs.optics.y;
    let lift = fluid.a;

    let shape = fog_profile(p, amount, lift, knobs);
    let profile = shape.x;
    let h = shape.y;

    // No fog here at all: skip the noise.
    let present = profile * amount > 0.0;
    if !present && debug <= 0.0 {
        return FogDensity(0.0, 0.0, h, fluid, false);
    }

    // The noise is read where the air has carried this fog: the wisps travel with the current.
    let wind_world = knobs.wind.xyz * knobs.wind.w;
    // keep in sync with src/gpu/passes/fog_lattice.rs: MEDIUM_SCALE, LIFT_DROP (the lattice's
    // bounds)
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
    return FogDensity(density, n, h, fluid, present);
}

// The height of sheet `index` (world), lowest first, in this sample: `Fog::sheet_height_at`
// with the sample's phase (the frame's `sun_color.w`; 0.5 for one sample), the height the
// raster pass draws its quad at, as the shaders compute it (from the knobs).
fn sheet_height_world(index: u32, knobs: FogKnobs) -> f32 {
    let phase = frame.sun_color.w;
    return knobs.layer.x + (knobs.sampling.w - knobs.layer.x) * (f32(index) + phase) / knobs.sampling.x;
}

// keep in sync with src/scene/fog.rs: Fog::least_slab_slope
// The flattest ray slope whose slabs are the whole distance between two crossings: the seed's
// 0.2, and 0.05 for the physical medium, which counts the fog of rays down to 3 degrees.
const SEED_LEAST_SLAB_SLOPE: f32 = 0.2;
const PHYSICAL_LEAST_SLAB_SLOPE: f32 = 0.05;

// Length along the view ray of the slab of fog one sheet stands for: the spacing between
// sheets over the ray's slope, which is the distance between two crossings. It is capped for
// grazing rays, at five spacings for the seed medium (the seed's look: flatter rays lose fog)
// and at twenty for the physical one (the raymarch's fog, down to slopes of 0.05).
fn sheet_slab_world(view_dir_world: vec3<f32>, knobs: FogKnobs) -> f32 {
    let least_slope = select(SEED_LEAST_SLAB_SLOPE, PHYSICAL_LEAST_SLAB_SLOPE, FOG_MEDIUM != FOG_MEDIUM_SEED);
    return knobs.layer.w / max(abs(view_dir_world.y), least_slope);
}

// Distance along the unit ray from `eye_world` along `ray_world` to the scene surface whose
// clip depth is `depth_scene` (3e38 where nothing was drawn: depth 1, the far plane). Along a
// ray from the eye a perspective projection's clip depth is A + B / t, so the depths of the
// points at t = 1 and t = 2 give A and B and the surface's t follows, without the inverse
// matrix: the raster `fog` pass, the `fog_compute` pass and the flames compute it alike.
fn scene_distance_world(eye_world: vec3<f32>, ray_world: vec3<f32>, depth_scene: f32) -> f32 {
    return scene_distance_through(frame.clip_from_world, eye_world, ray_world, depth_scene);
}

// `scene_distance_world` with the frame's projection `clip_from_world` given.
fn scene_distance_through(
    clip_from_world: mat4x4<f32>,
    eye_world: vec3<f32>,
    ray_world: vec3<f32>,
    depth_scene: f32,
) -> f32 {
    if depth_scene >= 1.0 {
        return 3.0e38;
    }
    let at_1 = clip_from_world * vec4<f32>(eye_world + ray_world, 1.0);
    let at_2 = clip_from_world * vec4<f32>(eye_world + ray_world * 2.0, 1.0);
    let depth_1 = at_1.z / at_1.w;
    let depth_2 = at_2.z / at_2.w;
    let b = (depth_1 - depth_2) * 2.0;
    let a = depth_1 - b;
    return b / min(depth_scene - a, -1e-30);
}

// How much of a sheet's slab of fog lies in front of the scene, world units along the ray:
// the slab is `slab_world` long, centred on the sheet's crossing at `t_sheet_world`, and the
// scene's surface is at `t_scene_world`. Where a pillar cuts the slab only the part in front of
// it counts, so the fog thins smoothly to the pillar's foot instead of in one step per sheet
// (the bands of a depth test per sheet). With `sampling.y` at 0 (tests only) the slab counts
// whole or not at all, as a per-sheet depth test would.
fn visible_slab_world(
    t_sheet_world: f32,
    slab_world: f32,
    t_scene_world: f32,
    knobs: FogKnobs,
) -> f32 {
    // One branch-free form for both (lavapipe's compute shaders crashed on a branch here): the
    // slab's visible length, or with `sampling.y` at 0 a step at the sheet itself made sharp by
    // a huge slope.
    let sharpness = select(1.0e20, 1.0, knobs.sampling.y > 0.0);
    let front_world = 0.5 * slab_world * knobs.sampling.y;
    return clamp((t_scene_world - t_sheet_world + front_world) * sharpness, 0.0, slab_world);
}

// One sheet's fog along a ray: straight-alpha colour (linear) and opacity of the `visible_world`
// long part of its slab in front of the scene (`visible_slab_world`), shaded at the middle of
// that part, `pos_world` moved back from the sheet's crossing `on_sheet_world` when the scene
// cuts the slab. The shared step of the raster and compute compositors and the flames' fog.
struct SheetSample {
    shaded: vec4<f32>,
    pos_world: vec3<f32>,
}

fn sample_sheet(
    on_sheet_world: vec3<f32>,
    ray_world: vec3<f32>,
    visible_world: f32,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
) -> SheetSample {
    let slab_world = sheet_slab_world(ray_world, knobs);
    let pos_world = on_sheet_world - ray_world * (0.5 * (slab_world - visible_world));
    if FOG_MEDIUM != FOG_MEDIUM_SEED && fluid_view_of(knobs) <= 0.0 {
        let shaded = physical_slab(pos_world, ray_world, visible_world, knobs, fluid_map, lift_map);
        return SheetSample(shaded, pos_world);
    }
    let medium = fog_medium(pos_world, ray_world, knobs, fluid_map, lift_map);
    let alpha = 1.0 - exp(-medium.extinction_per_world * visible_world);
    let debug_alpha = medium.debug_alpha * step(0.5 * slab_world, visible_world);
    let shaded = vec4<f32>(medium.color, clamp(max(alpha, debug_alpha), 0.0, 1.0));
    return SheetSample(shaded, pos_world);
}

// The physical medium shades a slab in pieces at most this many sheet spacings long, and in at
// most this many pieces. Pieces of one spacing, four at most, err 0.113 levels against the
// raymarch on the moonlit scene (frame 200, 48 compute sheets, 640×360); these 0.136, within
// the 1.5 times the temple's error (0.093) that the medium allows, for 0.84 of the GPU time
// (benches/runs/2026-12-06-h100-h).
const SLAB_PIECE_SPACINGS: f32 = 1.25;
const MAX_SLAB_PIECES: f32 = 3.0;

// The physical medium over the `visible_world` long part of a slab centred on `middle_world`:
// straight-alpha colour and opacity. A flat ray's slab is long, and one sample at its middle
// misses the noise's wisps and the moon's shafts along it, so the slab is cut into pieces at
// most `SLAB_PIECE_SPACINGS` long. Each piece takes its own density and moon shadow, and they
// are composited front to back. The other lights change slowly along a slab and are worked out
// once, at the middle. One piece is exactly one sample at the middle.
fn physical_slab(
    middle_world: vec3<f32>,
    ray_world: vec3<f32>,
    visible_world: f32,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
) -> vec4<f32> {
    let pieces = slab_pieces(middle_world, ray_world, visible_world, knobs, fluid_map, lift_map);
    if pieces.alpha <= 0.0 {
        return vec4<f32>(0.0);
    }
    return slab_lit_by(pieces, medium_light(middle_world, ray_world));
}

// What a physical slab's pieces leave for its light (`slab_pieces`): its opacity, and the
// share of its light that the moon's shadow map lets through.
struct SlabPieces {
    alpha: f32,
    // The moon's light through the shadow map, per unit of `alpha` (0 where `alpha` is 0).
    moon_share: f32,
}

// The pieces of a physical slab (`physical_slab`): each piece's density and moon shadow,
// composited front to back.
fn slab_pieces(
    middle_world: vec3<f32>,
    ray_world: vec3<f32>,
    visible_world: f32,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
) -> SlabPieces {
    let spacing_world = knobs.layer.w;
    let pieces = clamp(ceil(visible_world / (SLAB_PIECE_SPACINGS * spacing_world)), 1.0, MAX_SLAB_PIECES);
    let piece_world = visible_world / pieces;
    // The middle of the nearest piece, then each next one a piece farther along the ray.
    let first_world = middle_world - ray_world * (0.5 * (visible_world - piece_world));
    var moonlit = 0.0;
    var through = 1.0;
    for (var k = 0.0; k < pieces; k += 1.0) {
        let at_world = first_world + ray_world * (piece_world * k);
        let here = fog_density(at_world, knobs, fluid_map, lift_map);
        let alpha = 1.0 - exp(-here.density * knobs.optics.x * piece_world);
        // No fog in this piece: its moonlight counts for nothing (and a CPU adapter skips the
        // shadow map's reads where a whole block of pixels has none).
        if alpha > 0.0 {
            moonlit += through * alpha * moon_in_medium(at_world);
        }
        through *= 1.0 - alpha;
    }
    let alpha = 1.0 - through;
    return SlabPieces(alpha, select(0.0, moonlit / alpha, alpha > 0.0));
}

// A physical slab's straight-alpha colour and opacity: its pieces lit by `light`.
fn slab_lit_by(pieces: SlabPieces, light: MediumLight) -> vec4<f32> {
    return vec4<f32>(light.moon * pieces.moon_share + light.rest, clamp(pieces.alpha, 0.0, 1.0));
}

// A pseudo-random fraction in [0, 1) per pixel with no pattern (white noise): a PCG-style
// integer hash of its coordinates, the same on every adapter. The raymarch starts each ray this
// fraction of a step along, so its error shows as grain, not as bands.
fn pixel_hash(pixel: vec2<u32>) -> f32 {
    var h = pixel.x * 747796405u + pixel.y * 2891336453u + 2654435769u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    h = (h >> 22u) ^ h;
    return f32(h >> 8u) / 16777216.0;
}

// Where a ray from `origin` along `dir` is inside the fog's box (the square, from the floor to
// the highest the fog can reach): the entry and exit distances, entry > exit when it misses.
fn fog_box_span(origin: vec3<f32>, dir: vec3<f32>, knobs: FogKnobs) -> vec2<f32> {
    let top_world = max(knobs.layer.y + knobs.layer.z, knobs.sampling.w);
    let lo = vec3<f32>(knobs.area.x, knobs.layer.x, knobs.area.y);
    let hi = vec3<f32>(knobs.area.x + knobs.area.z, top_world, knobs.area.y + knobs.area.w);
    // Components of `dir` at 0 divide to ±inf, which the min and max below handle.
    let inv = vec3<f32>(1.0) / dir;
    let t_lo = (lo - origin) * inv;
    let t_hi = (hi - origin) * inv;
    let t_near = min(t_lo, t_hi);
    let t_far = max(t_lo, t_hi);
    let enter = max(max(t_near.x, t_near.y), max(t_near.z, 0.0));
    let exit = min(min(t_far.x, t_far.y), t_far.z);
    return vec2<f32>(enter, exit);
}

// The light the continuous fog sends along a ray and what it lets through.
struct RayFog {
    // Premultiplied colour (linear), each point seen through the distance fog.
    color: vec3<f32>,
    transmittance: f32,
}

// Below this transmittance whatever lies further along adds at most 1/512 of its colour, about
// one 8-bit level: a march stops.
const FOG_MIN_TRANSMITTANCE: f32 = 1.0 / 512.0;

// Integrates the continuous fog (`fog_medium`) along the ray from `eye_world` along the unit
// `ray_world` up to `t_end_world`, front to back, in `steps` equal steps over the part of the
// ray inside the fog's box, each sampled `offset` (0..1) of the way along: the reference the
// sheets approximate. Each step is Beer–Lambert of the point's extinction over the step.
fn march_medium(
    eye_world: vec3<f32>,
    ray_world: vec3<f32>,
    t_end_world: f32,
    steps: u32,
    offset: f32,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
) -> RayFog {
    var color = vec3<f32>(0.0);
    var transmittance = 1.0;
    let span = fog_box_span(eye_world, ray_world, knobs);
    let t_start = span.x;
    let t_stop = min(span.y, t_end_world);
    if t_stop <= t_start || steps == 0u {
        return RayFog(color, transmittance);
    }
    let step_world = (t_stop - t_start) / f32(steps);
    for (var i = 0u; i < steps; i += 1u) {
        let t_world = t_start + (f32(i) + offset) * step_world;
        let pos_world = eye_world + ray_world * t_world;
        let medium = fog_medium(pos_world, ray_world, knobs, fluid_map, lift_map);
        // The `fluid` view's band: the opacity of one sheet spread over its slab.
        let debug_per_world = -log(1.0 - medium.debug_alpha) / knobs.layer.w;
        let alpha = 1.0 - exp(-(medium.extinction_per_world + debug_per_world) * step_world);
        if alpha <= 0.0 {
            continue;
        }
        color += apply_distance_fog(medium.color, pos_world) * (alpha * transmittance);
        transmittance *= 1.0 - alpha;
        if transmittance < FOG_MIN_TRANSMITTANCE {
            break;
        }
    }
    return RayFog(color, transmittance);
}

// What the sheets let through along the ray from `eye_world` along the unit `ray_world` up to
// `t_end_world` (a flame's point): every sheet slab (the lowest `optics.w`), or the part of it,
// in front of that point, inside the fog's square, as the compositors cross them.
fn sheets_transmittance(
    eye_world: vec3<f32>,
    ray_world: vec3<f32>,
    t_end_world: f32,
    knobs: FogKnobs,
    fluid_map: texture_2d<f32>,
    lift_map: texture_2d<f32>,
) -> f32 {
    var transmittance = 1.0;
    if ray_world.y == 0.0 {
        return transmittance;
    }
    let count = min(u32(knobs.sampling.x), u32(knobs.optics.w));
    let slab_world = sheet_slab_world(ray_world, knobs);
    for (var i = 0u; i < count; i += 1u) {
        let height_world = sheet_height_world(i, knobs);
        let t_world = (height_world - eye_world.y) / ray_world.y;
        if t_world <= 0.0 {
            continue;
        }
        let visible_world = visible_slab_world(t_world, slab_world, t_end_world, knobs);
        let on_sheet_world = eye_world + ray_world * t_world;
        let uv = (on_sheet_world.xz - knobs.area.xy) / knobs.area.zw;
        if visible_world <= 0.0 || any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) {
            continue;
        }
        let sample = sample_sheet(on_sheet_world, ray_world, visible_world, knobs, fluid_map, lift_map);
        transmittance *= 1.0 - sample.shaded.a;
    }
    return transmittance;
}

@group(1) @binding(0) var<uniform> fog: FogKnobs;
@group(1) @binding(1) var fluid_map: texture_2d<f32>;
@group(1) @binding(2) var lift_map: texture_2d<f32>;
// The scene's depth, read (not depth tested against: see `visible_slab_world`).
// The scene's depth (clip space, 0 at the near plane, 1 at the far plane or where nothing was
// drawn): the depth target, or the compute `scene` pass's hit depths (scene_compute.wgsl), read
// as plain floats either way.
@group(1) @binding(3) var scene_depth: texture_2d<f32>;

struct SheetOut {
    @builtin(position) pos_clip: vec4<f32>,
    @location(0) pos_world: vec3<f32>,
}

// The corner `vertex_index` of the quad over the fog's square at `height_world`.
fn sheet_vertex(vertex_index: u32, height_world: f32) -> SheetOut {
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

// One quad over the fog's square per instance, at the instance's height.
@vertex
fn vs_fog(@builtin(vertex_index) vertex_index: u32, @location(0) height_world: f32) -> SheetOut {
    return sheet_vertex(vertex_index, height_world);
}

// What every fragment of a sheet reads alike: the fog's knobs, the eye (xyz, world), the
// frame's projection and the distance fog.
struct SheetUniforms {
    knobs: FogKnobs,
    eye_world: vec4<f32>,
    clip_from_world: mat4x4<f32>,
    distance_fog: DistanceFogParams,
}

// Premultiplied output: the blend state adds it over what is behind. The part of the sheet's
// slab in front of the scene (none: discarded) is shaded at its middle.
fn sheet_fragment(pos_clip: vec4<f32>, pos_world: vec3<f32>, uniforms: SheetUniforms) -> vec4<f32> {
    let knobs = uniforms.knobs;
    let eye_world = uniforms.eye_world.xyz;
    let to_sheet = pos_world - eye_world;
    let t_sheet_world = length(to_sheet);
    let view_dir_world = to_sheet / t_sheet_world;
    let depth_scene = textureLoad(scene_depth, vec2<i32>(pos_clip.xy), 0).x;
    let t_scene_world =
        scene_distance_through(uniforms.clip_from_world, eye_world, view_dir_world, depth_scene);
    let slab_world = sheet_slab_world(view_dir_world, knobs);
    let visible_world = visible_slab_world(t_sheet_world, slab_world, t_scene_world, knobs);
    if visible_world <= 0.0 {
        discard;
    }
    let sample = sample_sheet(pos_world, view_dir_world, visible_world, knobs, fluid_map, lift_map);
    let color =
        apply_distance_fog_from(sample.shaded.rgb, sample.pos_world, eye_world, uniforms.distance_fog);
    return vec4<f32>(color * sample.shaded.a, sample.shaded.a);
}

@fragment
fn fs_fog(in: SheetOut) -> @location(0) vec4<f32> {
    let uniforms = SheetUniforms(fog, frame.eye_world, frame.clip_from_world, distance_fog);
    return sheet_fragment(in.pos_clip, in.pos_world, uniforms);
}

// keep in sync with fires.wgsl: MAX_FIRES_AS_INPUTS
// `SheetOut` with what every fragment of the sheet reads alike, handed over as flat inputs
// (`FrameBinding::fog_uniforms_as_inputs`): the first `MAX_FIRES_AS_INPUTS` fires as the
// glow reads them (`FIRE_GLOW_FROM_INPUTS`) and the `SheetUniforms`. 31 inter-stage
// variables.
struct SheetWithUniformsOut {
    @builtin(position) pos_clip: vec4<f32>,
    @location(0) pos_world: vec3<f32>,
    @location(1) @interpolate(flat) fire_0_light: vec4<f32>,
    @location(2) @interpolate(flat) fire_0_glow: vec4<f32>,
    @location(3) @interpolate(flat) fire_1_light: vec4<f32>,
    @location(4) @interpolate(flat) fire_1_glow: vec4<f32>,
    @location(5) @interpolate(flat) fire_2_light: vec4<f32>,
    @location(6) @interpolate(flat) fire_2_glow: vec4<f32>,
    @location(7) @interpolate(flat) fire_3_light: vec4<f32>,
    @location(8) @interpolate(flat) fire_3_glow: vec4<f32>,
    @location(9) @interpolate(flat) fire_4_light: vec4<f32>,
    @location(10) @interpolate(flat) fire_4_glow: vec4<f32>,
    @location(11) @interpolate(flat) fire_5_light: vec4<f32>,
    @location(12) @interpolate(flat) fire_5_glow: vec4<f32>,
    @location(13) @interpolate(flat) fire_6_light: vec4<f32>,
    @location(14) @interpolate(flat) fire_6_glow: vec4<f32>,
    @location(15) @interpolate(flat) knobs_area: vec4<f32>,
    @location(16) @interpolate(flat) knobs_ball: vec4<f32>,
    @location(17) @interpolate(flat) knobs_wind: vec4<f32>,
    @location(18) @interpolate(flat) knobs_fog_color: vec4<f32>,
    @location(19) @interpolate(flat) knobs_glow_color: vec4<f32>,
    @location(20) @interpolate(flat) knobs_layer: vec4<f32>,
    @location(21) @interpolate(flat) knobs_optics: vec4<f32>,
    @location(22) @interpolate(flat) knobs_sampling: vec4<f32>,
    @location(23) @interpolate(flat) eye_world: vec4<f32>,
    @location(24) @interpolate(flat) clip_from_world_0: vec4<f32>,
    @location(25) @interpolate(flat) clip_from_world_1: vec4<f32>,
    @location(26) @interpolate(flat) clip_from_world_2: vec4<f32>,
    @location(27) @interpolate(flat) clip_from_world_3: vec4<f32>,
    @location(28) @interpolate(flat) distance_fog_color: vec4<f32>,
    @location(29) @interpolate(flat) distance_fog_range: vec4<f32>,
    // xy: the distance fog's height (falloff, base); z: its mode, as a float.
    @location(30) @interpolate(flat) distance_fog_height_mode: vec4<f32>,
}

// `vs_fog`, reading the fires and the `SheetUniforms` for the sheet's fragments (fires past
// the scene's count read as zeros and are never used).
@vertex
fn vs_fog_with_uniforms(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) height_world: f32,
) -> SheetWithUniformsOut {
    return sheet_with_uniforms(sheet_vertex(vertex_index, height_world));
}

// The corner `sheet` with the fires and the `SheetUniforms` its fragments read.
fn sheet_with_uniforms(sheet: SheetOut) -> SheetWithUniformsOut {
    var fires: array<FireGlow, MAX_FIRES_AS_INPUTS>;
    for (var i = 0u; i < MAX_FIRES_AS_INPUTS; i += 1u) {
        fires[i] = fire_glow_uniforms(i);
    }
    return SheetWithUniformsOut(
        sheet.pos_clip,
        sheet.pos_world,
        fires[0].light_world, fires[0].color_glow,
        fires[1].light_world, fires[1].color_glow,
        fires[2].light_world, fires[2].color_glow,
        fires[3].light_world, fires[3].color_glow,
        fires[4].light_world, fires[4].color_glow,
        fires[5].light_world, fires[5].color_glow,
        fires[6].light_world, fires[6].color_glow,
        fog.area, fog.ball, fog.wind, fog.fog_color,
        fog.glow_color, fog.layer, fog.optics, fog.sampling,
        frame.eye_world,
        frame.clip_from_world[0], frame.clip_from_world[1],
        frame.clip_from_world[2], frame.clip_from_world[3],
        distance_fog.color, distance_fog.range,
        vec4<f32>(distance_fog.height.xy, f32(distance_fog.mode.x), 0.0),
    );
}

// `fs_fog`, reading the fires and the `SheetUniforms` from the inputs.
@fragment
fn fs_fog_with_uniforms(in: SheetWithUniformsOut) -> @location(0) vec4<f32> {
    return sheet_fragment(in.pos_clip, in.pos_world, uniforms_from_inputs(in));
}

// The `SheetUniforms` handed over in `in`; also sets the fires' glow from its inputs.
fn uniforms_from_inputs(in: SheetWithUniformsOut) -> SheetUniforms {
    fire_glow_inputs = array<FireGlow, MAX_FIRES_AS_INPUTS>(
        FireGlow(in.fire_0_light, in.fire_0_glow),
        FireGlow(in.fire_1_light, in.fire_1_glow),
        FireGlow(in.fire_2_light, in.fire_2_glow),
        FireGlow(in.fire_3_light, in.fire_3_glow),
        FireGlow(in.fire_4_light, in.fire_4_glow),
        FireGlow(in.fire_5_light, in.fire_5_glow),
        FireGlow(in.fire_6_light, in.fire_6_glow),
    );
    let knobs = FogKnobs(
        in.knobs_area,
        in.knobs_ball,
        in.knobs_wind,
        in.knobs_fog_color,
        in.knobs_glow_color,
        in.knobs_layer,
        in.knobs_optics,
        in.knobs_sampling,
    );
    let clip_from_world = mat4x4<f32>(
        in.clip_from_world_0,
        in.clip_from_world_1,
        in.clip_from_world_2,
        in.clip_from_world_3,
    );
    let distance_fog_in = DistanceFogParams(
        in.distance_fog_color,
        in.distance_fog_range,
        vec4<f32>(in.distance_fog_height_mode.xy, 0.0, 0.0),
        vec4<u32>(u32(in.distance_fog_height_mode.z), 0u, 0u, 0u),
    );
    return SheetUniforms(knobs, in.eye_world, clip_from_world, distance_fog_in);
}
