//! The fog's shaders in the forms a GPU takes (the noise read from the `fog_lattice` pass's
//! lattice, the fires' glow in one plain loop) against those a CPU adapter takes (the noise
//! hashed per sample, the loops over the fires unrolled for the scene's count, the raster
//! fog's fragments given what they all read alike as inputs or reading the uniforms, or with
//! many fires the glow by the in-range bits), whatever the adapter (`FORCE_DEVICE_TYPE`,
//! `FORCE_FIRES_ROLLED`, `FORCE_FOG_UNIFORMS_READ`): on lavapipe the same bytes with every
//! compositor, the flames' fog included, from the scene's camera and from one standing in the
//! fog, with the wind having carried the noise far from where it started. The temple's default
//! samples its edges, so the edge passes' forms meet too: the mask's pixels listed one by one,
//! and sample 0 kept aside by texture copies. The physical medium's fog with the `fluid`
//! view's code compiled out meets the form that reads the view (`FORCE_FLUID_VIEW_READ`).
//! Every form here draws the raster sheets one by one: their groups on a CPU adapter are
//! `fog_groups.rs`'s tests.

use super::*;
use crate::gpu::passes::fog_groups::FORCE_GROUPS;
use crate::gpu::passes::fog_lattice::LatticeForm;
use crate::gpu::shader_forms::{
    FORCE_DEVICE_TYPE, FORCE_FIRES_ROLLED, FORCE_FLUID_VIEW_READ, FORCE_FOG_UNIFORMS_READ,
    FORCE_LATTICE_CORNERS,
};
use crate::playback::Playback;
use crate::scene::{Camera, FixedCamera};

/// The frame rendered for `config` by a renderer in a GPU's forms with the lattice's corners
/// and the loops over the fires left rolled, by one in a CPU adapter's (the loops over the scene's fires unrolled, the raster fog's
/// fragments given the fires, the knobs, the eye and the projection as inputs), by one in a CPU
/// adapter's with the fragments reading the uniforms, by one in a CPU adapter's with the loops
/// left rolled (the glow by the in-range bits; with no fires, the same as the second), and by
/// one in a GPU's forms with the lattice's points and the loops unrolled.
fn in_each_form(
    ctx: &GpuContext,
    scene: &Scene,
    config: &RenderConfig,
    inputs: &FrameInputs<'_>,
) -> [Frame; 5] {
    // Every form draws the raster sheets one by one (their groups: `fog_groups.rs`).
    FORCE_GROUPS.set(Some(false));
    let made = |device_type, rolled, uniforms, corners| {
        FORCE_DEVICE_TYPE.set(Some(device_type));
        FORCE_FIRES_ROLLED.set(rolled);
        FORCE_FOG_UNIFORMS_READ.set(uniforms);
        FORCE_LATTICE_CORNERS.set(corners);
        let made = Renderer::new(ctx, scene, config);
        FORCE_DEVICE_TYPE.set(None);
        FORCE_FIRES_ROLLED.set(false);
        FORCE_FOG_UNIFORMS_READ.set(false);
        FORCE_LATTICE_CORNERS.set(false);
        made.unwrap_or_else(|e| panic!("renderer: {e}"))
    };
    // The lattice, the glow by bits, the unrolled count and the uniforms as inputs.
    let forms = |renderer: &Renderer| {
        let frame = &renderer.frame;
        let glow = (frame.fire_glow_by_mask, frame.fires_unrolled);
        (frame.fog_lattice.form, glow, frame.fog_uniforms_as_inputs)
    };
    let fires = scene.fires.len() as u32;
    let gpu = wgpu::DeviceType::DiscreteGpu;
    // A GPU's loops over the fires left rolled here (as with many fires), unrolled with the
    // points below.
    let mut lattice = made(gpu, true, false, true);
    assert_eq!(forms(&lattice), (LatticeForm::Corners, (false, 0), false));
    let cpu = wgpu::DeviceType::Cpu;
    let mut unrolled = made(cpu, false, false, false);
    // With no fires nothing is unrolled, and the (empty) glow goes by the bits.
    let hashed = LatticeForm::Hashed;
    assert_eq!(forms(&unrolled), (hashed, (fires == 0, fires), true));
    let mut uniforms = made(cpu, false, true, false);
    assert_eq!(forms(&uniforms), (hashed, (fires == 0, fires), false));
    let mut by_mask = made(cpu, true, false, false);
    assert_eq!(forms(&by_mask), (hashed, (true, 0), fires == 0));
    let mut points = made(gpu, false, false, false);
    assert_eq!(forms(&points), (LatticeForm::Points, (false, fires), false));
    [
        render(&mut lattice, inputs),
        render(&mut unrolled, inputs),
        render(&mut uniforms, inputs),
        render(&mut by_mask, inputs),
        render(&mut points, inputs),
    ]
}

