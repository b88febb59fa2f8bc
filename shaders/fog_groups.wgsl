// fog_groups.wgsl: the raster `fog` pass's sheets in groups, each fragment shading up to
// `SHEETS_PER_GROUP` sheets along its ray (src/gpu/passes/fog_groups.rs: which sheets, and
// why a CPU adapter draws them so).
//
// Needs common.wgsl and fog.wgsl in front of it (the knobs, the maps, the scene's depth,
// `sample_sheet`, the inputs' form).

// keep in sync with src/gpu/passes/fog_groups.rs: SHEETS_PER_GROUP
const SHEETS_PER_GROUP: u32 = 2u;

// How far past the widened quad's edges it is drawn, as a share of the square's size: the
// rasteriser's coverage and the fragments' own test of the square may differ at the edge.
const GROUP_QUAD_PAD: f32 = 0.01;

// The corner `vertex_index` of a group's quad. `group` (keep in sync with
// src/gpu/passes/fog_groups.rs: SheetGroup) holds x the height of the sheet nearest the eye's
// height, the quad's plane; y the farthest sheet's height; z, w the farthest and nearest
// sheets' indices. The quad covers the fog's square and the farthest sheet's square as seen
// from the eye, which the plane nearer the eye sees smaller, moved toward the eye's foot.
fn group_vertex(vertex_index: u32, group: vec4<f32>) -> SheetOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0),
    );
    let eye_world = frame.eye_world.xyz;
    // The farthest sheet's square from the eye on the quad's plane: scaled by `seen` about the
    // eye's foot (1 for a group of one).
    let seen = (group.x - eye_world.y) / (group.y - eye_world.y);
    let low = fog.area.xy;
    let high = fog.area.xy + fog.area.zw;
    let pad = fog.area.zw * GROUP_QUAD_PAD;
    let from_xz = min(low, eye_world.xz + (low - eye_world.xz) * seen) - pad;
    let to_xz = max(high, eye_world.xz + (high - eye_world.xz) * seen) + pad;
    let xz_world = mix(from_xz, to_xz, corners[vertex_index]);
    let pos_world = vec3<f32>(xz_world.x, group.x, xz_world.y);
    return SheetOut(frame.clip_from_world * vec4<f32>(pos_world, 1.0), pos_world);
}

// The group's sheets from `sheets` (x the farthest's index, y the nearest's) along the ray
// through `pos_world`, the fragment's point on the quad: each crossed inside the fog's square
// shaded as the sheets one by one shade it (`sheet_fragment`), laid over the ones behind it.
// The physical medium's sheets share one light (`physical_group`). Premultiplied, for the
// same blend.
fn group_fragment(
    pos_clip: vec4<f32>,
    pos_world: vec3<f32>,
    uniforms: SheetUniforms,
    sheets: vec2<f32>,
) -> vec4<f32> {
    let knobs = uniforms.knobs;
    let eye_world = uniforms.eye_world.xyz;
    let ray_world = normalize(pos_world - eye_world);
    let depth_scene = textureLoad(scene_depth, vec2<i32>(pos_clip.xy), 0).x;
    let t_scene_world =
        scene_distance_through(uniforms.clip_from_world, eye_world, ray_world, depth_scene);
    let slab_world = sheet_slab_world(ray_world, knobs);
    let along = GroupRay(eye_world, ray_world, t_scene_world, slab_world, sheets);
    var sum: vec4<f32>;
    if FOG_MEDIUM != FOG_MEDIUM_SEED && fluid_view_of(knobs) <= 0.0 {
        sum = physical_group(along, uniforms);
    } else {
        // Unrolled, one call a sheet of `SHEETS_PER_GROUP`: lavapipe keeps a loop's values in
        // memory.
        sum = group_sheet(1u, along, uniforms, group_sheet(0u, along, uniforms, vec4<f32>(0.0)));
    }
    if sum.a <= 0.0 {
        discard;
    }
    return sum;
}

// What every sheet of a group reads alike along a fragment's ray.
struct GroupRay {
    eye_world: vec3<f32>,
    ray_world: vec3<f32>,
    t_scene_world: f32,
    slab_world: f32,
    // x, y: the farthest and the nearest sheet's index.
    sheets: vec2<f32>,
}

// Where the ray of `along` crosses the group's sheet `k` (0 the farthest): the point on the
// sheet, how much of its slab lies in front of the scene, and whether it is drawn: crossed in
// front of the eye, inside the fog's square, in front of the scene, and in the group at all.
struct GroupCrossing {
    on_sheet_world: vec3<f32>,
    visible_world: f32,
    drawn: bool,
}

fn group_crossing(k: u32, along: GroupRay, knobs: FogKnobs) -> GroupCrossing {
    let sheets = along.sheets;
    let index = sheets.x + sign(sheets.y - sheets.x) * f32(k);
    let t_sheet_world =
        (sheet_height_world(u32(index), knobs) - along.eye_world.y) / along.ray_world.y;
    let on_sheet = along.eye_world + along.ray_world * t_sheet_world;
    let visible_world =
        visible_slab_world(t_sheet_world, along.slab_world, along.t_scene_world, knobs);
    let inside = all(on_sheet.xz >= knobs.area.xy)
        && all(on_sheet.xz <= knobs.area.xy + knobs.area.zw);
    let in_group = f32(k) <= abs(sheets.y - sheets.x);
    let drawn = in_group && t_sheet_world > 0.0 && inside && visible_world > 0.0;
    return GroupCrossing(on_sheet, visible_world, drawn);
}

