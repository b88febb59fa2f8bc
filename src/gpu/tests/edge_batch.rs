//! The later edge samples drawn in one go (`passes/edge_batch.rs`) against the same samples
//! drawn one by one: the temple, whose fires put flames at the edges too.

use super::*;
use crate::compare::{Comparison, Tolerance, compare};
use crate::gpu::passes::edge_batch::FORCE_ONE_BY_ONE;
use crate::gpu::passes::fog_compute::Compositor;
use crate::playback::Playback;

/// The temple's frame 60 at the default sampling on the compute path: batched, one by one
/// (a test switch), and at one sample a pixel.
fn temple_three_ways(ctx: &GpuContext) -> (Frame, Frame, Frame) {
    temple_three_ways_at(ctx, None)
}

/// [`temple_three_ways`] with `edge_samples` at the edges (`None`: the default's eight).
fn temple_three_ways_at(ctx: &GpuContext, edge_samples: Option<u32>) -> (Frame, Frame, Frame) {
    let mut scene = shipped_temple();
    scene.fluid.grid = 48;
    scene.output.edge_samples = edge_samples;
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(60, || {});
    let inputs = playback.frame_inputs(&state);
    let config = fog_config((256, 144), Compositor::Compute, Readback::default());
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
    let (batched, each, single) = temple_three_ways(&ctx);
    let close = assert_close(&batched, &each);
    let apart = compare(&image(&each), &image(&single), &Tolerance::DEFAULT);
    assert!(
        close.mean_abs_diff * 8.0 < apart.mean_abs_diff,
        "the batch should be far nearer the one-by-one samples ({:.4} levels) than one sample \
         is ({:.4})",
        close.mean_abs_diff,
        apart.mean_abs_diff
    );
}

/// The flames' later samples are in the batch: their light, summed over the picture, is that
/// of the samples drawn one by one within a hundredth (and a batch without them would lose
/// seven eighths of it at the flames' edges).
#[test]
fn the_batch_draws_the_flames_of_every_sample() {
    let Some(ctx) = context() else { return };
    let (batched, each, single) = temple_three_ways(&ctx);
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
        "flame light: batched {batched}, one by one {each}"
    );
}

/// Sixteen samples at the edges, the most a batch draws, give the one-by-one picture too; and
/// seventeen are drawn one by one.
#[test]
fn sixteen_edge_samples_batch_and_seventeen_do_not() {
    let Some(ctx) = context() else { return };
    let (batched, each, _) = temple_three_ways_at(&ctx, Some(16));
    assert_close(&batched, &each);
    let mut scene = shipped_temple();
    scene.output.edge_samples = Some(17);
    let config = fog_config((64, 36), Compositor::Compute, Readback::default());
    assert!(!renderer_for(&ctx, &scene, &config).batches_edge_samples());
}
