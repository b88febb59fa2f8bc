//! GPU tests of the lamps and their shadow maps: a pillar's shadow on the floor and through the
//! fog (with every compositor, in the seed and the physical fog medium), no shadow where nothing
//! stands between, the same bytes every time, and extra casters (the people's capsules) drawn
//! into the map.
//!
//! The hall is lit by one spot lamp to the pillar at (3.5, 3.5)'s +x side, aimed along −x, so
//! the pillar throws its shadow along z = 3.5 toward −x; the other lights are dimmed so the
//! lamp's share shows. Like the other GPU tests they are skipped (saying so) without an
//! adapter, and fail under CI.

use super::{context, flat_maps, fog_config, render_once, seen_from, sum_rgb_3x3};
use crate::frame::{CameraPose, Frame};
use crate::gpu::{Compositor, GpuContext, Readback};
use crate::output::exr::f16_bits_to_f32;
use crate::scene::{FogMedium, Lamp, Phase, PhysicalMedium, Scene};

const SIZE: (u32, u32) = (96, 54);

/// On the floor in the pillar's shadow.
const SHADOWED_WORLD: [f32; 3] = [1.2, 0.0, 3.5];
/// On the floor beside the shadow, as far from the lamp.
const LIT_WORLD: [f32; 3] = [1.2, 0.0, 5.4];

/// The default hall lit by one spot lamp (or with `shadows` off), the other lights dim, the
/// ball out of the way.
fn lamp_scene(shadows: bool) -> Scene {
    let mut scene = Scene::default();
    scene.lights.directional.intensity = 0.0;
    scene.lights.ambient.intensity = 0.15;
    scene.lights.ball.intensity = 0.0;
    scene.fog.glow = 0.0;
    scene.ball.start = [-6.0, -6.0];
    scene.lamps = vec![Lamp {
        position: [7.5, 2.0, 3.5],
        direction: [-1.0, -0.3, 0.0],
        cone_deg: Some(45.0),
        range: 14.0,
        intensity: 6.0,
        shadows,
        ..Lamp::default()
    }];
    scene
}

fn camera() -> CameraPose {
    CameraPose {
        // From high above, so a pixel's ray crosses the fog over one spot of the floor.
        eye_world: [1.5, 11.0, 6.5],
        target_world: [1.5, 0.0, 4.2],
        fov_y_deg: 50.0,
    }
}

/// The pixel `pos_world` lands on.
fn pixel_of(pos_world: [f32; 3]) -> (u32, u32) {
    super::pixel_of(&camera(), SIZE, pos_world)
}

fn render(
    ctx: &GpuContext,
    scene: &Scene,
    compositor: Compositor,
    density: f32,
    readback: Readback,
) -> Frame {
    render_with(ctx, scene, (compositor, density, readback), &[])
}

/// [`render`] with `capsules` in the frame (the scene needs walkers for the renderer to keep a
/// capsule mesh).
fn render_with(
    ctx: &GpuContext,
    scene: &Scene,
    (compositor, density, readback): (Compositor, f32, Readback),
    capsules: &[crate::frame::Capsule],
) -> Frame {
    let maps = flat_maps(scene, density);
    let at = crate::frame::FrameInputs {
        capsules,
        ..seen_from(scene, &maps, 30, camera())
    };
    render_once(ctx, scene, &fog_config(SIZE, compositor, readback), &at)
}

/// Mean R + G + B of the 8-bit frame over the 3×3 pixels round `pos_world`'s.
fn brightness(frame: &Frame, pos_world: [f32; 3]) -> f64 {
    sum_rgb_3x3(&frame.rgba8, frame.width, pixel_of(pos_world), f64::from) / 9.0
}

