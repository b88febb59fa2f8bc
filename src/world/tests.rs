//! The world's tests: landings, restored worlds, keyframes, solids and fires.

use super::*;
use crate::scene::{CameraKey, KeyframedCamera};
use crate::sim::SnapshotError;

/// A scene whose ball stands still at (2, 2), jumps once at 0.5 s and lands about 0.77 s
/// later, with no fires.
fn jumping_scene() -> Scene {
    let mut scene = Scene::default();
    scene.fires.clear();
    scene.ball.script = vec![crate::scene::Input::Jump(crate::scene::Jump { at: 0.5 })];
    scene
}

#[test]
fn a_landing_blasts_the_fog_outward_and_lifts_it_in_a_ring() {
    let mut world = World::new(&jumping_scene());
    let ring_lift = |world: &World, [x, z]: [f32; 2]| -> f32 {
        (0..8)
            .map(|k| {
                let angle = k as f32 * std::f32::consts::TAU / 8.0;
                world
                    .fluid()
                    .probe(x + 1.6 * angle.cos(), z + 1.6 * angle.sin())
                    .lift
            })
            .fold(f32::INFINITY, f32::min)
    };
    let mut landed_at = None;
    let mut lift_before_landing = 0.0;
    for _ in 0..120 {
        let [bx, _, bz] = world.ball().pos_world;
        let before = ring_lift(&world, [bx, bz]);
        if world.step().contains(&BallEvent::Land) {
            landed_at = Some(world.ball().pos_world);
            lift_before_landing = before;
            break;
        }
    }
    let [x, _, z] = landed_at.expect("the ball lands within 2 s");
    // Let the blast spread for a quarter of a second.
    for _ in 0..15 {
        world.step();
    }
    let fluid = world.fluid();
    let ring: Vec<f32> = (0..8)
        .map(|k| {
            let angle = k as f32 * std::f32::consts::TAU / 8.0;
            fluid
                .probe(x + 1.6 * angle.cos(), z + 1.6 * angle.sin())
                .lift
        })
        .collect();
    let far = fluid.probe(x - 6.0, z - 6.0).lift;
    assert!(
        ring.iter().all(|&l| l > 0.1),
        "lift round the landing: {ring:?}"
    );
    // The landing, not what is left of the take-off, did it.
    assert!(
        ring_lift(&world, [x, z]) > lift_before_landing + 0.1,
        "ring lift {lift_before_landing} before landing, {:?} after",
        ring_lift(&world, [x, z])
    );
    assert!(far < 0.01, "lift far away: {far}");
    // The fog under the landing is thinner than in the ring it was thrown into.
    let centre = fluid.probe(x, z).density;
    let ring_density = fluid.probe(x + 1.6, z).density;
    assert!(
        centre < ring_density,
        "centre {centre}, ring {ring_density}"
    );
}

#[test]
fn a_restored_world_steps_exactly_like_the_uninterrupted_one() {
    // The temple's self-driving script (seeded jumps) on a small grid.
    let mut scene = Scene::default();
    scene.fluid.grid = 24;
    let mut world = World::new(&scene);
    for _ in 0..200 {
        world.step();
    }
    let bytes = world.snapshot();
    let mut restored = World::restore(&scene, &bytes).unwrap();
    assert_eq!(restored.steps(), 200);
    assert_eq!(restored.state_hash(), world.state_hash());
    assert_eq!(restored.snapshot(), bytes);
    let mut jumps = 0;
    for step in 0..400 {
        let events = world.step();
        assert_eq!(restored.step(), events, "step {step}");
        jumps += events.iter().filter(|e| **e == BallEvent::Jump).count();
        assert_eq!(restored.state_hash(), world.state_hash(), "step {step}");
        assert_eq!(
            restored.camera_pose(0.0).eye_world,
            world.camera_pose(0.0).eye_world
        );
    }
    assert!(jumps > 0, "the script jumped after the snapshot");
}