#[test]
fn the_gpu_forms_give_the_cpu_forms_bytes() {
    let Some(ctx) = context() else { return };
    // The temple as shipped: its five fires light the fog and the hall.
    let mut scene = shipped_temple();
    assert_eq!(scene.fires.len(), 5);
    scene.fluid.grid = 48;
    // Far along by frame 150: 2.5 s of a strong wind, across lattice cells of every octave.
    scene.fog.wind = [23.0, 0.6, -17.0];
    let low = Camera::Fixed(FixedCamera {
        position: [-9.5, 0.35, 10.5],
        target: [2.0, 0.6, -3.0],
        fov_y_deg: 70.0,
    });
    let compositors = [
        Compositor::Raster,
        Compositor::Compute,
        Compositor::Raymarch { steps: 48 },
    ];
    for camera in [scene.camera.clone(), low] {
        let scene = Scene {
            camera: camera.clone(),
            ..scene.clone()
        };
        let mut playback = Playback::new(&scene);
        let state = playback.advance_to(150, || {});
        let inputs = playback.frame_inputs(&state);
        // The fluid has moved the fog and thrown it up: drift and lift reach into the
        // lattice's margins.
        assert!(inputs.lift_map.chunks_exact(4).any(|texel| texel[0] > 0));
        assert!(
            inputs
                .fluid_map
                .chunks_exact(4)
                .any(|texel| texel[1] != 128)
        );
        for compositor in compositors {
            let config = fog_config((96, 54), compositor, Readback::default());
            let [lattice, unrolled, uniforms, by_mask, points] =
                in_each_form(&ctx, &scene, &config, &inputs);
            let cpu_forms = [
                (&unrolled, "unrolled, uniforms as inputs"),
                (&uniforms, "unrolled, uniforms read"),
                (&by_mask, "by mask"),
            ];
            for (cpu, form) in cpu_forms {
                let differing = pixels_differing(&lattice, cpu);
                assert_eq!(differing, 0, "{compositor:?} from {camera:?}, {form}");
            }
            assert!(
                distinct_pixels(&lattice) > 200,
                "{compositor:?}: a flat frame"
            );
            // The points through the sampler: a level at most, in few pixels.
            let (largest, differing) = (
                max_difference(&points, &lattice),
                pixels_differing(&points, &lattice),
            );
            eprintln!(
                "{compositor:?} from {camera:?}: points differ by {largest} in {differing} pixels"
            );
            assert!(
                largest <= 1,
                "{compositor:?} from {camera:?}: points differ by {largest}"
            );
        }
    }
}

