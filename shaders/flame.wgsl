// flame.wgsl: the `flame` pass — one procedural flame per torch and brazier, drawn over the
// scene and the fog.
//
// Each fire is one upright quad, sized in world units and turned round the world's Y axis to
// face the camera (a cylindrical billboard), so the flame stands straight whatever the view.
// The flame is the "2D distortion" flame of Nguyen, "Fire in the Vulcan Demo", GPU Gems (2004),
// ch. 6, section 6.1: a single teardrop silhouette whose coordinates are pushed about by fbm
// noise scrolling up the flame, with an amplitude that grows with height, so the head is
// steady and the tip licks; noise also eats into the upper flame so the tip breaks up, and the
// flame leans as a whole. The octave sum is the turbulence function of Akenine-Möller et al.,
// Real-Time Rendering, 4th ed., section 6.3; the noise under it is 2D simplex noise (Perlin
// 2001, in the common formulation with (0.5 - r²)⁴ corner kernels) whose lattice gradients come
// from an integer hash, so their quality does not decay as the clock grows the way a
// `fract(sin(x) * big)` hash does. The colour runs from a red rim and tip through the fire's
// own colour to a yellow core.
//
// The clock is the frame's time plus the fire's phase, so renders are reproducible and no two
// fires move in step. The result is added to the picture (additive blending, alpha 0), depth
// tested against the scene so pillars hide flames, writing no depth; the distance fog dims it,
// and so does the ground fog between the eye and the flame (`ground_fog_transmittance`), as
// the compositor that drew the fog crossed it, so a brazier standing in the fog glows through.
//
// Needs common.wgsl (frame uniforms, distance fog), noise.wgsl, fires.wgsl (the fires,
// `fire_flicker_of`) and fog.wgsl (the marches and group 1's bindings 0 to 2:
// the fog's knobs and the fluid maps, which this pass binds with its own copy of the knobs).

// The quad's width over its height for a torch: narrower than tall, with room for the sway.
// A fire's `shape.w` widens it (braziers).
const FLAME_ASPECT: f32 = 0.6;
const PI: f32 = 3.14159265;
// The silhouette, in flame heights: its widest half width, where its tip is (the rest of the
// quad is room for the licking), and the peak of the profile curve, so the widest point is
// exactly FLAME_HALF_WIDTH.
const FLAME_HALF_WIDTH: f32 = 0.20;
const FLAME_TIP: f32 = 0.90;
const PROFILE_PEAK: f32 = 1.172;
// Room under the flame's foot, as a fraction of the quad's height.
const FOOT_MARGIN: f32 = 0.04;
// The ramp (linear light): the cool rim and tip, then the fire's colour, then the hot core.
const EDGE_RED: vec3<f32> = vec3<f32>(0.70, 0.06, 0.005);
const CORE_YELLOW: vec3<f32> = vec3<f32>(1.0, 0.78, 0.30);

// ---- 2D simplex noise with hashed gradients, and fbm over it ---------------------------------

// A 2D integer hash: the PCG-style mix of both coordinates into each other (the `pcg2d` of
// Jarzynski & Olano, "Hash Functions for GPU Rendering", JCGT 2020).
fn flame_hash2(cell: vec2<u32>) -> vec2<u32> {
    var v = cell * 1664525u + vec2<u32>(1013904223u);
    v.x += v.y * 1664525u;
    v.y += v.x * 1664525u;
    v = v ^ (v >> vec2<u32>(16u));
    v.x += v.y * 1664525u;
    v.y += v.x * 1664525u;
    v = v ^ (v >> vec2<u32>(16u));
    return v;
}

// The gradient at a lattice point (integer coordinates held in floats), each component in
// [-1, 1]. The top 24 bits of the hash are exact in an f32.
fn flame_gradient(lattice: vec2<f32>) -> vec2<f32> {
    let cell = bitcast<vec2<u32>>(vec2<i32>(lattice));
    let bits = flame_hash2(cell) >> vec2<u32>(8u);
    return vec2<f32>(bits) * (2.0 / 16777216.0) - vec2<f32>(1.0);
}

