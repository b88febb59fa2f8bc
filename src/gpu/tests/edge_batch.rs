//! The later edge samples drawn in one go (`passes/edge_batch.rs`) against the same samples
//! drawn one by one: the temple, whose fires put flames at the edges too, on both sheet
//! compositors (the compute one's batch by tiles, the raster one's by listed pixel); the
//! walkway's walkers; the storm's wet floor, rain and bolt.

use super::*;
use crate::compare::{Comparison, Tolerance, compare};
use crate::frame::WeatherFrame;
use crate::gpu::passes::edge_batch::{FORCE_NO_MIRROR, FORCE_ONE_BY_ONE};
use crate::gpu::passes::fog_compute::Compositor;
use crate::playback::Playback;
use crate::scene::{FogResolution, Scene, Weather};

/// The sheet compositors, each of which batches the later edge samples.
const BATCHING: [Compositor; 2] = [Compositor::Compute, Compositor::Raster];

/// The temple's frame 60 at the default sampling with `compositor`: batched, one by one (a
/// test switch), and at one sample a pixel.
fn temple_three_ways(ctx: &GpuContext, compositor: Compositor) -> (Frame, Frame, Frame) {
    temple_three_ways_at(ctx, compositor, None)
}

/// [`temple_three_ways`] with `edge_samples` at the edges (`None`: the default's eight).
fn temple_three_ways_at(
    ctx: &GpuContext,
    compositor: Compositor,
    edge_samples: Option<u32>,
) -> (Frame, Frame, Frame) {
    let mut scene = shipped_temple();
    scene.output.edge_samples = edge_samples;
    temple_three_ways_of(ctx, compositor, scene)
}

/// [`temple_three_ways`] of `scene` (the shipped temple, changed).
fn temple_three_ways_of(
    ctx: &GpuContext,
    compositor: Compositor,
    mut scene: Scene,
) -> (Frame, Frame, Frame) {
    scene.fluid.grid = 48;
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(60, || {});
    let inputs = playback.frame_inputs(&state);
    let config = fog_config((256, 144), compositor, Readback::default());
    let mut batched = renderer_for(ctx, &scene, &config);
    assert!(batched.batches_edge_samples());
    let first = render(&mut batched, &inputs);
    let again = render(&mut batched, &inputs);
    assert_eq!(
        first.rgba8, again.rgba8,
        "the batch renders the same bytes twice"
    );
    FORCE_ONE_BY_ONE.set(true);
    let mut one_by_one = renderer_for(ctx, &scene, &config);
    FORCE_ONE_BY_ONE.set(false);
    assert!(!one_by_one.batches_edge_samples());
    let each = render(&mut one_by_one, &inputs);
    scene.output.samples = Some(1);
    let single = render_once(ctx, &scene, &config, &inputs);
    (first, each, single)
}

/// Asserts that `batched` is `each` within rounding: the default tolerance, and under 0.1 % of
/// the pixels over 8 levels. Returns the comparison.
fn assert_close(batched: &Frame, each: &Frame) -> Comparison {
    let close = compare(&image(each), &image(batched), &Tolerance::DEFAULT);
    assert!(
        close.passed && close.fraction_over < 0.001,
        "batched against one by one: {} px over 8 levels, max {}",
        close.pixels_over,
        close.max_channel_diff
    );
    close
}

/// The batch gives the picture of the samples drawn one by one, within rounding, while one
/// sample a pixel stands far from both at the edges.
#[test]
fn the_batched_edge_samples_draw_the_one_by_one_picture() {
    let Some(ctx) = context() else { return };
    for compositor in BATCHING {
        let (batched, each, single) = temple_three_ways(&ctx, compositor);
        let close = assert_close(&batched, &each);
        let apart = compare(&image(&each), &image(&single), &Tolerance::DEFAULT);
        assert!(
            close.mean_abs_diff * 8.0 < apart.mean_abs_diff,
            "{}: the batch should be far nearer the one-by-one samples ({:.4} levels) than \
             one sample is ({:.4})",
            compositor.name(),
            close.mean_abs_diff,
            apart.mean_abs_diff
        );
    }
}

