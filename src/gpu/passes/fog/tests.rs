//! Tests of the `fog` pass's knobs and sheets (no GPU).

use super::*;

#[test]
fn eye_above_draws_bottom_up() {
    let heights = [0.1, 0.2, 0.3, 0.4];
    assert_eq!(back_to_front(&heights, 7.5), vec![0.1, 0.2, 0.3, 0.4]);
}

#[test]
fn eye_below_draws_top_down() {
    let heights = [0.1, 0.2, 0.3, 0.4];
    assert_eq!(back_to_front(&heights, -1.0), vec![0.4, 0.3, 0.2, 0.1]);
}

#[test]
fn eye_inside_draws_farthest_first_on_each_side() {
    let heights = [0.1, 0.2, 0.3, 0.4, 0.5];
    let order = back_to_front(&heights, 0.32);
    assert_eq!(order, vec![0.1, 0.5, 0.2, 0.4, 0.3]);
    // Along a ray going down the sheets below come in decreasing distance: 0.1 before 0.2.
    let pos = |h: f32| order.iter().position(|&x| x == h).unwrap_or(usize::MAX);
    assert!(pos(0.1) < pos(0.2) && pos(0.2) < pos(0.3));
    assert!(pos(0.5) < pos(0.4));
}

#[test]
fn ceiling_is_the_rest_top_plus_the_largest_lift() {
    let scene = Scene::default();
    let knobs = FogKnobs::new(&scene, View::Fog);
    let (rest_top, lift_height) = (knobs.layer[1], knobs.layer[2]);
    // Lift in red; the other channels (speed, 0, 255) do not count.
    let lift_map = [10, 200, 0, 255, 51, 0, 0, 255, 0, 255, 0, 255];
    let ceiling = fog_ceiling_world(&knobs, &lift_map);
    assert_eq!(ceiling, rest_top + 51.0 / 255.0 * lift_height);
    let flat = [0, 255, 0, 255];
    assert_eq!(fog_ceiling_world(&knobs, &flat), rest_top);
}

#[test]
fn sheets_under_the_ceiling_keep_a_spacing_of_margin() {
    // Sheets every 0.1 from 0.05: those within one spacing above the ceiling are kept.
    let heights: Vec<f32> = (0..10).map(|i| 0.05 + 0.1 * i as f32).collect();
    assert_eq!(sheets_under(&heights, 0.1, 0.42), 5);
    assert_eq!(sheets_under(&heights, 0.1, 0.3), 4);
    assert_eq!(sheets_under(&heights, 0.1, 5.0), 10);
    assert_eq!(sheets_under(&heights, 0.1, -1.0), 0);
    // The temple at rest: of 48 sheets up to 3.4, those under 1.7 plus the margin.
    let scene = Scene::default();
    let knobs = FogKnobs::new(&scene, View::Fog);
    let all = sheet_heights(&scene.fog);
    let kept = sheets_under(&all, knobs.layer[3], knobs.layer[1]);
    assert!((24..=26).contains(&kept), "{kept} of {}", all.len());
}

#[test]
fn views_set_sigma_and_debug() {
    let scene = Scene::default();
    let fog = FogKnobs::new(&scene, View::Fog);
    let flow = FogKnobs::new(&scene, View::Flow);
    let fluid = FogKnobs::new(&scene, View::Fluid);
    assert_eq!(fog.optics[0], scene.fog.sigma);
    assert_eq!(flow.optics[0], scene.fog.veil_sigma);
    assert_eq!((fog.optics[2], fluid.optics[2]), (0.0, 1.0));
    // Spacing is (3.4 - 0.02) / 48.
    assert!((fog.layer[3] - 3.38 / 48.0).abs() < 1e-6);
}