// 2D simplex noise, about -1..1: the plane is skewed onto a lattice of triangles, and the three
// corners of the triangle holding `p` each add their gradient's ramp times a (0.5 - r²)⁴ bump.
fn flame_simplex(p: vec2<f32>) -> f32 {
    // (sqrt(3) - 1) / 2 skews onto the lattice; (3 - sqrt(3)) / 6 skews back.
    let skew = 0.366025404;
    let unskew = 0.211324865;
    let corner0 = floor(p + (p.x + p.y) * skew);
    let d0 = p - corner0 + (corner0.x + corner0.y) * unskew;
    // Which triangle of the skewed square: the middle corner steps along x or along y first.
    let step = select(vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), d0.x > d0.y);
    let d1 = d0 - step + unskew;
    let d2 = d0 - 1.0 + 2.0 * unskew;
    let bump = max(vec3<f32>(0.5) - vec3<f32>(dot(d0, d0), dot(d1, d1), dot(d2, d2)), vec3<f32>(0.0));
    let ramps = vec3<f32>(
        dot(d0, flame_gradient(corner0)),
        dot(d1, flame_gradient(corner0 + step)),
        dot(d2, flame_gradient(corner0 + vec2<f32>(1.0))),
    );
    let bump2 = bump * bump;
    // 70 scales the sum to about -1..1.
    return 70.0 * dot(bump2 * bump2, ramps);
}

// Four octaves of simplex noise, each twice the frequency and half the weight of the last and
// turned by about 37 degrees so the lattices do not line up; mapped to about 0..1.
fn flame_fbm(p_in: vec2<f32>) -> f32 {
    let turn_and_double = mat2x2<f32>(1.6, 1.2, -1.2, 1.6);
    var p = p_in;
    var sum = 0.0;
    var weight = 0.5;
    for (var octave = 0; octave < 4; octave += 1) {
        sum += weight * flame_simplex(p);
        p = turn_and_double * p;
        weight *= 0.5;
    }
    return 0.5 + 0.5 * sum;
}

// ----------------------------------------------------------------------------------------------

struct FlameOut {
    @builtin(position) pos_clip: vec4<f32>,
    // x: across the quad, 0 left to 1 right; y: up it, 0 at the foot to 1 at the top.
    @location(0) uv: vec2<f32>,
    @location(1) pos_world: vec3<f32>,
    @location(2) @interpolate(flat) fire_index: u32,
    // How far the wind pushes the flame's tip across the quad, in flame heights (0 without
    // weather).
    @location(3) @interpolate(flat) wind_lean: f32,
}

// ---- weather: the flames lean with the one wind ----
// keep in sync with src/gpu/passes/flame.rs: FlameWind
struct FlameWind {
    // xy: the wind on the floor (x, z), world units per second; z: lean of the tip per unit
    // of wind across the view, flame heights per (world unit per second); w: the most lean.
    wind: vec4<f32>,
}

@group(1) @binding(4) var<uniform> flame_wind: FlameWind;

// The tip's lean across a quad whose right-hand edge runs along `right_world`: the part of the
// wind across the view (along the wind toward the right is to the right), capped.
fn flame_wind_lean(right_world: vec3<f32>) -> f32 {
    let across = dot(flame_wind.wind.xy, right_world.xz);
    return clamp(across * flame_wind.wind.z, -flame_wind.wind.w, flame_wind.wind.w);
}

// The quad's widening for a lean: room for the tip on either side (exactly 1 without wind).
fn flame_widening(lean: f32) -> f32 {
    return 1.0 + 2.0 * abs(lean) / FLAME_ASPECT;
}
// ---- end weather ----

// Where one fire's quad stands this frame: on the flame's foot, its right-hand edge horizontal
// and square to the direction to the eye (looking straight down on the fire any direction
// serves, so +x), widened for the wind's lean.
struct FlameQuad {
    foot_world: vec3<f32>,
    right_world: vec3<f32>,
    width_world: f32,
    height_world: f32,
    wind_lean: f32,
}

