// fog_compute.wgsl: the `fog_compute` pass — the fog sheets composited per pixel by a compute
// shader, the fast path on GPUs whose fragment work is slow (ARCHITECTURE.md, "Data flow").
//
// One invocation per pixel rebuilds the view ray through the pixel's centre from the camera's
// matrices, crosses the horizontal sheet planes front to back, stops where the scene's depth
// hides the rest, shades every crossing with the very `sample_sheet` the raster `fog` pass calls,
// and accumulates colour and transmittance front to back. Front-to-back "under" accumulation of
// the sheets the raster pass blends back to front with "over" gives the same sum: colour
// Σ T_i·a_i·c_i and transmittance Π (1 − a_i), then the scene behind times that transmittance.
//
// What the raster pass draws, this pass crosses, and nothing else: only sheets in front of the
// eye whose slab is at least partly in front of the scene (`visible_slab_world`, from the
// scene's depth turned into a distance along the ray by `scene_distance_world`, as the raster
// fragments do), only points inside the fog's square (the quads' coverage), and only beyond
// the near plane (where the rasteriser clips). Each crossing is shaded by `sample_sheet` with
// the raster fragment's inputs: the point on the sheet and the unit direction to it.
//
// The bindings it shares with the `raymarch` pass, the pixel's ray and the compositing over the
// scene (and into the fog layer with `--layers`, `cs_fog_with_layer`) are per_pixel.wgsl's.
//
// Needs common.wgsl (frame uniforms, distance fog), noise.wgsl, fires.wgsl, fog.wgsl
// (`FogKnobs`, `sample_sheet`, `visible_slab_world`, `scene_distance_world` and the group-1
// bindings 0 to 3, which this pass binds alike) and per_pixel.wgsl.

// The sheets' heights (world), lowest first: the heights the raster pass draws its quads at.
@group(1) @binding(5) var<storage, read> sheet_heights_world: array<f32>;

// Whether a point in front of the eye lies nearer than the near plane, where the rasteriser
// clips: its clip-space z below 0, before any division (clip w is positive in front of the
// eye). Only the z row of the projection is worked out.
fn before_near_plane(pos_world: vec3<f32>) -> bool {
    let m = frame.clip_from_world;
    let clip_z = m[0].z * pos_world.x + m[1].z * pos_world.y + m[2].z * pos_world.z + m[3].z;
    return clip_z < 0.0;
}

// The fog along one pixel's ray: premultiplied colour (linear) and what is left of the light
// from behind it.
struct FogAlongRay {
    color: vec3<f32>,
    transmittance: f32,
}

// Marches the sheets along the ray through the centre of pixel `id` (inside the picture), front
// to back, as far as the scene's depth or until the fog is opaque.
fn march_fog(id: vec2<u32>) -> FogAlongRay {
    let pixel = vec2<i32>(id);
    let eye_world = frame.eye_world.xyz;
    let ray_world = pixel_ray_world(id);
    // 1 (the far plane) where the scene pass drew nothing.
    let depth_scene = textureLoad(scene_depth, pixel, 0).x;
    let t_scene_world = scene_distance_world(eye_world, ray_world, depth_scene);

    var color = vec3<f32>(0.0);
    var transmittance = 1.0;
    let count = i32(march.size.z);
    // A level ray sees every sheet edge-on and crosses none.
    if ray_world.y != 0.0 {
        let slab_world = sheet_slab_world(ray_world, fog);
        // Looking down the sheets below the eye come highest first; looking up, those above
        // come lowest first. The others lie behind the eye and are skipped.
        let down = ray_world.y < 0.0;
        let step = select(1, -1, down);
        for (var i = select(0, count - 1, down); i >= 0 && i < count; i += step) {
            let t_world = (sheet_heights_world[i] - eye_world.y) / ray_world.y;
            if t_world <= 0.0 {
                continue;
            }
            let on_sheet_world = eye_world + ray_world * t_world;
            // As fs_fog: the part of the sheet's slab in front of the scene; none, and so none
            // of any sheet further along.
            let visible_world = visible_slab_world(t_world, slab_world, t_scene_world, fog);
            if visible_world <= 0.0 {
                break;
            }
            // Nearer than the near plane, where the rasteriser clips the quad.
            if before_near_plane(on_sheet_world) {
                continue;
            }
            // Off the sheet's quad: the raster pass draws no fragment here.
            let uv = (on_sheet_world.xz - fog.area.xy) / fog.area.zw;
            if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) {
                continue;
            }
            let sample = sample_sheet(on_sheet_world, ray_world, visible_world, fog, fluid_map, lift_map);
            let alpha = sample.shaded.a;
            if alpha <= 0.0 {
                continue;
            }
            // As fs_fog: the sheet's colour seen through the distance fog.
            let sheet_color = apply_distance_fog(sample.shaded.rgb, sample.pos_world);
            color += sheet_color * (alpha * transmittance);
            transmittance *= 1.0 - alpha;
            if transmittance < FOG_MIN_TRANSMITTANCE {
                break;
            }
        }
    }
    return FogAlongRay(color, transmittance);
}

