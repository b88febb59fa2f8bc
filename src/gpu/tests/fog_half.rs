//! GPU tests of the fog at half resolution (`output.fog_resolution: Half`, `fog_half.rs`): it
//! renders with both sheet compositors, stays within a stated bound of the full-resolution
//! picture without being it, keeps the fog (the picture is not the fogless one), and gives the
//! same bytes every time. A scene without the field keeps its bytes: the goldens cover that.
//! `Auto` draws the half-size fog on a CPU adapter and the full-size one on a GPU
//! (`GpuContext::as_if`), and the renderer says which it drew.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, image, inputs, render, renderer_with};
use crate::compare::{Tolerance, compare};
use crate::frame::View;
use crate::gpu::Compositor;
use crate::scene::{FogResolution, Scene};

const WIDTH: u32 = 160;
const HEIGHT: u32 = 90;

fn half_scene() -> Scene {
    let mut scene = Scene::default();
    scene.output.fog_resolution = FogResolution::Half;
    scene
}

/// Half against Full, raster and compute, on the fog at rest: close (mean under 1.5 levels,
/// SSIM over 0.95, the worst pixel under 80 levels: a fog wisp finer than two pixels is
/// softened, not moved), yet not the same picture, and still fog (far from the fogless frame).
#[test]
fn half_is_close_to_full_and_keeps_the_fog() {
    let Some(ctx) = context() else { return };
    let full_scene = Scene::default();
    let half_scene = half_scene();
    let maps = flat_maps(&full_scene, 1.0);
    let clear_maps = flat_maps(&full_scene, 0.0);
    let at = inputs(&full_scene, &maps, 30);
    let clear = inputs(&full_scene, &clear_maps, 30);
    for compositor in [Compositor::Raster, Compositor::Compute] {
        let case = compositor.name();
        let mut full = renderer_with(&ctx, &full_scene, WIDTH, HEIGHT, View::Fog, compositor);
        let mut half = renderer_with(&ctx, &half_scene, WIDTH, HEIGHT, View::Fog, compositor);
        let expected = render(&mut full, &at);
        let actual = render(&mut half, &at);
        let c = compare(&image(&expected), &image(&actual), &Tolerance::DEFAULT);
        eprintln!(
            "{case}: half against full: max diff {} levels, {} pixels over 8, mean {:.4}, \
             SSIM {:.5}",
            c.max_channel_diff, c.pixels_over, c.mean_abs_diff, c.ssim
        );
        assert!(
            expected.rgba8 != actual.rgba8,
            "{case}: half drew the full picture"
        );
        assert!(c.mean_abs_diff < 1.5, "{case}: mean {}", c.mean_abs_diff);
        assert!(c.ssim > 0.95, "{case}: SSIM {}", c.ssim);
        assert!(
            c.max_channel_diff < 80,
            "{case}: max {}",
            c.max_channel_diff
        );

        let fogless = render(&mut half, &clear);
        let to_fogless = compare(&image(&fogless), &image(&actual), &Tolerance::DEFAULT);
        assert!(
            to_fogless.mean_abs_diff > 10.0 * c.mean_abs_diff,
            "{case}: the half fog is hardly there: {} levels from the fogless frame",
            to_fogless.mean_abs_diff
        );
        let again = render(&mut half, &at);
        assert_eq!(
            again.rgba8, actual.rgba8,
            "{case}: not the same bytes twice"
        );
    }
}

/// The two compositors agree at half size as they do at full size (the golden tolerance).
#[test]
fn half_raster_and_half_compute_agree() {
    let Some(ctx) = context() else { return };
    let scene = half_scene();
    let maps = flat_maps(&scene, 1.0);
    let at = inputs(&scene, &maps, 12);
    let mut raster = renderer_with(&ctx, &scene, WIDTH, HEIGHT, View::Fog, Compositor::Raster);
    let mut compute = renderer_with(&ctx, &scene, WIDTH, HEIGHT, View::Fog, Compositor::Compute);
    let a = render(&mut raster, &at);
    let b = render(&mut compute, &at);
    let c = compare(&image(&a), &image(&b), &Tolerance::DEFAULT);
    assert!(c.passed, "half raster and compute differ: {:?}", c.failures);
}

/// An odd picture size (the last half-size texel covers one column or row) renders, close to
/// its full-size picture: within a mean of 3 levels at 97×55, where the half-size fog is only
/// 49×28 texels (2.1 measured on lavapipe).
#[test]
fn half_at_an_odd_size_renders() {
    let Some(ctx) = context() else { return };
    let (width, height) = (97, 55);
    let full_scene = Scene::default();
    let maps = flat_maps(&full_scene, 1.0);
    let at = inputs(&full_scene, &maps, 0);
    let raster = Compositor::Raster;
    let mut full = renderer_with(&ctx, &full_scene, width, height, View::Fog, raster);
    let mut half = renderer_with(&ctx, &half_scene(), width, height, View::Fog, raster);
    let expected = render(&mut full, &at);
    let actual = render(&mut half, &at);
    assert_eq!((actual.width, actual.height), (width, height));
    let c = compare(&image(&expected), &image(&actual), &Tolerance::DEFAULT);
    assert!(c.mean_abs_diff < 3.0, "mean {}", c.mean_abs_diff);
}

/// `Auto` is `Half` on a CPU adapter and `Full` on any GPU: the same bytes as the resolution it
/// stands for on that adapter, and the renderer reports the one it drew. A GPU's forms of the
/// fog's shaders give a CPU adapter's bytes (`adapter_forms.rs`), so lavapipe stands in.
#[test]
fn auto_is_half_on_a_cpu_adapter_and_full_on_a_gpu() {
    let Some(ctx) = context() else { return };
    let with = |resolution| {
        let mut scene = Scene::default();
        scene.output.fog_resolution = resolution;
        scene
    };
    let maps = flat_maps(&Scene::default(), 1.0);
    let at = inputs(&Scene::default(), &maps, 30);
    let kinds = [
        (wgpu::DeviceType::Cpu, FogResolution::Half),
        (wgpu::DeviceType::DiscreteGpu, FogResolution::Full),
        (wgpu::DeviceType::IntegratedGpu, FogResolution::Full),
    ];
    let raster = Compositor::Raster;
    for (kind, expected) in kinds {
        let ctx = ctx.as_if(kind);
        let mut auto = renderer_with(
            &ctx,
            &with(FogResolution::Auto),
            WIDTH,
            HEIGHT,
            View::Fog,
            raster,
        );
        let mut chosen = renderer_with(&ctx, &with(expected), WIDTH, HEIGHT, View::Fog, raster);
        assert_eq!(
            auto.fog_resolution(),
            expected,
            "Auto on a {kind:?} adapter"
        );
        assert_eq!(
            chosen.fog_resolution(),
            expected,
            "{expected:?} on a {kind:?} adapter"
        );
        let (a, b) = (render(&mut auto, &at), render(&mut chosen, &at));
        assert!(
            a.rgba8 == b.rgba8,
            "Auto on a {kind:?} adapter is not {expected:?}"
        );
    }
}