fn flame_quad(fire_index: u32) -> FlameQuad {
    let fire = fire_lights.fires[min(fire_index, MAX_FIRES - 1u)];
    let foot_world = fire.foot_world.xyz;
    let height_world = fire.shape.x;
    let to_eye = frame.eye_world.xz - foot_world.xz;
    let toward = select(vec2<f32>(0.0, 1.0), normalize(to_eye), dot(to_eye, to_eye) > 1e-8);
    let right_world = vec3<f32>(toward.y, 0.0, -toward.x);
    let wind_lean = flame_wind_lean(right_world);
    let width_world = height_world * FLAME_ASPECT * fire.shape.w * flame_widening(wind_lean);
    return FlameQuad(foot_world, right_world, width_world, height_world, wind_lean);
}

// The point of `quad` at `corner` (x across, 0 left to 1 right; y up, 0 at the foot to 1 at the
// top), world.
fn flame_quad_point(quad: FlameQuad, corner: vec2<f32>) -> vec3<f32> {
    return quad.foot_world
        + quad.right_world * ((corner.x - 0.5) * quad.width_world)
        + vec3<f32>(0.0, corner.y * quad.height_world, 0.0);
}

// One quad per fire (instance), standing on the flame's foot and turned about world Y to face
// the eye.
@vertex
fn vs_flame(
    @builtin(vertex_index) vertex_index: u32,
    @builtin(instance_index) fire_index: u32,
) -> FlameOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0),
    );
    let corner = corners[vertex_index];
    let quad = flame_quad(fire_index);
    let pos_world = flame_quad_point(quad, corner);

    var out: FlameOut;
    out.pos_clip = frame.clip_from_world * vec4<f32>(pos_world, 1.0);
    out.uv = corner;
    out.pos_world = pos_world;
    out.fire_index = fire_index;
    out.wind_lean = quad.wind_lean;
    return out;
}

// Whether the flames are hidden behind the scene by reading its depth (`scene_depth`, fog.wgsl)
// instead of by a depth test: where the compute `scene` pass leaves its depths in a float
// picture and no depth target (src/gpu/passes/flame.rs).
override FLAME_READS_SCENE_DEPTH: bool = false;

// Whether the fragment `in` shows no flame: outside the listed pixels of a later sample of
// `--edge-samples` (common.wgsl), or behind the scene where the depth test `Less` would fail.
fn flame_hidden(in: FlameOut) -> bool {
    return outside_edges(vec2<u32>(in.pos_clip.xy))
        || (FLAME_READS_SCENE_DEPTH
        && in.pos_clip.z >= textureLoad(scene_depth, vec2<i32>(in.pos_clip.xy), 0).x);
}

// The flame's light at one point of its quad (linear), to be added to the picture, dimmed by
// the fog on the grid (`flame_light`).
@fragment
fn fs_flame(in: FlameOut) -> @location(0) vec4<f32> {
    if flame_hidden(in) {
        discard;
    }
    return vec4<f32>(flame_light(in), 0.0);
}

// `fs_flame` with the fog crossed per pixel (`flame_light_fog_per_pixel`): the raymarch.
@fragment
fn fs_flame_fog_per_pixel(in: FlameOut) -> @location(0) vec4<f32> {
    if flame_hidden(in) {
        discard;
    }
    return vec4<f32>(flame_light_fog_per_pixel(in), 0.0);
}

// The flame's light at `in.uv` on its quad, dimmed by the fog in front of it as the grid holds
// it (`cs_flame_fog`).
fn flame_light(in: FlameOut) -> vec3<f32> {
    let light = flame_unfogged(in);
    if all(light <= vec3<f32>(0.0)) {
        return vec3<f32>(0.0);
    }
    return light * flame_fog_from_grid(min(in.fire_index, MAX_FIRES - 1u), in.uv);
}

// `flame_light` with the fog crossed for this fragment alone (`ground_fog_transmittance`).
// A form of its own, not a branch on a pipeline constant: a CPU adapter's compiler works
// through both sides of such a branch before dropping one, and the march is long.
fn flame_light_fog_per_pixel(in: FlameOut) -> vec3<f32> {
    let light = flame_unfogged(in);
    if all(light <= vec3<f32>(0.0)) {
        return vec3<f32>(0.0);
    }
    return light * ground_fog_transmittance(in.pos_world, in.pos_clip.xy);
}