@compute @workgroup_size(8, 8)
fn cs_fog(@builtin(global_invocation_id) id: vec3<u32>) {
    // A later sample of `--edge-samples` draws the pixels at an edge alone.
    if !in_picture(id.xy) || outside_edges(id.xy) {
        return;
    }
    let fog_here = march_fog(id.xy);
    composite_over_scene(vec2<i32>(id.xy), fog_here.color, fog_here.transmittance);
}

// ---- The later samples of `--edge-samples`: the fog marched once, chosen by depth ----
//
// The fog is smooth across a pixel except where the scene's depth jumps: at a silhouette the
// fog in front of the pillar and the fog in front of the wall behind differ. So the fog is
// marched once a frame for each listed pixel, along sample 0's ray (`cs_fog_store_edges`,
// after the mask), and kept with the distance to the scene it stopped at. Each later sample
// draws the hall at its own sub-pixel offset, and `cs_fog_reuse_edges` lays over it the kept
// fog of the pixel or of a listed neighbour whose scene lies nearest along the sample's ray:
// the fog of the surface the sample sees. An edge marks the pixels on both of its sides, so
// both surfaces' fog is at hand. This is the coverage-sample resolve of MSAA, with the fog as
// the shading done once a pixel.

// Slot i: the fog along listed pixel i's centre ray (premultiplied colour, transmittance),
// then (distance to the scene along that ray (world units per unit ray), unused...).
@group(1) @binding(10) var<storage, read_write> edge_fog: array<vec4<f32>>;
// Slot i: this sample's scene colour at listed pixel i (edges.wgsl, `cs_edge_gather_scene`).
@group(1) @binding(11) var<storage, read> edge_scene: array<vec4<f32>>;

// The list slot of `pixel` (edges.wgsl stores slot + 1 in the mask), or none (0).
fn edge_slot(pixel: vec2<i32>) -> u32 {
    let size = vec2<i32>(march.size.xy);
    if any(pixel < vec2<i32>(0)) || any(pixel >= size) {
        return 0u;
    }
    return textureLoad(edge_mask, pixel, 0).x;
}

// Keeps `fog_here`, the fog along listed pixel `listed`'s centre ray, in the list's slot `slot`
// with the distance to the scene along that ray.
fn store_edge_fog(slot: u32, listed: vec2<u32>, fog_here: FogAlongRay) {
    let depth_scene = textureLoad(scene_depth, vec2<i32>(listed), 0).x;
    let t_scene_world = scene_distance_world(frame.eye_world.xyz, pixel_ray_world(listed), depth_scene);
    edge_fog[2u * slot] = vec4<f32>(fog_here.color, fog_here.transmittance);
    edge_fog[2u * slot + 1u] = vec4<f32>(t_scene_world, 0.0, 0.0, 0.0);
}

@compute @workgroup_size(64)
fn cs_fog_store_edges(@builtin(global_invocation_id) id: vec3<u32>) {
    let listed = listed_pixel(id.x);
    if listed.z == 0u {
        return;
    }
    store_edge_fog(id.x, listed.xy, march_fog(listed.xy));
}

// Where the march over the whole picture is sample 0's (the compute compositor), it keeps each
// pixel's fog (`cs_fog_keeping`), and the listed pixels copy theirs (`cs_fog_copy_edges`)
// instead of marching it again. A march is a pixel's costliest work; a copy of the picture's
// fog is 16 bytes a pixel.