/// Mean R + G + B of the fog layer alone (linear, premultiplied) over the 3×3 pixels round
/// `pos_world`'s.
fn fog_light(frame: &Frame, pos_world: [f32; 3]) -> f64 {
    let layer = frame.fog_f16.as_ref().expect("the fog layer");
    let half = |bits| f64::from(f16_bits_to_f32(bits));
    sum_rgb_3x3(layer, frame.width, pixel_of(pos_world), half) / 9.0
}

#[test]
fn a_pillar_shadows_the_floor_a_lamp_lights() {
    let Some(ctx) = context() else { return };
    let shadowed = render(
        &ctx,
        &lamp_scene(true),
        Compositor::Raster,
        0.0,
        Readback::default(),
    );
    let unshadowed = render(
        &ctx,
        &lamp_scene(false),
        Compositor::Raster,
        0.0,
        Readback::default(),
    );
    let (in_shadow, beside) = (
        brightness(&shadowed, SHADOWED_WORLD),
        brightness(&shadowed, LIT_WORLD),
    );
    assert!(
        beside > in_shadow + 40.0,
        "the floor beside the shadow ({beside:.1}) is not clearly brighter than in it ({in_shadow:.1})"
    );
    // Without shadows the same spot is lit; beside the shadow nothing changes.
    let open = brightness(&unshadowed, SHADOWED_WORLD);
    assert!(
        open > in_shadow + 40.0,
        "without shadows the spot ({open:.1}) is not lit (with: {in_shadow:.1})"
    );
    let beside_open = brightness(&unshadowed, LIT_WORLD);
    assert!(
        (beside_open - beside).abs() < 3.0,
        "the shadow map darkened open floor: {beside:.1} with shadows, {beside_open:.1} without"
    );
    // The lamp lights the floor at all: brighter than with no lamp.
    let mut dark = lamp_scene(true);
    dark.lamps.clear();
    let unlit = render(&ctx, &dark, Compositor::Raster, 0.0, Readback::default());
    let ambient = brightness(&unlit, LIT_WORLD);
    assert!(
        beside > ambient + 40.0,
        "lit {beside:.1}, no lamp {ambient:.1}"
    );
}

#[test]
fn the_fog_is_dark_in_a_pillars_shadow_with_every_compositor() {
    let Some(ctx) = context() else { return };
    let layer = Readback {
        linear_f16: false,
        fog_layer_f16: true,
        weather_layer_f16: false,
    };
    // The seed medium's glow, and the physical medium's scattering (which reads the same
    // shadow maps), each with every compositor.
    let physical = FogMedium::Physical(PhysicalMedium {
        phase: Phase::HenyeyGreenstein(0.0),
        self_shadowing: false,
        ..PhysicalMedium::default()
    });
    let compositors = [
        Compositor::Raster,
        Compositor::Compute,
        Compositor::Raymarch { steps: 48 },
    ];
    let media = [FogMedium::Seed, physical];
    for (medium, compositor) in media.iter().flat_map(|m| compositors.map(|c| (m, c))) {
        let with_medium = |shadows| {
            let mut scene = lamp_scene(shadows);
            scene.fog.medium = *medium;
            scene
        };
        let shadowed = render(&ctx, &with_medium(true), compositor, 0.6, layer);
        let unshadowed = render(&ctx, &with_medium(false), compositor, 0.6, layer);
        let (in_shadow, beside) = (
            fog_light(&shadowed, SHADOWED_WORLD),
            fog_light(&shadowed, LIT_WORLD),
        );
        eprintln!("{medium:?} {compositor:?}: fog in shadow {in_shadow:.3}, beside {beside:.3}");
        assert!(
            beside > in_shadow * 1.3,
            "{medium:?} {compositor:?}: the fog beside the shadow ({beside:.3}) is not clearly brighter than in it ({in_shadow:.3})"
        );
        let open = fog_light(&unshadowed, SHADOWED_WORLD);
        assert!(
            open > in_shadow * 1.3,
            "{medium:?} {compositor:?}: without shadows the fog there ({open:.3}) is no brighter than with them ({in_shadow:.3})"
        );
    }
}