// The flame's light at `in.uv` on its quad (linear), before the fog in front of it.
fn flame_unfogged(in: FlameOut) -> vec3<f32> {
    let fire_index = min(in.fire_index, MAX_FIRES - 1u);
    let fire = fire_lights.fires[fire_index];
    let phase_rad = fire.light_color.w;
    let t = frame.eye_world.w + phase_rad;

    // Height up the flame from its foot, and the distance across in flame heights (a torch's
    // proportions: a brazier's wider quad is the same flame stretched), so the noise is round.
    let y = (in.uv.y - FOOT_MARGIN) / (1.0 - FOOT_MARGIN);
    let x = (in.uv.x - 0.5) * FLAME_ASPECT * flame_widening(in.wind_lean);
    let s = clamp(y, 0.0, 1.0);

    // Rising turbulence: fbm fields scrolled down the flame, so their features climb it.
    let n1 = flame_fbm(vec2<f32>(x * 2.5, y * 1.8 - t * 1.7));
    let n2 = flame_fbm(vec2<f32>(x * 2.5 + 7.3, y * 1.8 - t * 1.7 + 3.1));
    let n3 = flame_fbm(vec2<f32>(x * 4.0 + 2.1, y * 1.6 - t * 2.4));

    // The whole flame leans and sways; the distortion grows with height: a steady head, a
    // licking tip.
    let lean = 0.04 * sin(t * 1.7) + 0.02 * sin(t * 3.1 + 1.0);
    // The wind bends it further, the tip most (`wind_lean` heights at the top).
    let dx = x + (n1 - 0.5) * 0.30 * s + lean * s * s - in.wind_lean * s * s;
    let dy = y + (n2 - 0.5) * 0.12 * s;

    // The teardrop: a quarter of its widest where it leaves the foot, widest about a third up,
    // tapering to the tip. `max(.., 0)` because sin(PI) is slightly negative in f32 and `pow`
    // of a negative base is undefined.
    let u = clamp(dy / FLAME_TIP, 0.0, 1.0);
    let profile = (0.25 * (1.0 - u) + pow(max(sin(PI * pow(u, 0.62)), 0.0), 0.9)) / PROFILE_PEAK;
    let half_width = FLAME_HALF_WIDTH * profile + 1e-4;
    var body = 1.0 - abs(dx) / half_width;
    // Noise eats into the upper flame, so its top breaks into tongues instead of a smooth point.
    body -= (1.0 - n3) * 0.9 * pow(u, 1.8);
    body = select(body, -1.0, dy < 0.0);
    let mask = smoothstep(0.0, 0.30, body) * smoothstep(0.0, 0.06, y);

    // Hottest along the axis and low down: a red rim and tip, the fire's colour, a yellow core.
    let heat = clamp(body, 0.0, 1.0) * (1.0 - 0.85 * u);
    var color = mix(EDGE_RED, fire.flame_color.rgb, smoothstep(0.05, 0.40, heat));
    color = mix(color, CORE_YELLOW, smoothstep(0.40, 0.80, heat));

    // Brightness: the ember strength, flickering with the fire's light; dimmed by the distance
    // fog like everything else at that depth.
    let brightness = fire.flame_color.w * fire_flicker_of(fire_index);
    let seen = 1.0 - distance_fog_factor(frame.eye_world.xyz, in.pos_world, distance_fog);
    // Alpha 0 with the pass's additive blend: the flame only adds light, it hides nothing.
    return color * (mask * brightness * seen);
}

// ---- the later edge samples in one draw (src/gpu/passes/edge_batch.rs) ----
//
// After `cs_scene_edge_batch` (scene_compute.wgsl) has drawn the later samples of the listed
// pixels, `fs_flame_edge_batch` adds each sample's flame light to the picture, which holds
// sample 0. The quad is a plane, so across one pixel its coordinates and depth change linearly:
// sample k's point is the pixel centre's moved by the sample's offset along the derivatives.
// Each sample is tested against that sample's own depth. The flame fades to nothing before the
// quad's border, so the pixels the quad covers are all a sub-pixel offset can reach.