// Pixel (x, y)'s fog at index x + y × width: premultiplied colour, transmittance.
@group(1) @binding(14) var<storage, read_write> fog_kept: array<vec4<f32>>;

@compute @workgroup_size(8, 8)
fn cs_fog_keeping(@builtin(global_invocation_id) id: vec3<u32>) {
    if !in_picture(id.xy) {
        return;
    }
    let fog_here = march_fog(id.xy);
    fog_kept[id.y * march.size.x + id.x] = vec4<f32>(fog_here.color, fog_here.transmittance);
    composite_over_scene(vec2<i32>(id.xy), fog_here.color, fog_here.transmittance);
}

@compute @workgroup_size(64)
fn cs_fog_copy_edges(@builtin(global_invocation_id) id: vec3<u32>) {
    let listed = listed_pixel(id.x);
    if listed.z == 0u {
        return;
    }
    let kept = fog_kept[listed.y * march.size.x + listed.x];
    store_edge_fog(id.x, listed.xy, FogAlongRay(kept.rgb, kept.a));
}

@compute @workgroup_size(64)
fn cs_fog_reuse_edges(@builtin(global_invocation_id) id: vec3<u32>) {
    let listed = listed_pixel(id.x);
    if listed.z == 0u {
        return;
    }
    let pixel = vec2<i32>(listed.xy);
    let depth_scene = textureLoad(scene_depth, pixel, 0).x;
    let t_sample_world = scene_distance_world(frame.eye_world.xyz, pixel_ray_world(listed.xy), depth_scene);
    // The pixel's own fog, unless a listed neighbour's scene lies nearer this sample's.
    var chosen = id.x;
    var gap = abs(edge_fog[2u * id.x + 1u].x - t_sample_world);
    let around = array<vec2<i32>, 8>(
        vec2<i32>(-1, 0), vec2<i32>(1, 0), vec2<i32>(0, -1), vec2<i32>(0, 1),
        vec2<i32>(-1, -1), vec2<i32>(1, -1), vec2<i32>(-1, 1), vec2<i32>(1, 1),
    );
    for (var n = 0u; n < 8u; n += 1u) {
        let slot = edge_slot(pixel + around[n]);
        if slot == 0u {
            continue;
        }
        let their_gap = abs(edge_fog[2u * (slot - 1u) + 1u].x - t_sample_world);
        if their_gap < gap {
            gap = their_gap;
            chosen = slot - 1u;
        }
    }
    let fog_kept = edge_fog[2u * chosen];
    // As `composite_over_scene`, with the scene gathered into the list's slot.
    if fog_kept.a >= 1.0 {
        return;
    }
    let scene = edge_scene[id.x];
    let alpha = 1.0 - fog_kept.a + scene.a * fog_kept.a;
    textureStore(composited, pixel, vec4<f32>(fog_kept.rgb + scene.rgb * fog_kept.a, alpha));
}

// `cs_fog`, and the fog alone into the fog layer (per_pixel.wgsl).
@compute @workgroup_size(8, 8)
fn cs_fog_with_layer(@builtin(global_invocation_id) id: vec3<u32>) {
    if !in_picture(id.xy) {
        return;
    }
    let fog_here = march_fog(id.xy);
    composite_with_layer(vec2<i32>(id.xy), fog_here.color, fog_here.transmittance);
}

// The march at half width and height (`output.fog_resolution: Half`, fog_half.wgsl): the ray
// through each half-size texel, against the half-size depth bound as `scene_depth`, and the fog
// alone into the half-size fog target bound as `fog_layer`: premultiplied colour and coverage
// 1 − transmittance, every texel. The `fog_half` pass's upsampling lays it over the picture.
@compute @workgroup_size(8, 8)
fn cs_fog_half(@builtin(global_invocation_id) id: vec3<u32>) {
    if !in_picture(id.xy) {
        return;
    }
    let fog_here = march_fog(id.xy);
    textureStore(fog_layer, vec2<i32>(id.xy), vec4<f32>(fog_here.color, 1.0 - fog_here.transmittance));
}
