//! Unit tests of the `fog_compute` pass's CPU side: the ray it rebuilds and its knobs' size.

use super::*;
use glam::{Mat4, Vec4};

/// The shader's ray through a pixel centre, done on the CPU with the same matrices, passes
/// through the world point that projects onto that pixel.
#[test]
fn rebuilt_ray_meets_the_projected_point() {
    let pose = crate::frame::CameraPose {
        eye_world: [0.0, 7.5, 11.0],
        target_world: [0.0, 0.4, 0.0],
        fov_y_deg: 50.0,
    };
    let (width, height) = (160.0_f32, 90.0_f32);
    let clip_from_world: Mat4 = camera::clip_from_world(&pose, width / height);
    let world_from_clip = clip_from_world.inverse();
    let eye = glam::Vec3::from_array(pose.eye_world);
    for point in [
        glam::Vec3::new(1.3, 0.5, -2.0),
        glam::Vec3::new(-4.0, 2.2, 3.0),
        glam::Vec3::new(0.0, 0.02, 6.0),
    ] {
        let clip = clip_from_world * point.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        // Pixel coordinates as the shader derives them, back to clip space.
        let px = (ndc.x + 1.0) * 0.5 * width;
        let py = (1.0 - ndc.y) * 0.5 * height;
        let ndc_again = glam::Vec2::new(px / width * 2.0 - 1.0, 1.0 - py / height * 2.0);
        let far = world_from_clip * Vec4::new(ndc_again.x, ndc_again.y, 1.0, 1.0);
        let ray = (far.truncate() / far.w - eye).normalize();
        let to_point = (point - eye).normalize();
        assert!(
            ray.dot(to_point) > 1.0 - 1e-6,
            "ray {ray} misses {point} (direction {to_point})"
        );
    }
}

#[test]
fn march_knobs_match_wgsl_size() {
    // mat4x4 (64) + vec4<u32> (16).
    assert_eq!(std::mem::size_of::<MarchKnobs>(), 80);
}