/// The flames' later samples are in the batch: their light, summed over the picture, is that
/// of the samples drawn one by one within a hundredth (and a batch without them would lose
/// seven eighths of it at the flames' edges).
#[test]
fn the_batch_draws_the_flames_of_every_sample() {
    let Some(ctx) = context() else { return };
    for compositor in BATCHING {
        assert_flames_batched(&ctx, compositor);
    }
}

/// The flame light of the temple's batch with `compositor` against its samples one by one.
fn assert_flames_batched(ctx: &GpuContext, compositor: Compositor) {
    let (batched, each, single) = temple_three_ways(ctx, compositor);
    // Light a flame adds: where the red channel stands well above the blue.
    let flame_light = |frame: &Frame| -> f64 {
        frame
            .rgba8
            .chunks_exact(4)
            .map(|px| f64::from(px[0].saturating_sub(px[2].saturating_add(40))))
            .sum()
    };
    let (batched, each, single) = (
        flame_light(&batched),
        flame_light(&each),
        flame_light(&single),
    );
    assert!(single > 1000.0, "the flames should be in view: {single}");
    assert!(
        (batched - each).abs() <= 0.01 * each,
        "{}: flame light: batched {batched}, one by one {each}",
        compositor.name()
    );
}

/// A half-size fog batches too: its edges' fog is marched at full size over the listed
/// pixels, so the later samples draw those pixels alone, as at full size. The batch gives the
/// one-by-one picture, and both are anti-aliased (not the single sample's picture).
#[test]
fn a_half_size_fog_batches_its_edge_samples() {
    let Some(ctx) = context() else { return };
    for compositor in BATCHING {
        let mut scene = shipped_temple();
        scene.output.fog_resolution = FogResolution::Half;
        let (batched, each, single) = temple_three_ways_of(&ctx, compositor, scene);
        assert_close(&batched, &each);
        let aliased = compare(&image(&single), &image(&batched), &Tolerance::DEFAULT);
        assert!(
            aliased.pixels_over > 0,
            "{}: the half-size fog's default is the single sample's picture",
            compositor.name()
        );
    }
}

/// Sixteen samples at the edges, the most a batch draws, give the one-by-one picture too; and
/// seventeen are drawn one by one.
#[test]
fn sixteen_edge_samples_batch_and_seventeen_do_not() {
    let Some(ctx) = context() else { return };
    for compositor in BATCHING {
        let (batched, each, _) = temple_three_ways_at(&ctx, compositor, Some(16));
        assert_close(&batched, &each);
        let mut scene = shipped_temple();
        scene.output.edge_samples = Some(17);
        let config = fog_config((64, 36), compositor, Readback::default());
        assert!(!renderer_for(&ctx, &scene, &config).batches_edge_samples());
    }
}

/// The raster compositor's batch bins the walkers' capsules with the hall: the walkway, whose
/// people cross the hall, batched against its samples one by one.
#[test]
fn the_raster_batch_draws_the_walkers() {
    let Some(ctx) = context() else { return };
    let scene = shipped("scenes/walkway.ron");
    assert!(!scene.walkers.is_empty() && scene.weather.is_none());
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(150, || {});
    let inputs = playback.frame_inputs(&state);
    assert!(
        !inputs.capsules.is_empty(),
        "the walkers should be in the frame"
    );
    let config = fog_config((256, 144), Compositor::Raster, Readback::default());
    let (batched, each) = batched_and_each(&ctx, &scene, &config, &inputs);
    assert_close(&batched, &each);
}

/// `scene`'s frame `inputs` with `config`: batched, and with the later samples one by one.
fn batched_and_each(
    ctx: &GpuContext,
    scene: &Scene,
    config: &RenderConfig,
    inputs: &FrameInputs<'_>,
) -> (Frame, Frame) {
    let mut batched = renderer_for(ctx, scene, config);
    assert!(batched.batches_edge_samples());
    let batched = render(&mut batched, inputs);
    FORCE_ONE_BY_ONE.set(true);
    let mut one_by_one = renderer_for(ctx, scene, config);
    FORCE_ONE_BY_ONE.set(false);
    assert!(!one_by_one.batches_edge_samples());
    (batched, render(&mut one_by_one, inputs))
}