#[test]
fn snapshots_of_other_scenes_and_damaged_bytes_are_refused() {
    let mut scene = Scene::default();
    scene.fluid.grid = 16;
    let mut world = World::new(&scene);
    for _ in 0..30 {
        world.step();
    }
    let bytes = world.snapshot();
    let mut other = scene.clone();
    other.fluid.refill = 1.0;
    assert!(matches!(
        World::restore(&other, &bytes),
        Err(SnapshotError::OtherScene { .. })
    ));
    // The output section does not change the states, so it does not count.
    let mut resized = scene.clone();
    resized.output.width = 320;
    assert!(World::restore(&resized, &bytes).is_ok());
    for cut in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(
                World::restore(&scene, &bytes[..cut]),
                Err(SnapshotError::Truncated { .. })
            ),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        World::restore(&scene, &longer),
        Err(SnapshotError::Corrupt(_))
    ));
}

#[test]
fn keyframes_interpolate_and_hold() {
    let keys = KeyframedCamera {
        keys: vec![
            CameraKey {
                time_s: 1.0,
                position: [0.0, 0.0, 0.0],
                target: [0.0, 0.0, -1.0],
                fov_y_deg: 40.0,
            },
            CameraKey {
                time_s: 3.0,
                position: [2.0, 4.0, 6.0],
                target: [0.0, 0.0, -1.0],
                fov_y_deg: 60.0,
            },
        ],
    };
    assert_eq!(keyframe_pose(&keys.keys, 0.0).eye_world, [0.0; 3]);
    assert_eq!(keyframe_pose(&keys.keys, 2.0).eye_world, [1.0, 2.0, 3.0]);
    assert_eq!(keyframe_pose(&keys.keys, 2.0).fov_y_deg, 50.0);
    assert_eq!(keyframe_pose(&keys.keys, 9.0).eye_world, [2.0, 4.0, 6.0]);
}

#[test]
fn standing_blocks_are_solid_to_the_fog_floating_ones_are_not() {
    use crate::scene::Block;
    let solid_cells = |blocks: Vec<Block>| {
        let mut scene = Scene::default();
        scene.hall.pillars.clear();
        scene.hall.altar.width = 0.01;
        scene.hall.altar.depth = 0.01;
        scene.hall.blocks = blocks;
        let world = World::new(&scene);
        world.fluid().solid().iter().filter(|&&s| s == 1).count()
    };
    let base = solid_cells(Vec::new());
    let step = Block {
        bottom_center: [-6.0, 0.0, 5.0],
        size: [4.0, 0.4, 2.0],
        ..Block::default()
    };
    let floating = Block {
        bottom_center: [-6.0, 2.5, 5.0],
        ..step.clone()
    };
    let sunk = Block {
        bottom_center: [-6.0, -1.0, 5.0],
        size: [4.0, 1.0, 2.0],
        ..step.clone()
    };
    // 4 × 2 world units on a 96-cell grid over 22: about 17.5 × 8.7 cells.
    let standing = solid_cells(vec![step]) - base;
    assert!((150..=200).contains(&standing), "{standing} cells");
    assert_eq!(solid_cells(vec![floating]), base);
    assert_eq!(solid_cells(vec![sunk]), base);
}

#[test]
fn fires_lift_the_fog_over_them() {
    use crate::scene::{Fire, FireKind};
    let mut still = Scene::default();
    still.ball.script.clear();
    let mut warm = still.clone();
    warm.fires = vec![Fire {
        kind: FireKind::Brazier,
        position: [-6.0, 0.9, -6.0],
        flame_height: 1.0,
        ..Fire::default()
    }];
    let mut a = World::new(&still);
    let mut b = World::new(&warm);
    let mut c = World::new(&still);
    for _ in 0..120 {
        a.step();
        b.step();
        c.step();
    }
    let lift_at = |world: &World, x: f32, z: f32| world.fluid().probe(x, z).lift;
    assert_eq!(lift_at(&a, -6.0, -6.0), 0.0);
    let over_fire = lift_at(&b, -6.0, -6.0);
    assert!(over_fire > 0.1 && over_fire < 0.5, "lift {over_fire}");
    // Far from the fire nothing changed.
    assert_eq!(lift_at(&b, 6.0, 6.0), lift_at(&a, 6.0, 6.0));
    assert_ne!(a.state_hash(), b.state_hash());
    assert_eq!(a.state_hash(), c.state_hash());
}