/// Without fires a CPU adapter's raster fog still takes the knobs, the eye and the projection
/// as inputs (the glow reads no fire): the same bytes as reading them from the uniforms, and as
/// a GPU's forms.
#[test]
fn the_fog_without_fires_takes_its_uniforms_as_inputs_alike() {
    let Some(ctx) = context() else { return };
    let mut scene = shipped_temple();
    scene.fires.clear();
    scene.fluid.grid = 48;
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(90, || {});
    let inputs = playback.frame_inputs(&state);
    // An odd size: the CPU adapter's edge mask marks 2 × 2 quads, the last ones cut short.
    let config = fog_config((97, 55), Compositor::Raster, Readback::default());
    let [gpu, inputs_form, uniforms_form, _, _] = in_each_form(&ctx, &scene, &config, &inputs);
    for (cpu, form) in [(&inputs_form, "inputs"), (&uniforms_form, "uniforms")] {
        assert_eq!(pixels_differing(&gpu, cpu), 0, "{form}");
    }
    assert!(distinct_pixels(&gpu) > 200, "a flat frame");
}

/// `scenes/moonlit.ron` on a 48² fluid grid.
fn small_moonlit() -> Scene {
    let mut scene = crate::scene::load(Some(std::path::Path::new("scenes/moonlit.ron")), &[])
        .unwrap_or_else(|e| panic!("scenes/moonlit.ron does not load: {e:?}"))
        .scene;
    scene.fluid.grid = 48;
    scene
}

/// The moonlit hall's physical medium lights its fog by the fires as point lights: a GPU loops
/// over every fire, a CPU adapter over those in range of the point (`fires_in_range`). The same
/// bytes with each per-pixel compositor.
#[test]
fn the_physical_medium_in_the_gpu_forms_gives_the_cpu_forms_bytes() {
    let Some(ctx) = context() else { return };
    let scene = small_moonlit();
    assert!(scene.fires.len() >= 2);
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(120, || {});
    let inputs = playback.frame_inputs(&state);
    for compositor in [Compositor::Compute, Compositor::Raymarch { steps: 32 }] {
        let config = fog_config((96, 54), compositor, Readback::default());
        let [lattice, unrolled, _, by_mask, _] = in_each_form(&ctx, &scene, &config, &inputs);
        for (cpu, form) in [(&unrolled, "unrolled"), (&by_mask, "by mask")] {
            let differing = pixels_differing(&lattice, cpu);
            assert_eq!(differing, 0, "{compositor:?}, {form}");
        }
        assert!(
            distinct_pixels(&lattice) > 200,
            "{compositor:?}: a flat frame"
        );
    }
}

/// The moonlit scene's physical medium outside the `fluid` view compiles that view's code out
/// (fog.wgsl's `FOG_FLUID_VIEW` off): the same bytes as the form that tests the view's knob at
/// each point, with the raster sheets and the compute march. The `fluid` view keeps its code,
/// and shows the fluid instead of the lit fog.
#[test]
fn the_physical_medium_without_the_fluid_view_keeps_its_bytes() {
    let Some(ctx) = context() else { return };
    let scene = small_moonlit();
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(120, || {});
    let inputs = playback.frame_inputs(&state);
    for compositor in [Compositor::Raster, Compositor::Compute] {
        let config = fog_config((96, 54), compositor, Readback::default());
        let compiled_out = render_once(&ctx, &scene, &config, &inputs);
        FORCE_FLUID_VIEW_READ.set(true);
        let made = Renderer::new(&ctx, &scene, &config);
        FORCE_FLUID_VIEW_READ.set(false);
        let mut reads_view = made.unwrap_or_else(|e| panic!("renderer: {e}"));
        let read = render(&mut reads_view, &inputs);
        assert_eq!(pixels_differing(&compiled_out, &read), 0, "{compositor:?}");
        assert!(distinct_pixels(&read) > 200, "{compositor:?}: a flat frame");
        let fluid_config = RenderConfig {
            view: View::Fluid,
            ..config
        };
        let fluid = render_once(&ctx, &scene, &fluid_config, &inputs);
        let (differing, pixels) = (pixels_differing(&fluid, &read), 96 * 54);
        eprintln!("{compositor:?}: the fluid view differs in {differing} of {pixels} pixels");
        assert!(
            differing * 2 > pixels,
            "{compositor:?}: the fluid view differs in {differing} pixels"
        );
    }
}
