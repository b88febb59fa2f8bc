//! The camera's matrices: a right-handed look-at with world Y up and a perspective projection
//! into wgpu's clip space (depth 0..1).
//!
//! Inputs come from scene files, so degenerate poses (eye on the target, looking straight up
//! or down, a field of view of 0 or 180 degrees) are made usable here rather than producing
//! NaN matrices.

use glam::camera::rh::{proj::directx, view};
use glam::{Mat4, Vec3};

use crate::frame::{CameraPose, FrameInputs};

/// Near clipping plane, world units.
pub(crate) const NEAR_WORLD: f32 = 0.1;
/// Far clipping plane, world units.
pub(crate) const FAR_WORLD: f32 = 100.0;

/// World to clip space for `pose` on a picture of `aspect` = width / height.
pub(crate) fn clip_from_world(pose: &CameraPose, aspect: f32) -> Mat4 {
    let eye = Vec3::from_array(pose.eye_world);
    let target = Vec3::from_array(pose.target_world);
    let mut forward = target - eye;
    if !forward.is_finite() || forward.length_squared() < 1e-12 {
        forward = Vec3::NEG_Z;
    }
    let forward = forward.normalize();
    // World Y up, unless the camera looks along it: then +z (or -z) serves as "up".
    let up = if forward.cross(Vec3::Y).length_squared() > 1e-8 {
        Vec3::Y
    } else {
        Vec3::NEG_Z * forward.y.signum()
    };
    let view_from_world = view::look_to_mat4(eye, forward, up);

    let (fov_y_deg, aspect) = usable_view(pose.fov_y_deg, aspect);
    // Right-handed view space into WebGPU's clip space (depth 0..1, y up): glam's "directx".
    let clip_from_view =
        directx::perspective(fov_y_deg.to_radians(), aspect, NEAR_WORLD, FAR_WORLD);
    clip_from_view * view_from_world
}

/// A field of view (degrees) and aspect from a scene made usable: the field of view clamped
/// to 1..179 degrees (50 where it is not a number), the aspect 1 where it is not positive.
pub(crate) fn usable_view(fov_y_deg: f32, aspect: f32) -> (f32, f32) {
    let fov_y_deg = if fov_y_deg.is_finite() {
        fov_y_deg.clamp(1.0, 179.0)
    } else {
        50.0
    };
    let aspect = if aspect.is_finite() && aspect > 0.0 {
        aspect
    } else {
        1.0
    };
    (fov_y_deg, aspect)
}

/// World to clip space for the frame `inputs` on a picture of `size_px` (width, height): the
/// camera's projection, moved by the sample's sub-pixel offset so that each pixel sees the
/// scene at its centre plus that offset (x right, y down). The centre sample's is
/// [`clip_from_world`] itself, bit for bit. Every pass that projects or casts rays takes its
/// matrix from here, so a sample's geometry, fog and rays agree.
pub(crate) fn frame_clip_from_world(inputs: &FrameInputs<'_>, size_px: (u32, u32)) -> Mat4 {
    let (width, height) = size_px;
    let clip = clip_from_world(&inputs.camera, width as f32 / height as f32);
    let [x_px, y_px] = inputs.sample.pixel_px;
    if x_px == 0.0 && y_px == 0.0 {
        return clip;
    }
    // A picture moved left by the offset shows at each pixel centre what lay the offset to its
    // right; clip y points up, pixel rows down.
    let shift_ndc = Vec3::new(-2.0 * x_px / width as f32, 2.0 * y_px / height as f32, 0.0);
    Mat4::from_translation(shift_ndc) * clip
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec4;

    fn pose(eye: [f32; 3], target: [f32; 3]) -> CameraPose {
        CameraPose {
            eye_world: eye,
            target_world: target,
            fov_y_deg: 50.0,
        }
    }

    #[test]
    fn target_lands_in_the_middle_of_the_picture() {
        let m = clip_from_world(&pose([0.0, 7.5, 8.0], [0.0, 0.4, 0.0]), 16.0 / 9.0);
        let clip = m * Vec4::new(0.0, 0.4, 0.0, 1.0);
        let ndc = clip.truncate() / clip.w;
        assert!(ndc.x.abs() < 1e-5 && ndc.y.abs() < 1e-5, "{ndc}");
        assert!(ndc.z > 0.0 && ndc.z < 1.0, "depth {}", ndc.z);
    }

    #[test]
    fn world_up_is_up_on_screen() {
        let m = clip_from_world(&pose([0.0, 2.0, 10.0], [0.0, 2.0, 0.0]), 1.0);
        let low = m * Vec4::new(0.0, 0.0, 0.0, 1.0);
        let high = m * Vec4::new(0.0, 4.0, 0.0, 1.0);
        assert!(high.y / high.w > low.y / low.w);
        // +x is to the right when looking along -z.
        let right = m * Vec4::new(1.0, 2.0, 0.0, 1.0);
        assert!(right.x / right.w > 0.0);
    }

    #[test]
    fn degenerate_poses_give_finite_matrices() {
        let straight_down = clip_from_world(&pose([0.0, 10.0, 0.0], [0.0, 0.0, 0.0]), 1.0);
        let on_target = clip_from_world(&pose([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]), 0.0);
        let mut bad_fov = pose([0.0, 1.0, 5.0], [0.0, 0.0, 0.0]);
        bad_fov.fov_y_deg = f32::NAN;
        let bad = clip_from_world(&bad_fov, f32::INFINITY);
        for m in [straight_down, on_target, bad] {
            assert!(m.is_finite(), "{m}");
        }
    }
}
