//! The later edge samples drawn in one go (`passes/edge_batch.rs`) against the same samples
//! drawn one by one: the temple, whose fires put flames at the edges too, on both sheet
//! compositors (the compute one's batch by tiles, the raster one's by listed pixel).

use super::*;
use crate::compare::{Comparison, Tolerance, compare};
use crate::gpu::passes::edge_batch::FORCE_ONE_BY_ONE;
use crate::gpu::passes::fog_compute::Compositor;
use crate::playback::Playback;

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
    scene.fluid.grid = 48;
    scene.output.edge_samples = edge_samples;
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
    let path = std::path::Path::new("scenes/walkway.ron");
    let mut scene = crate::scene::load(Some(path), &[])
        .unwrap_or_else(|e| panic!("scenes/walkway.ron does not load: {e:?}"))
        .scene;
    assert!(!scene.walkers.is_empty() && scene.weather.is_none());
    scene.fluid.grid = 48;
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(150, || {});
    let inputs = playback.frame_inputs(&state);
    assert!(
        !inputs.capsules.is_empty(),
        "the walkers should be in the frame"
    );
    let config = fog_config((256, 144), Compositor::Raster, Readback::default());
    let mut batched = renderer_for(&ctx, &scene, &config);
    assert!(batched.batches_edge_samples());
    let batched = render(&mut batched, &inputs);
    FORCE_ONE_BY_ONE.set(true);
    let mut one_by_one = renderer_for(&ctx, &scene, &config);
    FORCE_ONE_BY_ONE.set(false);
    let each = render(&mut one_by_one, &inputs);
    assert_close(&batched, &each);
}