/// The shipped scene at `path` with a coarse fluid.
fn shipped(path: &str) -> Scene {
    let mut scene = crate::scene::load(Some(std::path::Path::new(path)), &[])
        .unwrap_or_else(|e| panic!("{path} does not load: {e:?}"))
        .scene;
    scene.fluid.grid = 48;
    scene
}

/// The storm batches too: its wet floor's mirror is laid over the batch's floor hits, and its
/// rain and bolt are drawn once over the mean, each fragment weighing every sample. The
/// picture is the samples one by one within rounding, on both sheet compositors, in a frame
/// with rain, a wet floor and a bolt (the rain and the bolt drawn over the mean as sample 0
/// sees them fail by some 280 pixels over 8 levels). Against 16 full samples a pixel it errs
/// about 0.4 times as much as one sample does.
#[test]
fn the_batch_draws_the_storm() {
    let Some(ctx) = context() else { return };
    let scene = shipped("scenes/storm.ron");
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(396, || {});
    let inputs = playback.frame_inputs(&state);
    let weather = inputs.weather.as_ref().expect("the storm's weather");
    assert!(
        weather.rain > 0.5 && weather.wetness > 0.5 && weather.last_strike.is_some(),
        "frame 396 should have rain, a wet floor and a bolt: {weather:?}"
    );
    for compositor in BATCHING {
        let config = fog_config((256, 144), compositor, Readback::default());
        let (batched, each) = batched_and_each(&ctx, &scene, &config, &inputs);
        assert_close(&batched, &each);
        // Against 16 full samples a pixel: far nearer than one sample is.
        let sampled = |samples| {
            let mut scene = scene.clone();
            scene.output.samples = Some(samples);
            render_once(&ctx, &scene, &config, &inputs)
        };
        let reference = sampled(16);
        let from_reference = |frame: &Frame| {
            compare(&image(&reference), &image(frame), &Tolerance::DEFAULT).mean_abs_diff
        };
        let (near, single) = (from_reference(&batched), from_reference(&sampled(1)));
        assert!(
            near < 0.6 * single,
            "{}: the batched storm is {near:.4} levels from 16 samples, one sample {single:.4}",
            compositor.name()
        );
    }
}

/// The batch lays the wet floor's mirror over its floor hits: on a wet floor under thin fog,
/// where the pillars' feet and the ball stand on the mirror, the batch is far nearer the
/// samples one by one than a batch without the mirror (about half as far, on both compositors).
#[test]
fn the_batch_lays_the_mirror_over_the_floor() {
    let Some(ctx) = context() else { return };
    let stormy = Scene {
        weather: Some(Weather::default()),
        ..Scene::default()
    };
    let maps = flat_maps(&stormy, 0.3);
    let mut wet_at = inputs(&stormy, &maps, 30);
    wet_at.weather = Some(WeatherFrame {
        wetness: 1.0,
        ..clear_weather()
    });
    for compositor in BATCHING {
        let config = fog_config((192, 128), compositor, Readback::default());
        let drawn = |one_by_one: bool, no_mirror: bool| {
            FORCE_ONE_BY_ONE.set(one_by_one);
            FORCE_NO_MIRROR.set(no_mirror);
            let mut renderer = renderer_for(&ctx, &stormy, &config);
            FORCE_ONE_BY_ONE.set(false);
            FORCE_NO_MIRROR.set(false);
            assert_eq!(renderer.batches_edge_samples(), !one_by_one);
            render(&mut renderer, &wet_at)
        };
        let (each, batched, dry) = (drawn(true, false), drawn(false, false), drawn(false, true));
        let from_each = |frame: &Frame| {
            compare(&image(&each), &image(frame), &Tolerance::DEFAULT).mean_abs_diff
        };
        let (near, far) = (from_each(&batched), from_each(&dry));
        assert!(
            near < 0.7 * far,
            "{}: the batch is {near:.4} levels from the samples one by one, without its mirror \
             {far:.4}",
            compositor.name()
        );
    }
}