// The group's sheet `k` (0 the farthest) along `along`, laid over `behind`: as
// `sheet_fragment` shades it, nothing where it is not drawn (`group_crossing`).
fn group_sheet(k: u32, along: GroupRay, uniforms: SheetUniforms, behind: vec4<f32>) -> vec4<f32> {
    let knobs = uniforms.knobs;
    let crossing = group_crossing(k, along, knobs);
    let sample = sample_sheet(
        crossing.on_sheet_world,
        along.ray_world,
        crossing.visible_world,
        knobs,
        fluid_map,
        lift_map,
    );
    let color = apply_distance_fog_from(
        sample.shaded.rgb,
        sample.pos_world,
        along.eye_world,
        uniforms.distance_fog,
    );
    let alpha = select(0.0, sample.shaded.a, crossing.drawn);
    return vec4<f32>(color * alpha, alpha) + behind * (1.0 - alpha);
}

// The group's sheet `k` along `along` in the physical medium, before its light: its slab's
// pieces (`slab_pieces`), the middle of the slab's visible part, and whether it is drawn
// (`group_crossing`, with some fog).
struct PhysicalGroupSheet {
    pieces: SlabPieces,
    middle_world: vec3<f32>,
    drawn: bool,
}

fn physical_group_sheet(k: u32, along: GroupRay, knobs: FogKnobs) -> PhysicalGroupSheet {
    let crossing = group_crossing(k, along, knobs);
    let visible_world = crossing.visible_world;
    let middle_world =
        crossing.on_sheet_world - along.ray_world * (0.5 * (along.slab_world - visible_world));
    var pieces = SlabPieces(0.0, 0.0);
    if crossing.drawn {
        pieces =
            slab_pieces(middle_world, along.ray_world, visible_world, knobs, fluid_map, lift_map);
    }
    return PhysicalGroupSheet(pieces, middle_world, crossing.drawn && pieces.alpha > 0.0);
}

// The physical medium's group along `along`: each sheet's pieces as `physical_slab` takes
// them, and one light for the group (`medium_light`) at the middle of its slabs weighted by
// their opacity. The lights change slowly along a ray, and `physical_slab` already takes them
// once a slab; lavapipe spent about a third of the moonlit fog pass on them.
fn physical_group(along: GroupRay, uniforms: SheetUniforms) -> vec4<f32> {
    let knobs = uniforms.knobs;
    let far = physical_group_sheet(0u, along, knobs);
    let near = physical_group_sheet(1u, along, knobs);
    if !(far.drawn || near.drawn) {
        return vec4<f32>(0.0);
    }
    // The slabs' middles weighted by their opacity: a sheet that barely shows barely moves it.
    let far_weight = select(0.0, far.pieces.alpha, far.drawn);
    let near_weight = select(0.0, near.pieces.alpha, near.drawn);
    let lit_at = (far.middle_world * far_weight + near.middle_world * near_weight)
        / (far_weight + near_weight);
    let light = medium_light(lit_at, along.ray_world);
    let behind = physical_layer(far, light, along, uniforms, vec4<f32>(0.0));
    return physical_layer(near, light, along, uniforms, behind);
}

// A physical group's sheet lit by the group's `light`, laid over `behind`, as `group_sheet`
// lays a sheet: nothing where it is not drawn.
fn physical_layer(
    sheet: PhysicalGroupSheet,
    light: MediumLight,
    along: GroupRay,
    uniforms: SheetUniforms,
    behind: vec4<f32>,
) -> vec4<f32> {
    let lit = slab_lit_by(sheet.pieces, light);
    let color = apply_distance_fog_from(
        lit.rgb,
        sheet.middle_world,
        along.eye_world,
        uniforms.distance_fog,
    );
    let alpha = select(0.0, lit.a, sheet.drawn);
    return vec4<f32>(color * alpha, alpha) + behind * (1.0 - alpha);
}

// A group's corner with its sheets for the fragments.
struct GroupOut {
    @builtin(position) pos_clip: vec4<f32>,
    @location(0) pos_world: vec3<f32>,
    // x, y: the farthest and the nearest sheet's index.
    @location(1) @interpolate(flat) sheets: vec2<f32>,
}

// One group's quad per instance (`vs_fog` for groups).
@vertex
fn vs_fog_group(@builtin(vertex_index) vertex_index: u32, @location(0) group: vec4<f32>) -> GroupOut {
    let corner = group_vertex(vertex_index, group);
    return GroupOut(corner.pos_clip, corner.pos_world, group.zw);
}

@fragment
fn fs_fog_group(in: GroupOut) -> @location(0) vec4<f32> {
    let uniforms = SheetUniforms(fog, frame.eye_world, frame.clip_from_world, distance_fog);
    return group_fragment(in.pos_clip, in.pos_world, uniforms, in.sheets);
}

// `vs_fog_with_uniforms` for groups. The sheets' indices ride in two lanes the fragments do
// not read: the eye's w (the time) and the distance fog's last lane.
@vertex
fn vs_fog_group_with_uniforms(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) group: vec4<f32>,
) -> SheetWithUniformsOut {
    var out = sheet_with_uniforms(group_vertex(vertex_index, group));
    out.eye_world.w = group.z;
    out.distance_fog_height_mode.w = group.w;
    return out;
}

@fragment
fn fs_fog_group_with_uniforms(in: SheetWithUniformsOut) -> @location(0) vec4<f32> {
    let sheets = vec2<f32>(in.eye_world.w, in.distance_fog_height_mode.w);
    return group_fragment(in.pos_clip, in.pos_world, uniforms_from_inputs(in), sheets);
}
