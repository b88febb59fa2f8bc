//! Tests of the `reflection` pass's mirrored camera, floor window and knobs (no GPU).

use super::*;
use crate::frame::CameraPose;
use crate::gpu::camera;

fn project(m: Mat4, p: [f32; 3]) -> Vec4 {
    m * Vec4::new(p[0], p[1], p[2], 1.0)
}

#[test]
fn a_floor_point_lands_where_it_is_seen_flipped_and_under_floor_points_are_clipped() {
    let pose = CameraPose {
        eye_world: [1.0, 3.0, 9.0],
        target_world: [0.0, 0.5, 0.0],
        fov_y_deg: 50.0,
    };
    let clip = camera::clip_from_world(&pose, 16.0 / 9.0);
    let mirrored = mirrored_clip_from_world(clip, 3.0).unwrap();
    // A point on the floor: the same place on screen, left and right swapped.
    let seen = project(clip, [0.7, 0.0, 2.0]);
    let mirror = project(mirrored, [0.7, 0.0, 2.0]);
    assert!((seen.x / seen.w + mirror.x / mirror.w).abs() < 1e-4);
    assert!((seen.y / seen.w - mirror.y / mirror.w).abs() < 1e-4);
    // Above the floor: inside the depth range; under it: in front of the near plane.
    let above = project(mirrored, [0.0, 1.5, 0.0]);
    assert!(
        above.z / above.w > 0.0 && above.z / above.w < 1.0,
        "{above}"
    );
    let under = project(mirrored, [0.0, -0.5, 0.0]);
    assert!(under.z < 0.0, "{under}");
    // An eye on or under the floor has no reflection.
    assert!(mirrored_clip_from_world(clip, 0.0).is_none());
}

#[test]
fn the_floor_window_holds_the_floor_and_the_crop_stretches_it_over_the_target() {
    let pose = CameraPose {
        eye_world: [0.0, 2.0, 9.0],
        target_world: [0.0, 0.5, 0.0],
        fov_y_deg: 50.0,
    };
    let clip = camera::clip_from_world(&pose, 16.0 / 9.0);
    // A 6-unit floor seen from 9 units away: the lower part of the picture, not the top.
    let [x_min, y_min, x_max, y_max] = floor_window_ndc(clip, 3.0).unwrap();
    assert!(y_min == -1.0 || y_min < -0.3, "{y_min}");
    assert!(
        y_max < 0.5,
        "the floor's far edge lies below the top: {y_max}"
    );
    assert!(x_min > -1.0 && x_max < 1.0, "{x_min} {x_max}");
    for corner in [
        [-3.0, 0.0, -3.0],
        [3.0, 0.0, -3.0],
        [3.0, 0.0, 3.0],
        [-3.0, 0.0, 3.0],
    ] {
        let p = project(clip, corner);
        let (x, y) = (p.x / p.w, p.y / p.w);
        assert!(x >= x_min && x <= x_max && y >= y_min && y <= y_max.min(1.0));
    }
    // The crop maps the window's corners to the target's.
    let window = [x_min, y_min, x_max, y_max];
    let cropped = crop_to_window(clip, window);
    let far_left = project(clip, [-3.0, 0.0, -3.0]);
    let p = project(cropped, [-3.0, 0.0, -3.0]);
    let expect_x = (far_left.x / far_left.w - x_min) / (x_max - x_min) * 2.0 - 1.0;
    assert!((p.x / p.w - expect_x).abs() < 1e-4);
    assert_eq!(p.z, far_left.z, "depth is untouched");
    // A floor running under the camera is cut at the near plane: still a finite window.
    let low = CameraPose {
        eye_world: [0.0, 0.3, 0.0],
        target_world: [0.0, 0.3, -5.0],
        fov_y_deg: 60.0,
    };
    let window = floor_window_ndc(camera::clip_from_world(&low, 1.5), 5.0).unwrap();
    assert_eq!(window[1], -1.0);
    assert!(
        window[3] <= 0.1 + 1e-4,
        "level view: the floor stays below the middle"
    );
    // Looking up at the sky, the floor is off screen: no reflection to draw.
    let up = CameraPose {
        eye_world: [0.0, 1.0, 0.0],
        target_world: [0.0, 10.0, -1.0],
        fov_y_deg: 40.0,
    };
    assert!(floor_window_ndc(camera::clip_from_world(&up, 1.5), 3.0).is_none());
}

#[test]
fn the_window_in_pixels_rounds_outward_and_stays_in_the_picture() {
    assert_eq!(
        window_pixels([-1.0, -1.0, 1.0, 1.0], 160, 90),
        [0, 0, 160, 90]
    );
    // The lower half, a little wider than the middle: y up in NDC, down in pixels.
    assert_eq!(
        window_pixels([-0.51, -1.0, 0.5, 0.0], 100, 50),
        [24, 25, 51, 25]
    );
    assert_eq!(
        window_pixels([-2.0, -3.0, 4.0, 5.0], 10, 10),
        [0, 0, 10, 10]
    );
}