// Samples a pixel in all, sample 0 included.
override EDGE_BATCH_SAMPLES: u32 = 8u;
// Sample k's offset inside the pixel (x right, y down, pixels) in `.xy`.
@group(2) @binding(0) var<storage, read> batch_offsets: array<vec4<f32>>;
// Slot i's later samples' depths, EDGE_BATCH_SAMPLES - 1 of them, in sample order.
@group(2) @binding(1) var<storage, read> batch_depths: array<f32>;

// A listed pixel's later samples on a flame's quad (`edge_batch_of`): the point's rates of
// change across the pixel and where its samples' depths start.
struct EdgeBatchPixel {
    uv_dx: vec2<f32>,
    uv_dy: vec2<f32>,
    depth_dx: f32,
    depth_dy: f32,
    first: u32,
}

// `in`'s pixel for the batch; discards a pixel that is not listed. Called first thing, while
// every fragment of the quad still runs: the derivatives need them all.
fn edge_batch_of(in: FlameOut) -> EdgeBatchPixel {
    let uv_dx = dpdx(in.uv);
    let uv_dy = dpdy(in.uv);
    let depth_dx = dpdx(in.pos_clip.z);
    let depth_dy = dpdy(in.pos_clip.z);
    let listed = textureLoad(edge_mask, vec2<i32>(in.pos_clip.xy), 0).x;
    if listed == 0u {
        discard;
    }
    let first = (listed - 1u) * (EDGE_BATCH_SAMPLES - 1u);
    return EdgeBatchPixel(uv_dx, uv_dy, depth_dx, depth_dy, first);
}

// Later sample `k` of `pixel`: the fragment moved by the sample's offset along the quad, and
// whether it lands on the quad in front of that sample's scene.
struct EdgeBatchSample {
    at: FlameOut,
    shown: bool,
}

fn edge_batch_sample(in: FlameOut, pixel: EdgeBatchPixel, k: u32) -> EdgeBatchSample {
    let offset = batch_offsets[k].xy;
    var at = in;
    at.uv = in.uv + pixel.uv_dx * offset.x + pixel.uv_dy * offset.y;
    let depth = in.pos_clip.z + pixel.depth_dx * offset.x + pixel.depth_dy * offset.y;
    let on_quad = all(at.uv >= vec2<f32>(0.0)) && all(at.uv <= vec2<f32>(1.0));
    return EdgeBatchSample(at, on_quad && depth < batch_depths[pixel.first + k - 1u]);
}

// The later samples' flame light at a listed pixel, the fog from the grid (`flame_light`).
// Bound by the offsets' length, not by the constant: unrolled seven times, the flame's noise
// took lavapipe a tenth of a second more to compile.
@fragment
fn fs_flame_edge_batch(in: FlameOut) -> @location(0) vec4<f32> {
    let pixel = edge_batch_of(in);
    var light = vec3<f32>(0.0);
    for (var k = 1u; k < arrayLength(&batch_offsets); k += 1u) {
        let sample = edge_batch_sample(in, pixel, k);
        if sample.shown {
            light += flame_light(sample.at);
        }
    }
    return vec4<f32>(light, 0.0);
}

// `fs_flame_edge_batch` with the fog crossed per pixel (`flame_light_fog_per_pixel`).
@fragment
fn fs_flame_edge_batch_fog_per_pixel(in: FlameOut) -> @location(0) vec4<f32> {
    let pixel = edge_batch_of(in);
    var light = vec3<f32>(0.0);
    for (var k = 1u; k < arrayLength(&batch_offsets); k += 1u) {
        let sample = edge_batch_sample(in, pixel, k);
        if sample.shown {
            light += flame_light_fog_per_pixel(sample.at);
        }
    }
    return vec4<f32>(light, 0.0);
}

