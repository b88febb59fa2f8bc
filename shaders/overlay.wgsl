// overlay.wgsl: the `overlay` pass — lines drawn over the fog for the views that explain it.
//
// - `sheets` view: each fog sheet as its outline and one diagonal (the sheets never move: all
//   the motion is in the fog shader). One instance per sheet, ten vertices each.
// - `flow` view: the fluid as a mesh of lines. One point every `every` cells each way; each
//   point goes where the fog that was there has been carried, rises with what was thrown up,
//   and goes from blue at rest to orange where the air hurries. Rows and columns are joined
//   point to point. The points are read straight from the maps here, with `textureLoad`.
//
// Lines are depth-tested against the scene (pillars hide them) and do not write depth.
// Needs common.wgsl (frame uniforms, colours).

// keep in sync with src/gpu/passes/overlay.rs: OverlayKnobs
struct OverlayKnobs {
    // xy: the fog square's corner with the smallest x and z (world); zw: its size (world).
    area: vec4<f32>,
    // rgb: colour of the sheet outlines (linear); w: number of sheets.
    sheet_color: vec4<f32>,
    // x: drift range of the map (world units); y: extra height of fully lifted fog (world);
    // z: air speed (cells/s) that 1.0 in the map's speed channel stands for; w: air speed
    // (cells/s) at which a point is fully orange.
    flow_scale: vec4<f32>,
    // x: cells per side of the fluid grid; y: one point every this many cells; z: points per
    // side of the mesh; w: unused.
    flow_grid: vec4<u32>,
}

@group(1) @binding(0) var<uniform> overlay: OverlayKnobs;
@group(1) @binding(1) var fluid_map: texture_2d<f32>;
@group(1) @binding(2) var lift_map: texture_2d<f32>;

struct LineOut {
    @builtin(position) pos_clip: vec4<f32>,
    // rgb: linear colour; a: straight alpha.
    @location(0) color: vec4<f32>,
}

// Sheet `instance` as lines: segments 0..3 are the outline, segment 4 the diagonal from the
// (min x, min z) corner to the opposite one. The lowest sheet is the most opaque.
@vertex
fn vs_sheet_lines(
    @builtin(vertex_index) vertex_index: u32,
    @builtin(instance_index) instance_index: u32,
    @location(0) height_world: f32,
) -> LineOut {
    var corners = array<vec2<f32>, 4>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0),
    );
    let segment = vertex_index / 2u;
    let end = vertex_index % 2u;
    var corner = corners[(segment + end) % 4u];
    let sheet_count = max(overlay.sheet_color.w, 1.0);
    var alpha = 0.35 + 0.5 * (1.0 - f32(instance_index) / sheet_count);
    if segment == 4u {
        corner = vec2<f32>(f32(end));
        alpha *= 0.6;
    }
    let xz_world = overlay.area.xy + corner * overlay.area.zw;
    var out: LineOut;
    out.pos_clip = frame.clip_from_world * vec4<f32>(xz_world.x, height_world, xz_world.y, 1.0);
    out.color = vec4<f32>(overlay.sheet_color.rgb, alpha);
    return out;
}

// Point (i, j) of the flow mesh, from the fluid cell it samples.
fn flow_point(point: vec2<u32>) -> LineOut {
    let cells = overlay.flow_grid.x;
    let every = overlay.flow_grid.y;
    // The example samples cell i * every + 1 (held inside the grid).
    let cell = min(point * every + vec2<u32>(1u), vec2<u32>(cells - 1u));
    let fluid = textureLoad(fluid_map, vec2<i32>(cell), 0);
    let raised = textureLoad(lift_map, vec2<i32>(cell), 0);
    let density = fluid.r * 2.0;
    let drift_world = (fluid.gb - vec2<f32>(0.5)) * overlay.flow_scale.x;
    let lift = raised.r;
    let speed_world = raised.g * overlay.flow_scale.z;
    let hurry = min(1.0, speed_world / max(overlay.flow_scale.w, 1e-4));

    // Cell centre, moved back along the drift to where the fog that sits here came from.
    let cell_world = overlay.area.zw / f32(cells);
    let xz_world = overlay.area.xy + (vec2<f32>(cell) + vec2<f32>(0.5)) * cell_world - drift_world;
    let y_world = 0.05 + min(1.0, lift) * overlay.flow_scale.y + (density - 1.0) * 0.35;

    let srgb = vec3<f32>(0.35 + 0.65 * hurry, 0.75 - 0.2 * hurry, 1.0 - 0.7 * hurry);
    var out: LineOut;
    out.pos_clip = frame.clip_from_world * vec4<f32>(xz_world.x, y_world, xz_world.y, 1.0);
    out.color = vec4<f32>(srgb_to_linear(srgb), 0.25 + 0.65 * min(1.0, density));
    return out;
}

// Segments in pairs: for point (i, j) along a row, (i, j)-(i + 1, j); then along a column,
// (j, i)-(j, i + 1). There are points_per_side * (points_per_side - 1) pairs.
@vertex
fn vs_flow_lines(@builtin(vertex_index) vertex_index: u32) -> LineOut {
    let across = overlay.flow_grid.z;
    let end = vertex_index % 2u;
    let segment = vertex_index / 2u;
    let along_column = segment % 2u;
    let pair = segment / 2u;
    let j = pair / max(across - 1u, 1u);
    let i = pair % max(across - 1u, 1u);
    var point = vec2<u32>(i + end, j);
    if along_column == 1u {
        point = vec2<u32>(j, i + end);
    }
    return flow_point(point);
}

// Premultiplied output, blended like the fog.
@fragment
fn fs_lines(in: LineOut) -> @location(0) vec4<f32> {
    return vec4<f32>(in.color.rgb * in.color.a, in.color.a);
}