#[test]
fn lamps_and_shadows_render_the_same_bytes_every_time() {
    let Some(ctx) = context() else { return };
    let mut scene = lamp_scene(true);
    // A point lamp too: its six faces.
    scene.lamps.push(Lamp {
        position: [-2.0, 2.5, 1.0],
        color: [0.6, 0.8, 1.0],
        ..Lamp::default()
    });
    let a = render(&ctx, &scene, Compositor::Raster, 0.8, Readback::default());
    let b = render(&ctx, &scene, Compositor::Raster, 0.8, Readback::default());
    assert!(a == b, "two renders of the lamps differ");
    let no_lamps = render(
        &ctx,
        &Scene {
            lamps: Vec::new(),
            ..scene.clone()
        },
        Compositor::Raster,
        0.8,
        Readback::default(),
    );
    assert!(a != no_lamps, "the lamps change nothing");
}

/// The nearest caster's distance over the range at the middle of shadow-map face 0, after the
/// `shadow` pass drew the hall for `scene` and, when given, `extra` (positions 24 bytes apart).
fn middle_of_face_0(ctx: &GpuContext, scene: &Scene, extra: Option<&[[f32; 6]]>) -> f32 {
    use crate::gpu::common::FrameBinding;
    use crate::gpu::distance_fog::DistanceFogParams;
    use crate::gpu::fire_lights::FireLights;
    use crate::gpu::lamp_lights::{LampLights, LampResources, SHADOW_MAP_TEXELS};
    use crate::gpu::passes::fog::FogKnobs;
    use crate::gpu::passes::fog_lattice::LatticeLayout;
    use crate::gpu::passes::shadow::{ExtraCasters, ShadowPass};
    use wgpu::util::DeviceExt;

    let device = &ctx.device;
    let errors = ctx.errors();
    let lamps = LampResources::new(device, &LampLights::new(scene));
    let lattice = LatticeLayout::new(&FogKnobs::new(scene, crate::frame::View::Fog), &scene.fog);
    let frame = FrameBinding::new(
        device,
        &FireLights::new(scene),
        (
            &DistanceFogParams::new(&scene.distance_fog),
            &lattice,
            wgpu::DeviceType::Cpu,
        ),
        (&lamps, &crate::gpu::targets::unused_edge_mask(device)),
        false,
    );
    let mut pass = ShadowPass::new(device, &errors, &frame, &lamps, scene)
        .expect("the shadow pass")
        .expect("a lamp with shadows");
    let buffer = extra.map(|vertices| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("test.extra_casters"),
            contents: bytemuck::cast_slice(vertices),
            usage: wgpu::BufferUsages::VERTEX,
        })
    });
    let casters = buffer
        .as_ref()
        .zip(extra)
        .map(|(buffer, vertices)| ExtraCasters {
            buffer,
            vertex_count: vertices.len() as u32,
            stride_bytes: 24,
        });
    let side = SHADOW_MAP_TEXELS;
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test.shadow_readback"),
        size: u64::from(side * side * 4),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    pass.record(device, &mut encoder, casters);
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture: lamps.maps_view.texture(),
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::DepthOnly,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(side * 4),
                rows_per_image: Some(side),
            },
        },
        wgpu::Extent3d {
            width: side,
            height: side,
            depth_or_array_layers: 1,
        },
    );
    ctx.queue.submit([encoder.finish()]);
    errors.take("shadow test").expect("no wgpu errors");
    readback.slice(..).map_async(wgpu::MapMode::Read, |result| {
        result.expect("the shadow map maps");
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("the device finishes");
    let bytes = readback
        .slice(..)
        .get_mapped_range()
        .expect("the mapped shadow map");
    let depths: &[f32] = bytemuck::cast_slice(&bytes);
    depths[((side / 2) * side + side / 2) as usize]
}

/// The extra casters (the people's capsules) reach the shadow map: a triangle
/// under a spot lamp that looks straight down on empty floor is the nearest caster in the
/// middle of its map, at its distance over the range; without it the map stays clear.
#[test]
fn extra_casters_are_drawn_into_the_shadow_map() {
    let Some(ctx) = context() else { return };
    let scene = Scene {
        lamps: vec![Lamp {
            position: [8.0, 4.0, 8.0],
            direction: [0.0, -1.0, 0.0],
            cone_deg: Some(30.0),
            range: 10.0,
            ..Lamp::default()
        }],
        ..Scene::default()
    };
    assert_eq!(middle_of_face_0(&ctx, &scene, None), 1.0);
    // A triangle at height 2 round (8, 8), each position followed by three unused floats.
    let triangle = [
        [7.0, 2.0, 7.0, 9.0, 9.0, 9.0],
        [9.0, 2.0, 7.0, 9.0, 9.0, 9.0],
        [8.0, 2.0, 9.5, 9.0, 9.0, 9.0],
    ];
    let depth = middle_of_face_0(&ctx, &scene, Some(&triangle));
    assert!((depth - 0.2).abs() < 1e-4, "{depth}");
}

/// A person standing between the lamp and [`LIT_WORLD`]: a capsule from the knees to the
/// shoulders, 0.3 units round, on the line from the lamp to that spot.
const PERSON: crate::frame::Capsule = crate::frame::Capsule {
    a_world: [5.0, 0.4, 4.25],
    b_world: [5.0, 1.5, 4.25],
    radius_world: 0.3,
    albedo_linear: [0.3, 0.2, 0.15],
};

/// [`render_with`] the compute compositor over fog at 0.6.
fn render_with_capsules(
    ctx: &GpuContext,
    scene: &Scene,
    capsules: &[crate::frame::Capsule],
    readback: Readback,
) -> Frame {
    render_with(ctx, scene, (Compositor::Compute, 0.6, readback), capsules)
}

/// The people's capsules are shadow casters: a person between the lamp and a lit spot darkens
/// the floor there and the fog over it, and nothing else.
#[test]
fn a_person_casts_a_shadow_on_the_floor_and_through_the_fog() {
    let Some(ctx) = context() else { return };
    let mut scene = lamp_scene(true);
    scene.walkers = vec![crate::scene::Walker::default()];
    let layer = Readback {
        linear_f16: false,
        fog_layer_f16: true,
        weather_layer_f16: false,
    };
    let with = render_with_capsules(&ctx, &scene, &[PERSON], layer);
    let without = render_with_capsules(&ctx, &scene, &[], layer);
    let (fog_with, fog_without) = (fog_light(&with, LIT_WORLD), fog_light(&without, LIT_WORLD));
    assert!(
        fog_without > fog_with * 1.3,
        "the fog behind the person ({fog_with:.3}) is not darker than without them \
         ({fog_without:.3})"
    );
    // The pillar's shadow is the pillar's alone: the person does not reach it.
    let (pillar_with, pillar_without) = (
        fog_light(&with, SHADOWED_WORLD),
        fog_light(&without, SHADOWED_WORLD),
    );
    assert!(
        (pillar_with - pillar_without).abs() < 0.02 * pillar_without.max(0.05),
        "the pillar's shadow changed: {pillar_with:.3} against {pillar_without:.3}"
    );
    // With the fog gone the floor behind the person is in shadow too.
    let mut clear = scene.clone();
    clear.fog.sigma = 0.0;
    let floor_with = render_with_capsules(&ctx, &clear, &[PERSON], Readback::default());
    let floor_without = render_with_capsules(&ctx, &clear, &[], Readback::default());
    let (lit, shaded) = (
        brightness(&floor_without, LIT_WORLD),
        brightness(&floor_with, LIT_WORLD),
    );
    assert!(
        lit > shaded + 30.0,
        "the floor behind the person ({shaded:.1}) is not darker than without them ({lit:.1})"
    );
}