// What the ground fog in front of a flame's point lets through, as the compositor that drew
// the fog sees it: the sheets (`sheets_transmittance`, the raster and compute compositors) or
// the continuous fog in the raymarch's steps (`march_medium`, the pixel's same random start).
// The fog drawn before the flames is in the picture already; the flame, added after it, is
// dimmed here by the part of that fog between the eye and the flame.
fn ground_fog_transmittance(pos_world: vec3<f32>, frag_xy: vec2<f32>) -> f32 {
    let steps = u32(fog.sampling.z);
    if steps > 0u {
        let eye_world = frame.eye_world.xyz;
        let to_flame = pos_world - eye_world;
        let t_world = length(to_flame);
        let pixel = vec2<u32>(frag_xy);
        return march_medium(
            eye_world, to_flame / t_world, t_world, steps, pixel_hash(pixel), fog, fluid_map, lift_map,
        ).transmittance;
    }
    return flame_sheets_transmittance(pos_world);
}

// What the fog's sheets between the eye and `pos_world` let through.
fn flame_sheets_transmittance(pos_world: vec3<f32>) -> f32 {
    let eye_world = frame.eye_world.xyz;
    let to_flame = pos_world - eye_world;
    let t_world = length(to_flame);
    return sheets_transmittance(eye_world, to_flame / t_world, t_world, fog, fluid_map, lift_map);
}

// ---- the ground fog in front of the flames, on a grid ----
//
// The sheets' fog in front of a flame changes slowly across it, yet crossing it for every
// pixel was most of the pass's work, a fifth of the whole frame's on a CPU adapter (lavapipe,
// which pays for the sheets of every pixel of a block). So the `flame` pass's compute step
// (`cs_flame_fog`) crosses the sheets once per point of a grid over each fire's quad, and each
// fragment blends the four points round it. The raymarch compositor, the reference, keeps its
// per-pixel march (`fs_flame_fog_per_pixel`): its random start is a pixel's.

// keep in sync with src/gpu/passes/flame.rs: FOG_GRID_COLUMNS, FOG_GRID_ROWS
const FOG_GRID_COLUMNS: u32 = 6u;
const FOG_GRID_ROWS: u32 = 12u;
// Points a fire's grid holds: one more each way than it has cells.
const FOG_GRID_POINTS: u32 = (FOG_GRID_COLUMNS + 1u) * (FOG_GRID_ROWS + 1u);

// The grid as the fragments read it, and as the compute step writes it: fire by fire, each a
// row of points after another from the foot up, left to right within a row.
@group(1) @binding(5) var<storage, read> flame_fog_grid: array<f32>;
@group(1) @binding(6) var<storage, read_write> flame_fog_grid_out: array<f32>;

// The grid of fire `fire_index` at `uv` across its quad, blended bilinearly.
fn flame_fog_from_grid(fire_index: u32, uv: vec2<f32>) -> f32 {
    let cells = vec2<f32>(f32(FOG_GRID_COLUMNS), f32(FOG_GRID_ROWS));
    let at = clamp(uv, vec2<f32>(0.0), vec2<f32>(1.0)) * cells;
    let cell = min(floor(at), cells - vec2<f32>(1.0));
    let f = at - cell;
    let row = FOG_GRID_COLUMNS + 1u;
    let base = fire_index * FOG_GRID_POINTS + u32(cell.y) * row + u32(cell.x);
    let below = mix(flame_fog_grid[base], flame_fog_grid[base + 1u], f.x);
    let above = mix(flame_fog_grid[base + row], flame_fog_grid[base + row + 1u], f.x);
    return mix(below, above, f.y);
}

// One invocation per point of a fire's grid (x) and per fire (y).
@compute @workgroup_size(64)
fn cs_flame_fog(@builtin(global_invocation_id) id: vec3<u32>) {
    let point = id.x;
    let fire_index = id.y;
    if point >= FOG_GRID_POINTS || fire_index >= fire_count() {
        return;
    }
    let row = FOG_GRID_COLUMNS + 1u;
    let corner = vec2<f32>(
        f32(point % row) / f32(FOG_GRID_COLUMNS),
        f32(point / row) / f32(FOG_GRID_ROWS),
    );
    let pos_world = flame_quad_point(flame_quad(fire_index), corner);
    flame_fog_grid_out[fire_index * FOG_GRID_POINTS + point] = flame_sheets_transmittance(pos_world);
}
