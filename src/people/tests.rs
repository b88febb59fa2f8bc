//! The walker's pose as a pure function of time: the same at every frame rate, legs still when
//! standing, a body of the right size.

use super::*;
use crate::scene::{WalkerPath, WaypointPath};
use crate::timeline::Timeline;

fn crossing() -> Walker {
    Walker {
        path: WalkerPath::Waypoints(WaypointPath {
            points: vec![(-5.0, 1.0), (0.0, 1.0), (2.0, -3.0)],
            speed: 1.3,
            start_s: 0.5,
        }),
        ..Walker::default()
    }
}

/// Frames at 24, 30 and 60 fps that fall on the same instant (every 1/6 s, and any time the
/// rates share) give bit-identical poses and capsules.
#[test]
fn poses_are_the_same_at_24_30_and_60_fps() {
    let motion = WalkerMotion::new(&crossing());
    let pose_at = |fps: u32, frame: u32| {
        let timeline = Timeline {
            fps,
            frame_count: 10_000,
        };
        let pose = motion.pose(timeline.frame_time_s(frame));
        let mut capsules = Vec::new();
        motion.capsules(&pose, &mut capsules);
        (pose, capsules)
    };
    let mut moving = 0;
    // One second is frame 24, 30 and 60; 1/6 s is frame 4, 5 and 10.
    for k in 0..60 {
        let at24 = pose_at(24, 4 * k);
        let at30 = pose_at(30, 5 * k);
        let at60 = pose_at(60, 10 * k);
        assert_eq!(at24, at30, "1/6 s × {k}");
        assert_eq!(at24, at60, "1/6 s × {k}");
        assert_eq!(at24.1.len(), CAPSULES_PER_WALKER);
        moving += usize::from(at24.0.stride > 0.5);
    }
    assert!(moving > 20, "the walker walks in most of them ({moving})");
}

#[test]
fn legs_step_while_walking_and_stop_while_standing() {
    let motion = WalkerMotion::new(&crossing());
    let end = motion.route().end_s();
    // Walking: the feet pass each other (the left foot is ahead, then behind).
    let foot_ahead = |t: f64| {
        let pose = motion.pose(t);
        let mut capsules = Vec::new();
        motion.capsules(&pose, &mut capsules);
        let (left, right) = (capsules[2].b_world, capsules[3].b_world);
        let (s, c) = pose.heading_rad.sin_cos();
        (left[0] - right[0]) * s + (left[2] - right[2]) * c
    };
    let samples: Vec<f32> = (0..40)
        .map(|k| foot_ahead(1.0 + f64::from(k) * 0.05))
        .collect();
    assert!(samples.iter().any(|&d| d > 0.3), "{samples:?}");
    assert!(samples.iter().any(|&d| d < -0.3), "{samples:?}");
    // Standing after the end: the same pose at every later time, legs together and upright.
    let standing = motion.pose(end + 1.0);
    assert_eq!(standing.stride, 0.0);
    assert_eq!(standing, motion.pose(end + 7.5));
    assert!(foot_ahead(end + 1.0).abs() < 1e-5);
    // And before the start it stands at the first point.
    assert_eq!(motion.pose(0.0).pos_world, [-5.0, 1.0]);
    assert_eq!(motion.pose(0.0).stride, 0.0);
}

#[test]
fn the_body_is_as_tall_as_its_height_and_stands_on_the_floor() {
    for (radius, height) in [(0.25, 1.75), (0.15, 1.1), (0.4, 2.2)] {
        let walker = Walker {
            radius,
            height,
            ..crossing()
        };
        let motion = WalkerMotion::new(&walker);
        for t in [0.0, 1.3, 2.2, 9.0] {
            let mut capsules = Vec::new();
            motion.capsules(&motion.pose(t), &mut capsules);
            let top = capsules
                .iter()
                .map(|c| c.a_world[1].max(c.b_world[1]) + c.radius_world)
                .fold(f32::MIN, f32::max);
            let bottom = capsules
                .iter()
                .map(|c| c.a_world[1].min(c.b_world[1]) - c.radius_world)
                .fold(f32::MAX, f32::min);
            // Full height standing; walking, the hips bob a little lower.
            let pose = motion.pose(t);
            if pose.stride == 0.0 {
                assert!((top - height).abs() < 1e-4, "top {top} of {height} at {t}");
            } else {
                assert!(
                    top <= height + 1e-4 && top > 0.95 * height,
                    "top {top} at {t}"
                );
            }
            // One foot always on the floor.
            assert!(bottom.abs() < 1e-4, "bottom {bottom} at {t}");
            // The torso is as wide as the radius says.
            assert_eq!(capsules[0].radius_world, radius);
        }
    }
}

#[test]
fn brushes_move_with_the_walker() {
    let motion = WalkerMotion::new(&crossing());
    let brushes = motion.brushes(1.5, 1.0 / 60.0);
    let [vx, vz] = brushes.velocity_world_per_s;
    assert!((vx - 1.3).abs() < 1e-3 && vz.abs() < 1e-6, "{vx}, {vz}");
    assert!((brushes.center_world[0] - (-5.0 + 1.3)).abs() < 1e-5);
    assert_eq!(brushes.push_radius_world, 0.25 * PUSH_RADIUS_IN_RADII);
    let standing = motion.brushes(100.0, 1.0 / 60.0);
    assert_eq!(standing.velocity_world_per_s, [0.0, 0.0]);
}
